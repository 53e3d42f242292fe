//! `nested_after_writes`: whether a read depends on vacuum. The veteran's nested page (the
//! request of `missions50_activities`) is measured, then the 32 workers of another company log
//! `writes` activities between them, each one minute after their last (so each write moves the
//! end of their span, the row update of every write), then the page is measured again. With
//! autovacuum off (as on the benchmark's PostgreSQL) or between two vacuum passes, a row version
//! left dead by every write on the page's way would show as a fall of the second figure; the
//! ratio of the two is the result. On PostgreSQL the spans' table statistics follow (dead rows,
//! heap-only updates).

use std::time::Duration;

use anyhow::{Result, bail};
use futures::{StreamExt, TryStreamExt, stream};
use serde::Serialize;
use sqlx::Connection;

use crate::cases;
use crate::seed::{self, Fixture, WRITERS, WRITES_FROM};
use crate::servers::Server;
use crate::wrk::{self, Load, Outcome};

/// The case's name (`--cases nested_after_writes` runs it alone).
pub const CASE: &str = "nested_after_writes";

/// The writes of the full run; the smoke run writes fewer.
pub const WRITES: usize = 50_000;
pub const SMOKE_WRITES: usize = 640;

/// The rows of `mission_spans` after the writes, as PostgreSQL's statistics count them.
#[derive(Clone, Debug, Serialize)]
pub struct SpanRows {
    pub live: i64,
    pub dead: i64,
    pub updates: i64,
    pub heap_only_updates: i64,
}

/// The case's outcome on one database.
#[derive(Clone, Debug, Serialize)]
pub struct Churn {
    pub database: String,
    pub writes: usize,
    pub before: Outcome,
    pub after: Outcome,
    /// Throughput after the writes over throughput before.
    pub ratio: f64,
    pub spans: Option<SpanRows>,
}

/// One writer's activities, in order: `count` minutes from `from`.
async fn write_minutes(
    client: &reqwest::Client,
    base_url: &str,
    token: &str,
    mission: i64,
    from: i64,
    count: usize,
) -> Result<()> {
    for n in 0..count as i64 {
        let start = from + n * 60;
        let query = format!(
            "mutation {{ activities {{ logActivity(missionId: {mission}, type: \"drive\", startTime: {start}, endTime: {}, switch: false) {{ id }} }} }}",
            start + 60
        );
        let answer: serde_json::Value = client
            .post(format!("{base_url}/api/graphql"))
            .bearer_auth(token)
            .json(&serde_json::json!({ "query": query }))
            .send()
            .await?
            .json()
            .await?;
        if answer.get("errors").is_some() {
            bail!("a write of {CASE} was refused: {answer}");
        }
    }
    Ok(())
}

/// The statistics of `mission_spans` on the PostgreSQL database at `url`.
async fn span_rows(url: &str) -> Result<SpanRows> {
    // The server's connections report their counts when idle, within a second.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut conn = sqlx::PgConnection::connect(url).await?;
    let (live, dead, updates, heap_only_updates): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT n_live_tup, n_dead_tup, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'mission_spans'",
    )
    .fetch_one(&mut conn)
    .await?;
    Ok(SpanRows {
        live,
        dead,
        updates,
        heap_only_updates,
    })
}

/// Runs the case against `server`, serving the database at `url` (named `database`).
pub async fn measure(
    server: &Server,
    database: &str,
    url: &str,
    fixture: &Fixture,
    writes: usize,
    duration: Duration,
    scratch: &std::path::Path,
) -> Result<Churn> {
    let db = roadlog::db::Db::connect(url).await?;
    let writers = seed::other_company(&db, WRITERS).await?;
    db.pool.close().await;
    let page = cases::nested_page(fixture);
    let load = Load {
        base_url: &server.url,
        requests: &page,
        connections: 32,
        duration,
        check_status: Some(200),
    };
    let before = wrk::run(&load, scratch)?;
    // Far from every other write of the run: another company, days of their own.
    let from = WRITES_FROM - 400 * 86_400;
    let per_writer = writes.div_ceil(writers.len());
    let client = reqwest::Client::new();
    stream::iter(&writers)
        .map(|(token, mission)| write_minutes(&client, &server.url, token, *mission, from, per_writer))
        .buffer_unordered(writers.len())
        .try_collect::<()>()
        .await?;
    let after = wrk::run(&load, scratch)?;
    let spans = match database {
        "postgres" => Some(span_rows(url).await?),
        _ => None,
    };
    let ratio = after.rps() / before.rps().max(f64::MIN_POSITIVE);
    eprintln!(
        "  {CASE:<22} {database:<9} {:>9.0} req/s before, {:>9.0} after {} writes ({ratio:.2}){}",
        before.rps(),
        after.rps(),
        per_writer * writers.len(),
        spans
            .as_ref()
            .map(|s| format!(
                "; mission_spans: {} live, {} dead rows, {} of {} updates heap-only",
                s.live, s.dead, s.heap_only_updates, s.updates
            ))
            .unwrap_or_default()
    );
    Ok(Churn {
        database: database.to_string(),
        writes: per_writer * writers.len(),
        before,
        after,
        ratio,
        spans,
    })
}

/// The table's lines.
pub fn print(results: &[Churn]) {
    if results.is_empty() {
        return;
    }
    println!("\n{CASE}: the veteran's nested page before and after other workers' writes (req/s, p99):");
    for c in results {
        let spans = c
            .spans
            .as_ref()
            .map(|s| {
                format!(
                    "   mission_spans: {} live, {} dead, {}/{} updates heap-only",
                    s.live, s.dead, s.heap_only_updates, s.updates
                )
            })
            .unwrap_or_default();
        println!(
            "  {:<9} {:>8.0} ({:.1} ms) -> {:>8.0} ({:.1} ms) after {} writes: ×{:.2}{spans}",
            c.database,
            c.before.rps(),
            c.before.p99_us as f64 / 1000.0,
            c.after.rps(),
            c.after.p99_us as f64 / 1000.0,
            c.writes,
            c.ratio
        );
    }
}
