//! A linear pass over the document text before it is parsed. The parser descends recursively
//! into every nested selection, list, object and argument list, so a document nested a few
//! thousand levels deep would exhaust the stack and abort the process; this pass counts the
//! nesting with a counter instead, and refuses such a document (and an oversized one) before
//! the parser sees it.

use super::{Limits, Refusal};

/// The position of a character, 1-based, as GraphQL errors give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// What the pass learnt.
#[derive(Debug, Default)]
pub struct Scanned {
    pub tokens: usize,
    pub deepest: usize,
}

/// Checks size, token count and bracket nesting (`{`, `[`, `(` together).
pub fn scan(document: &str, limits: &Limits) -> Result<Scanned, Refusal> {
    if document.len() > limits.document_bytes {
        return Err(Refusal::new(format!(
            "The document is {} bytes long; the limit is {} bytes.",
            document.len(),
            limits.document_bytes
        )));
    }
    let bytes = document.as_bytes();
    let mut scanned = Scanned::default();
    let mut depth = 0usize;
    let (mut line, mut line_start) = (1usize, 0usize);
    let mut i = 0;
    let position = |i: usize, line: usize, line_start: usize| Position {
        line,
        column: document[line_start..i].chars().count() + 1,
    };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'\r' => {
                line += 1;
                i += 1;
                if bytes.get(i) == Some(&b'\n') {
                    i += 1;
                }
                line_start = i;
            }
            b' ' | b'\t' | b',' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
            }
            b'"' => {
                scanned.tokens += 1;
                if bytes[i..].starts_with(b"\"\"\"") {
                    // Block string: ends at an unescaped `"""`.
                    i += 3;
                    loop {
                        if i >= bytes.len() {
                            break;
                        }
                        if bytes[i..].starts_with(b"\\\"\"\"") {
                            i += 4;
                        } else if bytes[i..].starts_with(b"\"\"\"") {
                            i += 3;
                            break;
                        } else {
                            if bytes[i] == b'\n' {
                                line += 1;
                                line_start = i + 1;
                            }
                            i += 1;
                        }
                    }
                } else {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
            }
            b'{' | b'[' | b'(' => {
                scanned.tokens += 1;
                depth += 1;
                scanned.deepest = scanned.deepest.max(depth);
                if depth > limits.nesting {
                    return Err(Refusal::at(
                        format!("The document nests deeper than {} levels.", limits.nesting),
                        position(i, line, line_start),
                    ));
                }
                i += 1;
            }
            b'}' | b']' | b')' => {
                scanned.tokens += 1;
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => {
                // A name, a number, or punctuation: one token up to the next separator.
                scanned.tokens += 1;
                if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
                    while i < bytes.len()
                        && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'.' | b'-' | b'+'))
                    {
                        i += 1;
                    }
                } else if bytes[i..].starts_with(b"...") {
                    i += 3;
                } else {
                    // Multi-byte characters are skipped whole (they only appear in strings and
                    // comments of a valid document; elsewhere the parser reports them).
                    i += utf8_width(b);
                }
            }
        }
        if scanned.tokens > limits.tokens {
            return Err(Refusal::at(
                format!("The document has more than {} tokens.", limits.tokens),
                position(i.min(bytes.len()), line, line_start),
            ));
        }
    }
    Ok(scanned)
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            nesting: 8,
            tokens: 100,
            document_bytes: 1000,
            ..Limits::default()
        }
    }

    #[test]
    fn nesting_is_counted_without_recursion() {
        let deep = format!("{{ a(x: {}1{}) }}", "[".repeat(20), "]".repeat(20));
        let refused = scan(&deep, &limits()).unwrap_err();
        assert_eq!(refused.message, "The document nests deeper than 8 levels.");
        assert_eq!(refused.locations, vec![Position { line: 1, column: 14 }]);
        let fine = "{ me { id employments { id } } }";
        assert_eq!(scan(fine, &limits()).unwrap().deepest, 3);
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = "# {{{{{{{{{{\n{ a(s: \"[[[[[[[[[[\\\"\", b: \"\"\"{{{{{{{{{{\"\"\") }";
        assert_eq!(scan(text, &limits()).unwrap().deepest, 2);
    }

    #[test]
    fn size_and_tokens_are_bounded() {
        assert!(
            scan(&"a ".repeat(600), &limits())
                .unwrap_err()
                .message
                .contains("bytes long")
        );
        let refused = scan(&"a ".repeat(150), &limits()).unwrap_err();
        assert!(refused.message.contains("more than 100 tokens"), "{}", refused.message);
    }

    #[test]
    fn positions_follow_lines() {
        let text = "{\n  a {\n   b { c { d { e { f { g { h { i } } } } } } }\n  }\n}";
        let refused = scan(text, &limits()).unwrap_err();
        assert_eq!(refused.locations, vec![Position { line: 3, column: 30 }]);
    }
}
