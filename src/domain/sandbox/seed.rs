//! Running the plan: the checks (sandbox, admin, not seeded yet), the demo workers' passwords
//! hashed before the transaction (argon2id is slow and has its own permits), then one write
//! transaction that claims the company's seed, creates the workers and their accepted
//! employments, and records every planned day through [`super::day`] and the admin's
//! validations, which compute the admin-side regulatory checks the recap reads.

use base64::Engine;
use chrono::{Duration, NaiveDate, TimeZone};
use serde::Serialize;
use sqlx::AnyConnection;

use crate::config::Environment;
use crate::db::{Db, is_unique_violation, now};
use crate::domain::auth::Actor;
use crate::domain::auth::password;
use crate::domain::companies::employments::{self, NewEmployment};
use crate::domain::companies::rules::Period;
use crate::domain::companies::{company, date_text, permissions, today};
use crate::domain::missions::{comments, validation};
use crate::domain::regulation::checks::CheckType;
use crate::domain::users::accounts::{self, HashedAccount};
use crate::errors::{AppError, AppResult};

use super::day::{self, Day, Places};
use super::plan::{self, Breach, PERSONAS, PlannedDay, Shape};
use super::{DEMO_EMAIL_DOMAIN, DEMO_TIME_ZONE, sql};

/// On whose behalf the demo data is recorded.
#[derive(Clone, Copy, Debug)]
pub enum Seeder {
    /// A company admin calling the API: they must be an admin of the company today.
    Admin(Actor),
    /// The operator's command: the company's longest-standing current admin validates.
    Operator,
}

/// A demo worker, with the password shown this once.
#[derive(Clone, Debug, Serialize)]
pub struct DemoWorker {
    pub id: i64,
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub password: String,
    pub profile: String,
}

/// A rule the demo data breaks on purpose: whose, which day (the Monday for a weekly rule).
#[derive(Clone, Debug, Serialize)]
pub struct SeededBreach {
    pub user_id: i64,
    pub day: NaiveDate,
    #[serde(rename = "check_type", serialize_with = "check_name")]
    pub check: CheckType,
}

fn check_name<S: serde::Serializer>(check: &CheckType, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(check.as_str())
}

/// What a seed created.
#[derive(Clone, Debug, Serialize)]
pub struct SeedReport {
    pub company_id: i64,
    /// The admin whose validations and comments the data holds.
    pub admin_id: i64,
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    pub workers: Vec<DemoWorker>,
    pub missions: usize,
    pub activities: usize,
    pub expenditures: usize,
    pub comments: usize,
    pub vehicles: usize,
    pub worker_validations: usize,
    pub admin_validations: usize,
    /// The admin-side regulatory alerts of the demo workers (what the recap counts).
    pub alerts: i64,
    pub breaches: Vec<SeededBreach>,
}

/// Where the demo workers go, in turn.
const DESTINATIONS: [(&str, &str); 8] = [
    (
        "Villefranche-sur-Saône",
        "Plateforme Nord, 120 avenue de l'Europe, 69400 Villefranche-sur-Saône",
    ),
    ("Vienne", "Entrepôt Sud, 8 chemin du Port, 38200 Vienne"),
    ("Saint-Étienne", "Magasin central, 45 rue Bergson, 42000 Saint-Étienne"),
    (
        "Bourg-en-Bresse",
        "Zone des Vennes, 3 rue Lavoisier, 01000 Bourg-en-Bresse",
    ),
    ("Mâcon", "Quai logistique, 17 route de Lyon, 71000 Mâcon"),
    (
        "Grenoble",
        "Marché d'intérêt national, 2 rue de Stalingrad, 38100 Grenoble",
    ),
    ("Valence", "Parc de Briffaut, 10 rue Kastler, 26000 Valence"),
    (
        "Saint-Quentin-Fallavier",
        "Parc de Chesnes, 5 rue du Rhône, 38070 Saint-Quentin-Fallavier",
    ),
];

const DEPOT: &str = "Dépôt, 12 rue des Entrepôts, 69007 Lyon";

/// The workers' notes, on one day in four.
const WORKER_COMMENTS: [&str; 5] = [
    "Client absent à la livraison : colis laissé au gardien, bon signé.",
    "Bouchons sur l'A7 au retour, 40 minutes de retard.",
    "Quai encombré, 25 minutes d'attente avant déchargement.",
    "Plein de gazole fait au dépôt en fin de tournée.",
    "Palette abîmée refusée par le client, ramenée au dépôt.",
];

fn admin_comment(breach: Breach) -> &'static str {
    match breach {
        Breach::MinimumDailyRest => {
            "Reprise trop tôt après la fin de service de la veille : repos quotidien insuffisant."
        }
        Breach::MaximumWorkDayTime => "Journée de plus de 12 h de travail : à éviter, on en reparle.",
        Breach::EnoughBreak => "Aucune pause de la journée : penser aux pauses obligatoires.",
        Breach::MaximumWorkedDaysInWeek => "Septième jour travaillé dans la semaine, sans repos hebdomadaire.",
        Breach::MaximumWorkInCalendarWeek => "Semaine au-delà du maximum d'heures de travail.",
    }
}

fn already_seeded(seeded_at: Option<i64>) -> AppError {
    let error = AppError::invalid_resource(
        "This company already has its demo data: a company is seeded once (sign up another company for a fresh start)",
    )
    .with("reason", "SANDBOX_ALREADY_SEEDED");
    match seeded_at {
        Some(at) => error.with("seededAt", at),
        None => error,
    }
}

/// A random password for a demo worker (144 bits, 24 URL-safe characters).
fn new_password() -> AppResult<String> {
    let mut bytes = [0u8; 18];
    getrandom::fill(&mut bytes).map_err(AppError::internal)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The demo e-mail of a persona: ASCII, per company (a company is seeded once).
fn demo_email(persona: &plan::Persona, company_id: i64) -> String {
    let ascii = |s: &str| deunicode::deunicode(s).to_lowercase().replace(' ', "-");
    format!(
        "{}.{}.{company_id}@{DEMO_EMAIL_DOMAIN}",
        ascii(persona.first_name),
        ascii(persona.last_name)
    )
}

/// Unix seconds of a local time of the demo workers' zone.
fn local(date: NaiveDate, minute: i64) -> AppResult<i64> {
    let naive = date
        .and_hms_opt(0, 0, 0)
        .ok_or_else(|| AppError::internal("invalid date"))?
        + Duration::minutes(minute);
    // The plan's times are between 05:00 and 22:00, never inside a clock change.
    DEMO_TIME_ZONE
        .from_local_datetime(&naive)
        .earliest()
        .map(|t| t.timestamp())
        .ok_or_else(|| AppError::internal(format!("{naive} does not exist in {DEMO_TIME_ZONE}")))
}

async fn the_admin(db: &Db, company_id: i64, seeder: Seeder) -> AppResult<Actor> {
    match seeder {
        Seeder::Admin(actor) => {
            permissions::require_admin(db, actor, company_id).await?;
            Ok(actor)
        }
        Seeder::Operator => {
            if company::find(db, company_id).await?.is_none() {
                return Err(AppError::invalid_resource(format!("no company {company_id}")));
            }
            let admin: Option<(i64,)> = sqlx::query_as(sql::FIRST_ADMIN)
                .bind(company_id)
                .bind(date_text(today()))
                .fetch_optional(db)
                .await?;
            admin.map(|(id,)| Actor::unconfined(id)).ok_or_else(|| {
                AppError::invalid_resource(format!(
                    "company {company_id} has no current admin to validate the demo data"
                ))
            })
        }
    }
}

async fn seeded_at(conn: &mut AnyConnection, company_id: i64) -> AppResult<Option<i64>> {
    let row: Option<(i64, String, String)> = sqlx::query_as(sql::SEEDED)
        .bind(company_id)
        .fetch_optional(conn)
        .await?;
    Ok(row.map(|r| r.0))
}

/// Fills the company with demo data, or refuses: AUTHORIZATION_ERROR in production or for anyone
/// but an admin of the company, INVALID_RESOURCE when it was seeded already. Nothing is written
/// unless everything is.
pub async fn seed(db: &Db, environment: Environment, company_id: i64, seeder: Seeder) -> AppResult<SeedReport> {
    if environment != Environment::Sandbox {
        return Err(
            AppError::authorization("Demo data is seeded only in the sandbox environment")
                .with("reason", "SANDBOX_ONLY"),
        );
    }
    let admin_actor = the_admin(db, company_id, seeder).await?;
    let admin = admin_actor.user_id;
    {
        let mut conn = db.pool.acquire().await?;
        if let Some(at) = seeded_at(&mut conn, company_id).await? {
            return Err(already_seeded(Some(at)));
        }
    }
    let company = company::find(db, company_id)
        .await?
        .ok_or_else(|| AppError::internal("company vanished"))?;
    let today = chrono::Utc::now().with_timezone(&DEMO_TIME_ZONE).date_naive();
    let plan = plan::plan(today);

    // Hashed before the transaction: the write lock is not held while argon2 works.
    let mut accounts = Vec::with_capacity(PERSONAS.len());
    for persona in &PERSONAS {
        let password = new_password()?;
        let hash = password::hash(password.clone(), &password::Hashing::queued()).await?;
        accounts.push((persona, demo_email(persona, company_id), password, hash));
    }

    let mut tx = db.begin_write().await?;
    let claimed = sqlx::query(sql::CLAIM)
        .bind(company_id)
        .bind(admin)
        .bind(now())
        .bind(date_text(plan.first_day))
        .bind(date_text(plan.last_day))
        .execute(&mut *tx)
        .await;
    match claimed {
        Ok(_) => {}
        // A concurrent seed of the same company committed first.
        Err(e) if is_unique_violation(&e) => return Err(already_seeded(None)),
        Err(e) => return Err(e.into()),
    }
    let mut workers = Vec::with_capacity(accounts.len());
    for (persona, email, password, hash) in accounts {
        let id = accounts::insert_hashed(
            &mut tx,
            &HashedAccount {
                email: &email,
                password_hash: &hash,
                first_name: persona.first_name,
                last_name: persona.last_name,
                timezone_name: DEMO_TIME_ZONE.name(),
                chosen_by_owner: false,
            },
        )
        .await?;
        // Accepted from the first seeded day, without the notification a real hire sends.
        let employment = NewEmployment {
            company_id,
            period: Period {
                start: plan.first_day,
                end: None,
            },
            has_admin_rights: false,
            is_primary: Some(true),
            status: "approved",
            team_id: None,
        };
        employments::insert_for_user(&mut tx, id, admin, &employment).await?;
        workers.push(DemoWorker {
            id,
            email,
            first_name: persona.first_name.to_string(),
            last_name: persona.last_name.to_string(),
            password,
            profile: persona.profile.to_string(),
        });
    }
    // Each worker was locked as its employment was created (no other transaction sees them
    // before the commit), so every day below is recorded with its worker locked.

    let mut report = SeedReport {
        company_id,
        admin_id: admin,
        first_day: plan.first_day,
        last_day: plan.last_day,
        workers,
        missions: 0,
        activities: 0,
        expenditures: 0,
        comments: 0,
        vehicles: 0,
        worker_validations: 0,
        admin_validations: 0,
        alerts: 0,
        breaches: Vec::new(),
    };
    let mut odometers: Vec<i32> = PERSONAS.iter().map(|p| p.odometer).collect();
    let mut vehicles = std::collections::BTreeSet::new();
    for (n, planned) in plan.days.iter().enumerate() {
        let worker = report.workers[planned.worker].id;
        let persona = &PERSONAS[planned.worker];
        let day = demo_day(
            &company,
            worker,
            planned,
            n,
            &mut odometers[planned.worker],
            persona.vehicle,
        )?;
        let recorded = day::record(&mut tx, &day).await?;
        vehicles.insert(persona.vehicle);
        report.missions += 1;
        report.activities += recorded.activities;
        report.expenditures += recorded.expenditures;
        report.comments += recorded.comments;
        report.worker_validations += usize::from(planned.validated_by_worker);
        if let Some((breach, day)) = plan::breach_day(planned) {
            comments::log(&mut tx, admin_actor, recorded.mission_id, admin_comment(breach)).await?;
            report.comments += 1;
            report.breaches.push(SeededBreach {
                user_id: worker,
                day,
                check: breach.check(),
            });
        }
        if planned.validated_by_admin {
            // The admin validates the next morning, as the validation's creation time says.
            let at = recorded.end + 12 * 3600;
            validation::validate(&mut tx, admin_actor, recorded.mission_id, &[worker], None, Some(at)).await?;
            report.admin_validations += 1;
        }
    }
    report.vehicles = vehicles.len();
    tx.commit().await?;

    let ids: Vec<i64> = report.workers.iter().map(|w| w.id).collect();
    let (alerts,): (i64,) = sqlx::query_as(db.sql(sql::ALERTS))
        .bind(crate::db::id_list(&ids))
        .fetch_one(db)
        .await?;
    report.alerts = alerts;
    Ok(report)
}

/// The recording of one planned day.
fn demo_day(
    company: &company::CompanyRow,
    worker: i64,
    planned: &PlannedDay,
    n: usize,
    odometer: &mut i32,
    vehicle: &str,
) -> AppResult<Day> {
    let shape = planned.shape;
    let (town, address) = DESTINATIONS[(n + planned.worker) % DESTINATIONS.len()];
    let mission_name = match shape {
        Shape::Short => format!("Navette {town}"),
        Shape::TooLong | Shape::WeekOfExcess | Shape::Long => format!("Tournée longue {town}"),
        _ => format!("Livraisons {town}"),
    };
    // About 70 km an hour of driving.
    let driven = i32::try_from(shape.drive_minutes() * 70 / 60).unwrap_or(0);
    let kilometers = (company.require_kilometer_data == 1).then_some((*odometer, *odometer + driven));
    *odometer += driven;
    let expenditures = if company.require_expenditures == 1 {
        shape.expenditures().to_vec()
    } else {
        Vec::new()
    };
    let comment = (n + planned.worker)
        .is_multiple_of(4)
        .then(|| WORKER_COMMENTS[n % WORKER_COMMENTS.len()].to_string());
    Ok(Day {
        company_id: company.id,
        worker,
        mission_name,
        vehicle: Some(vehicle.to_string()),
        start: local(planned.date, shape.start_minute())?,
        segments: shape.segments().to_vec(),
        backdated: true,
        places: Some(Places {
            start: DEPOT.to_string(),
            end: address.to_string(),
            kilometers,
        }),
        expenditures,
        comment,
        validate: planned.validated_by_worker,
    })
}
