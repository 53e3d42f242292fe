//! `POST /companies/generate_tachograph_files` and `GET /api/tachograph/root-public-key`.

use serde_json::json;
use warp::http::{HeaderValue, StatusCode, header};

use crate::domain::auth::Caller;
use crate::domain::companies::{company, permissions, today};
use crate::graphql::Api;
use crate::http::contract::RestRequest;
use crate::http::media::json_response;

use crate::domain::export::{archive, c1b, keys_store, request};

fn error(status: StatusCode, message: &str, code: &str) -> warp::reply::Response {
    json_response(status, &json!({ "error": message, "error_code": code }))
}

fn internal() -> warp::reply::Response {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "An internal error occurred",
        "INTERNAL_ERROR",
    )
}

/// The export: 401 without valid credentials, 404 for an ill-formed request (with details per
/// field), 403 unless the caller administers every company today, else the ZIP archive.
pub async fn generate(api: &Api, request: RestRequest) -> warp::reply::Response {
    let bearer = Caller::bearer(request.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()));
    let actor = match Caller::resolve(&api.db, &bearer).await {
        Ok(caller) => match caller.user_id() {
            Ok(id) => id,
            Err(e) => return error(StatusCode::UNAUTHORIZED, &e.message, "AUTHENTICATION_ERROR"),
        },
        Err(_) => return internal(),
    };
    let parsed = match request::parse(&request.body, today()) {
        Ok(parsed) => parsed,
        Err(details) => {
            return json_response(
                StatusCode::NOT_FOUND,
                &json!({ "error": "Invalid request", "error_code": "INVALID_INPUTS", "details": details }),
            );
        }
    };
    let mut company_name = None;
    for company_id in &parsed.company_ids {
        match permissions::is_admin(&api.db, actor, *company_id).await {
            Ok(true) => {}
            Ok(false) => {
                return error(
                    StatusCode::FORBIDDEN,
                    &format!("Actor is not authorized to export the data of company {company_id}"),
                    "AUTHORIZATION_ERROR",
                );
            }
            Err(_) => return internal(),
        }
        if company_name.is_none() {
            company_name = company::find(&api.db, *company_id)
                .await
                .ok()
                .flatten()
                .map(|c| c.usual_name);
        }
    }
    let started = std::time::Instant::now();
    let archive = match archive::build(
        &api.db,
        &api.key_sealer,
        &parsed,
        company_name.as_deref().unwrap_or_default(),
    )
    .await
    {
        Ok(archive) => archive,
        Err(error) => {
            tracing::error!(?error, "C1B export failed");
            api.metrics.export_finished("error", started.elapsed().as_secs_f64());
            return internal();
        }
    };
    api.metrics.export_finished("ok", started.elapsed().as_secs_f64());
    tracing::debug!(actor, files = archive.files, bytes = archive.bytes.len(), "C1B export");
    let length = archive.bytes.len();
    let mut response = warp::reply::Response::new(archive.bytes.into());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/zip"));
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=fichiers_C1B.zip"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    response
}

/// The environment's root public key in the 144-byte `EC_PK.bin` layout, so that anyone can
/// verify signed files.
pub async fn root_public_key(api: &Api) -> warp::reply::Response {
    match keys_store::root(&api.db, &api.key_sealer).await {
        Ok(root) => {
            let mut response = warp::reply::Response::new(c1b::root_public_key_ec_pk(&root).to_vec().into());
            *response.status_mut() = StatusCode::OK;
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            );
            response.headers_mut().insert(
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("attachment; filename=EC_PK.bin"),
            );
            response
        }
        Err(_) => internal(),
    }
}
