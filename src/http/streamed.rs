//! A response body written by blocking code: [`channel`] gives a [`std::io::Write`] that a
//! producer on a blocking thread writes into, and the body stream the response reads from it.
//!
//! Why a bounded channel of large chunks: the producer (the C1B export, which compresses on
//! blocking threads) must never be further ahead of the client than a few chunks, or a slow client
//! would make the server hold the whole archive; and one message per 64 KiB keeps the cost per
//! byte negligible. When the client goes away, the next write fails (`BrokenPipe`) and the producer
//! stops.

use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::sync::mpsc;

/// Bytes collected before a chunk is sent.
const CHUNK_BYTES: usize = 64 * 1024;
/// Chunks in flight between the producer and the client.
const CHUNKS_IN_FLIGHT: usize = 4;

type Chunk = io::Result<Bytes>;

/// The producer's end: buffers writes into chunks and hands each to the body, waiting while the
/// client is [`CHUNKS_IN_FLIGHT`] chunks behind. Only for blocking threads (`spawn_blocking`).
pub struct ChunkWriter {
    buffer: Vec<u8>,
    sender: mpsc::Sender<Chunk>,
}

/// Ends a body early: the response is cut instead of ending normally.
pub struct Failure(mpsc::Sender<Chunk>);

/// The response's end: the chunks, in order.
pub struct Chunks(mpsc::Receiver<Chunk>);

/// A connected writer, failure handle and body.
pub fn channel() -> (ChunkWriter, Failure, Chunks) {
    let (sender, receiver) = mpsc::channel(CHUNKS_IN_FLIGHT);
    (
        ChunkWriter {
            buffer: Vec::with_capacity(CHUNK_BYTES),
            sender: sender.clone(),
        },
        Failure(sender),
        Chunks(receiver),
    )
}

impl ChunkWriter {
    fn send(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES));
        self.sender
            .blocking_send(Ok(Bytes::from(chunk)))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(data);
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(data.len())
    }

    /// Sends what is buffered, however little.
    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

impl Failure {
    /// Whether the client has gone away (the body was dropped).
    pub fn client_gone(&self) -> bool {
        self.0.is_closed()
    }

    /// Cuts the response: the body ends with an error, so the connection is closed before the
    /// body's normal end and the client cannot take a partial body for a whole one.
    pub async fn fail(self, why: &str) {
        let _ = self.0.send(Err(io::Error::other(why.to_string()))).await;
    }
}

impl futures::Stream for Chunks {
    type Item = Chunk;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Chunk>> {
        self.0.poll_recv(cx)
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    #[tokio::test]
    async fn writes_arrive_in_chunks_in_order_and_flush_sends_the_rest() {
        let (mut writer, failure, mut chunks) = channel();
        // The body ends when every sending end is gone: the writer, and the failure handle.
        drop(failure);
        let producer = tokio::task::spawn_blocking(move || {
            let data: Vec<u8> = (0..CHUNK_BYTES * 2 + 10).map(|i| (i % 251) as u8).collect();
            for piece in data.chunks(1000) {
                writer.write_all(piece).unwrap();
            }
            writer.flush().unwrap();
            data
        });
        let mut received = Vec::new();
        let mut sizes = Vec::new();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.unwrap();
            sizes.push(chunk.len());
            received.extend_from_slice(&chunk);
        }
        let sent = producer.await.unwrap();
        assert_eq!(received, sent);
        // 66,000 bytes (the first write past 64 KiB sends), then the flushed rest, 65,082.
        assert_eq!(
            sizes,
            [66_000, 2 * CHUNK_BYTES + 10 - 66_000],
            "full chunks, then the flushed rest"
        );
    }

    #[tokio::test]
    async fn a_failure_ends_the_body_with_an_error() {
        let (writer, failure, mut chunks) = channel();
        drop(writer);
        failure.fail("the database failed").await;
        let end = chunks.next().await.unwrap();
        assert_eq!(end.unwrap_err().to_string(), "the database failed");
        assert!(chunks.next().await.is_none());
    }

    #[tokio::test]
    async fn writing_after_the_client_left_fails() {
        let (mut writer, failure, chunks) = channel();
        drop(chunks);
        assert!(failure.client_gone());
        let error = tokio::task::spawn_blocking(move || writer.write_all(&vec![0; CHUNK_BYTES]).unwrap_err())
            .await
            .unwrap();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    }
}
