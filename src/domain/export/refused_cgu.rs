//! A user's full data when they refuse the terms of use (CGU), as the reference builds it: one
//! Excel report job per company the user was ever employed by (any status), the user as
//! exporter. Where the user's most recent employment there (by start date) has admin rights,
//! the report covers every worker of the company; otherwise the user alone. Each report runs from
//! the earliest account creation among its workers to today, and its files are named after the
//! company and the period (in French, as the reference). The caller is checked before: a user
//! asks for their own data only.

use chrono::NaiveDate;

use crate::db::Db;
use crate::errors::AppResult;

use super::jobs::store::{self, ExportKind, Job};
use super::workbook::display_name;

pub mod sql {
    crate::statements! {
        /// Every company of user `$1`'s employments (any status), with its usual name.
        pub const COMPANIES: &str = "SELECT c.id, c.usual_name FROM companies c \
             WHERE c.id IN (SELECT company_id FROM employments WHERE user_id = $1) ORDER BY c.id";
        /// Whether user `$1`'s most recent employment (by start date) in company `$2` has admin rights.
        pub const LATEST_ADMIN: &str = "SELECT has_admin_rights FROM employments \
             WHERE user_id = $1 AND company_id = $2 ORDER BY start_date DESC, id DESC LIMIT 1";
        /// The earliest account creation among the workers of company `$1` with an accepted
        /// employment overlapping [`$2`, `$3`].
        pub const FIRST_WORKER_CREATION: &str = "SELECT MIN(u.creation_time) FROM users u WHERE u.id IN \
             (SELECT e.user_id FROM employments e WHERE e.company_id = $1 AND e.validation_status = 'approved' \
                AND e.dismissed_at IS NULL AND e.start_date <= $3 AND (e.end_date IS NULL OR e.end_date >= $2))";
        pub const USER: &str = "SELECT first_name, last_name, creation_time FROM users WHERE id = $1";
    }
}

/// The first day an admin's report selects workers from, as the reference.
fn selection_start() -> NaiveDate {
    NaiveDate::from_ymd_opt(2000, 1, 1).unwrap_or(NaiveDate::MIN)
}

fn day_of(timestamp: i64) -> Option<NaiveDate> {
    chrono::DateTime::from_timestamp(timestamp, 0).map(|t| t.date_naive())
}

fn french(date: NaiveDate) -> String {
    date.format("%d/%m/%Y").to_string()
}

/// The base name of a report's files: the company's for an admin, the worker's otherwise.
pub fn base_name(company: &str, worker: Option<&str>, from: NaiveDate, to: NaiveDate) -> String {
    match worker {
        None => format!("{company}_rapport_activités_{} au {}", french(from), french(to)),
        Some(name) => format!(
            "Relevé d'heures de {name} - {} au {} - {company}",
            french(from),
            french(to)
        ),
    }
}

/// The jobs of user `user_id`'s data on `today`, one per company, in the companies' order (none
/// for a user never employed, or unknown).
pub async fn jobs(db: &Db, user_id: i64, today: NaiveDate) -> AppResult<Vec<Job>> {
    let Some((first_name, last_name, created)): Option<(String, String, i64)> =
        sqlx::query_as(sql::USER).bind(user_id).fetch_optional(db).await?
    else {
        return Ok(Vec::new());
    };
    let own_start = day_of(created).unwrap_or(today).min(today);
    let companies: Vec<(i64, String)> = sqlx::query_as(sql::COMPANIES).bind(user_id).fetch_all(db).await?;
    let mut jobs = Vec::with_capacity(companies.len());
    for (company_id, usual_name) in companies {
        let (admin,): (i64,) = sqlx::query_as(sql::LATEST_ADMIN)
            .bind(user_id)
            .bind(company_id)
            .fetch_one(db)
            .await?;
        let admin = admin != 0;
        let min_date = if admin {
            let (first,): (Option<i64>,) = sqlx::query_as(sql::FIRST_WORKER_CREATION)
                .bind(company_id)
                .bind(crate::domain::companies::date_text(selection_start()))
                .bind(crate::domain::companies::date_text(today))
                .fetch_one(db)
                .await?;
            first.and_then(day_of).unwrap_or(own_start).min(today)
        } else {
            own_start
        };
        let name = display_name(&first_name, &last_name);
        let worker = (!admin).then_some(name.as_str());
        jobs.push(Job {
            id: 0,
            exporter: user_id,
            company_ids: vec![company_id],
            // An admin's report covers every worker of the company.
            user_ids: if admin { Vec::new() } else { vec![user_id] },
            min_date: Some(min_date),
            max_date: Some(today),
            one_file_by_employee: false,
            as_of: today,
            kind: ExportKind::RefusedCgu,
            base_name: Some(base_name(&usual_name, worker, min_date, today)),
        });
    }
    Ok(jobs)
}

/// Queues `jobs` in one transaction (all or none).
pub async fn queue(db: &Db, jobs: &[Job]) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    for job in jobs {
        store::queue_in(&mut tx, job).await?;
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_named_after_the_company_or_the_worker_and_the_period() {
        let (from, to) = (
            NaiveDate::from_ymd_opt(2024, 3, 5).unwrap(),
            NaiveDate::from_ymd_opt(2026, 11, 29).unwrap(),
        );
        assert_eq!(
            base_name("Transports Martin", None, from, to),
            "Transports Martin_rapport_activités_05/03/2024 au 29/11/2026"
        );
        assert_eq!(
            base_name("Transports Martin", Some("Jean Dupont"), from, to),
            "Relevé d'heures de Jean Dupont - 05/03/2024 au 29/11/2026 - Transports Martin"
        );
    }
}
