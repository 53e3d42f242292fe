//! Accounts over the real HTTP API: sign-up, login, `me`, refresh rotation, logout, the lock
//! after wrong passwords, who may read whom, and what is stored (hashes only).

use cynic::http::ReqwestExt;
use cynic::{MutationBuilder, QueryBuilder};
use reqwest::StatusCode;
use roadlog_client::scalars::Email;
use roadlog_client::schema;
use serde_json::{Value, json};

use crate::support::{TestApp, codes};

#[derive(cynic::QueryVariables, Debug)]
struct SignUpVariables {
    email: Email,
    password: String,
    first_name: String,
    last_name: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutations", variables = "SignUpVariables")]
struct SignUpMutation {
    sign_up: Option<SignUpNamespace>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "SignUp", variables = "SignUpVariables")]
struct SignUpNamespace {
    #[arguments(email: $email, password: $password, firstName: $first_name, lastName: $last_name)]
    user: Option<UserTokens>,
}

#[derive(cynic::QueryFragment, Debug)]
struct UserTokens {
    access_token: Option<String>,
    refresh_token: Option<String>,
}

#[derive(cynic::QueryVariables, Debug)]
struct LoginVariables {
    email: Email,
    password: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutations", variables = "LoginVariables")]
struct LoginMutation {
    auth: Option<AuthNamespace>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Auth", variables = "LoginVariables")]
struct AuthNamespace {
    #[arguments(email: $email, password: $password)]
    login: Option<LoginOutput>,
}

#[derive(cynic::QueryFragment, Debug)]
struct LoginOutput {
    access_token: Option<String>,
    refresh_token: Option<String>,
    totp_required: Option<bool>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Queries")]
struct MeQuery {
    me: Option<Me>,
    check_auth: CheckOutput,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "User")]
struct Me {
    id: i32,
    email: Option<String>,
    first_name: String,
    last_name: String,
    timezone_name: Option<String>,
    has_activated_email: bool,
}

#[derive(cynic::QueryFragment, Debug)]
struct CheckOutput {
    success: Option<bool>,
    user_id: Option<i32>,
}

const ME: &str = "{ me { id email } }";
const REFRESH: &str = "mutation { auth { refresh { accessToken refreshToken } } }";
const LOGOUT: &str = "mutation { auth { logout { success } } }";
const LOGIN: &str =
    "mutation($e: Email!, $p: String!) { auth { login(email: $e, password: $p) { accessToken refreshToken } } }";

async fn login(app: &TestApp, email: &str, password: &str) -> Value {
    app.graphql(LOGIN, json!({ "e": email, "p": password }), None).await.1
}

on_both_backends! {
    async fn sign_up_login_me_with_the_typed_client(app) {
        let endpoint = app.url("/api/graphql");
        let sign_up = app
            .client
            .post(&endpoint)
            .run_graphql(SignUpMutation::build(SignUpVariables {
                email: Email("  Jeanne.Martin@Example.com ".into()),
                password: "a long passphrase".into(),
                first_name: "Jeanne".into(),
                last_name: "Martin".into(),
            }))
            .await
            .unwrap();
        assert!(sign_up.errors.is_none(), "{:?}", sign_up.errors);
        let tokens = sign_up.data.unwrap().sign_up.unwrap().user.unwrap();
        assert!(tokens.access_token.unwrap().starts_with("rl_at_"));
        assert!(tokens.refresh_token.unwrap().starts_with("rl_rt_"));

        // The e-mail was normalised: logging in with the lower-case form works.
        let login = app
            .client
            .post(&endpoint)
            .run_graphql(LoginMutation::build(LoginVariables {
                email: Email("jeanne.martin@example.com".into()),
                password: "a long passphrase".into(),
            }))
            .await
            .unwrap();
        assert!(login.errors.is_none(), "{:?}", login.errors);
        let output = login.data.unwrap().auth.unwrap().login.unwrap();
        assert_eq!(output.totp_required, Some(false));
        let access = output.access_token.unwrap();
        assert!(output.refresh_token.is_some());

        let me = app.client.post(&endpoint).bearer_auth(&access).run_graphql(MeQuery::build(())).await.unwrap();
        assert!(me.errors.is_none(), "{:?}", me.errors);
        let data = me.data.unwrap();
        let user = data.me.unwrap();
        assert_eq!(user.email.as_deref(), Some("jeanne.martin@example.com"));
        assert_eq!((user.first_name.as_str(), user.last_name.as_str()), ("Jeanne", "Martin"));
        assert_eq!(user.timezone_name.as_deref(), Some("Europe/Paris"));
        // Not before the confirmation e-mail's link is opened (tests/api/account_pages.rs).
        assert!(!user.has_activated_email);
        assert!((100_000_000..=999_999_999).contains(&user.id));
        assert_eq!(data.check_auth.success, Some(true));
        assert_eq!(data.check_auth.user_id, Some(user.id));
    }

    async fn duplicate_email_is_invalid_inputs(app) {
        app.sign_up("twice@example.com", "long enough secret").await;
        let (status, body) = app
            .graphql(
                "mutation { signUp { user(email: \"TWICE@example.com\", password: \"another secret\", firstName: \"A\", lastName: \"B\") { accessToken } } }",
                json!({}),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["data"], json!({ "signUp": { "user": null } }));
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(body["errors"][0]["path"], json!(["signUp", "user"]));
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 1, "the failed sign-up changed nothing");
    }

    async fn concurrent_sign_ups_with_one_email_create_one_account(app) {
        let attempts = (0..6).map(|i| async move {
            let (_, body) = app
                .graphql(
                    "mutation($p: String!) { signUp { user(email: \"race@example.com\", password: $p, firstName: \"A\", lastName: \"B\") { accessToken } } }",
                    json!({ "p": format!("password number {i}") }),
                    None,
                )
                .await;
            body
        });
        let bodies = futures::future::join_all(attempts).await;
        let created = bodies.iter().filter(|b| b["data"]["signUp"]["user"].is_object()).count();
        assert_eq!(created, 1, "{bodies:?}");
        assert!(bodies.iter().filter(|b| !b["data"]["signUp"]["user"].is_object()).all(|b| codes(b) == ["INVALID_INPUTS"]));
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 1);
    }

    async fn bad_sign_up_values_are_invalid_inputs(app) {
        for (password, first_name) in [("short", "Jeanne"), ("long enough secret", "   ")] {
            let (_, body) = app
                .graphql(
                    "mutation($p: String!, $f: String!) { signUp { user(email: \"v@example.com\", password: $p, firstName: $f, lastName: \"B\") { accessToken } } }",
                    json!({ "p": password, "f": first_name }),
                    None,
                )
                .await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        }
    }

    async fn refresh_tokens_rotate_and_reuse_revokes_the_session(app) {
        let (access, refresh) = app.sign_up("rotate@example.com", "long enough secret").await;
        let (_, body) = app.graphql(REFRESH, json!({}), Some(&refresh)).await;
        let pair = &body["data"]["auth"]["refresh"];
        let (new_access, new_refresh) = (pair["accessToken"].as_str().unwrap(), pair["refreshToken"].as_str().unwrap());
        assert_ne!(new_refresh, refresh);
        let (_, me) = app.graphql(ME, json!({}), Some(new_access)).await;
        assert!(me["data"]["me"]["id"].is_number(), "{me}");

        // The old refresh token is spent; using it again revokes the whole session.
        let (_, body) = app.graphql(REFRESH, json!({}), Some(&refresh)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
        assert_eq!(body["errors"][0]["message"], "Refresh token is invalid");
        for token in [access.as_str(), new_access] {
            let (_, me) = app.graphql(ME, json!({}), Some(token)).await;
            assert_eq!(codes(&me), ["AUTHENTICATION_ERROR"], "{me}");
        }
        let (_, body) = app.graphql(REFRESH, json!({}), Some(new_refresh)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);

        // An access token is not a refresh token.
        let (access, _) = app.sign_up("other@example.com", "long enough secret").await;
        let (_, body) = app.graphql(REFRESH, json!({}), Some(&access)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
    }

    async fn concurrent_refreshes_with_one_token_succeed_once(app) {
        let (_, refresh) = app.sign_up("race-refresh@example.com", "long enough secret").await;
        let attempts = (0..5).map(|_| app.graphql(REFRESH, json!({}), Some(&refresh)));
        let results = futures::future::join_all(attempts).await;
        let succeeded = results.iter().filter(|(_, b)| b["data"]["auth"]["refresh"].is_object()).count();
        assert_eq!(succeeded, 1, "{results:?}");
    }

    async fn a_failed_refresh_keeps_the_session(app) {
        let (_, refresh) = app.sign_up("kept@example.com", "long enough secret").await;
        // The new pair cannot be written: the refresh fails and the old token is not spent.
        crate::support::refusing::refuse(app, "auth_tokens", "INSERT").await;
        let (_, body) = app.graphql(REFRESH, json!({}), Some(&refresh)).await;
        assert!(body["data"]["auth"]["refresh"].is_null(), "{body}");
        assert_eq!(codes(&body), ["INTERNAL_ERROR"], "{body}");
        let (used,): (Option<i64>,) = sqlx::query_as("SELECT used_at FROM auth_tokens WHERE token_hash = $1")
            .bind(roadlog::domain::auth::tokens::hash(&refresh))
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(used, None, "the refresh token is not spent without its successor");
        crate::support::refusing::allow(app, "auth_tokens", "INSERT").await;
        let (_, body) = app.graphql(REFRESH, json!({}), Some(&refresh)).await;
        let access = body["data"]["auth"]["refresh"]["accessToken"].as_str().unwrap_or_else(|| panic!("{body}"));
        let (_, me) = app.graphql(ME, json!({}), Some(access)).await;
        assert!(me["data"]["me"].is_object(), "{me}");
    }

    async fn logout_ends_the_session(app) {
        let (access, refresh) = app.sign_up("bye@example.com", "long enough secret").await;
        let body = login(app, "bye@example.com", "long enough secret").await;
        let other_session = body["data"]["auth"]["login"]["accessToken"].as_str().unwrap().to_string();

        let (_, body) = app.graphql(LOGOUT, json!({}), Some(&access)).await;
        assert_eq!(body, json!({ "data": { "auth": { "logout": { "success": true } } } }));
        let (_, me) = app.graphql(ME, json!({}), Some(&access)).await;
        assert_eq!(codes(&me), ["AUTHENTICATION_ERROR"]);
        let (_, body) = app.graphql(REFRESH, json!({}), Some(&refresh)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
        // Other sessions of the same user are untouched.
        let (_, me) = app.graphql(ME, json!({}), Some(&other_session)).await;
        assert!(me["data"]["me"].is_object(), "{me}");
        // Logging out twice is an authentication error.
        let (_, body) = app.graphql(LOGOUT, json!({}), Some(&access)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
    }

    async fn expired_access_tokens_are_refused(app) {
        let (access, _) = app.sign_up("old@example.com", "long enough secret").await;
        sqlx::query("UPDATE auth_tokens SET expires_at = 1 WHERE kind = 'access'").execute(&app.server.db.pool).await.unwrap();
        let (_, me) = app.graphql(ME, json!({}), Some(&access)).await;
        assert_eq!(codes(&me), ["AUTHENTICATION_ERROR"]);
        assert_eq!(me["errors"][0]["message"], "Expired access token");
    }

    async fn users_read_themselves_but_not_strangers(app) {
        let (alice, _) = app.sign_up("alice@example.com", "long enough secret").await;
        let (bob, _) = app.sign_up("bob@example.com", "long enough secret").await;
        let (_, me) = app.graphql(ME, json!({}), Some(&alice)).await;
        let alice_id = me["data"]["me"]["id"].as_i64().unwrap();
        let (_, me) = app.graphql(ME, json!({}), Some(&bob)).await;
        let bob_id = me["data"]["me"]["id"].as_i64().unwrap();

        let query = "query($id: Int!) { user(id: $id) { id email } }";
        let (_, body) = app.graphql(query, json!({ "id": alice_id }), Some(&alice)).await;
        assert_eq!(body["data"]["user"]["id"], alice_id);
        for id in [bob_id, 123_456_789] {
            let (status, body) = app.graphql(query, json!({ "id": id }), Some(&alice)).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(body["data"], json!({ "user": null }));
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
            assert_eq!(body["errors"][0]["message"], "Forbidden access", "unknown and foreign ids look alike");
        }
    }

    async fn only_hashes_are_stored(app) {
        let (access, refresh) = app.sign_up("hashes@example.com", "long enough secret").await;
        let (hash,): (String,) = sqlx::query_as("SELECT password_hash FROM users").fetch_one(&app.server.db.pool).await.unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(!hash.contains("long enough secret"));
        let stored: Vec<(String,)> = sqlx::query_as("SELECT token_hash FROM auth_tokens").fetch_all(&app.server.db.pool).await.unwrap();
        assert_eq!(stored.len(), 2);
        for (token_hash,) in stored {
            assert_eq!(token_hash.len(), 64);
            assert!(token_hash != access && token_hash != refresh);
            assert!(!access.contains(&token_hash) && !refresh.contains(&token_hash));
        }
    }
}

/// A login from a given client address (the test server trusts 127.0.0.1 as its proxy).
async fn login_from(app: &TestApp, address: &str, email: &str, password: &str) -> Value {
    app.client
        .post(app.url("/api/graphql"))
        .header("x-forwarded-for", address)
        .json(&json!({ "query": LOGIN, "variables": { "e": email, "p": password } }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn reason(body: &Value) -> &str {
    body["errors"][0]["extensions"]["reason"].as_str().unwrap_or("")
}

for_both_backends! {
    async fn login_throttling_slows_guesses_without_locking_people_out(backend) {
        let app = TestApp::spawn_with(backend, |s| s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
        app.sign_up("owner@example.com", "the right password").await;
        app.sign_up("colleague@example.com", "another right password").await;
        let (office, attacker) = ("203.0.113.10", "198.51.100.66");
        // The owner logs in from the office once: a known address from now on.
        let body = login_from(&app, office, "owner@example.com", "the right password").await;
        assert!(body["data"]["auth"]["login"]["accessToken"].is_string(), "{body}");

        // A wrong password and an unknown e-mail answer alike, extensions included.
        let wrong = login_from(&app, attacker, "owner@example.com", "guess 1").await;
        let unknown = login_from(&app, attacker, "nobody@example.com", "guess 1").await;
        assert_eq!(codes(&wrong), ["AUTHENTICATION_ERROR"]);
        assert_eq!(wrong["errors"][0]["message"], unknown["errors"][0]["message"]);
        assert_eq!(wrong["errors"][0]["extensions"], unknown["errors"][0]["extensions"]);
        assert_eq!(wrong["errors"][0]["extensions"]["nb_bad_tries"], 1);
        assert_eq!(wrong["errors"][0]["extensions"]["max_possible_tries"], 10);

        // Ten wrong passwords from one address: that address is refused for that account…
        for n in 2..=10 {
            let body = login_from(&app, attacker, "owner@example.com", &format!("guess {n}")).await;
            assert_eq!(body["errors"][0]["extensions"]["nb_bad_tries"], n);
        }
        let refused = login_from(&app, attacker, "owner@example.com", "the right password").await;
        assert_eq!(reason(&refused), "TOO_MANY_ATTEMPTS", "{refused}");
        assert!(refused["errors"][0]["extensions"]["retryAfter"].as_i64().unwrap() > 0);
        // …and so is an unknown e-mail after as many tries: it tells nothing either.
        for n in 2..=10 {
            login_from(&app, attacker, "nobody@example.com", &format!("guess {n}")).await;
        }
        assert_eq!(reason(&login_from(&app, attacker, "nobody@example.com", "x").await), "TOO_MANY_ATTEMPTS");
        // Another account behind the same address is not blocked, nor the owner elsewhere.
        let body = login_from(&app, attacker, "colleague@example.com", "another right password").await;
        assert!(body["data"]["auth"]["login"]["accessToken"].is_string(), "{body}");
        let body = login_from(&app, office, "owner@example.com", "the right password").await;
        assert!(body["data"]["auth"]["login"]["accessToken"].is_string(), "{body}");

        // Spread over many addresses: after 30 failures in the hour, unknown addresses are
        // refused for this account, while the owner's known address still works.
        for n in 0..20 {
            let address = format!("192.0.2.{n}");
            let body = login_from(&app, &address, "owner@example.com", "spread guess").await;
            assert_eq!(reason(&body), "BAD_PASSWORD", "{n}: {body}");
        }
        let refused = login_from(&app, "192.0.2.200", "owner@example.com", "the right password").await;
        assert_eq!(reason(&refused), "TOO_MANY_ATTEMPTS", "{refused}");
        let body = login_from(&app, office, "owner@example.com", "the right password").await;
        assert!(body["data"]["auth"]["login"]["accessToken"].is_string(), "the owner's known address: {body}");
        app.cleanup().await;
    }
}
