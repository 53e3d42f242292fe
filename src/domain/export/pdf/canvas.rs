//! An A4 document laid out page by page, then drawn: the layout records rectangles and lines of
//! text on pages, and only when it is done are the pages drawn with krilla, each with the
//! service's top band and the footer `Page n sur N` (the number of pages is known by then).
//! Coordinates are PDF points from the page's top-left corner, `y` growing downwards.

use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::surface::Surface;

use super::fonts::Fonts;
use crate::errors::{AppError, AppResult};

/// A colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The colour written `#rrggbb`, given as `0xrrggbb`.
    pub const fn hex(value: u32) -> Self {
        Self((value >> 16) as u8, (value >> 8) as u8, value as u8)
    }

    fn paint(self) -> rgb::Color {
        rgb::Color::new(self.0, self.1, self.2)
    }
}

pub const BLACK: Rgb = Rgb::hex(0x000000);
pub const WHITE: Rgb = Rgb::hex(0xffffff);
pub const GREY: Rgb = Rgb::hex(0x555555);
/// The top band's blue.
pub const BAND_BLUE: Rgb = Rgb::hex(0x3284ff);

/// A4 in points.
const A4_SHORT: f32 = 595.28;
const A4_LONG: f32 = 841.89;
/// Margins, the band's height and the footer's.
pub const MARGIN: f32 = 28.0;
const BAND: f32 = 34.0;
const FOOTER: f32 = 28.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    Portrait,
    Landscape,
}

/// What a page shows.
#[derive(Clone, Debug)]
enum Item {
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        fill: Option<Rgb>,
        stroke: Option<Rgb>,
    },
    /// One line of text, `y` its baseline.
    Text {
        x: f32,
        y: f32,
        size: f32,
        bold: bool,
        color: Rgb,
        text: String,
    },
}

/// The document being laid out; `y` is where the next thing goes on the current page.
pub struct Canvas<'f> {
    pub fonts: &'f Fonts,
    pub width: f32,
    pub height: f32,
    pub y: f32,
    pages: Vec<Vec<Item>>,
}

impl<'f> Canvas<'f> {
    pub fn new(fonts: &'f Fonts, orientation: Orientation) -> Self {
        let (width, height) = match orientation {
            Orientation::Portrait => (A4_SHORT, A4_LONG),
            Orientation::Landscape => (A4_LONG, A4_SHORT),
        };
        Self {
            fonts,
            width,
            height,
            y: Self::top(),
            pages: vec![Vec::new()],
        }
    }

    /// Where a page's content starts, under the band.
    pub fn top() -> f32 {
        BAND + 18.0
    }

    /// Where a page's content must end, above the footer.
    pub fn bottom(&self) -> f32 {
        self.height - FOOTER - 6.0
    }

    pub fn content_width(&self) -> f32 {
        self.width - 2.0 * MARGIN
    }

    /// Starts a new page (none when the current one is still empty).
    pub fn new_page(&mut self) {
        if self.pages.last().is_some_and(|p| !p.is_empty()) {
            self.pages.push(Vec::new());
        }
        self.y = Self::top();
    }

    /// Starts a new page unless `height` still fits on this one.
    pub fn ensure(&mut self, height: f32) {
        if self.y + height > self.bottom() {
            self.new_page();
        }
    }

    fn push(&mut self, item: Item) {
        if let Some(page) = self.pages.last_mut() {
            page.push(item);
        }
    }

    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, fill: Option<Rgb>, stroke: Option<Rgb>) {
        self.push(Item::Rect {
            x,
            y,
            w,
            h,
            fill,
            stroke,
        });
    }

    /// One line of text starting at `x`, baseline `y`.
    pub fn text(&mut self, x: f32, y: f32, size: f32, bold: bool, color: Rgb, text: &str) {
        if !text.is_empty() {
            self.push(Item::Text {
                x,
                y,
                size,
                bold,
                color,
                text: text.to_string(),
            });
        }
    }

    /// One line of text centred between `x` and `x + w` (`span`).
    pub fn centred(&mut self, (x, w): (f32, f32), y: f32, size: f32, bold: bool, color: Rgb, text: &str) {
        let width = self.fonts.face(bold).width(text, size);
        self.text(x + (w - width).max(0.0) / 2.0, y, size, bold, color, text);
    }

    /// The PDF: every page with the band naming `service` and its footer, titled `title`.
    pub fn finish(self, service: &str, title: &str) -> AppResult<Vec<u8>> {
        let mut document = Document::new();
        document.set_metadata(
            Metadata::new()
                .title(title.to_string())
                .language("fr".to_string())
                .creator(service.to_string()),
        );
        let total = self.pages.len();
        let settings =
            PageSettings::from_wh(self.width, self.height).ok_or_else(|| AppError::internal("bad PDF page size"))?;
        for (index, items) in self.pages.iter().enumerate() {
            let mut page = document.start_page_with(settings.clone());
            let mut surface = page.surface();
            let band = Item::Rect {
                x: 0.0,
                y: 0.0,
                w: self.width,
                h: BAND,
                fill: Some(BAND_BLUE),
                stroke: None,
            };
            let name = Item::Text {
                x: MARGIN,
                y: BAND / 2.0 + 6.0,
                size: 16.0,
                bold: true,
                color: WHITE,
                text: service.to_string(),
            };
            let footer = format!("Page {} sur {total}", index + 1);
            let footer_size = 9.0;
            let footer_x = (self.width - self.fonts.regular.width(&footer, footer_size)) / 2.0;
            let footer = Item::Text {
                x: footer_x,
                y: self.height - FOOTER / 2.0,
                size: footer_size,
                bold: false,
                color: GREY,
                text: footer,
            };
            for item in [&band, &name].into_iter().chain(items).chain([&footer]) {
                draw(&mut surface, self.fonts, item);
            }
            surface.finish();
            page.finish();
        }
        document
            .finish()
            .map_err(|error| AppError::internal(format!("the PDF cannot be written: {error:?}")))
    }
}

fn fill(color: Rgb) -> Fill {
    Fill {
        paint: color.paint().into(),
        opacity: NormalizedF32::ONE,
        rule: Default::default(),
    }
}

fn draw(surface: &mut Surface<'_>, fonts: &Fonts, item: &Item) {
    match item {
        Item::Rect {
            x,
            y,
            w,
            h,
            fill: inside,
            stroke,
        } => {
            let mut builder = PathBuilder::new();
            let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) else {
                return;
            };
            builder.push_rect(rect);
            let Some(path) = builder.finish() else {
                return;
            };
            surface.set_fill(inside.map(fill));
            surface.set_stroke(stroke.map(|color| Stroke {
                paint: color.paint().into(),
                width: 0.5,
                ..Stroke::default()
            }));
            surface.draw_path(&path);
        }
        Item::Text {
            x,
            y,
            size,
            bold,
            color,
            text,
        } => {
            let face = fonts.face(*bold);
            surface.set_fill(Some(fill(*color)));
            surface.set_stroke(None);
            surface.draw_glyphs(
                Point::from_xy(*x, *y),
                &face.glyphs(text),
                face.font.clone(),
                text,
                *size,
                false,
            );
        }
    }
}
