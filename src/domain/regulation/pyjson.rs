//! JSON text exactly as the reference's clients receive it. The reference stores `extra` and
//! `variables` in PostgreSQL `jsonb` columns, which reorder object keys (shorter keys first, then
//! byte order), and prints them back with Python's `json.dumps` (`", "` and `": "` separators,
//! non-ASCII escaped as `\uXXXX`, floats with a decimal point). `RegulatoryAlert.extra` and
//! `RegulationCheck.variables` are such strings, so Roadlog writes them the same way.

use serde_json::Value;

/// `json.dumps(value)` of the value read back from a `jsonb` column.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value);
    out
}

fn write(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes())));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                string(out, key);
                out.push_str(": ");
                write(out, &map[key]);
            }
            out.push('}');
        }
    }
}

fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as the reference computed it: an `int`, which becomes a `float` once a
/// `timedelta.total_seconds()` is added to it (`45000.0` in `extra`, where an untouched
/// counter stays `0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PyNum {
    pub value: i64,
    pub float: bool,
}

impl PyNum {
    pub const ZERO: PyNum = PyNum { value: 0, float: false };

    /// Adds a `total_seconds()` (a float).
    pub fn plus_seconds(self, seconds: i64) -> PyNum {
        PyNum {
            value: self.value + seconds,
            float: true,
        }
    }

    /// Adds an `int`.
    pub fn plus_int(self, value: i64) -> PyNum {
        PyNum {
            value: self.value + value,
            float: self.float,
        }
    }

    /// A float (`total_seconds()`).
    pub fn seconds(value: i64) -> PyNum {
        PyNum { value, float: true }
    }

    pub fn json(self) -> Value {
        if self.float {
            Value::from(self.value as f64)
        } else {
            Value::from(self.value)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{PyNum, dumps};

    #[test]
    fn counters_become_floats_once_seconds_are_added() {
        assert_eq!(dumps(&PyNum::ZERO.json()), "0");
        assert_eq!(dumps(&PyNum::ZERO.plus_seconds(45000).json()), "45000.0");
        assert_eq!(dumps(&PyNum::ZERO.plus_int(86400).json()), "86400");
    }

    #[test]
    fn keys_in_jsonb_order_with_python_separators() {
        let value = json!({"sanction_code": "NATINF 11292", "night_work": false, "work_range_in_seconds": 45000.0, "max_work_range_in_hours": 12});
        assert_eq!(
            dumps(&value),
            r#"{"night_work": false, "sanction_code": "NATINF 11292", "work_range_in_seconds": 45000.0, "max_work_range_in_hours": 12}"#
        );
    }

    #[test]
    fn non_ascii_is_escaped_like_ensure_ascii() {
        assert_eq!(
            dumps(&json!(["é’", "a\"b", null, [1, true]])),
            r#"["\u00e9\u2019", "a\"b", null, [1, true]]"#
        );
        assert_eq!(dumps(&json!("🚚")), r#""\ud83d\ude9a""#);
    }
}
