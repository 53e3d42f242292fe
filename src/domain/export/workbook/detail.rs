//! The sheets `Détail` and `Missions supprimées`: per worker, per day, per mission, one row per
//! event of the mission's history, with its time, author and the author's status. The
//! employee, day and mission cells are merged over their rows, as in the reference's report;
//! `Missions supprimées` opens with a red banner explaining what a deleted mission is and shows
//! cancellations in red.

use rust_xlsxwriter::{ColNum, Color, Format, FormatAlign, FormatBorder, RowNum, Worksheet, XlsxError};

use super::days::excel_date;
use super::{EventRow, MissionDay, Report, WorkerMissions};

/// The banner of `Missions supprimées`.
pub const BANNER: &str = "Une mission est supprimée lorsque toutes les activités ont été supprimées";

/// What a column holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Content {
    Employee,
    Day,
    Mission,
    Time,
    Author,
    Status,
    Text,
    Activity,
    Justification,
}

struct Column {
    title: &'static str,
    width: f64,
    colour: &'static str,
    content: Content,
}

fn columns(report: &Report) -> Vec<Column> {
    use Content::*;
    let column = |title, width, colour, content| Column {
        title,
        width,
        colour,
        content,
    };
    let mut columns = vec![
        column("Employé", 30.0, "#dadada", Employee),
        column("Jour", 20.0, "#fdffbc", Day),
    ];
    if report.flags.mission_name {
        columns.push(column("Mission", 20.0, "#b4e1fa", Mission));
    }
    columns.extend([
        column("Date et heure de l'enregistrement", 20.0, "#daf5e7", Time),
        column("Auteur de l'enregistrement", 30.0, "#daf5e7", Author),
        column("Statut de l'auteur", 30.0, "#daf5e7", Status),
        column("Description de l'enregistrement", 60.0, "#daf5e7", Text),
        column("Activités effectuées", 15.0, "#b4e1fa", Activity),
        column("Justification", 60.0, "#d9d2e9", Justification),
    ]);
    columns
}

fn header_format(colour: &str) -> Format {
    Format::new()
        .set_bold()
        .set_align(FormatAlign::Center)
        .set_align(FormatAlign::VerticalCenter)
        .set_text_wrap()
        .set_border(FormatBorder::Thin)
        .set_background_color(colour)
}

fn merged_format() -> Format {
    Format::new()
        .set_align(FormatAlign::Center)
        .set_align(FormatAlign::VerticalCenter)
        .set_border(FormatBorder::Thin)
}

/// Writes the sheet `Détail` (`deleted` false) or `Missions supprimées` of `report`.
pub fn write(sheet: &mut Worksheet, report: &Report, deleted: bool) -> Result<(), XlsxError> {
    let columns = columns(report);
    let bold = Format::new().set_bold();
    for (i, c) in columns.iter().enumerate() {
        sheet.set_column_width(i as ColNum, c.width)?;
    }
    sheet.write_string_with_format(0, 0, format!("Entreprise : {}", report.company_names.join(", ")), &bold)?;
    sheet.write_string_with_format(
        1,
        0,
        format!(
            "Date des données exportées : du {} au {}",
            report.min_date.format("%d/%m/%Y"),
            report.max_date.format("%d/%m/%Y")
        ),
        &bold,
    )?;
    let mut row: RowNum = 3;
    let workers = if deleted {
        let banner = Format::new()
            .set_bold()
            .set_font_color(Color::White)
            .set_background_color("#ff0000");
        sheet.merge_range(2, 0, 2, 2, BANNER, &banner)?;
        row = 4;
        &report.deleted
    } else {
        &report.detail
    };
    sheet.set_freeze_panes(row, 2)?;
    for worker in workers {
        row = worker_block(sheet, &columns, worker, row, deleted)?;
    }
    Ok(())
}

/// Merges `col` over `[first, last]` with `text`, or writes the one cell.
fn merge(
    sheet: &mut Worksheet,
    (first, last): (RowNum, RowNum),
    col: ColNum,
    text: &str,
    format: &Format,
) -> Result<(), XlsxError> {
    if last > first {
        sheet.merge_range(first, col, last, col, text, format)?;
    } else {
        sheet.write_string_with_format(first, col, text, format)?;
    }
    Ok(())
}

/// Writes one worker's block from `row` (the header row); returns the next worker's header row.
fn worker_block(
    sheet: &mut Worksheet,
    columns: &[Column],
    worker: &WorkerMissions,
    row: RowNum,
    deleted: bool,
) -> Result<RowNum, XlsxError> {
    sheet.set_row_height(row, 40)?;
    for (i, c) in columns.iter().enumerate() {
        sheet.write_string_with_format(row, i as ColNum, c.title, &header_format(c.colour))?;
    }
    let first = row + 1;
    let mut next = first;
    for day in &worker.days {
        next = day_block(sheet, columns, day, next, deleted)?;
    }
    let last = next.saturating_sub(1).max(first);
    let name_format = Format::new()
        .set_bold()
        .set_align(FormatAlign::Top)
        .set_text_wrap()
        .set_border(FormatBorder::Thin);
    merge(
        sheet,
        (first, last),
        0,
        &format!("{}\nIdentifiant : {}", worker.name, worker.id),
        &name_format,
    )?;
    let closing = Format::new().set_border_top(FormatBorder::Thin);
    for i in 0..columns.len() {
        sheet.write_blank(last + 1, i as ColNum, &closing)?;
    }
    Ok(last + 3)
}

/// Writes one day's missions from `row`; returns the row after them.
fn day_block(
    sheet: &mut Worksheet,
    columns: &[Column],
    day: &MissionDay,
    row: RowNum,
    deleted: bool,
) -> Result<RowNum, XlsxError> {
    let mut next = row;
    for mission in &day.missions {
        let first = next;
        let rows = mission.events.len().max(1) as RowNum;
        for (offset, event) in mission.events.iter().enumerate() {
            let top = offset == 0;
            event_row(sheet, columns, event, first + offset as RowNum, top, deleted)?;
        }
        if mission.events.is_empty() {
            event_row(sheet, columns, &EMPTY, first, true, deleted)?;
        }
        next = first + rows;
        if let Some(col) = columns.iter().position(|c| c.content == Content::Mission) {
            merge(sheet, (first, next - 1), col as ColNum, &mission.name, &merged_format())?;
        }
    }
    let last = next.saturating_sub(1).max(row);
    let date = merged_format().set_num_format("dd/mm/yyyy");
    if last > row {
        sheet.merge_range(row, 1, last, 1, "", &date)?;
    }
    sheet.write_number_with_format(row, 1, excel_date(day.date), &date)?;
    Ok(last + 1)
}

const EMPTY: EventRow = EventRow {
    time: 0.0,
    author: String::new(),
    status: String::new(),
    text: String::new(),
    activity: String::new(),
    justification: String::new(),
    is_deletion: false,
};

/// Writes one event's cells (from the time column on).
fn event_row(
    sheet: &mut Worksheet,
    columns: &[Column],
    event: &EventRow,
    row: RowNum,
    top: bool,
    deleted: bool,
) -> Result<(), XlsxError> {
    let mut base = Format::new()
        .set_text_wrap()
        .set_align(FormatAlign::Top)
        .set_border_right(FormatBorder::Thin);
    if top {
        base = base.set_border_top(FormatBorder::Thin);
    }
    if deleted && event.is_deletion {
        base = base.set_font_color(Color::Red);
    }
    for (i, c) in columns.iter().enumerate() {
        let col = i as ColNum;
        let centred = base.clone().set_align(FormatAlign::Center);
        match c.content {
            Content::Employee | Content::Day | Content::Mission => {}
            Content::Time if event.time > 0.0 => {
                let format = centred.set_num_format("dd/mm/yyyy h:mm");
                sheet.write_number_with_format(row, col, event.time, &format)?;
            }
            Content::Time => {
                sheet.write_blank(row, col, &centred)?;
            }
            Content::Author => {
                sheet.write_string_with_format(row, col, &event.author, &centred)?;
            }
            Content::Status => {
                sheet.write_string_with_format(row, col, &event.status, &centred)?;
            }
            Content::Text => {
                sheet.write_string_with_format(row, col, &event.text, &base)?;
            }
            Content::Activity => {
                sheet.write_string_with_format(row, col, &event.activity, &base)?;
            }
            Content::Justification => {
                sheet.write_string_with_format(row, col, &event.justification, &base)?;
            }
        }
    }
    Ok(())
}
