//! The dates of the "card" each employee's files show (issue, validity begin, expiry): decided at the
//! employee's first export, stored, and kept for later exports, so that every file of an employee shows the
//! same card.
//!
//! Why: readers flag activities recorded before the card was issued or after it expired. The card is
//! therefore issued (and valid from) no later than the earliest data a file holds: the employment's start, or
//! the first exported activity if that is earlier. It is valid five years, as a driver card; when the data
//! reaches past that, the validity is extended by five-year steps (a renewal, which the card number's renewal
//! index does not count), so the expiry is after the last data and still changes only every five years. A later
//! export only ever moves the issue date earlier (older data appeared) or the expiry later.

use std::collections::HashMap;

use chrono::{Months, NaiveDate};

use crate::db::{Db, id_list};
use crate::domain::companies::{date_text, parse_date};
use crate::errors::{AppError, AppResult};

/// Validity of a driver card, and of each extension.
const VALIDITY_MONTHS: u32 = 5 * 12;

/// A card's dates (validity begins on the issue date).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardDates {
    pub issue: NaiveDate,
    pub expiry: NaiveDate,
}

/// The dates of a card that must cover `[earliest, latest]`, given what was stored before.
pub fn card_dates(stored: Option<CardDates>, earliest: NaiveDate, latest: NaiveDate) -> CardDates {
    let issue = stored.map_or(earliest, |s| s.issue.min(earliest));
    let mut months = VALIDITY_MONTHS;
    let steps = loop {
        // Five years less a day: a card issued on 2024-01-01 expires on 2028-12-31.
        match issue.checked_add_months(Months::new(months)).and_then(|d| d.pred_opt()) {
            Some(expiry) if expiry >= latest => break expiry,
            Some(_) => months += VALIDITY_MONTHS,
            // Beyond chrono's range: the latest representable day covers anything.
            None => break NaiveDate::MAX,
        }
    };
    CardDates {
        issue,
        expiry: stored.map_or(steps, |s| s.expiry.max(steps)),
    }
}

/// Statements of the stored card dates.
pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// The stored card dates of the users `$1`.
        pub const CARDS_OF: PerBackend = crate::per_backend!(
            "SELECT user_id, issue_date, expiry_date FROM tachograph_cards WHERE ",
            ["user_id" in 1]
        );
    }
}

/// The card dates of each `(user, earliest data, latest data)`: decided and stored at a user's first export,
/// kept or widened afterwards. Concurrent exports merge to the earliest issue and the latest expiry.
pub async fn settle(db: &Db, wanted: &[(i64, NaiveDate, NaiveDate)], now: i64) -> AppResult<HashMap<i64, CardDates>> {
    let users: Vec<i64> = wanted.iter().map(|w| w.0).collect();
    let mut stored: HashMap<i64, CardDates> = HashMap::new();
    let rows: Vec<(i64, String, String)> = sqlx::query_as(db.sql(sql::CARDS_OF))
        .bind(id_list(&users))
        .fetch_all(db)
        .await?;
    for (user, issue, expiry) in rows {
        let dates = parse_date(&issue)
            .zip(parse_date(&expiry))
            .map(|(issue, expiry)| CardDates { issue, expiry })
            .ok_or_else(|| AppError::internal(format!("unreadable card dates of user {user}: {issue}, {expiry}")))?;
        stored.insert(user, dates);
    }
    let mut settled = HashMap::with_capacity(wanted.len());
    let mut tx = None;
    for &(user, earliest, latest) in wanted {
        let before = stored.get(&user).copied();
        let dates = card_dates(before, earliest, latest);
        if before == Some(dates) {
            settled.insert(user, dates);
            continue;
        }
        let tx = match &mut tx {
            Some(tx) => tx,
            None => tx.insert(db.begin_write().await?),
        };
        let (issue, expiry): (String, String) = sqlx::query_as(
            "INSERT INTO tachograph_cards (user_id, issue_date, expiry_date, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $4) \
             ON CONFLICT (user_id) DO UPDATE SET \
               issue_date = CASE WHEN excluded.issue_date < tachograph_cards.issue_date \
                 THEN excluded.issue_date ELSE tachograph_cards.issue_date END, \
               expiry_date = CASE WHEN excluded.expiry_date > tachograph_cards.expiry_date \
                 THEN excluded.expiry_date ELSE tachograph_cards.expiry_date END, \
               updated_at = excluded.updated_at \
             RETURNING issue_date, expiry_date",
        )
        .bind(user)
        .bind(date_text(dates.issue))
        .bind(date_text(dates.expiry))
        .bind(now)
        .fetch_one(&mut **tx)
        .await?;
        let dates = parse_date(&issue)
            .zip(parse_date(&expiry))
            .map(|(issue, expiry)| CardDates { issue, expiry })
            .ok_or_else(|| AppError::internal(format!("unreadable card dates of user {user}: {issue}, {expiry}")))?;
        settled.insert(user, dates);
    }
    if let Some(tx) = tx {
        tx.commit().await?;
    }
    Ok(settled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn first_export_issues_the_card_on_the_earliest_data() {
        assert_eq!(
            card_dates(None, d(2024, 1, 1), d(2024, 3, 31)),
            CardDates {
                issue: d(2024, 1, 1),
                expiry: d(2028, 12, 31)
            }
        );
    }

    #[test]
    fn later_exports_keep_the_card_unless_older_data_appears() {
        let stored = card_dates(None, d(2024, 3, 1), d(2024, 3, 31));
        assert_eq!(card_dates(Some(stored), d(2024, 4, 1), d(2024, 4, 30)), stored);
        let older = card_dates(Some(stored), d(2023, 12, 15), d(2024, 1, 10));
        assert_eq!(older.issue, d(2023, 12, 15));
        // 2023-12-15 + 5 y − 1 d = 2028-12-14 covers the data, but the stored expiry is never moved earlier.
        assert_eq!(older.expiry, d(2029, 2, 28));
    }

    #[test]
    fn expiry_covers_the_last_data_by_five_year_steps() {
        // Employment since 2015-06-01, data until 2026-03-31: 2020-05-31 and 2025-05-31 are too early.
        let dates = card_dates(None, d(2015, 6, 1), d(2026, 3, 31));
        assert_eq!((dates.issue, dates.expiry), (d(2015, 6, 1), d(2030, 5, 31)));
        // A leap day: 2024-02-29 + 5 y = 2029-02-28, less a day.
        assert_eq!(card_dates(None, d(2024, 2, 29), d(2024, 3, 1)).expiry, d(2029, 2, 27));
    }
}
