//! `POST /companies/generate_tachograph_files` and `GET /api/tachograph/root-public-key`.

use crate::domain::companies::{company, permissions, today};
use crate::graphql::Api;
use crate::http::contract::{
    GenerateTachographFilesRequest, GenerateTachographFilesResponse, TachographRootPublicKeyResponse, types,
};

use crate::domain::export::{archive, c1b, keys_store, request};

fn error(message: &str, code: &str) -> types::ApiError {
    types::ApiError {
        error: message.to_string(),
        error_code: code.to_string(),
        details: None,
    }
}

fn internal() -> types::ApiError {
    error("An internal error occurred", "INTERNAL_ERROR")
}

/// The export of the authenticated `actor` (401 and the well-formedness of the body, 404, are
/// checked before): 404 for an ill-formed period (with details per field), 403 unless the
/// caller administers every company today, else the ZIP archive.
pub async fn generate(
    api: &Api,
    actor: i64,
    request: GenerateTachographFilesRequest,
) -> GenerateTachographFilesResponse {
    let parsed = match request::from_body(request.body, today()) {
        Ok(parsed) => parsed,
        Err(details) => {
            return GenerateTachographFilesResponse::NotFound(types::ApiError {
                error: "Invalid request".to_string(),
                error_code: "INVALID_INPUTS".to_string(),
                details: Some(details),
            });
        }
    };
    let mut company_name = None;
    for company_id in &parsed.company_ids {
        match permissions::is_admin(&api.db, actor, *company_id).await {
            Ok(true) => {}
            Ok(false) => {
                return GenerateTachographFilesResponse::Forbidden(error(
                    &format!("Actor is not authorized to export the data of company {company_id}"),
                    "AUTHORIZATION_ERROR",
                ));
            }
            Err(_) => return GenerateTachographFilesResponse::InternalServerError(internal()),
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
            return GenerateTachographFilesResponse::InternalServerError(internal());
        }
    };
    api.metrics.export_finished("ok", started.elapsed().as_secs_f64());
    tracing::debug!(actor, files = archive.files, bytes = archive.bytes.len(), "C1B export");
    GenerateTachographFilesResponse::Ok(archive.bytes.into())
}

/// The environment's root public key in the 144-byte `EC_PK.bin` layout, so that anyone can
/// verify signed files.
pub async fn root_public_key(api: &Api) -> TachographRootPublicKeyResponse {
    match keys_store::root(&api.db, &api.key_sealer).await {
        Ok(root) => TachographRootPublicKeyResponse::Ok(c1b::root_public_key_ec_pk(&root).to_vec().into()),
        Err(_) => TachographRootPublicKeyResponse::InternalServerError(internal()),
    }
}
