//! Roadlog: working time of road-transport workers (drivers, crew), recorded by the workers,
//! managed by their companies, and opened to third-party software through a GraphQL API and
//! OAuth 2.0, compatible with the reference service's third-party API.

pub mod activities;
pub mod auth;
pub mod companies;
pub mod config;
pub mod errors;
pub mod expenditures;
pub mod export;
pub mod graphql;
pub mod http;
pub mod mail;
pub mod missions;
pub mod oauth;
pub mod sdk;
pub mod server;
pub mod storage;
pub mod telemetry;
pub mod users;
