//! Sign-ups per client address, on both databases: `signUp.user` and the sign-up page share one
//! budget of 10 attempts in 15 minutes per address, kept in the database; the refused attempt
//! creates no account and sends no mail, and other addresses are not affected.

use serde_json::{Value, json};

use crate::support::forms::{Browser, action, field};
use crate::support::{TestApp, codes};

const SIGN_UP: &str = "mutation($e: Email!) { signUp { user(email: $e, password: \"long enough secret\", firstName: \"Jeanne\", lastName: \"Martin\") { accessToken } } }";

/// An API sign-up from `address` (none: the connection's own, 127.0.0.1).
async fn api_sign_up(app: &TestApp, address: Option<&str>, email: &str) -> Value {
    let mut request = app
        .client
        .post(app.url("/api/graphql"))
        .json(&json!({ "query": SIGN_UP, "variables": { "e": email } }));
    if let Some(address) = address {
        request = request.header("x-forwarded-for", address);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// A sign-up on the page, from 127.0.0.1; answers the status.
async fn page_sign_up(app: &TestApp, email: &str) -> u16 {
    let mut browser = Browser::new();
    let page = browser.get(&app.url("/account/signup")).await;
    let csrf = field(&page.body, "csrf_token");
    let form = [
        ("csrf_token", csrf.as_str()),
        ("email", email),
        ("first_name", "Nina"),
        ("last_name", "Dupont"),
        ("password", "long enough secret"),
    ];
    browser
        .post(&action(&app.server.url(), &page.body), &form)
        .await
        .status
        .as_u16()
}

async fn accounts(app: &TestApp, email: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
}

async fn mails(app: &TestApp, email: &str) -> usize {
    roadlog::mail::outbox::latest(&app.server.db, Some(email), 10)
        .await
        .unwrap()
        .len()
}

for_both_backends! {
    async fn the_api_and_the_page_share_one_sign_up_budget_per_address(backend) {
        let app = TestApp::spawn_with(backend, |s| s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
        // Six through the API and four on the page, from 127.0.0.1: all created.
        for n in 0..6 {
            let body = api_sign_up(&app, None, &format!("api{n}@example.com")).await;
            assert!(body["data"]["signUp"]["user"]["accessToken"].is_string(), "{n}: {body}");
        }
        for n in 0..4 {
            assert_eq!(page_sign_up(&app, &format!("page{n}@example.com")).await, 200, "{n}");
        }
        // The eleventh, through the API: refused as a throttled login is, nothing created or sent.
        let refused = api_sign_up(&app, None, "eleventh@example.com").await;
        assert_eq!(codes(&refused), ["AUTHENTICATION_ERROR"], "{refused}");
        let extensions = &refused["errors"][0]["extensions"];
        assert_eq!(extensions["reason"], "TOO_MANY_ATTEMPTS", "{refused}");
        assert!(extensions["retryAfter"].as_i64().unwrap() > 0, "{refused}");
        assert!(refused["data"]["signUp"]["user"].is_null(), "{refused}");
        assert_eq!(accounts(&app, "eleventh@example.com").await, 0);
        assert_eq!(mails(&app, "eleventh@example.com").await, 0);
        assert_eq!(mails(&app, "api0@example.com").await, 1, "the accepted ones were sent their mail");
        // The page says the same.
        assert_eq!(page_sign_up(&app, "twelfth@example.com").await, 429);
        assert_eq!(accounts(&app, "twelfth@example.com").await, 0);
        // Another address is not affected.
        let body = api_sign_up(&app, Some("203.0.113.10"), "elsewhere@example.com").await;
        assert!(body["data"]["signUp"]["user"]["accessToken"].is_string(), "{body}");
        assert_eq!(mails(&app, "elsewhere@example.com").await, 1);
        app.cleanup().await;
    }
}
