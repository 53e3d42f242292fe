//! The mission services of `Mutations.activities`: creating, naming, ending, validating and
//! cancelling missions, their vehicle, expenditures, comments and locations. Each is one write
//! transaction with the workers it touches locked first (see [`crate::domain::workers`]); the
//! permission checks run inside it.

use crate::db::{Db, now};
use crate::domain::activities::log::{self, ActivityEdit, NewActivity};
use crate::domain::activities::service::worker_of;
use crate::domain::auth::Actor;
use crate::domain::expenditures::{self, ExpenditureRow, NewExpenditure};
use crate::domain::kinds::{LocationEntryType, ValidationJustification};
use crate::domain::notifications;
use crate::domain::workers;
use crate::errors::{AppError, AppResult};

use super::comments::{self, CommentRow};
use super::locations::{self, Address, LocationRow};
use super::store::{self, MissionView};
use super::{permissions, validation};
use crate::domain::vehicles::{self, VehicleRow};

/// A mission's name: 1 to 255 characters once trimmed.
pub fn mission_name(raw: &str) -> AppResult<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(AppError::invalid_inputs("A mission name has between 1 and 255 characters").with("field", "name"));
    }
    Ok(name.to_string())
}

/// What `createMission` receives.
pub struct MissionInput {
    pub company_id: i64,
    pub name: Option<String>,
    pub context: Option<serde_json::Value>,
    pub creation_time: Option<i64>,
    pub past_registration_justification: Option<String>,
    pub vehicle_id: Option<i32>,
    pub vehicle_registration_number: Option<String>,
}

/// `createMission`: a mission of a company the actor works for.
pub async fn create(db: &Db, actor: Actor, input: MissionInput) -> AppResult<MissionView> {
    // A new mission has no time of a worker yet: nobody to lock.
    let mut tx = db.begin_write().await?;
    let id = create_in(&mut tx, actor, &input).await?;
    tx.commit().await?;
    store::load_one(db, id, actor).await
}

/// `createMission` inside the caller's write transaction (the sandbox's demo data records its
/// missions this way, many in one transaction); returns the new mission's id.
pub async fn create_in(conn: &mut sqlx::AnyConnection, actor: Actor, input: &MissionInput) -> AppResult<i64> {
    let name = input.name.as_deref().map(mission_name).transpose()?;
    permissions::can_create(conn, actor, input.company_id).await?;
    let vehicle = vehicles::resolve(
        conn,
        input.company_id,
        actor.user_id,
        input.vehicle_id,
        input.vehicle_registration_number.as_deref(),
    )
    .await?;
    let new = store::NewMission {
        company_id: input.company_id,
        submitter_id: actor.user_id,
        name: name.as_deref(),
        context: input.context.as_ref(),
        vehicle_id: vehicle.map(|v| v.id),
        creation_time: input.creation_time,
        past_registration_justification: input.past_registration_justification.as_deref(),
    };
    store::insert(conn, &new).await
}

/// `endMission`, for the actor or `worker`.
pub async fn end(db: &Db, actor: Actor, mission: i64, end_time: i64, worker: Option<i64>) -> AppResult<MissionView> {
    let worker = worker.unwrap_or(actor.user_id);
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    validation::end_mission(&mut tx, actor, mission, end_time, Some(worker)).await?;
    tx.commit().await?;
    store::load_one(db, mission, actor).await
}

/// One correction sent with `validateMission`.
pub enum Correction {
    Log(NewActivity),
    Edit(ActivityEdit),
    Cancel {
        activity_id: i64,
        context: Option<serde_json::Value>,
    },
}

/// What `validateMission` receives: the workers whose time is validated, and the corrections
/// applied first.
pub struct Validation {
    pub mission: i64,
    pub users: Vec<i64>,
    pub corrections: Vec<Correction>,
    pub expenditure_cancels: Vec<i64>,
    pub expenditures: Vec<NewExpenditure>,
    pub justification: Option<ValidationJustification>,
    pub creation_time: Option<i64>,
}

/// `validateMission`: the corrections, then the validation, in one transaction.
pub async fn validate(db: &Db, actor: Actor, validation: Validation, public_url: &str) -> AppResult<MissionView> {
    // Every worker the corrections touch is locked, with the validated ones.
    let mut touched = validation.users.clone();
    for correction in &validation.corrections {
        match correction {
            Correction::Log(new) => touched.push(new.user_id.unwrap_or(actor.user_id)),
            Correction::Edit(edit) => touched.extend(worker_of(db, edit.activity_id).await?),
            Correction::Cancel { activity_id, .. } => touched.extend(worker_of(db, *activity_id).await?),
        }
    }
    let mut conn = db.pool.acquire().await?;
    for id in &validation.expenditure_cancels {
        touched.extend(expenditures::worker_of(&mut conn, *id).await?);
    }
    drop(conn);
    touched.extend(
        validation
            .expenditures
            .iter()
            .map(|e| e.user_id.unwrap_or(actor.user_id)),
    );
    let mission = validation.mission;
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &touched).await?;
    let mission_row = permissions::readable(&mut tx, actor, mission).await?;
    for correction in &validation.corrections {
        correct(&mut tx, actor, mission_row.id, correction).await?;
    }
    for id in &validation.expenditure_cancels {
        expenditures::cancel(&mut tx, actor, *id).await?;
    }
    for new in &validation.expenditures {
        if new.mission_id != mission_row.id {
            return Err(AppError::invalid_inputs(
                "expendituresInputs must concern the validated mission",
            ));
        }
        expenditures::log(&mut tx, actor, new).await?;
    }
    validation::validate(
        &mut tx,
        actor,
        mission,
        &validation.users,
        validation.justification,
        validation.creation_time,
    )
    .await?;
    // Only this manual path tells the workers what an admin did.
    if permissions::is_admin(&mut tx, actor, mission_row.company_id).await? {
        notifications::triggers::after_admin_validation(
            &mut tx,
            mission,
            &validation.users,
            actor.user_id,
            now(),
            public_url,
        )
        .await?;
    }
    tx.commit().await?;
    store::load_one(db, mission, actor).await
}

/// One correction of `validateMission`: a mission-level write check only (an admin corrects
/// activities that someone else recorded).
async fn correct(
    conn: &mut sqlx::AnyConnection,
    actor: Actor,
    mission_id: i64,
    correction: &Correction,
) -> AppResult<()> {
    match correction {
        Correction::Log(new) => {
            if new.mission_id != mission_id {
                return Err(outside_the_mission());
            }
            log::log(conn, actor, new, false).await?;
        }
        Correction::Edit(edit) => {
            ensure_in_mission(conn, edit.activity_id, mission_id).await?;
            log::edit(conn, actor, edit, false).await?;
        }
        Correction::Cancel { activity_id, context } => {
            ensure_in_mission(conn, *activity_id, mission_id).await?;
            log::cancel(conn, actor, *activity_id, context.as_ref(), false).await?;
        }
    }
    Ok(())
}

fn outside_the_mission() -> AppError {
    AppError::invalid_inputs("activityItems must concern the validated mission")
}

async fn ensure_in_mission(conn: &mut sqlx::AnyConnection, activity_id: i64, mission_id: i64) -> AppResult<()> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT mission_id FROM activities WHERE id = $1")
        .bind(activity_id)
        .fetch_optional(conn)
        .await?;
    match row {
        Some((m,)) if m == mission_id => Ok(()),
        _ => Err(outside_the_mission()),
    }
}

/// `logExpenditure`.
pub async fn log_expenditure(db: &Db, actor: Actor, new: NewExpenditure) -> AppResult<ExpenditureRow> {
    let worker = new.user_id.unwrap_or(actor.user_id);
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    let row = expenditures::log(&mut tx, actor, &new).await?;
    tx.commit().await?;
    Ok(row)
}

/// `cancelExpenditure`.
pub async fn cancel_expenditure(db: &Db, actor: Actor, id: i64) -> AppResult<()> {
    let mut conn = db.pool.acquire().await?;
    let worker = expenditures::worker_of(&mut conn, id).await?;
    drop(conn);
    let worker = worker.ok_or_else(|| AppError::authorization("Forbidden access"))?;
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    expenditures::cancel(&mut tx, actor, id).await?;
    tx.commit().await?;
    Ok(())
}

/// `logComment`.
pub async fn log_comment(db: &Db, actor: Actor, mission: i64, text: &str) -> AppResult<CommentRow> {
    let mut conn = db.pool.acquire().await?;
    comments::log(&mut conn, actor, mission, text).await
}

/// `cancelComment`.
pub async fn cancel_comment(db: &Db, actor: Actor, comment: i64) -> AppResult<()> {
    let mut conn = db.pool.acquire().await?;
    comments::cancel(&mut conn, actor, comment).await
}

/// What `logLocation` receives.
pub struct LocationInput {
    pub mission: i64,
    pub kind: LocationEntryType,
    pub address: Address,
    pub kilometer_reading: Option<i32>,
    pub override_existing: bool,
}

/// `logLocation`.
pub async fn log_location(db: &Db, actor: Actor, input: LocationInput) -> AppResult<LocationRow> {
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[actor.user_id]).await?;
    let row = locations::log(
        &mut tx,
        actor,
        input.mission,
        input.kind,
        input.address,
        input.kilometer_reading,
        input.override_existing,
    )
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// `registerKilometerAtLocation`.
pub async fn register_kilometer(db: &Db, actor: Actor, location: i64, km: i64) -> AppResult<()> {
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[actor.user_id]).await?;
    locations::register_kilometer(&mut tx, actor, location, km).await?;
    tx.commit().await?;
    Ok(())
}

/// `changeMissionName`.
pub async fn rename(db: &Db, actor: Actor, mission: i64, name: &str) -> AppResult<MissionView> {
    let name = mission_name(name)?;
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[actor.user_id]).await?;
    permissions::writable(&mut tx, actor, mission, actor.user_id, now(), None).await?;
    sqlx::query("UPDATE missions SET name = $2 WHERE id = $1")
        .bind(mission)
        .bind(&name)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    store::load_one(db, mission, actor).await
}

/// `cancelMission`: every activity and expenditure of the worker in the mission is cancelled.
pub async fn cancel(db: &Db, actor: Actor, mission: i64, worker: i64) -> AppResult<MissionView> {
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    let span: (Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT MIN(start_time), MAX(COALESCE(end_time, start_time)) FROM activities
         WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
    )
    .bind(mission)
    .bind(worker)
    .fetch_one(&mut *tx)
    .await?;
    let start = span.0.unwrap_or_else(now);
    let access = permissions::writable(&mut tx, actor, mission, worker, start, span.1).await?;
    // The worker's counted time before it is cancelled, for the regulatory checks.
    let counted: (Option<i64>, Option<i64>, i64) = sqlx::query_as(crate::domain::alerts::triggers::sql::SPAN)
        .bind(mission)
        .bind(worker)
        .fetch_one(&mut *tx)
        .await?;
    let live: Vec<(i64,)> =
        sqlx::query_as("SELECT id FROM activities WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL")
            .bind(mission)
            .bind(worker)
            .fetch_all(&mut *tx)
            .await?;
    for (id,) in live {
        log::dismiss(&mut tx, actor, id, None).await?;
    }
    sqlx::query(
        "UPDATE expenditures SET dismissed_at = $3, dismiss_author_id = $4
         WHERE mission_id = $1 AND user_id = $2 AND dismissed_at IS NULL",
    )
    .bind(mission)
    .bind(worker)
    .bind(now())
    .bind(actor.user_id)
    .execute(&mut *tx)
    .await?;
    // An admin's cancellation recomputes the admin checks of those days.
    if access.actor_is_admin
        && let (Some(start), Some(end)) = (counted.0, counted.1)
    {
        let end = (counted.2 == 0).then_some(end);
        crate::domain::alerts::triggers::after_cancel(&mut tx, access.mission.company_id, worker, start, end).await?;
    }
    tx.commit().await?;
    store::load_one(db, mission, actor).await
}

/// `updateMissionVehicle`: by id or registration number (a new registration creates the
/// company's vehicle).
pub async fn change_vehicle(
    db: &Db,
    actor: Actor,
    mission: i64,
    vehicle_id: Option<i32>,
    registration: Option<String>,
) -> AppResult<VehicleRow> {
    if vehicle_id.is_none() && registration.is_none() {
        return Err(AppError::invalid_inputs(
            "Either vehicleId or vehicleRegistrationNumber should be set",
        ));
    }
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[actor.user_id]).await?;
    let access = permissions::writable(&mut tx, actor, mission, actor.user_id, now(), None).await?;
    let vehicle = vehicles::resolve(
        &mut tx,
        access.mission.company_id,
        actor.user_id,
        vehicle_id,
        registration.as_deref(),
    )
    .await?
    .ok_or_else(|| AppError::invalid_inputs("Unknown vehicle for this company").with("field", "vehicleId"))?;
    sqlx::query("UPDATE missions SET vehicle_id = $2 WHERE id = $1")
        .bind(mission)
        .bind(vehicle.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(vehicle)
}
