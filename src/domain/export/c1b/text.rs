//! Text fields: code-paged text (`Name`, vehicle registration number: one code-page byte + single-byte text),
//! IA5 strings, and the ASCII transliteration used where no code page holds a character and for file names.
//!
//! Why these rules: a reader decodes a Name in the ISO/IEC 8859 part its first byte announces, so each text
//! announces the part that writes it exactly (see `code_pages`). Only a character that the chosen part does not
//! hold is transliterated to ASCII (Ł → L, Щ → Shch, 東 → Dong), case kept, so that a name is never written as
//! `?` nor left empty. IA5 fields (card number, file names) are plain ASCII, transliterated the same way.

use super::code_pages::{best_part, decode_byte, encode_char, is_known};

/// ASCII spelling of one character: itself when printable ASCII, a space for any space or control character,
/// otherwise its transliteration (empty when there is none).
fn push_ascii(c: char, out: &mut String) {
    if (' '..='~').contains(&c) {
        out.push(c);
    } else if c.is_whitespace() || c.is_control() {
        out.push(' ');
    } else if let Some(latin) = deunicode::deunicode_char(c) {
        out.extend(latin.chars().filter(|l| (' '..='~').contains(l)));
    }
}

/// Runs of spaces as one (transliterations of CJK characters end with a separating space). Only the space
/// byte is touched, so this is safe on code-paged text too.
fn collapse_spaces(bytes: &mut Vec<u8>) {
    bytes.dedup_by(|next, previous| *next == b' ' && *previous == b' ');
}

/// Transliterates a text to printable ASCII (Иван → Ivan, Γιώργος → Giorgos, Łęcka → Lecka).
pub fn transliterate(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_ascii(c, &mut out);
    }
    let mut bytes = out.into_bytes();
    collapse_spaces(&mut bytes);
    String::from_utf8(bytes).unwrap_or_default()
}

/// A code-paged text of `1 + len` bytes: the ISO/IEC 8859 part that holds the trimmed text best, then its
/// bytes, characters the part lacks transliterated, space-padded or truncated to `len`. An empty text gives the
/// default `00` + `len` spaces.
pub fn code_paged(text: &str, len: usize) -> Vec<u8> {
    let text: String = text
        .trim()
        .chars()
        .map(|c| if c.is_whitespace() || c.is_control() { ' ' } else { c })
        .collect();
    let mut out = Vec::with_capacity(1 + len);
    if text.is_empty() {
        out.push(0);
        out.resize(1 + len, b' ');
        return out;
    }
    let part = best_part(&text);
    out.push(part);
    let mut latin = String::new();
    for c in text.chars() {
        match encode_char(part, c) {
            Some(byte) => out.push(byte),
            None => {
                latin.clear();
                push_ascii(c, &mut latin);
                out.extend_from_slice(latin.as_bytes());
            }
        }
    }
    collapse_spaces(&mut out);
    out.truncate(1 + len);
    out.resize(1 + len, b' ');
    out
}

/// A `Name` (36 bytes): code-page byte + 35 bytes of text.
pub fn name(text: &str) -> [u8; 36] {
    let mut out = [b' '; 36];
    out.copy_from_slice(&code_paged(text, 35));
    out
}

/// IA5String(len): ASCII (transliterated), space-padded or truncated.
pub fn ia5(text: &str, len: usize) -> Vec<u8> {
    let mut out = transliterate(text.trim()).into_bytes();
    out.resize(len, b' ');
    out
}

/// Text of a code-paged string (Name, VRN), decoded in the announced part (code page `00`, "no information",
/// as Latin-1); U+FFFD for a byte the part does not define or for an unknown part. Trailing spaces and NULs are
/// removed.
pub fn decode_code_paged(bytes: &[u8]) -> String {
    let (code_page, text) = (bytes[0], &bytes[1..]);
    let part = if code_page == 0 { 1 } else { code_page };
    let s: String = text
        .iter()
        .map(|&b| match decode_byte(part, b) {
            Some(c) => c,
            None if b == 0xA0 && is_known(part) => ' ',
            None => '\u{FFFD}',
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
    // NUL padding would have become a replacement character: cut the decoded text at the raw trailing NULs first.
    let kept = raw.len() - raw.iter().rev().take_while(|&&b| b == 0).count();
    s.chars().take(kept).collect::<String>().trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn padded(code_page: u8, text: &[u8]) -> Vec<u8> {
        let mut v = vec![code_page];
        v.extend_from_slice(text);
        v.resize(36, b' ');
        v
    }

    #[test]
    fn transliteration_is_ascii_and_never_a_question_mark() {
        assert_eq!(transliterate("Иван"), "Ivan");
        assert_eq!(transliterate("Γιώργος"), "Giorgos");
        assert_eq!(transliterate("Łęcka Żółć"), "Lecka Zolc");
        assert_eq!(transliterate("O’Brien\tPeña"), "O'Brien Pena");
        assert_eq!(transliterate("東京").trim_end(), "Dong Jing");
        assert_eq!(transliterate("李 Wei"), "Li Wei");
    }

    #[test]
    fn latin1_names_announce_part_1() {
        // "Zoé": Z o = 5A 6F, é = E9 in Latin-1.
        assert_eq!(name("Zoé").to_vec(), padded(0x01, &[0x5A, 0x6F, 0xE9]));
        assert_eq!(decode_code_paged(&name("Zoé")), "Zoé");
    }

    #[test]
    fn polish_cyrillic_and_greek_names_are_written_exactly() {
        // Latin-2: Ł = A3, ę = EA, Ż = AF, ó = F3, ł = B3.
        assert_eq!(
            name("Łęcka-Żółw").to_vec(),
            padded(0x02, &[0xA3, 0xEA, b'c', b'k', b'a', b'-', 0xAF, 0xF3, 0xB3, b'w'])
        );
        // Cyrillic (part 5): И = B8, в = D2, а = D0, н = DD.
        assert_eq!(name("Иван").to_vec(), padded(0x05, &[0xB8, 0xD2, 0xD0, 0xDD]));
        // Greek (part 7): Γ = C3, ι = E9, ώ = FE, ρ = F1, γ = E3, ο = EF, ς = F2.
        assert_eq!(
            name("Γιώργος").to_vec(),
            padded(0x07, &[0xC3, 0xE9, 0xFE, 0xF1, 0xE3, 0xEF, 0xF2])
        );
        for text in [
            "Łęcka-Żółw",
            "Иван Петрович",
            "Γιώργος Παπαδόπουλος",
            "Ąžuolas Šimkus",
            "Œdipe",
        ] {
            assert_eq!(decode_code_paged(&name(text)), text);
        }
    }

    #[test]
    fn what_no_part_holds_is_transliterated() {
        // Part 5 holds the Cyrillic letters; ü is not in it and becomes u.
        let n = name("Müller Иван");
        assert_eq!(n[0], 0x05);
        assert_eq!(decode_code_paged(&n), "Muller Иван");
        // No part holds CJK: the name is written in ASCII, never as '?'.
        let n = name("李 Wei");
        assert_eq!(n[0], 0x01);
        let decoded = decode_code_paged(&n);
        assert!(
            decoded.ends_with(" Wei") && !decoded.contains('?') && decoded.len() > 4,
            "{decoded}"
        );
    }

    #[test]
    fn spaces_and_empty_names() {
        // No-break space (160) and tabs are written as spaces; an empty name is the default `00` + spaces.
        assert_eq!(name("Anne\u{A0}Marie").to_vec(), padded(0x01, b"Anne Marie"));
        let mut empty = vec![0x00];
        empty.resize(36, 0x20);
        assert_eq!(name("  ").to_vec(), empty);
        assert_eq!(decode_code_paged(&empty), "");
    }

    #[test]
    fn long_names_are_truncated_to_35_bytes() {
        let n = name(&"Ж".repeat(40));
        assert_eq!(n[0], 0x05);
        assert!(n[1..].iter().all(|&b| b == 0xB6));
        // Transliterations count their ASCII length: "東" is in no part and becomes "Dong ".
        let n = name(&"東".repeat(40));
        assert_eq!(&n[1..], &"Dong ".repeat(7).as_bytes()[..35]);
    }

    #[test]
    fn unknown_code_pages_decode_to_replacement_characters() {
        let mut koi8 = vec![80, b'A', 0xC1];
        koi8.resize(14, b' ');
        assert_eq!(decode_code_paged(&koi8), "A\u{FFFD}");
    }

    #[test]
    fn ia5_is_ascii_padded() {
        assert_eq!(ia5("Mühle", 8), b"Muhle   ".to_vec());
        assert_eq!(decode_ia5(b"AB  \0\0"), "AB");
    }
}
