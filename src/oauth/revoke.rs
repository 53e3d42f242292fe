//! `POST /api/oauth/revoke` (RFC 7009) and `GET /.well-known/oauth-authorization-server`
//! (RFC 8414).

use oxide_auth_async::primitives::Registrar;
use serde_json::json;
use warp::http::{HeaderValue, StatusCode, header};

use crate::db::now;
use crate::domain::auth::tokens;
use crate::graphql::Api;
use crate::http::contract::RestRequest;

use super::limits;
use super::primitives::{DbRegistrar, SharedState};
use super::token_endpoint::{ClientForm, oauth_error};
use super::web;

/// Revokes an access token of the authenticated client. An unknown or already revoked token is
/// answered 200 as RFC 7009 §2.2 says (nothing to tell an attacker); a token of another client
/// is refused with `unauthorized_client`.
pub async fn serve(api: &Api, request: RestRequest) -> warp::reply::Response {
    let form = match ClientForm::read(api, &request).await {
        Ok(form) => form,
        Err(response) => return *response,
    };
    let (client_id, secret) = form.credentials();
    let registrar = DbRegistrar {
        db: api.db.clone(),
        state: SharedState::default(),
    };
    if registrar
        .check(&client_id, secret.as_deref().map(str::as_bytes))
        .await
        .is_err()
    {
        let _ = limits::record_failure(&api.db, &form.subjects).await;
        let mut response = oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "client authentication failed",
        );
        if form.basic.is_some() {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"roadlog\""),
            );
        }
        return response;
    }
    let Some(token) = form.pairs.iter().find(|(k, _)| k == "token").map(|(_, v)| v.clone()) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the token parameter is missing",
        );
    };
    let owner: Result<Option<(i64,)>, _> = sqlx::query_as("SELECT client_id FROM oauth_tokens WHERE token_hash = $1")
        .bind(tokens::hash(&token))
        .fetch_optional(&api.db.pool)
        .await;
    match owner {
        Ok(Some((owner,))) if owner.to_string() != client_id => oauth_error(
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            "the token was issued to another client",
        ),
        Ok(Some(_)) => {
            let revoked =
                sqlx::query("UPDATE oauth_tokens SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL")
                    .bind(tokens::hash(&token))
                    .bind(now())
                    .execute(&api.db.pool)
                    .await;
            match revoked {
                Ok(_) => empty_ok(),
                Err(_) => oauth_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    "the database is unavailable",
                ),
            }
        }
        Ok(None) => empty_ok(),
        Err(_) => oauth_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            "the database is unavailable",
        ),
    }
}

fn empty_ok() -> warp::reply::Response {
    let mut response = warp::reply::Response::new(Vec::new().into());
    web::no_store(&mut response);
    response
}

/// The authorization server's metadata, for client libraries that discover it.
pub fn metadata(api: &Api) -> warp::reply::Response {
    let base = &api.public_url;
    crate::http::media::json_response(
        StatusCode::OK,
        &json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/oauth/authorize"),
            "token_endpoint": format!("{base}/api/oauth/token"),
            "revocation_endpoint": format!("{base}/api/oauth/revoke"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
        }),
    )
}
