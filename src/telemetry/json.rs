//! The JSON log line (`--log-format json`): the bytes of `tracing-subscriber`'s JSON format as
//! `logging` configures it (the event's fields flattened into the object, the current span
//! under `span`, no span list), written straight into the line.
//!
//! Why: the crate's JSON format builds a map of each span's fields, serializes it to text, and
//! parses that text back into a map for every line written inside the span, then serializes
//! it again; every line also formats its time stamp's calendar. Measured with callgrind on
//! `{ __typename }` (SQLite, one access line a request): 99.7k instructions a request with the
//! crate's JSON line, 67.9k with no line. Here a span's fields are serialized once, sorted by
//! name as the crate's map sorts them, and copied into each line as they are; strings are
//! escaped as `serde_json` escapes them, numbers written by `itoa` and `zmij` as it writes them.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_log::NormalizeEvent;
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// Formats a whole line as one JSON object.
#[derive(Clone, Copy, Debug, Default)]
pub struct Line;

/// Formats a span's fields, once, as the members of a JSON object sorted by name
/// (`"method":"POST","request_id":"…"`), kept with the span.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fields;

impl<S> FormatEvent<S, Fields> for Line
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, Fields>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        writer.write_str("{\"timestamp\":\"")?;
        // A clock before 1970 fails before anything is written: the stamp is then empty.
        let _ = super::text::write_stamp(&mut writer);
        writer.write_str("\",\"level\":\"")?;
        writer.write_str(level(*meta.level()))?;
        writer.write_char('"')?;
        // The event's own fields, in their order, named as they were written (the crate's
        // `SerdeMapVisitor`: `log.` fields and `r#` prefixes kept).
        let mut visitor = EventFields {
            writer: writer.by_ref(),
            result: Ok(()),
        };
        event.record(&mut visitor);
        visitor.result?;
        writer.write_str(",\"target\":")?;
        write_string(&mut writer, meta.target())?;
        let current = event
            .parent()
            .and_then(|id| ctx.span(id))
            .or_else(|| ctx.lookup_current());
        if let Some(span) = current {
            writer.write_str(",\"span\":{")?;
            if let Some(fields) = span.extensions().get::<FormattedFields<Fields>>()
                && !fields.is_empty()
            {
                writer.write_str(fields)?;
                writer.write_char(',')?;
            }
            writer.write_str("\"name\":")?;
            write_string(&mut writer, span.metadata().name())?;
            writer.write_char('}')?;
        }
        writer.write_str("}\n")
    }
}

impl<'writer> FormatFields<'writer> for Fields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut members = Members::default();
        fields.record(&mut members);
        members.write(writer)
    }

    /// Fields recorded after the span's creation join the others in name order, a value
    /// replacing an earlier one of the same name (rare: the middleware records the path of an
    /// unknown route this way).
    fn add_fields(
        &self,
        current: &'writer mut FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> fmt::Result {
        let mut members = Members::default();
        if !current.is_empty() {
            let parsed: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&format!("{{{}}}", current.fields)).map_err(|_| fmt::Error)?;
            members.0 = parsed
                .into_iter()
                .map(|(name, value)| (name, value.to_string()))
                .collect();
        }
        fields.record(&mut members);
        current.fields.clear();
        members.write(current.as_writer())
    }
}

fn level(level: Level) -> &'static str {
    match level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => "INFO",
        Level::WARN => "WARN",
        Level::ERROR => "ERROR",
    }
}

/// The event's fields as members of the line's object.
struct EventFields<'a> {
    writer: Writer<'a>,
    result: fmt::Result,
}

impl EventFields<'_> {
    fn member(&mut self, field: &Field, value: impl FnOnce(&mut Writer<'_>) -> fmt::Result) {
        if self.result.is_ok() {
            self.result = (|| {
                self.writer.write_char(',')?;
                write_string(&mut self.writer, field.name())?;
                self.writer.write_char(':')?;
                value(&mut self.writer)
            })();
        }
    }
}

impl Visit for EventFields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.member(field, |w| write_string(w, value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.member(field, |w| w.write_str(itoa::Buffer::new().format(value)));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.member(field, |w| w.write_str(itoa::Buffer::new().format(value)));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.member(field, |w| w.write_str(if value { "true" } else { "false" }));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.member(field, |w| write_f64(w, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.member(field, |w| write_debug(w, value));
    }
}

/// A span's fields: name and JSON value, in name order, one per name (the last written).
#[derive(Default)]
struct Members(Vec<(String, String)>);

impl Members {
    fn set(&mut self, field: &Field, value: String) {
        // The crate's span visitor leaves out `log.` fields and drops a `r#` prefix.
        let name = field.name();
        if name.starts_with("log.") {
            return;
        }
        let name = name.strip_prefix("r#").unwrap_or(name);
        match self.0.binary_search_by(|(known, _)| known.as_str().cmp(name)) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (name.to_owned(), value)),
        }
    }

    fn write(&self, mut writer: Writer<'_>) -> fmt::Result {
        for (i, (name, value)) in self.0.iter().enumerate() {
            if i > 0 {
                writer.write_char(',')?;
            }
            write_string(&mut writer, name)?;
            writer.write_char(':')?;
            writer.write_str(value)?;
        }
        Ok(())
    }

    fn value(write: impl FnOnce(&mut String) -> fmt::Result) -> String {
        let mut text = String::new();
        // Writing into a `String` fails only if a value's own `Debug` fails; the crate then
        // stores what was written, as this does.
        let _ = write(&mut text);
        text
    }
}

impl Visit for Members {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field, Members::value(|w| write_string(w, value)));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.set(field, itoa::Buffer::new().format(value).to_owned());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field, itoa::Buffer::new().format(value).to_owned());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(field, if value { "true" } else { "false" }.to_owned());
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(field, Members::value(|w| write_f64(w, value)));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.set(field, Members::value(|w| write_debug(w, value)));
    }
}

/// A float as `serde_json` writes it: `null` when not finite.
fn write_f64(writer: &mut impl fmt::Write, value: f64) -> fmt::Result {
    if value.is_finite() {
        writer.write_str(zmij::Buffer::new().format_finite(value))
    } else {
        writer.write_str("null")
    }
}

/// A value's `Debug` text as a JSON string.
fn write_debug(writer: &mut impl fmt::Write, value: &dyn fmt::Debug) -> fmt::Result {
    writer.write_char('"')?;
    write!(Escaped(&mut *writer), "{value:?}")?;
    writer.write_char('"')
}

/// A JSON string.
fn write_string(writer: &mut impl fmt::Write, text: &str) -> fmt::Result {
    writer.write_char('"')?;
    Escaped(&mut *writer).write_str(text)?;
    writer.write_char('"')
}

/// Text inside a JSON string, escaped as `serde_json` escapes it: `"`, `\` and the control
/// characters below 0x20 (`\n`, `\t`… or `\u00XX`); everything else as it is.
struct Escaped<W>(W);

impl<W: fmt::Write> fmt::Write for Escaped<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut start = 0;
        for (at, byte) in text.bytes().enumerate() {
            let escape = match byte {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0x00..=0x1f => "",
                _ => continue,
            };
            self.0.write_str(&text[start..at])?;
            if escape.is_empty() {
                write!(self.0, "\\u{byte:04x}")?;
            } else {
                self.0.write_str(escape)?;
            }
            start = at + 1;
        }
        self.0.write_str(&text[start..])
    }
}

#[cfg(test)]
mod tests {
    use tracing::{Level, info, info_span, warn};

    use crate::telemetry::captured::Captured;

    #[derive(Debug)]
    struct Failure;

    impl std::fmt::Display for Failure {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the \"write\" failed")
        }
    }

    impl std::error::Error for Failure {}

    /// The lines `events` writes through the crate's JSON format as `logging` configured it,
    /// and through ours.
    fn both(events: impl Fn()) -> (String, String) {
        let theirs = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(Level::TRACE)
            .with_writer(theirs.clone())
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .finish();
        tracing::subscriber::with_default(subscriber, &events);
        let ours = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(Level::TRACE)
            .with_ansi(false)
            .with_writer(ours.clone())
            .fmt_fields(super::Fields)
            .event_format(super::Line)
            .finish();
        tracing::subscriber::with_default(subscriber, &events);
        (theirs.text(), ours.text())
    }

    /// The lines without their time stamps (`{"timestamp":"` and 27 characters).
    fn untimed(text: &str) -> Vec<String> {
        text.lines()
            .map(|line| format!("{}{}", &line[..14], &line[41..]))
            .collect()
    }

    #[test]
    fn lines_are_the_crates_json_lines() {
        let (theirs, ours) = both(|| {
            info!("a bare message");
            let request =
                info_span!("request", request_id = %"4d31890a4677-1", method = %"POST", route = "/api/graphql");
            let _entered = request.enter();
            info!(target: "roadlog::access", status = 200u16, latency_ms = 0.766, "request");
            let inner = info_span!(
                "inner",
                zeta = 7u64,
                r#type = "drive",
                alpha = tracing::field::Empty,
                ratio = f64::NAN,
                flag = false,
                negative = -3i64,
                shown = ?Some("x")
            );
            inner.record("alpha", "filled \"later\"");
            inner.record("zeta", 8u64);
            let _inner = inner.enter();
            warn!(
                count = 3i64,
                flag = true,
                quoted = "a \"quoted\" \\ text\n\ttabbed \x1b[31m é \u{9b}",
                debug = ?vec!["a", "b"],
                display = %"shown as it is",
                whole = 1.0,
                tiny = 1e-7,
                huge = 1e300,
                not_a_number = f64::INFINITY,
                r#type = "kept with its prefix",
                log.origin = "a log. field",
                error = &Failure as &(dyn std::error::Error + 'static),
                "a message with {} and {:?}",
                "arguments",
                "debug"
            );
            drop(_inner);
            tracing::error!(parent: &inner, alone = 1u64);
            tracing::trace!(target: "some::library", "the other levels");
        });
        assert_eq!(untimed(&ours), untimed(&theirs), "ours:\n{ours}\ntheirs:\n{theirs}");
        assert_eq!(ours.lines().count(), 5);
        for line in ours.lines() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let stamp = value["timestamp"].as_str().unwrap();
            chrono::DateTime::parse_from_rfc3339(stamp).unwrap();
        }
        assert!(
            ours.contains(
                r#""level":"INFO","message":"request","status":200,"latency_ms":0.766,"target":"roadlog::access","span":{"method":"POST","request_id":"4d31890a4677-1","route":"/api/graphql","name":"request"}}"#
            ),
            "{ours}"
        );
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let samples = [
            "",
            "plain",
            "\"\\/",
            "\u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f}",
            "é\u{9b}\u{2028}😀",
            "\r\n\t",
        ];
        for sample in samples {
            let mut ours = String::new();
            super::write_string(&mut ours, sample).unwrap();
            assert_eq!(ours, serde_json::to_string(sample).unwrap(), "{sample:?}");
        }
    }
}
