//! Holidays (`activities.logHoliday`): a period of leave, rest or training is
//! recorded as one mission per day of the period, each holding a single `off` activity and
//! validated at once by whoever recorded it. Every step goes through the rules of the mutations
//! it stands for (`createMission`, `logComment`, `logActivity`, `validateMission`), in one
//! transaction with the worker locked: the whole period is recorded, or nothing.
//!
//! `off` time is not work: the work-day summaries count it apart (`activityDurations.off`, no
//! service, no work) and the regulatory checks leave it out, so a holiday counts as rest; and a
//! holiday mission is never auto-validated nor computed (see `alerts::triggers`).
//!
//! The days are the worker's local days: the period is cut at the local times of day of its
//! start and end, in the worker's zone (the reference cuts it at the UTC times of day, so a
//! holiday from 08:00 to 17:00 in Auckland came out as 08:00 to 17:00 on the wrong dates or
//! across two local days as soon as a clock change fell inside it).

use chrono::{Duration, NaiveDateTime};
use chrono_tz::Tz;

use crate::db::Db;
use crate::domain::activities::log::{self, NewActivity};
use crate::domain::activities::rules::to_minute;
use crate::domain::auth::Actor;
use crate::domain::kinds::ActivityType;
use crate::domain::mails;
use crate::domain::regulation::time::{local_datetime, local_to_utc};
use crate::domain::workers;
use crate::errors::{AppError, AppResult};
use crate::mail::kinds::MailType;
use crate::mail::notices;

use super::service::{MissionInput, create_in, mission_name};
use super::store::{self, MissionView};
use super::{comments, permissions, validation};

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

/// The daily periods of a holiday, cut as the reference cuts them (`get_daily_periods`) but in
/// the worker's zone `tz`: the local time of day of `start` and of `end` applied to each local
/// date from `start`'s, for the number of whole days between the two local times plus one; a
/// period whose end time of day is not after its start time of day ends the next day. Monday
/// 08:00 → Wednesday 17:00 gives three 08:00–17:00 periods; Monday 22:00 → Wednesday 06:00 gives
/// two 22:00–06:00 ones. A local time the clocks skip or repeat is read as
/// [`local_to_utc`] reads it.
pub fn daily_periods(tz: Tz, start: i64, end: i64) -> AppResult<Vec<(i64, i64)>> {
    if end <= start {
        return Err(AppError::invalid_inputs("endTime must be after startTime").with("field", "endTime"));
    }
    let (from, to) = (local_datetime(tz, start), local_datetime(tz, end));
    // Wall-clock days, so that a clock change inside the holiday neither adds nor drops one.
    let days = (to - from).num_days().max(0) + 1;
    if days > MAX_DAYS {
        return Err(AppError::invalid_inputs(format!(
            "A holiday covers at most {MAX_DAYS} days: record a longer one in several parts"
        )));
    }
    let (start_time, end_time) = (from.time(), to.time());
    let overnight = Duration::days(i64::from(start_time >= end_time));
    let at = |local: NaiveDateTime| local_to_utc(tz, local);
    Ok((0..days)
        .map(|day| {
            let date = from.date() + Duration::days(day);
            (at(date.and_time(start_time)), at((date + overnight).and_time(end_time)))
        })
        .collect())
}

/// The holiday's comment, when it has one.
fn comment_text(comment: Option<&str>) -> Option<&str> {
    comment.map(str::trim).filter(|c| !c.is_empty())
}

/// `activities.logHoliday`: the worker is `user_id` or the actor; a company admin records for
/// the company's workers, anyone for himself. Returns the missions created, in time order.
pub async fn log_holiday(db: &Db, actor: Actor, input: HolidayInput, public_url: &str) -> AppResult<Vec<MissionView>> {
    let title = mission_name(&input.title).map_err(|e| e.with("field", "title"))?;
    if let Some(comment) = comment_text(input.comment.as_deref())
        && comment.chars().count() > comments::MAX_LENGTH
    {
        return Err(AppError::invalid_inputs(format!(
            "A comment has between 1 and {} characters",
            comments::MAX_LENGTH
        )));
    }
    let worker = input.user_id.unwrap_or(actor.user_id);
    let mut tx = db.begin_write().await?;
    workers::lock(&mut tx, &[worker]).await?;
    let tz = crate::domain::alerts::load::zone(&mut tx, worker).await?;
    let periods = daily_periods(tz, to_minute(input.start), to_minute(input.end))?;
    // Someone else's holiday is recorded by an admin only (the reference refuses at its
    // validation step; checked first here, so that nothing else is looked at).
    if worker != actor.user_id && !permissions::is_admin(&mut tx, actor, input.company_id).await? {
        return Err(AppError::authorization(
            "Actor is not authorized to log a holiday for this user",
        ));
    }
    let mut ids = Vec::with_capacity(periods.len());
    for &(start, end) in &periods {
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
        let holiday = Holiday {
            company_id: input.company_id,
            title: &title,
            tz,
            periods: &periods,
        };
        tell_worker(&mut tx, worker, actor.user_id, &holiday, public_url).await?;
    }
    tx.commit().await?;
    let mut views = store::load_many(db, &ids, actor).await?;
    Ok(ids.iter().filter_map(|id| views.remove(id)).collect())
}

pub mod sql {
    crate::statements! {
        /// The admin's names and the company's name.
        pub const ADMIN_AND_COMPANY: &str = "SELECT u.first_name, u.last_name, c.usual_name FROM users u, companies c \
             WHERE u.id = $1 AND c.id = $2";
    }
}

/// A holiday recorded, as the worker's e-mail tells it.
struct Holiday<'a> {
    company_id: i64,
    title: &'a str,
    tz: Tz,
    periods: &'a [(i64, i64)],
}

/// As the reference, a worker whose holiday an admin recorded is told by e-mail
/// (`holiday_logging_by_admin`, optional, in the worker's language), in the transaction that
/// records it.
async fn tell_worker(
    conn: &mut sqlx::AnyConnection,
    worker: i64,
    admin: i64,
    holiday: &Holiday<'_>,
    public_url: &str,
) -> AppResult<()> {
    let found: Option<(String, String, String)> = sqlx::query_as(sql::ADMIN_AND_COMPANY)
        .bind(admin)
        .bind(holiday.company_id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some((first, last, company)) = found else {
        return Ok(());
    };
    let admin_name = format!("{first} {last}");
    mails::send(conn, worker, MailType::HolidayLoggingByAdmin, public_url, |to| {
        notices::holiday_logged(
            to.lang,
            &to.name,
            &admin_name,
            &company,
            holiday.title,
            holiday.tz,
            holiday.periods,
        )
    })
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONDAY: i64 = 1_767_571_200; // 2026-01-05 00:00 UTC
    const H: i64 = 3600;
    const DAY: i64 = 86_400;
    const UTC: Tz = chrono_tz::UTC;

    fn daily_periods(start: i64, end: i64) -> AppResult<Vec<(i64, i64)>> {
        super::daily_periods(UTC, start, end)
    }

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

    #[test]
    fn periods_follow_the_workers_clock() {
        use crate::domain::regulation::time::{iso, local_time};
        let auckland = chrono_tz::Pacific::Auckland;
        let date = |d: &str| d.parse::<chrono::NaiveDate>().unwrap();
        // 08:00 to 17:00 local, Monday 2026-11-16 to Wednesday 2026-11-18 (UTC+13): three local
        // days, each starting at 19:00 UTC the day before.
        let periods = super::daily_periods(
            auckland,
            local_time(auckland, date("2026-11-16"), 8, 0, 0),
            local_time(auckland, date("2026-11-18"), 17, 0, 0),
        )
        .unwrap();
        let text: Vec<(String, String)> = periods.iter().map(|(s, e)| (iso(*s), iso(*e))).collect();
        assert_eq!(
            text,
            [
                ("2026-11-15T19:00:00".into(), "2026-11-16T04:00:00".into()),
                ("2026-11-16T19:00:00".into(), "2026-11-17T04:00:00".into()),
                ("2026-11-17T19:00:00".into(), "2026-11-18T04:00:00".into()),
            ]
        );
        // Across the autumn clock change in Paris (2026-10-25): 09:00 local on each day, the
        // offset changing from UTC+2 to UTC+1 in between.
        let paris = chrono_tz::Europe::Paris;
        let periods = super::daily_periods(
            paris,
            local_time(paris, date("2026-10-24"), 9, 0, 0),
            local_time(paris, date("2026-10-26"), 12, 0, 0),
        )
        .unwrap();
        let starts: Vec<String> = periods.iter().map(|(s, _)| iso(*s)).collect();
        assert_eq!(
            starts,
            ["2026-10-24T07:00:00", "2026-10-25T08:00:00", "2026-10-26T08:00:00"]
        );
    }
}
