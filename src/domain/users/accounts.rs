//! Creating and reading accounts.

use crate::db::{Db, is_unique_violation, now};
use crate::domain::auth::{Actor, Scope, password, tokens};
use crate::errors::{AppError, AppResult};

/// A user as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct UserRow {
    pub id: i64,
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub timezone_name: String,
    pub phone_number: Option<String>,
    pub birth_date: Option<String>,
    pub creation_time: i64,
    /// When the address was confirmed (see `confirmation`); `None` until then.
    pub email_confirmed_at: Option<i64>,
    /// `female` or `male`, once the user said (`account.changeGender`).
    pub gender: Option<String>,
    /// When the owner last chose the password; `None` when someone else set it (see
    /// `password_change`).
    pub password_updated_at: Option<i64>,
    /// 1 when the user hides their e-mail from a company (an acknowledged employment with
    /// `hide_email`), 0 when not; `None` when the statement did not read it (the caller's own
    /// row, read with their token), which readers other than the user take as hidden.
    #[sqlx(default)]
    pub hides_email: Option<i64>,
}

impl UserRow {
    /// The e-mail as `actor` (none when anonymous) may read it: the user's own, or that of a
    /// user who hides it from none of their companies; `None` otherwise (the transport shows its
    /// mask).
    pub fn email_for(&self, actor: Option<Actor>) -> Option<&str> {
        (actor.is_some_and(|actor| actor.user_id == self.id) || self.hides_email == Some(0))
            .then_some(self.email.as_str())
    }
}

/// Whether the user of the row (`$id`, the users table's id column) hides their e-mail, as an
/// integer on both databases.
macro_rules! hides_email {
    ($id:literal) => {
        const_format::concatcp!(
            "CAST(CASE WHEN EXISTS (SELECT 1 FROM employments h WHERE h.user_id = ",
            $id,
            " AND h.hide_email = 1 AND h.validation_status = 'approved' AND h.dismissed_at IS NULL) \
             THEN 1 ELSE 0 END AS BIGINT) AS hides_email"
        )
    };
}

/// A user's columns, in [`UserRow`]'s order (without `hides_email`), each prefixed with
/// `$prefix` (a table's alias and a dot, or nothing).
macro_rules! user_columns {
    ($prefix:literal) => {
        const_format::concatcp!(
            $prefix,
            "id, ",
            $prefix,
            "email, ",
            $prefix,
            "first_name, ",
            $prefix,
            "last_name, ",
            $prefix,
            "timezone_name, ",
            $prefix,
            "phone_number, ",
            $prefix,
            "birth_date, ",
            $prefix,
            "creation_time, ",
            $prefix,
            "email_confirmed_at, ",
            $prefix,
            "gender, ",
            $prefix,
            "password_updated_at"
        )
    };
}

/// A user's columns as others read them: with whether the user hides their e-mail.
const USER_COLUMNS: &str = const_format::concatcp!(user_columns!(""), ", ", hides_email!("users.id"));

/// The columns of a [`UserRow`] from the table aliased `u`, for statements that read a user
/// beside something else (the caller beside their token).
pub const USER_COLUMNS_OF_U: &str = user_columns!("u.");

/// User statements.
pub mod sql {
    use super::USER_COLUMNS;
    use crate::db::PerBackend;
    use const_format::concatcp;

    crate::statements! {
        pub const FIND: &str = concatcp!("SELECT ", USER_COLUMNS, " FROM users WHERE id = $1");
        pub const FIND_MANY: PerBackend = crate::per_backend!("SELECT ", USER_COLUMNS, " FROM users WHERE ", ["id" in 1]);
        /// Users with an employment in company `$1` overlapping `[$2, $3]`; `$4` is the status that
        /// counts besides an accepted one (`pending` for any that is neither rejected nor dismissed).
        pub const OF_COMPANY: &str = concatcp!(
            "SELECT ",
            USER_COLUMNS,
            " FROM users WHERE id IN ( \
                SELECT e.user_id FROM employments e WHERE e.company_id = $1 AND e.validation_status IN ('approved', $4) \
                  AND e.dismissed_at IS NULL AND e.start_date <= $3 AND (e.end_date IS NULL OR e.end_date >= $2)) \
             ORDER BY last_name, first_name, id"
        );
    }
}

/// What `signUp.user` receives.
pub struct NewUser {
    pub email: String,
    pub password: String,
    pub first_name: String,
    pub last_name: String,
    pub timezone_name: Option<String>,
    /// An invitation to redeem with the new account.
    pub invite_token: Option<String>,
    /// The language of the confirmation e-mail (the request's).
    pub lang: crate::i18n::Lang,
    /// The language of the account's e-mails from then on (`users.language`).
    pub language: crate::i18n::Lang,
}

pub(super) fn required_name(value: &str, field: &str) -> AppResult<String> {
    let value = value.trim();
    if value.is_empty() {
        return Err(AppError::invalid_inputs(format!("{field} must not be empty")).with("field", field));
    }
    if value.chars().count() > 255 {
        return Err(AppError::invalid_inputs(format!("{field} must be at most 255 characters")).with("field", field));
    }
    Ok(value.to_string())
}

/// The IANA name of a given zone (`Europe/Paris` when none is given).
fn timezone(value: Option<String>) -> AppResult<String> {
    Ok(super::zones::given(value.as_deref(), "timezoneName")?
        .name()
        .to_string())
}

/// INVALID_INPUTS unless the password has an acceptable length (sign-up and password reset).
pub fn check_password(given: &str) -> AppResult<()> {
    let length = given.chars().count();
    if length < password::MIN_LENGTH || given.len() > password::MAX_LENGTH {
        return Err(AppError::invalid_inputs(format!(
            "Password must be between {} and {} characters long",
            password::MIN_LENGTH,
            password::MAX_LENGTH
        ))
        .with("field", "password"));
    }
    Ok(())
}

/// Creates an account. The e-mail is already normalised by the `Email` scalar; a second account
/// with the same e-mail is refused by the database's unique key, even under concurrent sign-ups.
/// The confirmation e-mail is queued with the account, unless an invitation sent to the same
/// address was redeemed with it (that proved the address already). `scope` is how far the
/// request that creates it reaches: it bounds the invitation it may redeem.
pub async fn create(
    db: &Db,
    new: NewUser,
    scope: Scope,
    public_url: &str,
    hashing: &password::Hashing,
) -> AppResult<i64> {
    let first_name = required_name(&new.first_name, "firstName")?;
    let last_name = required_name(&new.last_name, "lastName")?;
    let timezone_name = timezone(new.timezone_name)?;
    check_password(&new.password)?;
    let password_hash = password::hash(new.password, hashing).await?;
    // Random identifiers can collide; try again with another one in that rare case.
    for _ in 0..5 {
        let id = tokens::random_in(100_000_000, 999_999_999)?;
        // The account and the redemption of its invitation succeed or fail together.
        let mut tx = db.begin_write().await?;
        let inserted = sqlx::query(
            "INSERT INTO users (id, email, password_hash, first_name, last_name, timezone_name, creation_time,
                                password_updated_at, language)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)",
        )
        .bind(id)
        .bind(&new.email)
        .bind(&password_hash)
        .bind(&first_name)
        .bind(&last_name)
        .bind(&timezone_name)
        .bind(now())
        .bind(new.language.tag())
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {
                if let Some(token) = &new.invite_token {
                    crate::domain::companies::invitations::redeem(&mut tx, id, scope, token, public_url).await?;
                }
                let (confirmed,): (Option<i64>,) = sqlx::query_as("SELECT email_confirmed_at FROM users WHERE id = $1")
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await?;
                if confirmed.is_none() {
                    super::confirmation::send(&mut tx, id, &new.email, &first_name, new.lang, public_url).await?;
                }
                tx.commit().await?;
                return Ok(id);
            }
            Err(e) if is_unique_violation(&e) => {
                drop(tx);
                if email_taken(db, &new.email).await? {
                    return Err(
                        AppError::invalid_inputs("A user is already registered with this email").with("field", "email")
                    );
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(AppError::internal("could not allocate a user id"))
}

/// An account whose password is already hashed, for [`insert_hashed`].
pub struct HashedAccount<'a> {
    pub email: &'a str,
    pub password_hash: &'a str,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub timezone_name: &'a str,
    /// Whether the owner chose the password (an invitation's acceptance page), rather than
    /// someone else (the sandbox's demo workers, whose passwords the seeding admin receives):
    /// `User.shouldUpdatePassword` is true until the owner chooses one.
    pub chosen_by_owner: bool,
}

/// Creates an account inside the caller's write transaction, with the checks of [`create`] on
/// names and time zone (the sandbox's demo workers, created with their employments and data in
/// one transaction). The random id is chosen among unused ones first, so that a collision does
/// not abort the caller's transaction; a taken e-mail is refused by the unique key.
pub async fn insert_hashed(conn: &mut sqlx::AnyConnection, account: &HashedAccount<'_>) -> AppResult<i64> {
    let first_name = required_name(account.first_name, "firstName")?;
    let last_name = required_name(account.last_name, "lastName")?;
    let timezone_name = timezone(Some(account.timezone_name.to_string()))?;
    for _ in 0..5 {
        let id = tokens::random_in(100_000_000, 999_999_999)?;
        let taken: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
        if taken.is_some() {
            continue;
        }
        // Accounts created this way (the sandbox's demo workers, on a reserved domain that
        // receives no mail) are confirmed from the start.
        sqlx::query(
            "INSERT INTO users (id, email, password_hash, first_name, last_name, timezone_name, creation_time,
                                email_confirmed_at, password_updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)",
        )
        .bind(id)
        .bind(account.email)
        .bind(account.password_hash)
        .bind(&first_name)
        .bind(&last_name)
        .bind(&timezone_name)
        .bind(now())
        .bind(account.chosen_by_owner.then(now))
        .execute(&mut *conn)
        .await?;
        return Ok(id);
    }
    Err(AppError::internal("could not allocate a user id"))
}

async fn email_taken(db: &Db, email: &str) -> AppResult<bool> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(email)
        .fetch_optional(db)
        .await?;
    Ok(row.is_some())
}

/// Reads a user.
pub async fn find(db: &Db, id: i64) -> AppResult<Option<UserRow>> {
    Ok(sqlx::query_as::<_, UserRow>(sql::FIND)
        .bind(id)
        .fetch_optional(db)
        .await?)
}

/// Whether `actor` may read `target`: oneself, or a co-worker, that is a user with an accepted
/// employment (not dismissed, at any time) in a company where the actor is employed today with
/// an accepted employment. The reference's `self_or_have_common_company` also counts the
/// target's pending employments; Roadlog does not, so that a company cannot read an account by
/// attaching an employment to its id before the user accepted anything.
pub async fn can_read(db: &Db, actor: Actor, target: i64) -> AppResult<bool> {
    if actor.user_id == target {
        return Ok(true);
    }
    let today = chrono::Utc::now().date_naive().format("%Y-%m-%d").to_string();
    // The common companies, so that a request confined to one company counts that one only.
    let rows: Vec<(i64,)> = sqlx::query_as(
        "SELECT DISTINCT mine.company_id FROM employments mine JOIN employments theirs ON theirs.company_id = mine.company_id
         WHERE mine.user_id = $1 AND mine.validation_status = 'approved' AND mine.dismissed_at IS NULL
           AND mine.start_date <= $3 AND (mine.end_date IS NULL OR mine.end_date >= $3)
           AND theirs.user_id = $2 AND theirs.validation_status = 'approved' AND theirs.dismissed_at IS NULL",
    )
    .bind(actor.user_id)
    .bind(target)
    .bind(today)
    .fetch_all(db)
    .await?;
    Ok(rows.iter().any(|(company,)| actor.scope.allows(*company)))
}

/// Users with an employment in the company overlapping `[from, to]` (dates as stored): any that
/// is neither rejected nor dismissed, or only accepted ones when `accepted_only`.
pub async fn of_company(
    db: &Db,
    company_id: i64,
    from: &str,
    to: &str,
    accepted_only: bool,
) -> AppResult<Vec<UserRow>> {
    Ok(sqlx::query_as::<_, UserRow>(sql::OF_COMPANY)
        .bind(company_id)
        .bind(from)
        .bind(to)
        .bind(if accepted_only { "approved" } else { "pending" })
        .fetch_all(db)
        .await?)
}

/// Reads several users at once (for the per-request loader).
pub async fn find_many(db: &Db, ids: &[i64]) -> AppResult<Vec<UserRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(sqlx::query_as::<_, UserRow>(db.sql(sql::FIND_MANY))
        .bind(crate::db::id_list(ids))
        .fetch_all(db)
        .await?)
}
