//! The typed model of the contract: what the parsers produce and the emitters read.

pub mod graphql;
pub mod rest;
