//! The OAuth client registry (`roadlog client create | list | revoke`) against the server's own
//! database, and OAuth access tokens acting as their user on the API, on both databases.

use serde_json::{Value, json};

use crate::support::{TestApp, codes};

fn roadlog(app: &TestApp, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_roadlog"))
        .args(args)
        .env("DATABASE_URL", &app.database_url)
        // Logs at their most talkative level: they go to standard error, never into the
        // command's output on standard output.
        .env("RUST_LOG", "debug")
        .output()
        .unwrap()
}

on_both_backends! {
    async fn operators_register_list_and_revoke_clients(app) {
        let output = roadlog(app, &["client", "create", "--name", "Fleet Manager", "--redirect-uri", "https://fleet.example.com/cb", "--redirect-uri", "http://127.0.0.1:9000/cb"]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let created: Value = serde_json::from_slice(&output.stdout).unwrap();
        let id = created["client_id"].as_str().unwrap().to_string();
        let secret = created["client_secret"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 9);
        assert!(secret.starts_with("rl_cs_") && secret.len() > 40);
        // Only a SHA-256 hash of the (256-bit random) secret is stored.
        let (hash,): (String,) = sqlx::query_as("SELECT secret_hash FROM oauth_clients").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(hash, format!("sha256:{}", roadlog::domain::auth::tokens::hash(&secret)));

        let output = roadlog(app, &["client", "list", "--json"]);
        let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(listed[0]["client_id"], id.as_str());
        assert_eq!(listed[0]["redirect_uris"], json!(["http://127.0.0.1:9000/cb", "https://fleet.example.com/cb"]));
        assert!(!String::from_utf8_lossy(&output.stdout).contains(&secret), "the secret is shown once");

        // Refused registrations change nothing.
        for bad in ["/relative", "https://fleet.example.com/cb#fragment"] {
            let output = roadlog(app, &["client", "create", "--name", "Bad", "--redirect-uri", bad]);
            assert!(!output.status.success());
            assert!(!output.stderr.is_empty());
        }
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM oauth_clients").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 1);

        let output = roadlog(app, &["client", "revoke", &id]);
        assert!(output.status.success());
        let listed: Value = serde_json::from_slice(&roadlog(app, &["client", "list", "--json"]).stdout).unwrap();
        assert!(listed[0]["revoked_at"].is_i64());
        assert!(!roadlog(app, &["client", "revoke", &id]).status.success(), "already revoked");
    }

    async fn oauth_access_tokens_act_as_their_user_until_revoked(app) {
        let user = app.new_user("driver@example.com").await;
        let created = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Payroll", &["https://payroll.example.com/cb".into()]).await.unwrap();
        let client: i64 = created.client_id.parse().unwrap();
        let token = roadlog::domain::auth::oauth_tokens::issue(&app.server.db, client, user.id, None).await.unwrap();
        let (_, body) = app.graphql("{ me { id } checkAuth { userId } }", json!({}), Some(&token)).await;
        assert_eq!(body["data"], json!({ "me": { "id": user.id }, "checkAuth": { "userId": user.id } }));
        // Stored as a hash only.
        let (hash,): (String,) = sqlx::query_as("SELECT token_hash FROM oauth_tokens").fetch_one(&app.server.db.pool).await.unwrap();
        assert_ne!(hash, token);
        // Revoking the client revokes its tokens.
        assert!(roadlog::oauth::clients::revoke(&app.server.db, &created.client_id).await.unwrap());
        let (_, body) = app.graphql("{ me { id } }", json!({}), Some(&token)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
        // An expired token is refused.
        let created = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Other", &["https://other.example.com/cb".into()]).await.unwrap();
        let token = roadlog::domain::auth::oauth_tokens::issue(&app.server.db, created.client_id.parse().unwrap(), user.id, Some(-1)).await.unwrap();
        let (_, body) = app.graphql("{ me { id } }", json!({}), Some(&token)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
    }

    async fn users_see_and_revoke_the_applications_they_authorized(app) {
        let user = app.new_user("driver@example.com").await;
        let other = app.new_user("other@example.com").await;
        let fleet = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Fleet Manager", &["https://fleet.example.com/cb".into()]).await.unwrap();
        let payroll = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Payroll", &["https://payroll.example.com/cb".into()]).await.unwrap();
        let (fleet_id, payroll_id): (i64, i64) = (fleet.client_id.parse().unwrap(), payroll.client_id.parse().unwrap());
        let fleet_token = roadlog::domain::auth::oauth_tokens::issue(&app.server.db, fleet_id, user.id, None).await.unwrap();
        roadlog::domain::auth::oauth_tokens::issue(&app.server.db, payroll_id, user.id, None).await.unwrap();
        let others = roadlog::domain::auth::oauth_tokens::issue(&app.server.db, fleet_id, other.id, None).await.unwrap();

        let body = app.as_user(&user, "{ me { authorizedClients { id name } } }", json!({})).await;
        assert_eq!(
            body["data"]["me"]["authorizedClients"],
            json!([{ "id": fleet_id, "name": "Fleet Manager" }, { "id": payroll_id, "name": "Payroll" }])
        );
        // Another user's list is not readable.
        let body = app.as_user(&other, "query($u: Int!) { user(id: $u) { authorizedClients { id } } }", json!({ "u": user.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);

        let revoke = "mutation($c: Int!) { auth { revokeAuthorizedClient(clientId: $c) { success } } }";
        let body = app.as_user(&user, revoke, json!({ "c": fleet_id })).await;
        assert_eq!(body["data"]["auth"]["revokeAuthorizedClient"], json!({ "success": true }));
        let (_, me) = app.graphql("{ me { id } }", json!({}), Some(&fleet_token)).await;
        assert_eq!(codes(&me), ["AUTHENTICATION_ERROR"], "the application's token stopped working");
        let (_, me) = app.graphql("{ me { id } }", json!({}), Some(&others)).await;
        assert_eq!(me["data"]["me"]["id"], other.id, "other users' authorizations are untouched");
        let body = app.as_user(&user, revoke, json!({ "c": fleet_id })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        let body = app.as_user(&user, "{ me { authorizedClients { name } } }", json!({})).await;
        assert_eq!(body["data"]["me"]["authorizedClients"], json!([{ "name": "Payroll" }]));
    }
}
