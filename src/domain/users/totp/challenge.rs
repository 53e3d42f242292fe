//! The login's challenge: after a right password, an account with a second factor gets a token
//! that proves only that, for [`CHALLENGE_SECONDS`]; with a right code it becomes a login. The
//! token is random, kept as its SHA-256 hash in a table of its own (no bearer lookup reads it, so
//! it opens no API), bound to its user, and spent by the login it completes. A wrong code leaves
//! it usable until it expires, under the limit of wrong codes of the user.

use crate::db::{Db, now};
use crate::domain::auth::tokens;
use crate::domain::export::sealing::Sealer;
use crate::errors::{AppError, AppResult};

use super::proof::{self, Proof};

/// Lifetime of a challenge, in seconds.
pub const CHALLENGE_SECONDS: i64 = 5 * 60;

/// The longest token read: longer input is refused before any work.
const MAX_TOKEN_CHARS: usize = 128;

/// A new challenge for a user whose password was right.
pub async fn issue(db: &Db, user_id: i64) -> AppResult<String> {
    let (token, hash) = tokens::generate("rl_tc_")?;
    let at = now();
    let mut tx = db.begin_write().await?;
    sqlx::query("DELETE FROM totp_challenges WHERE expires_at <= $1")
        .bind(at)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO totp_challenges (token_hash, user_id, created_at, expires_at, used_at)
         VALUES ($1, $2, $3, $4, NULL)",
    )
    .bind(hash)
    .bind(user_id)
    .bind(at)
    .bind(at + CHALLENGE_SECONDS)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(token)
}

fn invalid_challenge() -> AppError {
    AppError::authentication("Invalid or expired TOTP challenge token")
}

/// Completes a login: the challenge's user when `code` is right (a TOTP code or an unused
/// recovery code); the challenge is spent then.
pub async fn complete(db: &Db, sealer: &Sealer, token: &str, code: &str) -> AppResult<i64> {
    if token.len() > MAX_TOKEN_CHARS {
        return Err(invalid_challenge());
    }
    let hash = tokens::hash(token);
    let user: Option<(i64,)> = sqlx::query_as(
        "SELECT user_id FROM totp_challenges WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2",
    )
    .bind(&hash)
    .bind(now())
    .fetch_optional(db)
    .await?;
    let Some((user_id,)) = user else {
        return Err(invalid_challenge());
    };
    let mut tx = db.begin_write().await?;
    let credential = match proof::lock(&mut tx, sealer, user_id).await? {
        Some(credential) if credential.enabled => credential,
        _ => return Err(invalid_challenge()),
    };
    let proof = proof::check(&mut tx, user_id, &credential, code, true).await?;
    if proof == Proof::Right {
        // Spent under the user's lock: of two logins with one challenge, one only gets through.
        let spent = sqlx::query(
            "UPDATE totp_challenges SET used_at = $2
             WHERE token_hash = $1 AND user_id = $3 AND used_at IS NULL AND expires_at > $2",
        )
        .bind(&hash)
        .bind(now())
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
        if spent.rows_affected() != 1 {
            return Err(invalid_challenge());
        }
    }
    tx.commit().await?;
    match proof {
        Proof::Right => Ok(user_id),
        Proof::Wrong => Err(proof::wrong_code()),
    }
}
