//! The auto-validation job: every period, the rows of the queue that waited long
//! enough (one business day for the worker's queue, two for the admins') are validated, oldest
//! first, at most [`BATCH`] per queue and run, the worker's queue first.
//!
//! Several instances may share the database: a run claims its rows with a lease (who, until
//! when), as the mail outbox does, so each row is validated by one of them; the claim's
//! repeated condition makes it exclusive under concurrency (a row another run claimed first no
//! longer matches), and SQLite has a single writer anyway. A row is deleted in the transaction
//! that validates it; a run that dies leaves a lease that expires, and the row is taken again.
//!
//! A validation here is what `validateMission` records, with no submitter: the worker's running
//! activities in the mission end at the job's time, the mission ends for him, the validation is
//! written (`is_auto`), the regulatory computation of that side runs, and the worker-side one
//! notifies the worker. A row with nothing left to validate (no activity, or already validated
//! automatically on that side) is dropped; any other failure keeps it for the next run, up to
//! [`MAX_ATTEMPTS`].

use std::time::Duration;

use serde::Serialize;
use sqlx::AnyConnection;
use tokio::sync::watch;

use crate::db::{Db, now};
use crate::domain::activities::rules::to_minute;
use crate::domain::activities::{spans, store as activities};
use crate::domain::alerts::triggers;
use crate::domain::notifications;
use crate::domain::workers;
use crate::errors::AppResult;

use super::{calendar, queue};

/// Rows validated per queue and run, as the reference.
pub const BATCH: i64 = 400;

/// How long a claim holds: far longer than a batch takes.
pub const LEASE_SECS: i64 = 600;

/// A row that failed this many times is left alone (it stays, with its error, for the operator).
pub const MAX_ATTEMPTS: i64 = 10;

/// Business days the worker's queue waits, and the admins'.
pub const WORKER_DELAY_DAYS: u32 = 1;
pub const ADMIN_DELAY_DAYS: u32 = 2;

pub mod sql {
    crate::statements! {
        /// Claims due rows of one queue: `$1` claimer, `$2` lease end, `$3` queue, `$4` due before,
        /// `$5` how many, `$6` the clock, `$7` attempts allowed.
        pub const CLAIM: &str = "UPDATE mission_auto_validations SET claimed_by = $1, claimed_until = $2, attempts = attempts + 1 \
             WHERE is_admin = $3 AND reception_time < $4 AND attempts < $7 \
               AND (claimed_until IS NULL OR claimed_until < $6) \
               AND id IN (SELECT id FROM mission_auto_validations \
                          WHERE is_admin = $3 AND reception_time < $4 AND attempts < $7 \
                            AND (claimed_until IS NULL OR claimed_until < $6) \
                          ORDER BY reception_time, id LIMIT $5) \
             RETURNING id, mission_id, user_id, is_admin";
        /// The row is still ours (a run whose lease expired lost it).
        pub const STILL_OURS: &str = "SELECT COUNT(*) FROM mission_auto_validations WHERE id = $1 AND claimed_by = $2";
        pub const DROP: &str = "DELETE FROM mission_auto_validations WHERE id = $1 AND claimed_by = $2";
        pub const RELEASE: &str = "UPDATE mission_auto_validations SET claimed_by = NULL, claimed_until = NULL, last_error = $3 \
             WHERE id = $1 AND claimed_by = $2";
        /// Gives back a claimed row that was not tried: its attempt did not happen.
        pub const GIVE_BACK: &str = "UPDATE mission_auto_validations SET claimed_by = NULL, claimed_until = NULL, \
             attempts = attempts - 1 WHERE id = $1 AND claimed_by = $2";
        pub const MISSION: &str = "SELECT company_id FROM missions WHERE id = $1";
        pub const COUNT: &str = "SELECT COUNT(*) FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL";
        pub const DONE: &str = "SELECT COUNT(*) FROM mission_validations \
             WHERE mission_id = $1 AND user_id = $2 AND is_auto = 1 AND is_admin = $3";
        pub const RUNNING: &str = "SELECT id, start_time, submitter_id FROM activities \
             WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL AND end_time IS NULL";
        pub const CLOSE: &str = "UPDATE activities SET end_time = $2, last_update_time = $3 WHERE id = $1";
        pub const LAST_END: &str = "SELECT MAX(end_time) FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL";
        pub const END: &str = "INSERT INTO mission_ends (mission_id, user_id, submitter_id, reception_time, end_time) \
             VALUES ($1, $2, NULL, $3, $4) ON CONFLICT (mission_id, user_id) DO NOTHING";
        pub const VALIDATE: &str = "INSERT INTO mission_validations (mission_id, submitter_id, user_id, is_admin, is_auto, \
             justification, reception_time, creation_time) VALUES ($1, NULL, $2, $3, 1, NULL, $4, $4)";
    }
}

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Worker-side validations written.
    pub worker_validations: usize,
    /// Admin-side validations written.
    pub admin_validations: usize,
    /// Rows dropped with nothing to validate.
    pub dropped: usize,
    /// Rows kept for a later run after a failure.
    pub failed: usize,
}

#[derive(sqlx::FromRow)]
struct Claimed {
    id: i64,
    mission_id: i64,
    user_id: i64,
    is_admin: i64,
}

/// Why a row leaves the queue without a validation.
enum Outcome {
    Validated,
    NothingToDo,
}

/// A random name for this run's claims.
fn claimer() -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the system has a random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One run: validates the rows due at `as_of` (Unix seconds; the clock, or an operator's
/// chosen time); the validations themselves are dated by the clock.
pub async fn run(db: &Db, as_of: i64) -> AppResult<Report> {
    run_until(db, as_of, None).await
}

/// [`run`], stopping between two rows when `stop` turns true (the rows claimed and not tried
/// are given back at once).
pub async fn run_until(db: &Db, as_of: i64, stop: Option<&watch::Receiver<bool>>) -> AppResult<Report> {
    let claimer = claimer();
    let mut report = Report::default();
    for (by_admin, delay) in [(false, WORKER_DELAY_DAYS), (true, ADMIN_DELAY_DAYS)] {
        let due_before = calendar::threshold(as_of, delay);
        let clock = now();
        let claimed: Vec<Claimed> = sqlx::query_as(sql::CLAIM)
            .bind(&claimer)
            .bind(clock + LEASE_SECS)
            .bind(i64::from(by_admin))
            .bind(due_before)
            .bind(BATCH)
            .bind(clock)
            .bind(MAX_ATTEMPTS)
            .fetch_all(db)
            .await?;
        for (index, row) in claimed.iter().enumerate() {
            if stop.is_some_and(|stop| *stop.borrow()) {
                for untried in &claimed[index..] {
                    sqlx::query(sql::GIVE_BACK)
                        .bind(untried.id)
                        .bind(&claimer)
                        .execute(db)
                        .await?;
                }
                return Ok(report);
            }
            let done = validate_claimed(db, &claimer, row).await;
            match done {
                Ok(Some(Outcome::Validated)) if by_admin => report.admin_validations += 1,
                Ok(Some(Outcome::Validated)) => report.worker_validations += 1,
                Ok(Some(Outcome::NothingToDo)) => report.dropped += 1,
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(row = row.id, mission = row.mission_id, user = row.user_id, error = %error.message,
                        "auto-validation failed, kept for a later run");
                    sqlx::query(sql::RELEASE)
                        .bind(row.id)
                        .bind(&claimer)
                        .bind(&error.message)
                        .execute(db)
                        .await?;
                    report.failed += 1;
                }
            }
        }
    }
    Ok(report)
}

/// One claimed row, in its own write transaction with its worker locked: validated (and
/// deleted), or none when another run took it over.
async fn validate_claimed(db: &Db, claimer: &str, row: &Claimed) -> AppResult<Option<Outcome>> {
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[row.user_id]).await?;
    // A run that outlived its lease may have lost the row to another one.
    let (ours,): (i64,) = sqlx::query_as(sql::STILL_OURS)
        .bind(row.id)
        .bind(claimer)
        .fetch_one(&mut *tx)
        .await?;
    if ours == 0 {
        tx.commit().await?;
        return Ok(None);
    }
    let outcome = validate(&mut tx, row.mission_id, row.user_id, row.is_admin == 1).await?;
    sqlx::query(sql::DROP)
        .bind(row.id)
        .bind(claimer)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(outcome))
}

/// The automatic validation of `user`'s time in the mission on one side, in the caller's
/// transaction with the worker locked.
async fn validate(conn: &mut AnyConnection, mission_id: i64, user: i64, by_admin: bool) -> AppResult<Outcome> {
    let company: Option<(i64,)> = sqlx::query_as(sql::MISSION)
        .bind(mission_id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some((company_id,)) = company else {
        return Ok(Outcome::NothingToDo);
    };
    let (count,): (i64,) = sqlx::query_as(sql::COUNT)
        .bind(mission_id)
        .bind(user)
        .fetch_one(&mut *conn)
        .await?;
    let (done,): (i64,) = sqlx::query_as(sql::DONE)
        .bind(mission_id)
        .bind(user)
        .bind(i64::from(by_admin))
        .fetch_one(&mut *conn)
        .await?;
    // NO_ACTIVITIES_TO_VALIDATE and MISSION_ALREADY_AUTO_VALIDATED in the reference.
    if count == 0 || done > 0 {
        return Ok(Outcome::NothingToDo);
    }
    let at = now();
    // Running activities end now (a minute after their start at least: an activity lasts).
    let running: Vec<(i64, i64, i64)> = sqlx::query_as(sql::RUNNING)
        .bind(mission_id)
        .bind(user)
        .fetch_all(&mut *conn)
        .await?;
    for (id, start, submitter) in &running {
        let end = to_minute(at).max(start + 60);
        sqlx::query(sql::CLOSE)
            .bind(id)
            .bind(end)
            .bind(at)
            .execute(&mut *conn)
            .await?;
        activities::add_version(conn, *id, *submitter, None, None).await?;
    }
    if !running.is_empty() {
        spans::refresh(conn, user, mission_id).await?;
    }
    let (last_end,): (Option<i64>,) = sqlx::query_as(sql::LAST_END)
        .bind(mission_id)
        .bind(user)
        .fetch_one(&mut *conn)
        .await?;
    sqlx::query(sql::END)
        .bind(mission_id)
        .bind(user)
        .bind(at)
        .bind(last_end.unwrap_or(at))
        .execute(&mut *conn)
        .await?;
    sqlx::query(sql::VALIDATE)
        .bind(mission_id)
        .bind(user)
        .bind(i64::from(by_admin))
        .bind(at)
        .execute(&mut *conn)
        .await?;
    queue::after_validation(conn, mission_id, user, by_admin, at).await?;
    triggers::after_validation(conn, mission_id, company_id, &[user], by_admin).await?;
    if !by_admin {
        notifications::triggers::after_auto_validation(conn, mission_id, user).await?;
    }
    Ok(Outcome::Validated)
}

/// The first run after a start waits at most this long: an instance restarted more often than
/// its period still runs the job.
pub const FIRST_RUN_AFTER: Duration = Duration::from_secs(60);

/// Runs the job every `period` (the first time after [`FIRST_RUN_AFTER`] at most) until `stop`
/// turns true; a zero period never runs it. A run in progress stops between two rows.
pub fn spawn(db: Db, period: Duration, mut stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if period.is_zero() {
            return;
        }
        let mut wait = period.min(FIRST_RUN_AFTER);
        loop {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
            wait = period;
            match run_until(&db, now(), Some(&stop)).await {
                Ok(report) if report != Report::default() => {
                    tracing::info!(?report, "missions validated automatically");
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(error = %error.message, "auto-validation run failed"),
            }
        }
    })
}
