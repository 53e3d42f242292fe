//! The signing keys of this environment, kept in the database: the root and CA keys are created
//! on first use, once per environment; each employee's card key is created once and reused.
//! Creation is `INSERT … ON CONFLICT DO NOTHING` followed by a read, so concurrent requests and
//! several server instances end up with the same keys. Every key is stored through the
//! [`Sealer`] (encrypted when a key-encryption key is configured).

use std::collections::HashMap;

use rayon::prelude::*;

use crate::db::{Db, PerBackend, now};
use crate::errors::{AppError, AppResult};

use super::c1b::{CaKey, CardKey, RootKey};
use super::key_pool;
use super::sealing::Sealer;

async fn stored(db: &Db, sealer: &Sealer, kind: &str) -> AppResult<Option<Vec<u8>>> {
    let row: Option<(Vec<u8>,)> = sqlx::query_as("SELECT key_bytes FROM tachograph_keys WHERE kind = $1")
        .bind(kind)
        .fetch_optional(db)
        .await?;
    row.map(|r| sealer.open(kind, &r.0)).transpose()
}

async fn store(db: &Db, sealer: &Sealer, kind: &str, bytes: Vec<u8>) -> AppResult<()> {
    let bytes = sealer.seal(kind, bytes)?;
    sqlx::query(
        "INSERT INTO tachograph_keys (kind, key_bytes, created_at) VALUES ($1, $2, $3) ON CONFLICT (kind) DO NOTHING",
    )
    .bind(kind)
    .bind(bytes)
    .bind(now())
    .execute(db)
    .await?;
    Ok(())
}

/// The environment's root key.
pub async fn root(db: &Db, sealer: &Sealer) -> AppResult<RootKey> {
    if stored(db, sealer, "root").await?.is_none() {
        let key = tokio::task::spawn_blocking(RootKey::generate)
            .await
            .map_err(AppError::internal)?;
        store(db, sealer, "root", key.to_bytes()).await?;
    }
    let bytes = stored(db, sealer, "root")
        .await?
        .ok_or_else(|| AppError::internal("root key vanished"))?;
    RootKey::from_bytes(&bytes).map_err(|e| AppError::internal(e.0))
}

/// The environment's member-state-level CA key, certified by the root.
pub async fn ca(db: &Db, sealer: &Sealer) -> AppResult<CaKey> {
    if stored(db, sealer, "ca").await?.is_none() {
        let root = root(db, sealer).await?;
        let key = tokio::task::spawn_blocking(move || CaKey::generate_signed_by(&root))
            .await
            .map_err(AppError::internal)?;
        store(db, sealer, "ca", key.to_bytes()).await?;
    }
    let bytes = stored(db, sealer, "ca")
        .await?
        .ok_or_else(|| AppError::internal("CA key vanished"))?;
    CaKey::from_bytes(&bytes).map_err(|e| AppError::internal(e.0))
}

/// The card keys of these employees, given to those who have none yet: taken from the pool of
/// keys generated ahead ([`key_pool`]), and what it lacks generated now on every core (RSA key
/// generation is the slow part of a first export).
pub async fn card_keys(db: &Db, sealer: &Sealer, user_ids: &[i64]) -> AppResult<HashMap<i64, CardKey>> {
    let mut keys = read_card_keys(db, sealer, user_ids).await?;
    let missing: Vec<i64> = user_ids.iter().copied().filter(|u| !keys.contains_key(u)).collect();
    if !missing.is_empty() {
        let pooled = key_pool::take(db, sealer, missing.len()).await?;
        let (from_pool, to_generate) = missing.split_at(pooled.len());
        let mut generated: Vec<(i64, Vec<u8>)> = from_pool
            .iter()
            .zip(pooled)
            .map(|(user, key)| (*user, key.to_bytes()))
            .collect();
        let to_generate = to_generate.to_vec();
        generated.extend(
            tokio::task::spawn_blocking(move || {
                to_generate
                    .par_iter()
                    .map(|user| (*user, CardKey::generate().to_bytes()))
                    .collect::<Vec<_>>()
            })
            .await
            .map_err(AppError::internal)?,
        );
        let mut tx = db.begin_write().await?;
        for (user_id, bytes) in generated {
            sqlx::query(
                "INSERT INTO tachograph_card_keys (user_id, key_bytes, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id) DO NOTHING",
            )
            .bind(user_id)
            .bind(sealer.seal(&format!("card:{user_id}"), bytes)?)
            .bind(now())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        keys = read_card_keys(db, sealer, user_ids).await?;
    }
    Ok(keys)
}

crate::statements! {
    /// The sealed card keys of the users.
    pub const CARD_KEYS_OF: PerBackend =
        crate::per_backend!("SELECT user_id, key_bytes FROM tachograph_card_keys WHERE ", ["user_id" in 1]);
}

async fn read_card_keys(db: &Db, sealer: &Sealer, user_ids: &[i64]) -> AppResult<HashMap<i64, CardKey>> {
    let mut keys = HashMap::new();
    for chunk in user_ids.chunks(500) {
        let query = sqlx::query_as::<_, (i64, Vec<u8>)>(db.sql(CARD_KEYS_OF)).bind(crate::db::id_list(chunk));
        for (user_id, bytes) in query.fetch_all(db).await? {
            let bytes = sealer.open(&format!("card:{user_id}"), &bytes)?;
            keys.insert(
                user_id,
                CardKey::from_bytes(&bytes).map_err(|e| AppError::internal(e.0))?,
            );
        }
    }
    Ok(keys)
}

/// At start-up: encrypts the keys stored in clear once a key-encryption key is configured, and
/// refuses to go on without one when keys are already encrypted (exports would fail later).
pub async fn seal_stored_keys(db: &Db, sealer: &Sealer) -> AppResult<usize> {
    if !sealer.is_configured() {
        let root: Option<(Vec<u8>,)> = sqlx::query_as("SELECT key_bytes FROM tachograph_keys WHERE kind = 'root'")
            .fetch_optional(db)
            .await?;
        if root.is_some_and(|(bytes,)| Sealer::is_sealed(&bytes)) {
            return Err(AppError::internal(
                "the signing keys are encrypted: configure ROADLOG_KEY_ENCRYPTION_KEY",
            ));
        }
        return Ok(0);
    }
    let mut sealed = 0;
    let mut tx = db.begin_write().await?;
    let environment: Vec<(String, Vec<u8>)> = sqlx::query_as("SELECT kind, key_bytes FROM tachograph_keys")
        .fetch_all(&mut *tx)
        .await?;
    for (kind, bytes) in environment.into_iter().filter(|(_, b)| !Sealer::is_sealed(b)) {
        sqlx::query("UPDATE tachograph_keys SET key_bytes = $1 WHERE kind = $2")
            .bind(sealer.seal(&kind, bytes)?)
            .bind(&kind)
            .execute(&mut *tx)
            .await?;
        sealed += 1;
    }
    let cards: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT user_id, key_bytes FROM tachograph_card_keys")
        .fetch_all(&mut *tx)
        .await?;
    for (user_id, bytes) in cards.into_iter().filter(|(_, b)| !Sealer::is_sealed(b)) {
        sqlx::query("UPDATE tachograph_card_keys SET key_bytes = $1 WHERE user_id = $2")
            .bind(sealer.seal(&format!("card:{user_id}"), bytes)?)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        sealed += 1;
    }
    sealed += key_pool::seal_stored(&mut tx, sealer).await?;
    // The second factor's secrets are sealed with the same key, the same way.
    sealed += crate::domain::users::totp::credential::seal_stored(&mut tx, sealer).await?;
    tx.commit().await?;
    // A wrong key would only show at the next export: find out now.
    stored(db, sealer, "root").await?;
    Ok(sealed)
}
