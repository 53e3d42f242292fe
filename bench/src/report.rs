//! The results: medians over the rounds, ratios to the baselines, the goals met or missed,
//! printed as a table and written as JSON.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cases::Goal;
use crate::wrk::Outcome;

/// One case on one server, over every round.
#[derive(Serialize)]
pub struct Row {
    pub server: String,
    pub case: String,
    pub what: String,
    pub rounds: Vec<Outcome>,
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub errors: u64,
    /// Bytes a response took on the wire, headers included (median over the rounds).
    pub bytes_per_response: f64,
    pub ratio: Option<f64>,
    pub baseline: Option<String>,
    pub goal: Option<String>,
    pub met: Option<bool>,
    /// Throughput against the database floor's same request on the same database (read cases).
    pub database_floor_ratio: Option<f64>,
    /// Throughput against the in-memory floor's page of the same shape (the richer read cases):
    /// how close the case comes to what the executor alone allows such an answer.
    pub shape_ratio: Option<f64>,
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

impl Row {
    pub fn new(server: &str, case: &str, what: &str, rounds: Vec<Outcome>) -> Row {
        let rps = median(rounds.iter().map(Outcome::rps).collect());
        let p50_ms = median(rounds.iter().map(|o| o.p50_us as f64 / 1000.0).collect());
        let p99_ms = median(rounds.iter().map(|o| o.p99_us as f64 / 1000.0).collect());
        let errors = rounds.iter().map(|o| o.errors + o.unexpected).sum();
        let bytes_per_response = median(rounds.iter().map(Outcome::bytes_per_response).collect());
        Row {
            server: server.into(),
            case: case.into(),
            what: what.into(),
            rounds,
            rps,
            p50_ms,
            p99_ms,
            errors,
            bytes_per_response,
            ratio: None,
            baseline: None,
            goal: None,
            met: None,
            database_floor_ratio: None,
            shape_ratio: None,
        }
    }

    /// The ratio to another case's rounds, round by round, then the median.
    fn ratio_to(&self, other: &[Outcome]) -> f64 {
        let ratios = self
            .rounds
            .iter()
            .zip(other)
            .map(|(a, b)| a.rps() / b.rps().max(f64::MIN_POSITIVE))
            .collect();
        median(ratios)
    }

    /// Sets the ratio to the database floor's rounds.
    pub fn against_database_floor(&mut self, floor: &[Outcome]) {
        self.database_floor_ratio = Some(self.ratio_to(floor));
    }

    /// Sets the ratio to the rounds of the in-memory page of the same shape.
    pub fn against_shape(&mut self, shape: &[Outcome]) {
        self.shape_ratio = Some(self.ratio_to(shape));
    }

    /// Sets the ratio to the baseline (throughputs of the same round, then the median of those
    /// ratios, so a slow round weighs on both sides) and judges the goal.
    pub fn judge(&mut self, baseline: Option<(&str, &Row)>, goal: Option<Goal>, postgres: bool) {
        if let Some((name, base)) = baseline {
            self.ratio = Some(self.ratio_to(&base.rounds));
            self.baseline = Some(name.to_string());
        }
        let Some(goal) = goal else { return };
        let (text, met) = match goal {
            Goal::Ratio(r) => (format!("≥ {r:.2}×"), self.ratio.is_some_and(|x| x >= r)),
            Goal::Writes {
                sqlite,
                postgres: pg,
                p99_ms,
            } => {
                let floor = if postgres { pg } else { sqlite };
                (
                    format!("≥ {floor:.0}/s, p99 < {p99_ms:.0} ms"),
                    self.rps >= floor && self.p99_ms < p99_ms,
                )
            }
            Goal::Latency { p99_ms } => (format!("p99 < {p99_ms:.0} ms, 0 errors"), self.p99_ms < p99_ms),
            Goal::Sequential { per_second, p50_ms } => (
                format!("≥ {per_second:.0}/s, p50 < {p50_ms:.0} ms"),
                self.rps >= per_second && self.p50_ms < p50_ms,
            ),
        };
        self.goal = Some(text);
        self.met = Some(met && self.errors == 0);
    }
}

/// The table, one line per case and server.
pub fn print(rows: &[Row], peaks: &BTreeMap<String, f64>) {
    println!(
        "\n{:<14} {:<44} {:>9} {:>8} {:>8} {:>6} {:>10} {:>7}  {:<12} {:<24} {:<4} {:>8} {:>8}",
        "server",
        "case",
        "req/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "bytes/resp",
        "ratio",
        "against",
        "goal",
        "met",
        "vs db",
        "vs shape"
    );
    for row in rows {
        println!(
            "{:<14} {:<44} {:>9.0} {:>8.2} {:>8.2} {:>6} {:>10.0} {:>7}  {:<12} {:<24} {:<4} {:>8} {:>8}",
            row.server,
            row.what,
            row.rps,
            row.p50_ms,
            row.p99_ms,
            row.errors,
            row.bytes_per_response,
            row.ratio.map(|r| format!("{r:.3}")).unwrap_or_default(),
            row.baseline.as_deref().unwrap_or(""),
            row.goal.as_deref().unwrap_or(""),
            match row.met {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "",
            },
            row.database_floor_ratio.map(|r| format!("{r:.3}")).unwrap_or_default(),
            row.shape_ratio.map(|r| format!("{r:.3}")).unwrap_or_default(),
        );
    }
    println!(
        "(vs db: a read case against the database floor on the same database: `missions50`'s request \
         answered with a token lookup and one index range through sqlx's native driver, the least \
         any database-backed answer costs on this stack; vs shape: a read case against the in-memory \
         floor's page of the same fields, nesting and item counts, `floor_shape_*`, whose own ratio \
         to the list is the most the executor allows such an answer; for `{{ __typename }}`, the \
         floor's `{{ hello }}` served through Roadlog's listener and middleware, `floor_dressed_hello`; \
         for `mixed`, the floor's same \
         mix of the month's shape and `{{ hello }}` at 64 connections, whose p99 is the least the \
         mixed case's can be; bytes/resp: what a response took on the wire, headers included, \
         which the `month_gzip` and `month_br` rows compare with `month`'s)\n"
    );
    for (server, mib) in peaks {
        println!("peak resident memory of {server}: {mib:.1} MiB");
    }
}
