//! Users' time zones: IANA names (`Europe/Paris`, `America/Cayenne`), checked wherever one
//! enters and read back from storage.
//!
//! Why checked at the door: a worker's days are cut at that zone's midnights, so a misspelt name
//! silently read as another zone moves every minute of their recorded time to other days. A name
//! is accepted only as the time zone database spells it (case included: `america/cayenne` is
//! refused); a fixed offset such as `+03` is not a zone name.
//!
//! Rows stored before the check, or written to the database by hand, may still hold an unknown
//! name. They are read as [`DEFAULT`] and never silently: the first read of each such name logs a
//! warning, `open_database` (every command that opens the database, `serve` and `migrate`
//! included) logs how many accounts hold one, and `roadlog users unknown-zones` lists them.

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex};

use chrono_tz::Tz;

use crate::db::Db;
use crate::errors::{AppError, AppResult};

/// The zone of an account created without one, and the zone an unknown stored name is read as
/// (the reference's default).
pub const DEFAULT: Tz = chrono_tz::Europe::Paris;

/// Longest name accepted: the longest zone name is 32 characters.
const MAX_NAME: usize = 64;

/// A zone given by a client: `None` or blank is [`DEFAULT`]; an unknown name is `INVALID_INPUTS`
/// naming `field`.
pub fn given(name: Option<&str>, field: &str) -> AppResult<Tz> {
    match name.map(str::trim).filter(|n| !n.is_empty()) {
        None => Ok(DEFAULT),
        Some(name) => known(name).ok_or_else(|| {
            let shown: String = name.chars().take(MAX_NAME).collect();
            AppError::invalid_inputs(format!(
                "Unknown time zone {shown:?}: give an IANA time zone name, such as Europe/Paris"
            ))
            .with("field", field)
        }),
    }
}

/// The zone of a known IANA name, spelt exactly.
pub fn known(name: &str) -> Option<Tz> {
    if name.len() > MAX_NAME {
        return None;
    }
    name.parse().ok()
}

/// Distinct unknown names already warned about; bounded, so that rows of made-up names cannot
/// grow it.
static WARNED: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(|| Mutex::new(HashSet::new()));
const MAX_WARNED: usize = 256;

/// The zone of a stored name: an unknown one is read as [`DEFAULT`], with a warning the first
/// time each name is read.
pub fn stored(name: &str) -> Tz {
    if let Some(zone) = known(name) {
        return zone;
    }
    let first = WARNED
        .lock()
        .map(|mut warned| warned.len() < MAX_WARNED && warned.insert(name.chars().take(MAX_NAME).collect()))
        .unwrap_or(false);
    if first {
        tracing::warn!(
            zone = %name.chars().take(MAX_NAME).collect::<String>(),
            read_as = DEFAULT.name(),
            "an account holds an unknown time zone; `roadlog users unknown-zones` lists them"
        );
    }
    DEFAULT
}

/// One account whose stored zone is unknown.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnknownZone {
    pub user_id: i64,
    pub timezone_name: String,
}

/// The accounts whose stored zone is not a known name, by id. The distinct names are few (a
/// handful of zones per deployment), so they are checked here and only their accounts listed.
pub async fn unknown(db: &Db) -> AppResult<Vec<UnknownZone>> {
    let names: Vec<(String,)> = sqlx::query_as("SELECT DISTINCT timezone_name FROM users")
        .fetch_all(&db.pool)
        .await?;
    let mut found = Vec::new();
    for (name,) in names.into_iter().filter(|(name,)| known(name).is_none()) {
        let users: Vec<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE timezone_name = $1 ORDER BY id")
            .bind(&name)
            .fetch_all(&db.pool)
            .await?;
        found.extend(users.into_iter().map(|(user_id,)| UnknownZone {
            user_id,
            timezone_name: name.clone(),
        }));
    }
    found.sort_by_key(|u| u.user_id);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Code;

    #[test]
    fn only_iana_names_spelt_exactly_are_known() {
        assert_eq!(
            given(Some("America/Cayenne"), "timezoneName").unwrap(),
            chrono_tz::America::Cayenne
        );
        assert_eq!(
            given(Some(" Pacific/Chatham "), "timezoneName").unwrap(),
            chrono_tz::Pacific::Chatham
        );
        assert_eq!(given(None, "timezoneName").unwrap(), DEFAULT);
        assert_eq!(given(Some("  "), "timezoneName").unwrap(), DEFAULT);
        for wrong in [
            "America/Cayene",
            "Mars/Olympus",
            "america/cayenne",
            "+03",
            "UTC+3",
            &"A/".repeat(100),
        ] {
            let error = given(Some(wrong), "timezoneName").unwrap_err();
            assert_eq!(error.code, Code::InvalidInputs, "{wrong}");
            assert!(error.message.starts_with("Unknown time zone"), "{}", error.message);
        }
    }

    #[test]
    fn an_unknown_stored_name_is_read_as_the_default() {
        assert_eq!(stored("Asia/Kolkata"), chrono_tz::Asia::Kolkata);
        assert_eq!(stored("Mars/Olympus"), DEFAULT);
    }
}
