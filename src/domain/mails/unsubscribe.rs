//! The link at the end of an optional e-mail that stops that type of e-mail for its recipient
//! without logging in: `{public_url}/mail/unsubscribe?token=u<user>.<type>.<signature>`, the
//! signature an HMAC-SHA256 of the user and the type under a key of the server
//! (`server_secrets`), so nothing is stored per e-mail and every link of a user and type stays
//! valid. A link only ever stops e-mails (its owner resumes them with
//! `account.changeEmailOptOut`), so it needs no expiry.

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use sqlx::AnyConnection;

use crate::db::Db;
use crate::domain::auth::server_secrets;
use crate::errors::AppResult;
use crate::mail::kinds::MailType;

/// The key's name among the server's secrets.
const SECRET: &str = "mail-unsubscribe";

/// The longest token read (a real one is about 80 characters).
pub const MAX_TOKEN: usize = 200;

fn signature(key: &[u8; 32], user_id: i64, kind: MailType) -> String {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(format!("roadlog unsubscribe v1\0{user_id}\0{}", kind.as_str()).as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// The token of the user and the type.
pub fn token(key: &[u8; 32], user_id: i64, kind: MailType) -> String {
    format!("u{user_id}.{}.{}", kind.as_str(), signature(key, user_id, kind))
}

/// The user and the type a token stands for, if it is one this key signed.
pub fn verify(key: &[u8; 32], token: &str) -> Option<(i64, MailType)> {
    if token.len() > MAX_TOKEN {
        return None;
    }
    let mut parts = token.strip_prefix('u')?.splitn(3, '.');
    let user_id: i64 = parts.next()?.parse().ok()?;
    let kind = MailType::from_str_opt(parts.next()?)?;
    let given = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(parts.next()?)
        .ok()?;
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).ok()?;
    mac.update(format!("roadlog unsubscribe v1\0{user_id}\0{}", kind.as_str()).as_bytes());
    // The comparison takes the same time whatever bytes differ.
    mac.verify_slice(&given).ok()?;
    kind.optional().then_some((user_id, kind))
}

/// The link of an e-mail being queued, inside the caller's transaction.
pub async fn link(conn: &mut AnyConnection, public_url: &str, user_id: i64, kind: MailType) -> AppResult<String> {
    let key = server_secrets::get_or_create_on(conn, SECRET).await?;
    Ok(format!(
        "{}/mail/unsubscribe?token={}",
        public_url.trim_end_matches('/'),
        token(&key, user_id, kind)
    ))
}

/// What a token stands for, for the page that asks to confirm.
pub async fn lookup(db: &Db, token: &str) -> AppResult<Option<(i64, MailType)>> {
    let mut conn = db.pool.acquire().await?;
    let key = server_secrets::get_or_create_on(&mut conn, SECRET).await?;
    let Some((user_id, kind)) = verify(&key, token) else {
        return Ok(None);
    };
    let exists: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(&mut *conn)
        .await?;
    Ok(exists.map(|_| (user_id, kind)))
}

/// Stops the type of a valid token for its user; answers what it stopped (`None`: not a
/// valid token, nothing changed).
pub async fn stop(db: &Db, token: &str) -> AppResult<Option<(i64, MailType)>> {
    let Some((user_id, kind)) = lookup(db, token).await? else {
        return Ok(None);
    };
    let mut conn = db.pool.acquire().await?;
    super::preferences::set_stopped(&mut conn, user_id, kind, true).await?;
    Ok(Some((user_id, kind)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_user_and_type_only() {
        let key = [3u8; 32];
        let t = token(&key, 123_456_789, MailType::MissionChangesWarning);
        assert!(t.starts_with("u123456789.mission_changes_warning."), "{t}");
        assert_eq!(verify(&key, &t), Some((123_456_789, MailType::MissionChangesWarning)));
        assert_eq!(verify(&[4u8; 32], &t), None, "another key");
        let other_user = t.replacen("u123456789", "u123456788", 1);
        assert_eq!(verify(&key, &other_user), None);
        let other_type = t.replacen("mission_changes_warning", "holiday_changes_warning", 1);
        assert_eq!(verify(&key, &other_type), None);
        assert_eq!(verify(&key, &t[..t.len() - 2]), None);
        // A mandatory type is never stopped, even with a signature of ours.
        assert_eq!(verify(&key, &token(&key, 5, MailType::ResetPassword)), None);
        assert_eq!(verify(&key, ""), None);
        assert_eq!(verify(&key, &"u".repeat(500)), None);
    }
}
