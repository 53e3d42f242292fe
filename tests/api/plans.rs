//! Reads by a list of ids cost what the list holds, not what the table holds: every registered
//! statement that selects rows by an id list (`["column" in N]`, what the loaders and the
//! page reads use) must reach its rows through an index. A statement that scans its table
//! instead answers as fast as any other on a small database and slows down with every row the
//! service stores.
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

/// SQLite's plan of a statement (`EXPLAIN QUERY PLAN`, which needs no values), one line a step.
async fn sqlite_plan(conn: &mut sqlx::AnyConnection, sql: &str, name: &str) -> Vec<String> {
    let rows: Vec<(i64, i64, i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}")))
        .fetch_all(conn)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    rows.into_iter().map(|row| row.3).collect()
}

for_both_backends! {
    async fn reads_by_id_list_use_an_index(backend) {
        let app = TestApp::spawn(backend).await;
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
                Backend::Sqlite => sqlite_scans(&sqlite_plan(&mut conn, sql, statement.name).await),
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

/// The user's missions statements that PostgreSQL keeps prepared (`missions::queries`): their
/// generic plan, made without the values, must be the backward walk of
/// `mission_spans_user_start` that stops after the page. Were it a read and sort of the user's
/// spans, a page of a long history would read all of it.
const PREPARED_PAGES: [(&str, roadlog::db::PerBackend); 4] = {
    use roadlog::domain::missions::queries::sql;
    [
        ("USER_MISSIONS", sql::USER_MISSIONS),
        ("USER_MISSIONS_IN_SCOPE", sql::USER_MISSIONS_IN_SCOPE),
        ("USER_MISSIONS_SINCE", sql::USER_MISSIONS_SINCE),
        ("USER_MISSIONS_SINCE_IN_SCOPE", sql::USER_MISSIONS_SINCE_IN_SCOPE),
    ]
};

for_both_backends! {
    async fn a_workers_page_walks_the_covering_index(backend) {
        let app = TestApp::spawn(backend).await;
        let db = &app.server.db;
        let mut conn = db.pool.acquire().await.unwrap();
        if backend == Backend::Postgres {
            // A long history for one worker, a short one for 400 others, and missions of two
            // companies: the statistics a generic plan is made from (the averages). Foreign
            // keys are not what this test is about: their triggers are off on this connection.
            for statement in [
                "SET session_replication_role = replica",
                "INSERT INTO missions (id, company_id, submitter_id, reception_time, creation_time) \
                 SELECT g, 1 + g % 2, 1, g * 3600, g * 3600 FROM generate_series(1, 5400) g",
                "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) \
                 SELECT 1, g, g * 3600, g * 3600 + 1800 FROM generate_series(1, 5000) g",
                "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) \
                 SELECT 1 + g, 5000 + g, g * 3600, g * 3600 + 1800 FROM generate_series(1, 400) g",
                "SET session_replication_role = DEFAULT",
                "VACUUM ANALYZE mission_spans",
                "VACUUM ANALYZE missions",
                "SET plan_cache_mode = force_generic_plan",
            ] {
                sqlx::query(statement).execute(&mut *conn).await.unwrap();
            }
        }
        for (name, statement) in PREPARED_PAGES {
            let sql = db.sql(statement);
            let plan: Vec<String> = match backend {
                Backend::Sqlite => sqlite_plan(&mut conn, sql, name).await,
                Backend::Postgres => {
                    sqlx::query(sqlx::AssertSqlSafe(format!("PREPARE page AS {sql}")))
                        .execute(&mut *conn)
                        .await
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    let values = if sql.contains("$8") {
                        "(1, 9000000, 9223372036854775807, 0, 9223372036854775807, 9223372036854775807, 51, '[1]')"
                    } else {
                        "(1, 9000000, 9223372036854775807, 0, 9223372036854775807, 9223372036854775807, 51)"
                    };
                    let rows: Vec<(String,)> =
                        sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN EXECUTE page{values}")))
                            .fetch_all(&mut *conn)
                            .await
                            .unwrap_or_else(|e| panic!("{name}: {e}"));
                    sqlx::query("DEALLOCATE page").execute(&mut *conn).await.unwrap();
                    rows.into_iter().map(|row| row.0.trim().to_string()).collect()
                }
            };
            let text = plan.join("\n");
            match backend {
                Backend::Sqlite => assert!(
                    text.contains("USING COVERING INDEX mission_spans_user_start"),
                    "{name}: the spans are not read from the covering index:\n{text}"
                ),
                Backend::Postgres => {
                    assert!(
                        text.contains("Index Only Scan Backward using mission_spans_user_start on mission_spans s"),
                        "{name}: the generic plan does not walk the index backwards:\n{text}"
                    );
                    assert!(
                        !text.contains("Sort") && !text.contains("Bitmap"),
                        "{name}: the generic plan reads and sorts the spans:\n{text}"
                    );
                }
            }
        }
        drop(conn);
        app.cleanup().await;
    }
}
