//! `/sync_employee` for an account with a second factor: the right password alone accepts
//! nothing and leads to the code page; a wrong code, or the challenge of another account's
//! login, accepts nothing either; the right code accepts and the vendor gets its token.

use super::*;
use crate::totp::{code, enable, wrong};

/// The link's accepted state and the employment's status.
async fn state(app: &TestApp, employment: i64) -> (Option<i64>, String) {
    let (accepted,): (Option<i64>,) =
        sqlx::query_as("SELECT accepted_at FROM client_employments WHERE employment_id = $1")
            .bind(employment)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
    let (status,): (String,) = sqlx::query_as("SELECT validation_status FROM employments WHERE id = $1")
        .bind(employment)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    (accepted, status)
}

on_both_backends! {
    async fn an_account_with_a_second_factor_accepts_with_its_code(app) {
        let employee = app.new_user("guarded@example.com").await;
        let (secret, _) = enable(app, &employee).await;
        let other = app.new_user("other@example.com").await;
        let (other_secret, _) = enable(app, &other).await;
        let payroll = vendor(app, "Payroll Plus").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": [{ "email": "guarded@example.com", "firstName": "G", "lastName": "Uarded" }] })).await;
        let employment = body["data"]["company"]["syncEmployment"][0]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));

        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "guarded@example.com").await)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        // The right password: the code page, and nothing accepted yet.
        let step = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "long enough secret")]).await;
        assert_eq!(step.status, StatusCode::OK, "{}", step.body);
        assert!(step.body.contains("name=\"code\"") && step.body.contains("value=\"totp\""), "{}", step.body);
        assert!(!step.body.contains("Request accepted"));
        let challenge = forms::field(&step.body, "challenge");
        assert!(challenge.starts_with("rl_tc_"), "{challenge}");
        assert_eq!(state(app, employment).await, (None, "pending".to_string()));
        let body = protected(app, &payroll, TOKEN, json!({ "c": payroll.0, "e": employment })).await;
        assert_eq!(body["data"]["employmentToken"]["accessToken"], Value::Null, "{body}");
        // The challenge is no bearer token.
        let (_, me) = app.graphql("{ me { id } }", json!({}), Some(&challenge)).await;
        assert_eq!(codes(&me), ["AUTHENTICATION_ERROR"], "{me}");

        // A wrong code: the code page again, the same challenge, nothing accepted.
        let again = browser.post(&action, &[("csrf_token", &csrf), ("action", "totp"), ("challenge", &challenge), ("code", &wrong(&secret))]).await;
        assert_eq!(again.status, StatusCode::UNAUTHORIZED, "{}", again.body);
        assert!(again.body.contains("Wrong code.") && again.body.contains(&challenge));
        assert_eq!(state(app, employment).await, (None, "pending".to_string()));
        // No challenge, or a made-up one: back to the password.
        for forged in ["", "rl_tc_forged"] {
            let refused = browser.post(&action, &[("csrf_token", &csrf), ("action", "totp"), ("challenge", forged), ("code", &code(&secret, 0))]).await;
            assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.body);
            assert!(refused.body.contains("Enter your password again") && refused.body.contains("name=\"password\""), "{}", refused.body);
        }
        // The challenge of another account's login, with that account's code, answers no one's link.
        let (_, login) = app.graphql("mutation { auth { login(email: \"other@example.com\", password: \"long enough secret\") { accessToken totpRequired } } }", json!({}), None).await;
        assert_eq!(login["data"]["auth"]["login"]["totpRequired"], true, "{login}");
        let foreign = login["data"]["auth"]["login"]["accessToken"].as_str().unwrap().to_string();
        let refused = browser.post(&action, &[("csrf_token", &csrf), ("action", "totp"), ("challenge", &foreign), ("code", &code(&other_secret, 1))]).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.body);
        assert_eq!(state(app, employment).await, (None, "pending".to_string()));
        let (owner,): (Option<i64>,) = sqlx::query_as("SELECT user_id FROM employments WHERE id = $1").bind(employment).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(owner, None, "the other account is not attached");

        // The right code: accepted, and the vendor gets its token for this account.
        // (The step of now was spent by verifyTotp: the next one.)
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "totp"), ("challenge", &challenge), ("code", &code(&secret, 1))]).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        assert!(done.body.contains("Request accepted"), "{}", done.body);
        let (accepted, status) = state(app, employment).await;
        assert!(accepted.is_some());
        assert_eq!(status, "approved");
        let body = protected(app, &payroll, TOKEN, json!({ "c": payroll.0, "e": employment })).await;
        assert_eq!(body["data"]["employmentToken"]["employment"]["userId"], employee.id, "{body}");
        assert!(body["data"]["employmentToken"]["accessToken"].is_string(), "{body}");
        // The link is answered: used again, it says so.
        let used = browser.post(&action, &[("csrf_token", &csrf), ("action", "totp"), ("challenge", &challenge), ("code", &code(&secret, -1))]).await;
        assert_eq!(used.status, StatusCode::CONFLICT, "{}", used.body);
    }
}
