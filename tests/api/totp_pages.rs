//! The OAuth login page of an account with a second factor, as a browser drives it, on both
//! databases: the password leads to the code page (no session yet), a wrong code shows it again,
//! the right one leads to the consent and the authorization code; a recovery code works there
//! too, once; past 5 wrong codes the page answers 429. The invitation page, which asks for a
//! password only, opens no session for such an account.

use reqwest::StatusCode;

use crate::support::TestApp;
use crate::support::forms::{self, Browser, field};
use crate::totp::{code, enable, wrong};

const REDIRECT: &str = "https://fleet.example.com/callback";

async fn authorize_url(app: &TestApp) -> String {
    let created = roadlog::oauth::clients::create(
        &app.server.db,
        roadlog::config::Environment::Sandbox,
        "Fleet",
        &[REDIRECT.to_string()],
    )
    .await
    .unwrap();
    let redirect: String = url::form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect();
    app.url(&format!(
        "/oauth/authorize?client_id={}&response_type=code&redirect_uri={redirect}&state=xyz",
        created.client_id
    ))
}

/// The login form posted with the right password: the page that follows.
async fn password(app: &TestApp, browser: &mut Browser, url: &str, email: &str) -> forms::Page {
    let login = browser.get(url).await;
    assert_eq!(login.status, StatusCode::OK, "{}", login.body);
    let csrf = field(&login.body, "csrf_token");
    browser
        .post(
            &forms::action(&app.url(""), &login.body),
            &[
                ("csrf_token", &csrf),
                ("action", "login"),
                ("email", email),
                ("password", "long enough secret"),
            ],
        )
        .await
}

/// The code form of `page` posted with `code`.
async fn submit_code(app: &TestApp, browser: &mut Browser, page: &forms::Page, code: &str) -> forms::Page {
    let (csrf, challenge) = (field(&page.body, "csrf_token"), field(&page.body, "challenge"));
    browser
        .post(
            &forms::action(&app.url(""), &page.body),
            &[
                ("csrf_token", &csrf),
                ("action", "totp"),
                ("challenge", &challenge),
                ("code", code),
            ],
        )
        .await
}

async fn sessions_of(app: &TestApp, user: i64) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM browser_sessions WHERE user_id = $1")
        .bind(user)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
}

on_both_backends! {
    async fn the_login_page_asks_for_the_code(app) {
        let user = app.new_user("pages@example.com").await;
        let (secret, recovery) = enable(app, &user).await;
        let url = authorize_url(app).await;
        let mut browser = Browser::new();
        let page = password(app, &mut browser, &url, "pages@example.com").await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert!(page.body.contains("Enter the code of your authenticator") && page.body.contains("autocomplete=\"one-time-code\""), "{}", page.body);
        assert!(field(&page.body, "challenge").starts_with("rl_tc_"));
        assert_eq!(sessions_of(app, user.id).await, 0, "no session before the code");
        // A wrong code: the code page again, 401, still no session.
        let again = submit_code(app, &mut browser, &page, &wrong(&secret)).await;
        assert_eq!(again.status, StatusCode::UNAUTHORIZED, "{}", again.body);
        assert!(again.body.contains("Wrong code."), "{}", again.body);
        assert_eq!(sessions_of(app, user.id).await, 0);
        // The right code: the consent page, then the authorization code.
        let consent = submit_code(app, &mut browser, &again, &code(&secret, 1)).await;
        assert_eq!(consent.status, StatusCode::OK, "{}", consent.body);
        assert!(consent.body.contains("Authorize Fleet?"), "{}", consent.body);
        assert_eq!(sessions_of(app, user.id).await, 1);
        let csrf = field(&consent.body, "csrf_token");
        let answer = browser
            .post(&forms::action(&app.url(""), &consent.body), &[("csrf_token", &csrf), ("action", "allow")])
            .await;
        assert_eq!(answer.status, StatusCode::FOUND, "{}", answer.body);
        assert!(answer.location.unwrap().starts_with(&format!("{REDIRECT}?code=")));
        // The challenge of that login is spent.
        let replay = submit_code(app, &mut Browser::new(), &again, &recovery[0]).await;
        assert_ne!(replay.status, StatusCode::OK, "{}", replay.body);

        // A recovery code in another browser works once.
        let mut other = Browser::new();
        let page = password(app, &mut other, &url, "pages@example.com").await;
        let consent = submit_code(app, &mut other, &page, &recovery[1]).await;
        assert!(consent.body.contains("Authorize Fleet?"), "{}", consent.body);
        let mut third = Browser::new();
        let page = password(app, &mut third, &url, "pages@example.com").await;
        let again = submit_code(app, &mut third, &page, &recovery[1]).await;
        assert_eq!(again.status, StatusCode::UNAUTHORIZED, "{}", again.body);
        // Past 5 wrong codes (one counted above, and this one): 429, even with the right code.
        let mut page = again;
        for _ in 0..3 {
            page = submit_code(app, &mut third, &page, &wrong(&secret)).await;
            assert_eq!(page.status, StatusCode::UNAUTHORIZED, "{}", page.body);
        }
        let refused = submit_code(app, &mut third, &page, &code(&secret, 1)).await;
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS, "{}", refused.body);
        assert!(refused.body.contains("Too many failed attempts"), "{}", refused.body);
        // An account without a second factor goes straight to the consent.
        app.new_user("plain@example.com").await;
        let consent = password(app, &mut Browser::new(), &url, "plain@example.com").await;
        assert!(consent.body.contains("Authorize Fleet?"), "{}", consent.body);
    }

    async fn the_invitation_page_opens_no_session_without_the_code(app) {
        let admin = app.new_user("boss@example.com").await;
        let company = app.new_company(&admin, "Transports Martin").await;
        let link = crate::account_pages::invite(app, &admin, company, "guarded@example.com", false).await;
        let user = app.new_user("guarded@example.com").await;
        enable(app, &user).await;
        let mut browser = Browser::new();
        let page = browser.get(&link).await;
        let csrf = field(&page.body, "csrf_token");
        let answer = browser
            .post(
                &forms::action(&app.url(""), &page.body),
                &[("csrf_token", &csrf), ("action", "login"), ("email", "guarded@example.com"), ("password", "long enough secret")],
            )
            .await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
        assert!(answer.body.contains("second factor"), "{}", answer.body);
        assert_eq!(sessions_of(app, user.id).await, 0);
    }
}
