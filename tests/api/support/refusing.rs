//! Makes one table of a test's own database refuse a kind of statement (a trigger that raises,
//! on SQLite and on PostgreSQL), so that a test can fail the second step of a change and show
//! that the first one did not stay behind.

use super::{Backend, TestApp};

/// The statement that creates the trigger refusing `operation` (`INSERT`, `UPDATE`, `DELETE`)
/// on `table`.
fn create(backend: Backend, table: &str, operation: &str) -> Vec<String> {
    let name = format!("refuse_{}_{table}", operation.to_lowercase());
    match backend {
        Backend::Sqlite => vec![format!(
            "CREATE TRIGGER {name} BEFORE {operation} ON {table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
        )],
        Backend::Postgres => vec![
            "CREATE OR REPLACE FUNCTION refused_by_the_test() RETURNS trigger LANGUAGE plpgsql AS \
             $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$"
                .to_string(),
            format!(
                "CREATE TRIGGER {name} BEFORE {operation} ON {table} FOR EACH ROW EXECUTE FUNCTION refused_by_the_test()"
            ),
        ],
    }
}

/// From now on, `operation` on `table` fails.
pub async fn refuse(app: &TestApp, table: &str, operation: &str) {
    for statement in create(app.backend, table, operation) {
        sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
            .execute(&app.server.db.pool)
            .await
            .unwrap();
    }
}

/// Undoes [`refuse`].
pub async fn allow(app: &TestApp, table: &str, operation: &str) {
    let name = format!("refuse_{}_{table}", operation.to_lowercase());
    let statement = match app.backend {
        Backend::Sqlite => format!("DROP TRIGGER {name}"),
        Backend::Postgres => format!("DROP TRIGGER {name} ON {table}"),
    };
    sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
        .execute(&app.server.db.pool)
        .await
        .unwrap();
}
