//! Roadlog extension, opt-in per company: the driving-time rules of Regulation (EC) No 561/2006
//! applied to `drive` activities, as extra check types (`eu…`). A break or a rest is time with no
//! recorded activity: work, support and transfers are neither driving nor rest.
//!
//! * daily driving (art. 6(1)): at most 9 h between two daily rests, 10 h at most twice in a
//!   calendar week;
//! * breaks (art. 7): a break of 45 min after 4 h 30 of driving, which may be split into 15 min
//!   followed by 30 min;
//! * weekly driving (art. 6(2)) 56 h, and two consecutive weeks (art. 6(3)) 90 h;
//! * daily rest (art. 8(2), 8(4)): within 24 h of the end of the previous rest, 11 h (or 3 h + 9 h),
//!   reduced to 9 h at most three times between two weekly rests;
//! * weekly rest (art. 8(6)): 45 h, reduced to 24 h, never two reduced weekly rests in a row.
//!   The compensation of a reduced weekly rest (art. 8(6), third subparagraph) is not checked.
//!
//! Weeks are the worker's local calendar weeks (Monday 00:00 to Monday 00:00); results are dated
//! on the day the driving period started, or on the Monday.

use chrono::NaiveDate;
use serde_json::{Map, Value, json};

use super::check_type::CheckType;
use super::explain::{Explanation, Words, duration_en, duration_fr};
use super::outcome::Alert;
use super::time::{self, HOUR, iso};
use super::workdays::{Activity, Mission};
use crate::domain::kinds::ActivityType;

mod breaks;
mod rests;
mod weekly;

pub use weekly::weekly;

pub(super) const ARTICLE_6_1: &str = "Regulation (EC) No 561/2006, article 6(1)";
pub(super) const ARTICLE_7: &str = "Regulation (EC) No 561/2006, article 7";
pub(super) const ARTICLE_6_2: &str = "Regulation (EC) No 561/2006, article 6(2)";
pub(super) const ARTICLE_6_3: &str = "Regulation (EC) No 561/2006, article 6(3)";
pub(super) const ARTICLE_8_2: &str = "Regulation (EC) No 561/2006, article 8(2) and 8(4)";
pub(super) const ARTICLE_8_6: &str = "Regulation (EC) No 561/2006, article 8(6)";

/// A gap of at least this long ends a daily driving period (a reduced daily rest).
pub(super) const DAILY_REST_MIN: i64 = 9 * HOUR;
pub(super) const WEEKLY_REST_REDUCED: i64 = 24 * HOUR;
pub(super) const WEEKLY_REST_REGULAR: i64 = 45 * HOUR;

/// What the EU checks read: the worker's counted activities, in order.
pub struct Timeline {
    pub(super) activities: Vec<Activity>,
    pub(super) now: i64,
}

impl Timeline {
    pub fn new(missions: &[Mission], now: i64) -> Timeline {
        let mut activities: Vec<Activity> = missions
            .iter()
            .flat_map(|m| m.activities.iter())
            .filter(|a| a.kind != ActivityType::Off)
            .cloned()
            .collect();
        activities.sort_by_key(|a| (a.start, a.id));
        activities.dedup_by_key(|a| a.id);
        Timeline { activities, now }
    }

    pub(super) fn end(&self, a: &Activity) -> i64 {
        a.end_or(self.now)
    }

    /// Periods of activities separated by gaps of at least `gap`.
    pub(super) fn periods(&self, gap: i64) -> Vec<&[Activity]> {
        let mut periods = vec![];
        let mut start = 0;
        for i in 1..=self.activities.len() {
            if i == self.activities.len() || self.activities[i].start - self.end(&self.activities[i - 1]) >= gap {
                if i > start {
                    periods.push(&self.activities[start..i]);
                }
                start = i;
            }
        }
        periods
    }

    pub(super) fn driving(&self, activities: &[Activity], from: i64, to: i64) -> i64 {
        activities
            .iter()
            .filter(|a| a.kind == ActivityType::Drive)
            .map(|a| a.duration_over(from, to, self.now))
            .sum()
    }

    /// Rests (gaps) overlapping `[from, to)`, whole; `None` ends: unbounded (no data).
    pub(super) fn rests(&self) -> Vec<(Option<i64>, Option<i64>)> {
        let mut rests = vec![(None, self.activities.first().map(|a| a.start))];
        for pair in self.activities.windows(2) {
            let (end, next) = (self.end(&pair[0]), pair[1].start);
            if next > end {
                rests.push((Some(end), Some(next)));
            }
        }
        if let Some(last) = self.activities.last() {
            rests.push((Some(self.end(last)), None));
        }
        rests
    }
}

pub(super) fn alert(day: NaiveDate, check: CheckType, extra: Map<String, Value>, explanation: Explanation) -> Alert {
    Alert {
        day,
        check,
        extra,
        explanation,
    }
}

pub(super) fn ids(activities: &[Activity]) -> Vec<&Activity> {
    activities.iter().filter(|a| a.kind == ActivityType::Drive).collect()
}

/// Daily driving, breaks and daily rests, for periods starting on `first..=last`.
pub fn daily(line: &Timeline, words: Words, first: NaiveDate, last: NaiveDate) -> Vec<Alert> {
    let tz = words.tz;
    let in_range = |t: i64| {
        let d = time::local_date(tz, t);
        (d >= first && d <= last).then_some(d)
    };
    let mut alerts = vec![];
    // Daily driving: extensions counted per calendar week of the period's start.
    let mut extensions: std::collections::HashMap<NaiveDate, i64> = Default::default();
    for period in line.periods(DAILY_REST_MIN) {
        let start = period[0].start;
        let end = line.end(&period[period.len() - 1]);
        let driving = line.driving(period, start, end);
        let week = time::monday(time::local_date(tz, start));
        let mut limit = 9 * HOUR;
        if driving > 9 * HOUR {
            let used = extensions.entry(week).or_default();
            *used += 1;
            if *used <= 2 {
                limit = 10 * HOUR;
            }
        }
        if driving > limit
            && let Some(day) = in_range(start)
        {
            let mut extra = Map::new();
            extra.insert("driving_in_seconds".into(), json!(driving));
            extra.insert("max_driving_in_seconds".into(), json!(limit));
            extra.insert(
                "extensions_in_week".into(),
                json!(extensions.get(&week).copied().unwrap_or(0)),
            );
            extra.insert("period_start".into(), json!(iso(start)));
            extra.insert("period_end".into(), json!(iso(end)));
            extra.insert("rule".into(), json!(ARTICLE_6_1));
            let (from_en, from_fr) = words.at(start);
            let (to_en, to_fr) = words.at(end);
            let explanation = Explanation {
                summary_en: format!(
                    "{} of driving between {from_en} and {to_en} (between two daily rests), more than {}.",
                    duration_en(driving),
                    duration_en(limit)
                ),
                summary_fr: format!(
                    "{} de conduite entre le {from_fr} et le {to_fr} (entre deux repos journaliers), plus de {}.",
                    duration_fr(driving),
                    duration_fr(limit)
                ),
                threshold_en: format!("At most 9 h of daily driving, 10 h at most twice a week ({ARTICLE_6_1})."),
                threshold_fr: "Au plus 9 h de conduite journalière, 10 h au plus deux fois par semaine (règlement (CE) n° 561/2006, article 6, paragraphe 1).".into(),
                evidence: ids(period).iter().map(|a| words.activities(&[a], line.now)).collect(),
            };
            alerts.push(alert(day, CheckType::EuDailyDriving, extra, explanation));
        }
    }
    alerts.extend(breaks::breaks(line, words, &in_range));
    alerts.extend(rests::daily_rests(line, words, &in_range));
    // One alert per check and day.
    alerts.dedup_by(|a, b| a.check == b.check && a.day == b.day);
    alerts
}
