//! A user's choices about the e-mails they receive: the language (`account.changeLanguage`,
//! `User.language`) and the optional types they stopped (`account.changeEmailOptOut`,
//! `User.emailOptOuts`, and the unsubscribe link).

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::errors::{AppError, AppResult};
use crate::i18n::Lang;
use crate::mail::kinds::MailType;

/// The languages a user may choose, as stored and as the API spells them.
pub const LANGUAGES: [&str; 2] = ["fr", "en"];

/// The language a code names: INVALID_INPUTS unless `fr` or `en` (any case, trimmed).
pub fn language(given: &str) -> AppResult<Lang> {
    match given.trim().to_ascii_lowercase().as_str() {
        "fr" => Ok(Lang::Fr),
        "en" => Ok(Lang::En),
        _ => Err(AppError::invalid_inputs("The language is `fr` or `en`").with("field", "language")),
    }
}

/// Sets the language of the user's e-mails.
pub async fn change_language(db: &Db, user_id: i64, lang: Lang) -> AppResult<()> {
    sqlx::query("UPDATE users SET language = $2 WHERE id = $1")
        .bind(user_id)
        .bind(lang.tag())
        .execute(db)
        .await?;
    Ok(())
}

/// The language of the user's e-mails.
pub async fn language_of(db: &Db, user_id: i64) -> AppResult<Lang> {
    let row: Option<(String,)> = sqlx::query_as("SELECT language FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(db)
        .await?;
    Ok(row.map_or(Lang::Fr, |(code,)| super::stored_lang(&code)))
}

/// The optional type a name gives: INVALID_INPUTS for an unknown name or a type that cannot be
/// stopped (security, address and account e-mails).
pub fn optional_type(given: &str) -> AppResult<MailType> {
    let refused = |message: String| AppError::invalid_inputs(message).with("field", "emailType");
    match MailType::from_str_opt(given.trim()) {
        Some(kind) if kind.optional() => Ok(kind),
        Some(kind) => Err(refused(format!(
            "The e-mails of type {} cannot be stopped",
            kind.as_str()
        ))),
        None => Err(refused(format!(
            "Unknown e-mail type; the optional ones are {}",
            MailType::optional_ones()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Stops (`stop`) or resumes an optional type for the user; stopping it twice keeps one row.
pub async fn set_stopped(conn: &mut AnyConnection, user_id: i64, kind: MailType, stop: bool) -> AppResult<()> {
    if stop {
        sqlx::query(
            "INSERT INTO mail_opt_outs (user_id, mail_type, stopped_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id, mail_type) DO NOTHING",
        )
        .bind(user_id)
        .bind(kind.as_str())
        .bind(now())
        .execute(conn)
        .await?;
    } else {
        sqlx::query("DELETE FROM mail_opt_outs WHERE user_id = $1 AND mail_type = $2")
            .bind(user_id)
            .bind(kind.as_str())
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// [`set_stopped`] on its own.
pub async fn change_opt_out(db: &Db, user_id: i64, kind: MailType, stop: bool) -> AppResult<()> {
    let mut conn = db.pool.acquire().await?;
    set_stopped(&mut conn, user_id, kind, stop).await
}

/// Whether the user stopped the type.
pub async fn stopped(conn: &mut AnyConnection, user_id: i64, kind: MailType) -> AppResult<bool> {
    let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM mail_opt_outs WHERE user_id = $1 AND mail_type = $2")
        .bind(user_id)
        .bind(kind.as_str())
        .fetch_one(conn)
        .await?;
    Ok(count > 0)
}

/// The types the user stopped, in the order of [`MailType::ALL`].
pub async fn opt_outs(db: &Db, user_id: i64) -> AppResult<Vec<MailType>> {
    let rows: Vec<(String,)> = sqlx::query_as("SELECT mail_type FROM mail_opt_outs WHERE user_id = $1")
        .bind(user_id)
        .fetch_all(db)
        .await?;
    Ok(MailType::ALL
        .into_iter()
        .filter(|kind| rows.iter().any(|(name,)| name == kind.as_str()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_and_types_are_checked() {
        assert_eq!(language(" EN ").unwrap(), Lang::En);
        assert_eq!(language("fr").unwrap(), Lang::Fr);
        assert!(language("de").is_err() && language("").is_err());
        assert_eq!(
            optional_type("mission_changes_warning").unwrap(),
            MailType::MissionChangesWarning
        );
        assert!(optional_type("reset_password").is_err());
        assert!(optional_type("nothing").is_err());
    }
}
