//! `POST /api/oauth/revoke` (RFC 7009) and `GET /.well-known/oauth-authorization-server`
//! (RFC 8414).

use oxide_auth::primitives::registrar::RegistrarError;
use oxide_auth_async::primitives::Registrar;

use crate::app::App;
use crate::db::now;
use crate::domain::auth::tokens;
use crate::http::contract::{RevokeTokenRequest, RevokeTokenResponse, types};

use super::limits;
use super::primitives::{DbRegistrar, SharedState};
use super::token_endpoint::{ClientForm, basic_challenge, database_failed, oauth_error, over_rate};

/// The parameters of a validated revocation request.
fn revoke_pairs(form: &types::RevokeRequest) -> Vec<(String, String)> {
    let mut pairs = vec![("token".to_string(), form.token.clone())];
    for (key, value) in [
        ("token_type_hint", &form.token_type_hint),
        ("client_id", &form.client_id),
        ("client_secret", &form.client_secret),
    ] {
        if let Some(value) = value {
            pairs.push((key.to_string(), value.clone()));
        }
    }
    pairs
}

/// Revokes an access token of the authenticated client. An unknown or already revoked token is
/// answered 200 as RFC 7009 §2.2 says (nothing to tell an attacker); a token of another client
/// is refused with `unauthorized_client`.
pub async fn serve(app: &App, request: RevokeTokenRequest) -> RevokeTokenResponse {
    let form = match ClientForm::read(app, revoke_pairs(&request.body), &request.headers, request.client_ip).await {
        Ok(form) => form,
        Err(refusal) => return refusal.into(),
    };
    let (client_id, secret) = form.credentials();
    let state = SharedState::default();
    let registrar = DbRegistrar {
        db: app.db.clone(),
        state: state.clone(),
        limiter: app.client_limiter.clone(),
    };
    match registrar.check(&client_id, secret.as_deref().map(str::as_bytes)).await {
        Ok(()) => {}
        Err(RegistrarError::PrimitiveError) => {
            return database_failed(&state, "a client could not be authenticated").into();
        }
        Err(_) => {
            let (failed, over) = state
                .lock()
                .map(|s| (s.client_failed, s.client_over_rate))
                .unwrap_or((true, None));
            if let Some(seconds) = over {
                return over_rate(seconds).into();
            }
            if failed {
                limits::record_failure(app, &form.budgets).await;
            }
            return RevokeTokenResponse::Unauthorized {
                body: oauth_error(types::OAuthErrorError::InvalidClient, "client authentication failed"),
                www_authenticate: form.basic.is_some().then(basic_challenge),
            };
        }
    }
    let token = &request.body.token;
    let server_error = || {
        RevokeTokenResponse::InternalServerError(oauth_error(
            types::OAuthErrorError::ServerError,
            "the database is unavailable",
        ))
    };
    let owner: Result<Option<(i64,)>, _> = sqlx::query_as("SELECT client_id FROM oauth_tokens WHERE token_hash = $1")
        .bind(tokens::hash(token))
        .fetch_optional(&app.db)
        .await;
    match owner {
        Ok(Some((owner,))) if owner.to_string() != client_id => RevokeTokenResponse::BadRequest(oauth_error(
            types::OAuthErrorError::UnauthorizedClient,
            "the token was issued to another client",
        )),
        Ok(Some(_)) => {
            let revoked =
                sqlx::query("UPDATE oauth_tokens SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL")
                    .bind(tokens::hash(token))
                    .bind(now())
                    .execute(&app.db)
                    .await;
            match revoked {
                Ok(_) => RevokeTokenResponse::Ok,
                Err(error) => {
                    tracing::error!(%error, "a token could not be revoked");
                    server_error()
                }
            }
        }
        Ok(None) => RevokeTokenResponse::Ok,
        Err(error) => {
            tracing::error!(%error, "a token's owner could not be read");
            server_error()
        }
    }
}

/// The authorization server's metadata, for client libraries that discover it.
pub fn metadata(app: &App) -> types::AuthorizationServerMetadata {
    let base = &app.public_url;
    let strings = |values: &[&str]| values.iter().map(|v| v.to_string()).collect::<Vec<_>>();
    types::AuthorizationServerMetadata {
        issuer: base.to_string(),
        authorization_endpoint: format!("{base}/oauth/authorize"),
        token_endpoint: format!("{base}/api/oauth/token"),
        revocation_endpoint: format!("{base}/api/oauth/revoke"),
        response_types_supported: strings(&["code"]),
        grant_types_supported: strings(&["authorization_code"]),
        token_endpoint_auth_methods_supported: strings(&["client_secret_basic", "client_secret_post"]),
        revocation_endpoint_auth_methods_supported: strings(&["client_secret_basic", "client_secret_post"]),
        code_challenge_methods_supported: strings(&["S256"]),
        service_documentation: format!("{base}/docs"),
    }
}
