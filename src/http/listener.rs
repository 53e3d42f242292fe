//! The accept loop: HTTP/1.1 connections served by hyper under a connection cap and timeouts,
//! and a graceful stop with a deadline.
//!
//! Why our own loop rather than `warp::serve`: warp's server has no header-read or idle
//! timeout and no connection cap, so a client that opens connections and sends nothing keeps
//! them (and their file descriptors) forever. Here every connection holds a permit of a
//! semaphore sized to the cap, hyper closes a connection that has not sent a whole request head
//! within the header-read timeout (hyper starts that clock when it waits for a request head,
//! so it also bounds how long an idle keep-alive connection is kept), and a stop first refuses
//! new connections, lets requests in flight finish until the deadline, then cuts what remains.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

/// The limits of the connection layer.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections served at once; further ones wait in the kernel's accept queue.
    pub max_connections: usize,
    /// Time a client has to send a whole request head, counted from the moment the server waits
    /// for it (so also the longest idle time of a keep-alive connection).
    pub header_read_timeout: Duration,
    /// Largest request head (request line and headers), in bytes.
    pub max_head_bytes: usize,
    /// Most header fields in one request.
    pub max_headers: usize,
}

impl ConnectionLimits {
    /// The limits `roadlog serve` runs with, given its connection cap and header-read timeout:
    /// heads of at most 64 KiB and 100 header fields.
    pub fn new(max_connections: usize, header_read_timeout: Duration) -> ConnectionLimits {
        ConnectionLimits {
            max_connections,
            header_read_timeout,
            max_head_bytes: 64 * 1024,
            max_headers: 100,
        }
    }
}

/// The peer of a connection, put in each request's extensions.
#[derive(Clone, Copy, Debug)]
pub struct PeerAddr(pub SocketAddr);

/// What a listener reports while it runs (for metrics, a stopping server and tests).
pub struct ListenerState {
    /// Open connections.
    pub open: watch::Sender<usize>,
    /// Whether new connections are accepted (false from the moment the stop begins).
    pub accepting: watch::Sender<bool>,
}

/// Serves `service` on `listener` until `stop` resolves, then drains for at most `deadline`.
pub async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()>,
    deadline: Duration,
    state: ListenerState,
) where
    S: tower::Service<http::Request<Incoming>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    let open = Arc::new(state.open);
    state.accepting.send_replace(true);
    loop {
        // A permit first: at the cap, connections wait in the accept queue, not in our memory.
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            () = &mut stop => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors (or a connection reset before accept): wait a
                    // little so a full table can drain instead of spinning on the error.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        // Small answers go out at once instead of waiting for more bytes to fill a segment.
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let service = hyper_util::service::TowerToHyperService::new(tower::util::MapRequest::new(
            service,
            move |mut request: http::Request<Incoming>| {
                request.extensions_mut().insert(PeerAddr(peer));
                request
            },
        ));
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .max_buf_size(limits.max_head_bytes.max(8192))
            .max_headers(limits.max_headers)
            .keep_alive(true);
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        let held = Held::new(open.clone(), permit);
        connections.spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
            drop(held);
        });
        // Reap finished connection tasks so the set does not grow with the traffic.
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    state.accepting.send_replace(false);
    if tokio::time::timeout(deadline, graceful.shutdown()).await.is_err() {
        tracing::warn!(
            deadline_ms = deadline.as_millis() as u64,
            "stop deadline reached: cutting the connections still open"
        );
    }
    connections.shutdown().await;
}

/// What an open connection holds: its permit and its place in the count. Released on drop, so
/// a connection cut at the stop deadline (its task aborted) is counted out as well.
struct Held {
    open: Arc<watch::Sender<usize>>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Held {
    fn new(open: Arc<watch::Sender<usize>>, permit: tokio::sync::OwnedSemaphorePermit) -> Held {
        open.send_modify(|n| *n += 1);
        Held { open, _permit: permit }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.open.send_modify(|n| *n = n.saturating_sub(1));
    }
}
