//! Setting up, enabling and removing a user's second factor.
//!
//! Setting up replaces the secret and the recovery codes of an authenticator not enabled yet; an
//! enabled one is replaced only after `disable`, which needs a code, so that a stolen session
//! alone can neither remove the second factor nor move it to another device.

use crate::db::{Db, now};
use crate::domain::export::sealing::Sealer;
use crate::errors::{AppError, AppResult};

use super::codes;
use super::proof::{self, Proof};

/// What setting up gives the user, once.
pub struct Setup {
    /// The `otpauth://` URI for the authenticator (a QR code carries it).
    pub provisioning_uri: String,
    /// The secret in base32, to type by hand.
    pub secret: String,
    /// Codes that replace the authenticator once each.
    pub recovery_codes: Vec<String>,
}

/// Whether the user logs in with a second factor.
pub async fn is_enabled(db: &Db, user_id: i64) -> AppResult<bool> {
    let row: Option<(i64,)> =
        sqlx::query_as("SELECT user_id FROM totp_credentials WHERE user_id = $1 AND enabled_at IS NOT NULL")
            .bind(user_id)
            .fetch_optional(db)
            .await?;
    Ok(row.is_some())
}

/// A new secret and new recovery codes for a user whose second factor is not enabled.
pub async fn setup(db: &Db, sealer: &Sealer, user_id: i64) -> AppResult<Setup> {
    let secret = codes::new_secret()?;
    let recovery_codes = codes::new_recovery_codes()?;
    let mut tx = db.begin_write().await?;
    if proof::lock(&mut tx, sealer, user_id).await?.is_some_and(|c| c.enabled) {
        return Err(AppError::invalid_inputs(
            "The second factor is already enabled: disable it first (account.disableTotp, with a code)",
        ));
    }
    let (email,): (String,) = sqlx::query_as("SELECT email FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
    let at = now();
    sqlx::query(
        "INSERT INTO totp_credentials (user_id, secret, created_at, enabled_at, last_step)
         VALUES ($1, $2, $3, NULL, NULL)
         ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
             enabled_at = NULL, last_step = NULL",
    )
    .bind(user_id)
    .bind(sealer.seal(&proof::sealed_name(user_id), secret.clone())?)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM totp_recovery_codes WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    for code in &recovery_codes {
        sqlx::query("INSERT INTO totp_recovery_codes (user_id, code_hash, used_at) VALUES ($1, $2, NULL)")
            .bind(user_id)
            .bind(codes::recovery_hash(code))
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(Setup {
        provisioning_uri: codes::provisioning_uri(&secret, &email)?,
        secret: codes::base32(&secret)?,
        recovery_codes,
    })
}

/// Enables the second factor once the authenticator gives a right code (a recovery code does
/// not prove the authenticator). Verifying an enabled one again only checks the code.
pub async fn verify(db: &Db, sealer: &Sealer, user_id: i64, code: &str) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    let Some(credential) = proof::lock(&mut tx, sealer, user_id).await? else {
        return Err(AppError::invalid_inputs("TOTP not set up. Call setupTotp first."));
    };
    let proof = proof::check(&mut tx, user_id, &credential, code, false).await?;
    if proof == Proof::Right {
        sqlx::query("UPDATE totp_credentials SET enabled_at = $2 WHERE user_id = $1 AND enabled_at IS NULL")
            .bind(user_id)
            .bind(now())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    match proof {
        Proof::Right => Ok(()),
        Proof::Wrong => Err(proof::wrong_code()),
    }
}

/// Removes the second factor (secret, recovery codes, pending login challenges) given a right
/// code or an unused recovery code.
pub async fn disable(db: &Db, sealer: &Sealer, user_id: i64, code: &str) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    let credential = match proof::lock(&mut tx, sealer, user_id).await? {
        Some(credential) if credential.enabled => credential,
        _ => return Err(AppError::invalid_inputs("The second factor is not enabled")),
    };
    let proof = proof::check(&mut tx, user_id, &credential, code, true).await?;
    if proof == Proof::Right {
        for statement in [
            "DELETE FROM totp_recovery_codes WHERE user_id = $1",
            "DELETE FROM totp_challenges WHERE user_id = $1",
            "DELETE FROM totp_credentials WHERE user_id = $1",
        ] {
            sqlx::query(statement).bind(user_id).execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    match proof {
        Proof::Right => Ok(()),
        Proof::Wrong => Err(proof::wrong_code()),
    }
}

/// At start-up, with the signing keys (`domain::export::keys_store::seal_stored_keys`): seals the
/// secrets stored in clear once a key-encryption key is configured. Answers how many.
pub async fn seal_stored(conn: &mut sqlx::AnyConnection, sealer: &Sealer) -> AppResult<usize> {
    let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT user_id, secret FROM totp_credentials")
        .fetch_all(&mut *conn)
        .await?;
    let mut sealed = 0;
    for (user_id, secret) in rows.into_iter().filter(|(_, s)| !Sealer::is_sealed(s)) {
        sqlx::query("UPDATE totp_credentials SET secret = $1 WHERE user_id = $2")
            .bind(sealer.seal(&proof::sealed_name(user_id), secret)?)
            .bind(user_id)
            .execute(&mut *conn)
            .await?;
        sealed += 1;
    }
    Ok(sealed)
}

/// At start-up, after [`seal_stored`]: whether the stored secrets open with `sealer`. False when
/// a secret is sealed and no key-encryption key is configured, or the configured one does not
/// open it: every login with a second factor would then fail, so the server does not start.
pub async fn sealed_secrets_open(db: &Db, sealer: &Sealer) -> AppResult<bool> {
    let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT user_id, secret FROM totp_credentials ORDER BY user_id")
        .fetch_all(db)
        .await?;
    // Every secret is sealed with the one key: the first sealed one tells.
    let Some((user_id, secret)) = rows.into_iter().find(|(_, secret)| Sealer::is_sealed(secret)) else {
        return Ok(true);
    };
    Ok(sealer.is_configured() && sealer.open(&proof::sealed_name(user_id), &secret).is_ok())
}
