//! Deterministic seeding of a benchmark database through Roadlog's own services (the same code
//! the API runs, rules and transactions included), so that what is measured reads data shaped
//! exactly as real use would shape it:
//!
//! - a company of `employees` workers, each with one mission a day over the `days` before
//!   [`ANCHOR`]: six activities, a meal, a comment, a vehicle, ended and validated by the worker
//!   and then by the admin (so both sides' regulatory alerts are stored, as in a company that
//!   checks its workers' time);
//! - one worker with a long history: `history` missions, one a day (several a day past
//!   5,000, so that a history ten times as long still fits in the employment), two activities each;
//! - 32 writers, each with one open mission, for the write cases;
//! - an OAuth client for the token endpoint.
//!
//! Once the database is served, [`deep_cursor`] reads the cursor deep in the long history that
//! the deep page's case takes.
//!
//! The plan depends only on its numbers: names, e-mails and times are the same on every run.

use anyhow::{Context, Result, bail};
use chrono::NaiveDate;
use futures::{StreamExt, TryStreamExt, stream};
use roadlog::config::Environment;
use roadlog::db::Db;
use roadlog::domain::activities::log::NewActivity;
use roadlog::domain::activities::service as activities;
use roadlog::domain::auth::Actor;
use roadlog::domain::companies::company;
use roadlog::domain::companies::employments::{self, Target};
use roadlog::domain::companies::service::{self as companies, EmploymentInput};
use roadlog::domain::kinds::{ActivityType, ExpenditureType};
use roadlog::domain::missions::service::{self as missions, MissionInput};
use roadlog::domain::missions::validation;
use roadlog::domain::sandbox::day::{self, Day};
use roadlog::domain::sandbox::plan::Segment;
use roadlog::domain::users::accounts;
use roadlog::domain::users::sessions;
use roadlog::domain::workers;

/// The day every seeded time is counted back from (00:00 UTC, 2026-10-01): the data is the
/// same whatever day the benchmark runs.
pub const ANCHOR: i64 = 1_790_812_800;
/// Where the write cases write, well before the seeded data: each run's slot of two days from
/// here (see `cases::writes_lua`).
pub const WRITES_FROM: i64 = ANCHOR - 800 * DAY;
const DAY: i64 = 86_400;
/// Writers of the write cases, each with an open mission of its own.
pub const WRITERS: usize = 32;
/// Services seeded concurrently (distinct workers, so no lock is contended).
const CONCURRENCY: usize = 4;
const PASSWORD: &str = "bench-password-0001";

/// How much to seed.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub employees: usize,
    pub days: usize,
    pub history: usize,
}

/// What the cases need: tokens, ids, the OAuth client.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub company_id: i64,
    pub admin_token: String,
    pub worker_token: String,
    pub history_token: String,
    /// Per writer: its token and its open mission.
    pub writers: Vec<(String, i64)>,
    pub client_id: String,
    pub client_secret: String,
}

/// An account with a confirmed address (no confirmation e-mail queued: nobody reads it).
async fn user(db: &Db, email: String, first: &str, last: String) -> Result<i64> {
    let password_hash = roadlog::domain::auth::password::hash(
        PASSWORD.to_string(),
        &roadlog::domain::auth::password::Hashing::queued(),
    )
    .await?;
    let mut tx = db.begin_write().await?;
    let account = accounts::HashedAccount {
        email: &email,
        password_hash: &password_hash,
        first_name: first,
        last_name: &last,
        timezone_name: "Europe/Paris",
        chosen_by_owner: true,
    };
    let id = accounts::insert_hashed(&mut tx, &account).await?;
    tx.commit().await?;
    Ok(id)
}

/// A worker hired by the company since 2010, the employment accepted.
async fn hire(db: &Db, admin: i64, company_id: i64, email: String, last: String) -> Result<i64> {
    let worker = user(db, email, "Camille", last).await?;
    let input = EmploymentInput {
        company_id,
        start: NaiveDate::from_ymd_opt(2010, 1, 1),
        end: None,
        has_admin_rights: false,
        is_primary: Some(true),
        team_id: None,
    };
    let employment = companies::create(
        db,
        Actor::unconfined(admin),
        Target::User(worker),
        input,
        "http://127.0.0.1",
    )
    .await?;
    employments::answer(db, Actor::unconfined(worker), employment.id, true, "http://127.0.0.1").await?;
    Ok(worker)
}

fn mission_input(company_id: i64, name: String, vehicle: bool) -> MissionInput {
    MissionInput {
        company_id,
        name: Some(name),
        context: None,
        creation_time: None,
        past_registration_justification: None,
        vehicle_id: None,
        vehicle_registration_number: vehicle.then(|| "AB-123-CD".to_string()),
    }
}

async fn log(db: &Db, worker: i64, mission_id: i64, kind: ActivityType, start: i64, end: i64) -> Result<()> {
    let new = NewActivity {
        mission_id,
        user_id: None,
        kind,
        start,
        end: Some(end),
        switch: false,
        context: None,
        creation_time: None,
    };
    activities::log_activity(db, Actor::unconfined(worker), new).await?;
    Ok(())
}

/// One full working day: a mission from 06:00 with six activities, a meal, a comment, ended and
/// validated by the worker, recorded in one transaction by the domain's day recorder (the one
/// the sandbox's demo data uses), then validated by the admin in the same transaction (the
/// admin's regulatory computation, which the company recap reads).
async fn working_day(db: &Db, admin: i64, worker: i64, company_id: i64, day_start: i64, n: usize) -> Result<()> {
    let kinds = [
        ActivityType::Drive,
        ActivityType::Work,
        ActivityType::Drive,
        ActivityType::Support,
        ActivityType::Drive,
        ActivityType::Work,
    ];
    // 80 minutes of each, 10 minutes apart; the mission ends 10 minutes after the last one.
    let segments = kinds
        .into_iter()
        .flat_map(|kind| [Segment::Activity(kind, 80), Segment::Break(10)])
        .collect();
    let day = Day {
        company_id,
        worker,
        mission_name: format!("Tournée {n}"),
        vehicle: Some("AB-123-CD".to_string()),
        start: day_start + 6 * 3600,
        segments,
        backdated: false,
        places: None,
        expenditures: vec![ExpenditureType::DayMeal],
        comment: Some("Livraison faite, client absent à 11 h".to_string()),
        validate: true,
    };
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    let recorded = day::record(&mut tx, &day).await?;
    validation::validate(
        &mut tx,
        Actor::unconfined(admin),
        recorded.mission_id,
        &[worker],
        None,
        None,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Days of the long history: the missions of one history fit in the veteran's employment
/// (from 2010) however long it is, several a day beyond this many.
const HISTORY_DAYS: usize = 5_000;

/// A short day of the long history: `per_day` missions of two activities each, ended, sharing
/// the day's eight hours from 7:00 (one mission of eight hours at the default scale).
async fn history_day(
    db: &Db,
    worker: i64,
    company_id: i64,
    day_start: i64,
    first: usize,
    per_day: usize,
) -> Result<()> {
    let length = 8 * 3600 / per_day as i64;
    for k in 0..per_day {
        let n = first + k;
        let mission = missions::create(
            db,
            Actor::unconfined(worker),
            mission_input(company_id, format!("Mission {n}"), false),
        )
        .await?;
        let id = mission.row.id;
        let start = day_start + 7 * 3600 + k as i64 * length;
        log(db, worker, id, ActivityType::Drive, start, start + length / 2).await?;
        log(db, worker, id, ActivityType::Work, start + length / 2, start + length).await?;
        missions::end(db, Actor::unconfined(worker), id, start + length, None).await?;
    }
    Ok(())
}

async fn token(db: &Db, user: i64) -> Result<String> {
    Ok(sessions::open(db, Environment::Sandbox, user).await?.access_token)
}

/// A second company, its admin and `count` workers, each with one mission and no activity: the
/// other workers of `nested_after_writes` (`churn.rs`). Per worker: its token and its mission.
pub async fn other_company(db: &Db, count: usize) -> Result<Vec<(String, i64)>> {
    let admin = user(db, "other-admin@bench.example".into(), "Alix", "Autre".into()).await?;
    let new = company::NewCompany {
        usual_name: "Other Transport",
        legal_name: Some("OTHER TRANSPORT SAS"),
        siren: "987654321",
        phone_number: None,
    };
    let (company_id, _) = company::sign_up(
        db,
        &roadlog::domain::companies::register::Offline,
        Actor::unconfined(admin),
        new,
    )
    .await?;
    let mut workers = Vec::with_capacity(count);
    for i in 0..count {
        let worker = hire(
            db,
            admin,
            company_id,
            format!("other{i}@bench.example"),
            format!("Other {i}"),
        )
        .await?;
        let mission = missions::create(
            db,
            Actor::unconfined(worker),
            mission_input(company_id, "Ailleurs".into(), false),
        )
        .await?;
        workers.push((token(db, worker).await?, mission.row.id));
    }
    Ok(workers)
}

/// Seeds an empty, migrated database and returns what the cases need.
pub async fn seed(db: &Db, plan: Plan) -> Result<Fixture> {
    let admin = user(db, "admin@bench.example".into(), "Alex", "Admin".into()).await?;
    let new = company::NewCompany {
        usual_name: "Bench Transport",
        legal_name: Some("BENCH TRANSPORT SAS"),
        siren: "123456789",
        phone_number: None,
    };
    let (company_id, _) = company::sign_up(
        db,
        &roadlog::domain::companies::register::Offline,
        Actor::unconfined(admin),
        new,
    )
    .await?;

    let workers: Vec<i64> = stream::iter(0..plan.employees)
        .map(|i| {
            hire(
                db,
                admin,
                company_id,
                format!("worker{i}@bench.example"),
                format!("Worker {i}"),
            )
        })
        .buffered(CONCURRENCY)
        .try_collect()
        .await?;
    let days: Vec<(i64, usize)> = workers
        .iter()
        .flat_map(|&w| (0..plan.days).map(move |d| (w, d)))
        .collect();
    stream::iter(days)
        .map(|(w, d)| working_day(db, admin, w, company_id, ANCHOR - (d as i64 + 1) * DAY, d))
        .buffer_unordered(CONCURRENCY)
        .try_collect::<()>()
        .await?;

    let veteran = hire(db, admin, company_id, "veteran@bench.example".into(), "Veteran".into()).await?;
    // One worker's history is sequential by nature: every day locks the same worker.
    let per_day = plan.history.div_ceil(HISTORY_DAYS).max(1);
    for d in 0..plan.history.div_ceil(per_day) {
        let first = d * per_day;
        let missions = per_day.min(plan.history - first);
        history_day(db, veteran, company_id, ANCHOR - (d as i64 + 1) * DAY, first, missions).await?;
    }

    let mut writers = Vec::with_capacity(WRITERS);
    for i in 0..WRITERS {
        let writer = hire(
            db,
            admin,
            company_id,
            format!("writer{i}@bench.example"),
            format!("Writer {i}"),
        )
        .await?;
        let mission = missions::create(
            db,
            Actor::unconfined(writer),
            mission_input(company_id, "Écritures".into(), false),
        )
        .await?;
        // A first activity before every write slot dates the mission there from the start, so
        // the company's page of its latest missions (`company50`) reads the same missions
        // before and after the write cases: an empty mission sorts at its creation, the
        // newest, until a write moves it back.
        log(
            db,
            writer,
            mission.row.id,
            ActivityType::Drive,
            WRITES_FROM - DAY,
            WRITES_FROM - DAY + 60,
        )
        .await?;
        writers.push((token(db, writer).await?, mission.row.id));
    }

    let client = roadlog::oauth::clients::create(
        db,
        Environment::Sandbox,
        "Benchmark",
        &["http://127.0.0.1/callback".to_string()],
    )
    .await?;
    // The database as PostgreSQL's autovacuum leaves it shortly after a bulk load (the run
    // starts at once): the planner's statistics of the data just written (without them,
    // PostgreSQL plans some joins as scans of whole tables), and the rows the seeding replaced
    // (alerts and summaries rewritten by each validation) cleared, with the pages marked
    // all-visible, so that index-only scans need not visit the table. Left to autovacuum, it
    // would happen at some point of the run and move its figures.
    // The floor's database is treated alike. SQLite gathers no statistics unless asked, in
    // production as here.
    if db.backend == roadlog::db::Backend::Postgres {
        sqlx::raw_sql("VACUUM ANALYZE").execute(&db.pool).await?;
    }
    Ok(Fixture {
        company_id,
        admin_token: token(db, admin).await?,
        worker_token: token(db, *workers.first().context("the plan has at least one employee")?).await?,
        history_token: token(db, veteran).await?,
        writers,
        client_id: client.client_id,
        client_secret: client.client_secret,
    })
}

/// The cursor after `skip` of the veteran's missions, read page by page from the server.
pub async fn deep_cursor(url: &str, token: &str, skip: usize) -> Result<String> {
    let client = reqwest::Client::new();
    let mut after = serde_json::Value::Null;
    let mut seen = 0;
    while seen < skip {
        let first = (skip - seen).min(200);
        let body = serde_json::json!({
            "query": "query($first: Int, $after: String) { me { missions(first: $first, after: $after) { pageInfo { endCursor } edges { cursor } } } }",
            "variables": { "first": first, "after": after },
        });
        let answer: serde_json::Value = client
            .post(format!("{url}/api/graphql"))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        let page = &answer["data"]["me"]["missions"];
        let count = page["edges"].as_array().map_or(0, Vec::len);
        if count == 0 {
            bail!("the history ended after {seen} missions: {answer}");
        }
        seen += count;
        after = page["pageInfo"]["endCursor"].clone();
    }
    after.as_str().map(str::to_string).context("an end cursor")
}
