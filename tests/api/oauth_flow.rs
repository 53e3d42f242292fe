//! The whole authorization-code flow as a browser drives it, on both databases: authorization
//! request → login form → consent → redirect with code → token (both client authentication
//! methods) → `me` over GraphQL with the token; and the browser-side rules: CSRF, HTML errors
//! for unknown clients and redirect URIs, deny, PKCE method, login rate limiting.

use std::collections::HashMap;

use base64::Engine;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::forms::{self, Browser, field};

const REDIRECT: &str = "https://fleet.example.com/callback";

/// The action URL of the page's form, on this server.
fn action(app: &TestApp, page: &str) -> String {
    forms::action(&app.url(""), page)
}

fn query(location: &str) -> HashMap<String, String> {
    url::Url::parse(location).unwrap().query_pairs().into_owned().collect()
}

async fn client(app: &TestApp) -> (String, String) {
    let created = roadlog::oauth::clients::create(
        &app.server.db,
        roadlog::config::Environment::Sandbox,
        "Fleet <Manager>",
        &[REDIRECT.to_string()],
    )
    .await
    .unwrap();
    (created.client_id, created.client_secret)
}

fn authorize_url(app: &TestApp, client_id: &str, extra: &str) -> String {
    let redirect: String = url::form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect();
    app.url(&format!(
        "/oauth/authorize?client_id={client_id}&response_type=code&redirect_uri={redirect}&state=xyz{extra}"
    ))
}

/// Logs in and consents; answers the redirect location.
async fn authorize(app: &TestApp, browser: &mut Browser, url: &str, decision: &str) -> String {
    let login = browser.get(url).await;
    assert_eq!(login.status, StatusCode::OK, "{}", login.body);
    assert!(login.body.contains("Log in"), "{}", login.body);
    let csrf = field(&login.body, "csrf_token");
    let consent = browser
        .post(
            &action(app, &login.body),
            &[
                ("csrf_token", &csrf),
                ("action", "login"),
                ("email", "driver@example.com"),
                ("password", "long enough secret"),
            ],
        )
        .await;
    assert_eq!(consent.status, StatusCode::OK, "{}", consent.body);
    assert!(
        !consent.body.contains("<Manager>")
            && html_escape::decode_html_entities(&consent.body).contains("Authorize Fleet <Manager>?"),
        "the consent page names the application: {}",
        consent.body
    );
    // The consent form's token is bound to the session the login opened.
    let csrf = field(&consent.body, "csrf_token");
    let answer = browser
        .post(
            &action(app, &consent.body),
            &[("csrf_token", &csrf), ("action", decision)],
        )
        .await;
    assert_eq!(answer.status, StatusCode::FOUND, "{}", answer.body);
    answer.location.unwrap()
}

async fn token(app: &TestApp, form: &[(&str, &str)], basic: Option<(&str, &str)>) -> Value {
    let mut request = app.client.post(app.url("/api/oauth/token")).form(form);
    if let Some((id, secret)) = basic {
        request = request.header(
            "authorization",
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
            ),
        );
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

on_both_backends! {
    async fn the_whole_flow_with_both_client_authentication_methods(app) {
        let user = app.new_user("driver@example.com").await;
        let (client_id, secret) = client(app).await;
        for basic in [false, true] {
            let mut browser = Browser::new();
            let location = authorize(app, &mut browser, &authorize_url(app, &client_id, ""), "allow").await;
            assert!(location.starts_with(REDIRECT), "{location}");
            let params = query(&location);
            assert_eq!(params["state"], "xyz");
            let code = params["code"].clone();
            // Stored as a hash, valid 5 minutes at most.
            let (hash, lifetime): (String, i64) = sqlx::query_as(
                "SELECT code_hash, expires_at - created_at FROM oauth_codes ORDER BY created_at DESC LIMIT 1",
            )
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
            assert!(hash != code && lifetime <= 300, "{lifetime}");
            let body = if basic {
                token(app, &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)], Some((&client_id, &secret))).await
            } else {
                token(app, &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT), ("client_id", &client_id), ("client_secret", &secret)], None).await
            };
            assert_eq!(body["token_type"], "Bearer");
            let (_, me) = app.graphql("{ me { id email } }", json!({}), body["access_token"].as_str()).await;
            assert_eq!(me["data"]["me"], json!({ "id": user.id, "email": "driver@example.com" }));
            // The session cookie is protected.
            let set = browser.cookies.contains_key("rl_session");
            assert!(set);
        }
        let body = app.as_user(&user, "{ me { authorizedClients { name } } }", json!({})).await;
        assert_eq!(body["data"]["me"]["authorizedClients"], json!([{ "name": "Fleet <Manager>" }]));
    }

    async fn denying_returns_access_denied(app) {
        app.new_user("driver@example.com").await;
        let (client_id, _) = client(app).await;
        let mut browser = Browser::new();
        let location = authorize(app, &mut browser, &authorize_url(app, &client_id, ""), "deny").await;
        let params = query(&location);
        assert_eq!(params["error"], "access_denied");
        assert_eq!(params["state"], "xyz");
        assert!(!params.contains_key("code"));
    }

    async fn unknown_clients_and_redirects_get_an_html_page(app) {
        let (client_id, _) = client(app).await;
        let mut browser = Browser::new();
        for url in [
            authorize_url(app, "123456789", ""),
            app.url(&format!("/oauth/authorize?client_id={client_id}&response_type=code&redirect_uri=https%3A%2F%2Fevil.example.com%2Fcb&state=s")),
        ] {
            let page = browser.get(&url).await;
            assert_eq!(page.status, StatusCode::BAD_REQUEST);
            assert!(page.location.is_none(), "never a redirect");
            assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
            assert!(page.body.contains("cannot be served"));
        }
    }

    async fn a_csrf_pair_from_another_browser_or_origin_is_refused(app) {
        app.new_user("driver@example.com").await;
        let (client_id, _) = client(app).await;
        let url = authorize_url(app, &client_id, "");
        // Another browser's pair: its cookie and the token of its page.
        let mut attacker = Browser::new();
        let page = attacker.get(&url).await;
        let (attacker_cookie, attacker_csrf) = (attacker.cookies["rl_csrf"].clone(), field(&page.body, "csrf_token"));
        assert_ne!(attacker_cookie, attacker_csrf, "the field is not the cookie");
        // The victim logs in and reaches the consent page.
        let mut victim = Browser::new();
        let login = victim.get(&url).await;
        let consent = victim.post(&action(app, &login.body), &[("csrf_token", &field(&login.body, "csrf_token")), ("action", "login"), ("email", "driver@example.com"), ("password", "long enough secret")]).await;
        assert_eq!(consent.status, StatusCode::OK, "{}", consent.body);
        let own_cookie = victim.cookies["rl_csrf"].clone();
        // The other browser's pair, planted in the victim's browser, is refused: it names no session.
        victim.cookies.insert("rl_csrf".into(), attacker_cookie.clone());
        let forged = victim.post(&action(app, &consent.body), &[("csrf_token", &attacker_csrf), ("action", "allow")]).await;
        assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
        // So is the login page's token, bound to no session.
        victim.cookies.insert("rl_csrf".into(), own_cookie);
        let stale = victim.post(&action(app, &consent.body), &[("csrf_token", &field(&login.body, "csrf_token")), ("action", "allow")]).await;
        assert_eq!(stale.status, StatusCode::FORBIDDEN);
        // The right pair from another origin is refused too.
        let csrf = field(&consent.body, "csrf_token");
        let form = [("csrf_token", csrf.as_str()), ("action", "allow")];
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let foreign = victim.send(http.post(action(app, &consent.body)).header("origin", "https://evil.example.com").form(&form)).await;
        assert_eq!(foreign.status, StatusCode::FORBIDDEN);
        // A page of another site with no referrer: `Origin: null`, and the browser says where.
        let hidden = http
            .post(action(app, &consent.body))
            .header("origin", "null")
            .header("sec-fetch-site", "cross-site")
            .form(&form);
        assert_eq!(victim.send(hidden).await.status, StatusCode::FORBIDDEN);
        let (codes,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM oauth_codes").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(codes, 0, "nothing was authorized");
        // From our own origin, the victim's own form goes through.
        let ours = app.url("");
        let answer = victim
            .send(
                http.post(action(app, &consent.body))
                    .header("origin", ours.trim_end_matches('/'))
                    .header("sec-fetch-site", "same-origin")
                    .form(&form),
            )
            .await;
        assert_eq!(answer.status, StatusCode::FOUND, "{}", answer.body);
    }

    async fn forms_need_the_csrf_token_and_pkce_needs_s256(app) {
        app.new_user("driver@example.com").await;
        let (client_id, _) = client(app).await;
        let mut browser = Browser::new();
        let url = authorize_url(app, &client_id, "");
        let login = browser.get(&url).await;
        assert_eq!(login.headers["x-frame-options"], "DENY");
        let forged = browser.post(&action(app, &login.body), &[("csrf_token", "forged"), ("action", "login"), ("email", "driver@example.com"), ("password", "long enough secret")]).await;
        assert_eq!(forged.status, StatusCode::FORBIDDEN);
        assert!(!browser.cookies.contains_key("rl_session"));
        // plain PKCE is refused, back to the application.
        let page = browser.get(&authorize_url(app, &client_id, "&code_challenge=abcdefghijabcdefghijabcdefghijabcdefghijabc&code_challenge_method=plain")).await;
        assert_eq!(page.status, StatusCode::FOUND);
        let params = query(&page.location.unwrap());
        assert_eq!(params["error"], "invalid_request");
        assert_eq!(params["state"], "xyz");
        // unsupported response types go back too.
        let page = browser.get(&authorize_url(app, &client_id, "").replace("response_type=code", "response_type=token")).await;
        assert_eq!(page.status, StatusCode::FOUND);
        assert!(query(&page.location.unwrap()).contains_key("error"));
    }

    async fn a_repeated_parameter_is_an_invalid_request(app) {
        app.new_user("driver@example.com").await;
        let (client_id, _) = client(app).await;
        let mut browser = Browser::new();
        // Sound client and redirect URI: back to the application (RFC 6749 §3.1, §4.1.2.1).
        for extra in ["&response_type=code", "&response_type=token", "&code_challenge_method=S256&code_challenge_method=S256"] {
            let page = browser.get(&authorize_url(app, &client_id, extra)).await;
            assert_eq!(page.status, StatusCode::FOUND, "{extra}: {}", page.body);
            let location = page.location.unwrap();
            assert!(location.starts_with(REDIRECT), "{location}");
            let params = query(&location);
            assert_eq!(params["error"], "invalid_request", "{extra}");
            assert_eq!(params["state"], "xyz");
            assert!(!params.contains_key("code"));
        }
        // A repeated state is not echoed (which one would be?).
        let page = browser.get(&authorize_url(app, &client_id, "&state=other")).await;
        assert_eq!(page.status, StatusCode::FOUND);
        let params = query(&page.location.unwrap());
        assert_eq!(params["error"], "invalid_request");
        assert!(!params.contains_key("state"));
        // The POST of the forms is held to the same rule.
        let login = browser.get(&authorize_url(app, &client_id, "")).await;
        let csrf = field(&login.body, "csrf_token");
        let target = format!("{}&response_type=code", action(app, &login.body));
        let page = browser.post(&target, &[("csrf_token", &csrf), ("action", "login"), ("email", "driver@example.com"), ("password", "long enough secret")]).await;
        assert_eq!(page.status, StatusCode::FOUND, "{}", page.body);
        assert_eq!(query(&page.location.unwrap())["error"], "invalid_request");
        assert!(!browser.cookies.contains_key("rl_session"), "no login happened");
        // client_id or redirect_uri repeated, or an unknown client: an HTML page, never a redirect.
        let redirect: String = url::form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect();
        for url in [
            authorize_url(app, &client_id, &format!("&client_id={client_id}")),
            authorize_url(app, &client_id, &format!("&redirect_uri={redirect}")),
            authorize_url(app, "123456789", "&response_type=code"),
        ] {
            let page = browser.get(&url).await;
            assert_eq!(page.status, StatusCode::BAD_REQUEST, "{url}");
            assert!(page.location.is_none(), "never a redirect");
            assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
        }
    }

    async fn pkce_flow_end_to_end(app) {
        app.new_user("driver@example.com").await;
        let (client_id, secret) = client(app).await;
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = roadlog::oauth::primitives::s256(verifier);
        let mut browser = Browser::new();
        let location = authorize(app, &mut browser, &authorize_url(app, &client_id, &format!("&code_challenge={challenge}&code_challenge_method=S256")), "allow").await;
        let code = query(&location)["code"].clone();
        let body = token(app, &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT), ("client_id", &client_id), ("client_secret", &secret), ("code_verifier", verifier)], None).await;
        assert_eq!(body["token_type"], "Bearer");
    }

    async fn failed_logins_are_rate_limited(app) {
        app.new_user("driver@example.com").await;
        let (client_id, _) = client(app).await;
        let mut browser = Browser::new();
        let login = browser.get(&authorize_url(app, &client_id, "")).await;
        let csrf = field(&login.body, "csrf_token");
        let target = action(app, &login.body);
        for _ in 0..10 {
            let page = browser.post(&target, &[("csrf_token", &csrf), ("action", "login"), ("email", "driver@example.com"), ("password", "wrong")]).await;
            assert_eq!(page.status, StatusCode::UNAUTHORIZED);
            assert!(page.body.contains("role=\"alert\""));
        }
        let page = browser.post(&target, &[("csrf_token", &csrf), ("action", "login"), ("email", "driver@example.com"), ("password", "long enough secret")]).await;
        assert_eq!(page.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(page.body.contains("Too many failed attempts"));
    }

    async fn several_instances_share_one_database(app) {
        let user = app.new_user("driver@example.com").await;
        let (client_id, secret) = client(app).await;
        // A second server on the same database, as behind a load balancer.
        let mut settings = roadlog::config::Settings::new(roadlog::config::Environment::Sandbox, Some(app.database_url.clone()));
        settings.card_key_pool = 0;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let second = roadlog::server::start(&settings, listener).await.unwrap();
        // Login and consent on the first instance…
        let mut browser = Browser::new();
        let location = authorize(app, &mut browser, &authorize_url(app, &client_id, ""), "allow").await;
        let code = query(&location)["code"].clone();
        // …the code exchanged on the second, the token used on both.
        let form = [("grant_type", "authorization_code"), ("code", code.as_str()), ("redirect_uri", REDIRECT), ("client_id", client_id.as_str()), ("client_secret", secret.as_str())];
        let response = app.client.post(format!("{}/oauth/token", second.url())).form(&form).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let token: Value = response.json().await.unwrap();
        let token = token["access_token"].as_str().unwrap();
        for base in [app.url(""), second.url()] {
            let response = app.client.post(format!("{base}/api/graphql")).bearer_auth(token).json(&json!({ "query": "{ me { id } }" })).send().await.unwrap();
            assert_eq!(response.json::<Value>().await.unwrap()["data"]["me"]["id"], user.id);
        }
        // The code is spent for every instance.
        let response = app.client.post(app.url("/oauth/token")).form(&form).send().await.unwrap();
        assert_eq!(response.json::<Value>().await.unwrap()["error"], "invalid_grant");
        second.db.pool.close().await;
        second.stop().await;
    }

    async fn redirect_uri_may_be_left_out_only_when_the_request_left_it_out(app) {
        app.new_user("driver@example.com").await;
        let (client_id, secret) = client(app).await;
        // One registered URI: the authorization request may omit it…
        let mut browser = Browser::new();
        let url = app.url(&format!("/oauth/authorize?client_id={client_id}&response_type=code&state=s1"));
        let location = authorize(app, &mut browser, &url, "allow").await;
        assert!(location.starts_with(REDIRECT));
        let code = query(&location)["code"].clone();
        // …and then the token request may omit it too.
        let body = token(app, &[("grant_type", "authorization_code"), ("code", &code), ("client_id", &client_id), ("client_secret", &secret)], None).await;
        assert_eq!(body["token_type"], "Bearer");
        // When the authorization request named it, the token request must repeat it.
        let mut browser = Browser::new();
        let location = authorize(app, &mut browser, &authorize_url(app, &client_id, ""), "allow").await;
        let code = query(&location)["code"].clone();
        let response = app
            .client
            .post(app.url("/api/oauth/token"))
            .form(&[("grant_type", "authorization_code"), ("code", code.as_str()), ("client_id", client_id.as_str()), ("client_secret", secret.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
}
