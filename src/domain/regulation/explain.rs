//! Why an alert fired, in words a worker understands (Roadlog extension): a summary, the
//! threshold applied, and the intervals (activities or rests) that caused it, in English and
//! French, with times in the worker's zone.

use serde::{Deserialize, Serialize};

use super::time;
use super::workdays::Activity;

/// The explanation stored with an alert.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    pub summary_en: String,
    pub summary_fr: String,
    pub threshold_en: String,
    pub threshold_fr: String,
    pub evidence: Vec<Evidence>,
}

/// One interval behind an alert: activities (their ids) or a rest between them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub start: i64,
    pub end: i64,
    pub activity_ids: Vec<i64>,
    pub en: String,
    pub fr: String,
}

/// Writes local times and durations for one worker.
#[derive(Clone, Copy, Debug)]
pub struct Words {
    pub tz: chrono_tz::Tz,
}

impl Words {
    /// `2025-03-03 06:00` (English) and `03/03/2025 06:00` (French), local time.
    pub fn at(&self, t: i64) -> (String, String) {
        use chrono::{Datelike, Timelike};
        // Written field by field: `format` parses its pattern on every call, and a month's
        // rebuild writes some 100,000 of these.
        let local = time::local_datetime(self.tz, t);
        let (y, m, d, h, min) = (local.year(), local.month(), local.day(), local.hour(), local.minute());
        (
            format!("{y:04}-{m:02}-{d:02} {h:02}:{min:02}"),
            format!("{d:02}/{m:02}/{y:04} {h:02}:{min:02}"),
        )
    }

    /// Evidence for one activity (or a merged run of them).
    pub fn activities(&self, activities: &[&Activity], now: i64) -> Evidence {
        let start = activities.iter().map(|a| a.start).min().unwrap_or(0);
        let end = activities.iter().map(|a| a.end_or(now)).max().unwrap_or(start);
        let (from_en, from_fr) = self.at(start);
        let (to_en, to_fr) = self.at(end);
        let kinds: Vec<&str> = activities.iter().map(|a| a.kind.as_str()).collect();
        let fr_kinds: Vec<&str> = activities.iter().map(|a| french_kind(a.kind.as_str())).collect();
        Evidence {
            start,
            end,
            activity_ids: activities.iter().map(|a| a.id).collect(),
            en: format!(
                "{} from {from_en} to {to_en} ({})",
                kinds.join(", "),
                duration_en(end - start)
            ),
            fr: format!(
                "{} du {from_fr} au {to_fr} ({})",
                fr_kinds.join(", "),
                duration_fr(end - start)
            ),
        }
    }

    /// Evidence for a rest between two instants.
    pub fn rest(&self, start: i64, end: i64) -> Evidence {
        let (from_en, from_fr) = self.at(start);
        let (to_en, to_fr) = self.at(end);
        Evidence {
            start,
            end,
            activity_ids: vec![],
            en: format!("rest from {from_en} to {to_en} ({})", duration_en(end - start)),
            fr: format!("repos du {from_fr} au {to_fr} ({})", duration_fr(end - start)),
        }
    }
}

fn french_kind(kind: &str) -> &'static str {
    match kind {
        "drive" => "conduite",
        "work" => "travail",
        "support" => "accompagnement",
        "transfer" => "transfert",
        _ => "congé",
    }
}

/// `9 h 05 min`.
pub fn duration_en(seconds: i64) -> String {
    let sign = if seconds < 0 { "-" } else { "" };
    let minutes = seconds.abs() / 60;
    format!("{sign}{} h {:02} min", minutes / 60, minutes % 60)
}

/// `9 h 05`.
pub fn duration_fr(seconds: i64) -> String {
    let sign = if seconds < 0 { "-" } else { "" };
    let minutes = seconds.abs() / 60;
    format!("{sign}{} h {:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::kinds::ActivityType;

    #[test]
    fn words_in_the_workers_zone() {
        let words = Words {
            tz: chrono_tz::Europe::Paris,
        };
        // 2025-03-03T05:00:00Z is 06:00 in Paris.
        let drive = Activity {
            id: 7,
            mission_id: 1,
            kind: ActivityType::Drive,
            start: 1_740_978_000,
            end: Some(1_740_978_000 + 9 * 3600 + 300),
        };
        let evidence = words.activities(&[&drive], 0);
        assert_eq!(
            evidence.en,
            "drive from 2025-03-03 06:00 to 2025-03-03 15:05 (9 h 05 min)"
        );
        assert_eq!(evidence.fr, "conduite du 03/03/2025 06:00 au 03/03/2025 15:05 (9 h 05)");
        assert_eq!(evidence.activity_ids, [7]);
    }
}
