//! The `exports` table: one row per Excel activity report, queued with its request, claimed by
//! one worker under a lease, finished with its file (`export_files`), handed out once, cancelled
//! by its exporter. Every change is one conditional statement, so that two instances sharing the
//! database never both claim, finish or hand out the same job: a row another writer changed
//! first no longer matches the repeated condition.

use chrono::NaiveDate;

use crate::db::{Db, id_list, now};
use crate::domain::companies::{date_text, parse_date};
use crate::errors::{AppError, AppResult};

/// A claim is given up after this many attempts (a job that kills its builder each time).
pub const MAX_ATTEMPTS: i64 = 3;

/// How long a built file is kept: seven days after it was built.
pub const RETENTION_SECS: i64 = 7 * 24 * 3600;

/// Reports a user may have in progress at once: a request beyond is refused, so that one
/// account cannot fill the queue.
pub const MAX_IN_PROGRESS: i64 = 10;

/// Whether `adding` more reports fit beside the `in_progress` ones a user has.
pub fn room_for(in_progress: i64, adding: usize) -> bool {
    in_progress.saturating_add(i64::try_from(adding).unwrap_or(i64::MAX)) <= MAX_IN_PROGRESS
}

/// Why a job whose builders all died failed.
pub const ABANDONED: &str = "La génération a été interrompue trop de fois.";

pub mod sql {
    crate::statements! {
        /// `$1` exporter, `$2` companies, `$3` users, `$4` `$5` dates, `$6` one file per
        /// worker, `$7` the day it is queued, `$8` the clock, `$9` the export's type, `$10` the
        /// files' base name.
        pub const QUEUE: &str = "INSERT INTO exports (user_id, export_type, status, company_ids, user_ids, min_date, \
             max_date, one_file_by_employee, as_of, created_at, updated_at, base_name) \
             VALUES ($1, $9, 'work_in_progress', $2, $3, $4, $5, $6, $7, $8, $8, $10)";
        /// Claims the oldest claimable job: `$1` claimer, `$2` lease end, `$3` the clock,
        /// `$4` attempts allowed.
        pub const CLAIM: &str = "UPDATE exports SET claimed_by = $1, claimed_until = $2, attempts = attempts + 1, \
             updated_at = $3 \
             WHERE status = 'work_in_progress' AND attempts < $4 AND (claimed_until IS NULL OR claimed_until < $3) \
               AND id IN (SELECT id FROM exports WHERE status = 'work_in_progress' AND attempts < $4 \
                            AND (claimed_until IS NULL OR claimed_until < $3) ORDER BY id LIMIT 1) \
             RETURNING id, user_id, company_ids, user_ids, min_date, max_date, one_file_by_employee, as_of, \
               export_type, base_name";
        /// Extends the lease of a job still ours and still in progress.
        pub const RENEW: &str = "UPDATE exports SET claimed_until = $3 \
             WHERE id = $1 AND claimed_by = $2 AND status = 'work_in_progress'";
        /// The built file's description, if the job is still ours and in progress (a cancelled
        /// one stays cancelled).
        pub const READY: &str = "UPDATE exports SET status = 'ready', file_name = $3, content_type = $4, \
             file_size = $5, duration_ms = $6, claimed_by = NULL, claimed_until = NULL, updated_at = $7 \
             WHERE id = $1 AND claimed_by = $2 AND status = 'work_in_progress'";
        pub const STORE_FILE: &str = "INSERT INTO export_files (export_id, content, expires_at) VALUES ($1, $2, $3)";
        pub const FAIL: &str = "UPDATE exports SET status = 'failed', failure_reason = $3, duration_ms = $4, \
             claimed_by = NULL, claimed_until = NULL, updated_at = $5 \
             WHERE id = $1 AND claimed_by = $2 AND status = 'work_in_progress'";
        /// Gives back a job not finished (a stopping server): its attempt did not happen.
        pub const RELEASE: &str = "UPDATE exports SET claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1 \
             WHERE id = $1 AND claimed_by = $2 AND status = 'work_in_progress'";
        /// Jobs out of attempts whose last lease expired: `$1` attempts allowed, `$2` the clock,
        /// `$3` the reason.
        pub const ABANDON: &str = "UPDATE exports SET status = 'failed', failure_reason = $3, updated_at = $2 \
             WHERE status = 'work_in_progress' AND attempts >= $1 AND claimed_until < $2";
        pub const PURGE: &str = "DELETE FROM export_files WHERE expires_at <= $1";
        pub const CANCEL: &str = "UPDATE exports SET status = 'cancelled', claimed_by = NULL, claimed_until = NULL, \
             updated_at = $2 WHERE user_id = $1 AND status IN ('work_in_progress', 'ready')";
        pub const DROP_CANCELLED_FILES: &str = "DELETE FROM export_files WHERE export_id IN \
             (SELECT id FROM exports WHERE user_id = $1 AND status = 'cancelled')";
        pub const COUNT_WIP: &str = "SELECT COUNT(*) FROM exports WHERE user_id = $1 AND status = 'work_in_progress'";
        /// The exporter's ready jobs whose file is there become downloaded, once.
        pub const HAND_OUT: &str = "UPDATE exports SET status = 'downloaded', updated_at = $2 \
             WHERE user_id = $1 AND status = 'ready' \
               AND id IN (SELECT export_id FROM export_files WHERE expires_at > $2) RETURNING id";
        /// Ready jobs whose file is gone (expired) fail: no link can be made.
        pub const LOST: &str = "UPDATE exports SET status = 'failed', failure_reason = $3, updated_at = $2 \
             WHERE user_id = $1 AND status = 'ready'";
        pub const FILE: &str = "SELECT e.file_name, e.content_type, f.content FROM exports e \
             JOIN export_files f ON f.export_id = e.id \
             WHERE e.id = $1 AND e.status = 'downloaded' AND f.expires_at > $2";
    }
}

/// What a job asks, as queued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub exporter: i64,
    pub company_ids: Vec<i64>,
    /// Empty: every worker of the companies.
    pub user_ids: Vec<i64>,
    pub min_date: Option<NaiveDate>,
    pub max_date: Option<NaiveDate>,
    pub one_file_by_employee: bool,
    /// The day it was queued: the defaults of the period and the split are computed from it.
    pub as_of: NaiveDate,
    pub kind: ExportKind,
    /// The files' base name; `None`: `rapport_activités`.
    pub base_name: Option<String>,
}

/// Why an export was asked (`export_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportKind {
    /// An activity report (`POST /companies/download_activity_report`).
    Excel,
    /// A user's data on refusing the terms of use (`POST /users/download_full_data_when_CGU_refused`).
    RefusedCgu,
}

impl ExportKind {
    fn as_str(self) -> &'static str {
        match self {
            ExportKind::Excel => "excel",
            ExportKind::RefusedCgu => "refused_cgu",
        }
    }
}

type JobRow = (
    i64,
    i64,
    String,
    String,
    Option<String>,
    Option<String>,
    i64,
    String,
    String,
    Option<String>,
);

fn ids(text: &str) -> AppResult<Vec<i64>> {
    serde_json::from_str(text).map_err(AppError::internal)
}

fn job(row: JobRow) -> AppResult<Job> {
    let (id, exporter, company_ids, user_ids, min_date, max_date, one_file, as_of, kind, base_name) = row;
    Ok(Job {
        id,
        exporter,
        company_ids: ids(&company_ids)?,
        user_ids: ids(&user_ids)?,
        min_date: min_date.as_deref().and_then(parse_date),
        max_date: max_date.as_deref().and_then(parse_date),
        one_file_by_employee: one_file != 0,
        as_of: parse_date(&as_of).ok_or_else(|| AppError::internal("an export's as_of is not a date"))?,
        kind: if kind == ExportKind::RefusedCgu.as_str() {
            ExportKind::RefusedCgu
        } else {
            ExportKind::Excel
        },
        base_name,
    })
}

/// Queues a job (`id` is ignored).
pub async fn queue(db: &Db, job: &Job) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    queue_in(&mut tx, job).await?;
    tx.commit().await?;
    Ok(())
}

/// Queues a job inside a transaction.
pub async fn queue_in(conn: &mut sqlx::AnyConnection, job: &Job) -> AppResult<()> {
    sqlx::query(sql::QUEUE)
        .bind(job.exporter)
        .bind(id_list(&job.company_ids))
        .bind(id_list(&job.user_ids))
        .bind(job.min_date.map(date_text))
        .bind(job.max_date.map(date_text))
        .bind(i64::from(job.one_file_by_employee))
        .bind(date_text(job.as_of))
        .bind(now())
        .bind(job.kind.as_str())
        .bind(job.base_name.as_deref())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The exporter's jobs in progress.
pub async fn in_progress(db: &Db, exporter: i64) -> AppResult<i64> {
    let (count,): (i64,) = sqlx::query_as(sql::COUNT_WIP).bind(exporter).fetch_one(db).await?;
    Ok(count)
}

/// Claims the oldest claimable job for `claimer` until `lease_secs` from now, if any.
pub async fn claim(db: &Db, claimer: &str, lease_secs: i64) -> AppResult<Option<Job>> {
    let at = now();
    let row: Option<JobRow> = sqlx::query_as(sql::CLAIM)
        .bind(claimer)
        .bind(at + lease_secs)
        .bind(at)
        .bind(MAX_ATTEMPTS)
        .fetch_optional(db)
        .await?;
    row.map(job).transpose()
}

/// Extends `claimer`'s lease; false when the job is no longer ours (cancelled, or taken over).
pub async fn renew(db: &Db, claimer: &str, id: i64, lease_secs: i64) -> AppResult<bool> {
    let done = sqlx::query(sql::RENEW)
        .bind(id)
        .bind(claimer)
        .bind(now() + lease_secs)
        .execute(db)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// A built file.
#[derive(Clone, Debug)]
pub struct File {
    pub name: String,
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

/// Stores the file and makes the job ready, in one transaction, if the job is still
/// `claimer`'s and in progress; false otherwise (cancelled meanwhile: it stays cancelled).
pub async fn finish(db: &Db, claimer: &str, id: i64, file: &File, duration_ms: i64) -> AppResult<bool> {
    let at = now();
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(sql::READY)
        .bind(id)
        .bind(claimer)
        .bind(&file.name)
        .bind(file.content_type)
        .bind(i64::try_from(file.bytes.len()).unwrap_or(i64::MAX))
        .bind(duration_ms)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query(sql::STORE_FILE)
        .bind(id)
        .bind(file.bytes.as_slice())
        .bind(at + RETENTION_SECS)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// Marks the job failed with `reason`, if still `claimer`'s and in progress.
pub async fn fail(db: &Db, claimer: &str, id: i64, reason: &str, duration_ms: i64) -> AppResult<()> {
    sqlx::query(sql::FAIL)
        .bind(id)
        .bind(claimer)
        .bind(reason)
        .bind(duration_ms)
        .bind(now())
        .execute(db)
        .await?;
    Ok(())
}

/// Gives a job back unfinished (a stopping server).
pub async fn release(db: &Db, claimer: &str, id: i64) -> AppResult<()> {
    sqlx::query(sql::RELEASE).bind(id).bind(claimer).execute(db).await?;
    Ok(())
}

/// The upkeep of a worker's round: jobs out of attempts fail, expired files go. Returns how
/// many files were removed.
pub async fn upkeep(db: &Db) -> AppResult<u64> {
    let at = now();
    sqlx::query(sql::ABANDON)
        .bind(MAX_ATTEMPTS)
        .bind(at)
        .bind(ABANDONED)
        .execute(db)
        .await?;
    let purged = sqlx::query(sql::PURGE).bind(at).execute(db).await?;
    Ok(purged.rows_affected())
}

/// Cancels every job of `exporter` in progress or ready, and drops their files.
pub async fn cancel(db: &Db, exporter: i64) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    sqlx::query(sql::CANCEL)
        .bind(exporter)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    sqlx::query(sql::DROP_CANCELLED_FILES)
        .bind(exporter)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Why a ready job could not be handed out.
pub const LOST_FILE: &str = "Le fichier n'est plus disponible.";

/// The exporter's jobs in progress, and the ready jobs handed out now (downloaded from now on:
/// each is handed out once).
pub async fn checkout(db: &Db, exporter: i64) -> AppResult<(i64, Vec<i64>)> {
    let at = now();
    let mut tx = db.begin_write().await?;
    let (wip,): (i64,) = sqlx::query_as(sql::COUNT_WIP)
        .bind(exporter)
        .fetch_one(&mut *tx)
        .await?;
    let rows: Vec<(i64,)> = sqlx::query_as(sql::HAND_OUT)
        .bind(exporter)
        .bind(at)
        .fetch_all(&mut *tx)
        .await?;
    sqlx::query(sql::LOST)
        .bind(exporter)
        .bind(at)
        .bind(LOST_FILE)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let mut ids: Vec<i64> = rows.into_iter().map(|(id,)| id).collect();
    ids.sort_unstable();
    Ok((wip, ids))
}

/// The file of a handed-out job, while kept: name, content type, bytes.
pub async fn file(db: &Db, id: i64) -> AppResult<Option<(String, String, Vec<u8>)>> {
    let row: Option<(Option<String>, Option<String>, Vec<u8>)> = sqlx::query_as(sql::FILE)
        .bind(id)
        .bind(now())
        .fetch_optional(db)
        .await?;
    Ok(row.map(|(name, content_type, bytes)| {
        (
            name.unwrap_or_else(|| "rapport_activités.xlsx".to_string()),
            content_type.unwrap_or_else(|| "application/octet-stream".to_string()),
            bytes,
        )
    }))
}
