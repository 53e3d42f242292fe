//! Holidays (reference §5, `activities.logHoliday`): a period of leave, rest or training is
//! recorded as one mission per day of the period, each holding a single `off` activity and
//! validated at once by whoever recorded it. Every step goes through the rules of the mutations
//! it stands for (`createMission`, `logComment`, `logActivity`, `validateMission`), in one
//! transaction with the worker locked: the whole period is recorded, or nothing.
//!
//! `off` time is not work: the work-day summaries count it apart (`activityDurations.off`, no
//! service, no work) and the regulatory checks leave it out, so a holiday counts as rest; and a
//! holiday mission is never auto-validated nor computed (see `alerts::triggers`).

use chrono::{DateTime, NaiveTime};

use crate::db::Db;
use crate::domain::activities::log::{self, NewActivity};
use crate::domain::activities::rules::to_minute;
use crate::domain::auth::Actor;
use crate::domain::kinds::ActivityType;
use crate::domain::workers;
use crate::errors::{AppError, AppResult};

use super::service::{MissionInput, create_in, mission_name};
use super::store::{self, MissionView};
use super::{comments, permissions, validation};

const DAY: i64 = 86_400;

/// Longest holiday recorded at once, in days (one mission each): a year of leave is already
/// more than anyone records in one go, and bounds the transaction.
pub const MAX_DAYS: i64 = 366;

/// What `logHoliday` receives.
#[derive(Clone, Debug)]
pub struct HolidayInput {
    pub company_id: i64,
    pub start: i64,
    pub end: i64,
    pub title: String,
    pub comment: Option<String>,
    pub user_id: Option<i64>,
}

/// The daily periods of a holiday, as the reference cuts them (`get_daily_periods`): the time of
/// day of `start` and of `end` (UTC) applied to each date from `start`'s, for
/// `floor((end − start) / 1 day) + 1` days; a period whose end time of day is not after its start
/// time of day ends the next day. Monday 08:00 → Wednesday 17:00 gives three 08:00–17:00 periods;
/// Monday 22:00 → Wednesday 06:00 gives two 22:00–06:00 ones.
pub fn daily_periods(start: i64, end: i64) -> AppResult<Vec<(i64, i64)>> {
    if end <= start {
        return Err(AppError::invalid_inputs("endTime must be after startTime").with("field", "endTime"));
    }
    let days = (end - start) / DAY + 1;
    if days > MAX_DAYS {
        return Err(AppError::invalid_inputs(format!(
            "A holiday covers at most {MAX_DAYS} days: record a longer one in several parts"
        )));
    }
    let time_of_day = |t: i64| -> AppResult<NaiveTime> {
        DateTime::from_timestamp(t, 0)
            .map(|d| d.time())
            .ok_or_else(|| AppError::invalid_inputs("time out of range"))
    };
    let (start_time, end_time) = (time_of_day(start)?, time_of_day(end)?);
    let first_day = start - start.rem_euclid(DAY);
    let start_offset = start_time.signed_duration_since(NaiveTime::MIN).num_seconds();
    let mut end_offset = end_time.signed_duration_since(NaiveTime::MIN).num_seconds();
    if start_offset >= end_offset {
        end_offset += DAY;
    }
    Ok((0..days)
        .map(|day| {
            let base = first_day + day * DAY;
            (base + start_offset, base + end_offset)
        })
        .collect())
}

/// The holiday's comment, when it has one.
fn comment_text(comment: Option<&str>) -> Option<&str> {
    comment.map(str::trim).filter(|c| !c.is_empty())
}

/// `activities.logHoliday`: the worker is `user_id` or the actor; a company admin records for
/// the company's workers, anyone for himself. Returns the missions created, in time order.
pub async fn log_holiday(db: &Db, actor: Actor, input: HolidayInput) -> AppResult<Vec<MissionView>> {
    let title = mission_name(&input.title).map_err(|e| e.with("field", "title"))?;
    let periods = daily_periods(to_minute(input.start), to_minute(input.end))?;
    if let Some(comment) = comment_text(input.comment.as_deref())
        && comment.chars().count() > comments::MAX_LENGTH
    {
        return Err(AppError::invalid_inputs(format!(
            "A comment has between 1 and {} characters",
            comments::MAX_LENGTH
        )));
    }
    let worker = input.user_id.unwrap_or(actor.user_id);
    let periods_text = match (periods.first(), periods.last()) {
        (Some(first), Some(last)) => format!(
            "{} day(s), from {} to {} (UTC)",
            periods.len(),
            utc_text(first.0),
            utc_text(last.1)
        ),
        _ => String::new(),
    };
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    // Someone else's holiday is recorded by an admin only (the reference refuses at its
    // validation step; checked first here, so that nothing else is looked at).
    if worker != actor.user_id && !permissions::is_admin(&mut tx, actor, input.company_id).await? {
        return Err(AppError::authorization(
            "Actor is not authorized to log a holiday for this user",
        ));
    }
    let mut ids = Vec::with_capacity(periods.len());
    for (start, end) in periods {
        let mission = MissionInput {
            company_id: input.company_id,
            name: Some(title.clone()),
            context: None,
            creation_time: None,
            past_registration_justification: None,
            vehicle_id: None,
            vehicle_registration_number: None,
        };
        let mission_id = create_in(&mut tx, actor, &mission).await?;
        if let Some(comment) = comment_text(input.comment.as_deref()) {
            comments::log(&mut tx, actor, mission_id, comment).await?;
        }
        let off = NewActivity {
            mission_id,
            user_id: Some(worker),
            kind: ActivityType::Off,
            start,
            end: Some(end),
            switch: false,
            context: None,
            creation_time: None,
        };
        log::log(&mut tx, actor, &off, true).await?;
        validation::validate(&mut tx, actor, mission_id, &[worker], None, None).await?;
        ids.push(mission_id);
    }
    if worker != actor.user_id {
        tell_worker(&mut tx, worker, &input, &title, &periods_text).await?;
    }
    tx.commit().await?;
    let mut views = store::load_many(db, &ids, actor).await?;
    Ok(ids.iter().filter_map(|id| views.remove(id)).collect())
}

fn utc_text(t: i64) -> String {
    DateTime::from_timestamp(t, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

pub mod sql {
    crate::statements! {
        /// The worker's address and the company's name.
        pub const WORKER_AND_COMPANY: &str = "SELECT u.email, c.usual_name FROM users u, companies c WHERE u.id = $1 AND c.id = $2";
    }
}

/// As the reference, a worker whose holiday an admin recorded is told by e-mail (at his own
/// address), in the transaction that records it.
async fn tell_worker(
    conn: &mut sqlx::AnyConnection,
    worker: i64,
    input: &HolidayInput,
    title: &str,
    periods: &str,
) -> AppResult<()> {
    let found: Option<(String, String)> = sqlx::query_as(sql::WORKER_AND_COMPANY)
        .bind(worker)
        .bind(input.company_id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some((email, company)) = found else {
        return Ok(());
    };
    let body = format!(
        "{company} recorded a holiday for you on Roadlog: \"{title}\", {periods}.\n\n\
         It counts as rest, not work, and is already validated; read it with your missions (me.missions).\n"
    );
    crate::mail::outbox::enqueue(
        conn,
        &email,
        &format!("{company} recorded a holiday for you"),
        &body,
        None,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONDAY: i64 = 1_767_571_200; // 2026-01-05 00:00 UTC
    const H: i64 = 3600;

    #[test]
    fn a_day_period_is_repeated_on_each_date() {
        let periods = daily_periods(MONDAY + 8 * H, MONDAY + 2 * DAY + 17 * H).unwrap();
        assert_eq!(
            periods,
            [
                (MONDAY + 8 * H, MONDAY + 17 * H),
                (MONDAY + DAY + 8 * H, MONDAY + DAY + 17 * H),
                (MONDAY + 2 * DAY + 8 * H, MONDAY + 2 * DAY + 17 * H),
            ]
        );
    }

    #[test]
    fn a_night_period_ends_the_next_day() {
        let periods = daily_periods(MONDAY + 22 * H, MONDAY + 2 * DAY + 6 * H).unwrap();
        assert_eq!(
            periods,
            [
                (MONDAY + 22 * H, MONDAY + DAY + 6 * H),
                (MONDAY + DAY + 22 * H, MONDAY + 2 * DAY + 6 * H),
            ]
        );
    }

    #[test]
    fn one_short_period_and_the_bounds() {
        assert_eq!(
            daily_periods(MONDAY + 9 * H, MONDAY + 12 * H).unwrap(),
            [(MONDAY + 9 * H, MONDAY + 12 * H)]
        );
        assert!(daily_periods(MONDAY, MONDAY).is_err());
        assert!(daily_periods(MONDAY, MONDAY - H).is_err());
        assert!(daily_periods(MONDAY, MONDAY + MAX_DAYS * DAY).is_err());
        assert_eq!(
            daily_periods(MONDAY, MONDAY + (MAX_DAYS - 1) * DAY + H).unwrap().len(),
            MAX_DAYS as usize
        );
    }
}
