//! The REST operations of `openapi/roadlog.yaml`.

use std::sync::Arc;

use serde_json::json;
use warp::http::StatusCode;

use crate::graphql::Api;

use super::contract::{RestApi, RestRequest};
use super::media::json_response;

/// Implements the generated REST handler trait.
pub struct RestHandlers {
    pub api: Arc<Api>,
}

/// An operation of the contract whose implementation belongs to later work: 501, said plainly.
fn not_implemented(operation: &str) -> warp::reply::Response {
    json_response(
        StatusCode::NOT_IMPLEMENTED,
        &json!({ "error": format!("{operation} is not implemented yet"), "error_code": "INTERNAL_ERROR" }),
    )
}

#[async_trait::async_trait]
impl RestApi for RestHandlers {
    async fn token(&self, _request: RestRequest) -> warp::reply::Response {
        not_implemented("The OAuth token endpoint")
    }

    async fn revoke_token(&self, _request: RestRequest) -> warp::reply::Response {
        not_implemented("OAuth token revocation")
    }

    async fn authorize(&self, _request: RestRequest) -> warp::reply::Response {
        not_implemented("The OAuth authorization endpoint")
    }

    async fn generate_tachograph_files(&self, _request: RestRequest) -> warp::reply::Response {
        not_implemented("The C1B export")
    }

    async fn tachograph_root_public_key(&self, _request: RestRequest) -> warp::reply::Response {
        not_implemented("The tachograph root key")
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

    async fn authorization_server_metadata(&self, _request: RestRequest) -> warp::reply::Response {
        not_implemented("OAuth authorization server metadata")
    }
}
