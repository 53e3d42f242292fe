//! Cookies, read and written with the `cookie` crate: the authorization pages' browser session
//! and CSRF cookie (whose form tokens are in [`crate::oauth::csrf`]), and the jar the token
//! routes read their `rt` cookie from.
//! Both are `HttpOnly`, `SameSite=Lax` (sent on a top-level navigation from another site, never
//! on its cross-site POST or in its frames), on the whole site, and `Secure` in production (the
//! sandbox may run on plain-HTTP localhost).

use cookie::{Cookie, SameSite};
use warp::http::{HeaderMap, header};

use crate::config::Environment;

pub const SESSION: &str = "rl_session";
pub const CSRF: &str = "rl_csrf";

/// The cookies the browser sent, by name (the first of a name wins, as browsers send the most
/// specific first). Ill-formed pairs are skipped.
pub fn read(headers: &HeaderMap) -> Vec<(String, String)> {
    let mut jar: Vec<(String, String)> = Vec::new();
    for value in headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()) {
        for cookie in Cookie::split_parse(value).flatten() {
            if !jar.iter().any(|(name, _)| name == cookie.name()) {
                jar.push((cookie.name().to_string(), cookie.value().to_string()));
            }
        }
    }
    jar
}

/// The value of one cookie.
pub fn get<'a>(jar: &'a [(String, String)], name: &str) -> Option<&'a str> {
    jar.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// A `Set-Cookie` value.
pub fn set(name: &'static str, value: String, max_age_seconds: i64, environment: Environment) -> String {
    Cookie::build((name, value))
        .path("/")
        .max_age(cookie::time::Duration::seconds(max_age_seconds))
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(environment == Environment::Production)
        .build()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_cookies() {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, "a=1; rl_csrf=abc; junk; a=2".parse().unwrap());
        let jar = read(&headers);
        assert_eq!(get(&jar, "a"), Some("1"));
        assert_eq!(get(&jar, CSRF), Some("abc"));
        let sandbox = set(SESSION, "t".into(), 60, Environment::Sandbox);
        assert_eq!(sandbox, "rl_session=t; HttpOnly; SameSite=Lax; Path=/; Max-Age=60");
        assert!(set(SESSION, "t".into(), 60, Environment::Production).contains("; Secure"));
    }
}
