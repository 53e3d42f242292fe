//! User accounts: sign-up, login sessions, and reading users.

pub mod accounts;
mod graphql;
pub mod sessions;
