//! The pages of a mission's details (A4 portrait): the title and the worker's box, the deletion
//! banner, the vehicle, company, start and end, then "Temps de travail" and "Activités" (not for
//! a deleted mission), the observations and the history of what was recorded.

use super::canvas::{BLACK, Canvas, GREY, MARGIN, Orientation, Rgb};
use super::fonts::Fonts;
use super::mission::{MissionDetails, Place, duration_text, piece_label};
use super::table::{Column, Row, Table};
use crate::errors::AppResult;

const BOX_FILL: Rgb = Rgb::hex(0xf0f0f0);
const BOX_LINE: Rgb = Rgb::hex(0x000000);
const BANNER_FILL: Rgb = Rgb::hex(0xfff3e5);
const BANNER_TEXT: Rgb = Rgb::hex(0x4f371f);
const SERVICE: Rgb = Rgb::hex(0xcfdac8);
const ACTIVITIES: Rgb = Rgb::hex(0xc9cbff);
const EXPENDITURES: Rgb = Rgb::hex(0xffe5b9);
const HEADER: Rgb = Rgb::hex(0xd3d3d3);
const BREAK_ROW: Rgb = Rgb::hex(0xf0f0f0);
const EVENT: Rgb = Rgb::hex(0x3284ff);
const DELETION: Rgb = Rgb::hex(0xce0500);
const TEXT: f32 = 10.0;
const SMALL: f32 = 8.0;
/// The distance between the lines of the start and end: over one and a half times the text's
/// size, so that text readers take each for a line of its own.
const LINE: f32 = 16.0;

/// The document's bytes, the band naming `service`.
pub fn render(details: &MissionDetails, service: &str) -> AppResult<Vec<u8>> {
    let fonts = Fonts::load()?;
    let mut canvas = Canvas::new(&fonts, Orientation::Portrait);
    heading(&mut canvas, details);
    if let Some(banner) = details.deleted_text() {
        canvas.rect(MARGIN, canvas.y, canvas.content_width(), 22.0, Some(BANNER_FILL), None);
        canvas.text(MARGIN + 6.0, canvas.y + 15.0, TEXT, false, BANNER_TEXT, &banner);
        canvas.y += 34.0;
    }
    mission(&mut canvas, details);
    if details.deleted.is_none() {
        section(&mut canvas, "Temps de travail");
        work_time(details).draw(&mut canvas);
        section(&mut canvas, "Activités");
        activities(details).draw(&mut canvas);
    }
    observations(&mut canvas, details);
    history(&mut canvas, details);
    canvas.finish(service, &details.file_name())
}

fn heading(canvas: &mut Canvas<'_>, details: &MissionDetails) {
    let (title, subtitle) = details.title();
    let top = canvas.y;
    let box_width = 230.0;
    let title_width = canvas.content_width() - box_width - 12.0;
    let mut y = top + 16.0;
    for line in canvas.fonts.bold.wrap(&title, 16.0, title_width) {
        canvas.text(MARGIN, y, 16.0, true, BLACK, &line);
        y += 20.0;
    }
    if let Some(subtitle) = subtitle {
        canvas.text(MARGIN, y, TEXT, false, BLACK, &subtitle);
        y += 14.0;
    }
    let x = MARGIN + canvas.content_width() - box_width;
    let label_width = 80.0;
    let id = details.user_id.to_string();
    for (i, (label, value, bold)) in [
        ("Nom", details.user_name.as_str(), true),
        ("Identifiant Mobilic", id.as_str(), false),
    ]
    .into_iter()
    .enumerate()
    {
        let row_y = top + i as f32 * 18.0;
        canvas.rect(x, row_y, label_width, 18.0, Some(BOX_FILL), Some(BOX_LINE));
        canvas.rect(
            x + label_width,
            row_y,
            box_width - label_width,
            18.0,
            None,
            Some(BOX_LINE),
        );
        canvas.text(x + 3.0, row_y + 12.0, SMALL, false, BLACK, label);
        canvas.text(x + label_width + 4.0, row_y + 13.0, TEXT, bold, BLACK, value);
    }
    canvas.y = y.max(top + 36.0) + 16.0;
}

fn section(canvas: &mut Canvas<'_>, title: &str) {
    canvas.ensure(60.0);
    canvas.y += 14.0;
    canvas.text(MARGIN, canvas.y, 13.0, true, BLACK, title);
    canvas.y += 8.0;
}

/// `label` in bold then `value`, on one line at the cursor.
fn labelled(canvas: &mut Canvas<'_>, x: f32, label: &str, value: &str) {
    canvas.text(x, canvas.y, TEXT, true, BLACK, label);
    let shift = canvas.fonts.bold.width(label, TEXT) + 3.0;
    canvas.text(x + shift, canvas.y, TEXT, false, BLACK, value);
}

/// `text` wrapped to the content's width from `x`, a line at a time, a page starting when the
/// next line does not fit.
fn paragraph(canvas: &mut Canvas<'_>, x: f32, size: f32, colour: Rgb, text: &str) {
    let width = MARGIN + canvas.content_width() - x;
    for line in canvas.fonts.regular.wrap(text, size, width) {
        canvas.ensure(size * 1.3);
        canvas.y += size * 1.3;
        canvas.text(x, canvas.y, size, false, colour, &line);
    }
}

fn mission(canvas: &mut Canvas<'_>, details: &MissionDetails) {
    canvas.ensure(100.0);
    canvas.y += 4.0;
    let vehicle = details.vehicle.as_deref().unwrap_or("Aucun véhicule renseigné");
    labelled(canvas, MARGIN, "Véhicule :", vehicle);
    canvas.y += 16.0;
    let company = if details.company_name.is_empty() {
        "Aucun véhicule renseigné"
    } else {
        details.company_name.as_str()
    };
    labelled(canvas, MARGIN, "Entreprise :", company);
    canvas.y += 24.0;
    let bounds = details.bounds();
    let start = bounds.map_or_else(|| "-".to_string(), |(start, _)| details.time(start));
    let end = match bounds {
        Some((_, Some(end))) => details.time(end),
        Some((_, None)) => "En cours".to_string(),
        None => "-".to_string(),
    };
    let half = canvas.content_width() / 2.0;
    let top = canvas.y;
    let mut bottom = top;
    let sides = [("Début", start, &details.start), ("Fin", end, &details.end)];
    for (i, (title, time, place)) in sides.into_iter().enumerate() {
        let x = MARGIN + i as f32 * half;
        canvas.y = top;
        canvas.text(x, canvas.y, TEXT, true, BLACK, title);
        canvas.text(x, canvas.y + LINE, TEXT, false, BLACK, &time);
        canvas.y += LINE;
        side(canvas, x, half - 10.0, place);
        bottom = bottom.max(canvas.y);
    }
    canvas.y = bottom + 10.0;
}

/// A side's address and odometer reading.
fn side(canvas: &mut Canvas<'_>, x: f32, width: f32, place: &Place) {
    let address = place.address.as_deref().unwrap_or("Adresse non renseignée");
    for line in canvas.fonts.regular.wrap(address, TEXT, width) {
        canvas.y += LINE;
        canvas.text(x, canvas.y, TEXT, false, BLACK, &line);
    }
    if let Some(km) = place.kilometers {
        canvas.y += LINE;
        canvas.text(x, canvas.y, TEXT, false, BLACK, &format!("{km} km"));
    }
}

/// "Temps de travail": one row of sums, the columns the company asks for.
fn work_time(details: &MissionDetails) -> Table {
    let sums = details.sums();
    let c = details.columns;
    let mut columns = vec![
        (Column::new("Amplitude", 1.0, SERVICE), duration_text(sums.amplitude)),
        (Column::new("Conduite", 1.0, ACTIVITIES), duration_text(sums.drive)),
    ];
    if c.other_task {
        columns.push((Column::new("Autre tâche", 1.0, ACTIVITIES), duration_text(sums.work)));
    }
    if c.support {
        columns.push((
            Column::new("Accompagnement", 1.0, ACTIVITIES),
            duration_text(sums.support),
        ));
    }
    if c.transfer {
        columns.push((Column::new("Liaison", 1.0, ACTIVITIES), duration_text(sums.transfer)));
    }
    let mut work = duration_text(sums.total_work);
    if sums.night > 0 {
        work.push_str(&format!("\nDont heures au tarif nuit : {}", duration_text(sums.night)));
    }
    columns.push((Column::new("Pause", 1.0, ACTIVITIES), duration_text(sums.pause)));
    columns.push((Column::new("Travail", 1.6, ACTIVITIES), work));
    if c.expenditures {
        columns.push((Column::new("Frais", 1.6, EXPENDITURES), details.expenditures_text()));
    }
    let (columns, cells): (Vec<Column>, Vec<String>) = columns.into_iter().unzip();
    Table {
        columns,
        rows: vec![Row {
            cells,
            ..Row::default()
        }],
        size: 9.0,
    }
}

/// "Activités": each activity, a break between two of them.
fn activities(details: &MissionDetails) -> Table {
    let columns = ["Activité", "Début", "Fin", "Durée"]
        .into_iter()
        .map(|title| Column::new(title, 1.0, HEADER))
        .collect();
    let rows = details
        .pieces()
        .iter()
        .map(|piece| Row {
            cells: vec![
                piece_label(piece).to_string(),
                details.time(piece.start),
                piece
                    .end
                    .map_or_else(|| "En cours".to_string(), |end| details.time(end)),
                duration_text(details.duration(piece)),
            ],
            fill: piece.kind.is_none().then_some(BREAK_ROW),
            bold: false,
        })
        .collect();
    Table {
        columns,
        rows,
        size: 9.0,
    }
}

/// `author` in bold, then ` - <time>`, on a new line.
fn caption(canvas: &mut Canvas<'_>, x: f32, author: &str, time: &str) {
    canvas.ensure(30.0);
    canvas.y += 16.0;
    canvas.text(x, canvas.y, SMALL + 1.0, true, BLACK, author);
    let shift = canvas.fonts.bold.width(author, SMALL + 1.0);
    canvas.text(x + shift, canvas.y, SMALL + 1.0, false, GREY, &format!(" - {time}"));
}

fn observations(canvas: &mut Canvas<'_>, details: &MissionDetails) {
    section(canvas, "Observations");
    if details.comments.is_empty() {
        paragraph(canvas, MARGIN + 8.0, TEXT, BLACK, "Aucune observation n'a été saisie.");
    }
    for comment in &details.comments {
        caption(canvas, MARGIN + 8.0, &comment.author, &details.full_time(comment.time));
        paragraph(canvas, MARGIN + 8.0, TEXT, BLACK, &comment.text);
    }
    canvas.y += 8.0;
}

fn history(canvas: &mut Canvas<'_>, details: &MissionDetails) {
    section(canvas, "Historique de saisie");
    paragraph(
        canvas,
        MARGIN + 8.0,
        SMALL + 1.0,
        GREY,
        "L'historique de saisie avant la validation du salarié n'est pas montré au gestionnaire.",
    );
    for line in &details.history {
        caption(canvas, MARGIN + 26.0, &line.author, &details.full_time(line.time));
        let marker = if line.is_deletion { DELETION } else { EVENT };
        canvas.rect(MARGIN + 8.0, canvas.y - 8.0, 10.0, 10.0, Some(marker), None);
        paragraph(canvas, MARGIN + 26.0, TEXT, BLACK, &line.text);
    }
}
