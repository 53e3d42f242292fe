//! The weekly checks, computed as the reference service computes them: weekly rest (at
//! most 6 worked days and a rest of 34 h inside the calendar week) and the maximum work of a
//! calendar week, per business.

use chrono::{Duration, NaiveDate};
use serde_json::{Map, json};

use super::daily::Outcome;
use super::explain::{Evidence, Explanation, Words, duration_en, duration_fr};
use super::pyjson::PyNum;
use super::time::{self, HOUR, iso};
use super::workdays::WorkDay;

pub const NATINF_13152: &str = "NATINF 13152";
pub const NATINF_11289: &str = "NATINF 11289";
/// `MAXIMUM_DAY_WORKED_BY_WEEK`.
pub const MAX_DAYS_WORKED: i64 = 6;
/// `MINIMUM_WEEKLY_BREAK_IN_HOURS`.
pub const MIN_WEEKLY_REST_HOURS: i64 = 34;

/// A calendar week of work days (reference `group_user_events_by_week`).
#[derive(Debug)]
pub struct Week<'a> {
    pub monday: NaiveDate,
    pub days: Vec<&'a WorkDay>,
    pub work_duration: i64,
    pub rest_duration: PyNum,
}

/// The weeks whose Monday lies from `monday(from)` to `monday(to)`, with their work days.
pub fn weeks<'a>(tz: chrono_tz::Tz, work_days: &'a [WorkDay], from: NaiveDate, to: NaiveDate) -> Vec<Week<'a>> {
    let mut weeks = vec![];
    let mut monday = time::monday(from);
    while monday <= time::monday(to) {
        let days: Vec<&WorkDay> = work_days.iter().filter(|w| time::monday(w.day) == monday).collect();
        let work_duration = days.iter().map(|d| d.total_work_duration).sum();
        let rest_duration = rest_duration(tz, monday, &days);
        weeks.push(Week {
            monday,
            days,
            work_duration,
            rest_duration,
        });
        monday += Duration::days(7);
    }
    weeks
}

/// The longest rest inside the week (reference `compute_weekly_rest_duration`): a day without
/// work adds its length (23, 24 or 25 real hours) to the running rest; a day whose first mission
/// starts that day closes it at the day's start; a day whose last mission ends that day opens a
/// new one at its end. Rest before Monday 00:00 or after the next Monday 00:00 (local) does not
/// count.
fn rest_duration(tz: chrono_tz::Tz, monday: NaiveDate, days: &[&WorkDay]) -> PyNum {
    let mut current = PyNum::ZERO;
    let mut longest = PyNum::ZERO;
    for day in time::dates(monday, monday + Duration::days(6)) {
        match days.iter().find(|d| d.day == day) {
            None => current = current.plus_int(time::day_end(tz, day) - time::day_start(tz, day)),
            Some(work_day) => {
                if !work_day.first_mission_overlaps_previous_day {
                    current = current.plus_seconds(work_day.start_time - time::day_start(tz, day));
                    if current.value > longest.value {
                        longest = current;
                    }
                    current = PyNum::ZERO;
                }
                if !work_day.last_mission_overlaps_next_day {
                    let end = work_day.end_time.unwrap_or(work_day.end_of_day);
                    current = PyNum::seconds(work_day.end_of_day - end);
                }
            }
        }
    }
    if current.value > longest.value {
        longest = current;
    }
    longest
}

fn day_evidence(words: Words, day: &WorkDay) -> Evidence {
    let end = day.end_time.unwrap_or(day.end_of_day);
    let (from_en, from_fr) = words.at(day.start_time);
    let (to_en, to_fr) = words.at(end);
    Evidence {
        start: day.start_time,
        end,
        activity_ids: day.activities.iter().map(|a| a.id).collect(),
        en: format!(
            "{}: work from {from_en} to {to_en} ({} of work)",
            day.day,
            duration_en(day.total_work_duration)
        ),
        fr: format!(
            "{} : travail du {from_fr} au {to_fr} ({} de travail)",
            time::french_date(day.day),
            duration_fr(day.total_work_duration)
        ),
    }
}

/// `maximumWorkedDaysInWeek`.
pub fn max_worked_days(week: &Week, words: Words) -> Outcome {
    let worked_days = week.days.len() as i64;
    let too_many_days = worked_days > MAX_DAYS_WORKED;
    let not_enough_rest = week.rest_duration.value < MIN_WEEKLY_REST_HOURS * HOUR;
    let mut extra = Map::new();
    extra.insert("max_nb_days_worked_by_week".into(), json!(MAX_DAYS_WORKED));
    extra.insert("min_weekly_break_in_hours".into(), json!(MIN_WEEKLY_REST_HOURS));
    extra.insert("too_many_days".into(), json!(too_many_days));
    extra.insert("sanction_code".into(), json!(NATINF_13152));
    if not_enough_rest {
        extra.insert("rest_duration_s".into(), week.rest_duration.json());
    }
    if !(too_many_days || not_enough_rest) {
        return Outcome::ok(extra);
    }
    let mut en = vec![];
    let mut fr = vec![];
    if too_many_days {
        en.push(format!("Work on {worked_days} days of the week, more than 6."));
        fr.push(format!("Travail sur {worked_days} jours de la semaine, plus de 6."));
    }
    if not_enough_rest {
        en.push(format!(
            "The longest rest inside the week was {}, less than 34 h.",
            duration_en(week.rest_duration.value)
        ));
        fr.push(format!(
            "Le plus long repos dans la semaine a duré {}, moins de 34 h.",
            duration_fr(week.rest_duration.value)
        ));
    }
    let explanation = Explanation {
        summary_en: en.join(" "),
        summary_fr: fr.join(" "),
        threshold_en: "At most 6 worked days in a week (article L. 3132-1 of the French Labour Code) and a weekly rest of at least 34 h (article L. 3132-2), within the calendar week (Monday to Sunday).".into(),
        threshold_fr: "Au plus 6 jours travaillés dans la semaine (article L. 3132-1 du Code du travail) et un repos hebdomadaire d'au moins 34 h (article L. 3132-2), dans la semaine civile (lundi à dimanche).".into(),
        evidence: week.days.iter().map(|d| day_evidence(words, d)).collect(),
    };
    Outcome {
        success: false,
        extra,
        explanation,
    }
}

/// `maximumWorkInCalendarWeek`.
pub fn max_work_in_calendar_week(week: &Week, max_hours: i64, words: Words) -> Outcome {
    let mut extra = Map::new();
    extra.insert("max_weekly_work_in_seconds".into(), json!(max_hours * HOUR));
    extra.insert("work_duration_in_seconds".into(), json!(week.work_duration));
    let success = week.work_duration <= max_hours * HOUR;
    if !success {
        extra.insert("sanction_code".into(), json!(NATINF_11289));
    }
    if let (Some(first), Some(last)) = (week.days.first(), week.days.last()) {
        extra.insert("work_range_start".into(), json!(iso(first.start_time)));
        extra.insert(
            "work_range_end".into(),
            json!(iso(last.end_time.unwrap_or(last.end_of_day))),
        );
    }
    if success {
        return Outcome::ok(extra);
    }
    let explanation = Explanation {
        summary_en: format!(
            "{} of work in the week of {}, more than the {max_hours} h allowed.",
            duration_en(week.work_duration),
            week.monday
        ),
        summary_fr: format!(
            "{} de travail dans la semaine du {}, plus que les {max_hours} h autorisées.",
            duration_fr(week.work_duration),
            time::french_date(week.monday)
        ),
        threshold_en: format!("At most {max_hours} h of work in a calendar week (Monday to Sunday)."),
        threshold_fr: format!("Au plus {max_hours} h de travail dans une semaine civile (lundi à dimanche)."),
        evidence: week.days.iter().map(|d| day_evidence(words, d)).collect(),
    };
    Outcome {
        success: false,
        extra,
        explanation,
    }
}
