//! Exports of recorded working time. `c1b` is the EU driver-card file format (pure logic);
//! the rest turns the database into its input, keeps the signing keys, and serves the endpoint.
//! `chunking` and `reports` split an Excel activity report into files, as the reference does;
//! `jobs` builds the reports in the background and `workbook` writes them; `refused_cgu` queues
//! a user's full data when they refuse the terms of use; `pdf` writes the worker's printable
//! records.

pub mod archive;
pub mod c1b;
mod cards;
pub mod chunking;
pub(crate) mod data;
pub mod jobs;
pub mod key_pool;
pub mod keys_store;
pub mod pdf;
pub mod refused_cgu;
pub mod reports;
pub mod request;
pub mod sealing;
pub mod workbook;
