//! Tables: a header row on the columns' colours, then rows (text wrapped in its cell, the first
//! column left-aligned, the others centred), cut across pages with the header repeated.

use super::canvas::{BLACK, Canvas, MARGIN, Rgb};

const PADDING: f32 = 3.0;
const BORDER: Rgb = Rgb::hex(0x808080);

/// A column: its title, its share of the table's width, its header's colour.
#[derive(Clone, Debug)]
pub struct Column {
    pub title: String,
    pub weight: f32,
    pub colour: Rgb,
}

impl Column {
    pub fn new(title: impl Into<String>, weight: f32, colour: Rgb) -> Self {
        Self {
            title: title.into(),
            weight,
            colour,
        }
    }
}

/// A row: one text per column (`\n` breaks a line), its background, bold for totals.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub cells: Vec<String>,
    pub fill: Option<Rgb>,
    pub bold: bool,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub size: f32,
}

impl Table {
    /// The columns' widths: each at least its widest word, header and rows (its widest line for
    /// the first column, which holds the rows' labels), the rest shared by weight.
    fn widths(&self, canvas: &Canvas<'_>, total: f32) -> Vec<f32> {
        let (bold, regular) = (canvas.fonts.face(true), canvas.fonts.face(false));
        let words = |text: &str, face: &super::fonts::Face| -> f32 {
            text.split([' ', '\n'])
                .flat_map(|w| w.split_inclusive('-'))
                .map(|w| face.width(w, self.size))
                .fold(0.0, f32::max)
        };
        let minimums: Vec<f32> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, column)| {
                let mut least = words(&column.title, bold);
                for row in &self.rows {
                    let face = if row.bold { bold } else { regular };
                    let cell = row.cells.get(i).map_or("", String::as_str);
                    least = least.max(if i == 0 {
                        cell.split('\n').map(|l| face.width(l, self.size)).fold(0.0, f32::max)
                    } else {
                        words(cell, face)
                    });
                }
                least + 2.0 * PADDING + 1.0
            })
            .collect();
        let spare = (total - minimums.iter().sum::<f32>()).max(0.0);
        let sum: f32 = self.columns.iter().map(|c| c.weight).sum::<f32>().max(f32::EPSILON);
        self.columns
            .iter()
            .zip(minimums)
            .map(|(c, least)| least + spare * c.weight / sum)
            .collect()
    }

    fn line_height(&self) -> f32 {
        self.size * 1.25
    }

    /// The lines of each cell of a row.
    fn lines(&self, canvas: &Canvas<'_>, texts: &[&str], bold: bool, widths: &[f32]) -> Vec<Vec<String>> {
        let face = canvas.fonts.face(bold);
        widths
            .iter()
            .enumerate()
            .map(|(i, w)| face.wrap(texts.get(i).copied().unwrap_or(""), self.size, w - 2.0 * PADDING))
            .collect()
    }

    fn height(&self, lines: &[Vec<String>]) -> f32 {
        let most = lines.iter().map(Vec::len).max().unwrap_or(1).max(1);
        most as f32 * self.line_height() + 2.0 * PADDING
    }

    /// Draws a row of cells at the cursor, which moves below it.
    fn draw_row(
        &self,
        canvas: &mut Canvas<'_>,
        widths: &[f32],
        lines: &[Vec<String>],
        fills: &[Option<Rgb>],
        bold: bool,
        header: bool,
    ) {
        let height = self.height(lines);
        let mut x = MARGIN;
        for (i, width) in widths.iter().enumerate() {
            canvas.rect(
                x,
                canvas.y,
                *width,
                height,
                fills.get(i).copied().flatten(),
                Some(BORDER),
            );
            let cell = lines.get(i).map_or(&[][..], Vec::as_slice);
            // Shorter cells are centred vertically in the row.
            let mut y = canvas.y
                + PADDING
                + (height - 2.0 * PADDING - cell.len() as f32 * self.line_height()) / 2.0
                + self.size;
            for line in cell {
                if i == 0 && !header {
                    canvas.text(x + PADDING, y, self.size, bold, BLACK, line);
                } else {
                    canvas.centred((x, *width), y, self.size, bold, BLACK, line);
                }
                y += self.line_height();
            }
            x += width;
        }
        canvas.y += height;
    }

    /// Draws the table from the cursor, which moves below it; a row that does not fit starts a
    /// new page, where the header is drawn again.
    pub fn draw(&self, canvas: &mut Canvas<'_>) {
        let widths = self.widths(canvas, canvas.content_width());
        let titles: Vec<&str> = self.columns.iter().map(|c| c.title.as_str()).collect();
        let header = self.lines(canvas, &titles, true, &widths);
        let header_fills: Vec<Option<Rgb>> = self.columns.iter().map(|c| Some(c.colour)).collect();
        let header_height = self.height(&header);
        let rows: Vec<(Vec<Vec<String>>, &Row)> = self
            .rows
            .iter()
            .map(|row| {
                let texts: Vec<&str> = row.cells.iter().map(String::as_str).collect();
                (self.lines(canvas, &texts, row.bold, &widths), row)
            })
            .collect();
        let first = rows.first().map_or(0.0, |(lines, _)| self.height(lines));
        canvas.ensure(header_height + first);
        self.draw_row(canvas, &widths, &header, &header_fills, true, true);
        for (lines, row) in &rows {
            let height = self.height(lines);
            if canvas.y + height > canvas.bottom() {
                canvas.new_page();
                self.draw_row(canvas, &widths, &header, &header_fills, true, true);
            }
            let fills = vec![row.fill; widths.len()];
            self.draw_row(canvas, &widths, lines, &fills, row.bold, false);
        }
    }
}
