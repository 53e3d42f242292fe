//! Companies and read permissions over the real HTTP API, on both databases: sign-up of a
//! company (a SIREN once), who reads a company and its people, and a cross-company (BOLA) sweep.

use cynic::http::ReqwestExt;
use cynic::{MutationBuilder, QueryBuilder};
use roadlog_client::schema;
use serde_json::{Value, json};

use crate::support::app::new_siren;
use crate::support::employments::{CANCEL, EmploymentFields, REJECT, ROLE, TERMINATE, VALIDATE, today};
use crate::support::{TestApp, codes};

/// `signUp.company` with `$n` its name and `$s` its SIREN.
const SIGN_UP_SIREN: &str =
    "mutation($n: String!, $s: String!) { signUp { company(usualName: $n, siren: $s) { company { id siren } } } }";

/// Asserts that `body` is the refusal of a SIREN signed up already.
fn assert_siren_taken(body: &Value) {
    assert_eq!(codes(body), ["INVALID_INPUTS"], "{body}");
    assert_eq!(body["errors"][0]["message"], "SIREN already registered", "{body}");
    assert_eq!(
        body["errors"][0]["extensions"]["reason"], "SIREN_ALREADY_SIGNED_UP",
        "{body}"
    );
    assert_eq!(body["data"]["signUp"]["company"], Value::Null, "{body}");
}

#[derive(cynic::QueryVariables, Debug)]
struct CompanyVariables {
    usual_name: String,
    siren: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutations", variables = "CompanyVariables")]
struct SignUpCompany {
    sign_up: Option<SignUpNamespace>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "SignUp", variables = "CompanyVariables")]
struct SignUpNamespace {
    #[arguments(usualName: $usual_name, siren: $siren)]
    company: Option<CompanySignUpOutput>,
}

#[derive(cynic::QueryFragment, Debug)]
struct CompanySignUpOutput {
    company: Option<CompanyFields>,
    employment: Option<EmploymentFields>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Company")]
struct CompanyFields {
    id: i32,
    name: Option<String>,
    siren: Option<String>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Queries")]
struct MyEmployments {
    me: Option<MeEmployments>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "User")]
struct MeEmployments {
    current_employments: Option<Vec<Option<EmploymentFields>>>,
    admined_companies: Option<Vec<Option<CompanyFields>>>,
}

on_both_backends! {
    async fn the_legal_name_is_stored_given_at_sign_up_and_edited_by_an_admin(app) {
        let admin = app.new_user("legal@example.com").await;
        const SIGN_UP: &str = "mutation($n: String, $s: String!) { signUp { company(usualName: \"Martin\", siren: $s, legalName: $n) { company { id name legalName } } } }";
        const READ: &str = "query($c: Int!) { company(id: $c) { legalName } }";
        const EDIT: &str = "mutation($c: Int!, $n: String) { updateCompanyDetails(companyId: $c, newLegalName: $n) { legalName } }";
        let (_, body) = app.graphql(SIGN_UP, json!({ "n": "  Transports Martin SAS ", "s": new_siren() }), Some(&admin.token)).await;
        let company = &body["data"]["signUp"]["company"]["company"];
        assert_eq!(company["legalName"], "Transports Martin SAS", "{body}");
        let company_id = company["id"].as_i64().unwrap();
        // Not given (or blank): null, not a made-up value.
        let (_, body) = app.graphql(SIGN_UP, json!({ "n": " ", "s": new_siren() }), Some(&admin.token)).await;
        assert_eq!(body["data"]["signUp"]["company"]["company"]["legalName"], Value::Null, "{body}");

        let (_, body) = app.graphql(EDIT, json!({ "c": company_id, "n": "Martin Logistique SARL" }), Some(&admin.token)).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["legalName"], "Martin Logistique SARL", "{body}");
        // Omitted: unchanged. Too long: refused, and nothing changes.
        let (_, body) = app.graphql(EDIT, json!({ "c": company_id }), Some(&admin.token)).await;
        assert_eq!(body["data"]["updateCompanyDetails"]["legalName"], "Martin Logistique SARL", "{body}");
        let (_, body) = app.graphql(EDIT, json!({ "c": company_id, "n": "L".repeat(256) }), Some(&admin.token)).await;
        assert_eq!(body["errors"][0]["extensions"]["code"], "INVALID_INPUTS", "{body}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "newLegalName", "{body}");
        let (_, body) = app.graphql(READ, json!({ "c": company_id }), Some(&admin.token)).await;
        assert_eq!(body["data"]["company"]["legalName"], "Martin Logistique SARL", "{body}");
        let stored: (Option<String>,) = sqlx::query_as("SELECT legal_name FROM companies WHERE id = $1")
            .bind(company_id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored.0.as_deref(), Some("Martin Logistique SARL"));

        // A worker of the company does not change it.
        let worker = app.new_user("legal-worker@example.com").await;
        app.hire(&admin, company_id, &worker).await;
        let (_, body) = app.graphql(EDIT, json!({ "c": company_id, "n": "Hijacked" }), Some(&worker.token)).await;
        assert_eq!(body["errors"][0]["extensions"]["code"], "AUTHORIZATION_ERROR", "{body}");
        let (_, body) = app.graphql(READ, json!({ "c": company_id }), Some(&admin.token)).await;
        assert_eq!(body["data"]["company"]["legalName"], "Martin Logistique SARL", "{body}");
    }

    async fn company_sign_up_makes_the_caller_admin(app) {
        let admin = app.new_user("boss@example.com").await;
        let endpoint = app.url("/api/graphql");
        let answer = app
            .client
            .post(&endpoint)
            .bearer_auth(&admin.token)
            .run_graphql(SignUpCompany::build(CompanyVariables { usual_name: "  Transports Martin ".into(), siren: "123 456 789".into() }))
            .await
            .unwrap();
        assert!(answer.errors.is_none(), "{:?}", answer.errors);
        let output = answer.data.unwrap().sign_up.unwrap().company.unwrap();
        let company = output.company.unwrap();
        assert_eq!(company.name.as_deref(), Some("Transports Martin"));
        assert_eq!(company.siren.as_deref(), Some("123456789"));
        let employment = output.employment.unwrap();
        assert_eq!(employment.company_id, company.id);
        assert_eq!(employment.user_id, Some(admin.id as i32));
        assert_eq!(employment.has_admin_rights, Some(true));
        assert_eq!(employment.validation_status.as_deref(), Some("approved"));
        assert_eq!(employment.status.as_deref(), Some("ACTIVE"));
        assert_eq!(employment.is_primary, Some(true));
        assert_eq!(employment.is_acknowledged, Some(true));
        assert_eq!(employment.start_date, today());
        assert_eq!(employment.end_date, None);

        let mine = app.client.post(&endpoint).bearer_auth(&admin.token).run_graphql(MyEmployments::build(())).await.unwrap();
        let me = mine.data.unwrap().me.unwrap();
        assert_eq!(me.admined_companies.unwrap().into_iter().flatten().map(|c| c.id).collect::<Vec<_>>(), [company.id]);
        assert_eq!(me.current_employments.unwrap().len(), 1);

        // A second company: the admin's employment there is secondary (the first is primary).
        let second = app.new_company(&admin, "Second").await;
        let body = app.as_user(&admin, "{ me { employments { companyId isPrimary } } }", json!({})).await;
        let list = body["data"]["me"]["employments"].as_array().unwrap().clone();
        assert!(list.contains(&json!({ "companyId": second, "isPrimary": false })), "{list:?}");
    }

    async fn a_siren_is_signed_up_once(app) {
        let admin = app.new_user("once@example.com").await;
        let other = app.new_user("twice@example.com").await;
        let siren = new_siren();
        let body = app.as_user(&admin, SIGN_UP_SIREN, json!({ "n": "Martin", "s": siren })).await;
        assert_eq!(body["data"]["signUp"]["company"]["company"]["siren"], siren.as_str(), "{body}");
        // Again, by its admin or anyone else, spaced or not: refused, and nothing is created.
        let spaced = format!("{} {} {}", &siren[..3], &siren[3..6], &siren[6..]);
        for (user, given) in [(&admin, siren.as_str()), (&other, spaced.as_str())] {
            assert_siren_taken(&app.as_user(user, SIGN_UP_SIREN, json!({ "n": "Martin bis", "s": given })).await);
        }
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 1);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 1);
    }

    async fn a_siren_signed_up_by_establishments_is_not_signed_up_whole(app) {
        let admin = app.new_user("establishments@example.com").await;
        let siren = new_siren();
        let establishments = json!([{ "siret": format!("{siren}00012"), "usualName": "Martin Nord" }]);
        let body = app.as_user(&admin, "mutation($s: String!, $c: [CompanySiret]!) { signUp { companies(siren: $s, companies: $c) { company { id } } } }", json!({ "s": siren, "c": establishments })).await;
        assert_eq!(body["errors"], Value::Null, "{body}");
        assert_siren_taken(&app.as_user(&admin, SIGN_UP_SIREN, json!({ "n": "Martin", "s": siren })).await);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 1);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 1);
    }

    async fn two_sign_ups_of_one_siren_at_once_make_one_company(app) {
        let first = app.new_user("first@example.com").await;
        let second = app.new_user("second@example.com").await;
        let siren = new_siren();
        let (a, b) = tokio::join!(
            app.as_user(&first, SIGN_UP_SIREN, json!({ "n": "First", "s": siren })),
            app.as_user(&second, SIGN_UP_SIREN, json!({ "n": "Second", "s": siren })),
        );
        let (created, refused) = if a["errors"].is_null() { (&a, &b) } else { (&b, &a) };
        assert!(created["data"]["signUp"]["company"]["company"]["id"].is_i64(), "{a}\n{b}");
        assert_siren_taken(refused);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM companies").await, 1);
        assert_eq!(app.scalar("SELECT COUNT(*) FROM employments").await, 1);
    }

    async fn siren_must_be_nine_digits(app) {
        let admin = app.new_user("siren@example.com").await;
        for (siren, message) in [("12345", "SIREN must be exactly 9 characters (received: 5)"), ("12345678A", "SIREN must contain only digits")] {
            let body = app
                .as_user(&admin, "mutation($s: String!) { signUp { company(usualName: \"X\", siren: $s) { company { id } } } }", json!({ "s": siren }))
                .await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"]);
            assert_eq!(body["errors"][0]["message"], message);
            assert_eq!(body["data"]["signUp"]["company"], Value::Null);
        }
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM companies").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 0);
    }

    async fn company_reads_follow_the_reference_permissions(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let stranger = app.new_user("stranger@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        // A pending invitation is enough to read the company.
        app.employ(&admin, company, worker.id, "").await;
        let query = "query($c: Int!) { company(id: $c) { id name settings { allowTeamMode requireExpenditures } currentUsers { id } employments { id } } }";
        let body = app.as_user(&worker, query, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["id"], company);
        assert_eq!(body["data"]["company"]["name"], "Acme");
        assert_eq!(body["data"]["company"]["settings"], json!({ "allowTeamMode": true, "requireExpenditures": true }));
        assert_eq!(body["data"]["company"]["currentUsers"], json!([{ "id": admin.id }]));
        // Admin-only field: null with the error at its path, the rest of the query answered.
        assert_eq!(body["data"]["company"]["employments"], Value::Null);
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(body["errors"][0]["path"], json!(["company", "employments"]));
        assert_eq!(body["errors"][0]["message"], "Forbidden access to field 'employments' of company object. Actor must be company admin.");

        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["employments"].as_array().unwrap().len(), 2);
        assert!(body["errors"].is_null());

        for id in [company, 987_654] {
            let body = app.as_user(&stranger, query, json!({ "c": id })).await;
            assert_eq!(body["data"], json!({ "company": null }));
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        }
        // A user whose employment is still pending is not readable by the company (privacy
        // before consent), unlike in the reference.
        let body = app.as_user(&admin, "query($u: Int!) { user(id: $u) { id currentEmployments { id } } }", json!({ "u": worker.id })).await;
        assert_eq!(body["data"]["user"], Value::Null);
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
    }

    async fn cross_company_ids_are_refused_everywhere(app) {
        let admin_a = app.new_user("a@example.com").await;
        let admin_b = app.new_user("b@example.com").await;
        let worker_b = app.new_user("wb@example.com").await;
        let pending_b = app.new_user("pb@example.com").await;
        let a = app.new_company(&admin_a, "A").await;
        let b = app.new_company(&admin_b, "B").await;
        let hired = app.hire(&admin_b, b, &worker_b).await;
        let body = app.employ(&admin_b, b, pending_b.id, "").await;
        let pending = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let before = snapshot(app).await;

        let sweep: Vec<(&str, Value)> = vec![
            ("query($c: Int!) { company(id: $c) { id name } }", json!({ "c": b })),
            ("query($u: Int!) { user(id: $u) { id email } }", json!({ "u": worker_b.id })),
            ("mutation($c: Int!, $u: Int!) { employments { createEmployment(companyId: $c, userId: $u) { id } } }", json!({ "c": b, "u": admin_a.id })),
            ("mutation($c: Int!) { employments { batchCreateWorkerEmployments(companyId: $c, mails: [\"x@example.com\"]) { id } } }", json!({ "c": b })),
            (VALIDATE, json!({ "e": pending })),
            (REJECT, json!({ "e": pending })),
            (CANCEL, json!({ "e": pending })),
            (TERMINATE, json!({ "e": hired })),
            (ROLE, json!({ "e": hired, "a": true })),
        ];
        for (query, variables) in sweep {
            let body = app.as_user(&admin_a, query, variables).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{query}: {body}");
            let data = body["data"].to_string();
            for secret in ["wb@example.com", "pb@example.com", "\"B\""] {
                assert!(!data.contains(secret), "{query} leaked {secret}: {body}");
            }
        }
        assert_eq!(snapshot(app).await, before, "nothing changed");
        let _ = a;
    }
}

/// Everything the sweep could change.
async fn snapshot(app: &TestApp) -> Vec<(i64, Option<i64>, String, Option<String>, i64, Option<i64>)> {
    sqlx::query_as(
        "SELECT id, user_id, validation_status, end_date, has_admin_rights, dismissed_at FROM employments ORDER BY id",
    )
    .fetch_all(&app.server.db.pool)
    .await
    .unwrap()
}

on_both_backends! {
    async fn a_company_sees_only_what_it_typed_until_the_user_accepts(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Curious").await;
        let target = app.new_user("private.person@example.com").await;
        sqlx::query("UPDATE users SET first_name = 'Secret', last_name = 'Name' WHERE id = $1")
            .bind(target.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        // Attached by id, and by the e-mail of an existing account (written differently).
        app.employ(&admin, company, target.id, "").await;
        let query = "query($c: Int!) { company(id: $c) { users { id email firstName } employments { userId email validationStatus user { id email firstName lastName } } } }";
        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        let employments = body["data"]["company"]["employments"].as_array().unwrap().clone();
        let pending: Vec<&Value> = employments.iter().filter(|e| e["validationStatus"] == "pending").collect();
        assert_eq!(pending.len(), 1, "{body}");
        assert_eq!(pending[0]["userId"], target.id, "the id the company typed");
        assert_eq!(pending[0]["email"], Value::Null, "not the account's e-mail: {body}");
        assert_eq!(pending[0]["user"], Value::Null, "not the account: {body}");
        let users = body["data"]["company"]["users"].as_array().unwrap();
        assert!(users.iter().all(|u| u["id"] != target.id), "not among the users: {body}");
        let text = body.to_string();
        assert!(!text.contains("private.person@example.com") && !text.contains("Secret"), "{text}");
        let body = app.as_user(&admin, "query($u: Int!) { user(id: $u) { email firstName } }", json!({ "u": target.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");

        // Once the user accepts, the company sees the account.
        let id = pending[0]["userId"].as_i64().unwrap();
        assert_eq!(id, target.id);
        let employment = employments.iter().find(|e| e["validationStatus"] == "pending").unwrap();
        let employment_id: i64 = sqlx::query_as::<_, (i64,)>("SELECT id FROM employments WHERE user_id = $1")
            .bind(target.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap()
            .0;
        assert_eq!(employment["userId"], target.id);
        let accepted = app.as_user(&target, "mutation($e: Int!) { employments { validateEmployment(employmentId: $e) { id } } }", json!({ "e": employment_id })).await;
        assert!(accepted["errors"].is_null(), "{accepted}");
        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        let text = body.to_string();
        assert!(text.contains("private.person@example.com") && text.contains("Secret"), "{text}");
    }
}
