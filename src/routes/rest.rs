//! The REST operations of `openapi/roadlog.yaml`: the implementation of the generated handler
//! trait. Requests arrive parsed and validated, answers are the documented variants.

use std::sync::Arc;

use crate::app::App;
use crate::config::Environment;
use crate::domain::auth::{Actor, Caller};
use crate::domain::companies::company;
use crate::domain::vendors::audit;
use crate::http::api_error::{api_error, internal_error};
use crate::mail::outbox;

use crate::http::contract::{
    self, AuthorizationServerMetadataRequest, AuthorizationServerMetadataResponse, AuthorizeRequest, AuthorizeResponse,
    AuthorizeSubmitRequest, AuthorizeSubmitResponse, BearerAuthOperation, DownloadActivityReportRequest,
    DownloadActivityReportResponse, DownloadFullDataWhenCguRefusedRequest, DownloadFullDataWhenCguRefusedResponse,
    Expected, ExportDownloadRequest, ExportDownloadResponse, ExportsCancelRequest, ExportsCancelResponse,
    ExportsCheckoutRequest, ExportsCheckoutResponse, FromRequestError, GenerateMissionExportRequest,
    GenerateMissionExportResponse, GeneratePdfExportRequest, GeneratePdfExportResponse, GenerateTachographFileRequest,
    GenerateTachographFileResponse, GenerateTachographFilesRequest, GenerateTachographFilesResponse, HealthRequest,
    HealthResponse, MetricsRequest, MetricsResponse, ProblemKind, ReadyRequest, ReadyResponse, RequestError, RestApi,
    RevokeTokenRequest, RevokeTokenResponse, SandboxOutboxRequest, SandboxOutboxResponse, SyncEmployeeRequest,
    SyncEmployeeResponse, SyncEmployeeSubmitRequest, SyncEmployeeSubmitResponse, TachographRootPublicKeyRequest,
    TachographRootPublicKeyResponse, TokenLogoutRequest, TokenLogoutResponse, TokenRefreshRequest,
    TokenRefreshResponse, TokenRequest, TokenResponse, ValidateExportParamsRequest, ValidateExportParamsResponse,
    VerifyXlsxSignatureRequest, VerifyXlsxSignatureResponse, types,
};

/// Implements the generated REST handler trait.
pub struct RestHandlers {
    pub app: Arc<App>,
}

/// Why a request of an operation that requires a bearer token has no caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoCaller {
    /// The database failed while the token was checked: each operation answers it with its own
    /// documented status.
    DatabaseUnavailable,
    /// The operation is not served in this environment (the outbox outside the sandbox): its 404
    /// comes before any authentication.
    NotServedHere,
    /// A software vendor's employment token, over the vendor's rate: seconds to wait.
    RateLimited(i64),
}

/// Records the operation in the vendors' audit trail when software made it for an employee (the
/// caller came with an employment token).
async fn audit(app: &App, caller: &Caller, operation: &str) {
    if let Some(grant) = caller.employment() {
        let credential = audit::Credential::EmploymentToken(grant.link_id);
        audit::record_or_log(&app.db, grant.client_id, grant.company_id, credential, operation).await;
    }
}

fn too_many_requests(retry_after: i64) -> types::ApiError {
    api_error(
        format!("Too many requests from this client: retry in {retry_after} s"),
        "AUTHORIZATION_ERROR",
    )
}

/// The caller of an operation that requires a bearer token, or the operation's answer when there
/// is none: `limited` (its 429) for a software vendor over its rate, `failed` (its 500) when the
/// database failed while the token was checked.
fn authenticated<R>(
    bearer_auth: Result<(Caller, Actor), NoCaller>,
    limited: impl FnOnce(types::ApiError, i64) -> R,
    failed: impl FnOnce(types::ApiError) -> R,
) -> Result<(Caller, Actor), R> {
    match bearer_auth {
        Ok(authenticated) => Ok(authenticated),
        Err(NoCaller::RateLimited(retry_after)) => Err(limited(too_many_requests(retry_after), retry_after)),
        Err(_) => Err(failed(internal_error())),
    }
}

fn database_unreachable() -> types::ApiError {
    api_error("The database is unreachable", "INTERNAL_ERROR")
}

/// An ill-formed request: `INVALID_INPUTS`, with the messages per field in `details` (the
/// export's documented 404, the outbox's 400).
impl FromRequestError for types::ApiError {
    fn from_request_error(error: RequestError) -> Self {
        types::ApiError {
            error: "Invalid request".to_string(),
            error_code: "INVALID_INPUTS".to_string(),
            details: Some(error.details()),
        }
    }
}

/// An ill-formed OAuth request (RFC 6749 §5.2): `unsupported_grant_type` when the grant type is
/// not one of the documented ones, `invalid_request` otherwise (missing, repeated or mistyped
/// parameter, a body that is not a form).
impl FromRequestError for types::OAuthError {
    fn from_request_error(error: RequestError) -> Self {
        let unsupported_grant = error
            .problems
            .iter()
            .any(|p| p.field == "grant_type" && matches!(p.kind, ProblemKind::Invalid(Expected::OneOf(_))));
        let code = if unsupported_grant {
            types::OAuthErrorError::UnsupportedGrantType
        } else {
            types::OAuthErrorError::InvalidRequest
        };
        let description = if unsupported_grant {
            "only grant_type=authorization_code is supported".to_string()
        } else {
            error.to_string()
        };
        types::OAuthError {
            error: code,
            error_description: Some(description),
        }
    }
}

#[async_trait::async_trait]
impl RestApi for RestHandlers {
    /// The caller of valid credentials (an access token, or a software vendor's employment
    /// token) and the actor it stands for, or why there is none. The caller stays for what the
    /// actor does not say: the employment token's link, for the vendors' audit trail.
    type BearerAuth = Result<(Caller, Actor), NoCaller>;

    async fn authenticate_bearer_auth(
        &self,
        operation: BearerAuthOperation,
        _token: Option<&str>,
        headers: &warp::http::HeaderMap,
    ) -> Result<Self::BearerAuth, types::ApiError> {
        if operation == BearerAuthOperation::SandboxOutbox && self.app.environment != Environment::Sandbox {
            return Ok(Err(NoCaller::NotServedHere));
        }
        let credentials = crate::http::credentials::read(headers);
        match Caller::resolve(&self.app.db, &credentials).await {
            Ok(caller) => match caller.actor() {
                Ok(actor) => {
                    // The exports are the vendor's door here (the sandbox outbox has no 429).
                    if let (Some(grant), Some(limiter)) = (caller.employment(), &self.app.vendor_limiter)
                        && operation != BearerAuthOperation::SandboxOutbox
                        && let Err(seconds) = limiter.check_id(grant.client_id)
                    {
                        return Ok(Err(NoCaller::RateLimited(i64::try_from(seconds).unwrap_or(i64::MAX))));
                    }
                    Ok(Ok((caller, actor)))
                }
                Err(e) => Err(api_error(e.message, "AUTHENTICATION_ERROR")),
            },
            Err(error) => {
                error.log_if_internal();
                Ok(Err(NoCaller::DatabaseUnavailable))
            }
        }
    }

    async fn token(&self, request: TokenRequest) -> TokenResponse {
        crate::oauth::token_endpoint::serve(&self.app, request).await
    }

    async fn revoke_token(&self, request: RevokeTokenRequest) -> RevokeTokenResponse {
        crate::oauth::revoke::serve(&self.app, request).await
    }

    async fn authorize(&self, request: AuthorizeRequest) -> AuthorizeResponse {
        crate::oauth::authorize::serve_get(&self.app, request).await
    }

    async fn authorize_submit(&self, request: AuthorizeSubmitRequest) -> AuthorizeSubmitResponse {
        crate::oauth::authorize::serve_post(&self.app, request).await
    }

    async fn sync_employee(&self, request: SyncEmployeeRequest) -> SyncEmployeeResponse {
        super::sync_employee::serve_get(&self.app, request).await
    }

    async fn sync_employee_submit(&self, request: SyncEmployeeSubmitRequest) -> SyncEmployeeSubmitResponse {
        super::sync_employee::serve_post(&self.app, request).await
    }

    async fn generate_tachograph_files(
        &self,
        bearer_auth: Self::BearerAuth,
        request: GenerateTachographFilesRequest,
    ) -> GenerateTachographFilesResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| GenerateTachographFilesResponse::TooManyRequests { body, retry_after },
            GenerateTachographFilesResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /companies/generate_tachograph_files").await;
        crate::http::export::generate(&self.app, actor, request).await
    }

    async fn generate_tachograph_file(
        &self,
        bearer_auth: Self::BearerAuth,
        request: GenerateTachographFileRequest,
    ) -> GenerateTachographFileResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| GenerateTachographFileResponse::TooManyRequests { body, retry_after },
            GenerateTachographFileResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /users/generate_tachograph_file").await;
        crate::http::export::generate_personal(&self.app, actor, request).await
    }

    async fn generate_pdf_export(
        &self,
        bearer_auth: Self::BearerAuth,
        request: GeneratePdfExportRequest,
    ) -> GeneratePdfExportResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| GeneratePdfExportResponse::TooManyRequests { body, retry_after },
            GeneratePdfExportResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /users/generate_pdf_export").await;
        crate::http::pdf_exports::statement(&self.app, actor, request).await
    }

    async fn generate_mission_export(
        &self,
        bearer_auth: Self::BearerAuth,
        request: GenerateMissionExportRequest,
    ) -> GenerateMissionExportResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| GenerateMissionExportResponse::TooManyRequests { body, retry_after },
            GenerateMissionExportResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /users/generate_mission_export").await;
        crate::http::pdf_exports::mission(&self.app, actor, request).await
    }

    async fn token_refresh(&self, request: TokenRefreshRequest) -> TokenRefreshResponse {
        crate::http::session_tokens::refresh(&self.app, request).await
    }

    async fn token_logout(&self, request: TokenLogoutRequest) -> TokenLogoutResponse {
        crate::http::session_tokens::logout(&self.app, request).await
    }

    async fn validate_export_params(
        &self,
        bearer_auth: Self::BearerAuth,
        request: ValidateExportParamsRequest,
    ) -> ValidateExportParamsResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| ValidateExportParamsResponse::TooManyRequests { body, retry_after },
            ValidateExportParamsResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /companies/validate_export_params").await;
        crate::http::reports::validate(&self.app, actor, request).await
    }

    async fn download_activity_report(
        &self,
        bearer_auth: Self::BearerAuth,
        request: DownloadActivityReportRequest,
    ) -> DownloadActivityReportResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| DownloadActivityReportResponse::TooManyRequests { body, retry_after },
            DownloadActivityReportResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /companies/download_activity_report").await;
        crate::http::report_jobs::queue(&self.app, actor, request).await
    }

    async fn download_full_data_when_cgu_refused(
        &self,
        bearer_auth: Self::BearerAuth,
        request: DownloadFullDataWhenCguRefusedRequest,
    ) -> DownloadFullDataWhenCguRefusedResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| DownloadFullDataWhenCguRefusedResponse::TooManyRequests { body, retry_after },
            DownloadFullDataWhenCguRefusedResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /users/download_full_data_when_CGU_refused").await;
        let by_vendor = caller.employment().is_some();
        crate::http::refused_cgu::queue(&self.app, actor, by_vendor, request).await
    }

    async fn verify_xlsx_signature(&self, request: VerifyXlsxSignatureRequest) -> VerifyXlsxSignatureResponse {
        crate::http::signature_check::verify(&self.app, request).await
    }

    async fn exports_checkout(
        &self,
        bearer_auth: Self::BearerAuth,
        _request: ExportsCheckoutRequest,
    ) -> ExportsCheckoutResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| ExportsCheckoutResponse::TooManyRequests { body, retry_after },
            ExportsCheckoutResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /exports/checkout").await;
        crate::http::report_jobs::checkout(&self.app, actor).await
    }

    async fn exports_cancel(
        &self,
        bearer_auth: Self::BearerAuth,
        _request: ExportsCancelRequest,
    ) -> ExportsCancelResponse {
        let (caller, actor) = match authenticated(
            bearer_auth,
            |body, retry_after| ExportsCancelResponse::TooManyRequests { body, retry_after },
            ExportsCancelResponse::InternalServerError,
        ) {
            Ok(authenticated) => authenticated,
            Err(answer) => return answer,
        };
        audit(&self.app, &caller, "POST /exports/cancel").await;
        crate::http::report_jobs::cancel(&self.app, actor).await
    }

    async fn export_download(&self, request: ExportDownloadRequest) -> ExportDownloadResponse {
        crate::http::report_jobs::download(&self.app, request).await
    }

    async fn tachograph_root_public_key(
        &self,
        _request: TachographRootPublicKeyRequest,
    ) -> TachographRootPublicKeyResponse {
        crate::http::export::root_public_key(&self.app).await
    }

    async fn health(&self, _request: HealthRequest) -> HealthResponse {
        let environment = environment(
            self.app.environment,
            types::HealthEnvironment::Sandbox,
            types::HealthEnvironment::Production,
        );
        if self.app.db.ping().await {
            HealthResponse::Ok(types::Health {
                status: types::HealthStatus::Ok,
                environment,
            })
        } else {
            HealthResponse::ServiceUnavailable(database_unreachable())
        }
    }

    async fn ready(&self, _request: ReadyRequest) -> ReadyResponse {
        match self.app.db.readiness().await {
            Ok(migrations) => ReadyResponse::Ok(types::Readiness {
                status: types::ReadinessStatus::Ready,
                environment: environment(
                    self.app.environment,
                    types::ReadinessEnvironment::Sandbox,
                    types::ReadinessEnvironment::Production,
                ),
                migrations,
            }),
            Err(reason) => ReadyResponse::ServiceUnavailable(api_error(reason, "INTERNAL_ERROR")),
        }
    }

    async fn metrics(&self, _request: MetricsRequest) -> MetricsResponse {
        if !self.app.metrics_public {
            return MetricsResponse::NotFound(api_error("Metrics are served on another address", "NOT_FOUND"));
        }
        MetricsResponse::Ok(metrics_body(&self.app).await)
    }

    async fn sandbox_outbox(
        &self,
        bearer_auth: Self::BearerAuth,
        request: SandboxOutboxRequest,
    ) -> SandboxOutboxResponse {
        // Sandbox e-mails reach no real mailbox; production ones must never be readable here.
        if self.app.environment != Environment::Sandbox {
            return SandboxOutboxResponse::NotFound(api_error(
                "The outbox is only readable in the sandbox environment",
                "NOT_FOUND",
            ));
        }
        let unavailable = || SandboxOutboxResponse::ServiceUnavailable(database_unreachable());
        let Ok((_, actor)) = bearer_auth else {
            return unavailable();
        };
        let Ok(admined) = company::admined_by(&self.app.db, actor).await else {
            return unavailable();
        };
        let mut companies: Vec<i64> = admined.iter().map(|c| c.id).collect();
        if let Some(wanted) = request.company_id {
            if !companies.contains(&wanted) {
                return SandboxOutboxResponse::Forbidden(api_error(
                    "Actor is not an admin of that company",
                    "AUTHORIZATION_ERROR",
                ));
            }
            companies = vec![wanted];
        }
        if companies.is_empty() {
            return SandboxOutboxResponse::Forbidden(api_error(
                "Actor is not an admin of any company",
                "AUTHORIZATION_ERROR",
            ));
        }
        let to = request.to.map(|t| t.trim().to_lowercase());
        match outbox::latest_of_companies(&self.app.db, &companies, to.as_deref(), actor.user_id, 100).await {
            Ok(entries) => SandboxOutboxResponse::Ok(
                entries
                    .into_iter()
                    .map(|e| types::OutboxEmail {
                        id: e.id,
                        to: e.to,
                        subject: e.subject,
                        body: e.body,
                        created_at: e.created_at,
                        sent_at: e.sent_at,
                    })
                    .collect(),
            ),
            Err(error) => {
                error.log_if_internal();
                unavailable()
            }
        }
    }

    async fn authorization_server_metadata(
        &self,
        _request: AuthorizationServerMetadataRequest,
    ) -> AuthorizationServerMetadataResponse {
        AuthorizationServerMetadataResponse::Ok(crate::oauth::revoke::metadata(&self.app))
    }
}

fn environment<T>(environment: Environment, sandbox: T, production: T) -> T {
    match environment {
        Environment::Sandbox => sandbox,
        Environment::Production => production,
    }
}

/// The metrics in the Prometheus text format, with the gauges that describe the database read now.
async fn metrics_body(app: &App) -> String {
    let metrics = &app.metrics;
    metrics.db_connections.set(i64::from(app.db.pool.size()));
    metrics.db_idle_connections.set(app.db.pool.num_idle() as i64);
    if let Ok(backlog) = outbox::backlog(&app.db).await {
        metrics.outbox_backlog.set(backlog);
    }
    metrics.render()
}

/// The metrics response, as `GET /metrics` documents it (also served on `--metrics-bind`).
pub(super) async fn metrics_text(app: &App) -> warp::reply::Response {
    contract::MetricsResponse::Ok(metrics_body(app).await).into_response()
}
