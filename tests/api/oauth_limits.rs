//! The token and revocation endpoints at their edges, on both databases: failed client
//! authentications counted per client at an address and per address (strangers cannot lock a
//! client out), made-up client ids that cost nothing durable (the in-memory rate limiter and the
//! failure counter stay bounded under a flood of distinct 30 KB ids), and database failures
//! answered `500 server_error`, never another error. The heavy flood, measured in a separate
//! process, is `stress::stress_made_up_client_ids`.

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::Value;

use crate::oauth_token::{Client, REDIRECT, client};
use crate::support::{Backend, TestApp};

/// Stores a code as the authorization endpoint does; returns the code.
async fn code(app: &TestApp, client: &Client, user_id: i64) -> String {
    let (code, hash) = roadlog::domain::auth::tokens::generate("rl_code_").unwrap();
    let now = chrono::Utc::now().timestamp();
    sqlx::query(
        "INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, redirect_uri_given, created_at, expires_at)
         VALUES ($1, $2, $3, $4, 0, $5, $6)",
    )
    .bind(hash)
    .bind(client.id.parse::<i64>().unwrap())
    .bind(user_id)
    .bind(REDIRECT)
    .bind(now)
    .bind(now + 300)
    .execute(&app.server.db.pool)
    .await
    .unwrap();
    code
}

/// A form post to `path` from `address` (the test server trusts 127.0.0.1 as its proxy).
async fn post_from(app: &TestApp, path: &str, address: &str, form: &[(&str, &str)]) -> (StatusCode, Value) {
    let response = app
        .client
        .post(app.url(path))
        .header("x-forwarded-for", address)
        .form(form)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn exchange<'a>(code: &'a str, id: &'a str, secret: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("client_id", id),
        ("client_secret", secret),
    ]
}

async fn behind_proxy(backend: Backend, adjust: impl FnOnce(&mut roadlog::config::Settings)) -> TestApp {
    TestApp::spawn_with(backend, |s| {
        s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        adjust(s);
    })
    .await
}

/// A connection of the pool that has read the current schema. SQLite checks a connection's copy
/// of the schema when a statement reads the database, but `ALTER TABLE … RENAME COLUMN` looks the
/// column up in that copy first: on a connection idle since another one renamed the column, it
/// answers "no such column".
async fn fresh(pool: &sqlx::AnyPool) -> sqlx::pool::PoolConnection<sqlx::Any> {
    let mut conn = pool.acquire().await.unwrap();
    sqlx::query("SELECT 1 FROM oauth_clients LIMIT 1")
        .execute(&mut *conn)
        .await
        .unwrap();
    conn
}

for_both_backends! {
    async fn strangers_cannot_lock_a_client_out(backend) {
        let app = behind_proxy(backend, |_| {}).await;
        let user = app.new_user("driver@example.com").await;
        let fleet = client(&app, "Fleet").await;
        let (own, attacker) = ("203.0.113.10", "198.51.100.66");
        // Ten wrong secrets from the attacker's address, and more from others.
        for n in 0..10 {
            let (status, body) = post_from(&app, "/api/oauth/token", attacker, &exchange("rl_code_junk", &fleet.id, &format!("rl_cs_guess{n}"))).await;
            assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_client")), "{n}: {body}");
        }
        for n in 0..5 {
            let (status, _) = post_from(&app, "/api/oauth/revoke", &format!("192.0.2.{n}"), &[("token", "rl_oat_x"), ("client_id", &fleet.id), ("client_secret", "wrong")]).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED);
        }
        // The attacking address is refused for that client, even with the right secret…
        let code1 = code(&app, &fleet, user.id).await;
        let (status, body) = post_from(&app, "/api/oauth/token", attacker, &exchange(&code1, &fleet.id, &fleet.secret)).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("invalid_client")), "{body}");
        // …while the client, from its own address, gets its token and revokes it.
        let (status, body) = post_from(&app, "/api/oauth/token", own, &exchange(&code1, &fleet.id, &fleet.secret)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let token = body["access_token"].as_str().unwrap();
        let (status, body) = post_from(&app, "/api/oauth/revoke", own, &[("token", token), ("client_id", &fleet.id), ("client_secret", &fleet.secret)]).await;
        assert_eq!(status, StatusCode::OK, "{body}");

        // One address spraying made-up ids: 30 failures, then it is refused for every client.
        let sprayer = "198.51.100.99";
        for n in 0..30 {
            let id = format!("{}", 100_000_000 + n);
            let (status, _) = post_from(&app, "/api/oauth/token", sprayer, &exchange("rl_code_junk", &id, "wrong")).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{n}");
        }
        let code2 = code(&app, &fleet, user.id).await;
        let (status, _) = post_from(&app, "/api/oauth/token", sprayer, &exchange(&code2, &fleet.id, &fleet.secret)).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        let (status, body) = post_from(&app, "/api/oauth/token", own, &exchange(&code2, &fleet.id, &fleet.secret)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        app.cleanup().await;
    }

    async fn made_up_client_ids_cost_nothing_durable(backend) {
        let app = behind_proxy(backend, |_| {}).await;
        let limiter = app.server.app.client_limiter.clone().expect("a client rate by default");
        let flood = 300;
        // Distinct 30 KB ids from distinct addresses, on both endpoints: each a 401, counted
        // against its address only.
        let statuses: Vec<StatusCode> = futures::stream::iter(0..2 * flood)
            .map(|n| {
                let app = &app;
                async move {
                    let id = format!("{n:09}{}", "7".repeat(30 * 1024));
                    let address = format!("10.{}.{}.{}", n / 65_536, (n / 256) % 256, n % 256);
                    let (path, first) = if n % 2 == 0 {
                        ("/api/oauth/token", [("grant_type", "authorization_code"), ("code", "rl_code_junk"), ("redirect_uri", REDIRECT)].to_vec())
                    } else {
                        ("/api/oauth/revoke", vec![("token", "rl_oat_x"), ("token_type_hint", "access_token")])
                    };
                    let mut form = first;
                    form.extend([("client_id", id.as_str()), ("client_secret", "wrong")]);
                    let form = &form;
                    post_from(app, path, &address, form).await.0
                }
            })
            .buffer_unordered(8)
            .collect()
            .await;
        assert!(statuses.iter().all(|s| *s == StatusCode::UNAUTHORIZED), "{statuses:?}");
        // Well-formed ids of no client: refused as well, and never counted in memory.
        for n in 0..50 {
            let id = format!("{}", 900_000_000 + n);
            let (status, _) = post_from(&app, "/api/oauth/token", &format!("10.200.0.{n}"), &exchange("rl_code_junk", &id, "wrong")).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED);
        }
        assert_eq!(limiter.len(), 0, "no made-up id enters the rate limiter");
        // The failure counter holds one short row per failure, whatever the id's length.
        assert!(app.scalar("SELECT COUNT(*) FROM auth_failures").await <= 2 * flood + 2 * 50);
        assert!(app.scalar("SELECT MAX(LENGTH(subject)) FROM auth_failures").await <= 64);
        // A registered client that authenticates is counted.
        let fleet = client(&app, "Fleet").await;
        let (status, _) = post_from(&app, "/api/oauth/token", "203.0.113.10", &exchange("rl_code_junk", &fleet.id, &fleet.secret)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "authenticated; the junk code is an invalid grant");
        assert_eq!(limiter.len(), 1);
        app.cleanup().await;
    }

    async fn database_failures_are_server_errors(backend) {
        let app = behind_proxy(backend, |_| {}).await;
        let user = app.new_user("driver@example.com").await;
        let fleet = client(&app, "Fleet").await;
        let code = code(&app, &fleet, user.id).await;
        let pool = &app.server.db.pool;
        // The lookup of a code's redirect URI fails: not "no redirect URI", a 500.
        sqlx::query("ALTER TABLE oauth_codes RENAME COLUMN redirect_uri_given TO redirect_uri_given_away").execute(&mut *fresh(pool).await).await.unwrap();
        let mut without_redirect = exchange(&code, &fleet.id, &fleet.secret);
        without_redirect.retain(|(k, _)| *k != "redirect_uri");
        let (status, body) = post_from(&app, "/api/oauth/token", "203.0.113.10", &without_redirect).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::INTERNAL_SERVER_ERROR, Some("server_error")), "{body}");
        sqlx::query("ALTER TABLE oauth_codes RENAME COLUMN redirect_uri_given_away TO redirect_uri_given").execute(&mut *fresh(pool).await).await.unwrap();
        // Client authentication fails on the database: a 500 on both endpoints, not a 401, and
        // nothing is counted against the client.
        sqlx::query("ALTER TABLE oauth_clients RENAME COLUMN secret_hash TO secret_hash_away").execute(&mut *fresh(pool).await).await.unwrap();
        let (status, body) = post_from(&app, "/api/oauth/token", "203.0.113.10", &exchange(&code, &fleet.id, &fleet.secret)).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::INTERNAL_SERVER_ERROR, Some("server_error")), "{body}");
        let (status, body) = post_from(&app, "/api/oauth/revoke", "203.0.113.10", &[("token", "rl_oat_x"), ("client_id", &fleet.id), ("client_secret", &fleet.secret)]).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::INTERNAL_SERVER_ERROR, Some("server_error")), "{body}");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM auth_failures").await, 0);
        sqlx::query("ALTER TABLE oauth_clients RENAME COLUMN secret_hash_away TO secret_hash").execute(&mut *fresh(pool).await).await.unwrap();
        // The authorization page sends a refused request back to the application; when the
        // client's redirect URIs cannot be read, it says "try again" (500), not "unknown
        // application" (400).
        let refused = app.url(&format!(
            "/oauth/authorize?client_id={}&response_type=code&redirect_uri={}&code_challenge=short&code_challenge_method=plain",
            fleet.id,
            url::form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect::<String>()
        ));
        let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let page = browser.get(&refused).send().await.unwrap();
        assert_eq!(page.status(), StatusCode::FOUND);
        let location = page.headers()["location"].to_str().unwrap().to_string();
        assert!(location.starts_with(REDIRECT) && location.contains("error=invalid_request"), "{location}");
        sqlx::query("ALTER TABLE oauth_client_redirect_uris RENAME COLUMN uri TO uri_away").execute(&mut *fresh(pool).await).await.unwrap();
        let page = browser.get(&refused).send().await.unwrap();
        assert_eq!(page.status(), StatusCode::INTERNAL_SERVER_ERROR);
        sqlx::query("ALTER TABLE oauth_client_redirect_uris RENAME COLUMN uri_away TO uri").execute(&mut *fresh(pool).await).await.unwrap();
        // The code was never spent: it still works.
        let (status, body) = post_from(&app, "/api/oauth/token", "203.0.113.10", &exchange(&code, &fleet.id, &fleet.secret)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        app.cleanup().await;
    }

    async fn failures_that_cannot_be_counted_are_logged_and_counted_in_metrics(backend) {
        let app = behind_proxy(backend, |_| {}).await;
        let fleet = client(&app, "Fleet").await;
        let pool = &app.server.db.pool;
        // Every new failure row is refused by the database.
        let refuse = match backend {
            Backend::Sqlite => vec!["CREATE TRIGGER refuse_failures BEFORE INSERT ON auth_failures BEGIN SELECT RAISE(ABORT, 'refused'); END"],
            Backend::Postgres => vec![
                "CREATE FUNCTION refuse_failures() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql",
                "CREATE TRIGGER refuse_failures BEFORE INSERT ON auth_failures FOR EACH ROW EXECUTE FUNCTION refuse_failures()",
            ],
        };
        for statement in refuse {
            sqlx::query(statement).execute(pool).await.unwrap();
        }
        // The answer is still the client's failure.
        let (status, body) = post_from(&app, "/api/oauth/token", "203.0.113.10", &exchange("rl_code_junk", &fleet.id, "wrong")).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_client")), "{body}");
        let (status, _) = post_from(&app, "/api/oauth/revoke", "203.0.113.10", &[("token", "rl_oat_x"), ("client_id", &fleet.id), ("client_secret", "wrong")]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let metrics = app.client.get(app.url("/metrics")).send().await.unwrap().text().await.unwrap();
        assert!(
            metrics.contains("roadlog_rate_limit_record_failures_total{limit=\"client_authentication\"} 2"),
            "{metrics}"
        );
        app.cleanup().await;
    }
}
