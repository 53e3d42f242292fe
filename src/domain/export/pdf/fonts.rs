//! The typeface of the PDF documents, DejaVu Sans Condensed (regular and bold), compiled into the
//! binary so that a document never depends on the machine's fonts. Each character is mapped to
//! its glyph and advance here: text is measured (wrapping, centring) with the same figures it is
//! drawn with, and krilla embeds the subset of glyphs a document uses, with their Unicode
//! mapping, so the text prints and can be copied, accents included.

use krilla::text::{Font, GlyphId, KrillaGlyph};
use skrifa::instance::{LocationRef, Size};
use skrifa::metrics::GlyphMetrics;
use skrifa::{FontRef, MetadataProvider};

use crate::errors::{AppError, AppResult};

static REGULAR: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSansCondensed.ttf"
));
static BOLD: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSansCondensed-Bold.ttf"
));

/// One face: the font krilla embeds, and its character map and advances.
pub struct Face {
    pub font: Font,
    charmap: skrifa::charmap::Charmap<'static>,
    metrics: GlyphMetrics<'static>,
    units_per_em: f32,
}

impl Face {
    fn new(data: &'static [u8]) -> AppResult<Self> {
        let font = Font::new(data.into(), 0).ok_or_else(|| AppError::internal("the PDF font cannot be read"))?;
        let face = FontRef::new(data).map_err(|_| AppError::internal("the PDF font cannot be read"))?;
        let units_per_em = f32::from(
            face.metrics(Size::unscaled(), LocationRef::default())
                .units_per_em
                .max(1),
        );
        Ok(Self {
            font,
            charmap: face.charmap(),
            metrics: face.glyph_metrics(Size::unscaled(), LocationRef::default()),
            units_per_em,
        })
    }

    /// The glyph of `c` and its advance for a size of 1 (the font's `.notdef` for a character it
    /// lacks).
    fn glyph(&self, c: char) -> (u32, f32) {
        let id = self.charmap.map(c).unwrap_or_default();
        let advance = self.metrics.advance_width(id).unwrap_or(0.0) / self.units_per_em;
        (id.to_u32(), advance)
    }

    /// The width of `text` at `size` points.
    pub fn width(&self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| self.glyph(c).1).sum::<f32>() * size
    }

    /// The glyphs of `text`, one per character, each tied to its bytes in `text`.
    pub fn glyphs(&self, text: &str) -> Vec<KrillaGlyph> {
        text.char_indices()
            .map(|(at, c)| {
                let (id, advance) = self.glyph(c);
                KrillaGlyph {
                    glyph_id: GlyphId::new(id),
                    text_range: at..at + c.len_utf8(),
                    x_advance: advance,
                    x_offset: 0.0,
                    y_offset: 0.0,
                    y_advance: 0.0,
                    location: None,
                }
            })
            .collect()
    }

    /// `text` cut into lines no wider than `width` at `size`: at the spaces when a word fits,
    /// inside a word when it alone is too wide; the text's own line breaks are kept.
    pub fn wrap(&self, text: &str, size: f32, width: f32) -> Vec<String> {
        let mut lines = Vec::new();
        for paragraph in text.split('\n') {
            let mut line = String::new();
            for word in paragraph.split(' ') {
                let candidate = if line.is_empty() {
                    word.to_string()
                } else {
                    format!("{line} {word}")
                };
                if self.width(&candidate, size) <= width || line.is_empty() && word.is_empty() {
                    line = candidate;
                    continue;
                }
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                // A word too wide for a line is cut after its hyphens, then between characters.
                for piece in word.split_inclusive('-') {
                    if !line.is_empty() && self.width(&format!("{line}{piece}"), size) > width {
                        lines.push(std::mem::take(&mut line));
                    }
                    for c in piece.chars() {
                        line.push(c);
                        if self.width(&line, size) > width && line.chars().count() > 1 {
                            line.pop();
                            lines.push(std::mem::take(&mut line));
                            line.push(c);
                        }
                    }
                }
            }
            lines.push(line);
        }
        lines
    }
}

/// The two faces of a document.
pub struct Fonts {
    pub regular: Face,
    pub bold: Face,
}

impl Fonts {
    pub fn load() -> AppResult<Self> {
        Ok(Self {
            regular: Face::new(REGULAR)?,
            bold: Face::new(BOLD)?,
        })
    }

    pub fn face(&self, bold: bool) -> &Face {
        if bold { &self.bold } else { &self.regular }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_have_glyphs_and_text_wraps_at_spaces() {
        let fonts = Fonts::load().unwrap();
        for c in "éèêàçùôÉ'’".chars() {
            assert_ne!(fonts.regular.glyph(c).0, 0, "{c}");
        }
        let face = &fonts.regular;
        assert!(face.width("Relevé", 10.0) > face.width("Relev", 10.0));
        let lines = face.wrap(
            "Jours de congé ou d'absence",
            10.0,
            face.width("Jours de congé", 10.0) + 0.1,
        );
        assert_eq!(lines, ["Jours de congé", "ou d'absence"]);
        assert_eq!(face.wrap("a\nb", 10.0, 100.0), ["a", "b"]);
        let narrow = face.width("Casse-croû", 10.0);
        assert_eq!(face.wrap("Casse-croûte", 10.0, narrow), ["Casse-", "croûte"]);
        let glyphs = face.glyphs("é1");
        assert_eq!(glyphs.len(), 2);
        assert_eq!(
            (glyphs[0].text_range.clone(), glyphs[1].text_range.clone()),
            (0..2, 2..3)
        );
    }
}
