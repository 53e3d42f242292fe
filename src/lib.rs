//! Roadlog: working time of road-transport workers (drivers, crew), recorded by the workers,
//! managed by their companies, and opened to third-party software through a GraphQL API and
//! OAuth 2.0, compatible with the reference service's third-party API.

pub mod app;
pub mod config;
pub mod db;
pub mod domain;
pub mod errors;
pub mod graphql;
pub mod http;
pub mod i18n;
pub mod mail;
pub mod oauth;
pub mod pages;
pub mod routes;
pub mod server;
pub mod telemetry;
