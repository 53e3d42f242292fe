//! The pages of the "Relevé d'heures" (A4 landscape): the title and the worker's box, the sums
//! per month and per week, then each week day by day with its marks, and the legend.

use chrono::{Datelike, NaiveDate};

use super::canvas::{BLACK, Canvas, MARGIN, Orientation, Rgb};
use super::fonts::Fonts;
use super::statement::{Mark, Statement, Totals, clock, date, hours, month_name, short_date, week_title, weekday_name};
use super::table::{Column, Row, Table};
use crate::errors::AppResult;

const DAYS: Rgb = Rgb::hex(0xcfdac8);
const OFF: Rgb = Rgb::hex(0x9bc0d1);
const ACTIVITIES: Rgb = Rgb::hex(0xc9cbff);
const EXPENDITURES: Rgb = Rgb::hex(0xffe5b9);
const SUNDAY_ROW: Rgb = Rgb::hex(0xf3ce7b);
const IDLE_ROW: Rgb = Rgb::hex(0xd0d0d0);
const TOTAL_ROW: Rgb = Rgb::hex(0xeeeeee);
const TABLE_SIZE: f32 = 8.0;

const EXPENDITURE_TITLES: [&str; 4] = ["Repas midi", "Repas soir", "Découcher", "Casse-croûte"];

/// The document's bytes, the band naming `service`.
pub fn render(statement: &Statement, service: &str) -> AppResult<Vec<u8>> {
    let fonts = Fonts::load()?;
    let mut canvas = Canvas::new(&fonts, Orientation::Landscape);
    heading(&mut canvas, statement);
    let months = statement.months();
    section(&mut canvas, "Global par mois");
    summary(statement, &months, false, |(from, _)| month_name(*from)).draw(&mut canvas);
    if months.len() > 2 {
        canvas.new_page();
    } else {
        canvas.y += 14.0;
    }
    let weeks = statement.weeks();
    section(&mut canvas, "Global par semaine");
    summary(statement, &weeks, true, |(from, to)| week_title(*from, *to)).draw(&mut canvas);
    canvas.new_page();
    section(&mut canvas, "Détail par semaine");
    // Four weeks a page; three on the first when the period starts on a Monday.
    let first_group = if statement.min_date.weekday() == chrono::Weekday::Mon {
        3
    } else {
        4
    };
    for (index, (from, to)) in weeks.iter().enumerate() {
        if index == first_group || index > first_group && (index - first_group) % 4 == 0 {
            canvas.new_page();
        }
        week(statement, *from, *to).draw(&mut canvas);
        canvas.y += 10.0;
    }
    legend(&mut canvas, statement);
    canvas.finish(
        service,
        &super::statement::file_name(&statement.name, statement.min_date, statement.max_date),
    )
}

fn heading(canvas: &mut Canvas<'_>, statement: &Statement) {
    canvas.y += 4.0;
    canvas.centred(
        (MARGIN, canvas.content_width()),
        canvas.y + 18.0,
        20.0,
        true,
        BLACK,
        "RELEVÉ D'HEURES",
    );
    canvas.y += 36.0;
    let extracted = format!("Extrait le {}", date(statement.extracted_on));
    canvas.centred(
        (MARGIN, canvas.content_width()),
        canvas.y,
        10.0,
        false,
        BLACK,
        &extracted,
    );
    canvas.y += 14.0;
    let (x, w, h) = (MARGIN, 320.0, 40.0);
    canvas.rect(x, canvas.y, w, h, Some(Rgb::hex(0xf2f6ff)), Some(Rgb::hex(0x3284ff)));
    let period = format!("du {} au {}", date(statement.min_date), date(statement.max_date));
    for (i, (label, value)) in [("Nom", statement.name.as_str()), ("Période", period.as_str())]
        .iter()
        .enumerate()
    {
        let y = canvas.y + 16.0 + i as f32 * 15.0;
        canvas.text(x + 8.0, y, 10.0, true, BLACK, &format!("{label} :"));
        canvas.text(x + 70.0, y, 10.0, false, BLACK, value);
    }
    canvas.y += h + 18.0;
}

fn section(canvas: &mut Canvas<'_>, title: &str) {
    canvas.ensure(60.0);
    canvas.y += 14.0;
    canvas.text(MARGIN, canvas.y, 13.0, true, BLACK, title);
    canvas.y += 8.0;
}

/// `Heures travaillées` with the night and Sunday hours it holds, when there are some.
fn worked_hours(totals: &Totals) -> String {
    let mut text = hours(totals.total_work);
    if totals.night > 0 {
        text.push_str(&format!("\nDont heures au tarif nuit : {}", hours(totals.night)));
    }
    if totals.sunday_or_holiday > 0 {
        text.push_str(&format!(
            "\nDont heures dimanches et jours fériés : {}",
            hours(totals.sunday_or_holiday)
        ));
    }
    text
}

/// The table of sums per month (or per week, with the hours off).
fn summary(
    statement: &Statement,
    periods: &[(NaiveDate, NaiveDate)],
    with_off_hours: bool,
    title: impl Fn(&(NaiveDate, NaiveDate)) -> String,
) -> Table {
    let c = statement.columns;
    let mut columns = vec![
        Column::new(if with_off_hours { "Semaine" } else { "Mois" }, 1.3, DAYS),
        Column::new("Jours travaillés", 1.0, DAYS),
        Column::new("Jours de congé ou d'absence", 1.2, OFF),
        Column::new("Conduite", 1.0, ACTIVITIES),
    ];
    if c.other_task {
        columns.push(Column::new("Autre tâche", 1.0, ACTIVITIES));
    }
    if c.support {
        columns.push(Column::new("Accompagnement", 1.0, ACTIVITIES));
    }
    columns.push(Column::new("Heures travaillées", 2.4, ACTIVITIES));
    if with_off_hours {
        columns.push(Column::new("Heures de congé ou d'absence", 1.2, OFF));
    }
    if c.expenditures {
        columns.extend(EXPENDITURE_TITLES.iter().map(|t| Column::new(*t, 0.9, EXPENDITURES)));
    }
    let cells = |label: String, t: &Totals| -> Vec<String> {
        let mut cells = vec![label, t.worked_days.to_string(), t.off_days.to_string(), hours(t.drive)];
        if c.other_task {
            cells.push(hours(t.work));
        }
        if c.support {
            cells.push(hours(t.support));
        }
        cells.push(worked_hours(t));
        if with_off_hours {
            cells.push(hours(t.off));
        }
        if c.expenditures {
            cells.extend(t.expenditures.iter().map(i64::to_string));
        }
        cells
    };
    let mut rows: Vec<Row> = periods
        .iter()
        .map(|p| Row {
            cells: cells(title(p), &statement.totals(p.0, p.1)),
            ..Row::default()
        })
        .collect();
    // The months' table has its total only when it has several months; the weeks' always.
    if with_off_hours || periods.len() > 1 {
        rows.push(Row {
            cells: cells(
                "Total".into(),
                &statement.totals(statement.min_date, statement.max_date),
            ),
            fill: Some(TOTAL_ROW),
            bold: true,
        });
    }
    Table {
        columns,
        rows,
        size: TABLE_SIZE,
    }
}

/// One week, day by day, then its total.
fn week(statement: &Statement, from: NaiveDate, to: NaiveDate) -> Table {
    let c = statement.columns;
    let mut columns = vec![
        Column::new(week_title(from, to), 1.5, DAYS),
        Column::new("Début", 0.8, ACTIVITIES),
        Column::new("Fin", 0.8, ACTIVITIES),
        Column::new("Amplitude", 1.0, ACTIVITIES),
        Column::new("Conduite", 1.0, ACTIVITIES),
    ];
    if c.other_task {
        columns.push(Column::new("Autre tâche", 1.0, ACTIVITIES));
    }
    if c.transfer {
        columns.push(Column::new("Temps de Liaison", 1.0, ACTIVITIES));
    }
    if c.support {
        columns.push(Column::new("Accompagnement", 1.0, ACTIVITIES));
    }
    columns.extend([
        Column::new("Pause", 0.9, ACTIVITIES),
        Column::new("Heures travaillées", 1.0, ACTIVITIES),
        Column::new("Dont heures au tarif nuit", 1.0, ACTIVITIES),
        Column::new("Heures de congé ou d'absence", 1.1, OFF),
        Column::new("Motif", 1.3, OFF),
    ]);
    if c.expenditures {
        columns.extend(EXPENDITURE_TITLES.iter().map(|t| Column::new(*t, 0.8, EXPENDITURES)));
    }
    let figures = |t: &Totals, start: String, end: String, motive: String| -> Vec<String> {
        let mut cells = vec![start, end, hours(t.amplitude), hours(t.drive)];
        if c.other_task {
            cells.push(hours(t.work));
        }
        if c.transfer {
            cells.push(hours(t.transfer));
        }
        if c.support {
            cells.push(hours(t.support));
        }
        cells.extend([
            hours(t.pause),
            hours(t.total_work),
            hours(t.night),
            hours(t.off),
            motive,
        ]);
        if c.expenditures {
            cells.extend(t.expenditures.iter().map(i64::to_string));
        }
        cells
    };
    let mut rows = Vec::new();
    for day in crate::domain::regulation::time::dates(from, to) {
        let label = format!("{} {}", weekday_name(day), short_date(day));
        let recorded = statement.days.get(&day);
        let mut totals = Totals::default();
        let row = match recorded {
            Some(d) if d.row.figures.total_work > 0 || d.row.figures.transfer > 0 => {
                totals.add(d);
                let start = d.row.start_time.map_or_else(|| "-".to_string(), clock);
                let end = d.row.end_time.map_or_else(|| "-".to_string(), clock);
                let mut cells = vec![format!("{label}{}", d.mark.suffix())];
                cells.extend(figures(&totals, start, end, d.row.holiday_names.join(" / ")));
                let fill = d.row.is_sunday_or_holiday.then_some(SUNDAY_ROW);
                Row {
                    cells,
                    fill,
                    bold: false,
                }
            }
            Some(d) if d.row.figures.off > 0 => {
                // A day off shows its hours off and their reason only.
                let mut cells = vec![String::new(); columns.len()];
                let off_at = 8 + usize::from(c.other_task) + usize::from(c.transfer) + usize::from(c.support);
                cells[0] = format!("{label}{}", d.mark.suffix());
                cells[off_at] = hours(d.row.figures.off);
                cells[off_at + 1] = d.row.holiday_names.join(" / ");
                Row {
                    cells,
                    fill: Some(OFF),
                    bold: false,
                }
            }
            _ => Row {
                cells: vec![label],
                fill: Some(IDLE_ROW),
                bold: false,
            },
        };
        rows.push(row);
    }
    let total = statement.totals(from, to);
    let mut cells = vec!["Total".to_string()];
    cells.extend(figures(&total, String::new(), String::new(), String::new()));
    rows.push(Row {
        cells,
        fill: Some(TOTAL_ROW),
        bold: true,
    });
    Table {
        columns,
        rows,
        size: TABLE_SIZE,
    }
}

fn legend(canvas: &mut Canvas<'_>, statement: &Statement) {
    let sample = |day: u32| {
        NaiveDate::from_ymd_opt(2026, 1, day)
            .map(short_date)
            .unwrap_or_default()
    };
    let mut entries: Vec<(Option<(String, Rgb)>, &str)> = vec![
        (
            Some((format!("Dimanche {}", sample(4)), SUNDAY_ROW)),
            "Jour de travail majoré (dimanches et jours fériés)",
        ),
        (
            Some((format!("Lundi {}", sample(5)), IDLE_ROW)),
            "Journée non travaillée",
        ),
    ];
    if statement
        .days
        .values()
        .any(|d| d.row.figures.off > 0 && d.row.figures.total_work == 0)
    {
        entries.push((
            Some((format!("Mardi {}", sample(6)), OFF)),
            "Journée de congé ou d'absence",
        ));
    }
    for mark in statement.marks() {
        entries.push((
            None,
            match mark {
                Mark::NotValidatedByWorker => "* Le salarié n'a pas encore validé la journée de travail",
                Mark::NotValidatedByAdmin => "** Le gestionnaire n'a pas encore validé la journée de travail",
                Mark::ChangedAfterValidation => {
                    "*** Le gestionnaire a apporté des modifications à cette journée après validation du travailleur mobile"
                }
                Mark::None => continue,
            },
        ));
    }
    canvas.ensure(20.0 + entries.len() as f32 * 18.0);
    canvas.y += 6.0;
    canvas.text(MARGIN, canvas.y + 10.0, 10.0, true, BLACK, "Légende");
    canvas.y += 16.0;
    for (sample, text) in entries {
        let mut x = MARGIN;
        if let Some((label, colour)) = sample {
            canvas.rect(x, canvas.y, 90.0, 14.0, Some(colour), Some(Rgb::hex(0x808080)));
            canvas.text(x + 4.0, canvas.y + 10.0, TABLE_SIZE, false, BLACK, &label);
            x += 98.0;
        }
        canvas.text(x, canvas.y + 10.0, 9.0, false, BLACK, text);
        canvas.y += 18.0;
    }
}
