//! A query for many missions with their activities makes a bounded number of database round
//! trips: the count is measured by counting the statements sqlx reports (target `sqlx::query`)
//! while the server answers, for 10 and for 100 missions, on both databases.

use serde_json::{Value, json};

use crate::support::statements;
use crate::support::{TestApp, TestUser};

/// Runs a query as `user` with a request id of its own, and returns the answer and the number
/// of statements the server ran for that request.
async fn counted(app: &TestApp, user: &TestUser, query: &str, variables: Value, request_id: &str) -> (Value, usize) {
    let response = app
        .client
        .post(app.url("/api/graphql"))
        .bearer_auth(&user.token)
        .header("x-request-id", request_id)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["x-request-id"],
        request_id,
        "the server kept the request id"
    );
    let body: Value = response.json().await.unwrap();
    (body, statements::count(request_id))
}

const QUERY: &str = "query($c: Int!, $n: Int) { company(id: $c) { missions(first: $n) { edges { node {
    id name submitter { id } vehicle { id } company { name }
    activities { id type startTime endTime user { id } versions { id submitter { id } } }
    expenditures { id } validations { id } comments { id } startLocation { id } endLocation { id }
} } } } }";

/// Seeds `missions` missions of 3 activities each, directly in the database, and counts the
/// statements of the query that reads them all.
async fn statements_for(app: &TestApp, missions: i64) -> usize {
    let admin = app.new_user(&format!("admin{missions}@example.com")).await;
    let company = app.new_company(&admin, "Big").await;
    let pool = &app.server.db.pool;
    let base = 1_700_000_000 - 1_700_000_000 % 86_400;
    for i in 0..missions {
        let (mission,): (i64,) = sqlx::query_as(
            "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time) VALUES ($1, $2, $3, $4, $4) RETURNING id",
        )
        .bind(format!("M{i}"))
        .bind(company)
        .bind(admin.id)
        .bind(base)
        .fetch_one(pool)
        .await
        .unwrap();
        for k in 0..3 {
            let start = base + i * 86_400 + k * 3600;
            let (activity,): (i64,) = sqlx::query_as(
                "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time)
                 VALUES ($1, $2, $2, 'drive', $3, $3, $3, $4, $4) RETURNING id",
            )
            .bind(mission)
            .bind(admin.id)
            .bind(start)
            .bind(start + 1800)
            .fetch_one(pool)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, start_time, end_time, submitter_id)
                 VALUES ($1, 1, $2, $2, $2, $3, $4)",
            )
            .bind(activity)
            .bind(start)
            .bind(start + 1800)
            .bind(admin.id)
            .execute(pool)
            .await
            .unwrap();
        }
    }
    let variables = json!({ "c": company, "n": missions });
    let request_id = format!("round-trips-{}-{missions}-{:?}", std::process::id(), app.backend);
    let (body, statements) = counted(app, &admin, QUERY, variables, &request_id).await;
    assert!(body["errors"].is_null(), "{body}");
    let edges = body["data"]["company"]["missions"]["edges"].as_array().unwrap();
    assert_eq!(edges.len() as i64, missions);
    assert!(
        edges
            .iter()
            .all(|e| e["node"]["activities"].as_array().unwrap().len() == 3)
    );
    statements
}

on_both_backends! {
    async fn a_hundred_missions_take_a_bounded_number_of_round_trips(app) {
        statements::install();
        let ten = statements_for(app, 10).await;
        let hundred = statements_for(app, 100).await;
        assert_eq!(
            ten, hundred,
            "the number of round trips must not grow with the number of missions"
        );
        assert!(ten >= 8, "the statements of the request are seen: {ten}");
        println!("{:?}: {ten} statements for 10 missions, {hundred} for 100", app.backend);
        assert!(hundred <= 13, "{hundred} statements for one query");
    }
}

on_both_backends! {
    async fn me_is_read_with_the_token(app) {
        // Most documents start at `me`: the user's row comes with the token's lookup, so `me`
        // itself runs no statement, whether the token is a login session's or an OAuth client's.
        statements::install();
        let user = app.new_user("driver@example.com").await;
        let query = "{ me { id email firstName lastName timezoneName hasConfirmedEmail } }";
        // Request ids are counted for the whole process: one of its own per database.
        let (body, count) = counted(app, &user, query, json!({}), &format!("me-login-{:?}", app.backend)).await;
        let expected = json!({ "me": {
            "id": user.id, "email": "driver@example.com", "firstName": "Jeanne", "lastName": "Martin",
            "timezoneName": "Europe/Paris", "hasConfirmedEmail": true,
        } });
        assert_eq!(body["data"], expected, "{body}");
        assert_eq!(count, 1, "the token's lookup only");

        let created = roadlog::oauth::clients::create(&app.server.db, roadlog::config::Environment::Sandbox, "Payroll", &["https://payroll.example.com/cb".into()]).await.unwrap();
        let token = roadlog::domain::auth::oauth_tokens::issue(&app.server.db, created.client_id.parse().unwrap(), user.id, None).await.unwrap();
        let as_client = TestUser { token, ..user.clone() };
        let (body, count) = counted(app, &as_client, query, json!({}), &format!("me-oauth-{:?}", app.backend)).await;
        assert_eq!(body["data"], expected, "{body}");
        assert_eq!(count, 1, "the token's lookup only");
    }
}

/// The statements of one recap of `month` by `admin`, with or without its day details.
async fn recap_statements(
    app: &TestApp,
    admin: &TestUser,
    company: i64,
    month: &str,
    details: bool,
    id: &str,
) -> usize {
    let fields = if details {
        "days dayDetails { day userName otherCompanyRelation }"
    } else {
        "days"
    };
    let query = format!(
        "query($c: Int!, $m: ShortMonth!) {{ company(id: $c) {{ regulatoryAlertsRecap(month: $m) {{ \
         totalNbAlerts totalNbAlertsPreviousMonth dailyAlerts {{ alertsType nbAlerts {fields} }} }} }} }}"
    );
    let request_id = format!("recap-{id}-{details}-{}-{:?}", std::process::id(), app.backend);
    let (body, statements) = counted(app, admin, &query, json!({ "c": company, "m": month }), &request_id).await;
    let recap = &body["data"]["company"]["regulatoryAlertsRecap"];
    assert!(recap["totalNbAlerts"].as_i64().unwrap() > 0, "{body}");
    statements
}

on_both_backends! {
    async fn a_recap_takes_as_many_statements_for_one_worker_as_for_four(app) {
        // Besides the token's and the company's reads, a recap reads its head and its lines in
        // one statement (without day details), or its head, its lines, the workers' names and
        // their other companies (with them), however many workers are alerted.
        use crate::regulation::{company, date, day, mission, validate};
        statements::install();
        let c = company(app).await;
        let d = day(12);
        let month = date(d)[..7].to_string();
        let alert = |worker: TestUser| {
            let c = &c;
            async move {
                let long = mission(app, &worker, c.id, &[("drive", d + 5 * 3600, d + 18 * 3600)]).await;
                validate(app, &worker, long, &worker).await;
                validate(app, &c.admin, long, &worker).await;
            }
        };
        alert(c.worker.clone()).await;
        let one = (
            recap_statements(app, &c.admin, c.id, &month, false, "one").await,
            recap_statements(app, &c.admin, c.id, &month, true, "one").await,
        );
        for i in 0..3 {
            let worker = app.new_user(&format!("driver{i}@example.com")).await;
            app.hire(&c.admin, c.id, &worker).await;
            sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
                .execute(&app.server.db.pool)
                .await
                .unwrap();
            alert(worker).await;
        }
        let four = (
            recap_statements(app, &c.admin, c.id, &month, false, "four").await,
            recap_statements(app, &c.admin, c.id, &month, true, "four").await,
        );
        assert_eq!(one, four, "the statements of a recap do not grow with its workers");
        assert_eq!(four, (3, 6), "token, company, head and lines (head, lines, names, other companies)");
    }
}
