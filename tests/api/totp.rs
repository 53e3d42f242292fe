//! The second factor over the real HTTP API, on both databases: `account.setupTotp` →
//! `verifyTotp` enables it → `auth.login` answers a challenge that is no bearer →
//! `auth.validateTotpLogin` with a code, a recovery code (once), at most 5 wrong codes per user in
//! 5 minutes (also when they arrive together) → `disableTotp` needs a code; the secret sealed at
//! rest when a key-encryption key is configured. The OAuth login page: `totp_pages`.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, codes};

const SETUP: &str = "mutation { account { setupTotp { provisioningUri secret recoveryCodes } } }";
const VERIFY: &str = "mutation($c: String!) { account { verifyTotp(code: $c) { success } } }";
const DISABLE: &str = "mutation($c: String!) { account { disableTotp(code: $c) { success } } }";
const LOGIN: &str = "mutation($e: Email!, $p: String!) { auth { login(email: $e, password: $p) { accessToken refreshToken totpRequired } } }";
const VALIDATE: &str = "mutation($c: String!) { auth { validateTotpLogin(code: $c) { accessToken refreshToken } } }";
const ENABLED: &str = "{ me { id totpEnabled } }";
/// The password of the users `TestApp::new_user` creates.
const PASSWORD: &str = "long enough secret";

/// The code of the authenticator `offset` steps from now.
pub fn code(secret: &str, offset: i64) -> String {
    let secret = roadlog::domain::users::totp::codes::secret_from_base32(secret).unwrap();
    roadlog::domain::users::totp::codes::code_at(&secret, chrono::Utc::now().timestamp() + 30 * offset).unwrap()
}

/// A code that is not the authenticator's at any accepted step.
pub fn wrong(secret: &str) -> String {
    let taken: Vec<String> = (-1..=1).map(|o| code(secret, o)).collect();
    (0..)
        .map(|n| format!("{:06}", 100_000 + n))
        .find(|c| !taken.contains(c))
        .unwrap()
}

/// setupTotp then verifyTotp with the current code; answers the secret and the recovery codes.
pub async fn enable(app: &TestApp, user: &TestUser) -> (String, Vec<String>) {
    let body = app.as_user(user, SETUP, json!({})).await;
    let setup = &body["data"]["account"]["setupTotp"];
    let secret = setup["secret"].as_str().unwrap().to_string();
    let recovery: Vec<String> = setup["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let body = app.as_user(user, VERIFY, json!({ "c": code(&secret, 0) })).await;
    assert_eq!(body["data"]["account"]["verifyTotp"]["success"], true, "{body}");
    (secret, recovery)
}

async fn login(app: &TestApp, email: &str) -> Value {
    let (_, body) = app.graphql(LOGIN, json!({ "e": email, "p": PASSWORD }), None).await;
    body["data"]["auth"]["login"].clone()
}

async fn validate(app: &TestApp, challenge: Option<&str>, code: &str) -> Value {
    app.graphql(VALIDATE, json!({ "c": code }), challenge).await.1
}

fn message(body: &Value) -> &str {
    body["errors"][0]["message"].as_str().unwrap_or("<none>")
}

async fn enabled(app: &TestApp, token: &str) -> Value {
    app.graphql(ENABLED, json!({}), Some(token)).await.1["data"]["me"]["totpEnabled"].clone()
}

async fn failures(app: &TestApp, user: i64) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM totp_failures WHERE user_id = $1")
        .bind(user)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
}

on_both_backends! {
    async fn setup_verify_login_throttle_recover_and_disable(app) {
        let user = app.new_user("second@example.com").await;
        assert_eq!(enabled(app, &user.token).await, false);
        let body = app.as_user(&user, SETUP, json!({})).await;
        let setup = &body["data"]["account"]["setupTotp"];
        let secret = setup["secret"].as_str().unwrap().to_string();
        assert_eq!(secret.len(), 32, "{body}");
        assert_eq!(
            setup["provisioningUri"].as_str().unwrap(),
            format!("otpauth://totp/Roadlog:second%40example.com?secret={secret}&issuer=Roadlog&algorithm=SHA1&digits=6&period=30")
        );
        let recovery: Vec<String> = setup["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
        assert_eq!(recovery.len(), 10);
        // Recovery codes are kept as hashes only.
        let hashes: Vec<(String,)> = sqlx::query_as("SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1")
            .bind(user.id).fetch_all(&app.server.db.pool).await.unwrap();
        assert_eq!(hashes.len(), 10);
        assert!(hashes.iter().all(|(h,)| !recovery.iter().any(|c| h.contains(c.as_str()) || h.contains(&c.replace('-', "")))));
        // Not enabled until verified: the login asks for no code.
        assert_eq!(login(app, "second@example.com").await["totpRequired"], false);
        let body = app.as_user(&user, VERIFY, json!({ "c": wrong(&secret) })).await;
        assert_eq!((codes(&body), message(&body)), (vec!["AUTHENTICATION_ERROR".to_string()], "Invalid TOTP code"));
        assert_eq!(enabled(app, &user.token).await, false);
        let body = app.as_user(&user, VERIFY, json!({ "c": code(&secret, 0) })).await;
        assert_eq!(body["data"]["account"]["verifyTotp"]["success"], true, "{body}");
        assert_eq!(enabled(app, &user.token).await, true);

        // The login answers a challenge, not a session.
        let answer = login(app, "second@example.com").await;
        assert_eq!(answer["totpRequired"], true, "{answer}");
        assert_eq!(answer["refreshToken"], Value::Null);
        let challenge = answer["accessToken"].as_str().unwrap().to_string();
        let (stored, lifetime): (String, i64) = sqlx::query_as("SELECT token_hash, expires_at - created_at FROM totp_challenges WHERE user_id = $1")
            .bind(user.id).fetch_one(&app.server.db.pool).await.unwrap();
        assert!(stored != challenge && !stored.contains(&challenge) && lifetime == 300);
        // The challenge is no bearer.
        let (_, body) = app.graphql(ENABLED, json!({}), Some(&challenge)).await;
        assert_eq!(codes(&body), vec!["AUTHENTICATION_ERROR"], "{body}");
        assert_eq!(body["data"]["me"], Value::Null, "{body}");
        let body = validate(app, None, &code(&secret, 1)).await;
        assert_eq!(message(&body), "Missing authorization header", "{body}");
        let body = validate(app, Some(&user.token), &code(&secret, 1)).await;
        assert_eq!(message(&body), "Invalid or expired TOTP challenge token", "an access token is no challenge: {body}");

        // Four wrong codes (five with the wrong verification above: one count per user), then
        // even the right one is refused.
        for _ in 0..4 {
            let body = validate(app, Some(&challenge), &wrong(&secret)).await;
            assert_eq!(message(&body), "Invalid TOTP code", "{body}");
        }
        let body = validate(app, Some(&challenge), &code(&secret, 1)).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "TOO_MANY_ATTEMPTS", "{body}");
        let wait = body["errors"][0]["extensions"]["retryAfter"].as_i64().unwrap();
        assert!((1..=300).contains(&wait), "{wait}");
        assert_eq!(failures(app, user.id).await, 5, "a refused attempt is not counted again");
        // So is the removal.
        let body = app.as_user(&user, DISABLE, json!({ "c": recovery[0] })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "TOO_MANY_ATTEMPTS", "{body}");
        // Five minutes later (the failures aged in the database), the right code logs in.
        sqlx::query("UPDATE totp_failures SET at = at - 300").execute(&app.server.db.pool).await.unwrap();
        let body = validate(app, Some(&challenge), &code(&secret, 1)).await;
        let tokens = &body["data"]["auth"]["validateTotpLogin"];
        let access = tokens["accessToken"].as_str().unwrap_or_else(|| panic!("{body}")).to_string();
        assert!(tokens["refreshToken"].as_str().is_some());
        assert_eq!(enabled(app, &access).await, true);
        // The challenge is spent.
        let body = validate(app, Some(&challenge), &recovery[1]).await;
        assert_eq!(message(&body), "Invalid or expired TOTP challenge token", "{body}");

        // A recovery code logs in once.
        let challenge = login(app, "second@example.com").await["accessToken"].as_str().unwrap().to_string();
        let body = validate(app, Some(&challenge), &recovery[2].to_uppercase()).await;
        assert!(body["data"]["auth"]["validateTotpLogin"]["accessToken"].is_string(), "{body}");
        let challenge = login(app, "second@example.com").await["accessToken"].as_str().unwrap().to_string();
        let body = validate(app, Some(&challenge), &recovery[2]).await;
        assert_eq!(message(&body), "Invalid TOTP code", "{body}");

        // Removing it needs a code: a wrong one changes nothing.
        let body = app.as_user(&user, DISABLE, json!({ "c": wrong(&secret) })).await;
        assert_eq!(message(&body), "Invalid TOTP code", "{body}");
        assert_eq!(enabled(app, &user.token).await, true);
        let body = app.as_user(&user, DISABLE, json!({ "c": recovery[3] })).await;
        assert_eq!(body["data"]["account"]["disableTotp"]["success"], true, "{body}");
        assert_eq!(enabled(app, &user.token).await, false);
        let answer = login(app, "second@example.com").await;
        assert_eq!((answer["totpRequired"].clone(), answer["refreshToken"].is_string()), (json!(false), true), "{answer}");
        // The challenge issued before the removal opens nothing.
        let body = validate(app, Some(&challenge), &code(&secret, 1)).await;
        assert_eq!(message(&body), "Invalid or expired TOTP challenge token", "{body}");
        for statement in [
            "SELECT COUNT(*) FROM totp_credentials WHERE user_id = $1",
            "SELECT COUNT(*) FROM totp_recovery_codes WHERE user_id = $1",
            "SELECT COUNT(*) FROM totp_challenges WHERE user_id = $1",
        ] {
            let (n,): (i64,) = sqlx::query_as(statement)
                .bind(user.id).fetch_one(&app.server.db.pool).await.unwrap();
            assert_eq!(n, 0, "{statement}");
        }
    }

    async fn concurrent_wrong_codes_never_exceed_five(app) {
        let user = app.new_user("many@example.com").await;
        let (secret, _) = enable(app, &user).await;
        let challenge = login(app, "many@example.com").await["accessToken"].as_str().unwrap().to_string();
        let bad = wrong(&secret);
        let answers = futures::future::join_all((0..12).map(|_| validate(app, Some(&challenge), &bad))).await;
        let wrong_answers = answers.iter().filter(|b| message(b) == "Invalid TOTP code").count();
        let refused = answers.iter().filter(|b| b["errors"][0]["extensions"]["reason"] == "TOO_MANY_ATTEMPTS").count();
        assert_eq!((wrong_answers, refused), (5, 7), "{answers:?}");
        assert_eq!(failures(app, user.id).await, 5);
    }

    async fn setup_is_refused_once_enabled_and_a_code_removes_it(app) {
        let user = app.new_user("codes@example.com").await;
        let body = app.as_user(&user, VERIFY, json!({ "c": "123456" })).await;
        assert_eq!((codes(&body), message(&body)), (vec!["INVALID_INPUTS".to_string()], "TOTP not set up. Call setupTotp first."));
        let body = app.as_user(&user, DISABLE, json!({ "c": "123456" })).await;
        assert_eq!(codes(&body), vec!["INVALID_INPUTS"], "{body}");
        let (secret, _) = enable(app, &user).await;
        let body = app.as_user(&user, SETUP, json!({})).await;
        assert_eq!(codes(&body), vec!["INVALID_INPUTS"], "{body}");
        let (stored,): (Vec<u8>,) = sqlx::query_as("SELECT secret FROM totp_credentials WHERE user_id = $1")
            .bind(user.id).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(stored, roadlog::domain::users::totp::codes::secret_from_base32(&secret).unwrap(), "unchanged (no key-encryption key configured: stored as the card keys then are)");
        // The code just used for verifyTotp does not work twice.
        let (step,): (i64,) = sqlx::query_as("SELECT last_step FROM totp_credentials WHERE user_id = $1")
            .bind(user.id).fetch_one(&app.server.db.pool).await.unwrap();
        let plain = roadlog::domain::users::totp::codes::secret_from_base32(&secret).unwrap();
        let used = roadlog::domain::users::totp::codes::code_at(&plain, step * 30).unwrap();
        let body = app.as_user(&user, DISABLE, json!({ "c": used })).await;
        assert_eq!(message(&body), "Invalid TOTP code", "{body}");
        let long = "1".repeat(65);
        let body = app.as_user(&user, DISABLE, json!({ "c": long })).await;
        assert_eq!(codes(&body), vec!["INVALID_INPUTS"], "{body}");
        let body = app.as_user(&user, DISABLE, json!({ "c": code(&secret, 1) })).await;
        assert_eq!(body["data"]["account"]["disableTotp"]["success"], true, "{body}");
        // Someone else's flag is theirs only.
        let other = app.new_user("other@example.com").await;
        let (_, body) = app.graphql(&format!("{{ user(id: {}) {{ totpEnabled }} }}", other.id), json!({}), Some(&user.token)).await;
        assert!(codes(&body).contains(&"AUTHORIZATION_ERROR".to_string()), "{body}");
    }
}

for_both_backends! {
    async fn secrets_are_sealed_when_a_key_is_configured(backend) {
        use base64::Engine;
        let key = base64::engine::general_purpose::STANDARD.encode([42u8; 32]);
        let app = TestApp::spawn_with(backend, |s| s.key_encryption_key = Some(key)).await;
        let user = app.new_user("sealed@example.com").await;
        let (secret, _) = enable(&app, &user).await;
        let (stored,): (Vec<u8>,) = sqlx::query_as("SELECT secret FROM totp_credentials WHERE user_id = $1")
            .bind(user.id).fetch_one(&app.server.db.pool).await.unwrap();
        let plain = roadlog::domain::users::totp::codes::secret_from_base32(&secret).unwrap();
        assert!(stored.starts_with(b"RLK1") && !stored.windows(plain.len()).any(|w| w == plain.as_slice()));
        let challenge = login(&app, "sealed@example.com").await["accessToken"].as_str().unwrap().to_string();
        let body = validate(&app, Some(&challenge), &code(&secret, 1)).await;
        assert!(body["data"]["auth"]["validateTotpLogin"]["accessToken"].is_string(), "{body}");
        app.cleanup().await;
    }
}

for_both_backends! {
    async fn a_start_without_the_key_of_sealed_secrets_is_refused(backend) {
        use base64::Engine;
        let key = base64::engine::general_purpose::STANDARD.encode([42u8; 32]);
        let sealing = key.clone();
        let app = TestApp::spawn_with(backend, |s| {
            s.key_encryption_key = Some(sealing);
            s.card_key_pool = 0;
        })
        .await;
        let user = app.new_user("sealed@example.com").await;
        let (secret, _) = enable(&app, &user).await;
        let url = app.database_url.clone();
        app.server.begin_stop();
        let settings = |key: Option<String>| {
            let mut settings = roadlog::config::Settings::new(roadlog::config::Environment::Sandbox, Some(url.clone()));
            settings.key_encryption_key = key;
            settings.card_key_pool = 0;
            settings
        };
        // Without the key, or with another, the server refuses to start and names the problem
        // (it would start, and every login with a second factor would fail).
        for wrong in [None, Some(base64::engine::general_purpose::STANDARD.encode([1u8; 32]))] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let error = roadlog::server::start(&settings(wrong), listener).await.err().expect("refused");
            let text = format!("{error:#}");
            assert!(text.contains("ROADLOG_KEY_ENCRYPTION_KEY") && text.contains("second-factor"), "{text}");
        }
        // With its key it starts, and the login with a code goes through.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let second = roadlog::server::start(&settings(Some(key)), listener).await.unwrap();
        let post = |body: Value| app.client.post(format!("{}/api/graphql", second.url())).json(&body).send();
        let login: Value = post(json!({ "query": LOGIN, "variables": { "e": "sealed@example.com", "p": PASSWORD } })).await.unwrap().json().await.unwrap();
        let challenge = login["data"]["auth"]["login"]["accessToken"].as_str().unwrap_or_else(|| panic!("{login}")).to_string();
        let body: Value = app
            .client
            .post(format!("{}/api/graphql", second.url()))
            .bearer_auth(&challenge)
            .json(&json!({ "query": VALIDATE, "variables": { "c": code(&secret, 1) } }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(body["data"]["auth"]["validateTotpLogin"]["accessToken"].is_string(), "{body}");
        second.stop().await;
        app.cleanup().await;
    }
}
