//! Art. 6(2), 6(3) and 8(6) of Regulation (EC) No 561/2006: weekly and two-week driving, weekly
//! rests (Roadlog extension).

use chrono::{Duration, NaiveDate};
use serde_json::{Map, json};

use super::{ARTICLE_6_2, ARTICLE_6_3, ARTICLE_8_6, Timeline, WEEKLY_REST_REDUCED, WEEKLY_REST_REGULAR, alert};
use crate::domain::kinds::ActivityType;
use crate::domain::regulation::check_type::CheckType;
use crate::domain::regulation::explain::{Explanation, Words, duration_en, duration_fr};
use crate::domain::regulation::outcome::Alert;
use crate::domain::regulation::time::{self, HOUR};

/// Weekly driving (56 h), two-week driving (90 h) and weekly rest, for the weeks whose Monday is
/// in `mondays`.
pub fn weekly(line: &Timeline, words: Words, mondays: (NaiveDate, NaiveDate)) -> Vec<Alert> {
    let tz = words.tz;
    let bounds = |monday: NaiveDate| {
        (
            time::day_start(tz, monday),
            time::day_start(tz, monday + Duration::days(7)),
        )
    };
    let longest_rest = |monday: NaiveDate| -> Option<i64> {
        let (from, to) = bounds(monday);
        line.rests()
            .iter()
            .filter(|(a, b)| a.is_none_or(|a| a < to) && b.is_none_or(|b| b > from))
            .map(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            })
            .try_fold(0, |best: i64, r| r.map(|r| best.max(r)))
    };
    let mut alerts = vec![];
    let mut monday = mondays.0;
    while monday <= mondays.1 {
        let (from, to) = bounds(monday);
        let (previous_from, _) = bounds(monday - Duration::days(7));
        let driving = line.driving(&line.activities, from, to);
        let two_weeks = line.driving(&line.activities, previous_from, to);
        let evidence = || -> Vec<_> {
            line.activities
                .iter()
                .filter(|a| a.kind == ActivityType::Drive && a.start < to && line.end(a) > from)
                .map(|a| words.activities(&[a], line.now))
                .collect()
        };
        if driving > 56 * HOUR {
            let mut extra = Map::new();
            extra.insert("driving_in_seconds".into(), json!(driving));
            extra.insert("max_driving_in_seconds".into(), json!(56 * HOUR));
            extra.insert("rule".into(), json!(ARTICLE_6_2));
            let explanation = Explanation {
                summary_en: format!(
                    "{} of driving in the week of {monday}, more than 56 h.",
                    duration_en(driving)
                ),
                summary_fr: format!(
                    "{} de conduite dans la semaine du {}, plus de 56 h.",
                    duration_fr(driving),
                    time::french_date(monday)
                ),
                threshold_en: format!("At most 56 h of driving in a week ({ARTICLE_6_2})."),
                threshold_fr:
                    "Au plus 56 h de conduite par semaine (règlement (CE) n° 561/2006, article 6, paragraphe 2).".into(),
                evidence: evidence(),
            };
            alerts.push(alert(monday, CheckType::EuWeeklyDriving, extra, explanation));
        }
        if two_weeks > 90 * HOUR {
            let mut extra = Map::new();
            extra.insert("driving_in_seconds".into(), json!(two_weeks));
            extra.insert("max_driving_in_seconds".into(), json!(90 * HOUR));
            extra.insert("previous_week_driving_in_seconds".into(), json!(two_weeks - driving));
            extra.insert("rule".into(), json!(ARTICLE_6_3));
            let explanation = Explanation {
                summary_en: format!("{} of driving in the two weeks ending on the week of {monday}, more than 90 h.", duration_en(two_weeks)),
                summary_fr: format!("{} de conduite sur les deux semaines finissant avec celle du {}, plus de 90 h.", duration_fr(two_weeks), time::french_date(monday)),
                threshold_en: format!("At most 90 h of driving in two consecutive weeks ({ARTICLE_6_3})."),
                threshold_fr: "Au plus 90 h de conduite sur deux semaines consécutives (règlement (CE) n° 561/2006, article 6, paragraphe 3).".into(),
                evidence: evidence(),
            };
            alerts.push(alert(monday, CheckType::EuTwoWeekDriving, extra, explanation));
        }
        let longest = longest_rest(monday);
        let previous = longest_rest(monday - Duration::days(7));
        let reduced_twice =
            longest.is_some_and(|l| l < WEEKLY_REST_REGULAR) && previous.is_some_and(|p| p < WEEKLY_REST_REGULAR);
        if longest.is_some_and(|l| l < WEEKLY_REST_REDUCED) || reduced_twice {
            let rest = longest.unwrap_or_default();
            let mut extra = Map::new();
            extra.insert("longest_rest_in_seconds".into(), json!(rest));
            extra.insert("previous_week_longest_rest_in_seconds".into(), json!(previous));
            extra.insert(
                "min_weekly_rest_in_seconds".into(),
                json!(if rest < WEEKLY_REST_REDUCED {
                    WEEKLY_REST_REDUCED
                } else {
                    WEEKLY_REST_REGULAR
                }),
            );
            extra.insert("rule".into(), json!(ARTICLE_8_6));
            let (summary_en, summary_fr) = if rest < WEEKLY_REST_REDUCED {
                (
                    format!(
                        "No weekly rest of at least 24 h in the week of {monday}: the longest rest was {}.",
                        duration_en(rest)
                    ),
                    format!(
                        "Aucun repos hebdomadaire d'au moins 24 h dans la semaine du {} : le plus long repos a duré {}.",
                        time::french_date(monday),
                        duration_fr(rest)
                    ),
                )
            } else {
                (
                    format!(
                        "A second reduced weekly rest in a row ({}) in the week of {monday}.",
                        duration_en(rest)
                    ),
                    format!(
                        "Un deuxième repos hebdomadaire réduit consécutif ({}) dans la semaine du {}.",
                        duration_fr(rest),
                        time::french_date(monday)
                    ),
                )
            };
            let explanation = Explanation {
                summary_en,
                summary_fr,
                threshold_en: format!("A weekly rest of 45 h, reduced to at least 24 h, never two reduced weekly rests in a row ({ARTICLE_8_6}); the compensation of reduced rests is not checked."),
                threshold_fr: "Un repos hebdomadaire de 45 h, réduit à 24 h au moins, jamais deux repos réduits consécutifs (règlement (CE) n° 561/2006, article 8, paragraphe 6) ; la compensation des repos réduits n'est pas vérifiée.".into(),
                evidence: evidence(),
            };
            alerts.push(alert(monday, CheckType::EuWeeklyRest, extra, explanation));
        }
        monday += Duration::days(7);
    }
    alerts
}
