//! Excel activity reports built in the background: the jobs' table ([`store`]), their building
//! ([`build`]) with their files written on low-priority threads ([`thread`]), each instance's
//! worker ([`worker`]) and the signed download links ([`links`]).

pub mod build;
pub mod links;
pub mod store;
pub mod thread;
pub mod worker;
