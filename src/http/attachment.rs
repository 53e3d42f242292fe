//! `Content-Disposition: attachment` for a file name that may hold accents: an ASCII `filename`
//! (accents folded, other characters replaced) for old clients, and the exact name in an RFC 5987
//! `filename*=UTF-8''…` that current clients prefer.

/// The header's value for a download named `name`.
pub fn content_disposition(name: &str) -> String {
    format!(
        "attachment; filename=\"{}\"; filename*=UTF-8''{}",
        ascii_fold(name),
        encode(name)
    )
}

/// The name in ASCII: accented Latin letters lose their accent, ligatures are spelled out,
/// quotes, backslashes, control and other characters become `_`.
pub fn ascii_fold(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let folded = match c {
            'à' | 'â' | 'ä' | 'á' | 'ã' | 'å' => "a",
            'À' | 'Â' | 'Ä' | 'Á' | 'Ã' | 'Å' => "A",
            'ç' => "c",
            'Ç' => "C",
            'é' | 'è' | 'ê' | 'ë' => "e",
            'É' | 'È' | 'Ê' | 'Ë' => "E",
            'î' | 'ï' | 'í' | 'ì' => "i",
            'Î' | 'Ï' | 'Í' | 'Ì' => "I",
            'ô' | 'ö' | 'ó' | 'ò' | 'õ' => "o",
            'Ô' | 'Ö' | 'Ó' | 'Ò' | 'Õ' => "O",
            'ù' | 'û' | 'ü' | 'ú' => "u",
            'Ù' | 'Û' | 'Ü' | 'Ú' => "U",
            'ÿ' | 'ý' => "y",
            'Ÿ' | 'Ý' => "Y",
            'ñ' => "n",
            'Ñ' => "N",
            'œ' => "oe",
            'Œ' => "OE",
            'æ' => "ae",
            'Æ' => "AE",
            c if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' => {
                out.push(c);
                continue;
            }
            _ => "_",
        };
        out.push_str(folded);
    }
    out
}

/// RFC 5987 value characters: the others are percent-encoded bytes of UTF-8.
fn encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len() * 3);
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_are_folded_and_kept_in_the_extended_name() {
        assert_eq!(
            content_disposition("rapport_activités.xlsx"),
            "attachment; filename=\"rapport_activites.xlsx\"; filename*=UTF-8''rapport_activit%C3%A9s.xlsx"
        );
        assert_eq!(ascii_fold("Relevé d'heures \"x\"\\y\u{7}"), "Releve d'heures _x__y_");
        assert_eq!(ascii_fold("Œuvre ÇA/b"), "OEuvre CA/b");
    }
}
