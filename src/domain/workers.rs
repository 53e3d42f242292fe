//! The write lock of a worker. Every change to a worker's recorded time or employments runs in
//! one write transaction that first locks the workers it touches, in id order (so that two
//! transactions never wait on each other in a cycle): concurrent changes to one worker are
//! serialised, and the rules (overlaps, interleaving, primary employments) are checked against
//! committed data, not against what another transaction is about to write.

use sqlx::AnyConnection;

use crate::db::{Backend, PerBackend};
use crate::errors::AppResult;

crate::statements! {
    /// Reads (and on PostgreSQL locks) the worker's row. `FOR NO KEY UPDATE`, not `FOR
    /// UPDATE`: the workers' locks exclude each other all the same, but not the key-share locks
    /// that foreign keys take on the row. With `FOR UPDATE`, the operator's rebuild (which
    /// locks the admin too, a worker of the company) and the admin's validation of another
    /// worker (locked, then inserting rows that name the admin) would wait on each other: a
    /// deadlock, which PostgreSQL ends by aborting one of them.
    pub const LOCK: PerBackend = PerBackend {
        sqlite: "SELECT id FROM users WHERE id = $1",
        postgres: "SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE",
    };
}

/// Locks one worker for the rest of the transaction; false when there is no such user. On
/// PostgreSQL it is a row lock (`FOR NO KEY UPDATE`); on SQLite the write transaction already holds
/// the database's single write lock (`BEGIN IMMEDIATE`), so only the existence is checked.
pub async fn lock_one(conn: &mut AnyConnection, user_id: i64) -> AppResult<bool> {
    let sql = Backend::of(conn).sql(LOCK);
    let row: Option<(i64,)> = sqlx::query_as(sql).bind(user_id).fetch_optional(conn).await?;
    Ok(row.is_some())
}

/// Locks these workers for the rest of the transaction, each once and in id order (whatever
/// order they come in). Unknown users are left out (the permission checks refuse them).
///
/// A write that changes a worker's time opens its own transaction and locks first:
/// `let mut tx = db.begin_write().await?; workers::lock(&mut tx, &[worker]).await?;`, then
/// the checks and the writes on `tx`, then `tx.commit().await?`.
pub async fn lock(conn: &mut AnyConnection, users: &[i64]) -> AppResult<()> {
    let mut users = users.to_vec();
    users.sort_unstable();
    users.dedup();
    for user in users {
        lock_one(conn, user).await?;
    }
    Ok(())
}
