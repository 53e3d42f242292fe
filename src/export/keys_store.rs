//! The signing keys of this environment, kept in the database: the root and CA keys are created
//! on first use, once per environment; each employee's card key is created once and reused.
//! Creation is `INSERT … ON CONFLICT DO NOTHING` followed by a read, so concurrent requests and
//! several server instances end up with the same keys.

use std::collections::HashMap;

use crate::errors::{AppError, AppResult};
use crate::storage::{Db, now};

use super::c1b::{CaKey, CardKey, RootKey};

async fn stored(db: &Db, kind: &str) -> AppResult<Option<Vec<u8>>> {
    let row: Option<(Vec<u8>,)> = sqlx::query_as("SELECT key_bytes FROM tachograph_keys WHERE kind = $1")
        .bind(kind)
        .fetch_optional(&db.pool)
        .await?;
    Ok(row.map(|r| r.0))
}

async fn store(db: &Db, kind: &str, bytes: Vec<u8>) -> AppResult<()> {
    sqlx::query(
        "INSERT INTO tachograph_keys (kind, key_bytes, created_at) VALUES ($1, $2, $3) ON CONFLICT (kind) DO NOTHING",
    )
    .bind(kind)
    .bind(bytes)
    .bind(now())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// The environment's root key.
pub async fn root(db: &Db) -> AppResult<RootKey> {
    if stored(db, "root").await?.is_none() {
        let key = tokio::task::spawn_blocking(RootKey::generate)
            .await
            .map_err(AppError::internal)?;
        store(db, "root", key.to_bytes()).await?;
    }
    let bytes = stored(db, "root")
        .await?
        .ok_or_else(|| AppError::internal("root key vanished"))?;
    RootKey::from_bytes(&bytes).map_err(|e| AppError::internal(e.0))
}

/// The environment's member-state-level CA key, certified by the root.
pub async fn ca(db: &Db) -> AppResult<CaKey> {
    if stored(db, "ca").await?.is_none() {
        let root = root(db).await?;
        let key = tokio::task::spawn_blocking(move || CaKey::generate_signed_by(&root))
            .await
            .map_err(AppError::internal)?;
        store(db, "ca", key.to_bytes()).await?;
    }
    let bytes = stored(db, "ca")
        .await?
        .ok_or_else(|| AppError::internal("CA key vanished"))?;
    CaKey::from_bytes(&bytes).map_err(|e| AppError::internal(e.0))
}

/// The card keys of these employees, created for those who have none yet (in parallel: RSA key
/// generation is the slow part of a first signed export).
pub async fn card_keys(db: &Db, user_ids: &[i64]) -> AppResult<HashMap<i64, CardKey>> {
    let mut keys = read_card_keys(db, user_ids).await?;
    let missing: Vec<i64> = user_ids.iter().copied().filter(|u| !keys.contains_key(u)).collect();
    if !missing.is_empty() {
        let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let generated = tokio::task::spawn_blocking(move || {
            std::thread::scope(|scope| {
                let chunks: Vec<_> = missing
                    .chunks(missing.len().div_ceil(workers))
                    .map(|chunk| {
                        scope.spawn(move || {
                            chunk
                                .iter()
                                .map(|u| (*u, CardKey::generate().to_bytes()))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                chunks
                    .into_iter()
                    .flat_map(|c| c.join().unwrap_or_default())
                    .collect::<Vec<_>>()
            })
        })
        .await
        .map_err(AppError::internal)?;
        let mut tx = db.begin_write().await?;
        for (user_id, bytes) in generated {
            sqlx::query(
                "INSERT INTO tachograph_card_keys (user_id, key_bytes, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id) DO NOTHING",
            )
            .bind(user_id)
            .bind(bytes)
            .bind(now())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        keys = read_card_keys(db, user_ids).await?;
    }
    Ok(keys)
}

async fn read_card_keys(db: &Db, user_ids: &[i64]) -> AppResult<HashMap<i64, CardKey>> {
    let mut keys = HashMap::new();
    for chunk in user_ids.chunks(500) {
        let sql = sqlx::AssertSqlSafe(format!(
            "SELECT user_id, key_bytes FROM tachograph_card_keys WHERE {}",
            db.ids_in("user_id", 1)
        ));
        let query = sqlx::query_as::<_, (i64, Vec<u8>)>(sql).bind(crate::storage::id_list(chunk));
        for (user_id, bytes) in query.fetch_all(&db.pool).await? {
            keys.insert(
                user_id,
                CardKey::from_bytes(&bytes).map_err(|e| AppError::internal(e.0))?,
            );
        }
    }
    Ok(keys)
}
