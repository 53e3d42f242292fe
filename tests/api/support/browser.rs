//! A real headless Chromium driven through WebDriver (chromedriver), from Debian's packages.
//!
//! Waits are the browser's own: the session's implicit wait makes "find an element" wait until
//! the element exists, and navigation commands return once the page has loaded; nothing here
//! polls on a timer.

use std::io::{BufRead, BufReader};

use base64::Engine;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Whether Chromium and chromedriver are installed.
pub fn installed() -> bool {
    [CHROMIUM, CHROMEDRIVER]
        .iter()
        .all(|p| std::path::Path::new(p).exists())
}

/// One browser session.
pub struct Driver {
    http: reqwest::Client,
    base: String,
    process: std::process::Child,
    profile: std::path::PathBuf,
}

impl Driver {
    /// Starts chromedriver and a headless Chromium with a fresh profile.
    pub async fn start() -> Driver {
        assert!(
            installed(),
            "Chromium and chromedriver are required (apt-get install chromium chromium-driver)"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut process = std::process::Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        // chromedriver says on standard output when it listens: wait for that line.
        let stdout = process.stdout.take().expect("piped");
        let (listening, started) = tokio::sync::oneshot::channel();
        // A thread of its own, not the runtime's blocking pool: the browser inherits this pipe,
        // and a browser left behind by a failed test would keep the runtime from shutting down.
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let mut listening = Some(listening);
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if line.contains("started successfully")
                    && let Some(tx) = listening.take()
                {
                    let _ = tx.send(());
                }
            }
        });
        started
            .await
            .expect("chromedriver started (its output ended before it listened)");
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let profile = super::cleanup::new_dir();
        let capabilities = json!({ "capabilities": { "alwaysMatch": { "browserName": "chrome",
            "goog:loggingPrefs": { "browser": "ALL" },
            "goog:chromeOptions": {
            "binary": CHROMIUM,
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
        let driver = Driver {
            http,
            base: format!("{base}/session/{session}"),
            process,
            profile,
        };
        driver
            .call(
                reqwest::Method::POST,
                "/timeouts",
                json!({ "implicit": 15_000, "pageLoad": 30_000 }),
            )
            .await;
        driver
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let request = self.http.request(method, format!("{}{path}", self.base));
        let request = if body.is_null() { request } else { request.json(&body) };
        request.send().await.unwrap().json::<Value>().await.unwrap()["value"].clone()
    }

    /// Opens a URL and waits for the page to load.
    pub async fn go(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", json!({ "url": url })).await;
    }

    /// The element matching `css`, waiting (implicitly) until it exists.
    pub async fn find(&self, css: &str) -> String {
        let found = self
            .call(
                reqwest::Method::POST,
                "/element",
                json!({ "using": "css selector", "value": css }),
            )
            .await;
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    /// The element matching an XPath expression (for text), waiting until it exists.
    pub async fn find_xpath(&self, xpath: &str) -> String {
        let found = self
            .call(
                reqwest::Method::POST,
                "/element",
                json!({ "using": "xpath", "value": xpath }),
            )
            .await;
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {xpath}: {found}"))
            .to_string()
    }

    /// The rendered text of the element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        let id = self.find(css).await;
        let text = self
            .call(reqwest::Method::GET, &format!("/element/{id}/text"), Value::Null)
            .await;
        text.as_str().unwrap_or_default().to_string()
    }

    /// Types into whatever has the focus, as a keyboard would (WebDriver key codes allowed:
    /// `\u{E009}` Control, `\u{E007}` Enter, `\u{E003}` Backspace).
    pub async fn type_into_focused(&self, text: &str) {
        let active = self.call(reqwest::Method::GET, "/element/active", Value::Null).await;
        let id = active[ELEMENT].as_str().expect("an element has the focus");
        self.call(
            reqwest::Method::POST,
            &format!("/element/{id}/value"),
            json!({ "text": text }),
        )
        .await;
    }

    /// Moves the mouse over the element matching `css` (what shows tooltips).
    pub async fn hover(&self, css: &str) {
        let id = self.find(css).await;
        let pointer = json!({ "actions": [{ "type": "pointer", "id": "mouse", "actions": [
            { "type": "pointerMove", "duration": 0, "origin": { ELEMENT: id }, "x": 0, "y": 0 }
        ] }] });
        self.call(reqwest::Method::POST, "/actions", pointer).await;
    }

    /// Runs a script in the page and returns its value.
    pub async fn execute(&self, script: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
        .await
    }

    /// Waits until a JavaScript expression is true in the page, checked at each frame the
    /// browser draws (for state a page keeps in no element; at most the script timeout, 30 s).
    pub async fn wait_until(&self, condition: &str) {
        let script = format!(
            "const done = arguments[arguments.length - 1]; \
             const check = () => {{ if ({condition}) done(true); else requestAnimationFrame(check); }}; check();"
        );
        let outcome = self
            .call(
                reqwest::Method::POST,
                "/execute/async",
                json!({ "script": script, "args": [] }),
            )
            .await;
        assert_eq!(outcome, json!(true), "never true: {condition}");
    }

    /// Sets the size of the window (screenshots of desktop pages).
    pub async fn resize(&self, width: u32, height: u32) {
        self.call(
            reqwest::Method::POST,
            "/window/rect",
            json!({ "width": width, "height": height }),
        )
        .await;
    }

    /// What the page wrote to the browser's console since the last call (errors, CSP
    /// violations), one message a line.
    pub async fn console_messages(&self) -> Vec<String> {
        let log = self
            .call(reqwest::Method::POST, "/se/log", json!({ "type": "browser" }))
            .await;
        log.as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        format!(
                            "{} {}",
                            e["level"].as_str().unwrap_or(""),
                            e["message"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &format!("/element/{id}/value"),
            json!({ "text": text }),
        )
        .await;
    }

    pub async fn click(&self, css: &str) {
        let id = self.find(css).await;
        self.click_element(&id).await;
    }

    /// Clicks an element found before (by `find` or `find_xpath`).
    pub async fn click_element(&self, id: &str) {
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), json!({}))
            .await;
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Vec<u8> {
        let data = self.call(reqwest::Method::GET, "/screenshot", Value::Null).await;
        base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap())
            .unwrap()
    }

    /// Keeps a screenshot in `tests/artifacts/NAME.png` (for people reviewing a run) and
    /// returns its path.
    pub async fn keep_screenshot(&self, name: &str) -> std::path::PathBuf {
        let screenshot = self.screenshot().await;
        assert_eq!(&screenshot[..8], b"\x89PNG\r\n\x1a\n", "a PNG screenshot");
        let artifacts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/artifacts");
        std::fs::create_dir_all(&artifacts).unwrap();
        let path = artifacts.join(format!("{name}.png"));
        std::fs::write(&path, &screenshot).unwrap();
        path
    }

    pub async fn quit(mut self) {
        let _ = self.http.delete(&self.base).send().await;
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Drop for Driver {
    /// A test that fails before `quit` still closes its browser: the session is deleted (a
    /// blocking request, two seconds at most) before chromedriver is killed.
    fn drop(&mut self) {
        if let Ok(url) = url::Url::parse(&self.base)
            && let Some(port) = url.port()
        {
            use std::io::{Read, Write};
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            let limit = std::time::Duration::from_secs(2);
            if let Ok(mut stream) = std::net::TcpStream::connect_timeout(&addr, limit) {
                let _ = stream.set_read_timeout(Some(limit));
                let request = format!(
                    "DELETE {} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    url.path()
                );
                let _ = stream.write_all(request.as_bytes());
                let _ = stream.read(&mut [0u8; 1024]);
            }
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A tiny web server standing for a third-party application's callback: the browser's arrival
/// there is the event a test waits for.
pub struct Callback {
    listener: tokio::net::TcpListener,
    pub url: String,
}

impl Callback {
    pub async fn bind(path: &str) -> Callback {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}{path}", listener.local_addr().unwrap());
        Callback { listener, url }
    }

    /// Waits for the browser's request and returns its full URL.
    pub async fn arrival(&self) -> url::Url {
        loop {
            let (mut stream, _) = self.listener.accept().await.unwrap();
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                head.extend_from_slice(&buf[..n]);
            }
            let text = String::from_utf8_lossy(&head);
            let target = text.split_whitespace().nth(1).unwrap_or("").to_string();
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
                .await;
            // Browsers may ask for /favicon.ico too: only the callback path counts.
            let url = url::Url::parse(&self.url).unwrap().join(&target).unwrap();
            if url.path() == url::Url::parse(&self.url).unwrap().path() {
                return url;
            }
        }
    }
}
