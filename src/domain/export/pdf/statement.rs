//! The worker's "Relevé d'heures": what it shows ([`Statement`], read by
//! [`super::statement_load`]) and the sums of its sections (per month, per week, per day), with
//! the French words and `<h>h<mm>` durations it prints. The pages are laid out by
//! [`super::statement_pages`].

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate, Weekday};

use crate::domain::export::workbook::DayRow;

/// The optional columns: each is shown when one of the worker's companies over the period asks
/// for it, or when the worker has such time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    pub support: bool,
    pub other_task: bool,
    pub transfer: bool,
    pub expenditures: bool,
}

/// The mark after a day's date in the weekly detail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    #[default]
    None,
    /// ` ***`: someone else changed a mission after the worker's last validation of it.
    ChangedAfterValidation,
    /// ` **`: a mission is not validated by an admin.
    NotValidatedByAdmin,
    /// ` *`: a mission is not validated by the worker.
    NotValidatedByWorker,
}

impl Mark {
    pub fn suffix(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::ChangedAfterValidation => " ***",
            Mark::NotValidatedByAdmin => " **",
            Mark::NotValidatedByWorker => " *",
        }
    }
}

/// One day of the worker with time recorded.
#[derive(Clone, Debug)]
pub struct Day {
    pub row: DayRow,
    pub mark: Mark,
}

/// Everything the document shows.
#[derive(Clone, Debug)]
pub struct Statement {
    pub name: String,
    pub min_date: NaiveDate,
    pub max_date: NaiveDate,
    pub extracted_on: NaiveDate,
    pub columns: Columns,
    pub days: BTreeMap<NaiveDate, Day>,
}

/// The download's name (no extension, as the reference names it).
pub fn file_name(name: &str, min_date: NaiveDate, max_date: NaiveDate) -> String {
    format!("Relevé d'heures de {name} - {} au {}", date(min_date), date(max_date))
}

/// Sums over some days.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub worked_days: i64,
    pub off_days: i64,
    pub drive: i64,
    pub work: i64,
    pub support: i64,
    pub transfer: i64,
    pub total_work: i64,
    pub night: i64,
    pub sunday_or_holiday: i64,
    pub off: i64,
    pub pause: i64,
    pub amplitude: i64,
    pub expenditures: [i64; 4],
}

impl Totals {
    pub fn add(&mut self, day: &Day) {
        let f = &day.row.figures;
        self.worked_days += i64::from(!day.row.is_day_off);
        self.off_days += i64::from(day.row.has_holiday_mission);
        self.drive += f.drive;
        self.work += f.work;
        self.support += f.support;
        self.transfer += f.transfer;
        self.total_work += f.total_work;
        self.night += f.night;
        if day.row.is_sunday_or_holiday {
            self.sunday_or_holiday += f.total_work;
        }
        self.off += f.off;
        self.pause += f.pause;
        self.amplitude += f.amplitude;
        for (total, n) in self.expenditures.iter_mut().zip(day.row.expenditures) {
            *total += n;
        }
    }
}

impl Statement {
    /// The sums of the days from `from` to `to`, both included.
    pub fn totals(&self, from: NaiveDate, to: NaiveDate) -> Totals {
        let mut totals = Totals::default();
        for day in self.days.range(from..=to).map(|(_, d)| d) {
            totals.add(day);
        }
        totals
    }

    /// The calendar months the period touches, each clipped to it.
    pub fn months(&self) -> Vec<(NaiveDate, NaiveDate)> {
        periods(self.min_date, self.max_date, |d| {
            d.with_day(1)
                .and_then(|first| first.checked_add_months(chrono::Months::new(1)))
                .and_then(|next| next.pred_opt())
                .unwrap_or(d)
        })
    }

    /// The Monday-to-Sunday weeks the period touches, each clipped to it.
    pub fn weeks(&self) -> Vec<(NaiveDate, NaiveDate)> {
        periods(self.min_date, self.max_date, |d| {
            d + chrono::Days::new(u64::from(6 - d.weekday().num_days_from_monday()))
        })
    }

    /// The marks used in the weekly detail.
    pub fn marks(&self) -> Vec<Mark> {
        let mut marks: Vec<Mark> = self
            .days
            .values()
            .map(|d| d.mark)
            .filter(|m| *m != Mark::None)
            .collect();
        marks.sort_by(|a, b| b.cmp(a));
        marks.dedup();
        marks
    }
}

/// `[min, max]` cut after each day `end_of` gives.
fn periods(min: NaiveDate, max: NaiveDate, end_of: impl Fn(NaiveDate) -> NaiveDate) -> Vec<(NaiveDate, NaiveDate)> {
    let mut out = Vec::new();
    let mut from = min;
    while from <= max {
        let to = end_of(from).min(max);
        out.push((from, to));
        match to.succ_opt() {
            Some(next) => from = next,
            None => break,
        }
    }
    out
}

/// A duration as `<h>h<mm>` (`0h00`, `27h05`).
pub fn hours(seconds: i64) -> String {
    let minutes = seconds.max(0) / 60;
    format!("{}h{:02}", minutes / 60, minutes % 60)
}

/// `dd/mm/YYYY`.
pub fn date(day: NaiveDate) -> String {
    crate::domain::regulation::time::french_date(day)
}

/// `dd/mm`.
pub fn short_date(day: NaiveDate) -> String {
    format!("{:02}/{:02}", day.day(), day.month())
}

/// A local time of day, seconds after midnight, as `HH:MM`.
pub fn clock(seconds: i64) -> String {
    let minutes = seconds.max(0) / 60;
    format!("{:02}:{:02}", (minutes / 60) % 24, minutes % 60)
}

const MONTHS: [&str; 12] = [
    "Janvier",
    "Février",
    "Mars",
    "Avril",
    "Mai",
    "Juin",
    "Juillet",
    "Août",
    "Septembre",
    "Octobre",
    "Novembre",
    "Décembre",
];

/// `Janvier 2026`.
pub fn month_name(day: NaiveDate) -> String {
    format!("{} {}", MONTHS[day.month0() as usize], day.year())
}

/// `Lundi`…`Dimanche`.
pub fn weekday_name(day: NaiveDate) -> &'static str {
    match day.weekday() {
        Weekday::Mon => "Lundi",
        Weekday::Tue => "Mardi",
        Weekday::Wed => "Mercredi",
        Weekday::Thu => "Jeudi",
        Weekday::Fri => "Vendredi",
        Weekday::Sat => "Samedi",
        Weekday::Sun => "Dimanche",
    }
}

/// `Du dd/mm au dd/mm`.
pub fn week_title(from: NaiveDate, to: NaiveDate) -> String {
    format!("Du {} au {}", short_date(from), short_date(to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn statement(min: &str, max: &str) -> Statement {
        Statement {
            name: "Jean Dupont".into(),
            min_date: d(min),
            max_date: d(max),
            extracted_on: d(max),
            columns: Columns::default(),
            days: BTreeMap::new(),
        }
    }

    #[test]
    fn durations_dates_and_names_are_written_as_the_reference_writes_them() {
        assert_eq!(hours(0), "0h00");
        assert_eq!(hours(27 * 3600 + 5 * 60 + 59), "27h05");
        assert_eq!(clock(7 * 3600 + 5 * 60), "07:05");
        assert_eq!(month_name(d("2026-02-10")), "Février 2026");
        assert_eq!(weekday_name(d("2026-03-01")), "Dimanche");
        assert_eq!(
            file_name("Jean Dupont", d("2026-03-01"), d("2026-03-31")),
            "Relevé d'heures de Jean Dupont - 01/03/2026 au 31/03/2026"
        );
    }

    #[test]
    fn months_and_weeks_are_clipped_to_the_period() {
        let s = statement("2026-01-28", "2026-02-03");
        assert_eq!(
            s.months(),
            [(d("2026-01-28"), d("2026-01-31")), (d("2026-02-01"), d("2026-02-03"))]
        );
        // 2026-01-28 is a Wednesday; 2026-02-01 a Sunday.
        assert_eq!(
            s.weeks(),
            [(d("2026-01-28"), d("2026-02-01")), (d("2026-02-02"), d("2026-02-03"))]
        );
        assert_eq!(week_title(d("2026-01-28"), d("2026-02-01")), "Du 28/01 au 01/02");
    }
}
