//! What a user changes of their own account besides the e-mail and the password: names, phone
//! number, time zone, gender, and the warnings of the applications they asked not to see again.
//! Each change is one statement on the user's row (or one row of theirs), checked before.

use crate::db::{Db, now};
use crate::domain::kinds::{DisabledWarning, Gender};
use crate::errors::{AppError, AppResult};

use super::accounts::required_name;
use super::zones;

/// Longest phone number kept (the reference's column holds 30 characters).
pub const MAX_PHONE: usize = 30;

/// The refusal of a change asked for another user than the caller, worded as the reference.
pub fn forbidden() -> AppError {
    AppError::authorization("Forbidden access")
}

/// AUTHORIZATION_ERROR unless `target` is the caller: a user changes only their own account.
pub fn only_self(user_id: i64, target: i64) -> AppResult<()> {
    if user_id == target { Ok(()) } else { Err(forbidden()) }
}

async fn set_text(db: &Db, user_id: i64, column_sql: &'static str, value: Option<&str>) -> AppResult<()> {
    sqlx::query(column_sql).bind(user_id).bind(value).execute(db).await?;
    Ok(())
}

/// Sets both names, each 1 to 255 characters once trimmed.
pub async fn change_name(db: &Db, user_id: i64, first_name: &str, last_name: &str) -> AppResult<()> {
    let first_name = required_name(first_name, "newFirstName")?;
    let last_name = required_name(last_name, "newLastName")?;
    sqlx::query("UPDATE users SET first_name = $2, last_name = $3 WHERE id = $1")
        .bind(user_id)
        .bind(first_name)
        .bind(last_name)
        .execute(db)
        .await?;
    Ok(())
}

/// A phone number as given: trimmed, `None` when blank; INVALID_INPUTS when longer than
/// [`MAX_PHONE`] or holding anything but digits, spaces and `+ - . ( )`.
pub fn phone_number(given: &str) -> AppResult<Option<String>> {
    let number = given.trim();
    if number.is_empty() {
        return Ok(None);
    }
    let refused = |message: String| AppError::invalid_inputs(message).with("field", "newPhoneNumber");
    if number.chars().count() > MAX_PHONE {
        return Err(refused(format!("A phone number has at most {MAX_PHONE} characters")));
    }
    if !number.chars().any(|c| c.is_ascii_digit())
        || !number.chars().all(|c| c.is_ascii_digit() || " +-.()".contains(c))
    {
        return Err(refused(
            "A phone number holds digits, spaces and + - . ( ) only".to_string(),
        ));
    }
    Ok(Some(number.to_string()))
}

/// Sets the phone number; a blank one removes it.
pub async fn change_phone_number(db: &Db, user_id: i64, given: &str) -> AppResult<()> {
    let number = phone_number(given)?;
    set_text(
        db,
        user_id,
        "UPDATE users SET phone_number = $2 WHERE id = $1",
        number.as_deref(),
    )
    .await
}

/// Sets the time zone: an IANA name only, since it cuts every day of the user's time.
pub async fn change_timezone(db: &Db, user_id: i64, name: &str) -> AppResult<()> {
    if name.trim().is_empty() {
        return Err(
            AppError::invalid_inputs("Give an IANA time zone name, such as Europe/Paris").with("field", "timezoneName"),
        );
    }
    let zone = zones::given(Some(name), "timezoneName")?;
    set_text(
        db,
        user_id,
        "UPDATE users SET timezone_name = $2 WHERE id = $1",
        Some(zone.name()),
    )
    .await
}

/// Sets the gender.
pub async fn change_gender(db: &Db, user_id: i64, gender: Gender) -> AppResult<()> {
    set_text(
        db,
        user_id,
        "UPDATE users SET gender = $2 WHERE id = $1",
        Some(gender.as_str()),
    )
    .await
}

/// Adds a warning to those the user disabled; disabling it again keeps the first row.
pub async fn disable_warning(db: &Db, user_id: i64, warning: DisabledWarning) -> AppResult<()> {
    sqlx::query(
        "INSERT INTO user_disabled_warnings (user_id, warning, disabled_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id, warning) DO NOTHING",
    )
    .bind(user_id)
    .bind(warning.as_str())
    .bind(now())
    .execute(db)
    .await?;
    Ok(())
}

/// The warnings the user disabled, in the order of [`DisabledWarning::ALL`] (the contract's).
pub async fn disabled_warnings(db: &Db, user_id: i64) -> AppResult<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as("SELECT warning FROM user_disabled_warnings WHERE user_id = $1")
        .bind(user_id)
        .fetch_all(db)
        .await?;
    let disabled: Vec<DisabledWarning> = rows
        .iter()
        .filter_map(|(warning,)| DisabledWarning::from_str_opt(warning))
        .collect();
    Ok(DisabledWarning::ALL
        .iter()
        .filter(|w| disabled.contains(w))
        .map(|w| w.as_str().to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_numbers_are_bounded_and_plain() {
        assert_eq!(
            phone_number(" +33 6 12-34.56 (78) ").unwrap().as_deref(),
            Some("+33 6 12-34.56 (78)")
        );
        assert_eq!(phone_number("   ").unwrap(), None);
        for wrong in ["call me", "+33 6 12 34 56 78 90 12 34 56 78 9", "()", "06\t12 34 56 78"] {
            assert!(phone_number(wrong).is_err(), "{wrong:?}");
        }
        assert!(only_self(1, 2).is_err() && only_self(3, 3).is_ok());
    }
}
