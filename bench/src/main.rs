//! The load benchmark (`bench/README.md`). In one run: the floor (bare warp + async-graphql,
//! no database) and Roadlog on SQLite and on PostgreSQL, each database seeded through Roadlog's
//! own services; every case driven by wrk in interleaved rounds; a table of req/s, p50, p99,
//! errors and the ratio to the floor, the servers' peak memory, and the same as JSON.
//!
//! `--smoke` runs every case for a second on a small seed: CI runs it so the benchmark cannot
//! rot. Performance is judged by this program, never by timed assertions in tests.

mod cases;
mod churn;
mod export_report;
mod profile;
mod reads_during_export;
mod rebuild;
mod report;
mod seed;
mod servers;
mod wrk;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use roadlog::config::Environment;
use roadlog::db::Db;
use sqlx::Connection;

use cases::{Case, Goal, Side};
use report::Row;
use seed::{Fixture, Plan};
use servers::Server;

#[derive(Parser)]
#[command(about = "Roadlog's load benchmark against the bare framework")]
struct Args {
    /// A second per case, one round, a small seed (what CI runs).
    #[arg(long)]
    smoke: bool,
    /// Seconds per case and round.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Interleaved rounds; the table shows medians.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Multiplies the seeded data (employees and the long history), to compare costs at 1× and 10×.
    #[arg(long, default_value_t = 1)]
    scale: usize,
    /// Only these cases (comma-separated names), besides the floor's.
    #[arg(long, value_delimiter = ',')]
    cases: Vec<String>,
    /// The PostgreSQL server (a database is created on it for the run, and dropped).
    #[arg(
        long,
        env = "TEST_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    postgres: String,
    /// Skip PostgreSQL.
    #[arg(long)]
    no_postgres: bool,
    /// Skip SQLite.
    #[arg(long)]
    no_sqlite: bool,
    /// Where the results go as JSON.
    #[arg(long, default_value = "bench/results.json")]
    json: PathBuf,
    /// Records a CPU profile of the server (perf, folded stacks and a flame graph when
    /// inferno is installed) during each case's first round, into this folder.
    #[arg(long)]
    profile: Option<PathBuf>,
    /// The roadlog binary (default: beside this one).
    #[arg(long)]
    roadlog: Option<PathBuf>,
    /// The floor binary (default: beside this one).
    #[arg(long)]
    floor: Option<PathBuf>,
    /// Keeps the seeded databases after the run (the SQLite file and the PostgreSQL database,
    /// whose URLs are printed), to profile or explain queries on them afterwards.
    #[arg(long)]
    keep_databases: bool,
}

fn beside_me(name: &str) -> Result<PathBuf> {
    Ok(std::env::current_exe()?
        .parent()
        .context("the benchmark's folder")?
        .join(name))
}

/// A fresh database of the run, migrated, claimed for the sandbox and seeded.
async fn prepare(url: &str, plan: Plan) -> Result<Fixture> {
    let db = Db::connect(url).await?;
    db.migrate().await?;
    db.claim_environment(Environment::Sandbox).await?;
    let started = Instant::now();
    let fixture = seed::seed(&db, plan).await?;
    eprintln!("seeded {url} in {:.1} s", started.elapsed().as_secs_f64());
    db.pool.close().await;
    Ok(fixture)
}

/// One request of a fixed case, checked before the case is loaded: the expected status, no
/// GraphQL error; prints the answer's size so a case can be seen to read what it claims.
async fn verify(server: &Server, case: &Case) -> Result<()> {
    let wrk::Requests::Fixed {
        method,
        path,
        headers,
        body,
    } = &case.requests
    else {
        return Ok(());
    };
    let client = reqwest::Client::new();
    let mut request = client
        .request(method.parse()?, format!("{}{}", server.url, path))
        .body(body.clone());
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let answer = request.send().await?;
    let status = answer.status().as_u16();
    let expected = case.check_status.unwrap_or(200);
    // A case asking a compressed answer must get it in that coding (its content was checked by
    // the same request's uncompressed case); its size is the one on the wire.
    let asked = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("accept-encoding"))
        .map(|(_, value)| value.as_str());
    if let Some(coding) = asked {
        let got = answer
            .headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let size = answer.bytes().await?.len();
        if status != expected || got.as_deref() != Some(coding) {
            bail!(
                "{} on {}: expected {expected} in {coding}, got {status} in {got:?}",
                case.name,
                server.name
            );
        }
        eprintln!(
            "  {:<22} {:<9} {status}, {size} bytes ({coding})",
            case.name, server.name
        );
        return Ok(());
    }
    let text = answer.text().await?;
    // A `me` of null would measure an anonymous answer, not the case.
    if status != expected || (status == 200 && (text.contains("\"errors\"") || text.contains("\"me\":null"))) {
        bail!(
            "{} on {}: expected {expected} without errors, got {status}: {text}",
            case.name,
            server.name
        );
    }
    eprintln!("  {:<22} {:<9} {status}, {} bytes", case.name, server.name, text.len());
    Ok(())
}

/// The cases run with and without the access log.
const LOG_COST_CASES: [&str; 2] = ["typename", "missions50"];

/// Per case, the throughput lost to logging: 1 − logged / quiet, median over the rounds.
fn log_costs(rows: &[Row]) -> BTreeMap<String, f64> {
    let find = |server: &str, case: &str| rows.iter().find(|r| r.server == server && r.case == case);
    LOG_COST_CASES
        .iter()
        .filter_map(|case| {
            let (logged, quiet) = (find("sqlite", case)?, find("sqlite-nolog", case)?);
            let mut costs: Vec<f64> = logged
                .rounds
                .iter()
                .zip(&quiet.rounds)
                .map(|(l, q)| 1.0 - l.rps() / q.rps().max(f64::MIN_POSITIVE))
                .collect();
            costs.sort_by(f64::total_cmp);
            Some((case.to_string(), costs[costs.len() / 2]))
        })
        .collect()
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = Args::parse();
    let plan = if args.smoke {
        args.seconds = 1;
        args.rounds = 1;
        Plan {
            employees: 8,
            days: 3,
            history: 120,
        }
    } else {
        Plan {
            employees: 200 * args.scale,
            days: 30,
            history: 5000 * args.scale,
        }
    };
    let roadlog = args.roadlog.clone().map_or_else(|| beside_me("roadlog"), Ok)?;
    let floor_binary = args.floor.clone().map_or_else(|| beside_me("roadlog-floor"), Ok)?;
    let scratch = std::env::temp_dir().join(format!("roadlog-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let outcome = run(&args, plan, &roadlog, &floor_binary, &scratch).await;
    if args.keep_databases {
        eprintln!("kept: {}", scratch.display());
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    outcome
}

async fn run(
    args: &Args,
    plan: Plan,
    roadlog: &std::path::Path,
    floor_binary: &std::path::Path,
    scratch: &std::path::Path,
) -> Result<()> {
    eprintln!("plan: {plan:?}, {} s × {} rounds per case", args.seconds, args.rounds);
    let mut databases: Vec<(&'static str, String)> = Vec::new();
    if !args.no_sqlite {
        databases.push(("sqlite", format!("sqlite://{}/bench.db?mode=rwc", scratch.display())));
    }
    // A database of this run only, so that two runs (CI's smoke and a full run, say) never meet.
    // Its name is made of our process id, digits only: nothing outside this program shapes it.
    let pg_name = format!("roadlog_bench_{}", std::process::id());
    if !args.no_postgres {
        let mut admin = sqlx::PgConnection::connect(&args.postgres)
            .await
            .context("connecting to PostgreSQL")?;
        for name in [pg_name.clone(), format!("{pg_name}_floor")] {
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut admin)
                .await?;
        }
        let mut url = url::Url::parse(&args.postgres)?;
        url.set_path(&pg_name);
        databases.push(("postgres", url.to_string()));
    }
    let result = measure(args, plan, roadlog, floor_binary, scratch, &databases).await;
    if args.keep_databases {
        for (name, url) in &databases {
            eprintln!("kept the {name} database: {url}");
        }
    } else if !args.no_postgres {
        let mut admin = sqlx::PgConnection::connect(&args.postgres).await?;
        for name in [pg_name.clone(), format!("{pg_name}_floor")] {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&mut admin)
            .await?;
        }
    }
    result
}

async fn measure(
    args: &Args,
    plan: Plan,
    roadlog: &std::path::Path,
    floor_binary: &std::path::Path,
    scratch: &std::path::Path,
    databases: &[(&'static str, String)],
) -> Result<()> {
    let mut servers = vec![
        (Server::floor("floor", floor_binary, None)?, None),
        (
            Server::dressed_floor("floor-dressed", floor_binary, &scratch.join("floor-dressed.log"))?,
            None,
        ),
    ];
    let mut rebuilds = Vec::new();
    for (name, url) in databases {
        // The database floor: the same request as `missions50`, answered with the least a
        // database-backed answer does, on a database of its own beside Roadlog's.
        let floor_url = match *name {
            "sqlite" => format!("sqlite://{}/floor.db?mode=rwc", scratch.display()),
            _ => {
                let mut floor_url = url::Url::parse(url)?;
                floor_url.set_path(&format!("{}_floor", floor_url.path().trim_start_matches('/')));
                floor_url.to_string()
            }
        };
        let floor_name = if *name == "sqlite" {
            "floor-sqlite"
        } else {
            "floor-postgres"
        };
        servers.push((Server::floor(floor_name, floor_binary, Some(&floor_url))?, None));
        let fixture = prepare(url, plan).await?;
        rebuilds.push(rebuild::time(roadlog, name, url, &fixture, plan, args.rounds)?);
        let server = Server::roadlog(name, roadlog, url, &scratch.join(format!("{name}.log")), false)?;
        let cursor = seed::deep_cursor(&server.url, &fixture.history_token, plan.history - 60).await?;
        if *name == "sqlite" {
            // The same database served without the access log: what logging costs per request.
            let quiet = Server::roadlog("sqlite-nolog", roadlog, url, &scratch.join("quiet.log"), true)?;
            servers.push((quiet, Some((fixture.clone(), cursor.clone()))));
        }
        servers.push((server, Some((fixture, cursor))));
    }
    let selected =
        |case: &Case| case.side == Side::Floor || args.cases.is_empty() || args.cases.iter().any(|c| c == case.name);
    // The quiet server runs the two cases where a log line weighs most; its writes would meet
    // the logged server's on the same database.
    let cases_of = |server: &Server, fixture: &Option<(Fixture, String)>, slot: i64| -> Vec<Case> {
        match fixture {
            None if server.name == "floor" => cases::floor(),
            None if server.name == "floor-dressed" => cases::floor_dressed(),
            None => cases::floor_database(),
            Some((fixture, cursor)) => cases::roadlog(fixture, cursor, slot),
        }
        .into_iter()
        .filter(selected)
        .filter(|case| server.name != "sqlite-nolog" || LOG_COST_CASES.contains(&case.name))
        .collect()
    };
    for (server, fixture) in &servers {
        for case in cases_of(server, fixture, 0) {
            verify(server, &case).await?;
        }
    }

    let mut outcomes: BTreeMap<(String, &'static str), (String, Vec<wrk::Outcome>)> = BTreeMap::new();
    let duration = Duration::from_secs(args.seconds);
    for round in 0..args.rounds {
        eprintln!("round {} of {}", round + 1, args.rounds);
        for (server, fixture) in &servers {
            for case in cases_of(server, fixture, round as i64 + 1) {
                let load = wrk::Load {
                    base_url: &server.url,
                    requests: &case.requests,
                    connections: case.connections,
                    duration,
                    check_status: case.check_status,
                };
                let recording = match &args.profile {
                    Some(dir) if round == 0 => Some(profile::start(dir, server.name, case.name, server.pid())?),
                    _ => None,
                };
                let outcome = wrk::run(&load, scratch)?;
                if let Some(recording) = recording {
                    for file in recording.finish()? {
                        eprintln!("    profile: {}", file.display());
                    }
                }
                eprintln!("  {:<22} {:<9} {:>9.0} req/s", case.name, server.name, outcome.rps());
                outcomes
                    .entry((server.name.to_string(), case.name))
                    .or_insert_with(|| (case.what.to_string(), Vec::new()))
                    .1
                    .push(outcome);
            }
        }
    }

    // After the read cases: a report is a job written and built in the background.
    let mut reports = Vec::new();
    if args.cases.is_empty() || args.cases.iter().any(|c| c == export_report::CASE) {
        for (server, fixture) in &servers {
            let (Some((fixture, _)), true) = (fixture, databases.iter().any(|(name, _)| *name == server.name)) else {
                continue;
            };
            reports.push(export_report::time(server.name, &server.url, fixture, plan, args.rounds).await?);
        }
    }

    // The read cases again, without and with reports being built (whose jobs are writes).
    let mut during_export = Vec::new();
    if args.cases.is_empty() || args.cases.iter().any(|c| c == reads_during_export::CASE) {
        for (server, fixture) in &servers {
            let (Some(fixture), Some((_, url))) = (fixture, databases.iter().find(|(name, _)| *name == server.name))
            else {
                continue;
            };
            let measured =
                reads_during_export::measure(server, url, fixture, plan, args.rounds, duration, scratch).await?;
            during_export.extend(measured);
        }
    }

    // Last: its writes would move the other cases' figures.
    let mut churns = Vec::new();
    if args.cases.is_empty() || args.cases.iter().any(|c| c == churn::CASE) {
        let writes = if args.smoke { churn::SMOKE_WRITES } else { churn::WRITES };
        for (server, fixture) in &servers {
            let (Some((fixture, _)), Some((database, url))) =
                (fixture, databases.iter().find(|(name, _)| *name == server.name))
            else {
                continue;
            };
            churns.push(churn::measure(server, database, url, fixture, writes, duration, scratch).await?);
        }
    }

    let mut rows = Vec::new();
    for (server, fixture) in &servers {
        for case in cases_of(server, fixture, 0) {
            let Some((what, rounds)) = outcomes.get(&(server.name.to_string(), case.name)) else {
                continue;
            };
            let mut row = Row::new(server.name, case.name, what, rounds.clone());
            let baseline = case.baseline.and_then(|b| {
                let side = if b.starts_with("floor_") { "floor" } else { server.name };
                outcomes
                    .get(&(side.to_string(), b))
                    .map(|(what, rounds)| (b, Row::new(side, b, what, rounds.clone())))
            });
            row.judge(
                baseline.as_ref().map(|(b, r)| (*b, r)),
                case.goal,
                server.name == "postgres",
            );
            // A read case against the same request on the database floor of its database:
            // what of the gap to the floor is Roadlog's own.
            let database_floor = match server.name {
                "sqlite" | "sqlite-nolog" => Some("floor-sqlite"),
                "postgres" => Some("floor-postgres"),
                _ => None,
            };
            if let (Some(floor), Some(Goal::Ratio(_))) = (database_floor, case.goal)
                && let Some((_, floor_rounds)) = outcomes.get(&(floor.to_string(), cases::FLOOR_DATABASE))
            {
                row.against_database_floor(floor_rounds);
            }
            // The shape's case is a floor's: the in-memory floor's, or the dressed floor's.
            if let Some(shape) = case.shape
                && let Some((_, (_, shape_rounds))) = outcomes
                    .iter()
                    .find(|((side, name), _)| side.starts_with("floor") && *name == shape)
            {
                row.against_shape(shape_rounds);
            }
            rows.push(row);
        }
    }
    let log_cost = log_costs(&rows);
    for (case, cost) in &log_cost {
        eprintln!(
            "logging cost on {case}: {:.1} % of throughput (sqlite with the access log vs without)",
            cost * 100.0
        );
    }
    let peaks: BTreeMap<String, f64> = servers
        .iter()
        .map(|(s, _)| (s.name.to_string(), s.peak_mib()))
        .collect();
    report::print(&rows, &peaks);
    rebuild::print(&rebuilds, !args.smoke);
    export_report::print(&reports);
    reads_during_export::print(&during_export);
    churn::print(&churns);
    if let Some(folder) = args.json.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let json = serde_json::json!({ "plan": format!("{plan:?}"), "seconds": args.seconds, "rounds": args.rounds, "rows": rows, "peak_mib": peaks, "log_cost": log_cost, "regulation_rebuild": rebuilds, "export_report": reports, "reads_during_export": during_export, "nested_after_writes": churns });
    std::fs::write(&args.json, serde_json::to_string_pretty(&json)?)?;
    eprintln!("results written to {}", args.json.display());
    let errors: u64 = rows.iter().map(|r| r.errors).sum();
    if errors > 0 {
        bail!("{errors} requests failed");
    }
    Ok(())
}
