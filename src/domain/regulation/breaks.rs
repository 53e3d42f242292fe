//! The two halves of `enoughBreak` (reference `check_min_work_day_break` and
//! `check_max_uninterrupted_work_time`), also the deprecated checks of the same names.

use serde_json::{Map, json};

use super::explain::{Explanation, Words, duration_en, duration_fr};
use super::outcome::{Outcome, SANCTION_CODE};
use super::pyjson::PyNum;
use super::time::{HOUR, MINUTE, iso};
use super::workdays::{Activity, WorkDay};

/// `MAXIMUM_DURATION_OF_UNINTERRUPTED_WORK_IN_HOURS`.
pub const MAX_UNINTERRUPTED_HOURS: i64 = 6;
/// `MINIMUM_DURATION_INDIVIDUAL_BREAK_IN_MIN`.
pub const MIN_INDIVIDUAL_BREAK_MINUTES: i64 = 15;

/// No run of activities (transfers excepted) longer than 6 h: any gap, even a minute, or a
/// transfer, starts a new run.
pub fn uninterrupted(groups: &[&WorkDay], words: Words, now: i64) -> Outcome {
    let mut extra = Map::new();
    extra.insert("max_uninterrupted_work_in_hours".into(), json!(MAX_UNINTERRUPTED_HOURS));
    let mut seen = std::collections::HashSet::new();
    let mut run = PyNum::ZERO;
    let mut run_start = 0;
    let mut run_activities: Vec<&Activity> = vec![];
    let mut latest_end: Option<i64> = None;
    for activity in groups.iter().flat_map(|g| g.activities.iter()) {
        if !seen.insert(activity.id) || activity.kind == crate::domain::kinds::ActivityType::Transfer {
            continue;
        }
        if latest_end.is_none_or(|latest| activity.start > latest) {
            run = PyNum::ZERO;
            run_start = activity.start;
            run_activities.clear();
        }
        let end = activity.end_or(now);
        run = run.plus_seconds(end - activity.start);
        run_activities.push(activity);
        if run.value > MAX_UNINTERRUPTED_HOURS * HOUR {
            extra.insert("longest_uninterrupted_work_in_seconds".into(), run.json());
            extra.insert("longest_uninterrupted_work_start".into(), json!(iso(run_start)));
            extra.insert("longest_uninterrupted_work_end".into(), json!(iso(end)));
            extra.insert("sanction_code".into(), json!(SANCTION_CODE));
            let (from_en, from_fr) = words.at(run_start);
            let (to_en, to_fr) = words.at(end);
            let explanation = Explanation {
                summary_en: format!(
                    "{} of work without a break from {from_en} to {to_en}, more than 6 h.",
                    duration_en(run.value)
                ),
                summary_fr: format!(
                    "{} de travail sans pause du {from_fr} au {to_fr}, plus de 6 h.",
                    duration_fr(run.value)
                ),
                threshold_en:
                    "No more than 6 h of work without a break (article L. 3312-2 of the French Transport Code).".into(),
                threshold_fr: "Pas plus de 6 h de travail sans pause (article L. 3312-2 du Code des transports)."
                    .into(),
                evidence: vec![words.activities(&run_activities, now)],
            };
            return Outcome {
                success: false,
                extra,
                explanation,
            };
        }
        latest_end = activity.end;
    }
    Outcome::ok(extra)
}

/// Breaks of at least 15 min each must add up to 30 min when the day's work exceeds 6 h, 45 min
/// when it exceeds 9 h. Work is counted inside each selected day; gaps are read between
/// consecutive activities of the selected days, transfers included.
pub fn min_break(groups: &[&WorkDay], words: Words, now: i64) -> Outcome {
    let total_work: i64 = groups.iter().map(|g| g.total_work_duration).sum();
    let mut breaks = PyNum::ZERO;
    let mut counted: Vec<(i64, i64)> = vec![];
    let mut latest_end: Option<i64> = None;
    for activity in groups.iter().flat_map(|g| g.activities.iter()) {
        if let Some(latest) = latest_end
            && activity.start - latest >= MIN_INDIVIDUAL_BREAK_MINUTES * MINUTE
        {
            breaks = breaks.plus_seconds(activity.start - latest);
            counted.push((latest, activity.start));
        }
        latest_end = activity.end;
    }
    if total_work <= 6 * HOUR {
        return Outcome::ok(Map::new());
    }
    let required_minutes = if total_work <= 9 * HOUR { 30 } else { 45 };
    if breaks.value >= required_minutes * MINUTE {
        return Outcome::ok(Map::new());
    }
    let mut extra = Map::new();
    extra.insert("total_break_time_in_seconds".into(), breaks.json());
    extra.insert("work_range_in_seconds".into(), json!(total_work));
    extra.insert("work_range_start".into(), json!(iso(groups[0].start_time)));
    extra.insert("sanction_code".into(), json!(SANCTION_CODE));
    if let Some(latest) = latest_end {
        extra.insert("work_range_end".into(), json!(iso(latest)));
    }
    extra.insert("min_break_time_in_minutes".into(), json!(required_minutes));
    let mut evidence: Vec<_> = groups
        .iter()
        .flat_map(|g| g.activities.iter())
        .filter(|a| a.is_work())
        .map(|a| words.activities(&[a], now))
        .collect();
    evidence.dedup_by_key(|e| e.activity_ids.clone());
    evidence.extend(counted.iter().map(|(s, e)| words.rest(*s, *e)));
    let explanation = Explanation {
        summary_en: format!(
            "{} of work in the day with {} of breaks of at least 15 min, less than the {required_minutes} min required.",
            duration_en(total_work),
            duration_en(breaks.value)
        ),
        summary_fr: format!(
            "{} de travail dans la journée avec {} de pauses d'au moins 15 min, moins que les {required_minutes} min requises.",
            duration_fr(total_work),
            duration_fr(breaks.value)
        ),
        threshold_en: format!(
            "At least {required_minutes} min of breaks (periods of at least 15 min) when the day's work exceeds {} h (article L. 3312-2 of the French Transport Code).",
            if required_minutes == 30 { 6 } else { 9 }
        ),
        threshold_fr: format!(
            "Au moins {required_minutes} min de pause (par périodes d'au moins 15 min) quand le travail de la journée dépasse {} h (article L. 3312-2 du Code des transports).",
            if required_minutes == 30 { 6 } else { 9 }
        ),
        evidence,
    };
    Outcome {
        success: false,
        extra,
        explanation,
    }
}
