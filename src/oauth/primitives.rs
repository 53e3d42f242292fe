//! oxide-auth's primitives over our database: the client registry, the authorization codes and
//! the token issuer. Each is built per request; what a primitive learns that the response must
//! reflect (a code that was not found, a failed client authentication) goes into [`FlowState`].

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use base64::Engine;
use chrono::{DateTime, Utc};
use oxide_auth::primitives::grant::{Extensions, Grant};
use oxide_auth::primitives::issuer::{IssuedToken, RefreshedToken, TokenType};
use oxide_auth::primitives::registrar::{BoundClient, ClientUrl, ExactUrl, PreGrant, RegisteredUrl, RegistrarError};
use oxide_auth::primitives::scope::Scope;
use sha2::{Digest, Sha256};
use url::Url;

use crate::db::{Db, now};
use crate::domain::auth::client_rate::ClientLimiter;
use crate::domain::auth::tokens;
use crate::errors::AppError;

/// Codes live 5 minutes (oxide-auth's own default is 10).
pub const CODE_SECONDS: i64 = 5 * 60;
/// The one scope of this API: acting as the user, with the user's rights.
pub const SCOPE: &str = "api";

/// What the primitives learned while serving one request.
#[derive(Default, Debug)]
pub struct FlowState {
    /// The PKCE verifier sent to the token endpoint.
    pub code_verifier: Option<String>,
    /// The PKCE challenge sent to the authorization endpoint.
    pub code_challenge: Option<String>,
    /// Whether the authorization request named its redirect URI.
    pub redirect_uri_given: bool,
    /// The code was unknown, expired, already used, or failed PKCE: `invalid_grant`.
    pub code_refused: bool,
    /// The hash of the code being exchanged, to link the token to it.
    pub code_hash: Option<String>,
    /// The client failed to authenticate (for rate limiting).
    pub client_failed: bool,
    /// The client authenticated but is over its request rate: the seconds to wait.
    pub client_over_rate: Option<u64>,
    /// The first database error of the request (oxide-auth's own errors carry no cause), for
    /// the handler to log once.
    pub error: Option<AppError>,
}

/// Keeps a database error for the handler to log.
fn keep(state: &SharedState, error: impl Into<AppError>) {
    if let Ok(mut state) = state.lock() {
        state.error.get_or_insert(error.into());
    }
}

pub type SharedState = Arc<Mutex<FlowState>>;

fn scope() -> Scope {
    SCOPE
        .parse()
        .unwrap_or_else(|_| unreachable!("a single word is a scope"))
}

fn time(t: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(t, 0).unwrap_or_else(Utc::now)
}

/// The client registry.
pub struct DbRegistrar {
    pub db: Db,
    pub state: SharedState,
    /// The request rate of authenticated clients (token endpoint and revocation); `None`
    /// where no rate applies (the authorization pages, or `--client-rate-limit 0`).
    pub limiter: Option<ClientLimiter>,
}

impl DbRegistrar {
    /// The redirect URIs of an active client; `None` for an unknown or revoked one. A database
    /// failure is an error, not an unknown client: the page says "try again", not "unknown
    /// application".
    async fn redirect_uris(&self, client_id: &str) -> Result<Option<Vec<String>>, sqlx::Error> {
        let Ok(id) = client_id.parse::<i64>() else {
            return Ok(None);
        };
        let active: Option<(i64,)> =
            sqlx::query_as("SELECT id FROM oauth_clients WHERE id = $1 AND revoked_at IS NULL")
                .bind(id)
                .fetch_optional(&self.db)
                .await?;
        if active.is_none() {
            return Ok(None);
        }
        let uris: Vec<(String,)> = sqlx::query_as("SELECT uri FROM oauth_client_redirect_uris WHERE client_id = $1")
            .bind(id)
            .fetch_all(&self.db)
            .await?;
        Ok(Some(uris.into_iter().map(|u| u.0).collect()))
    }
}

#[async_trait::async_trait]
impl oxide_auth_async::primitives::Registrar for DbRegistrar {
    async fn bound_redirect<'a>(&self, bound: ClientUrl<'a>) -> Result<BoundClient<'a>, RegistrarError> {
        let uris = match self.redirect_uris(&bound.client_id).await {
            Ok(Some(uris)) => uris,
            Ok(None) => return Err(RegistrarError::Unspecified),
            Err(error) => {
                keep(&self.state, error);
                return Err(RegistrarError::PrimitiveError);
            }
        };
        // Exact string comparison (RFC 9700 §4.1.1); without a redirect_uri the client must have
        // exactly one.
        let chosen = match &bound.redirect_uri {
            Some(given) => uris.iter().find(|u| u.as_str() == given.as_str()).cloned(),
            None if uris.len() == 1 => uris.first().cloned(),
            None => None,
        }
        .ok_or(RegistrarError::Unspecified)?;
        let exact = ExactUrl::new(chosen).map_err(|_| RegistrarError::Unspecified)?;
        Ok(BoundClient {
            client_id: bound.client_id,
            redirect_uri: Cow::Owned(RegisteredUrl::Exact(exact)),
        })
    }

    async fn negotiate<'a>(&self, client: BoundClient<'a>, _scope: Option<Scope>) -> Result<PreGrant, RegistrarError> {
        Ok(PreGrant {
            client_id: client.client_id.into_owned(),
            redirect_uri: client.redirect_uri.into_owned(),
            scope: scope(),
        })
    }

    async fn check(&self, client_id: &str, passphrase: Option<&[u8]>) -> Result<(), RegistrarError> {
        let fail = || {
            if let Ok(mut state) = self.state.lock() {
                state.client_failed = true;
            }
            RegistrarError::Unspecified
        };
        let Ok(id) = client_id.parse::<i64>() else {
            return Err(fail());
        };
        let stored: Option<(String,)> =
            sqlx::query_as("SELECT secret_hash FROM oauth_clients WHERE id = $1 AND revoked_at IS NULL")
                .bind(id)
                .fetch_optional(&self.db)
                .await
                .map_err(|error| {
                    keep(&self.state, error);
                    RegistrarError::PrimitiveError
                })?;
        // Every client is confidential: a secret is required.
        let (Some((hash,)), Some(secret)) = (stored, passphrase) else {
            return Err(fail());
        };
        let secret = String::from_utf8_lossy(secret);
        match super::clients::secret_matches(&self.db, id, &secret, &hash).await {
            // Counted only once authenticated: made-up ids never enter the limiter's memory.
            Ok(true) => match self.limiter.as_ref().map(|l| l.check_id(id)) {
                Some(Err(seconds)) => {
                    if let Ok(mut state) = self.state.lock() {
                        state.client_over_rate = Some(seconds);
                    }
                    Err(RegistrarError::Unspecified)
                }
                _ => Ok(()),
            },
            Ok(false) => Err(fail()),
            Err(error) => {
                keep(&self.state, error);
                Err(RegistrarError::PrimitiveError)
            }
        }
    }
}

/// Authorization codes, stored as hashes.
pub struct DbAuthorizer {
    pub db: Db,
    pub state: SharedState,
}

/// S256 of a PKCE verifier (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[async_trait::async_trait]
impl oxide_auth_async::primitives::Authorizer for DbAuthorizer {
    async fn authorize(&mut self, grant: Grant) -> Result<String, ()> {
        let (code, hash) = tokens::generate("rl_code_").map_err(|_| ())?;
        let created = now();
        let expires = grant.until.timestamp().min(created + CODE_SECONDS);
        let (challenge, given) = {
            let state = self.state.lock().map_err(|_| ())?;
            (state.code_challenge.clone(), state.redirect_uri_given)
        };
        sqlx::query(
            "INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, redirect_uri_given, code_challenge,
                                      created_at, expires_at)
             VALUES ($1, $2, $3, $4, $8, $5, $6, $7)",
        )
        .bind(hash)
        .bind(grant.client_id.parse::<i64>().map_err(|_| ())?)
        .bind(grant.owner_id.parse::<i64>().map_err(|_| ())?)
        .bind(grant.redirect_uri.as_str())
        .bind(challenge)
        .bind(created)
        .bind(expires)
        .bind(i64::from(given))
        .execute(&self.db)
        .await
        .map_err(|error| keep(&self.state, error))?;
        Ok(code)
    }

    /// Reads the code without spending it: the issuer spends it in the transaction that writes
    /// the token, so a failed issue leaves the code usable and a spent code always has a token.
    async fn extract(&mut self, code: &str) -> Result<Option<Grant>, ()> {
        let hash = tokens::hash(code);
        let at = now();
        let row: Option<(i64, i64, String, Option<String>, i64, Option<i64>)> = sqlx::query_as(
            "SELECT client_id, user_id, redirect_uri, code_challenge, expires_at, used_at FROM oauth_codes
             WHERE code_hash = $1",
        )
        .bind(&hash)
        .fetch_optional(&self.db)
        .await
        .map_err(|error| keep(&self.state, error))?;
        let Some((client_id, user_id, redirect_uri, challenge, expires_at, used_at)) = row else {
            self.state.lock().map_err(|_| ())?.code_refused = true;
            return Ok(None);
        };
        if used_at.is_some() {
            self.state.lock().map_err(|_| ())?.code_refused = true;
            revoke_token_of_spent_code(&self.db, &hash, at)
                .await
                .map_err(|error| keep(&self.state, error))?;
            return Ok(None);
        }
        if expires_at <= at {
            self.state.lock().map_err(|_| ())?.code_refused = true;
            return Ok(None);
        }
        // PKCE (S256 only). A verifier without a challenge is refused too: that is a downgrade.
        let pkce_ok = {
            let state = self.state.lock().map_err(|_| ())?;
            match (&challenge, &state.code_verifier) {
                (None, None) => true,
                (Some(challenge), Some(verifier)) => {
                    let computed = s256(verifier);
                    computed.len() == challenge.len()
                        && computed
                            .bytes()
                            .zip(challenge.bytes())
                            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                            == 0
                }
                _ => false,
            }
        };
        if !pkce_ok {
            self.state.lock().map_err(|_| ())?.code_refused = true;
            // A failed verifier spends the code: it gets one try.
            sqlx::query("UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL")
                .bind(&hash)
                .bind(at)
                .execute(&self.db)
                .await
                .map_err(|error| keep(&self.state, error))?;
            return Ok(None);
        }
        self.state.lock().map_err(|_| ())?.code_hash = Some(hash);
        Ok(Some(Grant {
            owner_id: user_id.to_string(),
            client_id: client_id.to_string(),
            scope: scope(),
            redirect_uri: Url::parse(&redirect_uri).map_err(|_| ())?,
            until: time(expires_at),
            extensions: Extensions::new(),
        }))
    }
}

/// A code used twice was probably stolen: the token it produced is revoked.
async fn revoke_token_of_spent_code<'c, E>(executor: E, code_hash: &str, at: i64) -> crate::errors::AppResult<()>
where
    E: sqlx::Executor<'c, Database = sqlx::Any>,
{
    sqlx::query(
        "UPDATE oauth_tokens SET revoked_at = $2 WHERE revoked_at IS NULL
           AND id = (SELECT token_id FROM oauth_codes WHERE code_hash = $1 AND used_at IS NOT NULL)",
    )
    .bind(code_hash)
    .bind(at)
    .execute(executor)
    .await?;
    Ok(())
}

/// Spends the code and writes its token in one transaction: either both happen or neither.
/// `None` when the code was spent (or expired) since it was read: of two concurrent exchanges,
/// the second waits for the first's row lock and finds the code spent.
async fn exchange_code(
    db: &Db,
    code_hash: &str,
    client_id: i64,
    user_id: i64,
    lifetime: Option<i64>,
) -> crate::errors::AppResult<Option<String>> {
    let at = now();
    let mut tx = db.begin_write().await?;
    let spent = sqlx::query(
        "UPDATE oauth_codes SET used_at = $2
         WHERE code_hash = $1 AND client_id = $3 AND user_id = $4 AND used_at IS NULL AND expires_at > $2",
    )
    .bind(code_hash)
    .bind(at)
    .bind(client_id)
    .bind(user_id)
    .execute(&mut *tx)
    .await?;
    if spent.rows_affected() != 1 {
        // The transaction rolls back; the replay revokes the token the first exchange got.
        drop(tx);
        revoke_token_of_spent_code(db, code_hash, at).await?;
        return Ok(None);
    }
    let (token, id) = crate::domain::auth::oauth_tokens::issue_on(&mut tx, client_id, user_id, lifetime).await?;
    sqlx::query("UPDATE oauth_codes SET token_id = $2 WHERE code_hash = $1")
        .bind(code_hash)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(token))
}

/// Issues access tokens (no expiry unless configured), linked to the code they came from.
pub struct DbIssuer {
    pub db: Db,
    pub state: SharedState,
    pub lifetime: Option<i64>,
}

#[async_trait::async_trait]
impl oxide_auth_async::primitives::Issuer for DbIssuer {
    async fn issue(&mut self, grant: Grant) -> Result<IssuedToken, ()> {
        let client_id: i64 = grant.client_id.parse().map_err(|_| ())?;
        let user_id: i64 = grant.owner_id.parse().map_err(|_| ())?;
        // Only the authorization-code grant issues tokens here, always after `extract`.
        let code_hash = self.state.lock().map_err(|_| ())?.code_hash.clone().ok_or(())?;
        let token = match exchange_code(&self.db, &code_hash, client_id, user_id, self.lifetime).await {
            Ok(Some(token)) => token,
            Ok(None) => {
                self.state.lock().map_err(|_| ())?.code_refused = true;
                return Err(());
            }
            Err(error) => {
                // Kept for the token endpoint, which logs it once and answers 500.
                keep(&self.state, error);
                return Err(());
            }
        };
        let until = self
            .lifetime
            .map(|l| time(now() + l))
            .unwrap_or_else(|| time(now() + 100 * 365 * 86_400));
        Ok(IssuedToken {
            token,
            refresh: None,
            until,
            token_type: TokenType::Bearer,
        })
    }

    async fn refresh(&mut self, _: &str, _: Grant) -> Result<RefreshedToken, ()> {
        Err(())
    }

    async fn recover_token(&mut self, _: &str) -> Result<Option<Grant>, ()> {
        Ok(None)
    }

    async fn recover_refresh(&mut self, _: &str) -> Result<Option<Grant>, ()> {
        Ok(None)
    }
}
