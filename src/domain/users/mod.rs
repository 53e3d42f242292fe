//! User accounts: sign-up, login sessions, and reading users.

pub mod accounts;
pub mod browser_sessions;
pub mod sessions;
pub mod throttle;
