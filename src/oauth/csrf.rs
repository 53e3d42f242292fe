//! The CSRF protection of the browser forms (the OAuth pages, the account and invitation pages,
//! the employee's sync page), in three layers:
//!
//! * each form carries a token: HMAC-SHA256, under a key of the server, of the browser's
//!   `rl_csrf` cookie (random, one per browser) and of its login session cookie `rl_session`
//!   (empty when there is none). A token cannot be forged without the key, and a cookie and
//!   field pair taken from another browser fails in a browser that has a session of its own:
//!   the token names the other browser's session. A form rendered before a login is refused
//!   after it ("reload the page"): the pages render their forms again with the new session.
//! * the cookies are `SameSite=Lax` and `HttpOnly` ([`crate::http::cookies`]);
//! * a POST that its browser says comes from another site (`Origin`, `Sec-Fetch-Site`) is refused.
//!
//! The key is generated at the first start and stored in the database
//! (`domain::auth::server_secrets`), so that every instance shares it.

use warp::http::{HeaderMap, header};

use crate::config::Environment;
use crate::domain::auth::tokens;
use crate::errors::AppResult;
use crate::http::cookies;

pub use crate::domain::auth::csrf_key::CsrfKey;

/// The smallest browser cookie accepted: a shorter one is replaced (ours have 43 characters).
const MIN_BROWSER_COOKIE: usize = 32;

/// Whether a POST passes: an `Origin`, when present, is ours, and the form's token is the
/// one of the browser's cookies.
pub fn passes(key: &CsrfKey, public_url: &str, headers: &HeaderMap, jar: &[(String, String)], field: &str) -> bool {
    if !origin_allowed(public_url, headers) {
        return false;
    }
    let Some(browser) = cookies::get(jar, cookies::CSRF).filter(|c| c.len() >= MIN_BROWSER_COOKIE) else {
        return false;
    };
    key.verify(browser, cookies::get(jar, cookies::SESSION), field)
}

/// The browser's `rl_csrf` cookie, or a fresh one whose `Set-Cookie` is added to `set_cookies`.
pub fn browser(
    jar: &[(String, String)],
    environment: Environment,
    max_age_seconds: i64,
    set_cookies: &mut Vec<String>,
) -> AppResult<String> {
    if let Some(existing) = cookies::get(jar, cookies::CSRF).filter(|c| c.len() >= MIN_BROWSER_COOKIE) {
        return Ok(existing.to_string());
    }
    let (fresh, _) = tokens::generate("")?;
    set_cookies.push(cookies::set(cookies::CSRF, fresh.clone(), max_age_seconds, environment));
    Ok(fresh)
}

/// Whether the request may come from one of our pages, by the headers browsers set themselves:
/// an `Origin` that names another site refuses it; so does `Sec-Fetch-Site` naming another site
/// or origin. Our pages send no referrer, so browsers send `Origin: null` for their own form
/// posts; `Sec-Fetch-Site`, which they send regardless, then tells ours (`same-origin`) from
/// another page's. Programs that send neither header pass here: the token still has to match.
pub fn origin_allowed(public_url: &str, headers: &HeaderMap) -> bool {
    let site_ok = match headers.get("sec-fetch-site").map(|v| v.to_str()) {
        None => true,
        Some(Ok(site)) => site.eq_ignore_ascii_case("same-origin") || site.eq_ignore_ascii_case("none"),
        Some(Err(_)) => false,
    };
    let Some(origin) = headers.get(header::ORIGIN) else {
        return site_ok;
    };
    let ours = url::Url::parse(public_url).map(|u| u.origin().ascii_serialization());
    match (origin.to_str(), ours) {
        (Ok(origin), _) if origin.trim() == "null" => site_ok,
        (Ok(origin), Ok(ours)) => site_ok && origin.trim().eq_ignore_ascii_case(&ours),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_bind_the_browser_and_the_session() {
        let key = CsrfKey::from_bytes([7; 32]);
        let browser = "b".repeat(43);
        let token = key.token(&browser, Some("session-a"));
        assert!(key.verify(&browser, Some("session-a"), &token));
        assert!(!key.verify(&browser, Some("session-b"), &token), "another session");
        assert!(!key.verify(&browser, None, &token), "no session");
        assert!(
            !key.verify(&"c".repeat(43), Some("session-a"), &token),
            "another browser"
        );
        assert!(
            !CsrfKey::from_bytes([8; 32]).verify(&browser, Some("session-a"), &token),
            "another key"
        );
        assert!(
            !key.verify(&browser, Some("session-a"), &browser),
            "the cookie itself is no token"
        );
        assert!(!key.verify(&browser, Some("session-a"), "not base64 !"));
        // The session's boundary is part of what is signed.
        assert_ne!(key.token("ab", Some("c")), key.token("a", Some("bc")));
    }

    #[test]
    fn only_our_origin_or_none_passes() {
        let public = "https://roadlog.example.com/";
        let with = |origin: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ORIGIN, origin.parse().unwrap());
            origin_allowed(public, &headers)
        };
        assert!(origin_allowed(public, &HeaderMap::new()));
        assert!(with("https://roadlog.example.com"));
        assert!(!with("https://evil.example.com"));
        assert!(!with("http://roadlog.example.com"));
        assert!(!with("https://roadlog.example.com:8443"));
        // `Origin: null` (our pages send no referrer) is decided by `Sec-Fetch-Site`.
        assert!(with("null"));
        let fetched = |origin: &str, site: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ORIGIN, origin.parse().unwrap());
            headers.insert("sec-fetch-site", site.parse().unwrap());
            origin_allowed(public, &headers)
        };
        assert!(fetched("null", "same-origin"));
        assert!(!fetched("null", "cross-site"));
        assert!(!fetched("null", "same-site"));
        assert!(!fetched("https://roadlog.example.com", "cross-site"));
        assert!(origin_allowed("http://127.0.0.1:8080", &{
            let mut headers = HeaderMap::new();
            headers.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
            headers
        }));
    }
}
