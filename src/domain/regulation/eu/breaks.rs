//! Art. 7 of Regulation (EC) No 561/2006: breaks after 4 h 30 of driving (Roadlog extension).

use chrono::NaiveDate;
use serde_json::{Map, json};

use super::{ARTICLE_7, Timeline, alert};
use crate::domain::kinds::ActivityType;
use crate::domain::regulation::check_type::CheckType;
use crate::domain::regulation::explain::{Explanation, Words, duration_en, duration_fr};
use crate::domain::regulation::outcome::Alert;
use crate::domain::regulation::time::{HOUR, MINUTE, iso};
use crate::domain::regulation::workdays::Activity;

/// Art. 7: 45 min of break (or 15 min then 30 min) after at most 4 h 30 of driving.
pub(super) fn breaks(line: &Timeline, words: Words, in_range: &dyn Fn(i64) -> Option<NaiveDate>) -> Vec<Alert> {
    let max = 4 * HOUR + 30 * MINUTE;
    let mut alerts = vec![];
    let mut driven = 0;
    let mut since: Option<i64> = None;
    let mut exceeded_at: Option<i64> = None;
    let mut split = false;
    let mut run: Vec<&Activity> = vec![];
    let mut close = |driven: i64, since: Option<i64>, exceeded_at: Option<i64>, run: &[&Activity]| {
        let (Some(at), Some(since)) = (exceeded_at, since) else {
            return;
        };
        let Some(day) = in_range(at) else {
            return;
        };
        let mut extra = Map::new();
        extra.insert("driving_without_break_in_seconds".into(), json!(driven));
        extra.insert("max_driving_without_break_in_seconds".into(), json!(max));
        extra.insert("driving_start".into(), json!(iso(since)));
        extra.insert("limit_reached_at".into(), json!(iso(at)));
        extra.insert("rule".into(), json!(ARTICLE_7));
        let (at_en, at_fr) = words.at(at);
        let explanation = Explanation {
            summary_en: format!(
                "{} of driving without a break of 45 min (or 15 min then 30 min); 4 h 30 was reached at {at_en}.",
                duration_en(driven)
            ),
            summary_fr: format!(
                "{} de conduite sans pause de 45 min (ou 15 min puis 30 min) ; 4 h 30 atteintes le {at_fr}.",
                duration_fr(driven)
            ),
            threshold_en: format!("A break of at least 45 min after 4 h 30 of driving, splittable into 15 min then 30 min ({ARTICLE_7})."),
            threshold_fr: "Une pause d'au moins 45 min après 4 h 30 de conduite, fractionnable en 15 min puis 30 min (règlement (CE) n° 561/2006, article 7).".into(),
            evidence: run.iter().map(|a| words.activities(&[a], line.now)).collect(),
        };
        alerts.push(alert(day, CheckType::EuBreak, extra, explanation));
    };
    let mut previous_end: Option<i64> = None;
    for activity in &line.activities {
        if let Some(end) = previous_end {
            let gap = activity.start - end;
            let qualifies = gap >= 45 * MINUTE || (split && gap >= 30 * MINUTE);
            if qualifies {
                close(driven, since, exceeded_at, &run);
                driven = 0;
                since = None;
                exceeded_at = None;
                split = false;
                run.clear();
            } else if gap >= 15 * MINUTE {
                split = true;
            }
        }
        if activity.kind == ActivityType::Drive {
            let duration = line.end(activity) - activity.start;
            if driven + duration > max && exceeded_at.is_none() {
                exceeded_at = Some(activity.start + (max - driven));
            }
            since.get_or_insert(activity.start);
            driven += duration;
            run.push(activity);
        }
        previous_end = Some(line.end(activity));
    }
    close(driven, since, exceeded_at, &run);
    alerts
}
