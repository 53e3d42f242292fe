//! A company's admin alerts counted per day, check and flags (`company_alert_days`, migration
//! 0066), kept with the workers' month rows: the month rows a transaction removes and writes are
//! turned into differences per day, and the differences are added once, at the end of the
//! transaction's alert work, in key order. Two transactions that change the same company's counts
//! then take their rows in the same order, so neither waits on the other in a cycle; and a
//! transaction that changes no alert day writes nothing.

use std::collections::BTreeMap;

use sqlx::AnyConnection;

use crate::db::{Backend, PerBackend};
use crate::errors::{AppError, AppResult};

crate::statements! {
    /// Adds the differences `$1` (a JSON array of rows `[company, day, check, night_work,
    /// not_enough_break, too_much_uninterrupted_work_time, difference]`) in the array's order.
    /// (SQLite needs the `WHERE true` to read `ON CONFLICT` as the upsert's.)
    pub const ADD: PerBackend = PerBackend {
        sqlite: "INSERT INTO company_alert_days (company_id, day, check_type, night_work, not_enough_break, \
               too_much_uninterrupted_work_time, workers) \
             SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), \
               json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]'), \
               json_extract(value, '$[6]') FROM json_each($1) WHERE true ORDER BY key \
             ON CONFLICT (company_id, day, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time) \
             DO UPDATE SET workers = company_alert_days.workers + excluded.workers",
        postgres: "INSERT INTO company_alert_days (company_id, day, check_type, night_work, not_enough_break, \
               too_much_uninterrupted_work_time, workers) \
             SELECT CAST(r.v->>0 AS BIGINT), r.v->>1, r.v->>2, CAST(r.v->>3 AS BIGINT), CAST(r.v->>4 AS BIGINT), \
               CAST(r.v->>5 AS BIGINT), CAST(r.v->>6 AS BIGINT) \
             FROM json_array_elements(CAST(CAST($1 AS TEXT) AS json)) WITH ORDINALITY AS r(v, n) ORDER BY r.n \
             ON CONFLICT (company_id, day, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time) \
             DO UPDATE SET workers = company_alert_days.workers + excluded.workers",
    };
}

/// A month row as the month statements return what they remove or write.
#[derive(sqlx::FromRow, Debug, Clone)]
pub(super) struct MonthDays {
    pub company_id: i64,
    pub submitter_type: String,
    pub month: String,
    pub check_type: String,
    pub night_work: i64,
    pub not_enough_break: i64,
    pub too_much_uninterrupted_work_time: i64,
    /// Bit d-1: day d.
    pub days: i64,
}

/// Company, day, check and flags: `company_alert_days`'s key, in its order.
type Key = (i64, String, String, [i64; 3]);

/// The differences a transaction makes to its companies' day counts: gathered while it writes
/// month rows, added by [`DayCounts::write`] before it commits.
#[derive(Debug, Default)]
#[must_use = "the differences are only stored by `DayCounts::write`"]
pub struct DayCounts {
    changes: BTreeMap<Key, i64>,
}

impl DayCounts {
    pub fn new() -> DayCounts {
        DayCounts::default()
    }

    /// Month rows removed: their workers no longer count on their days.
    pub(super) fn removed(&mut self, rows: &[MonthDays]) {
        self.count(rows, -1);
    }

    /// Month rows written: their workers count on their days.
    pub(super) fn added(&mut self, rows: &[MonthDays]) {
        self.count(rows, 1);
    }

    /// Only the admin side is counted: the recap reads nothing else.
    fn count(&mut self, rows: &[MonthDays], sign: i64) {
        for row in rows.iter().filter(|r| r.submitter_type == "admin") {
            let flags = [
                row.night_work,
                row.not_enough_break,
                row.too_much_uninterrupted_work_time,
            ];
            for bit in (0..31).filter(|bit| (row.days >> bit) & 1 == 1) {
                let day = format!("{}-{:02}", row.month, bit + 1);
                let key = (row.company_id, day, row.check_type.clone(), flags);
                *self.changes.entry(key).or_insert(0) += sign;
            }
        }
    }

    /// The differences that are not zero, in key order.
    fn rows(&self) -> Vec<serde_json::Value> {
        self.changes
            .iter()
            .filter(|(_, difference)| **difference != 0)
            .map(|((company, day, check, flags), difference)| {
                serde_json::json!([company, day, check, flags[0], flags[1], flags[2], difference])
            })
            .collect()
    }

    /// Adds the differences to the stored counts: one statement, none when nothing changed.
    pub async fn write(self, conn: &mut AnyConnection) -> AppResult<()> {
        let rows = self.rows();
        if rows.is_empty() {
            return Ok(());
        }
        let rows = serde_json::to_string(&rows).map_err(|e| AppError::internal(format!("not serialisable: {e}")))?;
        sqlx::query(Backend::of(conn).sql(ADD))
            .bind(rows)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(company_id: i64, side: &str, month: &str, flags: [i64; 3], days: i64) -> MonthDays {
        MonthDays {
            company_id,
            submitter_type: side.to_string(),
            month: month.to_string(),
            check_type: "maximumWorkDayTime".to_string(),
            night_work: flags[0],
            not_enough_break: flags[1],
            too_much_uninterrupted_work_time: flags[2],
            days,
        }
    }

    #[test]
    fn a_rewritten_month_row_counts_only_the_days_that_changed() {
        let mut counts = DayCounts::new();
        counts.removed(&[row(7, "admin", "2026-09", [0; 3], 0b0110)]);
        counts.added(&[row(7, "admin", "2026-09", [0; 3], 0b1100)]);
        let rows = counts.rows();
        assert_eq!(
            rows,
            [
                serde_json::json!([7, "2026-09-02", "maximumWorkDayTime", 0, 0, 0, -1]),
                serde_json::json!([7, "2026-09-04", "maximumWorkDayTime", 0, 0, 0, 1]),
            ],
            "day 3 is in both: no difference"
        );
    }

    #[test]
    fn the_employee_side_is_not_counted_and_the_order_is_the_key_order() {
        let mut counts = DayCounts::new();
        counts.added(&[
            row(9, "admin", "2026-08", [1, 0, 0], 1 << 30),
            row(3, "admin", "2026-10", [0; 3], 1),
            row(3, "employee", "2026-08", [0; 3], 1),
            row(3, "admin", "2026-09", [0, 1, 1], 1),
        ]);
        let keys: Vec<(i64, String)> = counts
            .rows()
            .iter()
            .map(|r| (r[0].as_i64().unwrap(), r[1].as_str().unwrap().to_string()))
            .collect();
        assert_eq!(
            keys,
            [
                (3, "2026-09-01".to_string()),
                (3, "2026-10-01".to_string()),
                (9, "2026-08-31".to_string())
            ]
        );
    }
}
