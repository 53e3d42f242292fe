//! The account and invitation pages over HTTP, without a browser (cookies kept by hand), on both
//! databases: the invitation page and each of its dead ends (expired, used, declined, cancelled,
//! unknown, forged form), sign-up with its confirmation link and the way back to an
//! authorization request, the password reset (identical answers for unknown addresses, single
//! use, one hour, sessions revoked, OAuth grants kept), the refusal of unconfirmed accounts in
//! production, and the French pages and e-mails. The same journeys in Chromium are in
//! `account_browser`.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::app::new_siren;
use crate::support::employments::{CANCEL, outbox};
use crate::support::forms::{Browser, Page, action, field};
use crate::support::{Backend, TestApp, TestUser, codes};

const PASSWORD: &str = "long enough secret";

/// The first link of the latest e-mail to `to` whose URL contains `path`, read from the outbox
/// table (in production too, where the sandbox's outbox route is closed).
pub async fn mail_link(app: &TestApp, to: &str, path: &str) -> String {
    let mails = roadlog::mail::outbox::latest(&app.server.db, Some(to), 1)
        .await
        .unwrap();
    let body = &mails.first().unwrap_or_else(|| panic!("no mail to {to}")).body;
    body.split_whitespace()
        .find(|word| word.starts_with("http") && word.contains(path))
        .unwrap_or_else(|| panic!("no {path} link in {body}"))
        .to_string()
}

/// Invites `mail` into the company; answers the invitation's page link.
pub async fn invite(app: &TestApp, admin: &TestUser, company: i64, mail: &str, admin_rights: bool) -> String {
    let body = app
        .as_user(
            admin,
            "mutation($c: Int!, $m: Email!, $a: Boolean) { employments { createEmployment(companyId: $c, mail: $m, hasAdminRights: $a) { id } } }",
            json!({ "c": company, "m": mail, "a": admin_rights }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
    let link = mail_link(app, mail, "/invitations/accept?token=").await;
    assert!(
        link.starts_with(&app.url("/invitations/accept?token=rl_inv_")),
        "{link}"
    );
    link
}

async fn one(app: &TestApp, sql: &'static str, bind: &str) -> Option<String> {
    let row: Option<(Option<String>,)> = sqlx::query_as(sql)
        .bind(bind)
        .fetch_optional(&app.server.db.pool)
        .await
        .unwrap();
    row.and_then(|(v,)| v)
}

async fn count(app: &TestApp, sql: &'static str, id: i64) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(id)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    n
}

/// Posts the page's own form with its CSRF token and `fields`.
async fn submit(browser: &mut Browser, app: &TestApp, page: &Page, fields: &[(&str, &str)]) -> Page {
    let csrf = field(&page.body, "csrf_token");
    let mut form = vec![("csrf_token", csrf.as_str())];
    form.extend_from_slice(fields);
    browser.post(&action(&app.server.url(), &page.body), &form).await
}

fn assert_page(page: &Page, status: u16, text: &str) {
    assert_eq!(page.status.as_u16(), status, "{}", page.body);
    assert!(page.body.contains(text), "{text:?} not in {}", page.body);
    let headers = &page.headers;
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
}

on_both_backends! {
    async fn invitation_page_accepts_once(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Transports <Martin>").await;
        let link = invite(app, &admin, company, "driver@example.com", false).await;
        // The account is created after the invitation (an existing account gets no token).
        let driver = app.new_user("driver@example.com").await;

        let mut browser = Browser::new();
        let page = browser.get(&link).await;
        assert_page(&page, 200, "Transports &#60;Martin&#62; invites you to Roadlog");
        assert!(page.body.contains("Role: worker") && page.body.contains("driver@example.com"), "{}", page.body);
        assert!(page.body.contains("href=\"/account/signup?next=%2Finvitations%2Faccept%3Ftoken%3Drl_inv_"));

        // A wrong password: the page again, with the error, nothing changed.
        let wrong = submit(&mut browser, app, &page, &[("action", "login"), ("email", "driver@example.com"), ("password", "not the one")]).await;
        assert_page(&wrong, 401, "Wrong e-mail or password.");
        // A forged form (no matching CSRF token): 403, nothing changed.
        let forged = browser.post(&link, &[("csrf_token", "x".repeat(43).as_str()), ("action", "accept")]).await;
        assert_page(&forged, 403, "This form has expired");

        let logged = submit(&mut browser, app, &page, &[("action", "login"), ("email", "driver@example.com"), ("password", PASSWORD)]).await;
        assert_page(&logged, 200, "Logged in as Jeanne Martin.");
        assert!(logged.body.contains("value=\"accept\"") && logged.body.contains("value=\"decline\""));
        let accepted = submit(&mut browser, app, &logged, &[("action", "accept")]).await;
        assert_page(&accepted, 200, "You now work for Transports &#60;Martin&#62; on Roadlog.");
        let (user_id, status): (Option<i64>, String) =
            sqlx::query_as("SELECT user_id, validation_status FROM employments WHERE email = 'driver@example.com'")
                .fetch_one(&app.server.db.pool)
                .await
                .unwrap();
        assert_eq!((user_id, status.as_str()), (Some(driver.id), "approved"));

        // Used: the page says so, and so does a second answer.
        assert_page(&browser.get(&link).await, 410, "This invitation has already been accepted.");
        let again = submit(&mut browser, app, &logged, &[("action", "decline")]).await;
        assert_page(&again, 410, "already been accepted");
        // The token still serves API clients until it is used: now INVALID_TOKEN there too.
        let token = link.split("token=").nth(1).unwrap();
        let body = app.as_user(&driver, "mutation($t: String!) { signUp { redeemInvite(token: $t) { id } } }", json!({ "t": token })).await;
        assert_eq!(codes(&body), ["INVALID_TOKEN"]);
    }

    async fn invitation_dead_ends(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let mut browser = Browser::new();

        // Unknown, missing, repeated.
        assert_page(&browser.get(&app.url("/invitations/accept?token=rl_inv_nothing")).await, 404, "This invitation link is not valid.");
        assert_page(&browser.get(&app.url("/invitations/accept")).await, 404, "This invitation link is not valid.");
        assert_page(&browser.get(&app.url("/invitations/accept?token=a&token=b")).await, 400, "This request is not valid.");

        // Expired.
        let link = invite(app, &admin, company, "late@example.com", true).await;
        assert!(browser.get(&link).await.body.contains("Role: administrator"));
        sqlx::query("UPDATE employments SET invite_expires_at = 1 WHERE email = 'late@example.com'")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        assert_page(&browser.get(&link).await, 410, "This invitation has expired");

        // Cancelled by the company.
        let link = invite(app, &admin, company, "gone@example.com", false).await;
        let id = one(app, "SELECT CAST(id AS TEXT) FROM employments WHERE email = $1", "gone@example.com").await.unwrap();
        let body = app.as_user(&admin, CANCEL, json!({ "e": id.parse::<i64>().unwrap() })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_page(&browser.get(&link).await, 410, "The company has cancelled this invitation.");

        // Declined by the invited person: the employment is refused, the token is spent.
        let link = invite(app, &admin, company, "no@example.com", false).await;
        let person = app.new_user("no@example.com").await;
        let page = browser.get(&link).await;
        let logged = submit(&mut browser, app, &page, &[("action", "login"), ("email", "no@example.com"), ("password", PASSWORD)]).await;
        let declined = submit(&mut browser, app, &logged, &[("action", "decline")]).await;
        assert_page(&declined, 200, "You declined the invitation of Acme.");
        let (user_id, status): (Option<i64>, String) =
            sqlx::query_as("SELECT user_id, validation_status FROM employments WHERE email = 'no@example.com'")
                .fetch_one(&app.server.db.pool)
                .await
                .unwrap();
        assert_eq!((user_id, status.as_str()), (Some(person.id), "rejected"));
        assert_page(&browser.get(&link).await, 410, "This invitation has been declined.");
        // A method the page does not have.
        let response = app.client.put(&link).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()["allow"], "GET, POST");
    }

    async fn sign_up_confirms_and_goes_back(app) {
        let mut browser = Browser::new();
        let next = "/oauth/authorize?client_id=abc&response_type=code&state=s";
        let encoded: String = url::form_urlencoded::byte_serialize(next.as_bytes()).collect();
        let page = browser.get(&app.url(&format!("/account/signup?next={encoded}"))).await;
        assert_page(&page, 200, "Create your Roadlog account");
        assert!(page.body.contains(&format!("href=\"{}\"", next.replace('&', "&#38;"))), "back to the request: {}", page.body);

        // A forged form creates nothing.
        let forged = browser
            .post(&app.url("/account/signup"), &[("csrf_token", "forged"), ("email", "new@example.com"), ("first_name", "N"), ("last_name", "D"), ("password", PASSWORD)])
            .await;
        assert_page(&forged, 403, "This form has expired");
        assert_eq!(one(app, "SELECT email FROM users WHERE email = $1", "new@example.com").await, None);

        let short = submit(&mut browser, app, &page, &[("email", "new@example.com"), ("first_name", "Nina"), ("last_name", "Dupont"), ("password", "short")]).await;
        assert_page(&short, 422, "between 8 and 1024 characters");
        assert!(short.body.contains("value=\"Nina\""), "typed fields are kept");

        let created = submit(&mut browser, app, &page, &[("email", " New@Example.com "), ("first_name", "Nina"), ("last_name", "Dupont"), ("password", PASSWORD)]).await;
        assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
        assert_eq!(created.location.as_deref(), Some(next), "back to the authorization request");
        assert!(browser.cookies.contains_key("rl_session"), "logged in");
        let user_id: i64 = one(app, "SELECT CAST(id AS TEXT) FROM users WHERE email = $1", "new@example.com").await.unwrap().parse().unwrap();
        let confirmed = "SELECT CAST(email_confirmed_at AS TEXT) FROM users WHERE email = $1";
        assert_eq!(one(app, confirmed, "new@example.com").await, None, "not confirmed yet");

        // The same address again: said so, no second account.
        let page = browser.get(&app.url("/account/signup")).await;
        let twice = submit(&mut browser, app, &page, &[("email", "new@example.com"), ("first_name", "N"), ("last_name", "D"), ("password", PASSWORD)]).await;
        assert_page(&twice, 422, "An account already exists with this e-mail address.");
        // A `next` to another site is ignored: the inbox page instead of a redirect.
        let page = browser.get(&app.url("/account/signup?next=https%3A%2F%2Fevil.example%2F")).await;
        assert!(!page.body.contains("evil.example"), "{}", page.body);
        let other = submit(&mut browser, app, &page, &[("email", "other@example.com"), ("first_name", "O"), ("last_name", "T"), ("password", PASSWORD)]).await;
        assert_page(&other, 200, "We sent a link to other@example.com");

        // The confirmation link: once confirms, twice still says confirmed.
        let link = mail_link(app, "new@example.com", "/account/confirm?token=").await;
        assert_page(&browser.get(&link).await, 200, "Your address is confirmed");
        assert!(one(app, confirmed, "new@example.com").await.is_some());
        assert_page(&browser.get(&link).await, 200, "Your address is confirmed");
        assert_page(&browser.get(&app.url("/account/confirm?token=rl_ce_nothing")).await, 404, "This link is not valid.");
        let expired = mail_link(app, "other@example.com", "/account/confirm?token=").await;
        sqlx::query("UPDATE account_tokens SET expires_at = 1 WHERE purpose = 'confirm_email' AND used_at IS NULL")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let page = browser.get(&expired).await;
        assert_page(&page, 410, "This confirmation link has expired");
        assert_eq!(one(app, confirmed, "other@example.com").await, None);
        // A new link, to the account's own address, from the expired one.
        let resent = submit(&mut browser, app, &page, &[]).await;
        assert_page(&resent, 200, "We sent a new confirmation link");
        let fresh = mail_link(app, "other@example.com", "/account/confirm?token=").await;
        assert_ne!(fresh, expired);
        assert_page(&browser.get(&fresh).await, 200, "Your address is confirmed");
        assert!(one(app, confirmed, "other@example.com").await.is_some());
        // Once confirmed, the old link asks for nothing more.
        let page = browser.get(&expired).await;
        assert_page(&submit(&mut browser, app, &page, &[]).await, 200, "Your address is confirmed");
        // Only the hash is stored.
        let token = link.split("token=").nth(1).unwrap();
        assert!(one(app, "SELECT token_hash FROM account_tokens WHERE token_hash = $1", token).await.is_none());
        assert_eq!(count(app, "SELECT COUNT(*) FROM account_tokens WHERE user_id = $1", user_id).await, 1);
        let response = app.client.delete(&link).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()["allow"], "GET, POST");
        // Posted without the form's token: refused, nothing sent.
        let before = outbox(app, "new@example.com").await.len();
        let forged = browser.post(&link, &[("csrf_token", "forged")]).await;
        assert_page(&forged, 403, "This form has expired");
        assert_eq!(outbox(app, "new@example.com").await.len(), before);
    }

    async fn password_reset_revokes_sessions_and_keeps_grants(app) {
        let user = app.new_user("owner@example.com").await;
        let (_, refresh) = {
            let (_, body) = app
                .graphql("mutation { auth { login(email: \"owner@example.com\", password: \"long enough secret\") { accessToken refreshToken } } }", json!({}), None)
                .await;
            let tokens = &body["data"]["auth"]["login"];
            (tokens["accessToken"].as_str().unwrap().to_string(), tokens["refreshToken"].as_str().unwrap().to_string())
        };
        let db = &app.server.db;
        let client = roadlog::oauth::clients::create(db, roadlog::config::Environment::Sandbox, "Fleet Manager", &["https://fleet.example/cb".to_string()])
            .await
            .unwrap();
        let client_id: i64 = client.client_id.parse().unwrap();
        let granted = roadlog::domain::auth::oauth_tokens::issue(db, client_id, user.id, None).await.unwrap();
        roadlog::domain::users::browser_sessions::open(db, user.id, 3600).await.unwrap();

        // Known and unknown addresses: the same page, mail only to the account.
        let mut browser = Browser::new();
        let page = browser.get(&app.url("/account/password/reset")).await;
        assert_page(&page, 200, "Reset your password");
        let known = submit(&mut browser, app, &page, &[("email", "Owner@Example.com")]).await;
        let unknown = submit(&mut browser, app, &page, &[("email", "nobody@example.com")]).await;
        assert_page(&known, 200, "If an account exists for owner@example.com");
        assert_eq!(known.status, unknown.status);
        assert_eq!(known.body.replace("owner@example.com", "X"), unknown.body.replace("nobody@example.com", "X"));
        assert_eq!(outbox(app, "nobody@example.com").await.len(), 0);
        assert_eq!(count(app, "SELECT COUNT(*) FROM account_tokens WHERE purpose = 'reset_password' AND user_id <> $1", user.id).await, 0);
        let link = mail_link(app, "owner@example.com", "/account/password/new?token=").await;
        let mail = &outbox(app, "owner@example.com").await[0];
        assert_eq!(mail["subject"], "Reset your Roadlog password");

        // A forged form changes nothing.
        let form = browser.get(&link).await;
        assert_page(&form, 200, "Choose a new password");
        let forged = browser.post(&link, &[("csrf_token", "forged"), ("password", "a new passphrase"), ("password_again", "a new passphrase")]).await;
        assert_page(&forged, 403, "This form has expired");
        let differ = submit(&mut browser, app, &form, &[("password", "a new passphrase"), ("password_again", "another one!")]).await;
        assert_page(&differ, 422, "The two passwords are different.");
        let done = submit(&mut browser, app, &form, &[("password", "a new passphrase"), ("password_again", "a new passphrase")]).await;
        assert_page(&done, 200, "Your password is changed");
        assert!(done.body.contains("<li>Fleet Manager</li>"), "the grants are listed: {}", done.body);

        // Every login session revoked, browser sessions gone; the OAuth grant works still.
        assert_eq!(count(app, "SELECT COUNT(*) FROM sessions WHERE user_id = $1 AND revoked_at IS NULL", user.id).await, 0);
        assert!(count(app, "SELECT COUNT(*) FROM sessions WHERE user_id = $1", user.id).await >= 2);
        assert_eq!(count(app, "SELECT COUNT(*) FROM browser_sessions WHERE user_id = $1", user.id).await, 0);
        let (_, body) = app.graphql("{ me { id } }", json!({}), Some(&user.token)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
        let (_, body) = app.graphql("mutation { auth { refresh { accessToken } } }", json!({}), Some(&refresh)).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"]);
        let (_, body) = app.graphql("{ me { id } }", json!({}), Some(&granted)).await;
        assert_eq!(body["data"]["me"]["id"], user.id, "{body}");
        let login = "mutation($p: String!) { auth { login(email: \"owner@example.com\", password: $p) { accessToken } } }";
        let (_, body) = app.graphql(login, json!({ "p": PASSWORD }), None).await;
        assert!(!codes(&body).is_empty(), "the old password no longer works");
        let (_, body) = app.graphql(login, json!({ "p": "a new passphrase" }), None).await;
        assert!(body["data"]["auth"]["login"]["accessToken"].is_string(), "{body}");

        // Single use; then expired and unknown links.
        assert_page(&browser.get(&link).await, 410, "This link has already been used.");
        // A valid token of this browser (from another of its pages): the link alone refuses.
        let csrf = field(&browser.get(&app.url("/account/password/reset")).await.body, "csrf_token");
        let again = browser.post(&link, &[("csrf_token", csrf.as_str()), ("password", "third passphrase"), ("password_again", "third passphrase")]).await;
        assert_page(&again, 410, "already been used");
        let page = browser.get(&app.url("/account/password/reset")).await;
        submit(&mut browser, app, &page, &[("email", "owner@example.com")]).await;
        let late = mail_link(app, "owner@example.com", "/account/password/new?token=").await;
        assert_ne!(late, link);
        sqlx::query("UPDATE account_tokens SET expires_at = created_at + 3600 - 7200 WHERE used_at IS NULL")
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        assert_page(&browser.get(&late).await, 410, "This link has expired.");
        assert_page(&browser.get(&app.url("/account/password/new?token=rl_pw_nothing")).await, 404, "This link is not valid.");
    }

    async fn reset_requests_are_limited(app) {
        let mut browser = Browser::new();
        let page = browser.get(&app.url("/account/password/reset")).await;
        for _ in 0..10 {
            let sent = submit(&mut browser, app, &page, &[("email", "someone@example.com")]).await;
            assert_eq!(sent.status, StatusCode::OK);
        }
        let limited = submit(&mut browser, app, &page, &[("email", "someone@example.com")]).await;
        assert_page(&limited, 429, "Too many attempts. Try again in");
    }

    async fn pages_and_mail_in_french(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Société Martin").await;
        let link = invite(app, &admin, company, "chauffeur@example.com", false).await;
        let get = |url: String| async move {
            app.client.get(url).header("accept-language", "fr-FR,fr;q=0.9,en;q=0.5").send().await.unwrap()
        };
        let response = get(link.clone()).await;
        assert_eq!(response.headers()["content-language"], "fr");
        let body = response.text().await.unwrap();
        assert!(body.contains("<html lang=\"fr\">") && body.contains("Société Martin vous invite sur Roadlog"), "{body}");
        assert!(body.contains("Rôle : salarié") && body.contains("Pas encore de compte ? Créez-en un"), "{body}");
        let body = get(app.url("/account/signup")).await.text().await.unwrap();
        assert!(body.contains("Créez votre compte Roadlog"), "{body}");
        let body = get(app.url("/invitations/accept?token=nothing")).await.text().await.unwrap();
        assert!(body.contains("Ce lien d&#39;invitation n&#39;est pas valide."), "{body}");
        // The OAuth login page too, with its links to these pages.
        let client = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Fleet", &["https://fleet.example/cb".to_string()])
            .await
            .unwrap();
        let authorize = app.url(&format!("/oauth/authorize?client_id={}&response_type=code&state=s", client.client_id));
        let body = get(authorize.clone()).await.text().await.unwrap();
        assert!(body.contains("<html lang=\"fr\">") && body.contains("Connexion à Roadlog"), "{body}");
        assert!(body.contains("Pas encore de compte ? Créez-en un") && body.contains("Mot de passe oublié ?"), "{body}");
        let body = app.client.get(&authorize).send().await.unwrap().text().await.unwrap();
        assert!(body.contains("Log in to Roadlog") && body.contains("No account yet? Create one"), "{body}");
        // English when French is refused or absent.
        let english = app.client.get(app.url("/account/signup")).header("accept-language", "fr;q=0, de").send().await.unwrap();
        assert_eq!(english.headers()["content-language"], "en");

        // The e-mails follow the language of the page that sent them.
        let mut browser = Browser::new();
        let page = browser.send(app.client.get(app.url("/account/password/reset")).header("accept-language", "fr")).await;
        let csrf = field(&page.body, "csrf_token");
        let sent = browser
            .send(app.client.post(app.url("/account/password/reset")).header("accept-language", "fr").form(&[("csrf_token", csrf.as_str()), ("email", "admin@example.com")]))
            .await;
        assert_page(&sent, 200, "Si un compte existe pour admin@example.com");
        let mail = &outbox(app, "admin@example.com").await[0];
        assert_eq!(mail["subject"], "Réinitialisez votre mot de passe Roadlog");
        assert!(mail["body"].as_str().unwrap().contains("valable une heure"));
        // So does the confirmation e-mail of the API's sign-up.
        let response = app
            .client
            .post(app.url("/api/graphql"))
            .header("accept-language", "fr")
            .json(&json!({ "query": "mutation { signUp { user(email: \"fr@example.com\", password: \"long enough secret\", firstName: \"Léa\", lastName: \"R\") { accessToken } } }" }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let mail = &outbox(app, "fr@example.com").await[0];
        assert_eq!(mail["subject"], "Confirmez votre adresse e-mail");
        assert!(mail["body"].as_str().unwrap().starts_with("Bonjour Léa,"));
    }
}

/// Production: an account cannot act on a company before its address is confirmed; the sandbox
/// lets it (both report `hasConfirmedEmail: false` until then).
async fn confirmation_rule(backend: Backend, environment: roadlog::config::Environment) {
    let app = TestApp::spawn_in(backend, environment).await;
    let (token, _) = app.sign_up("fresh@example.com", PASSWORD).await;
    let me = "{ me { hasConfirmedEmail hasActivatedEmail } }";
    let (_, body) = app.graphql(me, json!({}), Some(&token)).await;
    assert_eq!(
        body["data"]["me"],
        json!({ "hasConfirmedEmail": false, "hasActivatedEmail": false })
    );
    let company = "mutation($s: String!) { signUp { company(usualName: \"Fresh\", siren: $s) { company { id } } } }";
    let (_, body) = app.graphql(company, json!({ "s": new_siren() }), Some(&token)).await;
    if environment == roadlog::config::Environment::Production {
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(
            body["errors"][0]["message"],
            "Actor is not active. The email activation is required to perform mutations."
        );
        assert_eq!(body["errors"][0]["path"], json!(["signUp", "company"]));
        assert_eq!(body["data"]["signUp"], json!({ "company": null }));
        assert_eq!(
            count(&app, "SELECT COUNT(*) FROM companies WHERE id <> $1", 0).await,
            0,
            "nothing created"
        );
        // Logging in stays possible.
        let (_, body) = app.graphql("mutation { auth { login(email: \"fresh@example.com\", password: \"long enough secret\") { accessToken } } }", json!({}), None).await;
        assert!(body["errors"].is_null(), "{body}");
        let link = mail_link(&app, "fresh@example.com", "/account/confirm?token=").await;
        assert_eq!(app.client.get(&link).send().await.unwrap().status(), 200);
        let (_, body) = app.graphql(me, json!({}), Some(&token)).await;
        assert_eq!(
            body["data"]["me"],
            json!({ "hasConfirmedEmail": true, "hasActivatedEmail": true })
        );
    }
    let (_, body) = app.graphql(company, json!({ "s": new_siren() }), Some(&token)).await;
    assert!(body["errors"].is_null(), "{body}");
    assert!(body["data"]["signUp"]["company"]["company"]["id"].is_i64(), "{body}");
    app.cleanup().await;
}

for_both_backends! {
    async fn unconfirmed_accounts_wait_in_production(backend) {
        confirmation_rule(backend, roadlog::config::Environment::Production).await;
    }

    async fn unconfirmed_accounts_act_in_the_sandbox(backend) {
        confirmation_rule(backend, roadlog::config::Environment::Sandbox).await;
    }
}
