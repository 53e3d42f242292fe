//! The worker's printable records: `POST /users/generate_pdf_export` (the caller's own "Relevé
//! d'heures") and `POST /users/generate_mission_export` (one worker's part in a mission).

use crate::app::App;
use crate::domain::auth::Actor;
use crate::domain::export::pdf::{self, PERIOD_TOO_LONG};
use crate::errors::Code;
use crate::http::api_error::{api_error, internal_error};
use crate::http::attachment::content_disposition;
use crate::http::contract::{
    GenerateMissionExportRequest, GenerateMissionExportResponse, GeneratePdfExportRequest, GeneratePdfExportResponse,
    types,
};

/// The reference's 422 for a period over 366 days: the message sits under `_schema`.
fn period_too_long() -> types::ApiError {
    types::ApiError {
        error: "Invalid request".to_string(),
        error_code: "INVALID_INPUTS".to_string(),
        details: Some([("_schema".to_string(), vec![PERIOD_TOO_LONG.to_string()])].into()),
    }
}

/// The caller's own "Relevé d'heures" over the body's period (401 and the body's shape, 422, are
/// checked before); a period over 366 days is refused before anything is read.
pub async fn statement(app: &App, actor: Actor, request: GeneratePdfExportRequest) -> GeneratePdfExportResponse {
    let body = request.body;
    if !pdf::period_allowed(body.min_date, body.max_date) {
        return GeneratePdfExportResponse::UnprocessableEntity(period_too_long());
    }
    match pdf::statement(&app.db, actor, body.min_date, body.max_date, SERVICE_NAME).await {
        Ok((name, bytes)) => GeneratePdfExportResponse::Ok {
            body: bytes.into(),
            content_disposition: content_disposition(&name),
        },
        Err(error) => {
            error.log_if_internal();
            GeneratePdfExportResponse::InternalServerError(internal_error())
        }
    }
}

/// The details of the worker `user_id`'s part in mission `mission_id` (401 and the body's shape,
/// 422, are checked before); 403 unless the caller and the worker may read the mission and the
/// caller is employed by its company.
pub async fn mission(app: &App, actor: Actor, request: GenerateMissionExportRequest) -> GenerateMissionExportResponse {
    let body = request.body;
    match pdf::mission_details(&app.db, actor, body.mission_id, body.user_id, SERVICE_NAME).await {
        Ok((name, bytes)) => GenerateMissionExportResponse::Ok {
            body: bytes.into(),
            content_disposition: content_disposition(&name),
        },
        Err(error) if error.code == Code::AuthorizationError => {
            GenerateMissionExportResponse::Forbidden(api_error(error.message, "AUTHORIZATION_ERROR"))
        }
        Err(error) => {
            error.log_if_internal();
            GenerateMissionExportResponse::InternalServerError(internal_error())
        }
    }
}

/// The name in the documents' top band.
const SERVICE_NAME: &str = "Roadlog";
