//! The Excel activity report: what one file of a report shows ([`Report`], read from the
//! database by [`load`]), the workbook written from it ([`activities`]) and signed
//! ([`signature`]), and the names of the files. The day figures are computed in each worker's time zone ([`days`]).
//! The sheets `Détail` and `Missions supprimées` ([`detail`]) tell each mission's history
//! ([`history`], read by [`history_load`] for [`detail_load`]).

pub mod activities;
pub mod days;
pub mod detail;
pub mod detail_load;
pub mod history;
pub mod history_load;
pub mod load;
pub mod signature;

use chrono::NaiveDate;

pub use days::DayFigures;

/// The columns a report shows beyond the fixed ones: each is shown when one of the exported
/// companies asks for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub mission_name: bool,
    pub expenditures: bool,
    pub kilometers: bool,
    pub transfers: bool,
}

/// One file of a report.
#[derive(Clone, Debug)]
pub struct Report {
    pub company_names: Vec<String>,
    pub min_date: NaiveDate,
    pub max_date: NaiveDate,
    pub flags: Flags,
    /// Workers with at least one day, by display name.
    pub workers: Vec<WorkerDays>,
    /// Display names of the workers without a day, by last then first name.
    pub idle: Vec<String>,
    /// The history of the missions with an activity standing (sheet `Détail`).
    pub detail: Vec<WorkerMissions>,
    /// The history of the missions whose activities are all cancelled (sheet `Missions supprimées`).
    pub deleted: Vec<WorkerMissions>,
}

impl Report {
    /// Whether no worker has a day (the file's name then ends with `_vide`).
    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }
}

/// A worker and their days, by date.
#[derive(Clone, Debug)]
pub struct WorkerDays {
    pub id: i64,
    pub name: String,
    pub days: Vec<DayRow>,
}

/// One row of the `Activités` sheet.
#[derive(Clone, Debug)]
pub struct DayRow {
    pub figures: DayFigures,
    /// Local times of the day's start and end, in seconds after midnight; `None` is shown `-`.
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub missions: Vec<String>,
    pub vehicles: Vec<String>,
    pub start_place: String,
    pub end_place: String,
    pub km_start: Option<i64>,
    pub km_end: Option<i64>,
    /// Counts of `day_meal`, `night_meal`, `sleep_over`, `snack`.
    pub expenditures: [i64; 4],
    pub holiday_names: Vec<String>,
    /// Some mission of the day is a holiday mission.
    pub has_holiday_mission: bool,
    pub comments: Vec<String>,
    /// A Sunday or a French bank holiday.
    pub is_sunday_or_holiday: bool,
    /// Every mission of the day is a holiday mission.
    pub is_day_off: bool,
}

/// A worker's missions in a history sheet, by day.
#[derive(Clone, Debug)]
pub struct WorkerMissions {
    pub id: i64,
    pub name: String,
    pub days: Vec<MissionDay>,
}

/// The missions listed on one day, by creation time.
#[derive(Clone, Debug)]
pub struct MissionDay {
    pub date: NaiveDate,
    pub missions: Vec<MissionEvents>,
}

/// One mission's history.
#[derive(Clone, Debug)]
pub struct MissionEvents {
    pub name: String,
    pub events: Vec<EventRow>,
}

/// One row of a history sheet.
#[derive(Clone, Debug)]
pub struct EventRow {
    /// Local date and time, as an Excel serial number.
    pub time: f64,
    pub author: String,
    pub status: String,
    pub text: String,
    pub activity: String,
    pub justification: String,
    pub is_deletion: bool,
}

/// The base name of the report's files.
pub const BASE_NAME: &str = "rapport_activités";

/// The name of a chunk's workbook: the base name, the chunk's suffix unless it is the whole
/// report's, `_vide` when no worker has a day.
pub fn file_name(suffix: &str, empty: bool) -> String {
    file_name_from(BASE_NAME, suffix, empty)
}

/// [`file_name`] from another base name.
pub fn file_name_from(base: &str, suffix: &str, empty: bool) -> String {
    let mut name = base.to_string();
    if suffix != "consolide" && suffix != "export" {
        name.push('_');
        name.push_str(suffix);
    }
    if empty {
        name.push_str("_vide");
    }
    name.push_str(".xlsx");
    name
}

/// A place as the sheets write it: its name, postal code and city, the empty ones left out.
pub fn place(name: String, postal_code: Option<String>, city: Option<String>) -> String {
    [Some(name), postal_code, city]
        .into_iter()
        .flatten()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A worker's display name: "First Last", each word capitalised and the rest lower-cased.
pub fn display_name(first_name: &str, last_name: &str) -> String {
    let text = format!("{first_name} {last_name}").trim().to_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut after_letter = false;
    for c in text.chars() {
        if after_letter {
            out.push(c);
        } else {
            out.extend(c.to_uppercase());
        }
        after_letter = c.is_alphabetic();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_reference() {
        assert_eq!(file_name("consolide", false), "rapport_activités.xlsx");
        assert_eq!(
            file_name("Martin_Jean", true),
            "rapport_activités_Martin_Jean_vide.xlsx"
        );
        assert_eq!(
            file_name("2026-01_janvier_2026", false),
            "rapport_activités_2026-01_janvier_2026.xlsx"
        );
        assert_eq!(
            display_name("jean-pierre", "DE LA FONTAINE"),
            "Jean-Pierre De La Fontaine"
        );
        assert_eq!(display_name("Élodie", "o'neil"), "Élodie O'Neil");
    }
}
