//! Employment tokens in use: a software vendor sends `X-CLIENT-ID` and `X-EMPLOYMENT-TOKEN` to
//! the main API and acts as the employee, inside the one company of the employment (reference
//! §3.1 step 2).
//!
//! Every request looks the token up in the database (by its SHA-256 hash: no secret is compared
//! in our code) together with the client's link to the company, so that a dismissal by the
//! employee or by an admin, or a rotation, stops the old token at once on every instance: there
//! is no cache to outlive it. The last use is written at most once a minute.

use crate::db::{Db, now};
use crate::domain::auth::tokens;
use crate::errors::{AppError, AppResult};

use super::api_keys::LAST_USE_RESOLUTION_SECONDS;

/// The visible prefix of employment tokens.
pub const PREFIX: &str = "rl_et_";

/// What a valid employment token grants: the employee, inside one company, for one client. A
/// credential, not a caller: the request's [`Caller`](crate::domain::auth::Caller) keeps it, and
/// the [`Actor`](crate::domain::auth::Actor) it resolves to is the employee confined to the
/// grant's company and client ([`Scope::Employment`](crate::domain::auth::Scope)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub user_id: i64,
    pub company_id: i64,
    pub client_id: i64,
    /// The `client_employments` row (the token's identity in the audit trail).
    pub link_id: i64,
    /// The employment the token was given for.
    pub employment_id: i64,
    /// The SHA-256 hash of the token presented (what a rotation replaces).
    pub token_hash: String,
}

/// Why an employment token was refused (each an AUTHENTICATION_ERROR message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Unknown, dismissed or rotated token, a client id that is not the token's (or not a
    /// number), a revoked client.
    Invalid,
    /// The client's link to the company was dismissed by an admin.
    CompanyRevoked,
    /// The token outlived the lifetime its client was given.
    Expired,
}

impl Refusal {
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Invalid => "Invalid token",
            Refusal::CompanyRevoked => "Company token has been revoked",
            Refusal::Expired => "Expired employment token",
        }
    }
}

pub mod sql {
    crate::statements! {
        /// `$1` the token's hash.
        pub const RESOLVE: &str = "SELECT l.id, l.employment_id, l.client_id, COALESCE(l.user_id, e.user_id), e.company_id, \
                l.token_expires_at, l.token_last_used_at, cc.created_at, cc.dismissed_at, c.revoked_at \
             FROM client_employments l JOIN employments e ON e.id = l.employment_id \
             JOIN oauth_clients c ON c.id = l.client_id \
             LEFT JOIN client_companies cc ON cc.client_id = l.client_id AND cc.company_id = e.company_id \
             WHERE l.access_token_hash = $1 AND l.dismissed_at IS NULL";
        /// `$1` link, `$2` now, `$3` the last use older than which it is written again.
        pub const TOUCH: &str = "UPDATE client_employments SET token_last_used_at = $2 \
             WHERE id = $1 AND (token_last_used_at IS NULL OR token_last_used_at <= $3)";
        /// `$1` link, `$2` the presented token's hash, `$3` the new hash, `$4` now: the new token,
        /// with the client's lifetime from now.
        pub const ROTATE: &str = "UPDATE client_employments SET access_token_hash = $3, token_issued_at = $4, \
                 token_expires_at = $4 + (SELECT c.employment_token_lifetime FROM oauth_clients c \
                                          WHERE c.id = client_employments.client_id), \
                 token_last_used_at = $4 \
             WHERE id = $1 AND access_token_hash = $2 AND dismissed_at IS NULL \
             RETURNING token_expires_at";
        /// `$1` client, `$2` seconds or NULL.
        pub const SET_LIFETIME: &str = "UPDATE oauth_clients SET employment_token_lifetime = $2 \
             WHERE id = $1 AND revoked_at IS NULL";
    }
}

/// The link, its employment, its client, the employee, the company, the token's expiry and last use, the
/// company link's creation and dismissal, the client's revocation.
type ResolveRow = (
    i64,
    i64,
    i64,
    Option<i64>,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// Checks the headers of a request: `client` is `X-CLIENT-ID`, `token` `X-EMPLOYMENT-TOKEN`.
pub async fn resolve(db: &Db, client: &str, token: &str) -> AppResult<Result<Grant, Refusal>> {
    let Ok(client_id) = client.trim().parse::<i64>() else {
        return Ok(Err(Refusal::Invalid));
    };
    let token = token.trim();
    if !token.starts_with(PREFIX) {
        return Ok(Err(Refusal::Invalid));
    }
    let token_hash = tokens::hash(token);
    let row: Option<ResolveRow> = sqlx::query_as(sql::RESOLVE)
        .bind(&token_hash)
        .fetch_optional(db)
        .await?;
    let Some((
        link_id,
        employment_id,
        owner,
        user_id,
        company_id,
        expires_at,
        last_used_at,
        company_linked,
        company_dismissed,
        client_revoked,
    )) = row
    else {
        return Ok(Err(Refusal::Invalid));
    };
    let Some(user_id) = user_id else {
        return Ok(Err(Refusal::Invalid));
    };
    if owner != client_id || client_revoked.is_some() {
        return Ok(Err(Refusal::Invalid));
    }
    // No link at all (never registered) reads as a revoked one: the company is out of reach.
    if company_linked.is_none() || company_dismissed.is_some() {
        return Ok(Err(Refusal::CompanyRevoked));
    }
    let at = now();
    if expires_at.is_some_and(|t| t <= at) {
        return Ok(Err(Refusal::Expired));
    }
    if last_used_at.is_none_or(|t| t <= at - LAST_USE_RESOLUTION_SECONDS) {
        // The condition repeats the check, so that concurrent requests write once.
        sqlx::query(sql::TOUCH)
            .bind(link_id)
            .bind(at)
            .bind(at - LAST_USE_RESOLUTION_SECONDS)
            .execute(db)
            .await?;
    }
    Ok(Ok(Grant {
        user_id,
        company_id,
        client_id,
        link_id,
        employment_id,
        token_hash,
    }))
}

/// A fresh employment token (`rotateEmploymentToken`), given once.
#[derive(Clone, Debug)]
pub struct Rotated {
    pub access_token: String,
    pub expires_at: Option<i64>,
}

/// Replaces the token of the grant's link with a fresh one, in one UPDATE conditioned on the
/// link still being live: the old token stops working at once; of two concurrent rotations of
/// the same token, one wins and the other is refused (its token is no longer the link's).
pub async fn rotate(db: &Db, grant: &Grant) -> AppResult<Option<Rotated>> {
    let (token, hash) = tokens::generate(PREFIX)?;
    let at = now();
    let row: Option<(Option<i64>,)> = sqlx::query_as(sql::ROTATE)
        .bind(grant.link_id)
        .bind(&grant.token_hash)
        .bind(&hash)
        .bind(at)
        .fetch_optional(db)
        .await?;
    Ok(row.map(|(expires_at,)| Rotated {
        access_token: token,
        expires_at,
    }))
}

/// Reads a lifetime as the operator types it: seconds (greater than 0), or `none`.
pub fn parse_lifetime(raw: &str) -> AppResult<Option<i64>> {
    let raw = raw.trim();
    if raw.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match raw.parse::<i64>() {
        Ok(seconds) if seconds > 0 => Ok(Some(seconds)),
        _ => Err(AppError::invalid_inputs(format!(
            "{raw:?} is not a lifetime: a number of seconds greater than 0, or none"
        ))),
    }
}

/// Sets the lifetime of the employment tokens a client is issued from now on (tokens already
/// issued keep their expiry); `false` when no active client has that id.
pub async fn set_lifetime(db: &Db, client: &str, seconds: Option<i64>) -> AppResult<bool> {
    let Ok(client_id) = client.trim().parse::<i64>() else {
        return Err(AppError::invalid_inputs(format!("{client:?} is not a client id")));
    };
    let done = sqlx::query(sql::SET_LIFETIME)
        .bind(client_id)
        .bind(seconds)
        .execute(db)
        .await?;
    Ok(done.rows_affected() == 1)
}
