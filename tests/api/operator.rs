//! Running Roadlog as an operator does: the binary started as a process, its logs (standard
//! error only, one line per request, JSON on demand, no colour when redirected, never a
//! secret), its start-up failures, its commands' options, its metrics and readiness. Its
//! graceful stop is `graceful_stop`'s.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::support::forms::{self, Browser, field};
use crate::support::process::{ServerProcess, command};
use crate::support::{TestApp, cleanup};

/// The SQLite database of a new folder, as `DATABASE_URL`.
fn sqlite_url() -> String {
    format!("sqlite://{}/roadlog.db?mode=rwc", cleanup::new_dir().display())
}

fn run(args: &[&str], envs: &[(&str, &str)]) -> std::process::Output {
    command(args, envs).output().expect("roadlog runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn post_graphql(
    url: &str,
    query: &str,
    variables: Value,
    token: Option<&str>,
) -> (reqwest::header::HeaderMap, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .json(&json!({ "query": query, "variables": variables }));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let headers = response.headers().clone();
    (headers, response.json().await.unwrap())
}

tests! {
    async fn logs_are_one_json_line_per_request_on_standard_error() {
        let database = sqlite_url();
        let server = ServerProcess::start(&["--log-format", "json"], &[("DATABASE_URL", &database)]);
        let client = reqwest::Client::new();
        let mut ids = Vec::new();
        for (path, id) in [("/health", "op-health-1"), ("/no/such/route", "op-missing-2")] {
            let response = client.get(server.url(path)).header("x-request-id", id).send().await.unwrap();
            assert_eq!(response.headers()["x-request-id"], id);
            ids.push(id.to_string());
        }
        let (headers, body) = post_graphql(&server.url("/api/graphql"), "{ __typename }", json!({}), None).await;
        assert_eq!(body["data"]["__typename"], "Queries");
        let generated = headers["x-request-id"].to_str().unwrap().to_string();
        assert!(!generated.is_empty(), "a request without an id gets one");
        ids.push(generated.clone());
        let (status, stderr, stdout) = server.terminate();
        assert!(status.success(), "SIGTERM stops the server with status 0: {status:?}");
        assert!(stdout.is_empty(), "nothing on standard output: {}", text(&stdout));
        let lines: Vec<Value> = stderr
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        assert!(stderr.iter().all(|l| !l.contains('\u{1b}')), "no terminal escapes");
        for id in &ids {
            let about: Vec<&Value> = lines.iter().filter(|l| l["span"]["request_id"] == id.as_str()).collect();
            assert_eq!(about.len(), 1, "one line per request at the default level, for {id}: {about:?}");
            let line = about[0];
            assert_eq!(line["level"], "INFO");
            assert_eq!(line["target"], "roadlog::access");
            assert!(line["timestamp"].is_string() && line["latency_ms"].is_number(), "{line}");
            assert!(line["status"].is_u64() && line["span"]["route"].is_string(), "{line}");
        }
        let graphql = lines.iter().find(|l| l["span"]["request_id"] == generated.as_str()).unwrap();
        assert_eq!((graphql["span"]["route"].as_str(), graphql["status"].as_u64()), (Some("/api/graphql"), Some(200)));
        println!("a JSON access line: {graphql}");
        let missing = lines.iter().find(|l| l["span"]["request_id"] == "op-missing-2").unwrap();
        assert_eq!(missing["status"], 404);
        // Start-up says where it runs, and the stop is logged.
        let start = lines.iter().find(|l| l["message"] == "starting roadlog").expect("a start-up line");
        assert_eq!(start["environment"], "sandbox");
        assert!(start["database"].as_str().unwrap().starts_with("SQLite /"), "{start}");
        assert!(start["bind"].is_string() && start["public_url"].is_string());
        assert!(lines.iter().any(|l| l["message"] == "stopped"));
    }

    async fn human_logs_carry_no_colour_when_redirected() {
        let database = sqlite_url();
        let server = ServerProcess::start(&[], &[("DATABASE_URL", &database)]);
        reqwest::get(server.url("/health")).await.unwrap();
        let (status, stderr, _) = server.terminate();
        assert!(status.success());
        assert!(stderr.iter().any(|l| l.contains("roadlog::access") && l.contains("status=200")), "{stderr:?}");
        assert!(stderr.iter().all(|l| !l.contains('\u{1b}')), "no terminal escapes: {stderr:?}");
    }

    async fn no_secret_ever_reaches_the_logs() {
        let database = sqlite_url();
        // The most talkative level: every library's debug and trace lines included.
        let server = ServerProcess::start(&["--log-format", "json"], &[("DATABASE_URL", &database), ("RUST_LOG", "trace")]);
        let graphql = server.url("/api/graphql");
        let password = "correct horse battery staple";
        let mut secrets: Vec<String> = vec![password.to_string()];
        let (_, body) = post_graphql(
            &graphql,
            "mutation($e: Email!, $p: String!) { signUp { user(email: $e, password: $p, firstName: \"Jeanne\", lastName: \"Martin\") { accessToken refreshToken } } }",
            json!({ "e": "jeanne@example.com", "p": password }),
            None,
        )
        .await;
        let tokens = &body["data"]["signUp"]["user"];
        secrets.push(tokens["accessToken"].as_str().unwrap().to_string());
        secrets.push(tokens["refreshToken"].as_str().unwrap().to_string());
        let (_, body) = post_graphql(
            &graphql,
            "mutation($e: Email!, $p: String!) { auth { login(email: $e, password: $p) { accessToken refreshToken } } }",
            json!({ "e": "jeanne@example.com", "p": password }),
            None,
        )
        .await;
        let access = body["data"]["auth"]["login"]["accessToken"].as_str().unwrap().to_string();
        let refresh = body["data"]["auth"]["login"]["refreshToken"].as_str().unwrap().to_string();
        let (_, body) = post_graphql(&graphql, "mutation { auth { refresh { accessToken refreshToken } } }", json!({}), Some(&refresh)).await;
        secrets.extend([access.clone(), refresh.clone()]);
        secrets.push(body["data"]["auth"]["refresh"]["accessToken"].as_str().unwrap().to_string());
        secrets.push(body["data"]["auth"]["refresh"]["refreshToken"].as_str().unwrap().to_string());
        // A wrong password is not logged either.
        post_graphql(
            &graphql,
            "mutation($e: Email!, $p: String!) { auth { login(email: $e, password: $p) { accessToken } } }",
            json!({ "e": "jeanne@example.com", "p": "a wrong guess of a password" }),
            None,
        )
        .await;
        secrets.push("a wrong guess of a password".to_string());
        // An invitation: its token goes into the e-mail body, never into a log line.
        let (_, body) = post_graphql(&graphql, "mutation { signUp { company(usualName: \"Martin\", siren: \"123456789\") { company { id } } } }", json!({}), Some(&access)).await;
        let company = body["data"]["signUp"]["company"]["company"]["id"].as_i64().unwrap();
        post_graphql(
            &graphql,
            "mutation($c: Int!) { employments { createEmployment(companyId: $c, mail: \"new.driver@example.com\") { id } } }",
            json!({ "c": company }),
            Some(&access),
        )
        .await;
        // An OAuth client and the code flow: its secret, the code and the token.
        let created = run(
            &["client", "create", "--name", "Fleet", "--redirect-uri", "https://fleet.example.com/cb"],
            &[("DATABASE_URL", &database)],
        );
        assert!(created.status.success(), "{}", text(&created.stderr));
        let created: Value = serde_json::from_slice(&created.stdout).unwrap();
        let client_id = created["client_id"].as_str().unwrap().to_string();
        let client_secret = created["client_secret"].as_str().unwrap().to_string();
        secrets.push(client_secret.clone());
        let mut browser = Browser::new();
        let base = server.url("");
        let login = browser
            .get(&server.url(&format!(
                "/oauth/authorize?client_id={client_id}&response_type=code&redirect_uri=https%3A%2F%2Ffleet.example.com%2Fcb&state=s"
            )))
            .await;
        let csrf = field(&login.body, "csrf_token");
        secrets.push(csrf.clone());
        let consent = browser
            .post(
                &forms::action(&base, &login.body),
                &[("csrf_token", &csrf), ("action", "login"), ("email", "jeanne@example.com"), ("password", password)],
            )
            .await;
        let csrf = field(&consent.body, "csrf_token");
        secrets.push(csrf.clone());
        let answer = browser
            .post(&forms::action(&base, &consent.body), &[("csrf_token", &csrf), ("action", "allow")])
            .await;
        let location = url::Url::parse(answer.location.as_deref().expect("redirected with a code")).unwrap();
        let code = location.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
        secrets.push(code.clone());
        secrets.extend(browser.cookies.values().cloned());
        let token: Value = reqwest::Client::new()
            .post(server.url("/api/oauth/token"))
            .basic_auth(&client_id, Some(&client_secret))
            .form(&[("grant_type", "authorization_code"), ("code", code.as_str()), ("redirect_uri", "https://fleet.example.com/cb")])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        secrets.push(token["access_token"].as_str().expect("an OAuth token").to_string());
        // The invitation token, read from the outbox of this database.
        let mail = run(&["migrate"], &[("DATABASE_URL", &database)]);
        assert!(mail.status.success());
        let args = roadlog::config::DatabaseArgs::new(roadlog::config::Environment::Sandbox, Some(database.clone()));
        let db = roadlog::server::open_database(&args).await.unwrap();
        let (body,): (String,) = sqlx::query_as("SELECT body FROM emails WHERE recipient = 'new.driver@example.com'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
        let invitation = body.split_whitespace().find(|w| w.starts_with("rl_inv_")).expect("a token in the e-mail").to_string();
        secrets.push(invitation);
        db.pool.close().await;

        let (status, stderr, _) = server.terminate();
        assert!(status.success());
        assert!(stderr.len() > 50, "trace logging was on: {} lines", stderr.len());
        let unique: HashSet<&String> = secrets.iter().collect();
        for secret in unique {
            assert!(secret.len() >= 8);
            for line in &stderr {
                assert!(!line.contains(secret.as_str()), "a secret ({secret}) in a log line: {line}");
            }
        }
    }

    async fn start_up_failures_name_what_failed() {
        // The address is taken.
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = taken.local_addr().unwrap().to_string();
        let output = run(&["serve", "--bind", &address], &[("DATABASE_URL", &sqlite_url())]);
        assert!(!output.status.success());
        let stderr = text(&output.stderr);
        assert!(stderr.contains(&format!("cannot listen on {address}")) && stderr.contains("in use"), "{stderr}");
        // The database folder cannot be created.
        let output = run(&["migrate", "--data-dir", "/proc/roadlog-cannot-be-here"], &[]);
        assert!(!output.status.success());
        let stderr = text(&output.stderr);
        assert!(stderr.contains("cannot open the database (SQLite /proc/roadlog-cannot-be-here/roadlog-sandbox.db)"), "{stderr}");
        // The database server is unreachable: named without its password.
        let output = run(&["migrate"], &[("DATABASE_URL", "postgres://app:s3cret@127.0.0.1:1/roadlog")]);
        assert!(!output.status.success());
        let stderr = text(&output.stderr);
        assert!(stderr.contains("PostgreSQL app@127.0.0.1:1/roadlog") && stderr.contains("refused"), "{stderr}");
        assert!(!stderr.contains("s3cret"), "{stderr}");
        // Production refuses SQLite unless told otherwise.
        let database = sqlite_url();
        let output = run(&["migrate", "--environment", "production"], &[("DATABASE_URL", &database)]);
        assert!(!output.status.success());
        assert!(text(&output.stderr).contains("--allow-sqlite-in-production"), "{}", text(&output.stderr));
        let output = run(&["migrate", "--environment", "production", "--allow-sqlite-in-production"], &[("DATABASE_URL", &database)]);
        assert!(output.status.success(), "{}", text(&output.stderr));
    }

    fn each_command_shows_only_its_own_options() {
        let help = |args: &[&str]| text(&run(args, &[]).stdout);
        let serve = help(&["serve", "--help"]);
        for option in ["--bind", "--database-url", "--metrics-bind", "--shutdown-timeout", "--log-format"] {
            assert!(serve.contains(option), "serve --help lists {option}");
        }
        for args in [["client", "--help"], ["migrate", "--help"]] {
            let text = help(&args);
            assert!(text.contains("--database-url"), "{args:?}: {text}");
            for server_only in ["--bind", "--smtp-url", "--metrics-bind", "--max-connections"] {
                assert!(!text.contains(server_only), "{args:?} --help does not list {server_only}");
            }
        }
        let inspect = help(&["c1b", "inspect", "--help"]);
        assert!(inspect.contains("--root-key") && !inspect.contains("--database-url"), "{inspect}");
    }

    fn config_prints_each_setting_and_where_it_comes_from() {
        let output = run(
            &["config", "--mail-from", "ops@example.com", "--database-url", "postgres://app:s3cret@db.internal/roadlog"],
            &[("ROADLOG_BIND", "127.0.0.1:9999")],
        );
        assert!(output.status.success(), "{}", text(&output.stderr));
        let stdout = text(&output.stdout);
        let line = |name: &str| {
            stdout
                .lines()
                .find(|l| l.starts_with(&format!("{name} ")))
                .unwrap_or_else(|| panic!("no {name} in {stdout}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(line("--bind"), "--bind 127.0.0.1:9999 environment (ROADLOG_BIND)");
        assert_eq!(line("--mail-from"), "--mail-from ops@example.com flag");
        assert_eq!(line("--shutdown-timeout"), "--shutdown-timeout 30 default");
        assert!(line("--database-url").contains("postgres://app:****@db.internal/roadlog"), "{stdout}");
        assert!(!stdout.contains("s3cret"), "{stdout}");
        assert!(stdout.contains("PostgreSQL app@db.internal:5432/roadlog"), "{stdout}");
    }

    fn the_default_database_is_the_same_from_any_folder() {
        let home = cleanup::new_dir();
        let (first, second) = (cleanup::new_dir(), cleanup::new_dir());
        let data_home = home.join("data");
        let env = [("XDG_DATA_HOME", data_home.to_str().unwrap())];
        let created = command(&["client", "create", "--name", "Fleet", "--redirect-uri", "https://fleet.example.com/cb"], &env)
            .current_dir(&first)
            .output()
            .unwrap();
        assert!(created.status.success(), "{}", text(&created.stderr));
        let listed = command(&["client", "list", "--json"], &env).current_dir(&second).output().unwrap();
        let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
        assert_eq!(listed.as_array().map(Vec::len), Some(1), "the client created from another folder is found");
        let file = data_home.join("roadlog/roadlog-sandbox.db");
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600, "the database (signing keys, token hashes) is the service's only");
        assert_eq!(mode(&data_home.join("roadlog")), 0o700);
        assert!(!first.join("data").exists() && !second.join("data").exists(), "nothing relative to the folder");
    }

    async fn sqlite_durability_is_normal_by_default_and_full_on_demand() {
        use roadlog::config::SqliteSynchronous;
        for (setting, expected) in [(SqliteSynchronous::Normal, 1_i64), (SqliteSynchronous::Full, 2)] {
            let db = roadlog::db::Db::connect_with(&sqlite_url(), setting).await.unwrap();
            // Every pooled connection carries the setting, not only the first one.
            let mut held = Vec::new();
            for _ in 0..3 {
                let mut conn = db.pool.acquire().await.unwrap();
                let (mode,): (i64,) = sqlx::query_as("PRAGMA synchronous").fetch_one(&mut *conn).await.unwrap();
                assert_eq!(mode, expected, "{setting:?}");
                let (journal,): (String,) = sqlx::query_as("PRAGMA journal_mode").fetch_one(&mut *conn).await.unwrap();
                assert_eq!(journal, "wal");
                held.push(conn);
            }
        }
        let help = run(&["serve", "--help"], &[]);
        assert!(text(&help.stdout).contains("--sqlite-synchronous"), "{}", text(&help.stdout));
    }

    fn production_refuses_plain_http_redirects_except_on_loopback() {
        let database = sqlite_url();
        let env = [("DATABASE_URL", database.as_str()), ("ROADLOG_ENV", "production"), ("ROADLOG_ALLOW_SQLITE_IN_PRODUCTION", "true")];
        let refused = run(&["client", "create", "--name", "Fleet", "--redirect-uri", "http://fleet.example.com/cb"], &env);
        assert!(!refused.status.success());
        assert!(text(&refused.stderr).contains("loopback"), "{}", text(&refused.stderr));
        let loopback = run(&["client", "create", "--name", "Desktop", "--redirect-uri", "http://127.0.0.1:8123/cb"], &env);
        assert!(loopback.status.success(), "{}", text(&loopback.stderr));
    }
}

on_both_backends! {
    async fn readiness_and_metrics(app) {
        let ready: Value = reqwest::get(app.url("/ready")).await.unwrap().json().await.unwrap();
        assert_eq!(ready["status"], "ready");
        let known = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/src/db/migrations/sqlite")).unwrap().count();
        assert_eq!(ready["migrations"], known, "every migration applied");
        for _ in 0..3 {
            assert_eq!(reqwest::get(app.url("/health")).await.unwrap().status(), 200);
        }
        reqwest::get(app.url("/wp-login.php")).await.unwrap();
        let response = reqwest::get(app.url("/metrics")).await.unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));
        let text = response.text().await.unwrap();
        assert!(text.contains("roadlog_http_requests_total{method=\"GET\",route=\"/health\",status=\"200\"} 3"), "{text}");
        assert!(text.contains("route=\"other\",status=\"404\"} 1"), "unknown paths share one series: {text}");
        assert!(text.contains("roadlog_http_request_duration_seconds_bucket{route=\"/health\""), "{text}");
        assert!(text.contains("roadlog_db_pool_connections "), "{text}");
        assert!(text.contains("roadlog_outbox_backlog 0"), "{text}");
        assert!(text.contains("roadlog_http_connections_open "), "{text}");
    }
}

for_both_backends! {
    async fn metrics_can_leave_the_public_address(backend) {
        let app = TestApp::spawn_with(backend, |s| s.metrics_bind = Some("127.0.0.1:0".parse().unwrap())).await;
        let public = reqwest::get(app.url("/metrics")).await.unwrap();
        assert_eq!(public.status(), 404);
        let private = app.server.metrics_addr.expect("a metrics address");
        let text = reqwest::get(format!("http://{private}/metrics")).await.unwrap().text().await.unwrap();
        assert!(text.contains("roadlog_http_requests_total{method=\"GET\",route=\"/metrics\",status=\"404\"} 1"), "{text}");
        app.cleanup().await;
    }
}
