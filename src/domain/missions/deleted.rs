//! What the reference says about a deleted mission (one whose activities are all cancelled) and a
//! holiday mission: who deleted it (`Mission.deletedBy`) and whether it is a holiday
//! (`Mission.isHoliday`).

use crate::db::Db;
use crate::errors::AppResult;

/// Statements.
pub mod sql {
    crate::statements! {
        /// The author of mission `$1`'s last cancellation.
        pub const LAST_DISMISSAL_AUTHOR: &str = "SELECT u.first_name, u.last_name FROM activities a \
             LEFT JOIN users u ON u.id = a.dismiss_author_id \
             WHERE a.mission_id = $1 AND a.dismissed_at IS NOT NULL ORDER BY a.dismissed_at DESC, a.id DESC LIMIT 1";
        /// Whether mission `$1` holds an `off` activity, cancelled or not.
        pub const HAS_OFF: &str = "SELECT 1 FROM activities WHERE mission_id = $1 AND type = 'off' LIMIT 1";
    }
}

/// Each word's first letter upper-case and the others lower-case, a word being a run of letters
/// (Python's `str.title`, which the reference applies to the name).
pub fn title_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphabetic() {
            if in_word {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            in_word = true;
        } else {
            out.push(c);
            in_word = false;
        }
    }
    out
}

/// `Mission.deletedBy` of a deleted mission: "First Last" of who cancelled its last activity,
/// `-` when no author is known.
pub async fn deleted_by(db: &Db, mission_id: i64) -> AppResult<String> {
    let row: Option<(Option<String>, Option<String>)> = sqlx::query_as(sql::LAST_DISMISSAL_AUTHOR)
        .bind(mission_id)
        .fetch_optional(db)
        .await?;
    Ok(match row {
        Some((Some(first), Some(last))) => title_case(&format!("{first} {last}")),
        _ => "-".to_string(),
    })
}

/// `Mission.isHoliday`.
pub async fn is_holiday(db: &Db, mission_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as(sql::HAS_OFF).bind(mission_id).fetch_optional(db).await?;
    Ok(row.is_some())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_title_cased_as_python_does() {
        assert_eq!(
            super::title_case("jEAN-paul DE LA fontaine"),
            "Jean-Paul De La Fontaine"
        );
        assert_eq!(super::title_case("élodie o'neil"), "Élodie O'Neil");
    }
}
