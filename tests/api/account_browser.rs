//! The account journeys in a real headless browser (Chromium through WebDriver, as the OAuth
//! test), on SQLite and on PostgreSQL, each reading the e-mails from the outbox:
//! - an invitation: the e-mail's link, "create an account", back to the invitation, accept;
//! - sign-up from an application's login page, back to its consent page, then the confirmation
//!   link of the e-mail;
//! - a forgotten password: the login page's link, the e-mail's link, the new password, and a
//!   login with it.
//!
//! Screenshots are kept in `tests/artifacts/`.

use crate::account_pages::{invite, mail_link};
use crate::support::browser::{Callback, Driver};
use crate::support::{Backend, TestApp};

const PASSWORD: &str = "a browser passphrase";

/// The servers to run a journey on: SQLite always, PostgreSQL when this machine has it (the
/// browser is the scarce resource here, so one browser test walks both; CI sets
/// `TEST_DATABASE_URL`, which makes the PostgreSQL journey mandatory there).
async fn apps() -> Vec<TestApp> {
    let mut apps = vec![TestApp::spawn(Backend::Sqlite).await];
    if crate::support::app::postgres_url().is_some() {
        apps.push(TestApp::spawn(Backend::Postgres).await);
    }
    apps
}

async fn confirmed_at(app: &TestApp, email: &str) -> Option<i64> {
    let (at,): (Option<i64>,) = sqlx::query_as("SELECT email_confirmed_at FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    at
}

/// An application registered with a callback the test listens on, and its authorization URL.
async fn application(app: &TestApp) -> (Callback, String) {
    let callback = Callback::bind("/callback").await;
    let client = roadlog::oauth::clients::create(
        &app.server.db,
        roadlog::config::Environment::Sandbox,
        "Fleet Manager",
        std::slice::from_ref(&callback.url),
    )
    .await
    .unwrap();
    let redirect: String = url::form_urlencoded::byte_serialize(callback.url.as_bytes()).collect();
    let authorize = app.url(&format!(
        "/oauth/authorize?client_id={}&response_type=code&redirect_uri={redirect}&state=journey",
        client.client_id
    ));
    (callback, authorize)
}

tests! {
    #[needs(Browser)]
    async fn invitation_journey_in_a_browser() {
        for app in apps().await {
            let driver = Driver::start().await;
            let admin = app.new_user("admin@example.com").await;
            let company = app.new_company(&admin, "Transports Martin").await;
            let link = invite(&app, &admin, company, "walker@example.com", false).await;

            driver.go(&link).await;
            assert_eq!(driver.text("h1").await, "Transports Martin invites you to Roadlog");
            assert_eq!(driver.text("#role").await, "Role: worker");
            driver.click("#signup").await;
            // The sign-up page suggests the invited address.
            driver.find("#first_name").await;
            let typed = driver.execute("return document.getElementById('email').value").await;
            assert_eq!(typed, "walker@example.com");
            driver.type_into("#first_name", "Paul").await;
            driver.type_into("#last_name", "Walker").await;
            driver.type_into("#password", PASSWORD).await;
            driver.click("button[type=submit]").await;
            // Back on the invitation, logged in.
            driver.find("button[value=accept]").await;
            assert_eq!(driver.text("h1").await, "Transports Martin invites you to Roadlog");
            driver.keep_screenshot(&format!("invitation-{:?}", app.backend)).await;
            driver.click("button[value=accept]").await;
            driver.find_xpath("//h1[text()='Invitation accepted']").await;

            let (status, email): (String, String) = sqlx::query_as(
                "SELECT e.validation_status, u.email FROM employments e JOIN users u ON u.id = e.user_id
                 WHERE e.email = 'walker@example.com'",
            )
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
            assert_eq!((status.as_str(), email.as_str()), ("approved", "walker@example.com"));
            assert!(confirmed_at(&app, "walker@example.com").await.is_some(), "the invitation proved the address");
            driver.quit().await;
            app.cleanup().await;
        }
    }

    #[needs(Browser)]
    async fn sign_up_and_confirmation_in_a_browser() {
        for app in apps().await {
            let driver = Driver::start().await;
            let (callback, authorize) = application(&app).await;
            driver.go(&authorize).await;
            driver.click("#signup").await;
            driver.type_into("#email", "nina@example.com").await;
            driver.type_into("#first_name", "Nina").await;
            driver.type_into("#last_name", "Dupont").await;
            driver.type_into("#password", PASSWORD).await;
            driver.click("button[type=submit]").await;
            // Back to the authorization request: the consent page, logged in.
            driver.find("button[value=allow]").await;
            let (landed, ()) = tokio::join!(callback.arrival(), driver.click("button[value=allow]"));
            let params: std::collections::HashMap<String, String> = landed.query_pairs().into_owned().collect();
            assert_eq!(params.get("state").map(String::as_str), Some("journey"), "{landed}");
            assert!(params.contains_key("code"), "{landed}");
            assert_eq!(confirmed_at(&app, "nina@example.com").await, None);

            let link = mail_link(&app, "nina@example.com", "/account/confirm?token=").await;
            driver.go(&link).await;
            assert_eq!(driver.text("h1").await, "Your address is confirmed");
            assert!(confirmed_at(&app, "nina@example.com").await.is_some());
            driver.quit().await;
            app.cleanup().await;
        }
    }

    #[needs(Browser)]
    async fn password_reset_in_a_browser() {
        for app in apps().await {
            let driver = Driver::start().await;
            let user = app.new_user("forgetful@example.com").await;
            let (_callback, authorize) = application(&app).await;
            driver.go(&authorize).await;
            driver.click("a[href='/account/password/reset']").await;
            driver.type_into("#email", "forgetful@example.com").await;
            driver.click("button[type=submit]").await;
            driver.find_xpath("//h1[text()='Check your inbox']").await;

            let link = mail_link(&app, "forgetful@example.com", "/account/password/new?token=").await;
            driver.go(&link).await;
            driver.type_into("#password", PASSWORD).await;
            driver.type_into("#password_again", PASSWORD).await;
            driver.click("button[type=submit]").await;
            driver.find_xpath("//h1[text()='Your password is changed']").await;
            driver.keep_screenshot(&format!("password-changed-{:?}", app.backend)).await;
            let (open,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions WHERE user_id = $1 AND revoked_at IS NULL")
                .bind(user.id)
                .fetch_one(&app.server.db.pool)
                .await
                .unwrap();
            assert_eq!(open, 0, "every login session is revoked");

            // The new password opens the application's login page.
            driver.go(&authorize).await;
            driver.type_into("#email", "forgetful@example.com").await;
            driver.type_into("#password", PASSWORD).await;
            driver.click("button[type=submit]").await;
            driver.find("button[value=allow]").await;
            driver.quit().await;
            app.cleanup().await;
        }
    }
}
