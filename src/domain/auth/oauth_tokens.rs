//! Access tokens issued to OAuth clients: random, stored as SHA-256 hashes, acting as the user
//! with the user's rights, until they expire (never by default) or are revoked. They are read
//! where the caller of a request is found (`caller::sql::OAUTH_TOKEN`).

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::{Actor, tokens};
use crate::errors::AppResult;

/// Issues a token to a client for a user; `lifetime` in seconds, `None` for no expiry.
pub async fn issue(db: &Db, client_id: i64, user_id: i64, lifetime: Option<i64>) -> AppResult<String> {
    let mut conn = db.pool.acquire().await?;
    Ok(issue_on(&mut conn, client_id, user_id, lifetime).await?.0)
}

/// [`issue`] on a given connection (inside the transaction that spends the authorization code
/// the token is exchanged for), also answering the token's row id.
pub async fn issue_on(
    conn: &mut AnyConnection,
    client_id: i64,
    user_id: i64,
    lifetime: Option<i64>,
) -> AppResult<(String, i64)> {
    let (token, hash) = tokens::generate("rl_oat_")?;
    let issued = now();
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO oauth_tokens (token_hash, client_id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING id",
    )
    .bind(hash)
    .bind(client_id)
    .bind(user_id)
    .bind(issued)
    .bind(lifetime.map(|l| issued + l))
    .fetch_one(&mut *conn)
    .await?;
    Ok((token, id))
}

/// The clients that hold a live token for the actor: `(client id, name)`; with an employment
/// token, the vendor's own client only (the user's other applications are none of its business).
pub async fn authorized_clients(db: &Db, actor: Actor) -> AppResult<Vec<(i64, String)>> {
    let rows: Vec<(i64, String)> = sqlx::query_as(
        "SELECT c.id, c.name FROM oauth_clients c
         WHERE c.revoked_at IS NULL AND (CAST($3 AS BIGINT) IS NULL OR c.id = $3) AND EXISTS (
            SELECT 1 FROM oauth_tokens t WHERE t.client_id = c.id AND t.user_id = $1 AND t.revoked_at IS NULL
              AND (t.expires_at IS NULL OR t.expires_at > $2))
         ORDER BY c.name, c.id",
    )
    .bind(actor.user_id)
    .bind(now())
    .bind(actor.scope.client())
    .fetch_all(db)
    .await?;
    Ok(rows)
}

/// Revokes every token the client holds for the actor; false when it held none — or when the
/// actor's scope does not reach the client (an employment token reaches its vendor's only), so
/// that software cannot tell the user's other applications from unknown ids.
pub async fn revoke_for_user(db: &Db, actor: Actor, client_id: i64) -> AppResult<bool> {
    if !actor.scope.allows_client(client_id) {
        return Ok(false);
    }
    let done = sqlx::query(
        "UPDATE oauth_tokens SET revoked_at = $3 WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL",
    )
    .bind(actor.user_id)
    .bind(client_id)
    .bind(now())
    .execute(db)
    .await?;
    Ok(done.rows_affected() > 0)
}
