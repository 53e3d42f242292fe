//! API keys of registered clients, sent in `X-API-KEY` on `/protected`.
//!
//! A key is 256 random bits behind a visible prefix per environment (`roadlog_live_` in
//! production, `roadlog_test_` in the sandbox), so that secret scanners recognise a leaked key and
//! a sandbox key is never mistaken for a production one. It is shown once and stored as a
//! SHA-256 hash: a slow password hash buys nothing against a random 256-bit value and would cost
//! every request tens of milliseconds. The presented key is compared, in constant time, with
//! every active key of the client, as the reference does.

use serde::Serialize;
use subtle::ConstantTimeEq;

use crate::config::Environment;
use crate::db::{Db, now};
use crate::domain::auth::tokens;
use crate::errors::{AppError, AppResult};

/// How often the last-use time of a key is written at most: a busy client costs one write a
/// minute, not one per request.
pub const LAST_USE_RESOLUTION_SECONDS: i64 = 60;

/// How many characters of a key `list` shows (the prefix and a few random ones).
const VISIBLE_CHARS: usize = 6;

/// The visible prefix of the keys of an environment.
pub fn prefix(environment: Environment) -> &'static str {
    match environment {
        Environment::Production => "roadlog_live_",
        Environment::Sandbox => "roadlog_test_",
    }
}

/// What `roadlog client api-key create` prints, once.
#[derive(Serialize, Debug)]
pub struct Created {
    pub id: i64,
    pub client_id: String,
    pub api_key: String,
}

/// A key as `roadlog client api-key list` shows it (never the key).
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Listed {
    pub id: i64,
    pub client_id: String,
    /// The first characters of the key, to tell keys apart.
    pub starts_with: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

fn client_id(raw: &str) -> AppResult<i64> {
    raw.trim()
        .parse::<i64>()
        .map_err(|_| AppError::invalid_inputs(format!("{raw:?} is not a client id")))
}

/// Creates a key for an active client.
pub async fn create(db: &Db, environment: Environment, client: &str) -> AppResult<Created> {
    let id = client_id(client)?;
    let (key, key_hash) = tokens::generate(prefix(environment))?;
    let starts_with: String = key.chars().take(prefix(environment).len() + VISIBLE_CHARS).collect();
    let mut tx = db.begin_write().await?;
    // The client row is the condition of the insert: a revoked or unknown client gets no key,
    // even if it is revoked concurrently.
    let inserted: Option<(i64,)> = sqlx::query_as(
        "INSERT INTO client_api_keys (client_id, key_hash, prefix, created_at)
         SELECT id, $2, $3, $4 FROM oauth_clients WHERE id = $1 AND revoked_at IS NULL
         RETURNING id",
    )
    .bind(id)
    .bind(&key_hash)
    .bind(&starts_with)
    .bind(now())
    .fetch_optional(&mut *tx)
    .await?;
    let Some((key_id,)) = inserted else {
        return Err(AppError::invalid_inputs(format!("no active client {id}")));
    };
    tx.commit().await?;
    Ok(Created {
        id: key_id,
        client_id: id.to_string(),
        api_key: key,
    })
}

/// The keys of a client, or of every client, oldest first.
pub async fn list(db: &Db, client: Option<&str>) -> AppResult<Vec<Listed>> {
    let filter = client.map(client_id).transpose()?;
    let rows: Vec<KeyRow> = sqlx::query_as(
        "SELECT id, client_id, prefix, created_at, last_used_at, revoked_at FROM client_api_keys
         WHERE CAST($1 AS BIGINT) IS NULL OR client_id = $1 ORDER BY id",
    )
    .bind(filter)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| Listed {
            id: row.id,
            client_id: row.client_id.to_string(),
            starts_with: row.prefix,
            created_at: row.created_at,
            last_used_at: row.last_used_at,
            revoked_at: row.revoked_at,
        })
        .collect())
}

/// A key as stored, without its hash.
#[derive(sqlx::FromRow)]
struct KeyRow {
    id: i64,
    client_id: i64,
    prefix: String,
    created_at: i64,
    last_used_at: Option<i64>,
    revoked_at: Option<i64>,
}

/// Revokes one key; false when there is no such active key.
pub async fn revoke(db: &Db, key_id: i64) -> AppResult<bool> {
    let mut tx = db.begin_write().await?;
    let done = sqlx::query("UPDATE client_api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL")
        .bind(key_id)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

/// A software vendor's client authenticated by one of its keys (`X-CLIENT-ID` + `X-API-KEY`):
/// a credential, not a caller. It acts for no user, so it never becomes an
/// [`Actor`](crate::domain::auth::Actor); the vendors' own operations check it as it is.
#[derive(Clone, Debug)]
pub struct Vendor {
    pub client_id: i64,
    pub client_name: String,
    /// The key that authenticated the request (for the audit trail).
    pub key_id: i64,
}

/// The client that `X-CLIENT-ID` names, if `X-API-KEY` is one of its active keys (the client
/// itself active) and carries this environment's prefix; `None` otherwise. Records the use.
pub async fn authenticate(db: &Db, environment: Environment, client: &str, key: &str) -> AppResult<Option<Vendor>> {
    let Ok(client_id) = client.trim().parse::<i64>() else {
        return Ok(None);
    };
    let key = key.trim();
    if !key.starts_with(prefix(environment)) {
        return Ok(None);
    }
    let presented = tokens::hash(key);
    let rows: Vec<(i64, String, Option<i64>, String)> = sqlx::query_as(
        "SELECT k.id, k.key_hash, k.last_used_at, c.name FROM client_api_keys k
         JOIN oauth_clients c ON c.id = k.client_id
         WHERE k.client_id = $1 AND k.revoked_at IS NULL AND c.revoked_at IS NULL",
    )
    .bind(client_id)
    .fetch_all(db)
    .await?;
    // Every key is compared, whichever matches: the time taken does not tell which one did.
    let mut found = None;
    for (id, stored, last_used_at, name) in rows {
        if bool::from(presented.as_bytes().ct_eq(stored.as_bytes())) {
            found = Some((id, last_used_at, name));
        }
    }
    let Some((key_id, last_used_at, client_name)) = found else {
        return Ok(None);
    };
    let at = now();
    if last_used_at.is_none_or(|t| t <= at - LAST_USE_RESOLUTION_SECONDS) {
        // The condition repeats the check, so that concurrent requests write once.
        sqlx::query(
            "UPDATE client_api_keys SET last_used_at = $2
             WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)",
        )
        .bind(key_id)
        .bind(at)
        .bind(at - LAST_USE_RESOLUTION_SECONDS)
        .execute(db)
        .await?;
    }
    Ok(Some(Vendor {
        client_id,
        client_name,
        key_id,
    }))
}
