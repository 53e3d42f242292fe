//! The application's state: what every transport (GraphQL, REST, OAuth, pages) serves from,
//! built once at the composition root (`server.rs`) and shared by reference. The GraphQL
//! resolver traits of the contract are implemented on it.

use crate::config::Environment;
use crate::db::Db;
use crate::telemetry::Metrics;

/// The services and settings behind every route.
pub struct App {
    pub db: Db,
    pub environment: Environment,
    /// The public base URL of this environment, for links in e-mails.
    pub public_url: String,
    /// Lifetime of OAuth access tokens in seconds; `None`: no expiry (the reference's behaviour,
    /// which integrations expect).
    pub oauth_token_lifetime: Option<i64>,
    /// This server's metrics.
    pub metrics: std::sync::Arc<Metrics>,
    /// Whether `/metrics` is served on the public address (no `--metrics-bind`).
    pub metrics_public: bool,
    /// Time a client has to send a request body.
    pub body_timeout: std::time::Duration,
    /// Proxies whose forwarding headers name the client's address.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Browser origins granted cross-origin access (CORS); `*` for any.
    pub cors_origins: Vec<String>,
    /// How the C1B signing keys are stored (encrypted when a key-encryption key is configured).
    pub key_sealer: crate::domain::export::sealing::Sealer,
    /// The key of the browser forms' CSRF tokens.
    pub csrf_key: crate::domain::auth::csrf_key::CsrfKey,
    /// The key that signs the activity reports' download links.
    pub export_links: crate::domain::export::jobs::links::LinkKey,
    /// The key that signs the activity reports' workbooks (`Mobilic HMAC`).
    pub xlsx_signing_key: crate::domain::export::jobs::build::SigningKey,
    /// Token requests per OAuth client (`None`: unlimited).
    pub client_limiter: Option<crate::domain::auth::client_rate::ClientLimiter>,
    /// Requests per software vendor on `/protected` and with employment tokens (`None`:
    /// unlimited).
    pub vendor_limiter: Option<crate::domain::auth::client_rate::ClientLimiter>,
    /// Whether the interactive console is served (`/console`, and `GET /api/graphql` for
    /// browsers).
    pub console: bool,
    /// The national company register consulted at a company's sign-up (offline: none is
    /// reachable from this server, see `domain::companies::register`).
    pub company_register: std::sync::Arc<dyn crate::domain::companies::register::CompanyRegister>,
}
