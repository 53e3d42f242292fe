//! The console in a real headless browser (Chromium through WebDriver, as the OAuth browser
//! test): the first example query runs without a token; a query with the token field shows the
//! caller's data; a broken query typed into the editor is marked (schema error, then syntax
//! error) while no request reaches `/api/graphql`; running it shows the 400 wrapped in an `error`
//! field; a GraphQL GET opened in the browser opens the console on that query. Requests are
//! counted by the server (its `/metrics`); the page loads nothing from another origin and breaks
//! no rule of its Content-Security-Policy. Screenshots are kept in `tests/artifacts/console-*.png`
//! (the test prints their paths).

use serde_json::Value;

use crate::support::browser::Driver;
use crate::support::{Backend, TestApp};

const EDITOR: &str = ".graphiql-query-editor .CodeMirror";
const RESULT: &str = "//section[contains(@class,'result-window')]";
const LINT_ERROR: &str = ".graphiql-query-editor .CodeMirror-lint-mark-error";
/// WebDriver keys: Control (pressed until pressed again), Enter, Backspace.
const CONTROL: &str = "\u{E009}";
const ENTER: &str = "\u{E007}";
const BACKSPACE: &str = "\u{E003}";

/// Requests the server answered on `/api/graphql`: all of them, and those answered 400.
async fn graphql_requests(app: &TestApp) -> (u64, u64) {
    let text = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut all = 0;
    let mut bad = 0;
    for line in text.lines() {
        if line.starts_with("roadlog_http_requests_total{") && line.contains("route=\"/api/graphql\"") {
            let count: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
            all += count;
            if line.contains("status=\"400\"") {
                bad += count;
            }
        }
    }
    (all, bad)
}

/// Replaces the editor's document by typing, as a person would (the editor closes brackets
/// itself: typing the closing one steps over it), and waits until GraphiQL has taken it.
async fn type_document(driver: &Driver, document: &str) {
    driver.click(EDITOR).await;
    driver
        .type_into_focused(&format!("{CONTROL}a{CONTROL}{BACKSPACE}"))
        .await;
    driver.type_into_focused(document).await;
    // GraphiQL takes the document (and its operation names) from the editor 100 ms after the
    // last key, and keeps it in its storage then: run nothing before that, as no person could.
    let stored = serde_json::to_string(document).unwrap();
    driver
        .wait_until(&format!("sessionStorage.getItem('graphiql:query') === {stored}"))
        .await;
}

async fn editor_text(driver: &Driver) -> String {
    let script = format!("return document.querySelector('{EDITOR}').CodeMirror.getValue()");
    driver.execute(&script).await.as_str().unwrap().to_string()
}

async fn result_json(driver: &Driver) -> Value {
    let script = "return document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()";
    let text = driver.execute(script).await;
    serde_json::from_str(text.as_str().unwrap()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The requests the page made to `/api/graphql`, as the browser counts them.
async fn page_requests(driver: &Driver) -> u64 {
    let script = "return performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname === '/api/graphql').length";
    driver.execute(script).await.as_u64().unwrap()
}

tests! {
    #[needs(Browser)]
    async fn console_in_a_real_browser() {
        let driver = Driver::start().await;
        driver.resize(1280, 900).await;
        let app = TestApp::spawn(Backend::Sqlite).await;
        let user = app.new_user("driver@example.com").await;
        let mut screenshots = Vec::new();

        driver.go(&app.url("/console")).await;
        assert_eq!(driver.text(".roadlog-environment").await, "SANDBOX");
        // GraphiQL has the schema (one introspection request) before anything is typed.
        driver.find("#graphiql[data-schema=loaded]").await;
        screenshots.push(driver.keep_screenshot("console-start").await);

        // The first example needs no token: put the cursor in it and press Ctrl-Enter.
        assert!(editor_text(&driver).await.contains("query EntryPoints"));
        let entry_points = driver
            .find_xpath("//span[contains(@class,'cm-def') and text()='EntryPoints']")
            .await;
        driver.click_element(&entry_points).await;
        driver.type_into_focused(&format!("{CONTROL}{ENTER}{CONTROL}")).await;
        driver.find_xpath(&format!("{RESULT}//span[contains(text(),'\"__schema\"')]")).await;
        // The server validates the whole document before it runs one operation: the other
        // examples (LogIn, Me, SignUp) are valid too.
        let entry = result_json(&driver).await;
        let queries: Vec<&str> = entry["data"]["__schema"]["queryType"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert!(queries.contains(&"me") && queries.contains(&"company"), "{entry}");

        // The token field: `me` answers as the user.
        driver.type_into("#roadlog-token", &user.token).await;
        type_document(&driver, "{ me { email } }").await;
        assert_eq!(editor_text(&driver).await, "{ me { email } }");
        driver.click(".graphiql-execute-button").await;
        driver.find_xpath(&format!("{RESULT}//span[contains(text(),'driver@example.com')]")).await;
        assert_eq!(result_json(&driver).await["data"]["me"]["email"], "driver@example.com");
        screenshots.push(driver.keep_screenshot("console-result").await);

        // Broken documents are marked as they are typed, and nothing is sent.
        let (before, bad_before) = graphql_requests(&app).await;
        let page_before = page_requests(&driver).await;
        type_document(&driver, "{ me { nosuchField } }").await;
        assert_eq!(editor_text(&driver).await, "{ me { nosuchField } }");
        assert_eq!(driver.text(LINT_ERROR).await, "nosuchField");
        driver.hover(LINT_ERROR).await;
        // The tooltip fades in; its text counts (and is drawn) once it is opaque.
        driver
            .wait_until("(t => t !== null && getComputedStyle(t).opacity === '1')(document.querySelector('.CodeMirror-lint-tooltip'))")
            .await;
        let tooltip = driver.text(".CodeMirror-lint-tooltip").await;
        assert!(tooltip.contains("Cannot query field \"nosuchField\" on type \"User\""), "{tooltip}");
        screenshots.push(driver.keep_screenshot("console-schema-error").await);
        type_document(&driver, "{ me { email: } }").await;
        assert_eq!(editor_text(&driver).await, "{ me { email: } }");
        // The syntax error is the `}` where a field name should be.
        driver
            .find_xpath("//*[contains(@class,'CodeMirror-lint-mark-error') and normalize-space(.)='}']")
            .await;
        screenshots.push(driver.keep_screenshot("console-syntax-error").await);
        assert_eq!(graphql_requests(&app).await, (before, bad_before), "the server got no request while typing");
        assert_eq!(page_requests(&driver).await, page_before, "the page sent no request while typing");

        // Sent anyway: the 400 is shown wrapped in `error`.
        driver.click(".graphiql-execute-button").await;
        driver.find_xpath(&format!("{RESULT}//span[contains(text(),'Syntax Error')]")).await;
        let shown = result_json(&driver).await;
        let keys: Vec<&String> = shown.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["error"], "{shown}");
        let message = shown["error"]["errors"][0]["message"].as_str().unwrap();
        assert!(message.starts_with("Syntax Error"), "{shown}");
        assert_eq!(shown["error"]["errors"][0]["locations"][0]["column"], 15, "{shown}");
        assert_eq!(graphql_requests(&app).await, (before + 1, bad_before + 1), "one request, answered 400");
        screenshots.push(driver.keep_screenshot("console-400").await);

        // Everything came from this origin, and the policy refused nothing.
        let origins = driver
            .execute("return [...new Set(performance.getEntriesByType('resource').map(e => new URL(e.name).origin))]")
            .await;
        assert_eq!(origins, serde_json::json!([app.server.url()]), "{origins}");
        // The browser reports the 400 it was sent; nothing else may be an error.
        let answered_400 = "/api/graphql - Failed to load resource: the server responded with a status of 400";
        let messages = driver.console_messages().await;
        assert!(
            messages
                .iter()
                .all(|m| !m.contains("Content Security Policy") && (!m.starts_with("SEVERE") || m.contains(answered_400))),
            "{messages:#?}"
        );
        // What was typed and sent (a token, passwords in LogIn) lives in the tab's session
        // storage only, never in the browser's lasting storage.
        let lasting = driver.execute("return Object.keys(localStorage)").await;
        assert_eq!(lasting, serde_json::json!([]), "{lasting}");
        let history = driver.execute("return sessionStorage.getItem('graphiql:queries')").await;
        assert!(history.as_str().is_some_and(|h| h.contains("{ me { email } }")), "{history}");

        // A GraphQL GET opened in the browser: the console, with that query in the editor.
        driver.go(&app.url("/api/graphql?query=%7B%20me%20%7B%20id%20%7D%20%7D")).await;
        driver.find("#graphiql[data-schema=loaded]").await;
        assert_eq!(editor_text(&driver).await, "{ me { id } }");

        for path in &screenshots {
            println!("screenshot: {}", path.display());
        }
        driver.quit().await;
        app.cleanup().await;
    }
}
