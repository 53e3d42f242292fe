//! Browser sessions of the authorization pages: a user who logged in on `/oauth/authorize` stays
//! logged in there for a while (the cookie holds the token; the database keeps its hash only).

use crate::db::{Db, now};
use crate::domain::auth::tokens;
use crate::errors::AppResult;

/// Opens a session of `seconds` for the user; the token goes to the browser, its hash to the
/// database.
pub async fn open(db: &Db, user_id: i64, seconds: i64) -> AppResult<String> {
    let (token, hash) = tokens::generate("rl_bs_")?;
    let created = now();
    sqlx::query("INSERT INTO browser_sessions (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(hash)
        .bind(user_id)
        .bind(created)
        .bind(created + seconds)
        .execute(db)
        .await?;
    Ok(token)
}

/// The user of a live session, with the name the consent page shows.
pub async fn user(db: &Db, token: &str) -> AppResult<Option<(i64, String)>> {
    let row: Option<(i64, String, String)> = sqlx::query_as(
        "SELECT u.id, u.first_name, u.last_name FROM browser_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = $1 AND s.expires_at > $2",
    )
    .bind(tokens::hash(token))
    .bind(now())
    .fetch_optional(db)
    .await?;
    Ok(row.map(|(id, first, last)| (id, format!("{first} {last}"))))
}
