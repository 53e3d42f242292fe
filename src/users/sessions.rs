//! Login sessions: access and refresh tokens, rotation, logout, and the lock after repeated
//! wrong passwords.
//!
//! A session is the family of tokens that descend from one login. A refresh token is used once:
//! using it again means it was stolen (or replayed), so the whole family is revoked (RFC 9700
//! §4.14.2). Every state change is a single conditional `UPDATE`, atomic on both databases, so
//! two concurrent refreshes with the same token cannot both succeed.

use crate::auth::{password, tokens};
use crate::config::Environment;
use crate::errors::{AppError, AppResult};
use crate::storage::{Db, now};

/// Wrong passwords in a row that lock an account.
pub const MAX_FAILED_LOGINS: i64 = 10;
/// How long a locked account stays locked.
pub const LOCK_SECONDS: i64 = 15 * 60;
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

async fn issue_pair(db: &Db, environment: Environment, user_id: i64, session_id: i64) -> AppResult<TokenPair> {
    let (access_token, access_hash) = tokens::generate("rl_at_")?;
    let (refresh_token, refresh_hash) = tokens::generate("rl_rt_")?;
    let created = now();
    let mut tx = db.begin_write().await?;
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
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(TokenPair {
        access_token,
        refresh_token,
    })
}

/// Opens a new session for a user (after sign-up or login).
pub async fn open(db: &Db, environment: Environment, user_id: i64) -> AppResult<TokenPair> {
    let (session_id,): (i64,) =
        sqlx::query_as("INSERT INTO sessions (user_id, created_at) VALUES ($1, $2) RETURNING id")
            .bind(user_id)
            .bind(now())
            .fetch_one(&db.pool)
            .await?;
    issue_pair(db, environment, user_id, session_id).await
}

fn wrong_credentials() -> AppError {
    AppError::authentication("Wrong email/password combination").with("reason", "BAD_PASSWORD")
}

/// Checks an e-mail and password and opens a session.
pub async fn login(db: &Db, environment: Environment, email: &str, given_password: String) -> AppResult<TokenPair> {
    let user_id = verify_credentials(db, email, given_password).await?;
    open(db, environment, user_id).await
}

/// Checks an e-mail and password (the lock after repeated failures included) and answers the
/// user; used by the API login and the OAuth login page alike.
pub async fn verify_credentials(db: &Db, email: &str, given_password: String) -> AppResult<i64> {
    let account: Option<(i64, String, Option<i64>)> =
        sqlx::query_as("SELECT id, password_hash, locked_until FROM users WHERE email = $1")
            .bind(email)
            .fetch_optional(&db.pool)
            .await?;
    let Some((user_id, stored_hash, locked_until)) = account else {
        password::verify_against_nothing(given_password).await;
        return Err(wrong_credentials());
    };
    let current = now();
    if let Some(until) = locked_until.filter(|until| *until > current) {
        return Err(locked(until));
    }
    if password::verify(given_password, stored_hash).await? {
        sqlx::query("UPDATE users SET failed_login_count = 0, locked_until = NULL WHERE id = $1")
            .bind(user_id)
            .execute(&db.pool)
            .await?;
        return Ok(user_id);
    }
    // Count the failure and lock at the threshold in one statement, so that concurrent guesses
    // are all counted. The counter restarts once the lock is set.
    let (count, until): (i64, Option<i64>) = sqlx::query_as(
        "UPDATE users SET
            locked_until = CASE WHEN failed_login_count + 1 >= $2 THEN $3 ELSE locked_until END,
            failed_login_count = CASE WHEN failed_login_count + 1 >= $2 THEN 0 ELSE failed_login_count + 1 END
         WHERE id = $1 RETURNING failed_login_count, locked_until",
    )
    .bind(user_id)
    .bind(MAX_FAILED_LOGINS)
    .bind(current + LOCK_SECONDS)
    .fetch_one(&db.pool)
    .await?;
    match until {
        Some(until) if until > current => Err(locked(until)),
        _ => Err(wrong_credentials()
            .with("nb_bad_tries", count)
            .with("max_possible_tries", MAX_FAILED_LOGINS)),
    }
}

fn locked(until: i64) -> AppError {
    AppError::authentication("Account temporarily locked after too many wrong passwords")
        .with("reason", "ACCOUNT_LOCKED")
        .with("lockedUntil", until)
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
    let spent: Option<(i64, i64)> = sqlx::query_as(
        "UPDATE auth_tokens SET used_at = $2
         WHERE token_hash = $1 AND kind = 'refresh' AND used_at IS NULL AND expires_at > $2
           AND session_id IN (SELECT id FROM sessions WHERE revoked_at IS NULL)
         RETURNING user_id, session_id",
    )
    .bind(&hash)
    .bind(current)
    .fetch_optional(&db.pool)
    .await?;
    if let Some((user_id, session_id)) = spent {
        return issue_pair(db, environment, user_id, session_id).await;
    }
    let known: Option<(i64, Option<i64>, i64)> = sqlx::query_as(
        "SELECT session_id, used_at, expires_at FROM auth_tokens WHERE token_hash = $1 AND kind = 'refresh'",
    )
    .bind(&hash)
    .fetch_optional(&db.pool)
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
        .execute(&db.pool)
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
    .fetch_optional(&db.pool)
    .await?;
    match row {
        Some((session_id, _)) => revoke_session(db, session_id).await,
        None => Err(AppError::authentication("Invalid token")),
    }
}
