//! The employee's answer to a synced employment: the page behind the mailed link shows which
//! software asks for which company, and the employee accepts or declines. Accepting signs in
//! (an existing account, with its second factor's code when it has one) or creates the account
//! with a password chosen there, attaches and approves the employment under the employment
//! rules, and lets the software fetch its employment token (`employmentToken`). A link is answered once; it expires after 7 days (a new
//! sync mails a new one).

use crate::db::{Db, now};
use crate::domain::auth::{password, tokens};
use crate::domain::companies::invitations;
use crate::domain::export::sealing::Sealer;
use crate::domain::users::{accounts, sessions, totp};
use crate::errors::{AppError, AppResult};

/// What a mailed link leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// No link has this token.
    Unknown,
    /// The link was answered already.
    Used { accepted: bool, client_name: String },
    /// The link is older than 7 days and unanswered.
    Expired { client_name: String },
    /// The link can be answered.
    Open(Invitation),
}

/// An open invitation, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub link_id: i64,
    pub employment_id: i64,
    pub client_name: String,
    pub company_name: String,
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub timezone_name: String,
    pub has_admin_rights: bool,
    /// Whether an account holds the e-mail: then the employee signs in, else chooses a password.
    pub has_account: bool,
}

type Row = (
    i64,
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    i64,
    i64,
    Option<i64>,
    Option<i64>,
);

/// Finds the link of a token.
pub async fn lookup(db: &Db, token: &str) -> AppResult<Lookup> {
    let token = token.trim();
    if token.is_empty() || token.len() > 200 {
        return Ok(Lookup::Unknown);
    }
    let row: Option<Row> = sqlx::query_as(
        "SELECT l.id, l.employment_id, c.name, co.usual_name, l.email, l.first_name, l.last_name, l.timezone_name,
                l.has_admin_rights, l.invitation_expires_at, l.accepted_at, l.declined_at
         FROM client_employments l
         JOIN oauth_clients c ON c.id = l.client_id
         JOIN employments e ON e.id = l.employment_id
         JOIN companies co ON co.id = e.company_id
         WHERE l.invitation_hash = $1 AND l.dismissed_at IS NULL",
    )
    .bind(tokens::hash(token))
    .fetch_optional(db)
    .await?;
    let Some((
        link_id,
        employment_id,
        client_name,
        company_name,
        email,
        first_name,
        last_name,
        timezone_name,
        admin,
        expires_at,
        accepted_at,
        declined_at,
    )) = row
    else {
        return Ok(Lookup::Unknown);
    };
    if accepted_at.is_some() || declined_at.is_some() {
        return Ok(Lookup::Used {
            accepted: accepted_at.is_some(),
            client_name,
        });
    }
    if expires_at <= now() {
        return Ok(Lookup::Expired { client_name });
    }
    let account: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(&email)
        .fetch_optional(db)
        .await?;
    Ok(Lookup::Open(Invitation {
        link_id,
        employment_id,
        client_name,
        company_name,
        email,
        first_name,
        last_name,
        timezone_name,
        has_admin_rights: admin == 1,
        has_account: account.is_some(),
    }))
}

/// How the employee proves or creates their account on the page.
pub enum Credentials {
    /// The account exists: its password (under the login throttle of `address`).
    SignIn { password: String, address: String },
    /// The account has a second factor: the challenge its right password gave, and the code
    /// (a TOTP code or a recovery code), under the limit of wrong codes.
    SecondFactor { challenge: String, code: String },
    /// No account yet: the password to create it with.
    NewPassword { password: String },
}

/// Where an answer with credentials leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accepted {
    /// The invitation is accepted by this user.
    User(i64),
    /// The password was right and the account has a second factor: nothing is accepted until
    /// the code is given with this challenge (as the login of the authorization pages).
    CodeNeeded(String),
}

fn link_gone() -> AppError {
    AppError::invalid_inputs("This link was answered already or has expired")
        .with("reason", "EMPLOYMENT_CLIENT_LINK_NOT_FOUND")
}

/// Accepts the invitation: answers the user, or the challenge of an account with a second factor.
pub async fn accept(
    db: &Db,
    sealer: &Sealer,
    invitation: &Invitation,
    credentials: Credentials,
    hashing: &password::Hashing,
) -> AppResult<Accepted> {
    let user_id = match credentials {
        Credentials::SignIn { password, address } => {
            let user_id = sessions::verify_credentials(db, &invitation.email, password, &address, hashing).await?;
            // A password alone accepts nothing for an account with a second factor.
            if totp::is_enabled(db, user_id).await? {
                return Ok(Accepted::CodeNeeded(totp::challenge::issue(db, user_id).await?));
            }
            user_id
        }
        Credentials::SecondFactor { challenge, code } => {
            let account: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE email = $1")
                .bind(&invitation.email)
                .fetch_optional(db)
                .await?;
            let user_id = totp::challenge::complete(db, sealer, &challenge, &code).await?;
            // The challenge of another account's login (the API's) answers no invitation.
            if account.map(|(id,)| id) != Some(user_id) {
                return Err(AppError::authentication("Invalid or expired TOTP challenge token"));
            }
            user_id
        }
        Credentials::NewPassword { password } => {
            let length = password.chars().count();
            if length < password::MIN_LENGTH || password.len() > password::MAX_LENGTH {
                return Err(AppError::invalid_inputs(format!(
                    "The password must be between {} and {} characters long",
                    password::MIN_LENGTH,
                    password::MAX_LENGTH
                ))
                .with("field", "password"));
            }
            let hash = password::hash(password, hashing).await?;
            let mut tx = db.begin_write().await?;
            // An account created since the page was shown: the employee signs in instead. The
            // unique key on the e-mail stays the guard against a concurrent sign-up.
            let taken: Option<(i64,)> = sqlx::query_as("SELECT id FROM users WHERE email = $1")
                .bind(&invitation.email)
                .fetch_optional(&mut *tx)
                .await?;
            if taken.is_some() {
                return Err(AppError::invalid_inputs(
                    "An account already exists for this e-mail: sign in instead",
                ));
            }
            let id = accounts::insert_hashed(
                &mut tx,
                &accounts::HashedAccount {
                    email: &invitation.email,
                    password_hash: &hash,
                    first_name: &invitation.first_name,
                    last_name: &invitation.last_name,
                    timezone_name: &invitation.timezone_name,
                    chosen_by_owner: true,
                },
            )
            .await?;
            let done = answer(&mut tx, invitation, id).await;
            // The account and the acceptance succeed or fail together.
            done?;
            tx.commit().await?;
            return Ok(Accepted::User(id));
        }
    };
    let mut tx = db.begin_write().await?;
    answer(&mut tx, invitation, user_id).await?;
    tx.commit().await?;
    Ok(Accepted::User(user_id))
}

async fn answer(conn: &mut sqlx::AnyConnection, invitation: &Invitation, user_id: i64) -> AppResult<()> {
    let at = now();
    // The conditions repeat the lookup's: of two answers to one link, one wins.
    let done = sqlx::query(
        "UPDATE client_employments SET accepted_at = $2, user_id = $3
         WHERE id = $1 AND accepted_at IS NULL AND declined_at IS NULL AND dismissed_at IS NULL
           AND invitation_expires_at > $2",
    )
    .bind(invitation.link_id)
    .bind(at)
    .bind(user_id)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Err(link_gone());
    }
    // An employment already accepted by this user (found by the sync) stays as it is.
    let state: Option<(Option<i64>, String)> =
        sqlx::query_as("SELECT user_id, validation_status FROM employments WHERE id = $1")
            .bind(invitation.employment_id)
            .fetch_optional(&mut *conn)
            .await?;
    match state {
        Some((Some(owner), status)) if owner == user_id && status == "approved" => Ok(()),
        Some((Some(owner), _)) if owner != user_id => {
            Err(AppError::authorization("This employment belongs to another account"))
        }
        _ => invitations::accept_pending(conn, user_id, invitation.employment_id).await,
    }
}

/// Declines the invitation: the link is closed and an employment the sync created is rejected.
pub async fn decline(db: &Db, invitation: &Invitation) -> AppResult<()> {
    let at = now();
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(
        "UPDATE client_employments SET declined_at = $2
         WHERE id = $1 AND accepted_at IS NULL AND declined_at IS NULL AND dismissed_at IS NULL
           AND invitation_expires_at > $2",
    )
    .bind(invitation.link_id)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(link_gone());
    }
    sqlx::query(
        "UPDATE employments SET validation_status = 'rejected', validation_time = $2
         WHERE id = $1 AND user_id IS NULL AND validation_status = 'pending'
           AND EXISTS (SELECT 1 FROM client_employments WHERE id = $3 AND created_employment = 1)",
    )
    .bind(invitation.employment_id)
    .bind(at)
    .bind(invitation.link_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
