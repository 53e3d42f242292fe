//! What the company, employment and invitation tests share: the GraphQL fragment of an
//! employment, the life-cycle mutations, today's date, and the sandbox outbox.

use roadlog_client::schema;
use serde_json::Value;

use super::{TestApp, TestUser};

/// The fields of an employment the tests read.
#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Employment")]
pub struct EmploymentFields {
    pub id: i32,
    pub company_id: i32,
    pub user_id: Option<i32>,
    pub has_admin_rights: Option<bool>,
    pub validation_status: Option<String>,
    pub status: Option<String>,
    pub is_primary: Option<bool>,
    pub is_acknowledged: Option<bool>,
    pub start_date: String,
    pub end_date: Option<String>,
}

/// Today, as the API writes dates.
pub fn today() -> String {
    chrono::Utc::now().date_naive().format("%Y-%m-%d").to_string()
}

/// The life-cycle mutations of an employment `$e`.
pub const VALIDATE: &str = "mutation($e: Int!) { employments { validateEmployment(employmentId: $e) { id status } } }";
pub const REJECT: &str = "mutation($e: Int!) { employments { rejectEmployment(employmentId: $e) { id status } } }";
pub const CANCEL: &str = "mutation($e: Int!) { employments { cancelEmployment(employmentId: $e) { success } } }";
pub const TERMINATE: &str = "mutation($e: Int!, $d: Date) { employments { terminateEmployment(employmentId: $e, endDate: $d) { id endDate status } } }";
pub const ROLE: &str = "mutation($e: Int!, $a: Boolean!) { employments { changeEmployeeRole(employmentId: $e, hasAdminRights: $a) { id } } }";

/// The sandbox's mail to `to`, read as the operator does (`roadlog outbox list`).
pub async fn outbox(app: &TestApp, to: &str) -> Vec<Value> {
    let output = crate::support::process::command(
        &["outbox", "list", "--json", "--to", to],
        &[("DATABASE_URL", &app.database_url)],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Inserts `count` workers (ids from `first_id`, named `Jean Driver<n>`, e-mails
/// `driver<n>@example.com`) employed by `company` since 2020, straight into the database inside
/// `tx`: the export tests need many employees, and the API would take minutes to create them.
pub async fn insert_bare_employees(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    company: i64,
    first_id: i64,
    count: i64,
) -> Vec<i64> {
    let mut ids = Vec::new();
    for e in 0..count {
        let user = first_id + e;
        sqlx::query("INSERT INTO users (id, email, password_hash, first_name, last_name, creation_time) VALUES ($1, $2, 'x', 'Jean', $3, 0)")
            .bind(user)
            .bind(format!("driver{e}@example.com"))
            .bind(format!("Driver{e}"))
            .execute(&mut **tx)
            .await
            .unwrap();
        sqlx::query("INSERT INTO employments (user_id, company_id, reception_time, validation_status, start_date, is_primary) VALUES ($1, $2, 0, 'approved', '2020-01-01', 1)")
            .bind(user)
            .bind(company)
            .execute(&mut **tx)
            .await
            .unwrap();
        ids.push(user);
    }
    ids
}

/// A mission a day for `user` in `company`, each starting at one of `starts` (Unix seconds) with
/// six activities of an hour, 90 minutes apart (drive, work, drive, support, drive, work),
/// straight into the database inside `tx`: the export benchmarks' working days.
pub async fn insert_days_of_work(tx: &mut sqlx::Transaction<'_, sqlx::Any>, company: i64, user: i64, starts: &[i64]) {
    let mut values = Vec::new();
    for &start in starts {
        let (mission,): (i64,) = sqlx::query_as(
            "INSERT INTO missions (company_id, submitter_id, reception_time, creation_time) VALUES ($1, $2, 0, 0) RETURNING id",
        )
        .bind(company)
        .bind(user)
        .fetch_one(&mut **tx)
        .await
        .unwrap();
        for (k, kind) in ["drive", "work", "drive", "support", "drive", "work"]
            .iter()
            .enumerate()
        {
            let s = start + k as i64 * 5400;
            values.push(format!(
                "({mission}, {user}, {user}, '{kind}', {s}, {s}, {s}, {}, {})",
                s + 3600,
                s + 3600
            ));
        }
    }
    if values.is_empty() {
        return;
    }
    let sql = format!(
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) VALUES {}",
        values.join(", ")
    );
    sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut **tx).await.unwrap();
}

/// The exports' company: its admin, and Élodie Müller (accents in both names) hired today at
/// "Transports Martin"; answers `(admin, worker, company)`.
pub async fn elodie_at_transports_martin(app: &TestApp) -> (TestUser, TestUser, i64) {
    let admin = app.new_user("admin@example.com").await;
    let worker = app.new_user("elodie@example.com").await;
    sqlx::query("UPDATE users SET first_name = 'Élodie', last_name = 'Müller' WHERE id = $1")
        .bind(worker.id)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    let company = app.new_company(&admin, "Transports Martin").await;
    app.hire(&admin, company, &worker).await;
    (admin, worker, company)
}
