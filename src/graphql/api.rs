//! The one type that implements every resolver trait of the contract, and what resolvers read
//! from a request.

use async_graphql::Context;

use crate::config::Environment;
use crate::db::Db;
use crate::domain::auth::Caller;
use crate::telemetry::Metrics;

/// The services behind the resolvers.
pub struct Api {
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
    /// Token requests per OAuth client (`None`: unlimited).
    pub client_limiter: Option<crate::domain::auth::client_rate::ClientLimiter>,
    /// Requests per software vendor on `/protected` and with employment tokens (`None`:
    /// unlimited).
    pub vendor_limiter: Option<crate::domain::auth::client_rate::ClientLimiter>,
    /// Whether the interactive console is served (`/console`, and `GET /api/graphql` for
    /// browsers).
    pub console: bool,
}

/// The identity behind the current request (anonymous when the glue placed none).
pub fn caller<'a>(ctx: &'a Context<'_>) -> &'a Caller {
    const ANONYMOUS: &Caller = &Caller::Anonymous;
    super::RequestData::of(ctx).map_or(ANONYMOUS, |data| &data.caller)
}

/// The bearer token the request carried, if any (for the mutations that act on the token
/// itself: refresh, logout).
pub fn bearer<'a>(ctx: &'a Context<'_>) -> Option<&'a str> {
    super::RequestData::of(ctx).and_then(|data| data.bearer.0.as_deref())
}

/// The client's address, as the transport determined it (for the login throttle).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddress(pub std::net::IpAddr);
