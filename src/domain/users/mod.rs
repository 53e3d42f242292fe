//! User accounts: sign-up, e-mail confirmation, password reset, login sessions, and reading
//! users.

pub mod account_tokens;
pub mod accounts;
pub mod browser_sessions;
pub mod confirmation;
pub mod password_reset;
pub mod sessions;
pub mod signup_limit;
pub mod throttle;
pub mod zones;
