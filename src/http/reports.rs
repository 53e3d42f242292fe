//! The Excel activity report's routes: `POST /companies/validate_export_params` (how a report
//! of these parameters is split into files).

use crate::app::App;
use crate::domain::auth::Actor;
use crate::domain::companies::today;
use crate::domain::export::chunking::{MAX_CHUNKED_IDS, MAX_CHUNKS, Plan, Strategy, TooLarge};
use crate::domain::export::jobs::store;
use crate::domain::export::reports::{self, ReportRequest};
use crate::http::api_error::internal_error;
use crate::http::contract::{ValidateExportParamsRequest, ValidateExportParamsResponse, types};
use crate::http::export::{Refusal, admin_of_every};

/// The 422 of a report split into too many files or listing too many workers (`max_date`).
pub fn too_large_error(too_large: &TooLarge) -> types::ApiError {
    let message = format!(
        "The report would be split into {} files listing {} workers in all; at most {MAX_CHUNKS} files and {MAX_CHUNKED_IDS} workers: shorten the period or name fewer workers",
        too_large.chunks, too_large.ids
    );
    types::ApiError {
        error: "Invalid request".to_string(),
        error_code: "INVALID_INPUTS".to_string(),
        details: Some([("max_date".to_string(), vec![message])].into()),
    }
}

/// The 429 body of a request that would put more than [`store::MAX_IN_PROGRESS`] reports in
/// progress for one user (`download_activity_report`, `download_full_data_when_CGU_refused`).
pub fn too_many_exports_error() -> types::ApiError {
    crate::http::api_error::api_error(
        format!(
            "At most {} reports in progress at once: fetch or cancel them first",
            store::MAX_IN_PROGRESS
        ),
        "TOO_MANY_EXPORTS",
    )
}

/// The split of the report the body describes, for an admin today of every company (401 and
/// the body's shape, 422, are checked before): 403 otherwise, 422 when it is too large.
pub async fn validate(app: &App, actor: Actor, request: ValidateExportParamsRequest) -> ValidateExportParamsResponse {
    let body = request.body;
    match admin_of_every(app, actor, &body.company_ids).await {
        Ok(()) => {}
        Err(Refusal::Forbidden(body)) => return ValidateExportParamsResponse::Forbidden(body),
        Err(Refusal::Internal(body)) => return ValidateExportParamsResponse::InternalServerError(body),
    }
    let request = ReportRequest {
        company_ids: body.company_ids,
        user_ids: body.user_ids.unwrap_or_default(),
        min_date: body.min_date,
        max_date: body.max_date,
        one_file_by_employee: body.one_file_by_employee,
    };
    match reports::plan(&app.db, &request, today()).await {
        Ok(Ok(plan)) => ValidateExportParamsResponse::Ok(answer(plan, body.detailed)),
        Ok(Err(too_large)) => ValidateExportParamsResponse::UnprocessableEntity(too_large_error(&too_large)),
        Err(error) => {
            error.log_if_internal();
            ValidateExportParamsResponse::InternalServerError(internal_error())
        }
    }
}

/// The plan as the route answers it: the chunks only when `detailed`.
fn answer(plan: Plan, detailed: bool) -> types::ExportPlan {
    types::ExportPlan {
        strategy: match plan.strategy {
            Strategy::Over365Days => types::ExportPlanStrategy::Over365Days,
            Strategy::Over31Days => types::ExportPlanStrategy::Over31Days,
            Strategy::Over100Users => types::ExportPlanStrategy::Over100Users,
            Strategy::SingleOrConsolidated => types::ExportPlanStrategy::SingleOrConsolidated,
        },
        message: plan.strategy.message(plan.users).to_string(),
        can_choose_consolidated: plan.strategy == Strategy::SingleOrConsolidated,
        num_chunks: i64::try_from(plan.chunks.len()).unwrap_or(i64::MAX),
        chunks: detailed.then(|| {
            plan.chunks
                .into_iter()
                .map(|c| types::ExportChunk {
                    user_ids: c.user_ids,
                    min_date: c.min_date,
                    max_date: c.max_date,
                    file_suffix: c.file_suffix,
                })
                .collect()
        }),
    }
}
