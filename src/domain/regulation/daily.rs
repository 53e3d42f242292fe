//! The daily checks, computed as the reference service computes them: minimum daily rest,
//! maximum work per day (with its night-work and amplitude variants) and enough break (minimum
//! breaks and maximum uninterrupted work), with the same `extra` keys, number types and
//! sanction codes, and an explanation of each failure.

use serde_json::{Map, json};

use super::breaks;
use super::business::Thresholds;
use super::explain::{Evidence, Explanation, Words, duration_en, duration_fr};
pub use super::outcome::{Outcome, SANCTION_CODE};
use super::pyjson::PyNum;
use super::time::{DAY, HOUR, iso};
use super::workdays::{Activity, WorkDay};

pub const NATINF_11292: &str = "NATINF 11292";
pub const NATINF_32083: &str = "NATINF 32083";
pub const NATINF_20525: &str = "NATINF 20525";
pub const NATINF_35187: &str = "NATINF 35187";
/// `LONG_BREAK_DURATION_IN_HOURS` of `minimumDailyRest`.
const MIN_DAILY_REST_HOURS: i64 = 10;

/// `minimumDailyRest` for the local day `(start, end)`, over the work days of that day and the
/// next: every activity of the day must be followed, within 14 h of its start, by the beginning
/// of a rest of at least 10 h (the end of the last work day counts as one). The "24 h" of the
/// rule are real hours, whatever the length of the day.
pub fn min_daily_rest(groups: &[&WorkDay], (day_start, day_end): (i64, i64), words: Words, now: i64) -> Outcome {
    let mut extra = Map::new();
    extra.insert("min_daily_break_in_hours".into(), json!(MIN_DAILY_REST_HOURS));
    let all: Vec<&Activity> = groups.iter().flat_map(|g| g.activities.iter()).collect();
    let Some(last_group) = groups.last() else {
        return Outcome::ok(extra);
    };
    let long = MIN_DAILY_REST_HOURS * HOUR;
    let mut long_breaks = long_breaks(&all, long, now);
    let last_end = last_group.end_time.unwrap_or(now);
    long_breaks.push((last_end, last_end + long));
    let of_day: Vec<&Activity> = all
        .iter()
        .copied()
        .filter(|a| a.start < day_end && a.end.is_some_and(|e| e >= day_start))
        .collect();
    let mut previous_end: Option<i64> = None;
    for (break_start, break_end) in long_breaks {
        let related = |a: &&Activity| a.start < break_end && previous_end.is_none_or(|p| a.start >= p);
        let day_related: Vec<&Activity> = of_day.iter().copied().filter(related).collect();
        let all_related: Vec<&Activity> = all.iter().copied().filter(related).collect();
        let cover_start = break_start + long - DAY;
        if let Some(first) = day_related.iter().find(|a| a.start < cover_start) {
            let breach_start = first.start;
            let breach_end = breach_start + DAY;
            let (longest, rest) = longest_inner_break(&all_related, now);
            let longest = if (0..DAY).contains(&longest) { longest } else { 0 };
            extra.insert("breach_period_start".into(), json!(iso(breach_start)));
            extra.insert("breach_period_end".into(), json!(iso(breach_end)));
            extra.insert("breach_period_max_break_in_seconds".into(), json!(longest));
            extra.insert("sanction_code".into(), json!(NATINF_20525));
            let (from_en, from_fr) = words.at(breach_start);
            let (to_en, to_fr) = words.at(breach_end);
            let mut evidence: Vec<Evidence> = all_related
                .iter()
                .filter(|a| a.start < breach_end)
                .map(|a| words.activities(&[a], now))
                .collect();
            evidence.dedup_by_key(|e| e.activity_ids.clone());
            if let Some((s, e)) = rest {
                evidence.push(words.rest(s, e));
            }
            let explanation = Explanation {
                summary_en: format!(
                    "Between {from_en} and {to_en}, the longest rest was {}: there was no rest of at least 10 h in the 24 h after work started.",
                    duration_en(longest)
                ),
                summary_fr: format!(
                    "Entre le {from_fr} et le {to_fr}, le plus long repos a duré {} : aucun repos d'au moins 10 h dans les 24 h suivant le début du travail.",
                    duration_fr(longest)
                ),
                threshold_en: "A daily rest of at least 10 h in every 24 h (article R. 3312-53, 2° of the French Transport Code).".into(),
                threshold_fr: "Un repos quotidien d'au moins 10 h toutes les 24 h (article R. 3312-53, 2° du Code des transports).".into(),
                evidence,
            };
            return Outcome {
                success: false,
                extra,
                explanation,
            };
        }
        previous_end = Some(break_end);
    }
    Outcome::ok(extra)
}

/// Gaps of at least `long` seconds between consecutive activities (in the given order).
pub fn long_breaks(activities: &[&Activity], long: i64, now: i64) -> Vec<(i64, i64)> {
    activities
        .windows(2)
        .filter_map(|pair| {
            let previous_end = pair[0].end_or(now);
            (pair[1].start - previous_end >= long).then_some((previous_end, pair[1].start))
        })
        .collect()
}

/// The longest gap among the activities, or from the last of them to 24 h after the first one
/// (reference `get_longest_inner_break`), and where it lies.
fn longest_inner_break(activities: &[&Activity], now: i64) -> (i64, Option<(i64, i64)>) {
    let Some(first) = activities.first() else {
        return (0, None);
    };
    let period_end = first.start + DAY;
    let mut sorted: Vec<&Activity> = activities.to_vec();
    sorted.sort_by_key(|a| (a.start, a.id));
    sorted.dedup_by_key(|a| a.id);
    let mut best: (i64, Option<(i64, i64)>) = (i64::MIN, None);
    let mut consider = |from: i64, to: i64| {
        if to - from > best.0 {
            best = (to - from, Some((from, to)));
        }
    };
    for pair in sorted.windows(2) {
        consider(pair[0].end_or(now), pair[1].start);
    }
    if let Some(last) = sorted.last() {
        consider(last.end_or(now), period_end);
    }
    best
}

/// `maximumWorkDayTime` over the work days of the day (and of the next one when it starts at
/// midnight): work periods are separated by rests of at least 10 h; the first period over its
/// limit, or else the last period, is reported.
pub fn max_work_day_time(groups: &[&WorkDay], t: Thresholds, words: Words, now: i64) -> Outcome {
    let mut sorted: Vec<&WorkDay> = groups.to_vec();
    sorted.sort_by_key(|g| g.start_time);
    let mut by_id: std::collections::BTreeMap<i64, (&Activity, &WorkDay)> = Default::default();
    for group in &sorted {
        for activity in &group.activities {
            // The last work day holding an activity is the one whose figures it carries.
            by_id.insert(activity.id, (activity, group));
        }
    }
    let mut all: Vec<(&Activity, &WorkDay)> = by_id.into_values().collect();
    all.sort_by_key(|(a, _)| (a.start, a.id));
    if all.is_empty() {
        return Outcome::ok(Map::new());
    }
    let activities: Vec<&Activity> = all.iter().map(|(a, _)| *a).collect();
    let resets: Vec<i64> = long_breaks(&activities, t.long_break_hours * HOUR, now)
        .into_iter()
        .filter_map(|(_, end)| activities.iter().find(|a| a.start >= end).map(|a| a.id))
        .collect();
    let mut period = Period::default();
    let mut breach: Option<Outcome> = None;
    for (activity, group) in &all {
        if resets.contains(&activity.id) {
            if breach.is_none()
                && let (Some(start), Some(end)) = (period.start, period.prev_work_end)
            {
                let outcome = period.judge(t, start, end, words, now);
                if !outcome.success {
                    breach = Some(outcome);
                }
            }
            period = Period::default();
        }
        period.amplitude += group.service_duration as f64 / group.activities.len() as f64;
        period.night_work |= group.night_work_duration > 0;
        if period.start.is_none() {
            period.start = Some(activity.start.max(group.start_time));
        }
        if activity.is_work() {
            period.worked = period.worked.plus_seconds(activity.end_or(now) - activity.start);
            period.prev_work_end = Some(activity.end_or(now));
            period.work.push(activity);
        }
    }
    if let Some(outcome) = breach {
        return outcome;
    }
    let start = period.start.unwrap_or(activities[0].start);
    let end = activities[activities.len() - 1].end_or(now);
    period.judge(t, start, end, words, now)
}

/// One work period of `maximumWorkDayTime`.
#[derive(Default)]
struct Period<'a> {
    amplitude: f64,
    worked: PyNum,
    night_work: bool,
    start: Option<i64>,
    prev_work_end: Option<i64>,
    work: Vec<&'a Activity>,
}

impl Period<'_> {
    fn limit_hours(&self, t: Thresholds) -> i64 {
        if self.night_work {
            t.max_night_work_hours
        } else if let Some(trigger) = t.amplitude_trigger_hours
            && self.amplitude > (trigger * HOUR) as f64
        {
            t.max_day_work_if_high_amplitude_hours
        } else {
            t.max_day_work_hours
        }
    }

    fn judge(&self, t: Thresholds, start: i64, end: i64, words: Words, now: i64) -> Outcome {
        let limit = self.limit_hours(t);
        let mut extra = Map::new();
        extra.insert("night_work".into(), json!(self.night_work));
        extra.insert("max_work_range_in_hours".into(), json!(limit));
        extra.insert("work_range_in_seconds".into(), self.worked.json());
        extra.insert("work_range_start".into(), json!(iso(start)));
        extra.insert("work_range_end".into(), json!(iso(end)));
        if self.worked.value <= limit * HOUR {
            return Outcome::ok(extra);
        }
        let sanction = if self.night_work { NATINF_32083 } else { NATINF_11292 };
        extra.insert("sanction_code".into(), json!(sanction));
        // The work counted is whole activities, and the first one may start before the day's
        // start (`work_range_start`, as the reference stores it): the window the words name
        // opens at the earliest counted start, so that it contains the time it counts.
        let shown_start = self.work.iter().map(|a| a.start).fold(start, i64::min);
        let (from_en, from_fr) = words.at(shown_start);
        let (to_en, to_fr) = words.at(end);
        let (why_en, why_fr) = if self.night_work {
            (
                " (10 h because part of the work was done between midnight and 05:00)".to_string(),
                " (10 h car une partie du travail a eu lieu entre minuit et 5 h)".to_string(),
            )
        } else if limit == t.max_day_work_if_high_amplitude_hours && t.amplitude_trigger_hours.is_some() {
            let trigger = t.amplitude_trigger_hours.unwrap_or_default();
            (
                format!(" (9 h because the working day spanned more than {trigger} h)"),
                format!(" (9 h car l'amplitude de la journée a dépassé {trigger} h)"),
            )
        } else {
            (String::new(), String::new())
        };
        let explanation = Explanation {
            summary_en: format!(
                "{} of work between {from_en} and {to_en}, more than the {limit} h allowed{why_en}.",
                duration_en(self.worked.value)
            ),
            summary_fr: format!(
                "{} de travail entre le {from_fr} et le {to_fr}, plus que les {limit} h autorisées{why_fr}.",
                duration_fr(self.worked.value)
            ),
            threshold_en: format!("At most {limit} h of work in a working day."),
            threshold_fr: format!("Au plus {limit} h de travail dans une journée de travail."),
            evidence: self.work.iter().map(|a| words.activities(&[a], now)).collect(),
        };
        Outcome {
            success: false,
            extra,
            explanation,
        }
    }
}

/// `enoughBreak` (NATINF 35187): enough breaks for the day's work and no run of work over 6 h.
pub fn enough_break(groups: &[&WorkDay], words: Words, now: i64) -> Outcome {
    let run = breaks::uninterrupted(groups, words, now);
    let pause = breaks::min_break(groups, words, now);
    let mut extra = run.extra.clone();
    if !pause.success {
        extra.extend(pause.extra.clone());
    }
    extra.insert("sanction_code".into(), json!(NATINF_35187));
    extra.insert("not_enough_break".into(), json!(!pause.success));
    extra.insert("too_much_uninterrupted_work_time".into(), json!(!run.success));
    if run.success && pause.success {
        return Outcome::ok(extra);
    }
    let mut explanation = Explanation {
        threshold_en: "A break of at least 30 min when the day's work exceeds 6 h, 45 min beyond 9 h, in periods of at least 15 min, and no more than 6 h of work without a break (article L. 3312-2 of the French Transport Code).".into(),
        threshold_fr: "Une pause d'au moins 30 min quand le travail de la journée dépasse 6 h, 45 min au-delà de 9 h, par périodes d'au moins 15 min, et pas plus de 6 h de travail sans pause (article L. 3312-2 du Code des transports).".into(),
        ..Explanation::default()
    };
    let mut summaries_en = vec![];
    let mut summaries_fr = vec![];
    for part in [&pause, &run] {
        if !part.success {
            summaries_en.push(part.explanation.summary_en.clone());
            summaries_fr.push(part.explanation.summary_fr.clone());
            explanation.evidence.extend(part.explanation.evidence.iter().cloned());
        }
    }
    explanation.summary_en = summaries_en.join(" ");
    explanation.summary_fr = summaries_fr.join(" ");
    Outcome {
        success: false,
        extra,
        explanation,
    }
}

/// `minimumWorkDayBreak`, replaced by `enoughBreak` in April 2025.
pub fn min_work_day_break(groups: &[&WorkDay], words: Words, now: i64) -> Outcome {
    let outcome = breaks::min_break(groups, words, now);
    if outcome.success {
        Outcome::ok(Map::new())
    } else {
        outcome
    }
}

/// `maximumUninterruptedWorkTime`, replaced by `enoughBreak` in April 2025.
pub fn max_uninterrupted_work_time(groups: &[&WorkDay], words: Words, now: i64) -> Outcome {
    breaks::uninterrupted(groups, words, now)
}
