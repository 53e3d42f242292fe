//! One worker's part in one mission, as its PDF shows it ([`MissionDetails`], read by
//! [`super::mission_load`], laid out by [`super::mission_pages`]): the title, the start and end,
//! the activities with the gaps between them as breaks, the sums of "Temps de travail" and the
//! texts the document prints (times in the worker's time zone, durations `<h>h<mm>`).

use std::collections::BTreeMap;

use chrono_tz::Tz;

use super::statement::{Columns, date, hours};
use crate::domain::export::workbook::days::{self, Span};
use crate::domain::export::workbook::history::{activity_label, expenditure_label, when};
use crate::domain::kinds::{ActivityType, ExpenditureType};
use crate::domain::regulation::time::local_date;

/// Night hours are counted over this long after the mission's start.
const NIGHT_WINDOW: i64 = 24 * 3600;

/// An observation: its author, when it was received, its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub author: String,
    pub time: i64,
    pub text: String,
}

/// One line of the history: its author, its time and its sentence (the reason included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryLine {
    pub author: String,
    pub time: i64,
    pub text: String,
    pub is_deletion: bool,
}

/// Where the mission started or ended: the address and the odometer reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub address: Option<String>,
    pub kilometers: Option<i64>,
}

/// Everything the document shows.
#[derive(Clone, Debug)]
pub struct MissionDetails {
    pub mission_id: i64,
    pub mission_name: Option<String>,
    pub user_id: i64,
    pub user_name: String,
    pub tz: Tz,
    pub company_name: String,
    pub vehicle: Option<String>,
    /// When the mission was deleted (all its activities cancelled), and by whom.
    pub deleted: Option<(i64, String)>,
    /// The worker's activities standing, by start.
    pub activities: Vec<Span>,
    /// The worker's activities, cancelled ones included, by start.
    pub all_activities: Vec<Span>,
    pub start: Place,
    pub end: Place,
    pub columns: Columns,
    /// The worker's expenses not cancelled, counted in the order of [`ExpenditureType::ALL`].
    pub expenditures: [i64; 4],
    pub comments: Vec<Comment>,
    pub history: Vec<HistoryLine>,
    /// Running activities count until then.
    pub now: i64,
}

/// A row of "Activités": an activity, or a break (`kind` `None`) between two of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub kind: Option<ActivityType>,
    pub start: i64,
    pub end: Option<i64>,
}

/// The sums of "Temps de travail", in seconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub amplitude: i64,
    pub drive: i64,
    pub work: i64,
    pub support: i64,
    pub transfer: i64,
    pub pause: i64,
    pub total_work: i64,
    pub night: i64,
}

impl MissionDetails {
    /// The activities the times are read from: the standing ones, or every one of a deleted
    /// mission.
    fn timed(&self) -> &[Span] {
        if self.deleted.is_some() || self.activities.is_empty() {
            &self.all_activities
        } else {
            &self.activities
        }
    }

    /// The download's name (no extension, as the reference names it).
    pub fn file_name(&self) -> String {
        let mission = self.mission_name.clone().unwrap_or_else(|| self.mission_id.to_string());
        format!("Détails de la mission {mission} pour {}", self.user_name)
    }

    /// The title and, for a named mission, the subtitle: both dated by the worker's first
    /// activity.
    pub fn title(&self) -> (String, Option<String>) {
        let day = self
            .timed()
            .first()
            .map(|a| date(local_date(self.tz, a.start)))
            .unwrap_or_default();
        match &self.mission_name {
            Some(name) => (format!("Mission : {name}"), Some(format!("Journée du {day}"))),
            None => (format!("Mission du {day}"), None),
        }
    }

    /// Whether times show their date: the worker's time in the mission (cancelled activities
    /// included) spans several dates, or is still running.
    pub fn shows_dates(&self) -> bool {
        let first = self.all_activities.iter().map(|a| a.start).min();
        let last = self.all_activities.iter().filter_map(|a| a.end).max();
        match (first, last) {
            (Some(first), Some(last)) => local_date(self.tz, first) != local_date(self.tz, last),
            _ => true,
        }
    }

    /// A time as the document prints it: `HH:MM`, or `dd/mm à HH:MM` when dates show.
    pub fn time(&self, t: i64) -> String {
        let full = self.full_time(t);
        if self.shows_dates() {
            full
        } else {
            full.rsplit(' ').next().unwrap_or_default().to_string()
        }
    }

    /// A time with its date, `dd/mm à HH:MM` (observations and history).
    pub fn full_time(&self, t: i64) -> String {
        when(self.tz, t)
    }

    /// The start and end (`None` while running) of the worker's time in the mission: the first
    /// activity's start and the end of the last one to start.
    pub fn bounds(&self) -> Option<(i64, Option<i64>)> {
        let timed = self.timed();
        Some((timed.first()?.start, timed.last()?.end))
    }

    /// The activities by start, a break between two of them wherever one ends before the next
    /// starts.
    pub fn pieces(&self) -> Vec<Piece> {
        let mut pieces = Vec::new();
        for (i, a) in self.activities.iter().enumerate() {
            pieces.push(Piece {
                kind: Some(a.kind),
                start: a.start,
                end: a.end,
            });
            if let (Some(end), Some(next)) = (a.end, self.activities.get(i + 1))
                && end < next.start
            {
                pieces.push(Piece {
                    kind: None,
                    start: end,
                    end: Some(next.start),
                });
            }
        }
        pieces
    }

    /// A piece's duration, a running one counting until now.
    pub fn duration(&self, piece: &Piece) -> i64 {
        (piece.end.unwrap_or(self.now) - piece.start).max(0)
    }

    /// The sums of "Temps de travail": the amplitude is the time of the activities and breaks,
    /// the night hours those of work outside 06:00–21:00 over the 24 hours after the start.
    pub fn sums(&self) -> Sums {
        let mut sums = Sums::default();
        for piece in self.pieces() {
            let duration = self.duration(&piece);
            sums.amplitude += duration;
            match piece.kind {
                None => sums.pause += duration,
                Some(ActivityType::Drive) => sums.drive += duration,
                Some(ActivityType::Work) => sums.work += duration,
                Some(ActivityType::Support) => sums.support += duration,
                Some(ActivityType::Transfer) => sums.transfer += duration,
                Some(ActivityType::Off) => {}
            }
        }
        sums.total_work = sums.drive + sums.work + sums.support;
        sums.night = self.night();
        sums
    }

    fn night(&self) -> i64 {
        let Some(start) = self.activities.first().map(|a| a.start) else {
            return 0;
        };
        let until = start + NIGHT_WINDOW;
        let clipped: Vec<Span> = self
            .activities
            .iter()
            .filter(|a| a.start < until)
            .map(|a| Span {
                end: Some(a.end.unwrap_or(self.now).min(until)),
                ..a.clone()
            })
            .collect();
        let (first, last) = (local_date(self.tz, start), local_date(self.tz, until));
        days::days(self.tz, &clipped, &BTreeMap::new(), first, last, self.now)
            .iter()
            .map(|d| d.night)
            .sum()
    }

    /// "Frais": `2 repas midi, 1 découcher(s)`.
    pub fn expenditures_text(&self) -> String {
        ExpenditureType::ALL
            .iter()
            .zip(self.expenditures)
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| format!("{n} {}", expenditure_label(kind.as_str())))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The deletion's banner.
    pub fn deleted_text(&self) -> Option<String> {
        self.deleted.as_ref().map(|(at, by)| {
            format!(
                "Cette mission a été supprimée le {} par {by}",
                date(local_date(self.tz, *at))
            )
        })
    }
}

/// A row's label: the activity's, `Pause` for a break.
pub fn piece_label(piece: &Piece) -> &'static str {
    piece.kind.map_or("Pause", activity_label)
}

/// A duration as the document prints it.
pub fn duration_text(seconds: i64) -> String {
    hours(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::regulation::time::{local_time, zone};

    fn at(day: &str, hour: u32, minute: u32) -> i64 {
        local_time(zone("Europe/Paris"), day.parse().unwrap(), hour, minute, 0)
    }

    fn span(kind: ActivityType, start: i64, end: Option<i64>) -> Span {
        Span {
            mission_id: 1,
            kind,
            start,
            end,
        }
    }

    fn details(activities: Vec<Span>) -> MissionDetails {
        MissionDetails {
            mission_id: 7,
            mission_name: Some("Livraison".into()),
            user_id: 3,
            user_name: "Élodie Müller".into(),
            tz: zone("Europe/Paris"),
            company_name: "Transports".into(),
            vehicle: None,
            deleted: None,
            all_activities: activities.clone(),
            activities,
            start: Place::default(),
            end: Place::default(),
            columns: Columns::default(),
            expenditures: [2, 0, 1, 0],
            comments: Vec::new(),
            history: Vec::new(),
            now: at("2026-03-11", 12, 0),
        }
    }

    #[test]
    fn gaps_are_breaks_and_the_sums_follow_the_pieces() {
        let d = "2026-03-10";
        let m = details(vec![
            span(ActivityType::Drive, at(d, 5, 0), Some(at(d, 7, 30))),
            span(ActivityType::Work, at(d, 8, 0), Some(at(d, 12, 0))),
            span(ActivityType::Transfer, at(d, 12, 0), Some(at(d, 12, 30))),
            span(ActivityType::Support, at(d, 20, 0), Some(at(d, 22, 15))),
        ]);
        let labels: Vec<&str> = m.pieces().iter().map(piece_label).collect();
        assert_eq!(
            labels,
            [
                "Déplacement",
                "Pause",
                "Autre tâche",
                "Liaison",
                "Pause",
                "Accompagnement"
            ]
        );
        let sums = m.sums();
        assert_eq!(sums.amplitude, 17 * 3600 + 15 * 60);
        assert_eq!(sums.pause, 30 * 60 + 7 * 3600 + 30 * 60);
        assert_eq!(sums.total_work, 2 * 3600 + 30 * 60 + 4 * 3600 + 2 * 3600 + 15 * 60);
        assert_eq!(sums.transfer, 30 * 60);
        // 05:00–06:00 and 21:00–22:15.
        assert_eq!(sums.night, 3600 + 75 * 60);
        assert!(!m.shows_dates());
        assert_eq!(m.time(at(d, 5, 0)), "05:00");
        assert_eq!(
            m.title(),
            ("Mission : Livraison".into(), Some("Journée du 10/03/2026".into()))
        );
        assert_eq!(m.file_name(), "Détails de la mission Livraison pour Élodie Müller");
        assert_eq!(m.expenditures_text(), "2 repas midi, 1 découcher(s)");
    }

    #[test]
    fn night_hours_stop_a_day_after_the_start_and_a_running_mission_shows_dates() {
        let (d, next) = ("2026-03-10", "2026-03-11");
        let mut m = details(vec![
            span(ActivityType::Drive, at(d, 22, 0), Some(at(next, 23, 0))),
            span(ActivityType::Work, at(next, 23, 0), None),
        ]);
        m.mission_name = None;
        // 22:00–06:00, then 21:00–22:00 the next evening (the day after the start ends there).
        assert_eq!(m.sums().night, 8 * 3600 + 3600);
        assert!(m.shows_dates());
        assert_eq!(m.time(at(d, 22, 0)), "10/03 à 22:00");
        assert_eq!(m.bounds(), Some((at(d, 22, 0), None)));
        assert_eq!(m.title(), ("Mission du 10/03/2026".into(), None));
        assert_eq!(m.file_name(), "Détails de la mission 7 pour Élodie Müller");
    }
}
