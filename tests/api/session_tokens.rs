//! `POST /token/refresh` and `POST /token/logout` from outside, on both databases: the pair a
//! refresh hands out works, a refresh token is single use, the `rt` cookie is set, read and
//! cleared, and a logout ends the session.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

/// Logs `email` in through GraphQL: (access token, refresh token).
async fn login(app: &TestApp, email: &str) -> (String, String) {
    app.new_user(email).await;
    let query = format!(
        "mutation {{ auth {{ login(email: \"{email}\", password: \"long enough secret\") {{ accessToken refreshToken }} }} }}"
    );
    let (_, body) = app.graphql(&query, json!({}), None).await;
    let tokens = &body["data"]["auth"]["login"];
    (
        tokens["accessToken"].as_str().unwrap().to_string(),
        tokens["refreshToken"].as_str().unwrap().to_string(),
    )
}

/// A POST to a token route: status, `Set-Cookie` values, body.
async fn post(
    app: &TestApp,
    path: &str,
    bearer: Option<&str>,
    cookie: Option<&str>,
) -> (StatusCode, Vec<String>, Value) {
    let mut request = app.client.post(app.url(path));
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    if let Some(cookie) = cookie {
        request = request.header("Cookie", cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let cookies = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    (status, cookies, response.json().await.unwrap())
}

/// Whether `token` is a live access token.
async fn works(app: &TestApp, token: &str) -> bool {
    let (_, body) = app.graphql("{ me { id } }", json!({}), Some(token)).await;
    body["data"]["me"]["id"].is_i64()
}

on_both_backends! {
    async fn a_refresh_hands_out_a_working_pair_once(app) {
        let (_, refresh) = login(app, "pat@example.com").await;
        let (status, cookies, body) = post(app, "/api/token/refresh", Some(&refresh), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let (access, next) = (body["access_token"].as_str().unwrap(), body["refresh_token"].as_str().unwrap());
        assert!(works(app, access).await);
        assert_ne!(next, refresh);
        assert_eq!(cookies.len(), 1);
        assert!(cookies[0].starts_with(&format!("rt={next};")), "{cookies:?}");
        assert!(cookies[0].contains("HttpOnly") && cookies[0].contains("SameSite=Strict") && cookies[0].contains("Path=/api/token"));
        // The cookie alone is enough, once.
        let (status, _, body) = post(app, "/token/refresh", None, Some(&format!("rt={next}"))).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let (status, cookies, body) = post(app, "/token/refresh", None, Some(&format!("rt={next}"))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body, json!({ "error": "Refresh token is invalid", "error_code": "AUTHENTICATION_ERROR" }));
        assert_eq!(cookies, ["rt=; Path=/api/token; Max-Age=0"], "the spent cookie is cleared");
        // A reused refresh token ends the session: the pair it replaced stops working too.
        assert!(!works(app, access).await);
    }

    async fn a_refresh_without_a_token_is_refused(app) {
        let (access, _) = login(app, "kim@example.com").await;
        let (status, cookies, body) = post(app, "/token/refresh", None, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["error"], "Unable to find a valid cookie or authorization header");
        assert!(cookies.is_empty());
        // An access token is not a refresh token.
        let (status, _, body) = post(app, "/token/refresh", Some(&access), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("Refresh token is invalid")));
        assert!(works(app, &access).await, "a refused refresh changes nothing");
    }

    async fn a_logout_ends_the_session_and_clears_the_cookies(app) {
        let (access, refresh) = login(app, "lou@example.com").await;
        let (other_access, _) = login(app, "max@example.com").await;
        let (status, cookies, body) = post(app, "/token/logout", Some(&refresh), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, json!({ "success": true }));
        assert_eq!(
            cookies,
            [
                "rt=; Path=/api/token; Max-Age=0",
                "at=; Path=/api; Max-Age=0",
                "atEat=; Path=/; Max-Age=0",
                "userId=; Path=/; Max-Age=0",
                "controllerId=; Path=/; Max-Age=0"
            ]
        );
        assert!(!works(app, &access).await);
        assert!(works(app, &other_access).await, "other sessions go on");
        let (status, cookies, body) = post(app, "/token/logout", None, Some(&format!("rt={refresh}"))).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("Invalid token")));
        assert_eq!(cookies.len(), 5, "cleared whatever happens");
        let (status, _, body) = post(app, "/token/logout", None, None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("Unable to find a valid cookie or authorization header")));
    }
}
