//! The plain-text log line (the human format when standard error is not a terminal, as under a
//! service manager or in a container): the bytes of `tracing-subscriber`'s default format
//! without colours, written without its generic machinery.
//!
//! Why: at the default level every request writes one access line, and formatting it the
//! generic way cost about 17,000 instructions a request (callgrind, `{ __typename }` on
//! SQLite: 84.6k instructions with the line, 67.9k without): colour styles painted as empty
//! strings around every piece, each value through `fmt::Debug` and a padding check, the time
//! stamp's calendar computed for every line. Here a time stamp's date and clock are computed
//! once a second per thread, integers and floats are written by `itoa` and `ryu`, strings that
//! need no escaping are copied as they are, and nothing is painted. On a terminal (colours on)
//! the crate's own formatter still runs.
//!
//! Control characters a terminal could act on (ESC, BEL, BS, FF, DEL, the C1 codes) are written
//! escaped in every value, where the crate escapes them only in messages and errors: a field
//! displayed with `%` cannot colour, move or clear the reader's terminal either.

use std::cell::RefCell;
use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_log::NormalizeEvent;
use tracing_subscriber::field::{RecordFields, VisitOutput};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// Formats a whole line: time stamp, level, the spans with their fields, target, fields.
#[derive(Clone, Copy, Debug, Default)]
pub struct Line;

/// Formats fields, of spans (kept with the span) and of events: `name=value` separated by
/// spaces, the message bare.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fields;

impl<S> FormatEvent<S, Fields> for Line
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, Fields>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        // Records forwarded from the `log` crate carry their real target and level in fields.
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        write_time(&mut writer)?;
        writer.write_str(level(*meta.level()))?;
        if let Some(scope) = ctx.event_scope() {
            let mut seen = false;
            for span in scope.from_root() {
                seen = true;
                writer.write_str(span.metadata().name())?;
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<Fields>>()
                    && !fields.is_empty()
                {
                    writer.write_char('{')?;
                    writer.write_str(fields)?;
                    writer.write_char('}')?;
                }
                writer.write_char(':')?;
            }
            if seen {
                writer.write_char(' ')?;
            }
        }
        writer.write_str(meta.target())?;
        writer.write_str(": ")?;
        let mut visitor = Visitor::new(writer.by_ref());
        event.record(&mut visitor);
        visitor.result?;
        writer.write_char('\n')
    }
}

impl<'writer> FormatFields<'writer> for Fields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut writer = writer;
        let mut visitor = Visitor::new(writer.by_ref());
        fields.record(&mut visitor);
        visitor.finish()
    }
}

/// The level padded to five characters, and the space after it.
fn level(level: Level) -> &'static str {
    match level {
        Level::TRACE => "TRACE ",
        Level::DEBUG => "DEBUG ",
        Level::INFO => " INFO ",
        Level::WARN => " WARN ",
        Level::ERROR => "ERROR ",
    }
}

thread_local! {
    /// The second last written by this thread and its text up to the seconds' dot
    /// (`2026-11-25T01:06:36.`).
    static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

/// The current time as RFC 3339 in UTC with microseconds (`2026-11-25T01:06:36.377580Z`), and a
/// space.
fn write_time(writer: &mut Writer<'_>) -> fmt::Result {
    if write_stamp(writer).is_err() {
        writer.write_str("<unknown time>")?;
    }
    writer.write_char(' ')
}

/// The current time as RFC 3339 in UTC with microseconds, as the crate's default timer writes
/// it (also the JSON line's `timestamp`); an error for a clock before 1970.
pub(super) fn write_stamp(writer: &mut impl fmt::Write) -> fmt::Result {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| fmt::Error)?;
    let (seconds, micros) = (since_epoch.as_secs(), since_epoch.subsec_micros());
    SECOND.with_borrow_mut(|(second, text)| {
        if *second != seconds {
            *second = u64::MAX;
            text.clear();
            second_text(seconds, text)?;
            *second = seconds;
        }
        writer.write_str(text)
    })?;
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(micros);
    writer.write_str(&"000000"[digits.len()..])?;
    writer.write_str(digits)?;
    writer.write_char('Z')
}

/// A second's text up to its dot.
fn second_text(seconds: u64, text: &mut String) -> fmt::Result {
    let time = i64::try_from(seconds)
        .ok()
        .and_then(|seconds| chrono::DateTime::from_timestamp(seconds, 0))
        .ok_or(fmt::Error)?;
    write!(text, "{}.", time.format("%Y-%m-%dT%H:%M:%S"))
}

/// Writes fields as the crate's default visitor does (see the module doc for escaping).
struct Visitor<'a> {
    writer: Writer<'a>,
    first: bool,
    result: fmt::Result,
}

impl<'a> Visitor<'a> {
    fn new(writer: Writer<'a>) -> Visitor<'a> {
        Visitor {
            writer,
            first: true,
            result: Ok(()),
        }
    }

    /// The separator and `name=`, or nothing for the message; `None` for a field not written
    /// (the `log.*` fields of a forwarded record, already in the line's target).
    fn start(&mut self, field: &Field) -> Option<bool> {
        let name = field.name();
        if self.result.is_err() || name.starts_with("log.") {
            return None;
        }
        let message = name == "message";
        self.result = (|| {
            if !std::mem::take(&mut self.first) {
                self.writer.write_char(' ')?;
            }
            if !message {
                self.writer.write_str(name.strip_prefix("r#").unwrap_or(name))?;
                self.writer.write_char('=')?;
            }
            Ok(())
        })();
        self.result.is_ok().then_some(message)
    }

    fn value(&mut self, value: impl fmt::Debug) {
        self.result = write!(Escaping(&mut self.writer), "{value:?}");
    }
}

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        let Some(message) = self.start(field) else { return };
        self.result = if message {
            Escaping(&mut self.writer).write_str(value)
        } else if value
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
        {
            // What `{:?}` writes for a string with nothing to escape.
            self.writer
                .write_char('"')
                .and_then(|()| self.writer.write_str(value))
                .and_then(|()| self.writer.write_char('"'))
        } else {
            write!(self.writer, "{value:?}")
        };
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field).is_some() {
            self.result = self.writer.write_str(itoa::Buffer::new().format(value));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.start(field).is_some() {
            self.result = self.writer.write_str(itoa::Buffer::new().format(value));
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.start(field).is_some() {
            self.result = self.writer.write_str(if value { "true" } else { "false" });
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if self.start(field).is_none() {
            return;
        }
        // Between 1e-4 and 1e15 `ryu` writes what `{:?}` writes (the shortest digits that read
        // back, in positional notation, `.0` after a whole number); outside, `{:?}` switches
        // to an exponent and `ryu` at other bounds.
        self.result = if value == 0.0 || (1e-4..1e15).contains(&value.abs()) {
            self.writer.write_str(ryu::Buffer::new().format_finite(value))
        } else {
            write!(self.writer, "{value:?}")
        };
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        if self.start(field).is_none() {
            return;
        }
        self.result = write!(Escaping(&mut self.writer), "{value}");
        if let Some(source) = value.source()
            && self.result.is_ok()
        {
            // The chain of causes, as the crate writes it: ` error.sources=[cause, its cause]`.
            self.result = write!(self.writer, " {}.sources=", field.name()).and_then(|()| {
                let mut next = Some(source);
                let mut list = String::from("[");
                while let Some(error) = next {
                    if list.len() > 1 {
                        list.push_str(", ");
                    }
                    write!(Escaping(&mut list), "{error}")?;
                    next = error.source();
                }
                list.push(']');
                self.writer.write_str(&list)
            });
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.start(field).is_some() {
            self.value(value);
        }
    }
}

impl VisitOutput<fmt::Result> for Visitor<'_> {
    fn finish(self) -> fmt::Result {
        self.result
    }
}

/// Passes text through, escaping the characters a terminal acts on, as the crate escapes a
/// message: ESC, BEL, BS, FF and DEL as `\x1b`…, the C1 codes as `\u{9b}`….
struct Escaping<W>(W);

impl<W: fmt::Write> fmt::Write for Escaping<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let clean = |b: u8| !matches!(b, 0x1b | 0x07 | 0x08 | 0x0c | 0x7f | 0xc2);
        if text.bytes().all(clean) {
            // 0xc2 starts every C1 code's UTF-8 (and a few printable characters, which the
            // slow path writes unchanged).
            return self.0.write_str(text);
        }
        for ch in text.chars() {
            match ch {
                '\x1b' => self.0.write_str("\\x1b")?,
                '\x07' => self.0.write_str("\\x07")?,
                '\x08' => self.0.write_str("\\x08")?,
                '\x0c' => self.0.write_str("\\x0c")?,
                '\x7f' => self.0.write_str("\\x7f")?,
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", ch as u32)?,
                _ => self.0.write_char(ch)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tracing::{Level, info, info_span, warn};

    use crate::telemetry::captured::Captured;

    #[derive(Debug)]
    struct Failure(&'static str, Option<Box<Failure>>);

    impl std::fmt::Display for Failure {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Failure {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    /// The lines `events` writes through the crate's plain format and through ours.
    fn both(events: impl Fn()) -> (String, String) {
        let theirs = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(Level::TRACE)
            .with_writer(theirs.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, &events);
        let ours = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(Level::TRACE)
            .with_writer(ours.clone())
            .fmt_fields(super::Fields)
            .event_format(super::Line)
            .finish();
        tracing::subscriber::with_default(subscriber, &events);
        (theirs.text(), ours.text())
    }

    /// A line without its time stamp (the two runs happen at different times).
    fn untimed(text: &str) -> Vec<&str> {
        text.lines().map(|line| line.split_once(' ').unwrap().1).collect()
    }

    #[test]
    fn lines_are_the_crates_plain_lines() {
        let (theirs, ours) = both(|| {
            info!("a bare message");
            let request =
                info_span!("request", request_id = %"4d31890a4677-1", method = %"POST", route = "/api/graphql");
            let _entered = request.enter();
            info!(target: "roadlog::access", status = 200u16, latency_ms = 0.766, "request");
            let inner = info_span!("inner", id = 7u64, r#type = "drive", empty = tracing::field::Empty);
            inner.record("empty", "filled later");
            let _inner = inner.enter();
            let failure = Failure("the write failed", Some(Box::new(Failure("disk full", None))));
            warn!(
                count = 3i64,
                negative = -5i64,
                flag = true,
                quoted = "a \"quoted\" \\ text",
                accented = "é à",
                debug = ?vec![1, 2],
                display = %"shown as it is",
                whole = 1.0,
                tiny = 1e-7,
                fraction = 12345.678,
                huge = 1e20,
                not_a_number = f64::NAN,
                error = &failure as &(dyn std::error::Error + 'static),
                "a message with {} and {:?}",
                "arguments",
                "debug"
            );
            tracing::error!(alone = 1u64);
            tracing::trace!(target: "some::library", "the other levels");
            tracing::debug!(lone = &Failure("no cause", None) as &(dyn std::error::Error + 'static));
        });
        assert_eq!(untimed(&ours), untimed(&theirs), "ours:\n{ours}\ntheirs:\n{theirs}");
        assert_eq!(ours.lines().count(), 6);
        assert!(
            ours.contains(
                r#"request{request_id=4d31890a4677-1 method=POST route="/api/graphql"}: roadlog::access: request status=200 latency_ms=0.766"#
            ),
            "{ours}"
        );
    }

    #[test]
    fn control_characters_are_escaped_in_every_value() {
        let (_, ours) = both(|| {
            let span = info_span!("request", route = %"/\x1b[2Jx");
            let _entered = span.enter();
            info!(shown = %"a\x07b\u{9b}c", quoted = "d\x1be", "bell\x07 and \x1b[31mred");
        });
        let line = ours.lines().next().unwrap();
        assert!(!line.contains(['\x1b', '\x07', '\u{9b}']), "{line:?}");
        assert!(line.contains(r#"request{route=/\x1b[2Jx}:"#), "{line}");
        assert!(line.contains(r"bell\x07 and \x1b[31mred shown=a\x07b\u{9b}c"), "{line}");
        assert!(line.contains(r#"quoted="d\u{1b}e""#), "{line}");
    }

    #[test]
    fn the_time_stamp_is_rfc_3339_in_utc_with_microseconds() {
        let (_, ours) = both(|| info!("now"));
        let before = chrono::Utc::now();
        let (stamp, rest) = ours.split_once(' ').unwrap();
        assert_eq!(rest, " INFO text::tests: now\n".replace("text::tests", module_path!()));
        assert_eq!(stamp.len(), "2026-11-25T01:06:36.377580Z".len(), "{stamp}");
        assert!(stamp.ends_with('Z'));
        let parsed = chrono::DateTime::parse_from_rfc3339(stamp).unwrap();
        assert!((before - parsed.to_utc()).num_seconds().abs() <= 5, "{stamp}");
        // Every micro-second count is six digits.
        let mut text = String::new();
        let mut writer = tracing_subscriber::fmt::format::Writer::new(&mut text);
        super::write_time(&mut writer).unwrap();
        assert_eq!(text.len(), stamp.len() + 1);
        assert!(text[20..26].bytes().all(|b| b.is_ascii_digit()), "{text}");
    }

    #[test]
    fn floats_read_as_rusts_debug_writes_them() {
        let mut values = vec![
            0.0,
            -0.0,
            1e-4,
            0.00012345,
            0.5,
            1.0,
            2.5,
            100.0,
            0.766,
            1e15 - 1.0,
            123456789.125,
        ];
        for exponent in -4..15 {
            for mantissa in [1.0, 1.5, 3.0 / 7.0, 9.999_999_999, 2.0 / 3.0] {
                let value = mantissa * 10f64.powi(exponent);
                values.push(value);
                values.push(-value);
            }
        }
        for value in values {
            if value == 0.0 || (1e-4..1e15).contains(&value.abs()) {
                assert_eq!(ryu::Buffer::new().format_finite(value), format!("{value:?}"), "{value}");
            }
        }
    }
}
