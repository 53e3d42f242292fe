//! Employments over the real HTTP API, on both databases: their life cycle (answered, cancelled,
//! terminated, roles), the checks of their creation, the primary/overlap rules, batch creation,
//! and the rules under concurrent creations.

use cynic::MutationBuilder;
use cynic::http::ReqwestExt;
use roadlog_client::schema;
use serde_json::json;

use crate::support::codes;
use crate::support::employments::{CANCEL, EmploymentFields, REJECT, ROLE, TERMINATE, VALIDATE, outbox, today};

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

on_both_backends! {
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
        // Ended today is already ended: not terminated again, its end date not moved.
        let yesterday = (chrono::Utc::now().date_naive() - chrono::Days::new(1)).format("%Y-%m-%d").to_string();
        let body = app.as_user(&admin, TERMINATE, json!({ "e": id, "d": yesterday })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "EMPLOYMENT_ALREADY_TERMINATED");
        assert!(body["errors"][0]["message"].as_str().unwrap().contains("must not be already ended"), "{body}");
        let (stored,): (Option<String>,) = sqlx::query_as("SELECT end_date FROM employments WHERE id = $1")
            .bind(id as i64)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, Some(today()));
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

    async fn two_admins_removing_each_other_leave_one_admin(app) {
        // The permission check and the write share a transaction: of two admins removing each
        // other's rights at once, the second to run is no longer an admin and is refused.
        let first = app.new_user("first@example.com").await;
        let second = app.new_user("second@example.com").await;
        let company = app.new_company(&first, "Acme").await;
        let body = app.employ(&first, company, second.id, ", hasAdminRights: true").await;
        let second_employment = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&second, VALIDATE, json!({ "e": second_employment })).await;
        assert!(body["errors"].is_null(), "{body}");
        let own = app.as_user(&first, "{ me { currentEmployments { id } } }", json!({})).await;
        let first_employment = own["data"]["me"]["currentEmployments"][0]["id"].as_i64().unwrap();
        let (a, b) = futures::future::join(
            app.as_user(&first, ROLE, json!({ "e": second_employment, "a": false })),
            app.as_user(&second, ROLE, json!({ "e": first_employment, "a": false })),
        )
        .await;
        let refused: Vec<Vec<String>> = [&a, &b].iter().map(|body| codes(body)).filter(|c| !c.is_empty()).collect();
        assert_eq!(refused, [["AUTHORIZATION_ERROR"]], "{a} {b}");
        let (admins,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM employments WHERE company_id = $1 AND has_admin_rights = 1")
            .bind(company)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(admins, 1);
    }

    async fn an_employment_with_an_end_date_to_come_is_already_ended(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let until = (chrono::Utc::now().date_naive() + chrono::Days::new(30)).format("%Y-%m-%d").to_string();
        let body = app.employ(&admin, company, worker.id, &format!(", endDate: \"{until}\"")).await;
        let id = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&worker, VALIDATE, json!({ "e": id })).await;
        assert!(body["errors"].is_null(), "{body}");
        // As the reference: any end date already set means ended, whether past or to come.
        let body = app.as_user(&admin, TERMINATE, json!({ "e": id })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
        assert_eq!(body["errors"][0]["extensions"]["reason"], "EMPLOYMENT_ALREADY_TERMINATED");
        assert!(body["data"]["employments"]["terminateEmployment"].is_null());
        let (stored,): (Option<String>,) = sqlx::query_as("SELECT end_date FROM employments WHERE id = $1")
            .bind(id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, Some(until), "nothing changed");
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
