//! The domain: the rules and services of working-time recording, and the SQL of each aggregate.
//! Nothing here knows about HTTP, GraphQL or OAuth: the transports call these services and
//! render what they answer. A test fails if a file here imports a transport module.

pub mod activities;
pub mod addresses;
pub mod alerts;
pub mod auth;
pub mod companies;
pub mod expenditures;
pub mod export;
pub mod kinds;
pub mod mails;
pub mod missions;
pub mod notifications;
pub mod regulation;
pub mod sandbox;
pub mod teams;
pub mod users;
pub mod vehicles;
pub mod vendors;
pub mod workdays;
pub mod workers;
