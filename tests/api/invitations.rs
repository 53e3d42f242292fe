//! Invitations by e-mail over the real HTTP API, on both databases: the token sent, redeemed
//! once at sign-up or by an existing account, expired or cancelled; and the sandbox outbox that
//! shows them, to a company's admin only and never in production.

use serde_json::{Value, json};

use crate::support::employments::{CANCEL, outbox};
use crate::support::{Backend, TestApp, TestUser, codes};

fn invitation_token(body: &str) -> String {
    body.split_whitespace()
        .find(|w| w.starts_with("rl_inv_"))
        .expect("token in the e-mail")
        .to_string()
}

async fn invite(app: &TestApp, admin: &TestUser, company_id: i64, mail: &str) -> Value {
    app.as_user(
        admin,
        "mutation($c: Int!, $m: Email!) { employments { createEmployment(companyId: $c, mail: $m) { id email userId validationStatus } } }",
        json!({ "c": company_id, "m": mail }),
    )
    .await
}

on_both_backends! {
    async fn invitations_by_email(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = invite(app, &admin, company, "New.Driver@Example.com").await;
        let invited = &body["data"]["employments"]["createEmployment"];
        assert_eq!(invited["email"], "new.driver@example.com");
        assert_eq!(invited["userId"], Value::Null);
        assert_eq!(invited["validationStatus"], "pending");

        let mails = outbox(app, "new.driver@example.com").await;
        assert_eq!(mails.len(), 1);
        assert!(mails[0]["subject"].as_str().unwrap().contains("Acme"));
        let token = invitation_token(mails[0]["body"].as_str().unwrap());
        let (hash,): (Option<String>,) = sqlx::query_as("SELECT invite_token_hash FROM employments WHERE email = 'new.driver@example.com'")
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_ne!(hash.as_deref(), Some(token.as_str()), "only the hash is stored");

        // A wrong token refuses the sign-up and creates no account.
        let sign_up = "mutation($t: String!) { signUp { user(email: \"new.driver@example.com\", password: \"long enough secret\", firstName: \"N\", lastName: \"D\", inviteToken: $t) { accessToken } } }";
        let (_, body) = app.graphql(sign_up, json!({ "t": "rl_inv_wrong" }), None).await;
        assert_eq!(codes(&body), ["INVALID_TOKEN"]);
        let (users,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(users, 1);

        // The right one creates the account with the accepted employment.
        let (_, body) = app.graphql(sign_up, json!({ "t": token }), None).await;
        let access = body["data"]["signUp"]["user"]["accessToken"].as_str().unwrap_or_else(|| panic!("{body}")).to_string();
        let (_, body) = app.graphql("{ me { currentEmployments { companyId validationStatus status isPrimary } } }", json!({}), Some(&access)).await;
        assert_eq!(
            body["data"]["me"]["currentEmployments"],
            json!([{ "companyId": company, "validationStatus": "approved", "status": "ACTIVE", "isPrimary": true }])
        );

        // Single use.
        let redeemer = app.new_user("someone@example.com").await;
        let redeem = "mutation($t: String!) { signUp { redeemInvite(token: $t) { id status } } }";
        let body = app.as_user(&redeemer, redeem, json!({ "t": token })).await;
        assert_eq!(codes(&body), ["INVALID_TOKEN"]);
        assert_eq!(body["errors"][0]["message"], "Token does not match a valid employment");

        // An existing account redeems another invitation; an expired one is refused.
        invite(app, &admin, company, "second@example.com").await;
        let token = invitation_token(outbox(app, "second@example.com").await[0]["body"].as_str().unwrap());
        let body = app.as_user(&redeemer, redeem, json!({ "t": token })).await;
        assert_eq!(body["data"]["signUp"]["redeemInvite"]["status"], "ACTIVE", "{body}");
        invite(app, &admin, company, "third@example.com").await;
        let token = invitation_token(outbox(app, "third@example.com").await[0]["body"].as_str().unwrap());
        sqlx::query("UPDATE employments SET invite_expires_at = 1 WHERE email = 'third@example.com'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let late = app.new_user("late@example.com").await;
        let body = app.as_user(&late, redeem, json!({ "t": token })).await;
        assert_eq!(codes(&body), ["INVALID_TOKEN"]);

        // Inviting the e-mail of an existing account employs that account directly.
        let body = invite(app, &admin, company, "late@example.com").await;
        assert_eq!(body["data"]["employments"]["createEmployment"]["userId"], late.id);
    }

    async fn cancelled_invitations_cannot_be_redeemed(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = invite(app, &admin, company, "gone@example.com").await;
        let id = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let token = invitation_token(outbox(app, "gone@example.com").await[0]["body"].as_str().unwrap());
        app.as_user(&admin, CANCEL, json!({ "e": id })).await;
        let user = app.new_user("gone-user@example.com").await;
        let body = app.as_user(&user, "mutation($t: String!) { signUp { redeemInvite(token: $t) { id } } }", json!({ "t": token })).await;
        assert_eq!(codes(&body), ["INVALID_TOKEN"]);
    }
}

tests! {
async fn outbox_is_not_served_in_production() {
    let app = TestApp::spawn_in(Backend::Sqlite, roadlog::config::Environment::Production)
        .await;
    let response = app.client.get(app.url("/sandbox/outbox")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error_code"], "NOT_FOUND");
    let env = [("DATABASE_URL", app.database_url.as_str()), ("ROADLOG_ENV", "production"), ("ROADLOG_ALLOW_SQLITE_IN_PRODUCTION", "true")];
    let output = crate::support::process::command(&["outbox", "list"], &env).output().unwrap();
    assert!(!output.status.success(), "the operator command refuses production");
    assert!(String::from_utf8_lossy(&output.stderr).contains("only in the sandbox"));
    app.cleanup().await;
}
}

on_both_backends! {
    async fn the_sandbox_outbox_shows_an_admin_only_the_company_mail(app) {
        let admin = app.new_user("admin@example.com").await;
        let other_admin = app.new_user("other.admin@example.com").await;
        let existing = app.new_user("existing@example.com").await;
        let company = app.new_company(&admin, "Mine").await;
        let other = app.new_company(&other_admin, "Theirs").await;
        invite(app, &admin, company, "invited@example.com").await;
        invite(app, &other_admin, other, "elsewhere@example.com").await;
        // A notification to an existing account's own address is not the company's to read.
        app.employ(&admin, company, existing.id, "").await;

        let anonymous = app.client.get(app.url("/sandbox/outbox")).send().await.unwrap();
        assert_eq!(anonymous.status(), 401);
        let body: Value = anonymous.json().await.unwrap();
        assert_eq!(body["error_code"], "AUTHENTICATION_ERROR");
        let mine = app.client.get(app.url("/sandbox/outbox")).bearer_auth(&admin.token).send().await.unwrap();
        assert_eq!(mine.status(), 200);
        let mails: Vec<Value> = mine.json().await.unwrap();
        let recipients: Vec<&str> = mails.iter().map(|m| m["to"].as_str().unwrap()).collect();
        assert_eq!(recipients, ["invited@example.com"]);
        // The link and the token act for the invited person: the admin sees neither.
        let operator = outbox(app, "invited@example.com").await;
        let token = invitation_token(operator[0]["body"].as_str().unwrap());
        let shown = mails[0]["body"].as_str().unwrap();
        assert!(!shown.contains(&token[7..]), "{shown}");
        assert!(shown.contains("/invitations/accept?token=rl_inv_[hidden: only the recipient sees this token]"), "{shown}");
        let foreign = app.client.get(app.url("/sandbox/outbox")).query(&[("company_id", other)]).bearer_auth(&admin.token).send().await.unwrap();
        assert_eq!(foreign.status(), 403);
        let nobody = app.client.get(app.url("/sandbox/outbox")).bearer_auth(&existing.token).send().await.unwrap();
        assert_eq!(nobody.status(), 403, "an account that administers no company");
        // The operator sees every message.
        assert_eq!(outbox(app, "existing@example.com").await.len(), 1);
        assert_eq!(outbox(app, "elsewhere@example.com").await.len(), 1);
    }
}

on_both_backends! {
    async fn me_after_a_mutation_of_the_same_batch_reads_the_account_again(app) {
        // `me` answers from the row read with the token; a mutation earlier in the same HTTP
        // request may change that row (here, accepting an invitation sent to the account's own
        // address confirms it), so the operations after it read the account again.
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        // Invited before the account exists: an invitation to be redeemed with a token.
        invite(app, &admin, company, "worker@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        sqlx::query("UPDATE users SET email_confirmed_at = NULL WHERE id = $1")
            .bind(worker.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let token = invitation_token(outbox(app, "worker@example.com").await[0]["body"].as_str().unwrap());
        let me = "{ me { id hasConfirmedEmail } }";
        let redeem = "mutation($t: String!) { signUp { redeemInvite(token: $t) { status } } }";
        let batch = json!([{ "query": me }, { "query": redeem, "variables": { "t": token } }, { "query": me }]);
        let response = app.client.post(app.url("/api/graphql")).bearer_auth(&worker.token).json(&batch).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body[0]["data"]["me"], json!({ "id": worker.id, "hasConfirmedEmail": false }), "{body}");
        assert_eq!(body[1]["data"]["signUp"]["redeemInvite"]["status"], "ACTIVE", "{body}");
        assert_eq!(body[2]["data"]["me"], json!({ "id": worker.id, "hasConfirmedEmail": true }), "{body}");
    }
}
