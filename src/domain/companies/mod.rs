//! Companies, the employments that attach users to them, invitations, and who may read or
//! manage what.

pub mod business;
pub mod company;
pub mod dashboard;
pub mod details;
pub mod employments;
pub mod establishments;
pub mod invitations;
pub mod known_addresses;
pub mod permissions;
pub mod records;
pub mod register;
pub mod reminders;
pub mod rules;
pub mod service;
pub mod settings;
pub mod siren_info;
pub mod staff;

/// Today's date (UTC), as stored (`YYYY-MM-DD`).
pub fn today() -> chrono::NaiveDate {
    chrono::Utc::now().date_naive()
}

/// The stored form of a date.
pub fn date_text(date: chrono::NaiveDate) -> String {
    // `Display` writes the ISO date directly (`format` parses a pattern on every call).
    date.to_string()
}

/// Reads a stored date.
pub fn parse_date(text: &str) -> Option<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}
