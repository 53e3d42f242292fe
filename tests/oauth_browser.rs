//! The authorization-code flow in a real headless browser (Chromium driven through WebDriver):
//! login form → consent page (screenshot kept in `tests/artifacts/consent.png`) → redirect with
//! a code → token → `me`. Chromium and chromedriver come from Debian's packages (`.ci/run`
//! installs them); without them the test is skipped, unless `ROADLOG_REQUIRE_BROWSER=1`.

mod common;

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use common::{Backend, TestApp};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    http: reqwest::Client,
    base: String,
    session: String,
    process: std::process::Child,
}

impl Driver {
    async fn start() -> Option<Driver> {
        let installed = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
            .iter()
            .all(|p| std::path::Path::new(p).exists());
        if !installed {
            assert!(
                std::env::var("ROADLOG_REQUIRE_BROWSER").is_err(),
                "Chromium and chromedriver are required here"
            );
            eprintln!("chromium or chromedriver is not installed: browser test skipped");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let process = std::process::Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        for _ in 0..100 {
            if http.get(format!("{base}/status")).send().await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = std::env::temp_dir().join(format!("roadlog-chromium-{port}"));
        let capabilities = json!({ "capabilities": { "alwaysMatch": { "browserName": "chrome", "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--window-size=412,915", format!("--user-data-dir={}", profile.display())]
        } } } });
        let created: Value = http
            .post(format!("{base}/session"))
            .json(&capabilities)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_string();
        Some(Driver {
            http,
            base: format!("{base}/session/{session}"),
            session,
            process,
        })
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let request = self.http.request(method, format!("{}{path}", self.base));
        let request = if body.is_null() { request } else { request.json(&body) };
        request.send().await.unwrap().json::<Value>().await.unwrap()["value"].clone()
    }

    async fn go(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", json!({ "url": url })).await;
    }

    async fn find(&self, css: &str) -> String {
        for _ in 0..50 {
            let found = self
                .call(
                    reqwest::Method::POST,
                    "/element",
                    json!({ "using": "css selector", "value": css }),
                )
                .await;
            if let Some(id) = found[ELEMENT].as_str() {
                return id.to_string();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no element {css}");
    }

    async fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &format!("/element/{id}/value"),
            json!({ "text": text }),
        )
        .await;
    }

    async fn click(&self, css: &str) {
        let id = self.find(css).await;
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), json!({}))
            .await;
    }

    async fn url(&self) -> String {
        self.call(reqwest::Method::GET, "/url", Value::Null)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    async fn screenshot(&self) -> Vec<u8> {
        let data = self.call(reqwest::Method::GET, "/screenshot", Value::Null).await;
        base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap())
            .unwrap()
    }

    async fn quit(mut self) {
        let _ = self.http.delete(&self.base).send().await;
        let _ = self.process.kill();
        let _ = self.session;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorization_in_a_real_browser() {
    let Some(driver) = Driver::start().await else { return };
    let app = TestApp::spawn(Backend::Sqlite).await.unwrap();
    let user = app.new_user("driver@example.com").await;
    // The application's callback: any page of ours will do, the browser only has to land there.
    let redirect = app.url("/health");
    let client = roadlog::oauth::clients::create(&app.server.db, "Fleet Manager", std::slice::from_ref(&redirect))
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
    let screenshot = driver.screenshot().await;
    assert_eq!(&screenshot[..8], b"\x89PNG\r\n\x1a\n", "a PNG screenshot");
    let artifacts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("consent.png"), &screenshot).unwrap();
    driver.click("button[value=allow]").await;
    let mut landed = String::new();
    for _ in 0..50 {
        landed = driver.url().await;
        if landed.starts_with(&redirect) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let params: std::collections::HashMap<String, String> =
        url::Url::parse(&landed).unwrap().query_pairs().into_owned().collect();
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
