//! The caller's own account over the real HTTP API, on both databases: `account.changeName`,
//! `changePhoneNumber`, `changeTimezone`, `changeGender`, `disableWarning`, `changeEmail` (the
//! new address confirmed, the old one told) and `resetPasswordConnected` (the current password
//! asked for and throttled, the other sessions ended); the `User` fields they show. Each
//! refusal leaves the account as it was.

use serde_json::{Value, json};

use crate::account_pages::mail_link;
use crate::employment_tokens::{Headers, call, journey, token_for};
use crate::support::{TestApp, TestUser, codes};

const ME: &str = "{ me { id email firstName lastName phoneNumber timezoneName gender disabledWarnings isImpersonated shouldUpdatePassword hasConfirmedEmail } }";
const NAME: &str = "mutation($u: Int!, $f: String!, $l: String!) { account { changeName(userId: $u, newFirstName: $f, newLastName: $l) { id firstName lastName } } }";
const PHONE: &str =
    "mutation($u: Int!, $p: String!) { account { changePhoneNumber(userId: $u, newPhoneNumber: $p) { phoneNumber } } }";
const ZONE: &str = "mutation($z: String!) { account { changeTimezone(timezoneName: $z) { timezoneName } } }";
const GENDER: &str = "mutation($g: GenderEnum!) { account { changeGender(gender: $g) { gender } } }";
const WARNING: &str =
    "mutation($w: WarningToDisableTypeEnum!) { account { disableWarning(warningName: $w) { success } } }";
const EMAIL: &str = "mutation($e: Email!) { account { changeEmail(email: $e) { id email hasConfirmedEmail } } }";
const PASSWORD: &str = "mutation($p: Password!, $u: Int!, $c: String) { account { resetPasswordConnected(password: $p, userId: $u, currentPassword: $c) { success } } }";
const LOGIN: &str =
    "mutation($e: Email!, $p: String!) { auth { login(email: $e, password: $p) { accessToken refreshToken } } }";
/// The password of the users `TestApp::new_user` creates.
const OLD_PASSWORD: &str = "long enough secret";
const NEW_PASSWORD: &str = "a brand new passphrase";

/// The stored account: names, phone, zone, gender, e-mail, whether confirmed.
async fn stored(app: &TestApp, user: i64) -> (String, String, Option<String>, String, Option<String>, String, bool) {
    let row: (String, String, Option<String>, String, Option<String>, String, Option<i64>) = sqlx::query_as(
        "SELECT first_name, last_name, phone_number, timezone_name, gender, email, email_confirmed_at FROM users WHERE id = $1",
    )
    .bind(user)
    .fetch_one(&app.server.db.pool)
    .await
    .unwrap();
    (row.0, row.1, row.2, row.3, row.4, row.5, row.6.is_some())
}

async fn count(app: &TestApp, sql: &'static str, bind: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(bind)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
}

/// The subjects of the mail queued for `to`, oldest first.
async fn subjects(app: &TestApp, to: &str) -> Vec<String> {
    let mut mails = roadlog::mail::outbox::latest(&app.server.db, Some(to), 50)
        .await
        .unwrap();
    mails.reverse();
    mails.into_iter().map(|m| m.subject).collect()
}

async fn login(app: &TestApp, email: &str, password: &str) -> Value {
    app.graphql(LOGIN, json!({ "e": email, "p": password }), None).await.1
}

on_both_backends! {
    async fn a_user_changes_names_phone_zone_gender_and_warnings(app) {
        let jeanne = app.new_user("jeanne@example.com").await;
        let other = app.new_user("other@example.com").await;
        let body = app.as_user(&jeanne, ME, json!({})).await;
        assert_eq!(
            body["data"]["me"],
            json!({ "id": jeanne.id, "email": "jeanne@example.com", "firstName": "Jeanne", "lastName": "Martin", "phoneNumber": null,
                    "timezoneName": "Europe/Paris", "gender": null, "disabledWarnings": [], "isImpersonated": false,
                    "shouldUpdatePassword": false, "hasConfirmedEmail": true }),
            "{body}"
        );

        // Names: trimmed, both required, the caller's own only.
        let body = app.as_user(&jeanne, NAME, json!({ "u": jeanne.id, "f": "  Léa ", "l": "Dupont" })).await;
        assert_eq!(body["data"]["account"]["changeName"], json!({ "id": jeanne.id, "firstName": "Léa", "lastName": "Dupont" }), "{body}");
        let body = app.as_user(&jeanne, NAME, json!({ "u": jeanne.id, "f": " ", "l": "X" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "newFirstName");
        let body = app.as_user(&jeanne, NAME, json!({ "u": other.id, "f": "Pirate", "l": "Pirate" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["message"], "Forbidden access");
        assert_eq!(stored(app, other.id).await.0, "Jeanne", "the other account is untouched");

        // Phone: bounded, plain characters, blank removes it.
        let body = app.as_user(&jeanne, PHONE, json!({ "u": jeanne.id, "p": " +33 6 12 34 56 78 " })).await;
        assert_eq!(body["data"]["account"]["changePhoneNumber"]["phoneNumber"], "+33 6 12 34 56 78", "{body}");
        for wrong in ["call me maybe", "0612345678901234567890123456789"] {
            let body = app.as_user(&jeanne, PHONE, json!({ "u": jeanne.id, "p": wrong })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{wrong}: {body}");
        }
        let body = app.as_user(&jeanne, PHONE, json!({ "u": other.id, "p": "0600000000" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(stored(app, jeanne.id).await.2.as_deref(), Some("+33 6 12 34 56 78"));

        // Time zone: IANA names as the database spells them, nothing else.
        let body = app.as_user(&jeanne, ZONE, json!({ "z": "America/Cayenne" })).await;
        assert_eq!(body["data"]["account"]["changeTimezone"]["timezoneName"], "America/Cayenne", "{body}");
        for wrong in ["Not/AZone", "america/cayenne", "+03", "", &"A/".repeat(500)] {
            let body = app.as_user(&jeanne, ZONE, json!({ "z": wrong })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{wrong}: {body}");
            assert_eq!(body["errors"][0]["extensions"]["field"], "timezoneName");
        }
        assert_eq!(stored(app, jeanne.id).await.3, "America/Cayenne");

        // Gender: the reference's two values, as strings.
        let body = app.as_user(&jeanne, GENDER, json!({ "g": "female" })).await;
        assert_eq!(body["data"]["account"]["changeGender"]["gender"], "female", "{body}");
        let (_, body) = app.graphql(GENDER, json!({ "g": "other" }), Some(&jeanne.token)).await;
        assert!(!body["errors"].as_array().unwrap().is_empty(), "{body}");
        let body = app.as_user(&jeanne, "mutation { account { changeGender(gender: \"male\") { gender } } }", json!({})).await;
        assert_eq!(body["data"]["account"]["changeGender"]["gender"], "male", "{body}");
        assert_eq!(stored(app, jeanne.id).await.4.as_deref(), Some("male"));

        // Warnings: each kept once, listed in the scalar's order.
        for warning in ["employee-off-creation", "employee-validation", "employee-off-creation"] {
            let body = app.as_user(&jeanne, WARNING, json!({ "w": warning })).await;
            assert_eq!(body["data"]["account"]["disableWarning"]["success"], true, "{body}");
        }
        let (_, body) = app.graphql(WARNING, json!({ "w": "all-of-them" }), Some(&jeanne.token)).await;
        assert!(!body["errors"].as_array().unwrap().is_empty(), "{body}");
        let (kept,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM user_disabled_warnings WHERE user_id = $1")
            .bind(jeanne.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(kept, 2);

        let body = app.as_user(&jeanne, ME, json!({})).await;
        let me = &body["data"]["me"];
        assert_eq!(me["disabledWarnings"], json!(["employee-validation", "employee-off-creation"]), "{body}");
        assert_eq!((me["firstName"].as_str(), me["gender"].as_str()), (Some("Léa"), Some("male")));
        // Another user's warnings are theirs only.
        let company = app.new_company(&jeanne, "Acme").await;
        app.hire(&jeanne, company, &other).await;
        let body = app.as_user(&other, "query($u: Int!) { user(id: $u) { firstName disabledWarnings } }", json!({ "u": jeanne.id })).await;
        assert_eq!(body["data"]["user"]["firstName"], "Léa", "{body}");
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
    }

    async fn the_password_changes_with_the_current_one_and_other_sessions_end(app) {
        let jeanne = app.new_user("jeanne@example.com").await;
        let other = app.new_user("other@example.com").await;
        // A second login of Jeanne's, elsewhere.
        let body = login(app, "jeanne@example.com", OLD_PASSWORD).await;
        let elsewhere = body["data"]["auth"]["login"]["accessToken"].as_str().unwrap().to_string();
        let elsewhere_refresh = body["data"]["auth"]["login"]["refreshToken"].as_str().unwrap().to_string();
        let failures = "SELECT COUNT(*) FROM login_failures WHERE email = $1";
        let change = |current: Option<&str>, new: &str, user: i64| json!({ "p": new, "u": user, "c": current });

        // The current password is required, and must be right (a failed login, counted).
        let body = app.as_user(&jeanne, PASSWORD, change(None, NEW_PASSWORD, jeanne.id)).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "currentPassword");
        let body = app.as_user(&jeanne, PASSWORD, change(Some("not the password"), NEW_PASSWORD, jeanne.id)).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        let extensions = &body["errors"][0]["extensions"];
        assert_eq!((extensions["field"].as_str(), extensions["reason"].as_str()), (Some("currentPassword"), Some("BAD_PASSWORD")), "{body}");
        assert_eq!((extensions["nb_bad_tries"].as_i64(), extensions["max_possible_tries"].as_i64()), (Some(1), Some(10)));
        assert_eq!(count(app, failures, "jeanne@example.com").await, 1);
        // A new password that would be refused costs no guess.
        let body = app.as_user(&jeanne, PASSWORD, change(Some(OLD_PASSWORD), "short", jeanne.id)).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "password");
        assert_eq!(count(app, failures, "jeanne@example.com").await, 1);
        // Another user's password is not the caller's to change.
        let body = app.as_user(&jeanne, PASSWORD, change(Some(OLD_PASSWORD), NEW_PASSWORD, other.id)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["message"], "Forbidden access");
        // Nothing changed so far: both sessions work, the old password logs in.
        let body = app.graphql("{ me { id } }", json!({}), Some(&elsewhere)).await.1;
        assert_eq!(body["data"]["me"]["id"], jeanne.id, "{body}");

        // A user whose password someone else set is asked to choose one.
        sqlx::query("UPDATE users SET password_updated_at = NULL WHERE email = 'jeanne@example.com'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&jeanne, "{ me { shouldUpdatePassword } }", json!({})).await;
        assert_eq!(body["data"]["me"]["shouldUpdatePassword"], true, "{body}");

        let body = app.as_user(&jeanne, PASSWORD, change(Some(OLD_PASSWORD), NEW_PASSWORD, jeanne.id)).await;
        assert_eq!(body["data"]["account"]["resetPasswordConnected"], json!({ "success": true }), "{body}");
        // The session that changed it goes on; the other one ended, refresh token included.
        let body = app.as_user(&jeanne, "{ me { id shouldUpdatePassword } }", json!({})).await;
        assert_eq!(body["data"]["me"], json!({ "id": jeanne.id, "shouldUpdatePassword": false }), "{body}");
        let body = app.graphql("{ me { id } }", json!({}), Some(&elsewhere)).await.1;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        let body = app.graphql("mutation { auth { refresh { accessToken } } }", json!({}), Some(&elsewhere_refresh)).await.1;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        assert_eq!(count(app, "SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1 AND s.revoked_at IS NULL", "jeanne@example.com").await, 1);
        // The failures of this address are forgotten, as after a login.
        assert_eq!(count(app, failures, "jeanne@example.com").await, 0);
        // Only the new password logs in.
        let body = login(app, "jeanne@example.com", OLD_PASSWORD).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        let body = login(app, "jeanne@example.com", NEW_PASSWORD).await;
        assert!(body["data"]["auth"]["login"]["accessToken"].is_string(), "{body}");
    }

    async fn an_employment_token_cannot_change_the_account(app) {
        let j = journey(app).await;
        let token = token_for(app, &j.payroll, j.bob_employment).await;
        let vendor = Headers { client: Some(&j.client), token: Some(&token), bearer: None };
        let bob = j.bob.id;
        let before = stored(app, bob).await;
        let attempts = [
            (NAME, json!({ "u": bob, "f": "Robert", "l": "Vendor" })),
            (PHONE, json!({ "u": bob, "p": "0600000000" })),
            (ZONE, json!({ "z": "Asia/Tokyo" })),
            (GENDER, json!({ "g": "male" })),
            (WARNING, json!({ "w": "employee-validation" })),
            (EMAIL, json!({ "e": "vendor@example.com" })),
            (PASSWORD, json!({ "p": NEW_PASSWORD, "u": bob, "c": OLD_PASSWORD })),
        ];
        for (query, variables) in attempts {
            let body = call(app, &vendor, query, variables).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{query}: {body}");
        }
        assert_eq!(stored(app, bob).await, before, "nothing changed");
        assert!(subjects(app, "vendor@example.com").await.is_empty());
        // Bob's own login may.
        let body = app.as_user(&j.bob, ZONE, json!({ "z": "Asia/Tokyo" })).await;
        assert_eq!(body["data"]["account"]["changeTimezone"]["timezoneName"], "Asia/Tokyo", "{body}");
    }

    async fn wrong_current_passwords_meet_the_login_throttle(app) {
        let jeanne = app.new_user("jeanne@example.com").await;
        for attempt in 1..=10 {
            let body = app.as_user(&jeanne, PASSWORD, json!({ "p": NEW_PASSWORD, "u": jeanne.id, "c": format!("guess {attempt}") })).await;
            assert_eq!(body["errors"][0]["extensions"]["nb_bad_tries"], attempt, "{body}");
        }
        // The throttle refuses the eleventh before checking it, even with the right password.
        let body = app.as_user(&jeanne, PASSWORD, json!({ "p": NEW_PASSWORD, "u": jeanne.id, "c": OLD_PASSWORD })).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "TOO_MANY_ATTEMPTS");
        assert!(body["errors"][0]["extensions"]["retryAfter"].as_i64().unwrap() > 0);
        // So does the login form: the guesses were counted against the account.
        let body = login(app, "jeanne@example.com", OLD_PASSWORD).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "TOO_MANY_ATTEMPTS", "{body}");
        let body = app.as_user(&jeanne, "{ me { id } }", json!({})).await;
        assert_eq!(body["data"]["me"]["id"], jeanne.id, "the session itself goes on: {body}");
    }
}

/// `changeEmail` with the account's language set to `lang` first: both e-mails are in it.
async fn change_email(app: &TestApp, user: &TestUser, email: &str, lang: &str) -> Value {
    let body = app
        .as_user(
            user,
            "mutation($l: String!) { account { changeLanguage(language: $l) { id } } }",
            json!({ "l": lang }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
    app.client
        .post(app.url("/api/graphql"))
        .bearer_auth(&user.token)
        .header("accept-language", lang)
        .json(&json!({ "query": EMAIL, "variables": { "e": email } }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

const COMPANY: &str = "mutation { signUp { company(usualName: \"Fresh\", siren: \"123456789\") { company { id } } } }";

for_both_backends! {
    async fn a_new_address_is_confirmed_and_the_old_one_told(backend) {
        let app = TestApp::spawn_in(backend, roadlog::config::Environment::Production).await;
        let jeanne = app.new_user("jeanne@example.com").await;
        app.new_user("taken@example.com").await;

        let body = change_email(&app, &jeanne, "  New@Example.COM ", "en").await;
        assert_eq!(
            body["data"]["account"]["changeEmail"],
            json!({ "id": jeanne.id, "email": "new@example.com", "hasConfirmedEmail": false }),
            "{body}"
        );
        let (.., email, confirmed) = stored(&app, jeanne.id).await;
        assert_eq!((email.as_str(), confirmed), ("new@example.com", false));
        assert_eq!(subjects(&app, "new@example.com").await, ["Confirm the new e-mail address of your Roadlog account"]);
        assert_eq!(subjects(&app, "jeanne@example.com").await, ["The e-mail address of your Roadlog account changed"]);
        let told = roadlog::mail::outbox::latest(&app.server.db, Some("jeanne@example.com"), 1).await.unwrap();
        assert!(told[0].body.contains("    new@example.com\n"), "{}", told[0].body);
        let first_link = mail_link(&app, "new@example.com", "/account/confirm?token=").await;

        // Until it is confirmed the account cannot act on a company; its own account it can.
        let body = app.as_user(&jeanne, COMPANY, json!({})).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["errors"][0]["message"], "Actor is not active. The email activation is required to perform mutations.");
        let body = app.as_user(&jeanne, NAME, json!({ "u": jeanne.id, "f": "Jeanne", "l": "Moreau" })).await;
        assert!(body["errors"].is_null(), "{body}");
        // It logs in with the new address only.
        assert!(login(&app, "new@example.com", OLD_PASSWORD).await["data"]["auth"]["login"]["accessToken"].is_string());
        assert_eq!(codes(&login(&app, "jeanne@example.com", OLD_PASSWORD).await), ["AUTHENTICATION_ERROR"]);

        // The same address again changes nothing and sends nothing; another account's is refused.
        let body = change_email(&app, &jeanne, "new@example.com", "en").await;
        assert_eq!(body["data"]["account"]["changeEmail"]["email"], "new@example.com", "{body}");
        assert_eq!(subjects(&app, "new@example.com").await.len(), 1);
        let body = change_email(&app, &jeanne, "TAKEN@example.com", "en").await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "email");
        assert_eq!(stored(&app, jeanne.id).await.5, "new@example.com");
        let body = change_email(&app, &jeanne, "not an address", "en").await;
        assert!(!body["errors"].as_array().unwrap().is_empty(), "{body}");

        // A mistyped address is corrected the same way, in the account's language; the link sent
        // to the mistyped one no longer works.
        let body = change_email(&app, &jeanne, "right@example.com", "fr").await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(subjects(&app, "right@example.com").await, ["Confirmez la nouvelle adresse e-mail de votre compte Roadlog"]);
        assert_eq!(subjects(&app, "new@example.com").await[1], "L'adresse e-mail de votre compte Roadlog a changé");
        assert_eq!(app.client.get(&first_link).send().await.unwrap().status(), 404);
        assert!(!stored(&app, jeanne.id).await.6, "the new address is unconfirmed");

        // Opening the new link confirms the address: the account acts again.
        let link = mail_link(&app, "right@example.com", "/account/confirm?token=").await;
        assert_eq!(app.client.get(&link).send().await.unwrap().status(), 200);
        let body = app.as_user(&jeanne, "{ me { email hasConfirmedEmail hasActivatedEmail } }", json!({})).await;
        assert_eq!(body["data"]["me"], json!({ "email": "right@example.com", "hasConfirmedEmail": true, "hasActivatedEmail": true }));
        let body = app.as_user(&jeanne, COMPANY, json!({})).await;
        assert!(body["errors"].is_null(), "{body}");
        app.cleanup().await;
    }
}
