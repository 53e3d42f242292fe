//! `POST /users/download_full_data_when_CGU_refused`: queues the caller's full data as Excel
//! report jobs, one per company, fetched with `POST /exports/checkout`. Unlike the reference,
//! which exports any `user_id` to anyone, the caller must be that user, in person (a software
//! vendor's employment token is pinned to one company and cannot ask for the others).

use crate::app::App;
use crate::domain::auth::Actor;
use crate::domain::companies::today;
use crate::domain::export::jobs::store;
use crate::domain::export::refused_cgu;
use crate::http::api_error::{api_error, internal_error};
use crate::http::contract::{DownloadFullDataWhenCguRefusedRequest, DownloadFullDataWhenCguRefusedResponse, types};

fn forbidden() -> DownloadFullDataWhenCguRefusedResponse {
    DownloadFullDataWhenCguRefusedResponse::Forbidden(api_error("Forbidden access", "AUTHORIZATION_ERROR"))
}

/// Queues the jobs of the caller's data (401 and the body's shape, 422, are checked before):
/// 403 when `user_id` is not the caller or the caller is a vendor's employment token, 429 when
/// the caller's jobs in progress would exceed [`store::MAX_IN_PROGRESS`]; all jobs or none.
pub async fn queue(
    app: &App,
    actor: Actor,
    by_vendor: bool,
    request: DownloadFullDataWhenCguRefusedRequest,
) -> DownloadFullDataWhenCguRefusedResponse {
    if by_vendor || request.body.user_id != actor.user_id {
        return forbidden();
    }
    let failed = |error: crate::errors::AppError| {
        error.log_if_internal();
        DownloadFullDataWhenCguRefusedResponse::InternalServerError(internal_error())
    };
    let jobs = match refused_cgu::jobs(&app.db, actor.user_id, today()).await {
        Ok(jobs) => jobs,
        Err(error) => return failed(error),
    };
    match store::in_progress(&app.db, actor.user_id).await {
        Ok(count) if !store::room_for(count, jobs.len()) => {
            return DownloadFullDataWhenCguRefusedResponse::TooManyRequests {
                body: super::reports::too_many_exports_error(),
                retry_after: 60,
            };
        }
        Ok(_) => {}
        Err(error) => return failed(error),
    }
    match refused_cgu::queue(&app.db, &jobs).await {
        Ok(()) => DownloadFullDataWhenCguRefusedResponse::Ok(types::ResultOk {
            result: types::ResultOkResult::Ok,
        }),
        Err(error) => failed(error),
    }
}
