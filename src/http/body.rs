//! Reading request bodies with a size limit, whether or not the client sent `Content-Length`
//! (chunked bodies are counted as they arrive), so a large upload is refused without being
//! held, and with a deadline, so a client that trickles its body cannot hold a request open.

use std::time::Instant;

use bytes::{Buf, Bytes, BytesMut};
use futures::{Stream, StreamExt};
use warp::Filter;
use warp::http::StatusCode;

/// Largest request body accepted anywhere: 10 MiB, as the reference.
pub const MAX_BODY: u64 = 10 * 1024 * 1024;

/// When the body of a request must have arrived (set by the middleware when the head arrives).
#[derive(Clone, Copy, Debug)]
pub struct BodyDeadline(pub Instant);

/// The deadline of the current request, if the middleware set one.
pub fn deadline() -> impl Filter<Extract = (Option<BodyDeadline>,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<BodyDeadline>()
}

/// Why a body could not be read.
#[derive(Debug)]
pub enum BodyError {
    TooLarge { limit: u64 },
    TooSlow,
    Broken,
}

impl BodyError {
    /// The answer for the generic routes: `{"error", "error_code"}` as the REST errors.
    pub fn into_response(self) -> warp::reply::Response {
        let (status, message) = self.describe();
        let body = serde_json::json!({ "error": message, "error_code": "INVALID_INPUTS" });
        super::media::json_response(status, &body)
    }

    /// Status and message.
    pub fn describe(&self) -> (StatusCode, String) {
        match self {
            BodyError::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Request body is larger than the limit of {limit} bytes"),
            ),
            BodyError::TooSlow => (
                StatusCode::REQUEST_TIMEOUT,
                "The request body did not arrive in time".to_string(),
            ),
            BodyError::Broken => (
                StatusCode::BAD_REQUEST,
                "The request body could not be read".to_string(),
            ),
        }
    }
}

/// Collects a body stream, stopping as soon as it exceeds `limit` or the deadline passes.
pub async fn read_limited<S, B>(body: S, limit: u64, deadline: Option<BodyDeadline>) -> Result<Bytes, BodyError>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let read = collect(body, limit);
    match deadline {
        Some(BodyDeadline(at)) => tokio::time::timeout_at(at.into(), read)
            .await
            .unwrap_or(Err(BodyError::TooSlow)),
        None => read.await,
    }
}

async fn collect<S, B>(body: S, limit: u64) -> Result<Bytes, BodyError>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let mut body = std::pin::pin!(body);
    let mut collected = BytesMut::new();
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk.map_err(|_| BodyError::Broken)?;
        if collected.len() as u64 + chunk.remaining() as u64 > limit {
            drain(body.as_mut(), collected.len() as u64 + chunk.remaining() as u64).await;
            return Err(BodyError::TooLarge { limit });
        }
        while chunk.has_remaining() {
            let part = chunk.chunk();
            collected.extend_from_slice(part);
            let n = part.len();
            chunk.advance(n);
        }
    }
    Ok(collected.freeze())
}

/// How much of a refused body is read past what was read already, and thrown away, before the
/// answer goes out.
const DRAIN: u64 = 16 * 1024 * 1024;

/// Reads and throws away the rest of a refused body, up to [`DRAIN`] bytes, holding none of it:
/// a client still sending when the answer comes and the connection closes gets a reset instead
/// of the 413, which it may never read. A larger body is cut off (the deadline of
/// [`read_limited`] bounds the time).
async fn drain<S, B>(mut body: std::pin::Pin<&mut S>, read: u64)
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let mut drained = 0u64;
    while drained < DRAIN {
        match body.next().await {
            Some(Ok(chunk)) => drained += chunk.remaining() as u64,
            _ => return,
        }
    }
    tracing::debug!(read = read + drained, "refused body cut off");
}
