//! Login sessions: access and refresh tokens, rotation, logout, and the password check under
//! the login throttle.
//!
//! A session is the family of tokens that descend from one login. A refresh token is used once:
//! using it again means it was stolen (or replayed), so the whole family is revoked (RFC 9700
//! §4.14.2). Spending a refresh token is a conditional `UPDATE`, atomic on both databases, so two
//! concurrent refreshes with the same token cannot both succeed; it shares its transaction with
//! the writing of the new pair, so a failure leaves the old token usable.

use sqlx::AnyConnection;

use crate::config::Environment;
use crate::db::{Db, now};
use crate::domain::auth::{password, tokens};
use crate::errors::{AppError, AppResult};

use super::throttle;

/// Refresh tokens live 30 days, as the reference's.
pub const REFRESH_TOKEN_SECONDS: i64 = 30 * 24 * 3600;

/// Access-token lifetime per environment, as the reference's (1 day in the sandbox so that
/// integrators are not interrupted while testing, 16 hours in production).
pub fn access_token_seconds(environment: Environment) -> i64 {
    match environment {
        Environment::Sandbox => 24 * 3600,
        Environment::Production => 16 * 3600,
    }
}

/// The two tokens handed to the client.
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
}

/// Writes a new pair of the session on `conn` (the caller's transaction).
async fn issue_pair(
    conn: &mut AnyConnection,
    environment: Environment,
    user_id: i64,
    session_id: i64,
) -> AppResult<TokenPair> {
    let (access_token, access_hash) = tokens::generate("rl_at_")?;
    let (refresh_token, refresh_hash) = tokens::generate("rl_rt_")?;
    let created = now();
    for (hash, kind, lifetime) in [
        (&access_hash, "access", access_token_seconds(environment)),
        (&refresh_hash, "refresh", REFRESH_TOKEN_SECONDS),
    ] {
        sqlx::query(
            "INSERT INTO auth_tokens (token_hash, kind, session_id, user_id, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(hash)
        .bind(kind)
        .bind(session_id)
        .bind(user_id)
        .bind(created)
        .bind(created + lifetime)
        .execute(&mut *conn)
        .await?;
    }
    Ok(TokenPair {
        access_token,
        refresh_token,
    })
}

/// Opens a new session for a user (after sign-up or login).
pub async fn open(db: &Db, environment: Environment, user_id: i64) -> AppResult<TokenPair> {
    let mut tx = db.begin_write().await?;
    let (session_id,): (i64,) =
        sqlx::query_as("INSERT INTO sessions (user_id, created_at) VALUES ($1, $2) RETURNING id")
            .bind(user_id)
            .bind(now())
            .fetch_one(&mut *tx)
            .await?;
    let pair = issue_pair(&mut tx, environment, user_id, session_id).await?;
    tx.commit().await?;
    Ok(pair)
}

/// What a right password gives.
pub enum Login {
    /// A new session.
    Session(TokenPair),
    /// The account has a second factor: the challenge to complete with a code
    /// (`totp::challenge::complete`).
    SecondFactor { challenge: String },
}

/// Checks an e-mail and password and opens a session, or, for an account with a second factor,
/// issues the challenge that a code turns into one.
pub async fn login(
    db: &Db,
    environment: Environment,
    email: &str,
    given_password: String,
    address: &str,
    hashing: &password::Hashing,
) -> AppResult<Login> {
    let user_id = verify_credentials(db, email, given_password, address, hashing).await?;
    if super::totp::is_enabled(db, user_id).await? {
        return Ok(Login::SecondFactor {
            challenge: super::totp::challenge::issue(db, user_id).await?,
        });
    }
    Ok(Login::Session(open(db, environment, user_id).await?))
}

/// Checks an e-mail and password from a client address under the login throttle (see
/// [`super::throttle`]) and answers the user; used by the API login and the OAuth login page
/// alike. An unknown e-mail costs the same hash and gets the same answer as a wrong password.
pub async fn verify_credentials(
    db: &Db,
    email: &str,
    given_password: String,
    address: &str,
    hashing: &password::Hashing,
) -> AppResult<i64> {
    throttle::check(db, email, address).await?;
    let account: Option<(i64, String)> = sqlx::query_as("SELECT id, password_hash FROM users WHERE email = $1")
        .bind(email)
        .fetch_optional(db)
        .await?;
    let matched = match account {
        Some((user_id, stored_hash)) => password::verify(given_password, stored_hash, hashing)
            .await?
            .then_some(user_id),
        None => {
            password::verify_against_nothing(given_password, hashing).await;
            None
        }
    };
    match matched {
        Some(user_id) => {
            throttle::succeeded(db, email, address).await?;
            Ok(user_id)
        }
        None => Err(throttle::failed(db, email, address).await?),
    }
}

/// Exchanges a refresh token for a new pair; the old refresh token is spent.
pub async fn refresh(db: &Db, environment: Environment, refresh_token: Option<&str>) -> AppResult<TokenPair> {
    let Some(token) = refresh_token else {
        return Err(AppError::authentication(
            "Unable to find a valid cookie or authorization header",
        ));
    };
    let hash = tokens::hash(token);
    let current = now();
    // Spent and replaced in one transaction: a failure to write the new pair leaves the old
    // refresh token unspent, so the session is never lost half-way.
    let mut tx = db.begin_write().await?;
    let spent: Option<(i64, i64)> = sqlx::query_as(
        "UPDATE auth_tokens SET used_at = $2
         WHERE token_hash = $1 AND kind = 'refresh' AND used_at IS NULL AND expires_at > $2
           AND session_id IN (SELECT id FROM sessions WHERE revoked_at IS NULL)
         RETURNING user_id, session_id",
    )
    .bind(&hash)
    .bind(current)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((user_id, session_id)) = spent {
        let pair = issue_pair(&mut tx, environment, user_id, session_id).await?;
        tx.commit().await?;
        return Ok(pair);
    }
    drop(tx);
    let known: Option<(i64, Option<i64>, i64)> = sqlx::query_as(
        "SELECT session_id, used_at, expires_at FROM auth_tokens WHERE token_hash = $1 AND kind = 'refresh'",
    )
    .bind(&hash)
    .fetch_optional(db)
    .await?;
    match known {
        Some((session_id, Some(_), _)) => {
            revoke_session(db, session_id).await?;
            tracing::warn!(session_id, "refresh token reused: session revoked");
            Err(AppError::authentication("Refresh token is invalid"))
        }
        Some((_, None, expires_at)) if expires_at <= current => Err(AppError::authentication("Expired refresh token")),
        _ => Err(AppError::authentication("Refresh token is invalid")),
    }
}

async fn revoke_session(db: &Db, session_id: i64) -> AppResult<()> {
    sqlx::query("UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL")
        .bind(session_id)
        .bind(now())
        .execute(db)
        .await?;
    Ok(())
}

/// Ends every login session of a user but `keep` (the one of the request that changed the
/// password, if any), and every browser session of the authorization pages, inside the caller's
/// transaction: after a new password only the person who chose it stays logged in.
pub async fn end_all(conn: &mut AnyConnection, user_id: i64, keep: Option<i64>) -> AppResult<()> {
    let at = now();
    sqlx::query("UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL AND id <> $3")
        .bind(user_id)
        .bind(at)
        // Session ids are positive: -1 keeps none.
        .bind(keep.unwrap_or(-1))
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM browser_sessions WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Ends the session of the token sent (access or refresh token): every token of it stops working.
pub async fn logout(db: &Db, token: Option<&str>) -> AppResult<()> {
    let Some(token) = token else {
        return Err(AppError::authentication(
            "Unable to find a valid cookie or authorization header",
        ));
    };
    let row: Option<(i64, i64)> = sqlx::query_as(
        "SELECT t.session_id, t.expires_at FROM auth_tokens t JOIN sessions s ON s.id = t.session_id
         WHERE t.token_hash = $1 AND s.revoked_at IS NULL",
    )
    .bind(tokens::hash(token))
    .fetch_optional(db)
    .await?;
    match row {
        Some((session_id, _)) => revoke_session(db, session_id).await,
        None => Err(AppError::authentication("Invalid token")),
    }
}
