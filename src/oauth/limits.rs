//! Failed client authentications at the token and revocation endpoints, counted in the database
//! (`domain::auth::attempts`, so every instance sees them) per client at an address and per
//! address. Client ids are public: counting per client alone would let anyone lock a client out
//! with a few wrong secrets, so a client that authenticates from an address that did not fail is
//! never refused for others' failures.
//!
//! Only bounded text is stored: a `client_id` that cannot be a registered client's (see
//! [`client_id`]) is refused before any lookup and counted against its address alone.

use crate::app::App;
use crate::domain::auth::attempts::{self, Budget};

/// Failures for one client from one address in the window before that address is refused for
/// that client.
pub const PER_CLIENT_AT_ADDRESS: i64 = 10;
/// Failures from one address, whatever the clients, before that address is refused for all:
/// room for a few misconfigured clients behind one proxy, not for spraying ids.
pub const PER_ADDRESS: i64 = 30;
/// The most digits of a client id: ids are positive 64-bit integers (`roadlog client create`
/// draws nine digits), and 18 digits always fit.
pub const CLIENT_ID_MAX_DIGITS: usize = 18;

/// The client a typed `client_id` can name: 1 to [`CLIENT_ID_MAX_DIGITS`] ASCII digits.
pub fn client_id(typed: &str) -> Option<i64> {
    if typed.is_empty() || typed.len() > CLIENT_ID_MAX_DIGITS || !typed.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    typed.parse().ok()
}

/// The counters of a request: the client at the address (when the id is well-formed), and the
/// address (empty when unknown: such requests share one counter).
pub fn budgets(client: Option<i64>, address: &str) -> Vec<Budget> {
    let mut budgets = Vec::with_capacity(2);
    if let Some(client) = client {
        budgets.push(Budget::new(format!("client:{client}@{address}"), PER_CLIENT_AT_ADDRESS));
    }
    budgets.push(Budget::new(format!("client-address:{address}"), PER_ADDRESS));
    budgets
}

/// Counts a failed client authentication. A failure to count does not change the answer (the
/// client failed either way); it is logged here and counted in
/// `roadlog_rate_limit_record_failures_total{limit="client_authentication"}`.
pub async fn record_failure(app: &App, budgets: &[Budget]) {
    if let Err(error) = attempts::record(&app.db, budgets).await {
        tracing::error!(cause = %error.chain(), "a failed client authentication could not be counted");
        app.metrics.record_failed("client_authentication");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numeric_ids_of_bounded_length_name_a_client() {
        assert_eq!(client_id("123456789"), Some(123_456_789));
        assert_eq!(client_id(&"9".repeat(18)), Some(999_999_999_999_999_999));
        for typed in ["", "12a", "+12", "-1", " 12", "1".repeat(19).as_str(), "٣"] {
            assert_eq!(client_id(typed), None, "{typed:?}");
        }
        let long = "1".repeat(30 * 1024);
        assert_eq!(client_id(&long), None);
    }

    #[test]
    fn subjects_stay_short_whatever_the_input() {
        let address = "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff";
        for budget in budgets(Some(i64::MAX), address) {
            assert!(budget.subject.len() < 80, "{}", budget.subject);
        }
        assert_eq!(
            budgets(None, address).len(),
            1,
            "a malformed id counts against the address only"
        );
    }
}
