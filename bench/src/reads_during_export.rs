//! `reads_during_export`: whether building Excel reports slows the API. Read cases of
//! `cases.rs` (their own definitions, `READS`) are measured in interleaved halves of each round:
//! first with no report in progress, then while the service's worker builds the seeded company's
//! month without a pause (a feeder keeps `IN_PROGRESS` reports queued for the admin, checking
//! the built ones out as a user does). Each loaded run starts once a report is building (claimed
//! by the worker, read from the database) and records whether one still was at its end and how
//! many were built during it. The result per case is the median throughput and p99 of
//! each half and the median of the rounds' throughput ratios, with over without.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use roadlog::db::Db;
use serde::Serialize;
use tokio::sync::watch;

use crate::cases::{self, Case};
use crate::export_report::{month_request, post};
use crate::report::median;
use crate::seed::{Fixture, Plan};
use crate::servers::Server;
use crate::wrk::{self, Load, Outcome};

/// The measure's name (`--cases reads_during_export` runs it alone).
pub const CASE: &str = "reads_during_export";

/// The read cases measured: the 50-mission nested page and the admin's recap.
const READS: [&str; 2] = ["missions50_activities", "recap"];

/// Reports kept in progress while loaded: the worker's default concurrency (two builds at once,
/// `--export-workers`) and one waiting, so that a finished build is followed at once by the next.
const IN_PROGRESS: i64 = 3;

/// What a read case must keep of its throughput while reports are built.
const GOAL: f64 = 0.9;

/// How often the feeder checks the reports out and tops the queue up.
const FEED_EVERY: Duration = Duration::from_millis(200);

/// Reports claimed by a worker and not finished: the ones being built.
const BUILDING: &str = "SELECT COUNT(*) FROM exports WHERE status = 'work_in_progress' AND claimed_by IS NOT NULL";
const FAILED: &str = "SELECT COUNT(*) FROM exports WHERE status = 'failed'";

/// One read case on one server, without and with reports being built.
#[derive(Clone, Debug, Serialize)]
pub struct Reads {
    pub server: String,
    pub case: String,
    pub what: String,
    pub without: Vec<Outcome>,
    pub with: Vec<Outcome>,
    pub rps_without: f64,
    pub rps_with: f64,
    pub p99_ms_without: f64,
    pub p99_ms_with: f64,
    /// Throughput with over without, round by round, then the median.
    pub ratio: f64,
    /// Whether the ratio reaches [`GOAL`].
    pub met: bool,
    /// Reports being built at the start of each loaded run.
    pub building_at_start: Vec<i64>,
    /// Reports finished during each loaded run.
    pub built: Vec<usize>,
    /// Whether a report was still being built at the end of every loaded run.
    pub covered: bool,
}

/// Keeps reports queued in the background until stopped; counts those it checks out.
struct Feeder {
    stop: watch::Sender<bool>,
    built: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<Result<()>>,
}

impl Feeder {
    fn start(url: &str, token: &str, body: serde_json::Value) -> Feeder {
        let (stop, stopped) = watch::channel(false);
        let built = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn(feed(url.to_string(), token.to_string(), body, built.clone(), stopped));
        Feeder { stop, built, task }
    }

    fn built(&self) -> usize {
        self.built.load(Ordering::Relaxed)
    }

    /// Stops queueing, then waits until every queued report is built and checked out.
    async fn drain(self) -> Result<()> {
        let _ = self.stop.send(true);
        self.task.await?
    }
}

async fn feed(
    url: String,
    token: String,
    body: serde_json::Value,
    built: Arc<AtomicUsize>,
    mut stopped: watch::Receiver<bool>,
) -> Result<()> {
    let client = reqwest::Client::new();
    let mut drained_since: Option<Instant> = None;
    loop {
        let answer = post(&client, format!("{url}/exports/checkout"), &token, None).await?;
        let links = answer["ready_exports_links"].as_array().map_or(0, Vec::len);
        built.fetch_add(links, Ordering::Relaxed);
        let wip = answer["nb_wip_exports"]
            .as_i64()
            .context("a count of reports in progress")?;
        if *stopped.borrow() {
            if wip == 0 {
                return Ok(());
            }
            let since = *drained_since.get_or_insert_with(Instant::now);
            if since.elapsed() > Duration::from_secs(600) {
                bail!("{wip} reports still in progress 10 minutes after the last was queued");
            }
        } else {
            for _ in wip..IN_PROGRESS {
                post(
                    &client,
                    format!("{url}/companies/download_activity_report"),
                    &token,
                    Some(body.clone()),
                )
                .await?;
            }
        }
        tokio::select! {
            () = tokio::time::sleep(FEED_EVERY) => {}
            _ = stopped.changed() => {}
        }
    }
}

async fn count(db: &Db, statement: &'static str) -> Result<i64> {
    let (n,): (i64,) = sqlx::query_as(statement).fetch_one(&db.pool).await?;
    Ok(n)
}

/// Waits until the worker builds a report (it looks at the queue every second, and at once
/// when a build ends); how many it builds.
async fn until_building(db: &Db, feeder: &Feeder) -> Result<i64> {
    let waiting = Instant::now();
    loop {
        let building = count(db, BUILDING).await?;
        if building > 0 {
            return Ok(building);
        }
        if feeder.task.is_finished() {
            bail!("the feeder stopped");
        }
        if waiting.elapsed() > Duration::from_secs(60) {
            bail!("no report was claimed by the worker in a minute");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// One wrk run of `case` (wrk blocks; the feeder goes on on the runtime's other threads).
fn load(server: &Server, case: &Case, duration: Duration, scratch: &std::path::Path) -> Result<Outcome> {
    let load = Load {
        base_url: &server.url,
        requests: &case.requests,
        connections: case.connections,
        duration,
        check_status: case.check_status,
    };
    let outcome = tokio::task::block_in_place(|| wrk::run(&load, scratch))?;
    if outcome.errors + outcome.unexpected > 0 {
        bail!(
            "{CASE}: {} of {} failed {} times",
            case.name,
            server.name,
            outcome.errors + outcome.unexpected
        );
    }
    Ok(outcome)
}

/// Runs the measure against `server`, which serves the database at `url` seeded as `fixture`
/// (with the cursor deep in the veteran's history that the cases take).
pub async fn measure(
    server: &Server,
    url: &str,
    (fixture, cursor): &(Fixture, String),
    plan: Plan,
    rounds: usize,
    duration: Duration,
    scratch: &std::path::Path,
) -> Result<Vec<Reads>> {
    let reads: Vec<Case> = cases::roadlog(fixture, cursor, 0)
        .into_iter()
        .filter(|case| READS.contains(&case.name))
        .collect();
    for case in &reads {
        crate::verify(server, case).await?;
    }
    let db = Db::connect(url).await?;
    let body = month_request(fixture, plan);
    let mut without: Vec<Vec<Outcome>> = vec![Vec::new(); reads.len()];
    let mut with: Vec<Vec<Outcome>> = vec![Vec::new(); reads.len()];
    let mut at_start: Vec<Vec<i64>> = vec![Vec::new(); reads.len()];
    let mut built: Vec<Vec<usize>> = vec![Vec::new(); reads.len()];
    let mut covered = vec![true; reads.len()];
    for _ in 0..rounds.max(1) {
        let building = count(&db, BUILDING).await?;
        if building != 0 {
            bail!(
                "{CASE} on {}: {building} reports building before the quiet half",
                server.name
            );
        }
        for (i, case) in reads.iter().enumerate() {
            without[i].push(load(server, case, duration, scratch)?);
        }
        let feeder = Feeder::start(&server.url, &fixture.admin_token, body.clone());
        for (i, case) in reads.iter().enumerate() {
            let building = match until_building(&db, &feeder).await {
                Ok(building) => building,
                Err(error) => {
                    feeder.drain().await?;
                    bail!("{CASE} on {} before {}: {error}", server.name, case.name);
                }
            };
            let before = feeder.built();
            with[i].push(load(server, case, duration, scratch)?);
            covered[i] &= count(&db, BUILDING).await? > 0;
            at_start[i].push(building);
            built[i].push(feeder.built() - before);
        }
        feeder.drain().await?;
    }
    let failed = count(&db, FAILED).await?;
    db.pool.close().await;
    if failed > 0 {
        bail!(
            "{CASE} on {}: {failed} reports failed (see the server's log)",
            server.name
        );
    }
    let results: Vec<Reads> = reads
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let rps = |o: &[Outcome]| median(o.iter().map(Outcome::rps).collect());
            let p99 = |o: &[Outcome]| median(o.iter().map(|o| o.p99_us as f64 / 1000.0).collect());
            let ratio = median(
                with[i]
                    .iter()
                    .zip(&without[i])
                    .map(|(w, q)| w.rps() / q.rps().max(f64::MIN_POSITIVE))
                    .collect(),
            );
            Reads {
                server: server.name.to_string(),
                case: case.name.to_string(),
                what: case.what.to_string(),
                rps_without: rps(&without[i]),
                rps_with: rps(&with[i]),
                p99_ms_without: p99(&without[i]),
                p99_ms_with: p99(&with[i]),
                ratio,
                met: ratio >= GOAL,
                without: without[i].clone(),
                with: with[i].clone(),
                building_at_start: at_start[i].clone(),
                built: built[i].clone(),
                covered: covered[i],
            }
        })
        .collect();
    for r in &results {
        eprintln!(
            "  {CASE:<22} {:<9} {}: {:>8.0} req/s without, {:>8.0} with ({:.2}); reports built {:?}",
            r.server, r.case, r.rps_without, r.rps_with, r.ratio, r.built
        );
    }
    Ok(results)
}

/// The table's lines.
pub fn print(results: &[Reads]) {
    if results.is_empty() {
        return;
    }
    println!(
        "\n{CASE}: read cases without and with the seeded month's report being built \
         ({IN_PROGRESS} kept in progress; median req/s and p99 over the rounds; ratio: with / without, \
         goal ≥ {GOAL}):"
    );
    println!(
        "  {:<9} {:<22} {:>20} {:>20} {:>6} {:<4} {:<16} covered",
        "server", "case", "without", "with", "ratio", "met", "built per run"
    );
    for r in results {
        println!(
            "  {:<9} {:<22} {:>8.0} ({:>6.1} ms) {:>8.0} ({:>6.1} ms) {:>6.2} {:<4} {:<16} {}",
            r.server,
            r.case,
            r.rps_without,
            r.p99_ms_without,
            r.rps_with,
            r.p99_ms_with,
            r.ratio,
            if r.met { "yes" } else { "NO" },
            format!("{:?}", r.built),
            if r.covered { "yes" } else { "NO" }
        );
    }
}
