//! The request rate of each OAuth client: at the token endpoint, and on the software vendors'
//! doors (`/protected` and requests with employment tokens), each with its own limiter.
//!
//! Bounded memory: a client is counted only once it has authenticated (a registered client id
//! with its secret, or an employment token the database knows), so the keys are numeric ids of
//! registered clients, never text a request made up. Even so the map holds at most
//! [`MAX_CLIENTS`] clients: when it is full, the clients whose state has returned to rest (no
//! request within their burst's refill time) are dropped first, at most once per
//! [`SWEEP_EVERY`]; while the map is still full, every client is refused for a second (only
//! more than [`MAX_CLIENTS`] registered clients, each active within the last seconds, can fill
//! it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The most clients whose rates are kept at once (some 100 bytes each).
pub const MAX_CLIENTS: usize = 10_000;

/// The shortest interval between two sweeps of a full map: a sweep reads every entry, so a
/// flood of new keys cannot make every request pay for one.
pub const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// Requests per client, counted in this instance's memory: a ceiling on the work one client's
/// credentials can cause (valid credentials with junk codes never fail client authentication,
/// so the failure counter of the token endpoint does not see them; a vendor's many employees
/// share the vendor's quota).
#[derive(Clone)]
pub struct ClientLimiter(Arc<Inner>);

struct Inner {
    limiter: governor::DefaultKeyedRateLimiter<i64>,
    /// Serialises the decision to insert a new key when the map is full.
    full: Mutex<()>,
    started: Instant,
    /// Milliseconds after `started` of the last sweep.
    swept_at: AtomicU64,
    max_clients: usize,
}

impl ClientLimiter {
    /// `per_minute` requests a minute per client, in bursts of two seconds' worth (at least
    /// one); `None` for 0.
    pub fn new(per_minute: u32) -> Option<ClientLimiter> {
        Self::with_capacity(per_minute, MAX_CLIENTS)
    }

    /// [`new`](Self::new) keeping at most `max_clients` clients.
    pub fn with_capacity(per_minute: u32, max_clients: usize) -> Option<ClientLimiter> {
        let rate = std::num::NonZeroU32::new(per_minute)?;
        let burst = std::num::NonZeroU32::new(per_minute / 30).unwrap_or(std::num::NonZeroU32::MIN);
        Some(ClientLimiter(Arc::new(Inner {
            limiter: governor::RateLimiter::keyed(governor::Quota::per_minute(rate).allow_burst(burst)),
            full: Mutex::new(()),
            started: Instant::now(),
            swept_at: AtomicU64::new(0),
            max_clients: max_clients.max(1),
        })))
    }

    /// `Err(seconds to wait)` when the authenticated client `client_id` is over its rate.
    pub fn check_id(&self, client_id: i64) -> Result<(), u64> {
        use governor::clock::Clock;
        let inner = &self.0;
        if inner.limiter.len() >= inner.max_clients {
            // One request at a time decides: without it, many could pass the length check and
            // insert together.
            let _full = inner.full.lock().unwrap_or_else(PoisonError::into_inner);
            if inner.limiter.len() >= inner.max_clients && !self.sweep() {
                return Err(1);
            }
        }
        inner.limiter.check_key(&client_id).map_err(|not_until| {
            let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
            wait.as_secs_f64().ceil().max(1.0) as u64
        })
    }

    /// Drops the clients at rest, unless the last sweep was less than [`SWEEP_EVERY`] ago;
    /// whether the map has room after it.
    fn sweep(&self) -> bool {
        let inner = &self.0;
        let now = u64::try_from(inner.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = inner.swept_at.load(Ordering::Relaxed);
        if last != 0 && now.saturating_sub(last) < SWEEP_EVERY.as_millis() as u64 {
            return false;
        }
        inner.swept_at.store(now.max(1), Ordering::Relaxed);
        inner.limiter.retain_recent();
        inner.limiter.shrink_to_fit();
        inner.limiter.len() < inner.max_clients
    }

    /// The clients whose rates are kept now.
    pub fn len(&self) -> usize {
        self.0.limiter.len()
    }

    /// Whether no client's rate is kept.
    pub fn is_empty(&self) -> bool {
        self.0.limiter.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_stays_within_its_capacity() {
        let limiter = ClientLimiter::with_capacity(600, 100).unwrap();
        for id in 0..100 {
            assert_eq!(limiter.check_id(id), Ok(()));
        }
        assert_eq!(limiter.len(), 100);
        // Full with clients that just spent part of their burst: every client waits a second
        // (the limiter cannot tell a known one from a new one without inserting it), and the map
        // does not grow.
        assert_eq!(limiter.check_id(1_000), Err(1));
        assert_eq!(limiter.check_id(1_001), Err(1));
        assert_eq!(limiter.check_id(5), Err(1));
        assert_eq!(limiter.len(), 100);
        // Once they are at rest again, a sweep makes room.
        std::thread::sleep(SWEEP_EVERY + Duration::from_millis(100));
        assert_eq!(limiter.check_id(1_002), Ok(()));
        assert!(limiter.len() <= 100, "{}", limiter.len());
    }

    #[test]
    fn each_client_has_its_own_rate() {
        let limiter = ClientLimiter::new(30).unwrap();
        assert_eq!(limiter.check_id(7), Ok(()));
        assert!(limiter.check_id(7).is_err(), "one a burst");
        assert_eq!(limiter.check_id(8), Ok(()));
        assert!(ClientLimiter::new(0).is_none());
    }
}
