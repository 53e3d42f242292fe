//! What every test module shares: the harness, the test application, the browser, the fake
//! SMTP relay, the statement counter, and the cleanup of temporary data; and what the company,
//! employment and invitation tests share (`employments`).
#![allow(dead_code)]

#[macro_use]
pub mod harness;
pub mod app;
pub mod browser;
pub mod cleanup;
pub mod employments;
pub mod forms;
pub mod local;
pub mod process;
pub mod refusing;
pub mod relay;
pub mod statements;
pub mod walk;

pub use app::{Backend, TestApp, TestUser, codes, postgres_database, with_app};
