//! Card keys generated ahead of need. Generating an RSA-1024 card key is slow, and a company's
//! first export needs one per employee, so generating them would be most of that export's time
//! (`bench/README.md`, "The C1B export", has the figures). A background task ([`keep_filled`]) keeps `tachograph_card_key_pool` at its
//! configured size, one key at a time on one blocking thread (the other core keeps serving
//! requests); an export [`take`]s what it needs and generates only what the pool lacks.
//!
//! Several instances on one database share the pool: a key is deleted by the transaction that
//! takes it (on PostgreSQL `FOR UPDATE SKIP LOCKED`, so two exports never wait on each other's
//! keys), and each instance refills up to the size, overshooting by at most one batch each.

use std::time::Duration;

use tokio::sync::watch;

use crate::db::{Db, PerBackend, now};
use crate::errors::{AppError, AppResult};

use super::c1b::CardKey;
use super::sealing::Sealer;

/// What the keys of the pool are sealed for (they belong to no employee yet).
const SEALED_FOR: &str = "card-pool";

/// Keys generated between two writes to the pool.
const BATCH: usize = 16;

/// How often a full pool is looked at again.
const FULL_PAUSE: Duration = Duration::from_secs(5);

/// After a database error, before trying again.
const ERROR_PAUSE: Duration = Duration::from_secs(30);

crate::statements! {
    pub const COUNT: &str = "SELECT COUNT(*) FROM tachograph_card_key_pool";
    pub const INSERT: &str = "INSERT INTO tachograph_card_key_pool (key_bytes, created_at) VALUES ($1, $2)";
    /// The oldest `$1` keys, deleted and returned.
    pub const TAKE: PerBackend = PerBackend {
        sqlite: "DELETE FROM tachograph_card_key_pool WHERE id IN \
             (SELECT id FROM tachograph_card_key_pool ORDER BY id LIMIT $1) RETURNING key_bytes",
        postgres: "DELETE FROM tachograph_card_key_pool WHERE id IN \
             (SELECT id FROM tachograph_card_key_pool ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING key_bytes",
    };
    pub const ALL: &str = "SELECT id, key_bytes FROM tachograph_card_key_pool";
    pub const RESEAL: &str = "UPDATE tachograph_card_key_pool SET key_bytes = $1 WHERE id = $2";
}

/// Keys in the pool now.
pub async fn size(db: &Db) -> AppResult<usize> {
    let (count,): (i64,) = sqlx::query_as(COUNT).fetch_one(db).await?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// Takes up to `wanted` keys out of the pool (fewer when it holds fewer), committed at once: a
/// key taken by an export that fails afterwards is not reused, which costs a key, never a
/// secret shared by two employees.
pub async fn take(db: &Db, sealer: &Sealer, wanted: usize) -> AppResult<Vec<CardKey>> {
    if wanted == 0 {
        return Ok(Vec::new());
    }
    let mut tx = db.begin_write().await?;
    let rows: Vec<(Vec<u8>,)> = sqlx::query_as(db.sql(TAKE))
        .bind(i64::try_from(wanted).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    rows.into_iter()
        .map(|(bytes,)| {
            let plain = sealer.open(SEALED_FOR, &bytes)?;
            CardKey::from_bytes(&plain).map_err(|e| AppError::internal(e.0))
        })
        .collect()
}

/// Generates up to one batch of the keys the pool lacks to hold `target`; returns how many.
pub async fn refill_once(db: &Db, sealer: &Sealer, target: usize) -> AppResult<usize> {
    let missing = target.saturating_sub(size(db).await?).min(BATCH);
    if missing == 0 {
        return Ok(0);
    }
    let keys =
        tokio::task::spawn_blocking(move || (0..missing).map(|_| CardKey::generate().to_bytes()).collect::<Vec<_>>())
            .await
            .map_err(AppError::internal)?;
    let mut tx = db.begin_write().await?;
    for bytes in keys {
        sqlx::query(INSERT)
            .bind(sealer.seal(SEALED_FOR, bytes)?)
            .bind(now())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(missing)
}

/// Keeps the pool at `target` keys until `stopped` turns true.
pub async fn keep_filled(db: Db, sealer: Sealer, target: usize, mut stopped: watch::Receiver<bool>) {
    loop {
        let pause = match refill_once(&db, &sealer, target).await {
            Ok(0) => FULL_PAUSE,
            Ok(added) => {
                tracing::debug!(added, "card key pool refilled");
                Duration::ZERO
            }
            Err(error) => {
                tracing::warn!(%error, "card key pool not refilled");
                ERROR_PAUSE
            }
        };
        if *stopped.borrow() {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stopped.wait_for(|stop| *stop) => return,
        }
    }
}

/// Seals the pool's keys stored in clear (a key-encryption key was configured since they were
/// generated), inside the caller's transaction; returns how many.
pub async fn seal_stored(conn: &mut sqlx::AnyConnection, sealer: &Sealer) -> AppResult<usize> {
    let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as(ALL).fetch_all(&mut *conn).await?;
    let mut sealed = 0;
    for (id, bytes) in rows.into_iter().filter(|(_, b)| !Sealer::is_sealed(b)) {
        sqlx::query(RESEAL)
            .bind(sealer.seal(SEALED_FOR, bytes)?)
            .bind(id)
            .execute(&mut *conn)
            .await?;
        sealed += 1;
    }
    Ok(sealed)
}
