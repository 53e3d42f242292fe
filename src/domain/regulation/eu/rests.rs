//! Art. 8(2) and 8(4) of Regulation (EC) No 561/2006: daily rests of drivers (Roadlog extension).

use chrono::NaiveDate;
use serde_json::{Map, json};

use super::{ARTICLE_8_2, Timeline, WEEKLY_REST_REDUCED, alert};
use crate::domain::regulation::check_type::CheckType;
use crate::domain::regulation::explain::{Explanation, Words, duration_en, duration_fr};
use crate::domain::regulation::outcome::Alert;
use crate::domain::regulation::time::{DAY, HOUR, iso};

/// Art. 8(2) and 8(4): within 24 h of the end of the previous rest, a rest of 11 h (or 3 h
/// then 9 h), or a reduced rest of 9 h at most three times between two weekly rests.
pub(super) fn daily_rests(line: &Timeline, words: Words, in_range: &dyn Fn(i64) -> Option<NaiveDate>) -> Vec<Alert> {
    let mut alerts = vec![];
    let rests = line.rests();
    let Some(first) = line.activities.first() else {
        return alerts;
    };
    let mut start = first.start;
    let mut reduced = 0;
    loop {
        let window_end = start + DAY;
        // Rests inside the window (clipped), in order.
        let inside: Vec<(i64, i64, i64)> = rests
            .iter()
            .filter_map(|(a, b)| {
                let from = a.unwrap_or(i64::MIN).max(start);
                let to = b.unwrap_or(i64::MAX).min(window_end);
                (to > from && a.is_some()).then_some((from, to, b.unwrap_or(i64::MAX)))
            })
            .collect();
        let longest = inside.iter().map(|(f, t, _)| t - f).max().unwrap_or(0);
        let split = inside
            .iter()
            .position(|(f, t, _)| t - f >= 3 * HOUR)
            .is_some_and(|i| inside[i + 1..].iter().any(|(f, t, _)| t - f >= 9 * HOUR));
        // A rest of 9 h in the window that goes on for 24 h or more is a weekly rest, not a reduced one.
        let weekly = inside
            .iter()
            .any(|(f, t, whole_end)| t - f >= 9 * HOUR && whole_end.saturating_sub(*f) >= WEEKLY_REST_REDUCED);
        let kind = if longest >= 11 * HOUR || split || weekly {
            "regular"
        } else if longest >= 9 * HOUR {
            reduced += 1;
            "reduced"
        } else {
            "insufficient"
        };
        let breach = kind == "insufficient" || (kind == "reduced" && reduced > 3);
        if breach && let Some(day) = in_range(start) {
            let mut extra = Map::new();
            extra.insert("longest_rest_in_seconds".into(), json!(longest));
            extra.insert(
                "min_daily_rest_in_seconds".into(),
                json!(if kind == "reduced" { 11 * HOUR } else { 9 * HOUR }),
            );
            extra.insert("reduced_rests_since_weekly_rest".into(), json!(reduced));
            extra.insert("period_start".into(), json!(iso(start)));
            extra.insert("period_end".into(), json!(iso(window_end)));
            extra.insert("rule".into(), json!(ARTICLE_8_2));
            let (from_en, from_fr) = words.at(start);
            let (summary_en, summary_fr) = if kind == "reduced" {
                (
                    format!(
                        "A fourth reduced daily rest ({}) since the last weekly rest, in the 24 h from {from_en}.",
                        duration_en(longest)
                    ),
                    format!(
                        "Un quatrième repos journalier réduit ({}) depuis le dernier repos hebdomadaire, dans les 24 h à partir du {from_fr}.",
                        duration_fr(longest)
                    ),
                )
            } else {
                (
                    format!(
                        "In the 24 h from {from_en}, the longest rest was {}, less than 9 h.",
                        duration_en(longest)
                    ),
                    format!(
                        "Dans les 24 h à partir du {from_fr}, le plus long repos a duré {}, moins de 9 h.",
                        duration_fr(longest)
                    ),
                )
            };
            let mut evidence: Vec<_> = line
                .activities
                .iter()
                .filter(|a| a.start < window_end && line.end(a) > start)
                .map(|a| words.activities(&[a], line.now))
                .collect();
            evidence.extend(inside.iter().map(|(f, t, _)| words.rest(*f, *t)));
            let explanation = Explanation {
                summary_en,
                summary_fr,
                threshold_en: format!("Within 24 h of the end of the previous rest, a daily rest of 11 h (or 3 h then 9 h), reduced to 9 h at most three times between two weekly rests ({ARTICLE_8_2})."),
                threshold_fr: "Dans les 24 h suivant la fin du repos précédent, un repos journalier de 11 h (ou 3 h puis 9 h), réduit à 9 h au plus trois fois entre deux repos hebdomadaires (règlement (CE) n° 561/2006, article 8, paragraphes 2 et 4).".into(),
                evidence,
            };
            alerts.push(alert(day, CheckType::EuDailyRest, extra, explanation));
        }
        // The next period starts after the rest taken (or, without one, the next activity after
        // the window); a rest of 24 h or more is a weekly rest.
        let taken = inside
            .iter()
            .filter(|(f, t, _)| t - f >= 9 * HOUR || kind == "insufficient")
            .max_by_key(|(f, t, _)| (t - f, *f));
        let next_start = match taken {
            Some((from, _, whole_end)) if kind != "insufficient" => {
                if whole_end.saturating_sub(*from) >= WEEKLY_REST_REDUCED {
                    reduced = 0;
                }
                *whole_end
            }
            _ => match line.activities.iter().find(|a| a.start >= window_end) {
                Some(a) => a.start,
                None => break,
            },
        };
        match line.activities.iter().find(|a| a.start >= next_start) {
            Some(a) if a.start > start => start = a.start,
            _ => break,
        }
    }
    alerts
}
