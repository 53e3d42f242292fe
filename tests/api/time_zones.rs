//! Time zones enter as IANA names only (sign-up, the vendors' employee sync), and accounts
//! holding an unknown stored name are reported, never read silently as another zone.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestApp, codes};

async fn sign_up(app: &TestApp, email: &str, zone: &str) -> Value {
    let (status, body) = app
        .graphql(
            "mutation($e: String!, $z: String) { signUp { user(email: $e, password: \"a long passphrase\", firstName: \"A\", lastName: \"B\", timezoneName: $z) { accessToken } } }",
            json!({ "e": email, "z": zone }),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

on_both_backends! {
    async fn only_iana_zone_names_are_accepted_at_sign_up(app) {
        for (i, wrong) in ["America/Cayene", "Mars/Olympus", "america/cayenne", "+03"].into_iter().enumerate() {
            let body = sign_up(app, &format!("wrong{i}@example.com"), wrong).await;
            assert_eq!(body["data"], json!({ "signUp": { "user": null } }), "{wrong}");
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{wrong}");
            assert_eq!(body["errors"][0]["extensions"]["field"], "timezoneName", "{body}");
        }
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 0, "a refused sign-up stores nothing");

        let body = sign_up(app, "cayenne@example.com", "America/Cayenne").await;
        let token = body["data"]["signUp"]["user"]["accessToken"].as_str().expect("signed up").to_string();
        let (_, me) = app.graphql("{ me { timezoneName } }", json!({}), Some(&token)).await;
        assert_eq!(me["data"]["me"]["timezoneName"], "America/Cayenne");
    }

    async fn accounts_with_an_unknown_stored_zone_are_listed_for_the_operator(app) {
        let known = app.new_user("known@example.com").await;
        let stale = app.new_user("stale@example.com").await;
        // A name stored before names were checked.
        sqlx::query("UPDATE users SET timezone_name = 'Mars/Olympus' WHERE id = $1")
            .bind(stale.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_roadlog"))
            .args(["users", "unknown-zones", "--json"])
            .env("DATABASE_URL", &app.database_url)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(listed, json!([{ "userId": stale.id, "timezoneName": "Mars/Olympus" }]));
        assert_ne!(known.id, stale.id);
        // Opening the database says it, on standard error, for every command.
        let logs = String::from_utf8_lossy(&output.stderr);
        assert!(logs.contains("unknown time zone") && logs.contains("accounts=1"), "{logs}");
    }
}
