//! The second factor of a login, for every user who wants it: a TOTP authenticator
//! ([`credential`]: setup, verification that enables it, removal with a code), recovery codes,
//! the login's challenge between the password and the code ([`challenge`]), and the limit of
//! wrong codes per user ([`proof`]). Secrets are sealed at rest as the signing keys are
//! (`domain::export::sealing`).

pub mod challenge;
pub mod codes;
pub mod credential;
pub mod proof;

pub use credential::{Setup, disable, is_enabled, setup, verify};
