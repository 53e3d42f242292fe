//! User accounts: sign-up, e-mail confirmation, password reset, login sessions, reading users,
//! and what a user changes of their own account.

pub mod account_tokens;
pub mod accounts;
pub mod browser_sessions;
pub mod confirmation;
pub mod email_change;
pub mod password_change;
pub mod password_reset;
pub mod profile;
pub mod sessions;
pub mod signup_limit;
pub mod throttle;
pub mod totp;
pub mod zones;
