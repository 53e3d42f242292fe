//! A log writer that batches lines in memory and writes them from a thread of its own, woken by
//! a clock rather than by each line.
//!
//! `tracing-appender`'s non-blocking writer sends each line through a channel to its thread,
//! which sleeps whenever the channel is empty: at a few thousand requests a second, almost every
//! access line woke it (a futex call by the request's thread, a context switch to the writer and
//! back), and on two cores that cost `{ __typename }` a fifth of its throughput. Here a line is
//! appended to a buffer under a mutex and nothing is woken; the writer thread takes the whole
//! buffer every [`INTERVAL`] (or as soon as it holds [`EAGER_BYTES`]) and writes it in one call.
//! The same pattern as zap's `BufferedWriteSyncer` or log4j's asynchronous appenders.
//!
//! Nothing is dropped: when the buffer holds [`LIMIT_BYTES`] (a sink that stopped reading),
//! loggers wait for the writer. A line reaches the sink at most [`INTERVAL`] after it was
//! logged; [`Flusher`]'s drop (the end of the command) writes out what is buffered. A process
//! killed outright (`SIGKILL`) loses the lines of its last [`INTERVAL`].

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// The longest a line waits in memory before it is written.
pub const INTERVAL: Duration = Duration::from_millis(50);
/// Buffered bytes at which the writer is woken before its tick (a burst of lines).
pub const EAGER_BYTES: usize = 256 * 1024;
/// Buffered bytes at which loggers wait for the writer (some 20,000 access lines).
pub const LIMIT_BYTES: usize = 4 * 1024 * 1024;

#[derive(Default)]
struct State {
    buffer: Vec<u8>,
    stopping: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled by a logger whose line took the buffer past [`EAGER_BYTES`], and at the stop.
    wake_writer: Condvar,
    /// Signalled by the writer when it has taken the buffer.
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A logger that panicked while appending left whole lines or none: carry on.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where loggers append their lines ([`tracing_subscriber::fmt::MakeWriter`]).
#[derive(Clone)]
pub struct Batched {
    shared: Arc<Shared>,
}

/// Runs the writer thread; dropped, it writes out what is buffered and stops the thread.
pub struct Flusher {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// A batching writer over `sink`, and the guard of its thread.
pub fn batched<W: Write + Send + 'static>(sink: W, thread_name: &str) -> std::io::Result<(Batched, Flusher)> {
    let shared = Arc::new(Shared::default());
    let writer_side = shared.clone();
    let thread = std::thread::Builder::new()
        .name(thread_name.to_owned())
        .spawn(move || write_loop(&writer_side, sink))?;
    Ok((
        Batched { shared: shared.clone() },
        Flusher {
            shared,
            thread: Some(thread),
        },
    ))
}

fn write_loop<W: Write>(shared: &Shared, mut sink: W) {
    // Two buffers swapped back and forth: after the first batches, nothing is allocated.
    let mut taken = Vec::new();
    loop {
        let stopping = {
            let state = shared.lock();
            let (mut state, _) = shared
                .wake_writer
                .wait_timeout_while(state, INTERVAL, |state| {
                    state.buffer.len() < EAGER_BYTES && !state.stopping
                })
                .unwrap_or_else(PoisonError::into_inner);
            std::mem::swap(&mut state.buffer, &mut taken);
            state.stopping
        };
        shared.room.notify_all();
        if !taken.is_empty() {
            // A sink that fails (a closed standard error) has nowhere to report it: the lines
            // are dropped rather than kept until memory runs out.
            let _ = sink.write_all(&taken).and_then(|()| sink.flush());
            taken.clear();
        }
        if stopping {
            return;
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.wake_writer.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One logger's handle for one line (the formatter writes each line in one call).
pub struct Line<'a> {
    shared: &'a Shared,
}

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut state = self.shared.lock();
        while state.buffer.len() >= LIMIT_BYTES && !state.stopping {
            state = self.shared.room.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        let before = state.buffer.len();
        state.buffer.extend_from_slice(bytes);
        let crossed = before < EAGER_BYTES && state.buffer.len() >= EAGER_BYTES;
        drop(state);
        if crossed {
            self.shared.wake_writer.notify_one();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Batched {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Line { shared: &self.shared }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use tracing_subscriber::fmt::MakeWriter;

    use crate::telemetry::captured::Captured;

    #[test]
    fn every_line_of_every_thread_arrives_whole_and_in_its_order() {
        let sink = Captured::default();
        let (writer, flusher) = super::batched(sink.clone(), "test-log").unwrap();
        // Enough bytes to pass the eager threshold and the limit several times over.
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    for i in 0..40_000 {
                        let line = format!("thread {t} line {i:06} {}\n", "x".repeat(100));
                        writer.make_writer().write_all(line.as_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        drop(flusher);
        let written = sink.text();
        let mut next = [0usize; 4];
        for line in written.lines() {
            let mut words = line.split(' ');
            assert_eq!(words.next(), Some("thread"));
            let t: usize = words.next().unwrap().parse().unwrap();
            assert_eq!(words.next(), Some("line"));
            let i: usize = words.next().unwrap().parse().unwrap();
            assert_eq!(i, next[t], "thread {t}'s lines out of order or lost");
            assert_eq!(words.next().map(str::len), Some(100));
            next[t] += 1;
        }
        assert_eq!(next, [40_000; 4]);
    }

    #[test]
    fn a_lone_line_is_written_without_more_lines_or_a_stop() {
        let sink = Captured::default();
        let (writer, _flusher) = super::batched(sink.clone(), "test-log").unwrap();
        writer.make_writer().write_all(b"alone\n").unwrap();
        // Polled, not slept for a fixed time: the assertion is that it arrives, by itself.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while sink.text().is_empty() {
            assert!(std::time::Instant::now() < deadline, "the line was never written");
            std::thread::sleep(super::INTERVAL / 5);
        }
        assert_eq!(sink.text(), "alone\n");
    }
}
