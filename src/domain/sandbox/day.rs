//! Recording one worker's day as the API would: a mission (with its vehicle), its activities,
//! start and end locations (with kilometre readings), expenditures and a comment, its end and
//! the worker's validation (which computes the worker's regulatory checks). Every step is the
//! domain function behind the matching mutation, run inside the caller's write transaction with
//! the worker locked, so the rules (overlaps, permissions, validation locks) apply as they do
//! to a client. The sandbox's demo data and the benchmark's seed both record their days here.

use sqlx::AnyConnection;

use crate::domain::activities::log::{self, NewActivity};
use crate::domain::auth::Actor;
use crate::domain::expenditures::{self, NewExpenditure};
use crate::domain::kinds::{ExpenditureType, LocationEntryType};
use crate::domain::missions::locations;
use crate::domain::missions::service::{MissionInput, create_in};
use crate::domain::missions::{comments, validation};
use crate::errors::AppResult;

use super::plan::Segment;

/// Where the mission starts and ends; the odometer at both ends when the company asks for it.
#[derive(Clone, Debug)]
pub struct Places {
    pub start: String,
    pub end: String,
    pub kilometers: Option<(i32, i32)>,
}

/// One day of one worker, as recorded.
#[derive(Clone, Debug)]
pub struct Day {
    pub company_id: i64,
    pub worker: i64,
    pub mission_name: String,
    /// The registration of the vehicle (the company's vehicle, created at its first use).
    pub vehicle: Option<String>,
    /// The first activity's start, in Unix seconds; the segments follow one another from there.
    pub start: i64,
    pub segments: Vec<Segment>,
    /// Kept as the client's creation time of the mission and activities (`None`: now), as an
    /// application that records offline sends it.
    pub backdated: bool,
    pub places: Option<Places>,
    pub expenditures: Vec<ExpenditureType>,
    pub comment: Option<String>,
    /// The worker validates the mission once ended.
    pub validate: bool,
}

/// What was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub mission_id: i64,
    /// The mission's end: after the last segment (a trailing break delays it).
    pub end: i64,
    pub activities: usize,
    pub expenditures: usize,
    pub comments: usize,
}

/// Records the day inside the caller's write transaction, in which `day.worker` is locked.
pub async fn record(conn: &mut AnyConnection, day: &Day) -> AppResult<Recorded> {
    let worker = day.worker;
    // The sandbox acts as the worker, with no employment token: unconfined.
    let actor = Actor::unconfined(worker);
    let created = |t: i64| day.backdated.then_some(t);
    let input = MissionInput {
        company_id: day.company_id,
        name: Some(day.mission_name.clone()),
        context: None,
        creation_time: created(day.start),
        past_registration_justification: None,
        vehicle_id: None,
        vehicle_registration_number: day.vehicle.clone(),
    };
    let mission_id = create_in(conn, actor, &input).await?;
    if let Some(places) = &day.places {
        let km = places.kilometers.map(|(start, _)| start);
        locate(
            conn,
            worker,
            mission_id,
            LocationEntryType::MissionStartLocation,
            &places.start,
            km,
        )
        .await?;
    }
    let mut at = day.start;
    let mut activities = 0;
    for segment in &day.segments {
        match *segment {
            Segment::Activity(kind, minutes) => {
                let end = at + minutes * 60;
                let new = NewActivity {
                    mission_id,
                    user_id: None,
                    kind,
                    start: at,
                    end: Some(end),
                    switch: false,
                    context: None,
                    creation_time: created(at),
                };
                log::log(conn, actor, &new, true).await?;
                activities += 1;
                at = end;
            }
            Segment::Break(minutes) => at += minutes * 60,
        }
    }
    for kind in &day.expenditures {
        let new = NewExpenditure {
            mission_id,
            user_id: None,
            kind: *kind,
            // The demo workers' local date (their zone is the demo's), the day `workDays` shows.
            spending_date: crate::domain::regulation::time::local_date(super::DEMO_TIME_ZONE, day.start),
            creation_time: created(at),
        };
        expenditures::log(conn, actor, &new).await?;
    }
    if let Some(text) = &day.comment {
        comments::log(conn, actor, mission_id, text).await?;
    }
    validation::end_mission(conn, actor, mission_id, at, Some(worker)).await?;
    if let Some(places) = &day.places {
        let km = places.kilometers.map(|(_, end)| end);
        locate(
            conn,
            worker,
            mission_id,
            LocationEntryType::MissionEndLocation,
            &places.end,
            km,
        )
        .await?;
    }
    if day.validate {
        validation::validate(conn, actor, mission_id, &[worker], None, created(at)).await?;
    }
    Ok(Recorded {
        mission_id,
        end: at,
        activities,
        expenditures: day.expenditures.len(),
        comments: usize::from(day.comment.is_some()),
    })
}

async fn locate(
    conn: &mut AnyConnection,
    worker: i64,
    mission_id: i64,
    kind: LocationEntryType,
    name: &str,
    kilometers: Option<i32>,
) -> AppResult<()> {
    // A typed-in address, checked as `logLocation` checks `manualAddress`.
    let address = locations::address(Some(name.to_string()), None, None)?;
    locations::log(
        conn,
        Actor::unconfined(worker),
        mission_id,
        kind,
        address,
        kilometers,
        false,
    )
    .await?;
    Ok(())
}
