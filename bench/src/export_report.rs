//! The Excel activity report of the seeded company's month (every worker, the seeded days),
//! timed as a user gets it: queued (`download_activity_report`), built by the service's worker
//! in the background, checked out and downloaded. One run per round, after the read cases (a
//! job is a write, and its building would move their figures).

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde::Serialize;

use crate::seed::{ANCHOR, Fixture, Plan};

/// The name of the measure (`--cases export_report` runs it alone).
pub const CASE: &str = "export_report";

/// The reports of one server.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub server: String,
    pub seconds: Vec<f64>,
    pub median: f64,
    /// The downloaded file's size, in bytes (of the last run).
    pub bytes: usize,
}

fn date(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .expect("a seeded instant")
        .date_naive()
        .to_string()
}

/// A POST of the export routes with the admin's token, its JSON answer (an error status fails).
pub async fn post(
    client: &reqwest::Client,
    url: String,
    token: &str,
    body: Option<serde_json::Value>,
) -> Result<serde_json::Value> {
    let mut request = client.post(url).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await?;
    let status = response.status();
    let answer: serde_json::Value = response.json().await?;
    if !status.is_success() {
        bail!("{status}: {answer}");
    }
    Ok(answer)
}

/// The body of `download_activity_report` asking the report of the seeded company's month.
pub fn month_request(fixture: &Fixture, plan: Plan) -> serde_json::Value {
    const DAY: i64 = 86_400;
    serde_json::json!({
        "company_ids": [fixture.company_id],
        "min_date": date(ANCHOR - plan.days as i64 * DAY),
        "max_date": date(ANCHOR - DAY),
    })
}

/// Queues, waits for and downloads the report of the seeded month `runs` times.
pub async fn time(server: &str, url: &str, fixture: &Fixture, plan: Plan, runs: usize) -> Result<Timing> {
    let client = reqwest::Client::new();
    let body = month_request(fixture, plan);
    let mut seconds = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        post(
            &client,
            format!("{url}/companies/download_activity_report"),
            &fixture.admin_token,
            Some(body.clone()),
        )
        .await?;
        let link = loop {
            let answer = post(&client, format!("{url}/exports/checkout"), &fixture.admin_token, None).await?;
            if let Some(link) = answer["ready_exports_links"].as_array().and_then(|l| l.first()) {
                break link.as_str().unwrap_or_default().to_string();
            }
            if answer["nb_wip_exports"] != 1 {
                bail!("the report of {server} failed: {answer}");
            }
            if started.elapsed() > Duration::from_secs(600) {
                bail!("the report of {server} was not built in 10 minutes");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        bytes = client.get(&link).send().await?.error_for_status()?.bytes().await?.len();
        seconds.push(started.elapsed().as_secs_f64());
    }
    let mut sorted = seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    eprintln!("  {CASE:<22} {server:<9} {median:>9.3} s ({bytes} bytes)");
    Ok(Timing {
        server: server.to_string(),
        seconds,
        median,
        bytes,
    })
}

/// The table's lines.
pub fn print(timings: &[Timing]) {
    if timings.is_empty() {
        return;
    }
    println!("\nExcel activity report of the seeded company's month (queued, built, checked out, downloaded; median):");
    for t in timings {
        println!("  {:<11} {:>7.3} s   {} bytes", t.server, t.median, t.bytes);
    }
}
