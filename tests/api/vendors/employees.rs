//! The employees' side of a sync: accepting or declining on `/sync_employee`, the vendor's
//! employment token, the sandbox outbox, and expired links answered with a page and a new mail.

use super::*;

on_both_backends! {
    async fn employees_accept_or_decline_and_the_vendor_gets_its_token(app) {
        let existing = app.new_user("known@example.com").await;
        let payroll = vendor(app, "Payroll Plus").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let employees = json!([
            { "email": "new@example.com", "firstName": "Nina", "lastName": "Neuf", "hasAdminRights": true },
            { "email": "KNOWN@example.com", "firstName": "Karl", "lastName": "Known" },
            { "email": "no@example.com", "firstName": "Noe", "lastName": "Non" },
        ]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        let synced = body["data"]["company"]["syncEmployment"].as_array().unwrap().clone();
        assert_eq!(synced.len(), 3);
        // Only what the vendor sent: no user, whether or not the e-mail had an account.
        for (employment, (email, admin)) in synced.iter().zip([("new@example.com", true), ("known@example.com", false), ("no@example.com", false)]) {
            assert_eq!(employment["email"], email);
            assert_eq!(employment["hasAdminRights"], admin);
            assert_eq!(employment["companyId"], company);
            assert_eq!(employment["validationStatus"], "pending");
            assert_eq!(employment["userId"], Value::Null);
            assert_eq!(employment["user"], Value::Null);
        }
        let ids: Vec<i64> = synced.iter().map(|e| e["id"].as_i64().unwrap()).collect();
        // The known account is not attached before it accepts.
        let (attached,): (Option<i64>,) = sqlx::query_as("SELECT user_id FROM employments WHERE id = $1").bind(ids[1]).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(attached, None);
        let token_of = |id: i64| json!({ "c": payroll.0, "e": id });
        let body = protected(app, &payroll, TOKEN, token_of(ids[0])).await;
        let link = &body["data"]["employmentToken"];
        assert_eq!(link["accessToken"], Value::Null, "{body}");
        assert_eq!(link["clientName"], "Payroll Plus");
        assert_eq!(link["employment"]["company"]["name"], "Transports Martin");

        // A new account: the password is chosen on the page.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "new@example.com").await)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert!(page.body.contains("Payroll Plus") && page.body.contains("Transports Martin"));
        assert!(page.body.contains("with the rights of a company admin"));
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        // Without the CSRF token nothing is done.
        let refused = browser.post(&action, &[("action", "accept"), ("password", "a new secret"), ("password_confirmation", "a new secret")]).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN);
        let refused = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "short"), ("password_confirmation", "short")]).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
        let refused = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "a new secret"), ("password_confirmation", "another one")]).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM users").await, 1);
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "a new secret"), ("password_confirmation", "a new secret")]).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        assert!(done.body.contains("Request accepted"));
        // The link is used now.
        assert_eq!(browser.get(&action).await.status, StatusCode::CONFLICT);
        // The vendor gets the token once; only its hash is kept.
        let body = protected(app, &payroll, TOKEN, token_of(ids[0])).await;
        let link = &body["data"]["employmentToken"];
        let token = link["accessToken"].as_str().unwrap_or_else(|| panic!("{body}")).to_string();
        assert!(token.starts_with("rl_et_"));
        assert_eq!(link["employment"]["validationStatus"], "approved");
        let new_user = link["employment"]["userId"].as_i64().unwrap();
        let (hash,): (String,) = sqlx::query_as("SELECT access_token_hash FROM client_employments WHERE employment_id = $1").bind(ids[0]).fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(hash, roadlog::domain::auth::tokens::hash(&token));
        assert_eq!(protected(app, &payroll, TOKEN, token_of(ids[0])).await["data"]["employmentToken"]["accessToken"], Value::Null);
        // The new account signs in with the chosen password and is the company's admin.
        let (_, login) = app.graphql("mutation { auth { login(email: \"new@example.com\", password: \"a new secret\") { accessToken } } }", json!({}), None).await;
        let access = login["data"]["auth"]["login"]["accessToken"].as_str().unwrap_or_else(|| panic!("{login}")).to_string();
        let (_, me) = app.graphql("{ me { id firstName lastName currentEmployments { id companyId hasAdminRights } } }", json!({}), Some(&access)).await;
        assert_eq!(me["data"]["me"]["id"], new_user);
        assert_eq!(me["data"]["me"]["firstName"], "Nina");
        assert_eq!(me["data"]["me"]["currentEmployments"], json!([{ "id": ids[0], "companyId": company, "hasAdminRights": true }]));
        // The admin sees the pending synced employee without their account.
        let (_, seen) = app.graphql("query($c: Int!) { company(id: $c) { employments { id userId email validationStatus user { id } } } }", json!({ "c": company }), Some(&access)).await;
        let pending = seen["data"]["company"]["employments"].as_array().unwrap().iter().find(|e| e["id"] == ids[1]).cloned().unwrap_or_else(|| panic!("{seen}"));
        assert_eq!(pending["userId"], Value::Null);
        assert_eq!(pending["user"], Value::Null);

        // An existing account signs in with its password.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "known@example.com").await)).await;
        assert!(page.body.contains("An account exists for this e-mail"));
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        let wrong = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "not the password")]).await;
        assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "long enough secret")]).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        let body = protected(app, &payroll, TOKEN, token_of(ids[1])).await;
        assert_eq!(body["data"]["employmentToken"]["employment"]["userId"], existing.id);
        assert!(body["data"]["employmentToken"]["accessToken"].is_string());

        // The third declines: the employment is rejected, no token ever.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "no@example.com").await)).await;
        let action = forms::action(&app.url(""), &page.body);
        let csrf = forms::field(&page.body, "csrf_token");
        let done = browser.post(&action, &[("csrf_token", &csrf), ("action", "decline")]).await;
        assert_eq!(done.status, StatusCode::OK);
        assert!(done.body.contains("Request declined"));
        let body = protected(app, &payroll, TOKEN, token_of(ids[2])).await;
        assert_eq!(body["data"]["employmentToken"]["accessToken"], Value::Null);
        assert_eq!(body["data"]["employmentToken"]["employment"]["validationStatus"], "rejected");
        let again = browser.post(&action, &[("csrf_token", &csrf), ("action", "accept"), ("password", "whatever123"), ("password_confirmation", "whatever123")]).await;
        assert_eq!(again.status, StatusCode::CONFLICT);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM users").await, 2);

        // Unknown links; another vendor's employment is not readable.
        assert_eq!(Browser::new().get(&app.url("/sync_employee?token=rl_sync_unknown")).await.status, StatusCode::NOT_FOUND);
        assert_eq!(Browser::new().get(&app.url("/sync_employee")).await.status, StatusCode::BAD_REQUEST);
        assert_eq!(Browser::new().get(&app.url("/sync_employee?token=a&token=b")).await.status, StatusCode::BAD_REQUEST);
        let fleet = vendor(app, "Fleet").await;
        assert_eq!(protected(app, &fleet, TOKEN, json!({ "c": fleet.0, "e": ids[0] })).await["data"]["employmentToken"], Value::Null);
    }

    async fn the_sandbox_outbox_hides_the_employees_links_from_their_admin(app) {
        let payroll = vendor(app, "Payroll Plus").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let employees = json!([
            { "email": "boss@example.com", "firstName": "Bea", "lastName": "Boss", "hasAdminRights": true },
            { "email": "emp@example.com", "firstName": "Emil", "lastName": "Emp" },
        ]);
        let body = protected(app, &payroll, SYNC, json!({ "c": company, "e": employees })).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        // The admin-to-be accepts and sets a password through their own link.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&mailed_link(app, "boss@example.com").await)).await;
        let form = [("csrf_token", forms::field(&page.body, "csrf_token")), ("action", "accept".into()), ("password", "the boss secret".into()), ("password_confirmation", "the boss secret".into())];
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let done = browser.post(&forms::action(&app.url(""), &page.body), &form).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        let (_, login) = app.graphql("mutation { auth { login(email: \"boss@example.com\", password: \"the boss secret\") { accessToken } } }", json!({}), None).await;
        let boss = login["data"]["auth"]["login"]["accessToken"].as_str().unwrap_or_else(|| panic!("{login}")).to_string();

        // The admin reads the company's mail: the employee's link is masked, their own is not.
        let employee_link = mailed_link(app, "emp@example.com").await;
        let employee_token = employee_link.split("token=").nth(1).unwrap().to_string();
        let response = app.client.get(app.url("/sandbox/outbox")).bearer_auth(&boss).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mails: Vec<Value> = response.json().await.unwrap();
        let to = |address: &str| mails.iter().find(|m| m["to"].as_str().unwrap().eq_ignore_ascii_case(address)).unwrap_or_else(|| panic!("{mails:?}"))["body"].as_str().unwrap().to_string();
        let employee_mail = to("emp@example.com");
        assert!(!employee_mail.contains(&employee_token), "{employee_mail}");
        assert!(employee_mail.contains("/sync_employee?token=rl_sync_[hidden: only the recipient sees this token]"), "{employee_mail}");
        let own_link = mailed_link(app, "boss@example.com").await;
        assert!(to("boss@example.com").contains(&own_link), "the recipient sees their own link");

        // The link still works for the employee, who gets it from their own mail.
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&employee_link)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let form = [("csrf_token", forms::field(&page.body, "csrf_token")), ("action", "accept".into()), ("password", "the emp secret".into()), ("password_confirmation", "the emp secret".into())];
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let done = browser.post(&forms::action(&app.url(""), &page.body), &form).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
        assert!(done.body.contains("Request accepted"));
    }

    async fn expired_links_get_a_page_and_a_new_sync_mails_a_new_one(app) {
        let payroll = vendor(app, "Payroll").await;
        let company = register(app, &payroll, "123456789", None).await["data"]["company"]["softwareRegistration"]["id"].as_i64().unwrap();
        let employee = json!({ "c": company, "e": [{ "email": "late@example.com", "firstName": "L", "lastName": "Ate" }] });
        protected(app, &payroll, SYNC, employee.clone()).await;
        let first = mailed_link(app, "late@example.com").await;
        // Syncing again within 7 days mails nothing new.
        protected(app, &payroll, SYNC, employee.clone()).await;
        assert_eq!(outbox(app, "late@example.com").await.len(), 1);
        sqlx::query("UPDATE client_employments SET invitation_expires_at = $1").bind(chrono::Utc::now().timestamp() - 1).execute(&app.server.db.pool).await.unwrap();
        let mut browser = Browser::new();
        let page = browser.get(&app.url(&first)).await;
        assert_eq!(page.status, StatusCode::GONE);
        assert!(page.body.contains("Ask Payroll to send you a new one"));
        protected(app, &payroll, SYNC, employee).await;
        assert_eq!(outbox(app, "late@example.com").await.len(), 2);
        let second = mailed_link(app, "late@example.com").await;
        assert_ne!(first, second);
        assert_eq!(browser.get(&app.url(&first)).await.status, StatusCode::NOT_FOUND);
        assert_eq!(browser.get(&app.url(&second)).await.status, StatusCode::OK);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 1);
    }
}
