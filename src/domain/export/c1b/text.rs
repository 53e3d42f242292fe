//! Text fields: `Name` (code page byte + ISO 8859-1 text), IA5 strings, and the ASCII fold used when a character
//! cannot be written.
//!
//! Why these rules: Annex 1B allows in a Name only ASCII and the codes 192–255 of the announced ISO 8859 part
//! (we always announce part 1, Latin-1, code page `01`); IA5 fields (card number, file names) are plain ASCII.
//! Anything else is folded to ASCII with a small table of common accented letters (Polish, Czech, Romanian,
//! Turkish, Hungarian, French ligatures…), and what remains becomes `?`, so that a name is never dropped.

/// Code page byte of ISO/IEC 8859-1.
pub const CODE_PAGE_LATIN1: u8 = 0x01;

/// Upper-case ASCII spelling of a letter that has no place in the allowed Latin-1 range.
fn fold_upper(c: char) -> Option<&'static str> {
    let upper = c.to_uppercase().next().unwrap_or(c);
    Some(match upper {
        'À'..='Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'Æ' => "AE",
        'Ç' | 'Ć' | 'Ĉ' | 'Ċ' | 'Č' => "C",
        'Ð' | 'Ď' | 'Đ' => "D",
        'È'..='Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => "E",
        'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => "G",
        'Ĥ' | 'Ħ' => "H",
        'Ì'..='Ï' | 'Ĩ' | 'Ī' | 'Ĭ' | 'Į' | 'İ' => "I",
        'Ĳ' => "IJ",
        'Ĵ' => "J",
        'Ķ' => "K",
        'Ĺ' | 'Ļ' | 'Ľ' | 'Ŀ' | 'Ł' => "L",
        'Ñ' | 'Ń' | 'Ņ' | 'Ň' | 'Ŋ' => "N",
        'Ò'..='Ö' | 'Ø' | 'Ō' | 'Ŏ' | 'Ő' => "O",
        'Œ' => "OE",
        'Ŕ' | 'Ŗ' | 'Ř' => "R",
        'Ś' | 'Ŝ' | 'Ş' | 'Š' | 'Ș' => "S",
        'Ţ' | 'Ť' | 'Ŧ' | 'Ț' => "T",
        'Þ' => "TH",
        'Ù'..='Ü' | 'Ũ' | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => "U",
        'Ŵ' => "W",
        'Ý' | 'Ŷ' | 'Ÿ' => "Y",
        'Ź' | 'Ż' | 'Ž' => "Z",
        _ => return fold_special(c),
    })
}

/// Letters whose upper case is not one character, and punctuation.
fn fold_special(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "SS",
        'ı' => "I",
        'ĸ' => "K",
        'ŉ' => "N",
        'ſ' => "S",
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' | '`' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '«' | '»' => "\"",
        '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' => " ",
        '·' => ".",
        _ => return None,
    })
}

/// ASCII spelling of one character (`?` when unknown); case is kept.
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(if c.is_ascii_control() { ' ' } else { c });
    } else if c.is_whitespace() {
        out.push(' ');
    } else if let Some(folded) = fold_upper(c) {
        if c.is_lowercase() {
            out.push_str(&folded.to_ascii_lowercase());
        } else {
            out.push_str(folded);
        }
    } else {
        out.push('?');
    }
}

/// Folds a text to printable ASCII (accents dropped, unknown characters `?`).
pub fn ascii_fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// Latin-1 bytes of `text` as allowed in a Name / VehicleRegistrationNumber: ASCII, Latin-1 192–255 as is,
/// everything else folded. Space-padded or truncated to `len`.
pub fn latin1_field(text: &str, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut folded = String::new();
    for c in text.trim().chars() {
        if ('\u{C0}'..='\u{FF}').contains(&c) {
            out.push(c as u32 as u8);
        } else {
            folded.clear();
            fold_char(c, &mut folded);
            out.extend_from_slice(folded.as_bytes());
        }
        if out.len() >= len {
            break;
        }
    }
    out.resize(len, b' ');
    out
}

/// A `Name` (36 bytes): code page `01` + 35 bytes of Latin-1 text; an empty text gives the default
/// `00` + 35 spaces.
pub fn name(text: &str) -> [u8; 36] {
    let mut out = [b' '; 36];
    if text.trim().is_empty() {
        out[0] = 0;
    } else {
        out[0] = CODE_PAGE_LATIN1;
        out[1..].copy_from_slice(&latin1_field(text, 35));
    }
    out
}

/// IA5String(len): ASCII, space-padded or truncated.
pub fn ia5(text: &str, len: usize) -> Vec<u8> {
    let mut out = ascii_fold(text.trim()).into_bytes();
    out.resize(len, b' ');
    out
}

/// Text of a code-page-prefixed string (Name, VRN): Latin-1 for code pages 0 and 1, otherwise ASCII with `?`
/// for the bytes whose meaning depends on the code page. Trailing spaces and NULs are removed.
pub fn decode_code_paged(bytes: &[u8]) -> String {
    let (code_page, text) = (bytes[0], &bytes[1..]);
    let s: String = text
        .iter()
        .map(|&b| match b {
            0x20..=0x7E => b as char,
            0xA0..=0xFF if code_page <= 1 => b as char,
            _ => '?',
        })
        .collect();
    trim_padding(&s, text)
}

/// Text of an IA5 string, trailing spaces and NULs removed.
pub fn decode_ia5(bytes: &[u8]) -> String {
    let s: String = bytes
        .iter()
        .map(|&b| if (0x20..=0x7E).contains(&b) { b as char } else { '?' })
        .collect();
    trim_padding(&s, bytes)
}

fn trim_padding(s: &str, raw: &[u8]) -> String {
    // NUL padding would have become '?': cut the decoded text at the raw trailing NULs first.
    let kept = raw.len() - raw.iter().rev().take_while(|&&b| b == 0).count();
    s.chars().take(kept).collect::<String>().trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_common_accents() {
        assert_eq!(
            ascii_fold("Éloïse Œdipe-Łukasz Čapek ßtraße"),
            "Eloise OEdipe-Lukasz Capek sstrasse"
        );
        assert_eq!(ascii_fold("Ștefan Țurcanu Şahin ığ Ő"), "Stefan Turcanu Sahin ig O");
        assert_eq!(ascii_fold("O’Brien – 東京"), "O'Brien - ??");
    }

    #[test]
    fn name_keeps_latin1_and_folds_the_rest() {
        // "Zoé Łęcka": Z o = 5A 6F, é = U+00E9 → E9 (Latin-1 192..255 kept), space, Ł → 'L', ę → 'e',
        // c k a; then 26 spaces to 35 bytes; code page 01 first.
        let n = name("Zoé Łęcka");
        let mut expected = vec![0x01, 0x5A, 0x6F, 0xE9, 0x20, b'L', b'e', b'c', b'k', b'a'];
        expected.resize(36, 0x20);
        assert_eq!(n.to_vec(), expected);
        assert_eq!(decode_code_paged(&n), "Zoé Lecka");
    }

    #[test]
    fn empty_name_is_the_default_value() {
        let mut expected = vec![0x00];
        expected.resize(36, 0x20);
        assert_eq!(name("  ").to_vec(), expected);
        assert_eq!(decode_code_paged(&expected), "");
    }

    #[test]
    fn long_names_are_truncated_to_35_bytes() {
        let n = name(&"Œ".repeat(20)); // 20 × "OE" = 40 bytes → first 35.
        assert_eq!(&n[1..], &"OE".repeat(20).as_bytes()[..35]);
    }

    #[test]
    fn latin1_symbols_below_192_are_folded() {
        // '«' (AB) and '·' (B7) are Latin-1 but outside 192–255: folded to '"' and '.'; '×' (D7) is kept.
        assert_eq!(latin1_field("«a·b×»", 6), vec![b'"', b'a', b'.', b'b', 0xD7, b'"']);
    }

    #[test]
    fn ia5_is_ascii_padded() {
        assert_eq!(ia5("Mühle", 8), b"Muhle   ".to_vec());
        assert_eq!(decode_ia5(b"AB  \0\0"), "AB");
    }
}
