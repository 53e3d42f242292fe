//! A worker's missions page reads as much after other workers' writes as before: the writes of
//! another company's worker (each one widening their span) leave no dead index entry and no
//! new table page on the page's way, so what the page reads does not depend on vacuum.
//! PostgreSQL runs here without autovacuum, which shows such churn at once; the answer is
//! checked on both databases.

use serde_json::json;

use crate::support::{Backend, TestApp, TestUser};

const CREATE: &str = "mutation($c: Int!) { activities { createMission(companyId: $c) { id } } }";
const LOG: &str = "mutation($m: Int!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: \"drive\", startTime: $s, endTime: $e, switch: false) { id } } }";
const PAGE: &str =
    "{ me { missions(first: 50) { edges { cursor node { id name activities { id startTime endTime } } } } } }";
const OPEN: i64 = i64::MAX;
/// The writer's writes after the first measure: enough that updates that are not heap-only
/// (an index entry and a table row each) would add several pages to the index and the table.
const WRITES: i64 = 900;
/// What the table or the index may grow by, in bytes (two pages): see the last assertions.
const SLACK: i64 = 2 * 8192;

async fn call(app: &TestApp, user: &TestUser, query: &str, variables: serde_json::Value) -> serde_json::Value {
    let body = app.as_user(user, query, variables).await;
    assert!(body.get("errors").is_none(), "{body}");
    body
}

async fn mission(app: &TestApp, user: &TestUser, company: i64) -> i64 {
    call(app, user, CREATE, json!({ "c": company })).await["data"]["activities"]["createMission"]["id"]
        .as_i64()
        .unwrap()
}

/// `count` activities of a minute each in `mission`, one after the other from `from`.
async fn log_minutes(app: &TestApp, user: &TestUser, mission: i64, from: i64, count: i64) {
    for n in 0..count {
        let start = from + n * 60;
        call(app, user, LOG, json!({ "m": mission, "s": start, "e": start + 60 })).await;
    }
}

/// What PostgreSQL reads for the first page of `user`'s missions with the plan it keeps for the
/// prepared statement (the generic plan): the plan's text, its shared buffers and heap fetches;
/// then the sizes in bytes of `mission_spans` and of `mission_spans_user_start`.
async fn page_reads(app: &TestApp, user: i64) -> (String, i64, i64, i64, i64) {
    let db = &app.server.db;
    let mut conn = db.pool.acquire().await.unwrap();
    let sql = db.sql(roadlog::domain::missions::queries::sql::USER_MISSIONS);
    sqlx::query("SET plan_cache_mode = force_generic_plan")
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "PREPARE churn_page (BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT) AS {sql}"
    )))
    .execute(&mut *conn)
    .await
    .unwrap();
    let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) EXECUTE churn_page({user}, {OPEN}, {OPEN}, {}, {OPEN}, {OPEN}, 51)",
        i64::MIN
    )))
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    for statement in ["DEALLOCATE churn_page", "RESET plan_cache_mode"] {
        sqlx::query(statement).execute(&mut *conn).await.unwrap();
    }
    let plan: Vec<String> = rows.into_iter().map(|r| r.0).collect();
    let number_after = |line: &str, key: &str| -> i64 {
        line.split(key)
            .nth(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect::<String>())
            .and_then(|digits| digits.parse().ok())
            .unwrap_or(0)
    };
    // The first `Buffers:` line is the top node's, which counts its children's; the planning's
    // come after the plan.
    let buffers = plan
        .iter()
        .find(|line| line.trim_start().starts_with("Buffers:"))
        .map(|line| number_after(line, "hit=") + number_after(line, "read="))
        .unwrap_or_else(|| panic!("no buffers in the plan:\n{}", plan.join("\n")));
    let fetches = plan.iter().map(|line| number_after(line, "Heap Fetches: ")).sum();
    let (table, index): (i64, i64) =
        sqlx::query_as("SELECT pg_relation_size('mission_spans'), pg_relation_size('mission_spans_user_start')")
            .fetch_one(&mut *conn)
            .await
            .unwrap();
    (plan.join("\n"), buffers, fetches, table, index)
}

on_both_backends! {
async fn a_workers_page_reads_as_much_after_others_write(app) {
    let day = (chrono::Utc::now().timestamp() / 86_400 - 30) * 86_400;
    let reader_admin = app.new_user("reader-admin@example.com").await;
    let reader = app.new_user("reader@example.com").await;
    let reader_company = app.new_company(&reader_admin, "Transports Martin").await;
    app.hire(&reader_admin, reader_company, &reader).await;
    let writer_admin = app.new_user("writer-admin@example.com").await;
    let writer = app.new_user("writer@example.com").await;
    let writer_company = app.new_company(&writer_admin, "Express Durand").await;
    app.hire(&writer_admin, writer_company, &writer).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'").execute(&app.server.db.pool).await.unwrap();

    // The reader's history: a mission a day, two activities each.
    for d in 0..12 {
        let m = mission(app, &reader, reader_company).await;
        let start = day + d * 86_400 + 6 * 3600;
        call(app, &reader, LOG, json!({ "m": m, "s": start, "e": start + 3600 })).await;
        call(app, &reader, LOG, json!({ "m": m, "s": start + 3600, "e": start + 7200 })).await;
    }
    // The writer logs one minute after another in one mission of the other company: each write
    // moves the end of their span.
    let busy = mission(app, &writer, writer_company).await;
    if app.backend == Backend::Postgres {
        // Other workers' long histories (their foreign keys' triggers off on this connection),
        // and the statistics of it all: the generic plan of a page is then the index walk that
        // stops after the page, as in production, not a read of a table of one page.
        let mut conn = app.server.db.pool.acquire().await.unwrap();
        for statement in [
            "SET session_replication_role = replica",
            "INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) \
             SELECT 1000000 + g % 3, 1000000 + g, g * 3600, g * 3600 + 1800 FROM generate_series(1, 3000) g",
            "SET session_replication_role = DEFAULT",
            "VACUUM ANALYZE mission_spans",
        ] {
            sqlx::query(statement).execute(&mut *conn).await.unwrap();
        }
    }
    let from = day + 20 * 86_400;
    log_minutes(app, &writer, busy, from, 20).await;
    let before_page = call(app, &reader, PAGE, json!({})).await;
    let before = match app.backend {
        Backend::Postgres => Some(page_reads(app, reader.id).await),
        Backend::Sqlite => None,
    };
    log_minutes(app, &writer, busy, from + 20 * 60, WRITES).await;
    let after_page = call(app, &reader, PAGE, json!({})).await;
    assert_eq!(after_page, before_page, "the reader's page changed with another company's writes");
    assert_eq!(after_page["data"]["me"]["missions"]["edges"].as_array().unwrap().len(), 12);

    let Some((before_plan, before_buffers, before_fetches, before_table, before_index)) = before else {
        return;
    };
    let (plan, buffers, fetches, table, index) = page_reads(app, reader.id).await;
    assert!(
        plan.contains("Index Only Scan Backward using mission_spans_user_start"),
        "the page's plan no longer walks the index:\n{plan}\n(before the writes:\n{before_plan})"
    );
    assert!(
        buffers <= before_buffers && fetches <= before_fetches,
        "the page read {buffers} buffers and fetched {fetches} table rows after {WRITES} more writes, \
         {before_buffers} and {before_fetches} before:\n{plan}\n(before:\n{before_plan})"
    );
    // A span's end moved WRITES times: heap-only updates, reclaimed by the page itself, add
    // neither index entries nor table pages. A page can be pruned only of the versions no open
    // snapshot sees: while one of the server's background transactions (the outbox, the
    // reports' claims) holds an older snapshot, an update finds no room and goes to another
    // page, so a page or two may be added; updates that are not heap-only would add one index
    // entry and one table row per write, many pages.
    assert!(
        index <= before_index + SLACK,
        "mission_spans_user_start grew with the writes: {before_index} -> {index} bytes"
    );
    assert!(
        table <= before_table + SLACK,
        "mission_spans grew with the writes: {before_table} -> {table} bytes"
    );
}
}
