//! The languages of the pages and e-mails meant for people (account pages, invitation, password
//! reset, confirmation): English and French, chosen from the request's `Accept-Language` (RFC
//! 9110 §12.5.4). A small negotiation, not a framework: two languages do not need one.

/// A language the pages and e-mails are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Fr,
}

impl Lang {
    /// The BCP 47 tag, for `<html lang>` and `Content-Language`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
        }
    }

    /// The language an `Accept-Language` value prefers: the range with the highest weight that
    /// names one of ours (`fr`, `fr-CA`, `en-GB`, …; `*` stands for English), the first written
    /// on a tie; English when nothing matches, when the header is absent or unreadable. A weight
    /// of 0 means "not this one". Ill-formed weights count as 1, as lenient parsers do.
    pub fn negotiate(header: Option<&str>) -> Lang {
        Lang::stated(header).unwrap_or(Lang::En)
    }

    /// The language an `Accept-Language` value prefers, as [`Lang::negotiate`] reads it, or
    /// `None` when it names neither of ours (what a new account stores: French then, the
    /// service's default for its users' e-mails).
    pub fn stated(header: Option<&str>) -> Option<Lang> {
        let header = header?;
        let mut best: Option<(u16, Lang)> = None;
        // At most 32 ranges are read: a header of thousands of ranges costs no more.
        for range in header.split(',').take(32) {
            let mut parts = range.split(';');
            let tag = parts.next().unwrap_or("").trim();
            let weight = parts
                .find_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
                .map_or(1000, parse_weight);
            let primary = tag.split('-').next().unwrap_or("").to_ascii_lowercase();
            let lang = match primary.as_str() {
                "fr" => Lang::Fr,
                "en" | "*" => Lang::En,
                _ => continue,
            };
            if weight == 0 {
                continue;
            }
            if best.is_none_or(|(w, _)| weight > w) {
                best = Some((weight, lang));
            }
        }
        best.map(|(_, lang)| lang)
    }
}

/// A `q` value in thousandths (`0.8` → 800), 1000 when it cannot be read.
fn parse_weight(text: &str) -> u16 {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let whole = match whole {
        "0" => 0,
        "1" => 1000,
        _ => return 1000,
    };
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return 1000;
    }
    let digits = format!("{fraction:0<3}");
    let thousandths: u16 = digits.parse().unwrap_or(0);
    if whole == 1000 { 1000 } else { thousandths }
}

#[cfg(test)]
mod tests {
    use super::Lang;

    #[test]
    fn negotiates_english_or_french() {
        let cases = [
            (None, Lang::En),
            (Some(""), Lang::En),
            (Some("fr"), Lang::Fr),
            (Some("fr-FR,fr;q=0.9,en;q=0.8"), Lang::Fr),
            (Some("en-GB,en;q=0.9,fr;q=0.8"), Lang::En),
            (Some("de-DE,de;q=0.9,fr;q=0.5"), Lang::Fr),
            (Some("de, it"), Lang::En),
            (Some("en;q=0.2, fr;q=0.7"), Lang::Fr),
            (Some("fr;q=0, en;q=0.1"), Lang::En),
            (Some("fr;q=0"), Lang::En),
            (Some("FR-ca"), Lang::Fr),
            (Some("*;q=0.5, fr;q=0.4"), Lang::En),
            (Some("fr;q=0.500, en;q=0.5"), Lang::Fr),
            (Some("fr;q=nonsense"), Lang::Fr),
            (Some(";;;,,,"), Lang::En),
        ];
        for (header, expected) in cases {
            assert_eq!(Lang::negotiate(header), expected, "{header:?}");
        }
        assert_eq!(Lang::Fr.tag(), "fr");
    }
}
