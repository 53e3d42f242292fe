//! The Excel activity report's background jobs over REST: `POST /companies/download_activity_report`
//! (queue one), `POST /exports/checkout` (poll, get links), `POST /exports/cancel`, and
//! `GET /exports/download` (the signed link).

use crate::app::App;
use crate::db::now;
use crate::domain::auth::Actor;
use crate::domain::companies::today;
use crate::domain::export::jobs::links::LIFETIME_SECS;
use crate::domain::export::jobs::store::{self, ExportKind, Job};
use crate::domain::export::reports::{self, ReportRequest};
use crate::http::api_error::{api_error, internal_error};
use crate::http::attachment::content_disposition;
use crate::http::contract::{
    DownloadActivityReportRequest, DownloadActivityReportResponse, ExportDownloadRequest, ExportDownloadResponse,
    ExportsCancelResponse, ExportsCheckoutResponse, types,
};
use crate::http::export::{Refusal, admin_of_every};

fn ok() -> types::ResultOk {
    types::ResultOk {
        result: types::ResultOkResult::Ok,
    }
}

/// Queues the report the body describes, for an admin today of every company (401 and the
/// body's shape, 422, are checked before): 403 otherwise, 429 when the caller has too many
/// reports in progress, 422 when it would be split into too many files; nothing is queued then.
pub async fn queue(app: &App, actor: Actor, request: DownloadActivityReportRequest) -> DownloadActivityReportResponse {
    let body = request.body;
    match admin_of_every(app, actor, &body.company_ids).await {
        Ok(()) => {}
        Err(Refusal::Forbidden(body)) => return DownloadActivityReportResponse::Forbidden(body),
        Err(Refusal::Internal(body)) => return DownloadActivityReportResponse::InternalServerError(body),
    }
    match store::in_progress(&app.db, actor.user_id).await {
        Ok(count) if !store::room_for(count, 1) => {
            return DownloadActivityReportResponse::TooManyRequests {
                body: super::reports::too_many_exports_error(),
                retry_after: 60,
            };
        }
        Ok(_) => {}
        Err(error) => {
            error.log_if_internal();
            return DownloadActivityReportResponse::InternalServerError(internal_error());
        }
    }
    let as_of = today();
    let request = ReportRequest {
        company_ids: body.company_ids,
        user_ids: body.user_ids.unwrap_or_default(),
        min_date: body.min_date,
        max_date: body.max_date,
        one_file_by_employee: body.one_file_by_employee,
    };
    // The split is checked now, so that a report too large is refused rather than queued.
    match reports::plan(&app.db, &request, as_of).await {
        Ok(Ok(_)) => {}
        Ok(Err(too_large)) => {
            return DownloadActivityReportResponse::UnprocessableEntity(crate::http::reports::too_large_error(
                &too_large,
            ));
        }
        Err(error) => {
            error.log_if_internal();
            return DownloadActivityReportResponse::InternalServerError(internal_error());
        }
    }
    let job = Job {
        id: 0,
        exporter: actor.user_id,
        company_ids: request.company_ids,
        user_ids: request.user_ids,
        min_date: request.min_date,
        max_date: request.max_date,
        one_file_by_employee: request.one_file_by_employee,
        as_of,
        kind: ExportKind::Excel,
        base_name: None,
    };
    match store::queue(&app.db, &job).await {
        Ok(()) => DownloadActivityReportResponse::Accepted(ok()),
        Err(error) => {
            error.log_if_internal();
            DownloadActivityReportResponse::InternalServerError(internal_error())
        }
    }
}

/// The caller's reports in progress, and a link for each ready one (handed out once).
pub async fn checkout(app: &App, actor: Actor) -> ExportsCheckoutResponse {
    match store::checkout(&app.db, actor.user_id).await {
        Ok((wip, ids)) => {
            let expires = now() + LIFETIME_SECS;
            let links = ids
                .into_iter()
                .map(|id| {
                    format!(
                        "{}/exports/download?export_id={id}&expires={expires}&signature={}",
                        app.public_url,
                        app.export_links.sign(id, expires)
                    )
                })
                .collect();
            ExportsCheckoutResponse::Ok(types::ExportsCheckout {
                nb_wip_exports: wip,
                ready_exports_links: links,
            })
        }
        Err(error) => {
            error.log_if_internal();
            ExportsCheckoutResponse::InternalServerError(internal_error())
        }
    }
}

/// Cancels the caller's reports in progress or ready.
pub async fn cancel(app: &App, actor: Actor) -> ExportsCancelResponse {
    match store::cancel(&app.db, actor.user_id).await {
        Ok(()) => ExportsCancelResponse::Ok(ok()),
        Err(error) => {
            error.log_if_internal();
            ExportsCancelResponse::InternalServerError(internal_error())
        }
    }
}

/// The file of a signed link: 403 for a bad or expired link, 404 when the file is gone.
pub async fn download(app: &App, request: ExportDownloadRequest) -> ExportDownloadResponse {
    if !app
        .export_links
        .verify(request.export_id, request.expires, &request.signature, now())
    {
        return ExportDownloadResponse::Forbidden(api_error("This link is invalid or expired", "AUTHORIZATION_ERROR"));
    }
    match store::file(&app.db, request.export_id).await {
        Ok(Some((name, content_type, bytes))) => ExportDownloadResponse::Ok {
            body: bytes.into(),
            content_type,
            content_disposition: content_disposition(&name),
        },
        Ok(None) => ExportDownloadResponse::NotFound(api_error("This file is no longer available", "NOT_FOUND")),
        Err(error) => {
            error.log_if_internal();
            ExportDownloadResponse::InternalServerError(internal_error())
        }
    }
}
