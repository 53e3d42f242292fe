//! `syncEmployment` and `employmentToken`: a client sends a company's employee list; each
//! employee gets a pending employment (found or created) and a link to the client, mailed to
//! them as an invitation to accept in a browser ([`super::acceptance`]).
//!
//! Until the employee accepts, the client sees only what it sent: the employment's id and
//! company, the e-mail, the admin flag, `pending`, no user. So the answer does not tell whether
//! the e-mail had an account (the account is attached only on acceptance), nor does the
//! company's admin see the account of a pending synced employment.

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::tokens;
use crate::domain::companies::employments::{self, EmploymentRow};
use crate::domain::companies::{date_text, today};
use crate::errors::{AppError, AppResult};
use crate::mail::outbox;

use super::companies::{is_linked, no_access_to_company};

/// Sync statements.
mod sql {
    use crate::db::PerBackend;

    crate::statements! {
        /// `$1` company: its name, the row held until the transaction ends. `FOR NO KEY
        /// UPDATE`: two syncs exclude each other, but rows that name the company (its missions,
        /// employments, alert summaries) are still written meanwhile, where `FOR UPDATE` made
        /// their foreign-key checks wait for the sync's end.
        pub const LOCK_COMPANY: PerBackend = PerBackend {
            sqlite: "SELECT usual_name FROM companies WHERE id = $1",
            postgres: "SELECT usual_name FROM companies WHERE id = $1 FOR NO KEY UPDATE",
        };
    }
}

/// How long the invitation of a synced employee can be answered (the reference's 7 days).
pub const INVITATION_SECONDS: i64 = 7 * 24 * 3600;

/// Most employees in one sync: each may queue an e-mail.
pub const MAX_EMPLOYEES: usize = 100;

/// One employee as the client sends it (the e-mail already normalised by the `Email` scalar).
#[derive(Clone, Debug)]
pub struct Employee {
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub has_admin_rights: bool,
    pub timezone_name: String,
}

/// A client's link to an employment, as stored.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct LinkRow {
    pub id: i64,
    pub client_id: i64,
    pub employment_id: i64,
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub has_admin_rights: i64,
    pub created_at: i64,
    pub accepted_at: Option<i64>,
    pub declined_at: Option<i64>,
    pub access_token_hash: Option<String>,
}

/// `$1` client, `$2` employment: the live link.
const FIND_LINK: &str = "SELECT id, client_id, employment_id, email, first_name, last_name, has_admin_rights, \
     created_at, accepted_at, declined_at, access_token_hash FROM client_employments \
     WHERE client_id = $1 AND employment_id = $2 AND dismissed_at IS NULL";

/// `$1` client, `$2` company: the live links, in the order they were made.
const LINKS_IN_COMPANY: &str = "SELECT l.id, l.client_id, l.employment_id, l.email, l.first_name, l.last_name, \
     l.has_admin_rights, l.created_at, l.accepted_at, l.declined_at, l.access_token_hash \
     FROM client_employments l JOIN employments e ON e.id = l.employment_id \
     WHERE l.client_id = $1 AND e.company_id = $2 AND l.dismissed_at IS NULL AND e.dismissed_at IS NULL \
     ORDER BY l.id";

/// An employment as a client may see it: the stored one once the employee accepted, otherwise
/// only what the client sent.
pub fn client_view(link: &LinkRow, employment: &EmploymentRow) -> EmploymentRow {
    if link.accepted_at.is_some() {
        return employment.clone();
    }
    EmploymentRow {
        id: employment.id,
        user_id: None,
        company_id: employment.company_id,
        email: Some(link.email.clone()),
        submitter_id: None,
        reception_time: link.created_at,
        validation_status: if link.declined_at.is_some() {
            "rejected"
        } else {
            "pending"
        }
        .to_string(),
        start_date: date_text(
            chrono::DateTime::from_timestamp(link.created_at, 0)
                .map(|t| t.date_naive())
                .unwrap_or_else(today),
        ),
        end_date: None,
        has_admin_rights: link.has_admin_rights,
        is_primary: None,
        dismissed_at: None,
        last_active_at: link.created_at,
        team_id: None,
        hide_email: 0,
        latest_invite_email_time: None,
        last_activity_end: None,
        nb_worker_info_snooze_date: None,
        company_number_workers: employment.company_number_workers,
    }
}

fn clean_name(raw: &str, field: &'static str) -> AppResult<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(
            AppError::invalid_inputs(format!("{field} must be between 1 and 255 characters")).with("field", field),
        );
    }
    Ok(name.to_string())
}

fn clean(employees: Vec<Employee>) -> AppResult<Vec<Employee>> {
    if employees.len() > MAX_EMPLOYEES {
        return Err(AppError::invalid_inputs(format!(
            "A sync may carry at most {MAX_EMPLOYEES} employees (received {})",
            employees.len()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    employees
        .into_iter()
        .enumerate()
        .map(|(index, e)| {
            let email = e.email.trim().to_lowercase();
            if !seen.insert(email.clone()) {
                return Err(
                    AppError::invalid_inputs(format!("The e-mail {email} appears more than once"))
                        .with("field", "employees")
                        .with("index", index),
                );
            }
            let timezone = crate::domain::users::zones::given(Some(&e.timezone_name), "timezoneName")
                .map_err(|error| error.with("index", index))?
                .name();
            Ok(Employee {
                email,
                first_name: clean_name(&e.first_name, "firstName")?,
                last_name: clean_name(&e.last_name, "lastName")?,
                has_admin_rights: e.has_admin_rights,
                timezone_name: timezone.to_string(),
            })
        })
        .collect()
}

/// The current employment of an e-mail in the company (of its account, or an invitation to it),
/// not dismissed nor rejected.
async fn current_employment(
    conn: &mut AnyConnection,
    company_id: i64,
    email: &str,
) -> AppResult<Option<(i64, String)>> {
    Ok(sqlx::query_as(
        "SELECT e.id, e.validation_status FROM employments e LEFT JOIN users u ON u.id = e.user_id
         WHERE e.company_id = $1 AND e.dismissed_at IS NULL AND e.validation_status <> 'rejected'
           AND (e.end_date IS NULL OR e.end_date >= $3)
           AND (LOWER(u.email) = $2 OR (e.user_id IS NULL AND LOWER(e.email) = $2))
         ORDER BY e.id DESC LIMIT 1",
    )
    .bind(company_id)
    .bind(email)
    .bind(date_text(today()))
    .fetch_optional(&mut *conn)
    .await?)
}

/// The mail of an invitation, queued in the caller's transaction.
async fn mail_invitation(
    conn: &mut AnyConnection,
    employee: &Employee,
    client_name: &str,
    company: (i64, &str),
    token: &str,
    public_url: &str,
) -> AppResult<()> {
    let (company_id, company_name) = company;
    let body = format!(
        "Hello {first} {last},\n\n\
         {client_name}, the software {company_name} uses, asks to record your working time on Roadlog for you.\n\
         Open this link to see what it asks for, and accept or decline:\n\n    {public_url}/sync_employee?token={token}\n\n\
         The link is valid for 7 days. If you did not expect this message, you can ignore it.\n",
        first = employee.first_name,
        last = employee.last_name,
    );
    outbox::enqueue(
        conn,
        &employee.email,
        &format!("{client_name} asks to record your working time for {company_name}"),
        &body,
        Some(company_id),
    )
    .await
}

/// `syncEmployment`: for each employee, finds or creates the pending employment and the
/// client's link, and mails a new invitation when there was none or the last one expired; all
/// or nothing. Answers every live link of the client in the company, as the client may see it.
pub async fn sync(
    db: &Db,
    client: (i64, &str),
    company_id: i64,
    employees: Vec<Employee>,
    public_url: &str,
) -> AppResult<Vec<EmploymentRow>> {
    let (client_id, client_name) = client;
    let employees = clean(employees)?;
    let mut tx = db.begin_write().await?;
    if !is_linked(&mut tx, client_id, company_id).await? {
        return Err(no_access_to_company());
    }
    // Two syncs of one company must not both create an employment for the same new e-mail:
    // PostgreSQL holds the company row until the transaction ends (SQLite runs one write
    // transaction at a time).
    let (company_name,): (String,) = sqlx::query_as(crate::db::Backend::of(&tx).sql(sql::LOCK_COMPANY))
        .bind(company_id)
        .fetch_one(&mut *tx)
        .await?;
    let at = now();
    let today = date_text(today());
    for employee in &employees {
        let (employment_id, created) = match current_employment(&mut tx, company_id, &employee.email).await? {
            Some((id, status)) => {
                // Rights sent by the software apply until the employee answers; an accepted
                // employment's rights stay with the company's admins.
                if status == "pending" {
                    sqlx::query("UPDATE employments SET has_admin_rights = $2 WHERE id = $1")
                        .bind(id)
                        .bind(i64::from(employee.has_admin_rights))
                        .execute(&mut *tx)
                        .await?;
                }
                (id, false)
            }
            None => {
                let (id,): (i64,) = sqlx::query_as(
                    "INSERT INTO employments (email, company_id, reception_time, validation_status, start_date,
                                              has_admin_rights, business_id, latest_invite_email_time)
                     VALUES ($1, $2, $3, 'pending', $4, $5, (SELECT business_id FROM companies WHERE id = $2), $3)
                     RETURNING id",
                )
                .bind(&employee.email)
                .bind(company_id)
                .bind(at)
                .bind(&today)
                .bind(i64::from(employee.has_admin_rights))
                .fetch_one(&mut *tx)
                .await?;
                (id, true)
            }
        };
        let link: Option<(i64, Option<i64>, i64, Option<i64>)> = sqlx::query_as(
            "SELECT id, accepted_at, invitation_expires_at, dismissed_at FROM client_employments
             WHERE client_id = $1 AND employment_id = $2",
        )
        .bind(client_id)
        .bind(employment_id)
        .fetch_optional(&mut *tx)
        .await?;
        let (token, token_hash) = tokens::generate("rl_sync_")?;
        let invite = match link {
            None => {
                sqlx::query(
                    "INSERT INTO client_employments (client_id, employment_id, email, first_name, last_name,
                         has_admin_rights, timezone_name, created_employment, created_at, invitation_hash,
                         invitation_expires_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                )
                .bind(client_id)
                .bind(employment_id)
                .bind(&employee.email)
                .bind(&employee.first_name)
                .bind(&employee.last_name)
                .bind(i64::from(employee.has_admin_rights))
                .bind(&employee.timezone_name)
                .bind(i64::from(created))
                .bind(at)
                .bind(&token_hash)
                .bind(at + INVITATION_SECONDS)
                .execute(&mut *tx)
                .await?;
                true
            }
            // A link the employee (or an admin, through the company) dismissed starts over: a
            // new invitation, and no token until the employee accepts again.
            Some((link_id, _, _, Some(_))) => {
                sqlx::query(
                    "UPDATE client_employments SET first_name = $2, last_name = $3, has_admin_rights = $4,
                         timezone_name = $5, invitation_hash = $6, invitation_expires_at = $7, accepted_at = NULL,
                         declined_at = NULL, access_token_hash = NULL, token_issued_at = NULL,
                         token_expires_at = NULL, token_last_used_at = NULL, dismissed_at = NULL,
                         dismiss_author_id = NULL
                     WHERE id = $1",
                )
                .bind(link_id)
                .bind(&employee.first_name)
                .bind(&employee.last_name)
                .bind(i64::from(employee.has_admin_rights))
                .bind(&employee.timezone_name)
                .bind(&token_hash)
                .bind(at + INVITATION_SECONDS)
                .execute(&mut *tx)
                .await?;
                true
            }
            Some((_, Some(_), _, None)) => false,
            Some((link_id, None, expires_at, None)) => {
                let renew = expires_at <= at;
                sqlx::query(
                    "UPDATE client_employments SET first_name = $2, last_name = $3, has_admin_rights = $4,
                         timezone_name = $5,
                         invitation_hash = CASE WHEN $6 = 1 THEN $7 ELSE invitation_hash END,
                         invitation_expires_at = CASE WHEN $6 = 1 THEN $8 ELSE invitation_expires_at END
                     WHERE id = $1",
                )
                .bind(link_id)
                .bind(&employee.first_name)
                .bind(&employee.last_name)
                .bind(i64::from(employee.has_admin_rights))
                .bind(&employee.timezone_name)
                .bind(i64::from(renew))
                .bind(&token_hash)
                .bind(at + INVITATION_SECONDS)
                .execute(&mut *tx)
                .await?;
                renew
            }
        };
        if invite {
            mail_invitation(
                &mut tx,
                employee,
                client_name,
                (company_id, &company_name),
                &token,
                public_url,
            )
            .await?;
        }
    }
    tx.commit().await?;
    let mut conn = db.pool.acquire().await?;
    let links: Vec<LinkRow> = sqlx::query_as(LINKS_IN_COMPANY)
        .bind(client_id)
        .bind(company_id)
        .fetch_all(&mut *conn)
        .await?;
    let mut views = Vec::with_capacity(links.len());
    for link in &links {
        if let Some(employment) = employments::find(&mut conn, link.employment_id).await? {
            views.push(client_view(link, &employment));
        }
    }
    Ok(views)
}

/// What `employmentToken` answers.
#[derive(Clone, Debug)]
pub struct TokenView {
    pub link_id: i64,
    pub client_id: i64,
    pub client_name: String,
    pub employment: EmploymentRow,
    /// The employment token, given once: on the first call after the employee accepted.
    pub access_token: Option<String>,
}

/// `employmentToken`: the client's link to an employment. The token is issued on the first call
/// after the employee accepted and answered that once: only its hash is stored, so it cannot be
/// shown again (later calls answer `accessToken: null` with the employment approved).
pub async fn employment_token(db: &Db, client: (i64, &str), employment_id: i64) -> AppResult<Option<TokenView>> {
    let (client_id, client_name) = client;
    let mut tx = db.begin_write().await?;
    let link: Option<LinkRow> = sqlx::query_as(FIND_LINK)
        .bind(client_id)
        .bind(employment_id)
        .fetch_optional(&mut *tx)
        .await?;
    let Some(link) = link else {
        return Ok(None);
    };
    let Some(employment) = employments::find(&mut tx, employment_id).await? else {
        return Ok(None);
    };
    if !is_linked(&mut tx, client_id, employment.company_id).await? {
        return Err(AppError::authentication("Company token has been revoked"));
    }
    let mut access_token = None;
    if link.accepted_at.is_some() && link.access_token_hash.is_none() {
        let (token, hash) = tokens::generate(super::employment_tokens::PREFIX)?;
        // The condition repeats the check: of two concurrent first calls, one issues the token.
        // It expires after the client's lifetime, if the operator set one (NULL otherwise).
        let issued = sqlx::query(
            "UPDATE client_employments SET access_token_hash = $2, token_issued_at = $3,
                 token_expires_at = $3 + (SELECT c.employment_token_lifetime FROM oauth_clients c
                                          WHERE c.id = client_employments.client_id)
             WHERE id = $1 AND access_token_hash IS NULL AND accepted_at IS NOT NULL",
        )
        .bind(link.id)
        .bind(&hash)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        if issued.rows_affected() == 1 {
            access_token = Some(token);
        }
    }
    tx.commit().await?;
    Ok(Some(TokenView {
        link_id: link.id,
        client_id,
        client_name: client_name.to_string(),
        employment: client_view(&link, &employment),
        access_token,
    }))
}

/// An employment the client synced, as it may see it; `None` when it synced no such employment.
pub async fn client_view_of(db: &Db, client_id: i64, employment_id: i64) -> AppResult<Option<EmploymentRow>> {
    let mut conn = db.pool.acquire().await?;
    let link: Option<LinkRow> = sqlx::query_as(FIND_LINK)
        .bind(client_id)
        .bind(employment_id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(link) = link else {
        return Ok(None);
    };
    Ok(employments::find(&mut conn, employment_id)
        .await?
        .map(|employment| client_view(&link, &employment)))
}
