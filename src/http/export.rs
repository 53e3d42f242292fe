//! `POST /companies/generate_tachograph_files`, `POST /users/generate_tachograph_file` (a worker's
//! own file) and `GET /api/tachograph/root-public-key`.

use crate::app::App;
use crate::domain::auth::Actor;
use crate::domain::companies::{company, permissions, today};
use crate::http::contract::{
    GenerateTachographFileRequest, GenerateTachographFileResponse, GenerateTachographFilesRequest,
    GenerateTachographFilesResponse, TachographRootPublicKeyResponse, types,
};

use crate::domain::export::request::{Details, ExportRequest};
use crate::domain::export::{archive, c1b, keys_store};
use crate::http::api_error::{api_error, internal_error};
use crate::http::contract::rt::ByteStream;
use crate::http::streamed;
use tracing::Instrument;

/// Why a company export is refused before any work.
pub enum Refusal {
    /// 403: the caller is not an admin today of one of the companies (or it does not exist).
    Forbidden(types::ApiError),
    /// 500: the database failed.
    Internal(types::ApiError),
}

/// Whether `actor` is an admin today of every company of an export (a software vendor's
/// employment token allows its company only).
pub async fn admin_of_every(app: &App, actor: Actor, company_ids: &[i64]) -> Result<(), Refusal> {
    for company_id in company_ids {
        match permissions::is_admin(&app.db, actor, *company_id).await {
            Ok(true) => {}
            Ok(false) => {
                return Err(Refusal::Forbidden(api_error(
                    format!("Actor is not authorized to export the data of company {company_id}"),
                    "AUTHORIZATION_ERROR",
                )));
            }
            Err(error) => {
                error.log_if_internal();
                return Err(Refusal::Internal(internal_error()));
            }
        }
    }
    Ok(())
}

/// The export of the authenticated `actor` (401 and the well-formedness of the body, 404, are
/// checked before): 404 for an ill-formed period (with details per field), 403 unless the
/// caller administers every company today, else the ZIP archive.
pub async fn generate(
    app: &App,
    actor: Actor,
    request: GenerateTachographFilesRequest,
) -> GenerateTachographFilesResponse {
    let parsed = match export_request(request.body, today()) {
        Ok(parsed) => parsed,
        Err(details) => {
            return GenerateTachographFilesResponse::NotFound(types::ApiError {
                error: "Invalid request".to_string(),
                error_code: "INVALID_INPUTS".to_string(),
                details: Some(details),
            });
        }
    };
    match admin_of_every(app, actor, &parsed.company_ids).await {
        Ok(()) => {}
        Err(Refusal::Forbidden(body)) => return GenerateTachographFilesResponse::Forbidden(body),
        Err(Refusal::Internal(body)) => return GenerateTachographFilesResponse::InternalServerError(body),
    }
    // The archive is named after the first company (the body has at least one).
    let first = parsed.company_ids.first().copied().unwrap_or_default();
    let company_name = match company::find(&app.db, first).await {
        Ok(company) => company.map(|c| c.usual_name),
        Err(error) => {
            error.log_if_internal();
            return GenerateTachographFilesResponse::InternalServerError(internal_error());
        }
    };
    let started = std::time::Instant::now();
    // Everything that can fail before the first byte is read now: a failure here is still a 500
    // with a body.
    let prepared = match archive::prepare(
        &app.db,
        &app.key_sealer,
        parsed,
        company_name.as_deref().unwrap_or_default(),
        app.environment.as_str(),
    )
    .await
    {
        Ok(prepared) => prepared,
        Err(error) => {
            tracing::error!(?error, "C1B export failed");
            app.metrics.export_finished("error", started.elapsed().as_secs_f64());
            return GenerateTachographFilesResponse::InternalServerError(internal_error());
        }
    };
    let (writer, failure, chunks) = streamed::channel();
    let (db, sealer, metrics) = (app.db.clone(), app.key_sealer.clone(), app.metrics.clone());
    let employees = prepared.employees();
    // The archive is written while the response is sent: the status and headers leave now.
    tokio::spawn(
        async move {
            match archive::write(&db, &sealer, prepared, writer).await {
                Ok(files) => {
                    metrics.export_finished("ok", started.elapsed().as_secs_f64());
                    tracing::debug!(actor = actor.user_id, employees, files, "C1B export");
                }
                Err(_) if failure.client_gone() => {
                    metrics.export_finished("cancelled", started.elapsed().as_secs_f64());
                    tracing::info!(
                        actor = actor.user_id,
                        employees,
                        "C1B export stopped: the client went away"
                    );
                }
                Err(error) => {
                    tracing::error!(?error, "C1B export failed while streaming: the response is cut");
                    metrics.export_finished("error", started.elapsed().as_secs_f64());
                    failure.fail("the export failed").await;
                }
            }
        }
        .instrument(tracing::Span::current()),
    );
    GenerateTachographFilesResponse::Ok(ByteStream::new(chunks))
}

/// The worker's own file (401 and the body's shape are checked before): 404 for an ill-formed
/// period, else the C1B file, named in `Content-Disposition`.
pub async fn generate_personal(
    app: &App,
    actor: Actor,
    request: GenerateTachographFileRequest,
) -> GenerateTachographFileResponse {
    let body = request.body;
    // The period's rules are those of the company export (the company list is not used here).
    let period = ExportRequest::new(vec![], vec![], body.min_date, body.max_date, false, false, today());
    let period = match period {
        Ok(period) => period,
        Err(details) => {
            return GenerateTachographFileResponse::NotFound(types::ApiError {
                error: "Invalid request".to_string(),
                error_code: "INVALID_INPUTS".to_string(),
                details: Some(details),
            });
        }
    };
    let started = std::time::Instant::now();
    let file = archive::personal(
        &app.db,
        &app.key_sealer,
        actor,
        period.min_date,
        period.max_date,
        body.with_digital_signatures,
    )
    .await;
    match file {
        Ok((name, bytes)) => {
            app.metrics.export_finished("ok", started.elapsed().as_secs_f64());
            GenerateTachographFileResponse::Ok {
                body: bytes.into(),
                content_disposition: format!("attachment; filename={name}"),
            }
        }
        Err(error) => {
            tracing::error!(?error, "personal C1B export failed");
            app.metrics.export_finished("error", started.elapsed().as_secs_f64());
            GenerateTachographFileResponse::InternalServerError(internal_error())
        }
    }
}

/// The environment's root public key in the 144-byte `EC_PK.bin` layout, so that anyone can
/// verify signed files.
pub async fn root_public_key(app: &App) -> TachographRootPublicKeyResponse {
    match keys_store::root(&app.db, &app.key_sealer).await {
        Ok(root) => TachographRootPublicKeyResponse::Ok(c1b::root_public_key_ec_pk(&root).to_vec().into()),
        Err(error) => {
            error.log_if_internal();
            TachographRootPublicKeyResponse::InternalServerError(internal_error())
        }
    }
}

/// The domain's export request from the body the generated code validated (JSON, types,
/// required fields, list sizes).
fn export_request(body: types::TachographExportRequest, today: chrono::NaiveDate) -> Result<ExportRequest, Details> {
    ExportRequest::new(
        body.company_ids,
        body.user_ids.unwrap_or_default(),
        body.min_date,
        body.max_date,
        body.with_digital_signatures,
        body.employee_version,
        today,
    )
}

/// Reads a raw body as the route does: the generated validation, then the period's rules (the
/// fuzz target's entry).
pub fn parse_body(body: &[u8], today: chrono::NaiveDate) -> Result<ExportRequest, Details> {
    let body = types::TachographExportRequest::from_json(body).map_err(|error| error.details())?;
    export_request(body, today)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
    }

    #[test]
    fn defaults_cover_four_weeks_ending_today() {
        let r = parse_body(br#"{"company_ids": [3]}"#, today()).unwrap();
        assert_eq!(r.company_ids, [3]);
        assert!(r.user_ids.is_empty());
        assert_eq!(r.max_date, today());
        assert_eq!(r.min_date, NaiveDate::from_ymd_opt(2026, 10, 26).unwrap());
        assert!(!r.with_digital_signatures && !r.employee_version);
    }

    #[test]
    fn every_problem_is_reported_per_field() {
        let e = parse_body(
            br#"{"company_ids": "3", "min_date": "22/11/2026", "employee_version": 1}"#,
            today(),
        )
        .unwrap_err();
        assert_eq!(
            e.keys().collect::<Vec<_>>(),
            ["company_ids", "employee_version", "min_date"]
        );
        assert!(
            parse_body(br#"{"company_ids": []}"#, today())
                .unwrap_err()
                .contains_key("company_ids")
        );
        assert!(parse_body(br#"{}"#, today()).unwrap_err().contains_key("company_ids"));
        assert!(parse_body(b"{nope", today()).unwrap_err().contains_key("json"));
        assert!(parse_body(b"[1]", today()).unwrap_err().contains_key("json"));
        let many: Vec<i64> = (0..5001).collect();
        let body = serde_json::json!({ "company_ids": [1], "user_ids": many }).to_string();
        assert_eq!(
            parse_body(body.as_bytes(), today()).unwrap_err()["user_ids"],
            ["Must contain at most 5000 ids."]
        );
        let body = serde_json::json!({ "company_ids": (0..101).collect::<Vec<i64>>() }).to_string();
        assert!(
            parse_body(body.as_bytes(), today())
                .unwrap_err()
                .contains_key("company_ids")
        );
    }

    #[test]
    fn periods_are_ordered_and_bounded() {
        let e = parse_body(
            br#"{"company_ids": [1], "min_date": "2026-11-10", "max_date": "2026-11-01"}"#,
            today(),
        )
        .unwrap_err();
        assert_eq!(e["max_date"], ["min_date must not be after max_date"]);
        assert!(
            parse_body(
                br#"{"company_ids": [1], "min_date": "2026-01-01", "max_date": "2026-03-06"}"#,
                today()
            )
            .is_ok()
        );
        let e = parse_body(
            br#"{"company_ids": [1], "min_date": "2026-01-01", "max_date": "2026-03-07"}"#,
            today(),
        )
        .unwrap_err();
        assert!(e["max_date"][0].contains("64 days"));
    }
}
