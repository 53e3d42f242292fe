//! Exports of recorded working time. `c1b` is the EU driver-card file format (pure logic);
//! the rest turns the database into its input, keeps the signing keys, and serves the endpoint.

pub mod archive;
pub mod c1b;
mod cards;
mod data;
pub mod key_pool;
pub mod keys_store;
pub mod request;
pub mod sealing;
