//! Per-request data loaders: what a response mentions many times (users, companies, the rows
//! below a list of missions) is read in one query per batch, not one per object.

pub mod missions;
pub mod users;
