//! The workbook of one file: the sheet `Activités` (then `Détail` and `Missions supprimées`,
//! written by [`super::detail`]), one block per worker (a header row, a row
//! per day, a totals row), laid out, coloured and formatted as the reference's report. Dates,
//! times and durations are Excel numbers (days and fractions of a day) with their formats, so
//! that a spreadsheet adds them up. Every sheet is protected without a password, and the
//! workbook carries the custom property `Mobilic HMAC` (`a` while unsigned).

use chrono::NaiveDate;
use rust_xlsxwriter::{
    ColNum, DocProperties, Format, FormatAlign, FormatBorder, Formula, RowNum, Workbook, Worksheet, XlsxError,
};

use super::days::excel_date;
use super::{DayRow, Report, WorkerDays};

const SUNDAY_COLOUR: &str = "#ffe599";
const DAY_OFF_COLOUR: &str = "#A9CBFF";
const TOTAL_COLOUR: &str = "#a8d08d";

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Content {
    Employee,
    Day,
    Missions,
    Vehicles,
    Start,
    End,
    Drive,
    Support,
    Work,
    TotalWork,
    Night,
    Transfer,
    Pause,
    Amplitude,
    StartPlace,
    KmStart,
    EndPlace,
    KmEnd,
    Distance,
    Expenditure(usize),
    Off,
    OffReasons,
    Comments,
}

/// A column: title, width, header colour, content, and whether its total is shown.
struct Column {
    title: &'static str,
    width: f64,
    colour: &'static str,
    content: Content,
    summed: bool,
}

const fn column(title: &'static str, width: f64, colour: &'static str, content: Content, summed: bool) -> Column {
    Column {
        title,
        width,
        colour,
        content,
        summed,
    }
}

/// The columns of a report, the optional ones when its flags ask for them.
fn columns(report: &Report) -> Vec<Column> {
    use Content::*;
    let flags = report.flags;
    let mut columns = vec![
        column("Employé", 30.0, "#dadada", Employee, false),
        column("Jour", 20.0, "#fdffbc", Day, false),
    ];
    if flags.mission_name {
        columns.push(column("Mission(s)", 30.0, "#b4e1fa", Missions, false));
    }
    columns.extend([
        column("Véhicule(s)", 30.0, "#b4e1fa", Vehicles, false),
        column("Début", 15.0, "#daf5e7", Start, false),
        column("Fin", 15.0, "#daf5e7", End, false),
        column("Conduite", 13.0, "#daf5e7", Drive, true),
        column("Accompagnement", 13.0, "#daf5e7", Support, true),
        column("Autre tâche", 13.0, "#daf5e7", Work, true),
        column("Total travail", 13.0, "#daf5e7", TotalWork, true),
        column("Heures au tarif nuit", 13.0, "#daf5e7", Night, true),
    ]);
    if flags.transfers {
        columns.push(column("Liaison", 13.0, "#daf5e7", Transfer, true));
    }
    columns.extend([
        column("Pause", 13.0, "#daf5e7", Pause, true),
        column("Amplitude", 13.0, "#daf5e7", Amplitude, false),
        column("Lieu de début de service", 30.0, "#b4e1fa", StartPlace, false),
    ]);
    if flags.kilometers {
        columns.push(column(
            "Relevé km de début de service (si même véhicule utilisé au cours de la journée)",
            30.0,
            "#b4e1fa",
            KmStart,
            false,
        ));
    }
    columns.push(column("Lieu de fin de service", 30.0, "#b4e1fa", EndPlace, false));
    if flags.kilometers {
        columns.push(column(
            "Relevé km de fin de service (si même véhicule utilisé au cours de la journée)",
            30.0,
            "#b4e1fa",
            KmEnd,
            false,
        ));
        columns.push(column(
            "Nombre de kilomètres parcourus",
            30.0,
            "#b4e1fa",
            Distance,
            true,
        ));
    }
    if flags.expenditures {
        for (i, title) in ["Repas midi", "Repas soir", "Découcher", "Casse-croûte"]
            .into_iter()
            .enumerate()
        {
            columns.push(column(title, 13.0, "#fff0e4", Expenditure(i), true));
        }
    }
    columns.extend([
        column("Heures congés ou absences", 50.0, "#A9CBFF", Off, true),
        column("Motif congé ou absence", 50.0, "#A9CBFF", OffReasons, false),
        column("Observations", 50.0, "#d9d2e9", Comments, false),
    ]);
    columns
}

/// A cell's value.
enum Value {
    Text(String),
    /// A date, a time or a duration, in days.
    Days(f64),
    Number(f64),
    Empty,
}

const DAY_SECS: f64 = 86400.0;

fn duration(secs: i64) -> Value {
    Value::Days(secs as f64 / DAY_SECS)
}

fn value(content: Content, row: &DayRow) -> Value {
    let f = &row.figures;
    let text = |items: &[String], separator: &str| Value::Text(items.join(separator));
    let time = |t: Option<i64>| t.map_or_else(|| Value::Text("-".to_string()), |t| Value::Days(t as f64 / DAY_SECS));
    let count = |n: Option<i64>| n.map_or(Value::Empty, |n| Value::Number(n as f64));
    match content {
        Content::Employee => Value::Empty,
        Content::Day => Value::Days(excel_date(f.date)),
        Content::Missions => text(&row.missions, ", "),
        Content::Vehicles => text(&row.vehicles, ", "),
        Content::Start => time(row.start_time),
        Content::End => time(row.end_time),
        Content::Drive => duration(f.drive),
        Content::Support => duration(f.support),
        Content::Work => duration(f.work),
        Content::TotalWork => duration(f.total_work),
        Content::Night => duration(f.night),
        Content::Transfer => duration(f.transfer),
        Content::Pause => duration(f.pause),
        Content::Amplitude => duration(f.amplitude),
        Content::StartPlace => Value::Text(row.start_place.clone()),
        Content::KmStart => count(row.km_start),
        Content::EndPlace => Value::Text(row.end_place.clone()),
        Content::KmEnd => count(row.km_end),
        Content::Distance => count(row.km_start.zip(row.km_end).map(|(a, b)| b - a)),
        Content::Expenditure(i) => Value::Number(row.expenditures[i] as f64),
        Content::Off => duration(f.off),
        Content::OffReasons => text(&row.holiday_names, "/"),
        Content::Comments => Value::Text(
            row.comments
                .iter()
                .map(|c| format!(" - {c}"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

/// The format of a data cell of `content`, on `background` if any.
fn cell_format(content: Content, background: Option<&str>) -> Format {
    let mut format = Format::new().set_border(FormatBorder::Thin);
    format = match content {
        Content::Employee => format.set_bold(),
        Content::Day => format.set_num_format("dd/mm/yyyy"),
        Content::Start | Content::End => format.set_num_format("h:mm").set_align(FormatAlign::Center),
        Content::Drive | Content::TotalWork | Content::Off => format
            .set_num_format("[h]:mm")
            .set_align(FormatAlign::Center)
            .set_bold(),
        Content::Support | Content::Work | Content::Night | Content::Transfer | Content::Pause | Content::Amplitude => {
            format.set_num_format("[h]:mm").set_align(FormatAlign::Center)
        }
        Content::KmStart | Content::KmEnd | Content::Distance | Content::Expenditure(_) => {
            format.set_align(FormatAlign::Center)
        }
        Content::Missions
        | Content::Vehicles
        | Content::StartPlace
        | Content::EndPlace
        | Content::OffReasons
        | Content::Comments => format.set_text_wrap(),
    };
    match background {
        Some(colour) => format.set_background_color(colour),
        None => format,
    }
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

fn french(date: NaiveDate) -> String {
    date.format("%d/%m/%Y").to_string()
}

/// The workbook of `report`, as xlsx bytes.
pub fn write(report: &Report) -> Result<Vec<u8>, XlsxError> {
    let mut workbook = Workbook::new();
    workbook.set_properties(&DocProperties::new().set_custom_property("Mobilic HMAC", "a"));
    let sheet = workbook.add_worksheet();
    sheet.set_name("Activités")?;
    activities(sheet, report)?;
    sheet.protect();
    for (name, deleted) in [("Détail", false), ("Missions supprimées", true)] {
        let sheet = workbook.add_worksheet();
        sheet.set_name(name)?;
        super::detail::write(sheet, report, deleted)?;
        sheet.protect();
    }
    workbook.save_to_buffer()
}

fn activities(sheet: &mut Worksheet, report: &Report) -> Result<(), XlsxError> {
    let columns = columns(report);
    let bold = Format::new().set_bold();
    sheet.set_freeze_panes(3, 2)?;
    for (i, c) in columns.iter().enumerate() {
        sheet.set_column_width(i as ColNum, c.width)?;
    }
    sheet.write_string_with_format(0, 0, format!("Entreprise : {}", report.company_names.join(", ")), &bold)?;
    sheet.write_string_with_format(
        1,
        0,
        format!(
            "Date des données exportées : du {} au {}",
            french(report.min_date),
            french(report.max_date)
        ),
        &bold,
    )?;
    legend(sheet, report)?;
    let mut row: RowNum = 4;
    for worker in &report.workers {
        row = worker_block(sheet, &columns, worker, row)?;
    }
    if !report.idle.is_empty() {
        sheet.write_string_with_format(
            row,
            0,
            "Cette période ne contient pas de temps de travail pour les salariés suivants :",
            &bold,
        )?;
        for (i, name) in report.idle.iter().enumerate() {
            sheet.write_string(row + 1 + i as RowNum, 0, format!("• {name}"))?;
        }
    }
    Ok(())
}

/// The legend at E1, when a day is coloured.
fn legend(sheet: &mut Worksheet, report: &Report) -> Result<(), XlsxError> {
    let days = || report.workers.iter().flat_map(|w| w.days.iter());
    let cases = [
        (
            days().any(|d| d.is_sunday_or_holiday),
            SUNDAY_COLOUR,
            "Dimanches ou jours fériés : jours de travail majorés",
        ),
        (
            days().any(|d| d.is_day_off),
            DAY_OFF_COLOUR,
            "Jours de congé ou d\u{2019}absence",
        ),
    ];
    if !cases.iter().any(|c| c.0) {
        return Ok(());
    }
    let bold = Format::new().set_bold();
    sheet.write_string_with_format(0, 4, "Légende :", &bold)?;
    let sample = NaiveDate::from_ymd_opt(2022, 1, 1).map_or(0.0, excel_date);
    let mut at: RowNum = 0;
    for (shown, colour, label) in cases {
        if !shown {
            continue;
        }
        let format = Format::new()
            .set_num_format("dd/mm/yyyy")
            .set_bold()
            .set_border(FormatBorder::Thin)
            .set_background_color(colour);
        sheet.write_number_with_format(at, 5, sample, &format)?;
        sheet.write_string_with_format(at, 6, label, &bold)?;
        at += 1;
    }
    Ok(())
}

/// Writes one worker's block from `row` (the header row); returns the next worker's header row.
fn worker_block(
    sheet: &mut Worksheet,
    columns: &[Column],
    worker: &WorkerDays,
    row: RowNum,
) -> Result<RowNum, XlsxError> {
    sheet.set_row_height(row, 40)?;
    for (i, c) in columns.iter().enumerate() {
        sheet.write_string_with_format(row, i as ColNum, c.title, &header_format(c.colour))?;
    }
    let first = row + 1;
    let mut totals = vec![0f64; columns.len()];
    for (offset, day) in worker.days.iter().enumerate() {
        let r = first + offset as RowNum;
        let background = if day.is_day_off {
            Some(DAY_OFF_COLOUR)
        } else if day.is_sunday_or_holiday {
            Some(SUNDAY_COLOUR)
        } else {
            None
        };
        for (i, c) in columns.iter().enumerate().skip(1) {
            let format = cell_format(c.content, background);
            let col = i as ColNum;
            match value(c.content, day) {
                Value::Text(text) if matches!(c.content, Content::Start | Content::End) => {
                    sheet.write_string_with_format(r, col, text, &format.set_align(FormatAlign::Center))?;
                }
                Value::Text(text) => {
                    sheet.write_string_with_format(r, col, text, &format)?;
                }
                Value::Days(v) | Value::Number(v) => {
                    totals[i] += v;
                    sheet.write_number_with_format(r, col, v, &format)?;
                }
                Value::Empty => {
                    sheet.write_blank(r, col, &format)?;
                }
            }
        }
    }
    let last = first + worker.days.len().saturating_sub(1) as RowNum;
    let name_format = Format::new()
        .set_bold()
        .set_align(FormatAlign::Top)
        .set_text_wrap()
        .set_border(FormatBorder::Thin);
    sheet.merge_range(
        first,
        0,
        last.max(first + 1),
        0,
        &format!("{}\nIdentifiant : {}", worker.name, worker.id),
        &name_format,
    )?;
    let total_row = last + 2;
    let label_format = Format::new()
        .set_bold()
        .set_align(FormatAlign::Center)
        .set_border(FormatBorder::Thin)
        .set_background_color(TOTAL_COLOUR);
    for (i, c) in columns.iter().enumerate() {
        if !c.summed {
            continue;
        }
        let col = i as ColNum;
        if i >= 2 && !columns[i - 1].summed {
            sheet.merge_range(
                total_row,
                col - 2,
                total_row,
                col - 1,
                &format!("Total {}", worker.name),
                &label_format,
            )?;
        }
        let letter = column_letter(col);
        let formula = Formula::new(format!("=SUM({letter}{}:{letter}{})", first + 1, last + 1))
            .set_result(format!("{}", totals[i]));
        let format = cell_format(c.content, None);
        sheet.write_array_formula_with_format(total_row, col, total_row, col, formula, &format)?;
    }
    Ok(last + 5)
}

/// The letters of a column (`0` → `A`, `26` → `AA`).
fn column_letter(col: ColNum) -> String {
    let mut n = u32::from(col) + 1;
    let mut letters = Vec::new();
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        letters.push((b'A' + rem) as char);
        n = (n - 1) / 26;
    }
    letters.iter().rev().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_lettered_as_excel_does() {
        assert_eq!(column_letter(0), "A");
        assert_eq!(column_letter(25), "Z");
        assert_eq!(column_letter(26), "AA");
        assert_eq!(column_letter(27), "AB");
    }

    #[test]
    fn dates_are_excel_serials() {
        assert_eq!(excel_date(NaiveDate::from_ymd_opt(2022, 1, 1).unwrap()), 44562.0);
    }
}
