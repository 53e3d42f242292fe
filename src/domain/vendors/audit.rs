//! The audit trail of software vendors: one row per operation a client made on a company, with
//! an API key on `/protected` or with an employee's employment token on the main API, for the
//! company's admins to read (`Company.authorizedClients { actions }`). It names the operation,
//! the credential and when: never a token, a key or the data sent.

use crate::db::{Db, now};
use crate::errors::AppResult;

/// Longest operation text kept (a GraphQL document may select many root fields).
const MAX_OPERATION_CHARS: usize = 200;

/// Most actions answered at once.
pub const MAX_ACTIONS: i64 = 200;

pub mod sql {
    use const_format::concatcp;

    const ACTION_COLUMNS: &str = "SELECT a.created_at, a.client_id, c.name, a.operation, a.api_key_id, l.employment_id, \
         l.user_id FROM vendor_audit a JOIN oauth_clients c ON c.id = a.client_id \
         LEFT JOIN client_employments l ON l.id = a.client_employment_id";
    const ACTION_ORDER: &str = " ORDER BY a.created_at DESC, a.id DESC LIMIT $2";

    crate::statements! {
        pub const RECORD: &str = "INSERT INTO vendor_audit (client_id, company_id, api_key_id, client_employment_id, \
             operation, created_at) VALUES ($1, $2, $3, $4, $5, $6)";
        /// `$1` company, `$2` how many.
        pub const ACTIONS: &str = concatcp!(ACTION_COLUMNS, " WHERE a.company_id = $1", ACTION_ORDER);
        /// `$1` company, `$2` how many, `$3` the client.
        pub const ACTIONS_OF_CLIENT: &str =
            concatcp!(ACTION_COLUMNS, " WHERE a.company_id = $1 AND a.client_id = $3", ACTION_ORDER);
    }
}

/// Which credential the software used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credential {
    /// An API key on `/protected` (its id).
    ApiKey(i64),
    /// An employee's employment token (the `client_employments` row).
    EmploymentToken(i64),
}

/// One recorded operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub time: i64,
    pub client_id: i64,
    pub client_name: String,
    pub operation: String,
    /// `API_KEY` or `EMPLOYMENT_TOKEN`.
    pub credential: &'static str,
    pub employment_id: Option<i64>,
    pub user_id: Option<i64>,
}

/// Records an operation of `client_id` on `company_id`.
pub async fn record(
    db: &Db,
    client_id: i64,
    company_id: i64,
    credential: Credential,
    operation: &str,
) -> AppResult<()> {
    let (api_key, link) = match credential {
        Credential::ApiKey(id) => (Some(id), None),
        Credential::EmploymentToken(id) => (None, Some(id)),
    };
    let operation: String = operation.chars().take(MAX_OPERATION_CHARS).collect();
    sqlx::query(sql::RECORD)
        .bind(client_id)
        .bind(company_id)
        .bind(api_key)
        .bind(link)
        .bind(operation)
        .bind(now())
        .execute(db)
        .await?;
    Ok(())
}

/// Records an operation, logging rather than answering a failure: the operation itself is done
/// and committed, and its caller must not believe otherwise.
pub async fn record_or_log(db: &Db, client_id: i64, company_id: i64, credential: Credential, operation: &str) {
    if let Err(error) = record(db, client_id, company_id, credential, operation).await {
        tracing::error!(client_id, company_id, operation, error = %error.chain(), "vendor audit not recorded");
    }
}

/// The latest actions on the company (of one client, or of all), most recent first; `first`
/// is checked by the caller (0 to [`MAX_ACTIONS`]).
pub async fn actions(db: &Db, company_id: i64, client_id: Option<i64>, first: i64) -> AppResult<Vec<Action>> {
    type Row = (i64, i64, String, String, Option<i64>, Option<i64>, Option<i64>);
    let query = match client_id {
        None => sqlx::query_as::<_, Row>(sql::ACTIONS).bind(company_id).bind(first),
        Some(client) => sqlx::query_as::<_, Row>(sql::ACTIONS_OF_CLIENT)
            .bind(company_id)
            .bind(first)
            .bind(client),
    };
    let rows = query.fetch_all(db).await?;
    Ok(rows
        .into_iter()
        .map(
            |(time, client_id, client_name, operation, api_key, employment_id, user_id)| {
                let by_key = api_key.is_some();
                Action {
                    time,
                    client_id,
                    client_name,
                    operation,
                    credential: if by_key { "API_KEY" } else { "EMPLOYMENT_TOKEN" },
                    employment_id: employment_id.filter(|_| !by_key),
                    user_id: user_id.filter(|_| !by_key),
                }
            },
        )
        .collect())
}
