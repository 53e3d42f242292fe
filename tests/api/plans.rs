//! Reads by a list of ids cost what the list holds, not what the table holds: every registered
//! statement that selects rows by an id list (`["column" in N]`, what the loaders and the
//! page reads use) must reach its rows through an index. A statement that scans its table
//! instead answers as fast as any other on a small database and slows down with every row the
//! service stores (the expenditures of a page of missions were read by scanning every
//! expenditure: 2.8 ms on PostgreSQL with 6,000 of them, growing without bound).
//!
//! SQLite: the plan of every such statement (`EXPLAIN QUERY PLAN`, which needs no values) has
//! no full scan of a table. PostgreSQL: the same for the statements whose only parameter is the
//! list, planned for a list of three ids with sequential scans disabled, so that a scan shows
//! only when no index can serve the read (on a table this small the planner would otherwise
//! prefer a scan whatever the indexes).

use crate::support::{Backend, TestApp};

/// Whether a statement selects by an id list, in the spelling of `backend`.
fn reads_by_id_list(sql: &str, backend: Backend) -> bool {
    match backend {
        Backend::Sqlite => sql.contains("IN (SELECT value FROM json_each($"),
        Backend::Postgres => sql.contains("json_array_elements_text(CAST(CAST($"),
    }
}

/// The plan lines of SQLite that read a whole table. A virtual table is the id list itself;
/// a subquery or a common table expression (`CO-ROUTINE k`, `MATERIALIZE s`) is scanned as the
/// few rows it produced, which its own lines already account for.
fn sqlite_scans(plan: &[String]) -> Vec<String> {
    let derived: Vec<&str> = plan
        .iter()
        .filter_map(|line| {
            line.strip_prefix("CO-ROUTINE ")
                .or_else(|| line.strip_prefix("MATERIALIZE "))
        })
        .map(|name| name.split_whitespace().next().unwrap_or(name))
        .collect();
    plan.iter()
        .filter(|line| {
            let Some(scanned) = line.strip_prefix("SCAN ") else {
                return false;
            };
            let name = scanned.split_whitespace().next().unwrap_or(scanned);
            !line.contains("VIRTUAL TABLE") && !line.contains(" USING ") && !derived.contains(&name)
        })
        .cloned()
        .collect()
}

for_both_backends! {
    async fn reads_by_id_list_use_an_index(backend) {
        let Some(app) = TestApp::spawn(backend).await else { return };
        let db = &app.server.db;
        let mut conn = db.pool.acquire().await.unwrap();
        if backend == Backend::Postgres {
            sqlx::query("SET enable_seqscan = off").execute(&mut *conn).await.unwrap();
        }
        let mut checked = 0;
        let mut scans = Vec::new();
        for statement in roadlog::db::sql::registered() {
            let sql = db.sql(statement.statement);
            if !reads_by_id_list(sql, backend) {
                continue;
            }
            let found = match backend {
                Backend::Sqlite => {
                    let plan: Vec<(i64, i64, i64, String)> =
                        sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {}", sql)))
                            .fetch_all(&mut *conn)
                            .await
                            .unwrap_or_else(|e| panic!("{}: {e}", statement.name));
                    sqlite_scans(&plan.into_iter().map(|row| row.3).collect::<Vec<_>>())
                }
                Backend::Postgres => {
                    if sql.contains("$2") {
                        continue;
                    }
                    let plan: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN {}", sql)))
                        .bind("[1,2,3]")
                        .fetch_all(&mut *conn)
                        .await
                        .unwrap_or_else(|e| panic!("{}: {e}", statement.name));
                    plan.into_iter()
                        .map(|row| row.0.trim().to_string())
                        .filter(|line| line.contains("Seq Scan on "))
                        .collect()
                }
            };
            checked += 1;
            if !found.is_empty() {
                scans.push(format!("{}: {}", statement.name, found.join("; ")));
            }
        }
        assert!(checked >= 10, "{backend:?}: the id-list reads were found: {checked}");
        assert!(scans.is_empty(), "{backend:?}: reads by id list that scan a table:\n{}", scans.join("\n"));
        println!("{backend:?}: {checked} reads by id list, each through an index");
        drop(conn);
        app.cleanup().await;
    }
}
