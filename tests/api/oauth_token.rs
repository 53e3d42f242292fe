//! The token endpoint `POST /api/oauth/token`, one test per RFC 6749 / RFC 7636 / RFC 9700 rule
//! that applies (standards.md §1.2), on both databases. Codes are minted directly in the
//! database here, exactly as the authorization endpoint stores them (hashed, bound to client,
//! redirect URI and user, 5 minutes, optional S256 challenge).

use base64::Engine;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestApp, TestUser};

pub(crate) const REDIRECT: &str = "https://fleet.example.com/callback";

/// A registered OAuth client and its secret (shared with `oauth_limits`).
pub(crate) struct Client {
    pub(crate) id: String,
    pub(crate) secret: String,
}

pub(crate) async fn client(app: &TestApp, name: &str) -> Client {
    let created = roadlog::oauth::clients::create(
        &app.server.db,
        roadlog::config::Environment::Sandbox,
        name,
        &[REDIRECT.to_string()],
    )
    .await
    .unwrap();
    Client {
        id: created.client_id,
        secret: created.client_secret,
    }
}

/// Stores a code as the authorization endpoint does; returns the code.
async fn code(app: &TestApp, client: &Client, user: &TestUser, challenge: Option<&str>, expires_in: i64) -> String {
    let code = format!("rl_code_test{}", rand_suffix());
    let now = chrono::Utc::now().timestamp();
    sqlx::query(
        "INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(roadlog::domain::auth::tokens::hash(&code))
    .bind(client.id.parse::<i64>().unwrap())
    .bind(user.id)
    .bind(REDIRECT)
    .bind(challenge)
    .bind(now)
    .bind(now + expires_in)
    .execute(&app.server.db.pool)
    .await
    .unwrap();
    code
}

fn rand_suffix() -> String {
    let (token, _) = roadlog::domain::auth::tokens::generate("").unwrap();
    token
}

async fn post(
    app: &TestApp,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut request = app.client.post(app.url("/api/oauth/token")).form(form);
    if let Some((id, secret)) = basic {
        let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let value = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", encode(id), encode(secret)));
        request = request.header("authorization", format!("Basic {value}"));
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.json().await.unwrap_or(Value::Null))
}

fn exchange<'a>(code: &'a str, client: &'a Client) -> Vec<(&'a str, &'a str)> {
    vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("client_id", client.id.as_str()),
        ("client_secret", client.secret.as_str()),
    ]
}

async fn me_with(app: &TestApp, token: &str) -> Value {
    app.graphql("{ me { id } }", json!({}), Some(token)).await.1
}

on_both_backends! {
    async fn form_credentials_get_a_bearer_token(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let (status, headers, body) = post(app, &exchange(&code, &fleet), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(headers["cache-control"], "no-store");
        assert_eq!(headers["pragma"], "no-cache");
        let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["access_token", "token_type"]);
        assert_eq!(body["token_type"], "Bearer");
        let token = body["access_token"].as_str().unwrap();
        assert_eq!(me_with(app, token).await["data"]["me"]["id"], user.id);
    }

    async fn basic_credentials_are_url_decoded_and_may_repeat_the_client_id(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let form = [("grant_type", "authorization_code"), ("code", code.as_str()), ("redirect_uri", REDIRECT), ("client_id", fleet.id.as_str())];
        let (status, _, body) = post(app, &form, Some((&fleet.id, &fleet.secret))).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["token_type"], "Bearer");
    }

    async fn two_authentication_methods_are_refused(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let (status, headers, body) = post(app, &exchange(&code, &fleet), Some((&fleet.id, &fleet.secret))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"], "invalid_request");
        assert_eq!(headers["cache-control"], "no-store");
    }

    async fn a_reused_code_is_refused_and_revokes_its_token(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let (_, _, first) = post(app, &exchange(&code, &fleet), None).await;
        let token = first["access_token"].as_str().unwrap().to_string();
        let (status, _, body) = post(app, &exchange(&code, &fleet), None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"], "invalid_grant");
        assert_eq!(me_with(app, &token).await["errors"][0]["extensions"]["code"], "AUTHENTICATION_ERROR");
    }

    async fn a_failed_issue_leaves_the_code_unspent(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        // The token's row cannot be written: the exchange fails and the code stays usable.
        crate::support::refusing::refuse(app, "oauth_tokens", "INSERT").await;
        let (status, headers, body) = post(app, &exchange(&code, &fleet), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::INTERNAL_SERVER_ERROR, Some("server_error")), "{body}");
        assert_eq!(headers["cache-control"], "no-store");
        let (used,): (Option<i64>,) = sqlx::query_as("SELECT used_at FROM oauth_codes WHERE code_hash = $1")
            .bind(roadlog::domain::auth::tokens::hash(&code))
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(used, None, "no spent code without its token");
        let (tokens,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM oauth_tokens").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(tokens, 0);
        crate::support::refusing::allow(app, "oauth_tokens", "INSERT").await;
        let (status, _, body) = post(app, &exchange(&code, &fleet), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(me_with(app, body["access_token"].as_str().unwrap()).await["data"]["me"]["id"], user.id);
    }

    async fn concurrent_exchanges_of_one_code_issue_one_token(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let form = exchange(&code, &fleet);
        let attempts = (0..4).map(|_| post(app, &form, None));
        let answers = futures::future::join_all(attempts).await;
        let issued = answers.iter().filter(|(status, _, _)| *status == StatusCode::OK).count();
        assert_eq!(issued, 1, "{answers:?}");
        for (status, _, body) in answers.iter().filter(|(status, _, _)| *status != StatusCode::OK) {
            assert_eq!((*status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")), "{body}");
        }
        // The replays were noticed: the one token was revoked.
        let (live,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM oauth_tokens WHERE revoked_at IS NULL").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(live, 0);
    }

    async fn expired_unknown_and_foreign_codes_are_invalid_grants(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let payroll = client(app, "Payroll").await;
        let expired = code(app, &fleet, &user, None, -1).await;
        let (status, _, body) = post(app, &exchange(&expired, &fleet), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
        let (_, _, body) = post(app, &exchange("rl_code_unknown", &fleet), None).await;
        assert_eq!(body["error"], "invalid_grant");
        // A code issued to one client cannot be exchanged by another.
        let fleets = code(app, &fleet, &user, None, 300).await;
        let (_, _, body) = post(app, &exchange(&fleets, &payroll), None).await;
        assert_eq!(body["error"], "invalid_grant");
        // Nor with another redirect URI.
        let other = code(app, &fleet, &user, None, 300).await;
        let form = [("grant_type", "authorization_code"), ("code", other.as_str()), ("redirect_uri", "https://evil.example.com/cb"), ("client_id", fleet.id.as_str()), ("client_secret", fleet.secret.as_str())];
        let (status, _, body) = post(app, &form, None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(["invalid_grant", "invalid_request"].contains(&body["error"].as_str().unwrap()), "{body}");
    }

    async fn wrong_secrets_are_invalid_clients_then_rate_limited(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let form = [("grant_type", "authorization_code"), ("code", code.as_str()), ("redirect_uri", REDIRECT), ("client_id", fleet.id.as_str()), ("client_secret", "wrong")];
        let (status, headers, body) = post(app, &form, None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_client")));
        assert!(headers.get("www-authenticate").is_none(), "no Basic challenge when Basic was not used");
        let form = [("grant_type", "authorization_code"), ("code", code.as_str()), ("redirect_uri", REDIRECT)];
        let (status, headers, _) = post(app, &form, Some((&fleet.id, "wrong"))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(headers["www-authenticate"].to_str().unwrap().starts_with("Basic"));
        for _ in 0..8 {
            post(app, &form, Some((&fleet.id, "wrong"))).await;
        }
        let (status, headers, body) = post(app, &exchange(&code, &fleet), None).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
        assert!(headers.contains_key("retry-after"));
        assert_eq!(headers["cache-control"], "no-store");
    }

    async fn pkce_s256_is_enforced(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = roadlog::oauth::primitives::s256(verifier);
        assert_eq!(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "RFC 7636 appendix B");
        for given in [None, Some("not-the-verifier")] {
            let code = code(app, &fleet, &user, Some(&challenge), 300).await;
            let mut form = exchange(&code, &fleet);
            if let Some(v) = given {
                form.push(("code_verifier", v));
            }
            let (status, _, body) = post(app, &form, None).await;
            assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")), "{given:?}");
        }
        let code = code(app, &fleet, &user, Some(&challenge), 300).await;
        let mut form = exchange(&code, &fleet);
        form.push(("code_verifier", verifier));
        let (status, _, body) = post(app, &form, None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        // A verifier for a code issued without a challenge is a downgrade attempt.
        let code = self::code(app, &fleet, &user, None, 300).await;
        let mut form = exchange(&code, &fleet);
        form.push(("code_verifier", verifier));
        let (_, _, body) = post(app, &form, None).await;
        assert_eq!(body["error"], "invalid_grant");
    }

    async fn malformed_requests_are_invalid_requests(app) {
        let user = app.new_user("driver@example.com").await;
        let fleet = client(app, "Fleet").await;
        let code = code(app, &fleet, &user, None, 300).await;
        let mut repeated = exchange(&code, &fleet);
        repeated.push(("code", code.as_str()));
        let (status, _, body) = post(app, &repeated, None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")));
        let (_, _, body) = post(app, &[("grant_type", "authorization_code"), ("client_id", &fleet.id), ("client_secret", &fleet.secret), ("redirect_uri", REDIRECT)], None).await;
        assert!(["invalid_request", "invalid_grant"].contains(&body["error"].as_str().unwrap()), "{body}");
        let (_, _, body) = post(app, &[("grant_type", "password"), ("client_id", &fleet.id), ("client_secret", &fleet.secret)], None).await;
        assert_eq!(body["error"], "unsupported_grant_type");
        // The token endpoint is POST only.
        let response = app.client.get(app.url("/api/oauth/token")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        let response = app.client.post(app.url("/oauth/token")).json(&json!({ "grant_type": "authorization_code" })).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.json::<Value>().await.unwrap()["error"], "invalid_request");
    }
}

mod revocation_and_metadata {
    use super::*;

    on_both_backends! {
        async fn clients_revoke_their_tokens(app) {
            let user = app.new_user("driver@example.com").await;
            let fleet = client(app, "Fleet").await;
            let payroll = client(app, "Payroll").await;
            let code = code(app, &fleet, &user, None, 300).await;
            let (_, _, body) = post(app, &exchange(&code, &fleet), None).await;
            let token = body["access_token"].as_str().unwrap().to_string();
            let revoke = |form: Vec<(&'static str, String)>, basic: Option<(String, String)>| {
                let mut request = app.client.post(app.url("/api/oauth/revoke")).form(&form);
                if let Some((id, secret)) = basic {
                    request = request.basic_auth(id, Some(secret));
                }
                request.send()
            };
            // Another client may not revoke it.
            let response = revoke(vec![("token", token.clone())], Some((payroll.id.clone(), payroll.secret.clone()))).await.unwrap();
            assert_eq!(response.status(), StatusCode::BAD_REQUEST);
            assert_eq!(response.json::<Value>().await.unwrap()["error"], "unauthorized_client");
            // A wrong secret is an invalid client.
            let response = revoke(vec![("token", token.clone())], Some((fleet.id.clone(), "wrong".into()))).await.unwrap();
            assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
            // Its own client revokes it; unknown tokens are answered 200 too.
            let form = vec![("token", token.clone()), ("client_id", fleet.id.clone()), ("client_secret", fleet.secret.clone())];
            let response = revoke(form, None).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(response.headers()["cache-control"], "no-store");
            assert_eq!(me_with(app, &token).await["errors"][0]["extensions"]["code"], "AUTHENTICATION_ERROR");
            let response = revoke(vec![("token", "rl_oat_unknown".into())], Some((fleet.id.clone(), fleet.secret.clone()))).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
        }

        async fn metadata_describes_the_server(app) {
            let response = app.client.get(app.url("/.well-known/oauth-authorization-server")).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["token_endpoint"], app.url("/api/oauth/token"));
            assert_eq!(body["authorization_endpoint"], app.url("/oauth/authorize"));
            assert_eq!(body["code_challenge_methods_supported"], json!(["S256"]));
            assert_eq!(body["grant_types_supported"], json!(["authorization_code"]));
        }
    }
}

on_both_backends! {
    async fn client_secrets_hashed_with_argon2_move_to_sha256_on_use(app) {
        let client = client(app, "Legacy").await;
        let id: i64 = client.id.parse().unwrap();
        let argon2 = roadlog::domain::auth::password::hash(client.secret.clone(), &roadlog::domain::auth::password::Hashing::queued()).await.unwrap();
        sqlx::query("UPDATE oauth_clients SET secret_hash = $1 WHERE id = $2").bind(&argon2).bind(id).execute(&app.server.db.pool).await.unwrap();
        // A wrong secret changes nothing.
        let wrong = Client { id: client.id.clone(), secret: "rl_cs_wrong".into() };
        let (status, _, body) = post(app, &exchange("rl_code_junk", &wrong), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_client")));
        let (stored,): (String,) = sqlx::query_as("SELECT secret_hash FROM oauth_clients WHERE id = $1").bind(id).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(stored, argon2);
        // The right one authenticates (the junk code is then refused) and the hash moves.
        let (status, _, body) = post(app, &exchange("rl_code_junk", &client), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
        let (stored,): (String,) = sqlx::query_as("SELECT secret_hash FROM oauth_clients WHERE id = $1").bind(id).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(stored, roadlog::oauth::clients::secret_hash(&client.secret));
        let (status, _, _) = post(app, &exchange("rl_code_junk", &client), None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "still authenticates after the move");
    }
}

for_both_backends! {
    async fn each_client_has_a_request_rate(backend) {
        // Two a minute, one at a time: the second request within 30 s is over the rate.
        let app = TestApp::spawn_with(backend, |s| s.client_rate_limit = 2).await;
        let (fleet, payroll) = (client(&app, "Fleet").await, client(&app, "Payroll").await);
        // Valid credentials with junk codes never fail client authentication: the rate stops them.
        let (status, _, body) = post(&app, &exchange("rl_code_junk", &fleet), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
        let (status, headers, body) = post(&app, &exchange("rl_code_junk", &fleet), None).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
        assert!(headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
        // Another client is not affected.
        let (status, _, _) = post(&app, &exchange("rl_code_junk", &payroll), None).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        app.cleanup().await;
    }
}
