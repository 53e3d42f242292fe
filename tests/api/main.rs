//! Every black-box test of the service, in one binary (one link, one harness). Each module
//! starts the real server on a random port, on SQLite and on PostgreSQL, and talks to it over
//! HTTP or through the command line. See `support::harness` for how tests are registered and
//! how tests that cannot run here are reported.

#[macro_use]
mod support;

mod account_browser;
mod account_pages;
mod accounts;
mod auto_validation;
mod book;
mod break_last_mission;
mod businesses;
mod companies;
mod company_register;
mod company_settings;
mod compression;
mod confinement;
mod console;
mod console_browser;
mod constraints;
mod contract;
mod cors;
mod coverage;
mod dashboard;
mod deleted_missions;
mod detachment;
mod disputes;
mod docs_pages;
mod drivers;
mod employment_batches;
mod employment_tokens;
mod employments;
mod export;
mod export_benchmark;
mod export_jobs;
mod export_params;
mod export_personal;
mod export_readers;
mod graceful_stop;
mod graphql_http;
mod hidden_email;
mod holidays;
mod hostile;
mod invitations;
mod kilometers;
mod known_addresses;
mod local_dates;
mod local_days;
mod mail;
mod mail_types;
mod migrations;
mod mission_pdf;
mod missions;
mod notifications;
mod oauth_browser;
mod oauth_clients;
mod oauth_flow;
mod oauth_limits;
mod oauth_token;
mod operator;
mod own_account;
mod pdf_exports;
mod plans;
mod property;
mod published;
mod reference_state;
mod regulation;
mod regulation_api;
mod regulation_eu;
mod request_connection;
mod round_trips;
mod sandbox;
mod session_tokens;
mod signup_limit;
mod spans;
mod stress;
mod teams;
mod time_zones;
mod totp;
mod totp_pages;
mod vehicles;
mod vendors;
mod work_days;
mod write_churn;

fn main() -> std::process::ExitCode {
    support::harness::main()
}
