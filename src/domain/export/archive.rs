//! Builds `fichiers_C1B.zip` as a stream: employees are read, encoded and compressed a chunk at
//! a time, and each chunk's bytes go to the caller's writer before the next chunk is read, so
//! memory holds one chunk of inputs and outputs (and the archive's directory, a few hundred bytes
//! per file), whatever the number of employees. Encoding (and signing) runs on every core. The
//! first chunk is small, so the first bytes leave quickly.
//!
//! Why the entries are dated and the archive commented: a ZIP entry's date is the only time an
//! unpacked file keeps, so each is the export's time (UTC, in the DOS format, which has no time
//! zone and a two-second step), not the format's default of 1980-01-01; and the archive's comment
//! says which service, environment and period produced it, so that a file found later can be
//! traced back.

use std::io::Write;

use chrono::{DateTime, Datelike, Timelike};
use rayon::prelude::*;
use zip::write::SimpleFileOptions;

use crate::db::{Db, now};
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::c1b::{self, CaKey, CardKey, CardSigner, Export, Signatures};
use super::data::{self, Employee};
use super::keys_store;
use super::request::ExportRequest;
use super::sealing::Sealer;

/// Employees read and encoded together.
const CHUNK: usize = 100;
/// The first chunk's size: its files are the first bytes the client receives.
const FIRST_CHUNK: usize = 10;

/// One file to write: its input, whether it is the employee version, and the employee's card key.
type FileInput = (Export, bool, CardKey);

/// Encodes exports on all cores (certifying each card key with `ca`); results keep the inputs'
/// order, so the archive's order does not depend on scheduling.
fn encode_all(inputs: Vec<FileInput>, ca: &CaKey, signatures: Signatures) -> Vec<(String, Vec<u8>)> {
    inputs
        .into_par_iter()
        .map(|(export, employee_version, card_key)| {
            let card = CardSigner::new(card_key, ca);
            (
                c1b::file_name(&export, employee_version),
                c1b::encode(&export, &card, signatures),
            )
        })
        .collect()
}

/// The DOS date and time of a Unix time (UTC); `None` outside 1980–2107, which DOS cannot hold.
fn dos_time(unix_seconds: i64) -> Option<zip::DateTime> {
    let t = DateTime::from_timestamp(unix_seconds, 0)?.naive_utc();
    zip::DateTime::from_date_and_time(
        u16::try_from(t.year()).ok()?,
        t.month() as u8,
        t.day() as u8,
        t.hour() as u8,
        t.minute() as u8,
        t.second() as u8,
    )
    .ok()
}

/// The archive's comment: service, environment, period and time of the export.
fn comment(environment: &str, request: &ExportRequest, generated_at: i64) -> String {
    let time = DateTime::from_timestamp(generated_at, 0).unwrap_or_default();
    format!(
        "Roadlog {} C1B export, environment {environment}, period {} to {} (UTC days), generated {} UTC; \
         entry times are UTC; files not issued by a tachograph card authority",
        env!("CARGO_PKG_VERSION"),
        request.min_date.format("%Y-%m-%d"),
        request.max_date.format("%Y-%m-%d"),
        time.format("%Y-%m-%dT%H:%M:%S"),
    )
}

/// An export checked and ready to write: everything that can fail before the first byte has
/// been read (the employees, the certificate chain).
pub struct Prepared {
    request: ExportRequest,
    company_name: String,
    employees: Vec<Employee>,
    ca: CaKey,
    comment: String,
    generated_at: i64,
    options: SimpleFileOptions,
}

impl Prepared {
    /// The number of employees the archive will hold a file (or two) for.
    pub fn employees(&self) -> usize {
        self.employees.len()
    }
}

/// Reads what the export of `request` needs before writing; `environment` names this deployment in
/// the archive's comment.
pub async fn prepare(
    db: &Db,
    sealer: &Sealer,
    request: ExportRequest,
    company_name: &str,
    environment: &str,
) -> AppResult<Prepared> {
    let generated_at = now();
    let employees = data::employees(
        db,
        &request.company_ids,
        &request.user_ids,
        request.min_date,
        request.max_date,
    )
    .await?;
    // Unsigned files carry the same certificate chain as signed ones (see `c1b::encode`).
    let ca = keys_store::ca(db, sealer).await?;
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(
            dos_time(generated_at).ok_or_else(|| AppError::internal("the export time has no DOS form"))?,
        );
    Ok(Prepared {
        comment: comment(environment, &request, generated_at),
        request,
        company_name: company_name.to_string(),
        employees,
        ca,
        generated_at,
        options,
    })
}

/// Writes the prepared export's ZIP archive into `out`, chunk by chunk, and gives back the number
/// of files. `out` is written from blocking threads only (never from the async runtime), so it may
/// block, e.g. to wait until a slow client has taken the previous bytes.
pub async fn write<W: Write + Send + 'static>(
    db: &Db,
    sealer: &Sealer,
    prepared: Prepared,
    out: W,
) -> AppResult<usize> {
    let Prepared {
        request,
        company_name,
        employees,
        ca,
        comment,
        generated_at,
        options,
    } = prepared;
    let signatures = if request.with_digital_signatures {
        Signatures::Included
    } else {
        Signatures::Omitted
    };
    let mut zip = zip::ZipWriter::new_stream(out);
    zip.set_comment(comment).map_err(AppError::internal)?;
    let mut files = 0;
    let mut start = 0;
    while start < employees.len() {
        let size = if start == 0 { FIRST_CHUNK } else { CHUNK };
        let chunk = &employees[start..(start + size).min(employees.len())];
        start += chunk.len();
        let inputs = chunk_inputs(db, sealer, &request, &company_name, chunk, generated_at).await?;
        files += inputs.len();
        let ca = ca.clone();
        zip = tokio::task::spawn_blocking(move || -> AppResult<_> {
            for (name, bytes) in encode_all(inputs, &ca, signatures) {
                zip.start_file(name, options).map_err(AppError::internal)?;
                zip.write_all(&bytes).map_err(AppError::internal)?;
            }
            // What this chunk compressed leaves now, not with the next chunk.
            zip.flush().map_err(AppError::internal)?;
            Ok(zip)
        })
        .await
        .map_err(AppError::internal)??;
    }
    tokio::task::spawn_blocking(move || -> AppResult<()> {
        let mut out = zip.finish().map_err(AppError::internal)?.into_inner();
        out.flush().map_err(AppError::internal)
    })
    .await
    .map_err(AppError::internal)??;
    Ok(files)
}

/// One worker's own file (`POST /users/generate_tachograph_file`): their time in every company
/// where they have an accepted employment over the period, encoded as the archive encodes each
/// employee's file; the file name and its bytes. A worker without such an employment gets a file
/// without activity, dated from the account's creation.
pub async fn personal(
    db: &Db,
    sealer: &Sealer,
    actor: Actor,
    min_date: chrono::NaiveDate,
    max_date: chrono::NaiveDate,
    with_digital_signatures: bool,
) -> AppResult<(String, Vec<u8>)> {
    let generated_at = now();
    let user_id = actor.user_id;
    let companies = data::companies_of(db, actor, min_date, max_date).await?;
    let company_name = match companies.first() {
        Some(id) => crate::domain::companies::company::find(db, *id)
            .await?
            .map(|c| c.usual_name)
            .unwrap_or_default(),
        None => String::new(),
    };
    let mut employees = data::employees(db, &companies, &[user_id], min_date, max_date).await?;
    if employees.is_empty() {
        employees.push(data::unemployed(db, user_id).await?);
    }
    let request = ExportRequest {
        company_ids: companies,
        user_ids: vec![user_id],
        min_date,
        max_date,
        with_digital_signatures,
        employee_version: false,
    };
    let inputs = chunk_inputs(db, sealer, &request, &company_name, &employees, generated_at).await?;
    let ca = keys_store::ca(db, sealer).await?;
    let signatures = if with_digital_signatures {
        Signatures::Included
    } else {
        Signatures::Omitted
    };
    let mut files = tokio::task::spawn_blocking(move || encode_all(inputs, &ca, signatures))
        .await
        .map_err(AppError::internal)?;
    files
        .pop()
        .ok_or_else(|| AppError::internal("the personal export made no file"))
}

async fn chunk_inputs(
    db: &Db,
    sealer: &Sealer,
    request: &ExportRequest,
    company_name: &str,
    employees: &[Employee],
    generated_at: i64,
) -> AppResult<Vec<FileInput>> {
    let chunk = data::chunk(
        db,
        &request.company_ids,
        company_name,
        employees,
        request.min_date,
        request.max_date,
        request.employee_version,
        generated_at,
    )
    .await?;
    let card_keys = keys_store::card_keys(db, sealer, &employees.iter().map(|e| e.id).collect::<Vec<_>>()).await?;
    let mut inputs = Vec::with_capacity(chunk.current.len() + chunk.declared.len());
    let mut declared = chunk.declared.into_iter();
    for (employee, export) in employees.iter().zip(chunk.current) {
        let key = card_keys
            .get(&employee.id)
            .cloned()
            .ok_or_else(|| AppError::internal(format!("no card key for user {}", employee.id)))?;
        inputs.push((export, false, key.clone()));
        if request.employee_version
            && let Some(export) = declared.next()
        {
            inputs.push((export, true, key));
        }
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    #[test]
    fn entry_times_are_the_export_time_in_dos_form() {
        // 2026-03-29 08:15:37 UTC = 1 774 772 137; DOS keeps even seconds: 08:15:36.
        let t = dos_time(1_774_772_137).unwrap();
        assert_eq!(
            (t.year(), t.month(), t.day(), t.hour(), t.minute(), t.second()),
            (2026, 3, 29, 8, 15, 36)
        );
        assert!(dos_time(0).is_none(), "1970 is before DOS time");
    }

    #[test]
    fn comment_names_service_environment_and_period() {
        let request = ExportRequest::new(
            vec![1],
            Vec::new(),
            NaiveDate::from_ymd_opt(2026, 3, 1),
            NaiveDate::from_ymd_opt(2026, 3, 28),
            false,
            false,
            NaiveDate::from_ymd_opt(2026, 3, 29).unwrap(),
        )
        .unwrap();
        let text = comment("sandbox", &request, 1_774_772_137);
        assert!(text.starts_with("Roadlog "), "{text}");
        assert!(
            text.contains(" C1B export, environment sandbox, period 2026-03-01 to 2026-03-28 (UTC days), generated 2026-03-29T08:15:37 UTC"),
            "{text}"
        );
    }
}
