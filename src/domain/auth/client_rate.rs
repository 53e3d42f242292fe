//! The request rate of each OAuth client: at the token endpoint, and on the software vendors'
//! doors (`/protected` and requests with employment tokens), each with its own limiter.

/// Requests per client, counted in this instance's memory: a ceiling on the work one client's
/// credentials can cause (valid credentials with junk codes never fail client authentication,
/// so the failure counter of the token endpoint does not see them; a vendor's many employees
/// share the vendor's quota).
pub struct ClientLimiter(governor::DefaultKeyedRateLimiter<String>);

impl ClientLimiter {
    /// `per_minute` requests a minute per client, in bursts of two seconds' worth (at least
    /// one); `None` for 0.
    pub fn new(per_minute: u32) -> Option<ClientLimiter> {
        let rate = std::num::NonZeroU32::new(per_minute)?;
        let burst = std::num::NonZeroU32::new(per_minute / 30).unwrap_or(std::num::NonZeroU32::MIN);
        Some(ClientLimiter(governor::RateLimiter::keyed(
            governor::Quota::per_minute(rate).allow_burst(burst),
        )))
    }

    /// `Err(seconds to wait)` when the client is over its rate.
    pub fn check(&self, client_id: &str) -> Result<(), u64> {
        self.check_key(client_id.to_string())
    }

    /// [`check`](Self::check) for a numeric client id.
    pub fn check_id(&self, client_id: i64) -> Result<(), u64> {
        self.check_key(client_id.to_string())
    }

    fn check_key(&self, key: String) -> Result<(), u64> {
        use governor::clock::Clock;
        self.0.check_key(&key).map_err(|not_until| {
            let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
            wait.as_secs_f64().ceil().max(1.0) as u64
        })
    }
}
