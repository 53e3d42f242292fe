//! The REST operations of `openapi/roadlog.yaml`.

use std::sync::Arc;

use serde_json::json;
use warp::http::{StatusCode, header};

use crate::config::Environment;
use crate::domain::auth::Caller;
use crate::graphql::Api;
use crate::mail::outbox;

use super::contract::{RestApi, RestRequest, SandboxOutboxQuery};
use super::media::json_response;

/// Implements the generated REST handler trait.
pub struct RestHandlers {
    pub api: Arc<Api>,
}

#[async_trait::async_trait]
impl RestApi for RestHandlers {
    async fn token(&self, request: RestRequest) -> warp::reply::Response {
        crate::oauth::token_endpoint::serve(&self.api, request).await
    }

    async fn revoke_token(&self, request: RestRequest) -> warp::reply::Response {
        crate::oauth::revoke::serve(&self.api, request).await
    }

    async fn authorize(&self, request: RestRequest) -> warp::reply::Response {
        crate::oauth::authorize::serve(&self.api, request, false).await
    }

    async fn authorize_submit(&self, request: RestRequest) -> warp::reply::Response {
        crate::oauth::authorize::serve(&self.api, request, true).await
    }

    async fn generate_tachograph_files(&self, request: RestRequest) -> warp::reply::Response {
        crate::http::export::generate(&self.api, request).await
    }

    async fn tachograph_root_public_key(&self, _request: RestRequest) -> warp::reply::Response {
        crate::http::export::root_public_key(&self.api).await
    }

    async fn health(&self, _request: RestRequest) -> warp::reply::Response {
        let environment = self.api.environment.as_str();
        if self.api.db.ping().await {
            json_response(StatusCode::OK, &json!({ "status": "ok", "environment": environment }))
        } else {
            json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &json!({ "error": "The database is unreachable", "error_code": "INTERNAL_ERROR" }),
            )
        }
    }

    async fn ready(&self, _request: RestRequest) -> warp::reply::Response {
        match self.api.db.readiness().await {
            Ok(migrations) => json_response(
                StatusCode::OK,
                &json!({ "status": "ready", "environment": self.api.environment.as_str(), "migrations": migrations }),
            ),
            Err(reason) => json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &json!({ "error": reason, "error_code": "INTERNAL_ERROR" }),
            ),
        }
    }

    async fn metrics(&self, _request: RestRequest) -> warp::reply::Response {
        if !self.api.metrics_public {
            return json_response(
                StatusCode::NOT_FOUND,
                &json!({ "error": "Metrics are served on another address", "error_code": "NOT_FOUND" }),
            );
        }
        metrics_text(&self.api).await
    }

    async fn sandbox_outbox(&self, request: RestRequest) -> warp::reply::Response {
        // Sandbox e-mails reach no real mailbox; production ones must never be readable here.
        if self.api.environment != Environment::Sandbox {
            return json_response(
                StatusCode::NOT_FOUND,
                &json!({ "error": "The outbox is only readable in the sandbox environment", "error_code": "NOT_FOUND" }),
            );
        }
        let unavailable = || {
            json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &json!({ "error": "The database is unreachable", "error_code": "INTERNAL_ERROR" }),
            )
        };
        let bearer = Caller::bearer(request.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()));
        let actor = match Caller::resolve(&self.api.db, &bearer).await.map(|c| c.user_id()) {
            Ok(Ok(actor)) => actor,
            Ok(Err(e)) => {
                return json_response(
                    StatusCode::UNAUTHORIZED,
                    &json!({ "error": e.message, "error_code": "AUTHENTICATION_ERROR" }),
                );
            }
            Err(_) => return unavailable(),
        };
        let Ok(admined) = crate::domain::companies::company::admined_by(&self.api.db, actor).await else {
            return unavailable();
        };
        let mut companies: Vec<i64> = admined.iter().map(|c| c.id).collect();
        let query = SandboxOutboxQuery::from_request(&request);
        if let Some(wanted) = query.company_id.first() {
            let wanted = wanted.trim().parse::<i64>().ok().filter(|id| companies.contains(id));
            match wanted {
                Some(id) => companies = vec![id],
                None => {
                    return json_response(
                        StatusCode::FORBIDDEN,
                        &json!({ "error": "Actor is not an admin of that company", "error_code": "AUTHORIZATION_ERROR" }),
                    );
                }
            }
        }
        if companies.is_empty() {
            return json_response(
                StatusCode::FORBIDDEN,
                &json!({ "error": "Actor is not an admin of any company", "error_code": "AUTHORIZATION_ERROR" }),
            );
        }
        let to = query.to.first().map(|t| t.trim().to_lowercase());
        match outbox::latest_of_companies(&self.api.db, &companies, to.as_deref(), 100).await {
            Ok(entries) => json_response(StatusCode::OK, &json!(entries)),
            Err(_) => unavailable(),
        }
    }

    async fn authorization_server_metadata(&self, _request: RestRequest) -> warp::reply::Response {
        crate::oauth::revoke::metadata(&self.api)
    }
}

/// The metrics, with the gauges that describe the database read now.
pub(super) async fn metrics_text(api: &Api) -> warp::reply::Response {
    let metrics = &api.metrics;
    metrics.db_connections.set(i64::from(api.db.pool.size()));
    metrics.db_idle_connections.set(api.db.pool.num_idle() as i64);
    if let Ok(backlog) = outbox::backlog(&api.db).await {
        metrics.outbox_backlog.set(backlog);
    }
    let mut response = warp::reply::Response::new(metrics.render().into());
    response.headers_mut().insert(
        warp::http::header::CONTENT_TYPE,
        warp::http::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
