//! Builds `fichiers_C1B.zip`: employees are read, encoded and compressed a chunk at a time, so
//! memory holds one chunk of inputs and the compressed archive, whatever the number of
//! employees. Encoding (and signing) runs on every core.

use std::io::{Cursor, Write};

use chrono::NaiveDate;
use zip::write::SimpleFileOptions;

use crate::db::{Db, now};
use crate::errors::{AppError, AppResult};

use super::c1b::{self, CaKey, CardKey, CardSigner, Export};
use super::data::{self, Employee};
use super::keys_store;
use super::request::ExportRequest;
use super::sealing::Sealer;

/// Employees read and encoded together.
const CHUNK: usize = 100;

/// The finished archive.
pub struct Archive {
    pub bytes: Vec<u8>,
    pub files: usize,
}

/// One file to write: its input, whether it is the employee version, and its card key when signed.
type FileInput = (Export, bool, Option<CardKey>);

/// Encodes exports on all cores (certifying card keys with `ca` when signing); results keep the
/// inputs' order.
fn encode_all(exports: Vec<FileInput>, ca: Option<&CaKey>) -> Vec<(String, Vec<u8>)> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(1);
    let per_worker = exports.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = exports
            .chunks(per_worker)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(export, employee_version, card_key)| {
                            let signer = ca.zip(card_key.clone()).map(|(ca, key)| CardSigner::new(key, ca));
                            (
                                c1b::file_name(export, *employee_version),
                                c1b::encode(export, signer.as_ref()),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
}

/// Writes every employee's file(s) into a ZIP archive.
pub async fn build(db: &Db, sealer: &Sealer, request: &ExportRequest, company_name: &str) -> AppResult<Archive> {
    let generated_at = now();
    let employees = data::employees(
        db,
        &request.company_ids,
        &request.user_ids,
        request.min_date,
        request.max_date,
    )
    .await?;
    let ca: Option<CaKey> = if request.with_digital_signatures {
        Some(keys_store::ca(db, sealer).await?)
    } else {
        None
    };
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut files = 0;
    for employees in employees.chunks(CHUNK) {
        let inputs = chunk_inputs(db, sealer, request, company_name, employees, generated_at, ca.as_ref()).await?;
        files += inputs.len();
        let ca = ca.clone();
        zip = tokio::task::spawn_blocking(move || -> AppResult<_> {
            let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
            for (name, bytes) in encode_all(inputs, ca.as_ref()) {
                zip.start_file(name, options).map_err(AppError::internal)?;
                zip.write_all(&bytes).map_err(AppError::internal)?;
            }
            Ok(zip)
        })
        .await
        .map_err(AppError::internal)??;
    }
    let bytes = tokio::task::spawn_blocking(move || zip.finish().map(|c| c.into_inner()))
        .await
        .map_err(AppError::internal)?
        .map_err(AppError::internal)?;
    Ok(Archive { bytes, files })
}

async fn chunk_inputs(
    db: &Db,
    sealer: &Sealer,
    request: &ExportRequest,
    company_name: &str,
    employees: &[Employee],
    generated_at: i64,
    ca: Option<&CaKey>,
) -> AppResult<Vec<FileInput>> {
    let min: NaiveDate = request.min_date;
    let chunk = data::chunk(
        db,
        &request.company_ids,
        company_name,
        employees,
        min,
        request.max_date,
        request.employee_version,
        generated_at,
    )
    .await?;
    let card_keys = match ca {
        Some(_) => keys_store::card_keys(db, sealer, &employees.iter().map(|e| e.id).collect::<Vec<_>>()).await?,
        None => Default::default(),
    };
    let mut inputs = Vec::with_capacity(chunk.current.len() + chunk.declared.len());
    let mut declared = chunk.declared.into_iter();
    for (employee, export) in employees.iter().zip(chunk.current) {
        let key = card_keys.get(&employee.id).cloned();
        inputs.push((export, false, key.clone()));
        if request.employee_version
            && let Some(export) = declared.next()
        {
            inputs.push((export, true, key));
        }
    }
    Ok(inputs)
}
