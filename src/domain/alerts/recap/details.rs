//! The recap's day details: the alerted workers' names, and for each alerted day and worker,
//! whether the worker also worked that day for another company (`otherCompanyRelation`).

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::db::{Db, id_list};
use crate::domain::companies::parse_date;
use crate::domain::regulation::time;
use crate::errors::AppResult;

use super::Detail;
use super::lines::AlertLine;

pub mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// The names and zones of the alerted workers (`$1`).
        pub const NAMES: PerBackend = crate::per_backend!(
            "SELECT id, first_name, last_name, timezone_name FROM users WHERE ",
            ["id" in 1]
        );
        /// The activities the workers (`$1`) started in `[$2, $3)` for companies other than `$4`,
        /// with those companies' SIRENs: one statement for every alerted worker of the recap.
        pub const OTHER_COMPANIES: PerBackend = crate::per_backend!(
            "SELECT a.user_id, a.start_time, c.siren FROM activities a JOIN missions m ON m.id = a.mission_id \
             JOIN companies c ON c.id = m.company_id WHERE ",
            ["a.user_id" in 1],
            " AND a.dismissed_at IS NULL AND a.start_time >= $2 AND a.start_time < $3 AND m.company_id <> $4"
        );
    }
}

/// An alerted worker's name and zone.
struct Worker {
    name: String,
    zone: chrono_tz::Tz,
}

/// What the details of a recap's lines need: the workers' names, and the other company
/// relation of each alerted (day, worker) that has one.
pub(super) struct Details {
    workers: BTreeMap<i64, Worker>,
    relations: BTreeMap<(NaiveDate, i64), &'static str>,
}

impl Details {
    /// The details of `lines`, for company `company_id` (SIREN `siren`): two statements.
    pub(super) async fn read(db: &Db, company_id: i64, siren: &str, lines: &[AlertLine]) -> AppResult<Details> {
        let workers = workers_of(db, lines).await?;
        let alerted: BTreeMap<(NaiveDate, i64), chrono_tz::Tz> = lines
            .iter()
            .filter_map(|line| {
                let worker = workers.get(&line.user_id)?;
                Some(((parse_date(&line.day)?, line.user_id), worker.zone))
            })
            .collect();
        let relations = other_company_relations(db, company_id, siren, &alerted).await?;
        Ok(Details { workers, relations })
    }

    /// The detail of a line (none: its day is not a date).
    pub(super) fn of(&self, line: &AlertLine) -> Option<Detail> {
        let day = parse_date(&line.day)?;
        Some(Detail {
            day,
            user_name: self
                .workers
                .get(&line.user_id)
                .map(|w| w.name.clone())
                .unwrap_or_default(),
            user_id: line.user_id,
            other_company_relation: self.relations.get(&(day, line.user_id)).copied(),
        })
    }
}

async fn workers_of(db: &Db, lines: &[AlertLine]) -> AppResult<BTreeMap<i64, Worker>> {
    let mut users: Vec<i64> = lines.iter().map(|l| l.user_id).collect();
    users.sort_unstable();
    users.dedup();
    if users.is_empty() {
        return Ok(BTreeMap::new());
    }
    let rows: Vec<(i64, String, String, String)> = sqlx::query_as(db.sql(sql::NAMES))
        .bind(id_list(&users))
        .fetch_all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(id, first, last, zone)| {
            let worker = Worker {
                name: format!("{first} {last}"),
                zone: time::zone(&zone),
            };
            (id, worker)
        })
        .collect())
}

/// For each `alerted` (local day, worker), with the worker's zone: `company` when the worker
/// started activities that day for a company with another SIREN, `establishment` when only for
/// other companies with the same SIREN (absent: neither). One statement for all of them: the
/// activities the workers started for other companies over the span of the alerted days, each
/// placed on its local day in its worker's zone.
async fn other_company_relations(
    db: &Db,
    company_id: i64,
    siren: &str,
    alerted: &BTreeMap<(NaiveDate, i64), chrono_tz::Tz>,
) -> AppResult<BTreeMap<(NaiveDate, i64), &'static str>> {
    let mut relations = BTreeMap::new();
    let span = alerted
        .iter()
        .map(|(&(day, _), &tz)| (time::day_start(tz, day), time::day_end(tz, day)));
    let Some((from, until)) = span.reduce(|a, b| (a.0.min(b.0), a.1.max(b.1))) else {
        return Ok(relations);
    };
    let zones: BTreeMap<i64, chrono_tz::Tz> = alerted.iter().map(|(&(_, user), &tz)| (user, tz)).collect();
    let users: Vec<i64> = zones.keys().copied().collect();
    let rows: Vec<(i64, i64, String)> = sqlx::query_as(db.sql(sql::OTHER_COMPANIES))
        .bind(id_list(&users))
        .bind(from)
        .bind(until)
        .bind(company_id)
        .fetch_all(db)
        .await?;
    for (user, start, other) in rows {
        let Some(&tz) = zones.get(&user) else { continue };
        let key = (time::local_date(tz, start), user);
        if !alerted.contains_key(&key) {
            continue;
        }
        let relation = if other != siren { "company" } else { "establishment" };
        // `company` wins over `establishment`.
        let entry = relations.entry(key).or_insert(relation);
        if relation == "company" {
            *entry = relation;
        }
    }
    Ok(relations)
}
