//! Companies, employments, invitations and read permissions over the real HTTP API, on both
//! databases: every mutation's success path, every error code, the concurrent-creation rule and
//! a cross-company (BOLA) sweep.

use cynic::http::ReqwestExt;
use cynic::{MutationBuilder, QueryBuilder};
use roadlog::sdk::schema;
use serde_json::{Value, json};

use crate::support::{Backend, TestApp, TestUser, codes};

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
#[cynic(graphql_type = "Employment")]
struct EmploymentFields {
    id: i32,
    company_id: i32,
    user_id: Option<i32>,
    has_admin_rights: Option<bool>,
    validation_status: Option<String>,
    status: Option<String>,
    is_primary: Option<bool>,
    is_acknowledged: Option<bool>,
    start_date: String,
    end_date: Option<String>,
}

#[derive(cynic::QueryVariables, Debug)]
struct CreateVariables {
    company_id: i32,
    user_id: i32,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutations", variables = "CreateVariables")]
struct CreateEmployment {
    employments: Option<CreateNamespace>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Employments", variables = "CreateVariables")]
struct CreateNamespace {
    #[arguments(companyId: $company_id, userId: $user_id)]
    create_employment: Option<EmploymentFields>,
}

#[derive(cynic::QueryVariables, Debug)]
struct EmploymentIdVariables {
    employment_id: i32,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutations", variables = "EmploymentIdVariables")]
struct ValidateEmployment {
    employments: Option<ValidateNamespace>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Employments", variables = "EmploymentIdVariables")]
struct ValidateNamespace {
    #[arguments(employmentId: $employment_id)]
    validate_employment: Option<EmploymentFields>,
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

fn today() -> String {
    chrono::Utc::now().date_naive().format("%Y-%m-%d").to_string()
}

const VALIDATE: &str = "mutation($e: Int!) { employments { validateEmployment(employmentId: $e) { id status } } }";
const REJECT: &str = "mutation($e: Int!) { employments { rejectEmployment(employmentId: $e) { id status } } }";
const CANCEL: &str = "mutation($e: Int!) { employments { cancelEmployment(employmentId: $e) { success } } }";
const TERMINATE: &str = "mutation($e: Int!, $d: Date) { employments { terminateEmployment(employmentId: $e, endDate: $d) { id endDate status } } }";
const ROLE: &str = "mutation($e: Int!, $a: Boolean!) { employments { changeEmployeeRole(employmentId: $e, hasAdminRights: $a) { id } } }";

/// The sandbox's mail to `to`, read as the operator does (`roadlog outbox list`).
async fn outbox(app: &TestApp, to: &str) -> Vec<Value> {
    let output = crate::support::process::command(
        &["outbox", "list", "--json", "--to", to],
        &[("DATABASE_URL", &app.database_url)],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

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

    async fn employment_life_cycle(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let endpoint = app.url("/api/graphql");

        let created = app
            .client
            .post(&endpoint)
            .bearer_auth(&admin.token)
            .run_graphql(CreateEmployment::build(CreateVariables { company_id: company as i32, user_id: worker.id as i32 }))
            .await
            .unwrap();
        assert!(created.errors.is_none(), "{:?}", created.errors);
        let employment = created.data.unwrap().employments.unwrap().create_employment.unwrap();
        assert_eq!(employment.validation_status.as_deref(), Some("pending"));
        assert_eq!(employment.status.as_deref(), Some("PENDING"));
        assert_eq!(employment.is_primary, Some(true));
        assert_eq!(employment.has_admin_rights, Some(false));
        let id = employment.id;
        // The worker was told by e-mail.
        assert_eq!(outbox(app, "worker@example.com").await.len(), 1);

        // Only the worker answers their employment.
        let body = app.as_user(&admin, VALIDATE, json!({ "e": id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let validated = app
            .client
            .post(&endpoint)
            .bearer_auth(&worker.token)
            .run_graphql(ValidateEmployment::build(EmploymentIdVariables { employment_id: id }))
            .await
            .unwrap();
        let employment = validated.data.unwrap().employments.unwrap().validate_employment.unwrap();
        assert_eq!(employment.status.as_deref(), Some("ACTIVE"));
        for query in [VALIDATE, REJECT] {
            let body = app.as_user(&worker, query, json!({ "e": id })).await;
            assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
            assert_eq!(body["errors"][0]["message"], "Employment is already validated");
        }

        // Co-workers now read each other.
        let body = app.as_user(&worker, "query($u: Int!) { user(id: $u) { id firstName } }", json!({ "u": admin.id })).await;
        assert_eq!(body["data"]["user"]["id"], admin.id);

        // Roles: the admin promotes the worker, but not themselves; a worker cannot.
        let body = app.as_user(&admin, ROLE, json!({ "e": id, "a": true })).await;
        assert_eq!(body["data"]["employments"]["changeEmployeeRole"]["id"], company);
        let own = app.as_user(&admin, "{ me { currentEmployments { id } } }", json!({})).await;
        let own_id = own["data"]["me"]["currentEmployments"][0]["id"].as_i64().unwrap();
        let body = app.as_user(&admin, ROLE, json!({ "e": own_id, "a": false })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "USER_SELF_CHANGE_ROLE");
        let body = app.as_user(&admin, ROLE, json!({ "e": id, "a": false })).await;
        assert!(body["errors"].is_null());
        let body = app.as_user(&worker, ROLE, json!({ "e": own_id, "a": false })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);

        // Termination: not one's own, not before the start, and it ends the employment.
        let body = app.as_user(&admin, TERMINATE, json!({ "e": own_id })).await;
        assert_eq!(body["errors"][0]["extensions"]["reason"], "USER_SELF_TERMINATE_EMPLOYMENT");
        let body = app.as_user(&admin, TERMINATE, json!({ "e": id, "d": "2000-01-01" })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        // A worker without activity for more than 90 days is inactive.
        sqlx::query("UPDATE employments SET validation_time = 1, reception_time = 1 WHERE id = $1")
            .bind(id as i64)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, "query($c: Int!) { company(id: $c) { employments { id status } } }", json!({ "c": company })).await;
        assert!(body["data"]["company"]["employments"].as_array().unwrap().contains(&json!({ "id": id, "status": "INACTIVE" })), "{body}");
        sqlx::query("UPDATE employments SET validation_time = $2 WHERE id = $1")
            .bind(id as i64)
            .bind(chrono::Utc::now().timestamp())
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, TERMINATE, json!({ "e": id })).await;
        assert_eq!(body["data"]["employments"]["terminateEmployment"]["endDate"], today());
        assert_eq!(body["data"]["employments"]["terminateEmployment"]["status"], "ACTIVE");
        sqlx::query("UPDATE employments SET start_date = '2020-01-01', end_date = '2020-12-31' WHERE id = $1")
            .bind(id as i64)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, "query($c: Int!) { company(id: $c) { employments { id status } } }", json!({ "c": company })).await;
        assert!(body["data"]["company"]["employments"].as_array().unwrap().contains(&json!({ "id": id, "status": "TERMINATED" })), "{body}");
        let body = app.as_user(&admin, TERMINATE, json!({ "e": id })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "EMPLOYMENT_ALREADY_TERMINATED");
    }

    async fn pending_employments_can_be_rejected_or_cancelled(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let body = app.employ(&admin, company, worker.id, "").await;
        let first = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&worker, REJECT, json!({ "e": first })).await;
        assert_eq!(body["data"]["employments"]["rejectEmployment"]["status"], "REJECTED");
        let body = app.as_user(&worker, VALIDATE, json!({ "e": first })).await;
        assert_eq!(body["errors"][0]["message"], "Employment is already rejected");

        // A rejected employment no longer counts: a new one may be created.
        let body = app.employ(&admin, company, worker.id, "").await;
        let second = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&worker, CANCEL, json!({ "e": second })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "only an admin cancels");
        let body = app.as_user(&admin, CANCEL, json!({ "e": second })).await;
        assert_eq!(body["data"]["employments"]["cancelEmployment"], json!({ "success": true }));
        let body = app.as_user(&admin, CANCEL, json!({ "e": second })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        let body = app.as_user(&worker, VALIDATE, json!({ "e": second })).await;
        assert_eq!(body["errors"][0]["message"], "Employment is already dismissed");

        // An accepted employment is terminated, not cancelled.
        let third = app.hire(&admin, company, &worker).await;
        let body = app.as_user(&admin, CANCEL, json!({ "e": third })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
    }

    async fn create_employment_checks_its_inputs(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let both = "mutation($c: Int!, $u: Int!) { employments { createEmployment(companyId: $c, userId: $u, mail: \"x@example.com\") { id } } }";
        let body = app.as_user(&admin, both, json!({ "c": company, "u": worker.id })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        assert_eq!(body["errors"][0]["message"], "Exactly one of userId or mail should be provided.");
        let neither = "mutation($c: Int!) { employments { createEmployment(companyId: $c) { id } } }";
        assert_eq!(codes(&app.as_user(&admin, neither, json!({ "c": company })).await), ["INVALID_INPUTS"]);
        let body = app.employ(&admin, company, worker.id, ", startDate: \"2026-05-01\", endDate: \"2026-04-01\"").await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.employ(&admin, company, 999_999_998, "").await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        // A worker is not an admin.
        app.hire(&admin, company, &worker).await;
        let other = app.new_user("other@example.com").await;
        let body = app.employ(&worker, company, other.id, "").await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM employments").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 2, "refused requests created nothing");
    }

    async fn primary_and_secondary_rules(app) {
        let admin_a = app.new_user("a@example.com").await;
        let admin_b = app.new_user("b@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let a = app.new_company(&admin_a, "A").await;
        let b = app.new_company(&admin_b, "B").await;

        // Without a primary employment, a secondary one is refused.
        let body = app.employ(&admin_b, b, worker.id, ", isPrimary: false").await;
        assert_eq!(codes(&body), ["NO_PRIMARY_EMPLOYMENT"]);
        // The first employment is primary by default.
        let body = app.employ(&admin_a, a, worker.id, ", startDate: \"2026-01-01\"").await;
        assert_eq!(body["data"]["employments"]["createEmployment"]["isPrimary"], true);
        // The same company twice over overlapping periods is refused.
        let body = app.employ(&admin_a, a, worker.id, ", startDate: \"2026-06-01\"").await;
        assert_eq!(codes(&body), ["OVERLAPPING_EMPLOYMENTS"]);
        assert_eq!(body["errors"][0]["extensions"]["overlapType"], "company");
        // A second primary over an overlapping period is refused; by default it is secondary.
        let body = app.employ(&admin_b, b, worker.id, ", isPrimary: true").await;
        assert_eq!(codes(&body), ["OVERLAPPING_EMPLOYMENTS"]);
        assert_eq!(body["errors"][0]["extensions"]["overlapType"], "primary");
        let body = app.employ(&admin_b, b, worker.id, "").await;
        assert_eq!(body["data"]["employments"]["createEmployment"]["isPrimary"], false);
    }

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

    async fn batch_creation_is_all_or_nothing(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let batch = "mutation($c: Int!, $m: [Email], $u: [Int]) { employments { batchCreateWorkerEmployments(companyId: $c, mails: $m, userIds: $u) { id email userId } } }";
        let body = app.as_user(&admin, batch, json!({ "c": company, "m": ["one@example.com", "two@example.com"], "u": [worker.id, 999_999_998] })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        assert_eq!(body["errors"][0]["extensions"]["itemIndex"], 3);
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM employments").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(count, 1, "only the admin's own employment");
        let (mails,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM emails").fetch_one(&app.server.db.pool).await.unwrap();
        assert_eq!(mails, 0, "no e-mail for a rolled-back batch");

        let body = app.as_user(&admin, batch, json!({ "c": company, "m": ["one@example.com", "two@example.com"], "u": [worker.id] })).await;
        let created = body["data"]["employments"]["batchCreateWorkerEmployments"].as_array().unwrap();
        assert_eq!(created.len(), 3);
        assert_eq!(created[2]["userId"], worker.id);

        let many: Vec<String> = (0..101).map(|i| format!("w{i}@example.com")).collect();
        let body = app.as_user(&admin, batch, json!({ "c": company, "m": many })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
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

    async fn concurrent_creations_never_break_the_rules(app) {
        let worker = app.new_user("worker@example.com").await;
        let mut companies = Vec::new();
        for i in 0..6 {
            let admin = app.new_user(&format!("admin{i}@example.com")).await;
            let company = app.new_company(&admin, &format!("C{i}")).await;
            companies.push((admin, company));
        }
        // Six companies race to make the worker their primary employee: exactly one may.
        let attempts = companies.iter().map(|(admin, company)| app.employ(admin, *company, worker.id, ", isPrimary: true"));
        let bodies = futures::future::join_all(attempts).await;
        let won = bodies.iter().filter(|b| b["errors"].is_null()).count();
        assert_eq!(won, 1, "{bodies:?}");
        assert!(bodies.iter().filter(|b| !b["errors"].is_null()).all(|b| codes(b) == ["OVERLAPPING_EMPLOYMENTS"]));
        // One company races with itself: exactly one employment.
        let (admin, company) = &companies[0];
        let attempts = (0..6).map(|_| app.employ(admin, *company, worker.id, ", startDate: \"2030-01-01\", isPrimary: false"));
        let bodies = futures::future::join_all(attempts).await;
        let won = bodies.iter().filter(|b| b["errors"].is_null()).count();
        assert!(won <= 1, "{bodies:?}");
        let (primaries,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM employments WHERE user_id = $1 AND is_primary = 1 AND dismissed_at IS NULL")
                .bind(worker.id)
                .fetch_one(&app.server.db.pool)
                .await
                .unwrap();
        assert_eq!(primaries, 1);
        let (per_company,): (i64,) = sqlx::query_as(
            "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM employments WHERE user_id = $1 GROUP BY company_id) t",
        )
        .bind(worker.id)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
        assert!(per_company <= 2, "at most the overlapping-free pair in one company");
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

tests! {
async fn outbox_is_not_served_in_production() {
    let app = TestApp::spawn_in(Backend::Sqlite, roadlog::config::Environment::Production)
        .await
        .unwrap();
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
        assert!(mails[0]["body"].as_str().unwrap().contains("rl_inv_"), "the token, for integrators");
        let foreign = app.client.get(app.url("/sandbox/outbox")).query(&[("company_id", other)]).bearer_auth(&admin.token).send().await.unwrap();
        assert_eq!(foreign.status(), 403);
        let nobody = app.client.get(app.url("/sandbox/outbox")).bearer_auth(&existing.token).send().await.unwrap();
        assert_eq!(nobody.status(), 403, "an account that administers no company");
        // The operator sees every message.
        assert_eq!(outbox(app, "existing@example.com").await.len(), 1);
        assert_eq!(outbox(app, "elsewhere@example.com").await.len(), 1);
    }
}
