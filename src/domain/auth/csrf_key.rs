//! The key of the browser forms' CSRF tokens and the tokens themselves: HMAC-SHA256, under a
//! key of the server, of the browser's cookie and its login session. The HTTP side (cookies,
//! `Origin`) is in `oauth::csrf`.

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::db::Db;
use crate::domain::auth::server_secrets;
use crate::errors::AppResult;

/// The key of the form tokens.
#[derive(Clone)]
pub struct CsrfKey([u8; 32]);

impl std::fmt::Debug for CsrfKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CsrfKey(..)")
    }
}

impl CsrfKey {
    /// The deployment's key, generated and stored at the first start.
    pub async fn load(db: &Db) -> AppResult<CsrfKey> {
        Ok(CsrfKey(server_secrets::get_or_create(db, "csrf").await?))
    }

    pub fn from_bytes(bytes: [u8; 32]) -> CsrfKey {
        CsrfKey(bytes)
    }

    fn mac(&self, browser: &str, session: Option<&str>) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        // Lengths first, so that no two (browser, session) pairs give the same input.
        let session = session.unwrap_or("");
        mac.update(b"roadlog csrf v1\0");
        mac.update(&(browser.len() as u64).to_be_bytes());
        mac.update(browser.as_bytes());
        mac.update(&(session.len() as u64).to_be_bytes());
        mac.update(session.as_bytes());
        mac
    }

    /// The token of the forms of this browser (its `rl_csrf` cookie) and login session.
    pub fn token(&self, browser: &str, session: Option<&str>) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.mac(browser, session).finalize().into_bytes())
    }

    /// Whether `field` is the token of this browser and session (compared in constant time).
    pub fn verify(&self, browser: &str, session: Option<&str>, field: &str) -> bool {
        let Ok(given) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(field.trim()) else {
            return false;
        };
        self.mac(browser, session).verify_slice(&given).is_ok()
    }
}
