//! `POST /token/refresh` and `POST /token/logout`: the REST form of the session tokens' refresh
//! and logout (GraphQL's `auth.refresh` and `auth.logout`), for software written against the
//! reference's REST routes. The token comes in `Authorization: Bearer` or in the `rt` cookie a
//! refresh sets for browser applications.

use cookie::{Cookie, SameSite};
use warp::http::{HeaderMap, header};

use crate::app::App;
use crate::config::Environment;
use crate::domain::auth::Caller;
use crate::domain::users::sessions;
use crate::errors::Code;
use crate::http::api_error::{api_error, internal_error};
use crate::http::contract::{
    TokenLogoutRequest, TokenLogoutResponse, TokenRefreshRequest, TokenRefreshResponse, types,
};
use crate::http::cookies;

/// The refresh token's cookie, sent back only to the token routes under `/api`.
const REFRESH: &str = "rt";
const REFRESH_PATH: &str = "/api/token";
/// The reference's other session cookies, removed on logout (Roadlog never sets them, but a
/// browser application moving from the reference may hold them).
const REFERENCE_COOKIES: [(&str, &str); 4] = [("at", "/api"), ("atEat", "/"), ("userId", "/"), ("controllerId", "/")];

/// The token the request presents: the `Authorization` header's, else the `rt` cookie's.
fn presented(headers: &HeaderMap) -> Option<String> {
    let bearer = Caller::bearer(headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()));
    bearer
        .0
        .or_else(|| cookies::get(&cookies::read(headers), REFRESH).map(str::to_string))
        .filter(|t| !t.is_empty())
}

/// `rt` holding `value` for `max_age` seconds (0: removed).
fn refresh_cookie(value: String, max_age: i64, environment: Environment) -> String {
    Cookie::build((REFRESH, value))
        .path(REFRESH_PATH)
        .max_age(cookie::time::Duration::seconds(max_age))
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(environment == Environment::Production)
        .build()
        .to_string()
}

/// Removes a cookie of `path`.
fn removed(name: &'static str, path: &'static str) -> String {
    Cookie::build((name, ""))
        .path(path)
        .max_age(cookie::time::Duration::ZERO)
        .build()
        .to_string()
}

pub async fn refresh(app: &App, request: TokenRefreshRequest) -> TokenRefreshResponse {
    let token = presented(&request.headers);
    match sessions::refresh(&app.db, app.environment, token.as_deref()).await {
        Ok(pair) => TokenRefreshResponse::Ok {
            set_cookie: vec![refresh_cookie(
                pair.refresh_token.clone(),
                sessions::REFRESH_TOKEN_SECONDS,
                app.environment,
            )],
            body: types::RestTokenPair {
                access_token: pair.access_token,
                refresh_token: pair.refresh_token,
            },
        },
        Err(error) if error.code == Code::AuthenticationError => TokenRefreshResponse::Unauthorized {
            // A token was refused: the browser's cookie, if it held it, is of no more use.
            set_cookie: token.map(|_| vec![removed(REFRESH, REFRESH_PATH)]).unwrap_or_default(),
            body: api_error(error.message, error.code.as_str()),
        },
        Err(error) => {
            error.log_if_internal();
            TokenRefreshResponse::InternalServerError(internal_error())
        }
    }
}

pub async fn logout(app: &App, request: TokenLogoutRequest) -> TokenLogoutResponse {
    let token = presented(&request.headers);
    let mut set_cookie = vec![removed(REFRESH, REFRESH_PATH)];
    set_cookie.extend(REFERENCE_COOKIES.iter().map(|(name, path)| removed(name, path)));
    match sessions::logout(&app.db, token.as_deref()).await {
        Ok(()) => TokenLogoutResponse::Ok {
            body: types::Success { success: true },
            set_cookie,
        },
        Err(error) if error.code == Code::AuthenticationError => TokenLogoutResponse::Unauthorized {
            body: api_error(error.message, error.code.as_str()),
            set_cookie,
        },
        Err(error) => {
            error.log_if_internal();
            TokenLogoutResponse::InternalServerError(internal_error())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_comes_before_the_cookie() {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, "rt=from-cookie; other=1".parse().unwrap());
        assert_eq!(presented(&headers).as_deref(), Some("from-cookie"));
        headers.append(header::AUTHORIZATION, "Bearer from-header".parse().unwrap());
        assert_eq!(presented(&headers).as_deref(), Some("from-header"));
        assert_eq!(presented(&HeaderMap::new()), None);
    }

    #[test]
    fn the_refresh_cookie_goes_to_the_token_routes_only() {
        assert_eq!(
            refresh_cookie("t".into(), 60, Environment::Sandbox),
            "rt=t; HttpOnly; SameSite=Strict; Path=/api/token; Max-Age=60"
        );
        assert!(refresh_cookie("t".into(), 60, Environment::Production).contains("; Secure"));
        assert_eq!(removed("at", "/api"), "at=; Path=/api; Max-Age=0");
    }
}
