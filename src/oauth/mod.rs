//! OAuth 2.0: third-party applications act for users without their passwords. This module holds
//! the client registry and the access tokens that clients receive.

pub mod authorize;
pub mod clients;
pub mod csrf;
mod endpoint;
pub mod limits;
mod login_step;
pub mod pages;
pub mod primitives;
pub mod revoke;
pub mod token_endpoint;
pub mod web;
