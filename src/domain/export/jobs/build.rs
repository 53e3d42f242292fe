//! Builds the file of a job: the report's split on the day it was queued, one workbook per
//! chunk (read from the database, then written and signed on a low-priority thread of its own,
//! [`thread`]), and one xlsx or, for several chunks, a ZIP of them.

use std::io::Write;
use std::sync::Arc;

use crate::db::Db;
use crate::domain::auth::server_secrets;
use crate::domain::export::reports::{self, ReportRequest};
use crate::domain::export::workbook::{self, activities, load, signature};
use crate::errors::{AppError, AppResult};

use super::store::{File, Job};
use super::thread;

pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
pub const ZIP: &str = "application/zip";

/// Why a job fails when the report covers no worker.
pub const NOTHING_TO_EXPORT: &str = "Aucune donnée à exporter.";

/// What building a job gave.
#[derive(Debug)]
pub enum Outcome {
    Built(File),
    /// The job cannot give a file; the reason, in French, as the job records it.
    Refused(String),
}

/// The key that signs the workbooks (`Mobilic HMAC`): the operator's
/// (`ROADLOG_XLSX_SIGNING_KEY`, its UTF-8 bytes, as the reference's `HMAC_SIGNING_KEY`) when
/// given, else one generated at first start and shared by the instances, as the other server
/// secrets.
pub async fn signing_key(db: &Db, configured: Option<&str>) -> AppResult<SigningKey> {
    match configured {
        Some(key) => Ok(SigningKey(Arc::from(key.as_bytes()))),
        None => Ok(SigningKey(Arc::from(
            &server_secrets::get_or_create(db, "xlsx-signing").await?[..],
        ))),
    }
}

/// The key of the workbooks' signature, shared by the workers and the verification route.
#[derive(Clone)]
pub struct SigningKey(Arc<[u8]>);

impl SigningKey {
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

/// Builds `job`'s file, its workbooks signed with `key`, running activities counting until
/// `now`.
pub async fn build(db: &Db, job: &Job, now: i64, key: SigningKey) -> AppResult<Outcome> {
    let request = ReportRequest {
        company_ids: job.company_ids.clone(),
        user_ids: job.user_ids.clone(),
        min_date: job.min_date,
        max_date: job.max_date,
        one_file_by_employee: job.one_file_by_employee,
    };
    let mut chunks = match reports::plan(db, &request, job.as_of).await? {
        // A chunk of no worker gives no file.
        Ok(plan) => plan
            .chunks
            .into_iter()
            .filter(|c| !c.user_ids.is_empty())
            .collect::<Vec<_>>(),
        Err(too_large) => {
            return Ok(Outcome::Refused(format!(
                "Le rapport serait divisé en {} fichiers : réduisez la période ou le nombre de salariés.",
                too_large.chunks
            )));
        }
    };
    if chunks.is_empty() {
        return Ok(Outcome::Refused(NOTHING_TO_EXPORT.to_string()));
    }
    chunks.sort_by(|a, b| (a.min_date, a.max_date, &a.file_suffix).cmp(&(b.min_date, b.max_date, &b.file_suffix)));
    let mut files = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let report = load::report(
            db,
            &job.company_ids,
            &chunk.user_ids,
            chunk.min_date,
            chunk.max_date,
            now,
        )
        .await?;
        let base = job.base_name.as_deref().unwrap_or(workbook::BASE_NAME);
        let name = workbook::file_name_from(base, &chunk.file_suffix, report.is_empty());
        let key = key.clone();
        let bytes = thread::run(move || {
            let plain = activities::write(&report).map_err(AppError::internal)?;
            signature::sign(&plain, key.bytes())
        })
        .await?;
        files.push((name, bytes));
    }
    if files.len() == 1 {
        let (name, bytes) = files.remove(0);
        return Ok(Outcome::Built(File {
            name,
            content_type: XLSX,
            bytes,
        }));
    }
    let bytes = thread::run(move || zip(files)).await?;
    Ok(Outcome::Built(File {
        name: format!("{}.zip", job.base_name.as_deref().unwrap_or(workbook::BASE_NAME)),
        content_type: ZIP,
        bytes,
    }))
}

/// The files in one ZIP (deflate), in their order.
fn zip(files: Vec<(String, Vec<u8>)>) -> AppResult<Vec<u8>> {
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in files {
        zip.start_file(name, options).map_err(AppError::internal)?;
        zip.write_all(&bytes).map_err(AppError::internal)?;
    }
    Ok(zip.finish().map_err(AppError::internal)?.into_inner())
}
