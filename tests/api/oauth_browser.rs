//! The authorization-code flow in a real headless browser (Chromium driven through WebDriver):
//! login form → consent page (screenshot kept in `tests/artifacts/consent.png`) → redirect to
//! the application's callback with a code → token → `me`. Chromium and chromedriver come from
//! Debian's packages (`.ci/run` installs them); without them the test is reported as skipped,
//! unless `ROADLOG_REQUIRE_BROWSER=1`.

use serde_json::{Value, json};

use crate::support::browser::{Callback, Driver};
use crate::support::{Backend, TestApp};

tests! {
    #[needs(Browser)]
    async fn authorization_in_a_real_browser() {
        let driver = Driver::start().await;
        let app = TestApp::spawn(Backend::Sqlite).await;
        let user = app.new_user("driver@example.com").await;
        // The application's callback: the browser's arrival there ends the flow.
        let callback = Callback::bind("/callback").await;
        let redirect = callback.url.clone();
        let client = roadlog::oauth::clients::create(
            &app.server.db,
            roadlog::config::Environment::Sandbox,
            "Fleet Manager",
            std::slice::from_ref(&redirect),
        )
        .await
        .unwrap();
        let redirect_param: String = url::form_urlencoded::byte_serialize(redirect.as_bytes()).collect();
        driver
            .go(&app.url(&format!(
                "/oauth/authorize?client_id={}&response_type=code&redirect_uri={redirect_param}&state=browser",
                client.client_id
            )))
            .await;
        driver.type_into("#email", "driver@example.com").await;
        driver.type_into("#password", "long enough secret").await;
        driver.click("button[type=submit]").await;
        driver.find("button[value=allow]").await;
        driver.keep_screenshot("consent").await;
        let (landed, ()) = tokio::join!(callback.arrival(), driver.click("button[value=allow]"));
        let params: std::collections::HashMap<String, String> = landed.query_pairs().into_owned().collect();
        assert_eq!(params.get("state").map(String::as_str), Some("browser"), "{landed}");
        let code = params.get("code").expect("a code").clone();
        driver.quit().await;

        let form = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect.as_str()),
        ];
        let response = app
            .client
            .post(app.url("/api/oauth/token"))
            .basic_auth(&client.client_id, Some(&client.client_secret))
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let token: Value = response.json().await.unwrap();
        let (_, me) = app
            .graphql("{ me { id } }", json!({}), token["access_token"].as_str())
            .await;
        assert_eq!(me["data"]["me"]["id"], user.id);
        app.cleanup().await;
    }
}
