//! The operator's `roadlog regulation rebuild` of the seeded company's month, timed as a whole
//! process (start, connection, every worker's two computations, exit) on each database: the
//! regulation issue's scale goal is a rebuild of a 200-employee month in under a second.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::seed::{ANCHOR, Fixture, Plan};

/// The goal, in seconds, for the full plan.
pub const GOAL_SECONDS: f64 = 1.0;

/// The rebuilds of one database.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub database: String,
    pub seconds: Vec<f64>,
    pub median: f64,
    /// The command's own report (workers, computed days, alerts) of the last run.
    pub report: serde_json::Value,
}

fn date(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .expect("a seeded instant")
        .date_naive()
        .to_string()
}

/// Runs the rebuild of the seeded month `runs` times.
pub fn time(roadlog: &Path, database: &str, url: &str, fixture: &Fixture, plan: Plan, runs: usize) -> Result<Timing> {
    const DAY: i64 = 86_400;
    let from = date(ANCHOR - plan.days as i64 * DAY);
    let to = date(ANCHOR - DAY);
    let mut seconds = Vec::new();
    let mut report = serde_json::Value::Null;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        let output = Command::new(roadlog)
            .args(["regulation", "--database-url", url, "rebuild", "--json", "--company"])
            .arg(fixture.company_id.to_string())
            .args(["--from", &from, "--to", &to])
            .env("RUST_LOG", "warn")
            .output()?;
        seconds.push(started.elapsed().as_secs_f64());
        if !output.status.success() {
            bail!(
                "regulation rebuild on {database} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        report = serde_json::from_slice(&output.stdout)?;
    }
    let mut sorted = seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    eprintln!("  regulation rebuild     {database:<9} {median:>9.3} s ({from} to {to}: {report})");
    Ok(Timing {
        database: database.to_string(),
        seconds,
        median,
        report,
    })
}

/// The table's lines.
pub fn print(timings: &[Timing], full: bool) {
    if timings.is_empty() {
        return;
    }
    println!("\nregulation rebuild of the seeded company's month (whole process, median):");
    for t in timings {
        let verdict = if full {
            if t.median < GOAL_SECONDS { "met" } else { "not met" }
        } else {
            "smoke: no goal"
        };
        println!(
            "  {:<9} {:>7.3} s   goal < {GOAL_SECONDS:.1} s: {verdict}   {}",
            t.database, t.median, t.report
        );
    }
}
