//! Contract text → model. The SDL with async-graphql-parser, the OpenAPI document with
//! openapiv3 (read by serde_norway); a contract the emitters cannot express is an [`Error`](crate::Error).

pub mod graphql;
pub mod openapi;
