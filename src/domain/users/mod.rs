//! User accounts: sign-up, login sessions, and reading users.

pub mod accounts;
mod graphql;
pub mod loader;
pub mod sessions;
pub mod throttle;

pub use loader::load_user;
