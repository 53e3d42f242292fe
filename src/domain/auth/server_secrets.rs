//! Secrets the server generates for itself: 32 random bytes per purpose, made by the first
//! instance that needs one and stored in the database, so that every instance of a deployment
//! holds the same and a restart keeps it.

use base64::Engine;

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::errors::{AppError, AppResult};

/// The secret of `name`, generated and stored the first time. Of two instances starting at
/// once, the first insert wins and both read it.
pub async fn get_or_create(db: &Db, name: &str) -> AppResult<[u8; 32]> {
    let mut conn = db.pool.acquire().await?;
    get_or_create_on(&mut conn, name).await
}

/// [`get_or_create`] on a connection, inside the caller's transaction if it runs one (the
/// unsubscribe links, signed as their e-mail is queued). A stored secret is only read.
pub async fn get_or_create_on(conn: &mut AnyConnection, name: &str) -> AppResult<[u8; 32]> {
    let stored: Option<(String,)> = sqlx::query_as("SELECT secret FROM server_secrets WHERE name = $1")
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    if let Some((stored,)) = stored {
        return decode(name, &stored);
    }
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(AppError::internal)?;
    sqlx::query(
        "INSERT INTO server_secrets (name, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .bind(base64::engine::general_purpose::STANDARD.encode(fresh))
    .bind(now())
    .execute(&mut *conn)
    .await?;
    let (stored,): (String,) = sqlx::query_as("SELECT secret FROM server_secrets WHERE name = $1")
        .bind(name)
        .fetch_one(&mut *conn)
        .await?;
    decode(name, &stored)
}

fn decode(name: &str, stored: &str) -> AppResult<[u8; 32]> {
    base64::engine::general_purpose::STANDARD
        .decode(stored.trim())
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .ok_or_else(|| AppError::internal(format!("the stored secret {name} is not 32 bytes of base64")))
}
