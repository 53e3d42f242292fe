//! Known addresses over the real HTTP API, on both databases: `Mutations.locations`
//! (createKnownAddress, editKnownAddress, terminateKnownAddress), `Company.knownAddresses`,
//! `Team.knownAddresses`, and logLocation(companyKnownAddressId); with their permissions,
//! errors and database state. Also the company's staff fields (`nbWorkers`,
//! `hasNoActiveAdmins`, `currentAdmins`).

use serde_json::{Value, json};

use crate::support::employments::{ROLE, TERMINATE};
use crate::support::{TestApp, TestUser, codes};

const CREATE: &str = "mutation($c: Int!, $m: String, $g: GenericScalar, $a: String) { locations { createKnownAddress(companyId: $c, manualAddress: $m, geoApiData: $g, alias: $a) { id name city postalCode alias } } }";
const EDIT: &str = "mutation($k: Int!, $a: String) { locations { editKnownAddress(companyKnownAddressId: $k, alias: $a) { id alias } } }";
const TERMINATE_ADDRESS: &str =
    "mutation($k: Int!) { locations { terminateKnownAddress(companyKnownAddressId: $k) { success } } }";
const LIST: &str = "query($c: Int!) { company(id: $c) { knownAddresses { id name alias } } }";

async fn create(app: &TestApp, admin: &TestUser, company: i64, variables: Value) -> Value {
    let mut variables = variables;
    variables["c"] = json!(company);
    app.as_user(admin, CREATE, variables).await
}

fn created_id(body: &Value) -> i64 {
    body["data"]["locations"]["createKnownAddress"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

async fn stored(app: &TestApp, company: i64) -> Vec<(i64, String, Option<String>, Option<i64>)> {
    sqlx::query_as(
        "SELECT id, name, alias, dismissed_at FROM company_known_addresses WHERE company_id = $1 ORDER BY id",
    )
    .bind(company)
    .fetch_all(&app.server.db.pool)
    .await
    .unwrap()
}

on_both_backends! {
    async fn a_company_keeps_an_address_book(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let stranger = app.new_user("stranger@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;

        let geo = json!({ "type": "Feature", "properties": { "label": "8 Rue de la Gare 69002 Lyon", "city": "Lyon", "postcode": "69002" } });
        let body = create(app, &admin, company, json!({ "g": geo, "a": "Dépôt" })).await;
        assert_eq!(
            body["data"]["locations"]["createKnownAddress"],
            json!({ "id": created_id(&body), "name": "8 Rue de la Gare 69002 Lyon", "city": "Lyon", "postalCode": "69002", "alias": "Dépôt" })
        );
        let depot = created_id(&body);
        let body = create(app, &admin, company, json!({ "m": "Client Durand, Villeurbanne" })).await;
        let client = created_id(&body);

        // The same address twice is refused; so are both or neither of the address arguments.
        let body = create(app, &admin, company, json!({ "g": geo })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"]);
        assert_eq!(body["errors"][0]["extensions"]["reason"], "COMPANY_ADDRESS_ALREADY_REGISTERED");
        for variables in [json!({}), json!({ "m": "x", "g": geo }), json!({ "m": "  " }), json!({ "m": "x", "a": "a".repeat(256) })] {
            let body = create(app, &admin, company, variables).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        }
        assert_eq!(stored(app, company).await.len(), 2);

        // Employees read the book; others do not.
        let body = app.as_user(&worker, LIST, json!({ "c": company })).await;
        assert_eq!(
            body["data"]["company"]["knownAddresses"],
            json!([
                { "id": depot, "name": "8 Rue de la Gare 69002 Lyon", "alias": "Dépôt" },
                { "id": client, "name": "Client Durand, Villeurbanne", "alias": null },
            ])
        );
        let (_, body) = app.graphql(LIST, json!({ "c": company }), Some(&stranger.token)).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");

        // Admins only change the book.
        for (query, variables) in [
            (CREATE, json!({ "c": company, "m": "Elsewhere" })),
            (EDIT, json!({ "k": depot, "a": "Mine" })),
            (TERMINATE_ADDRESS, json!({ "k": depot })),
        ] {
            let body = app.as_user(&worker, query, variables).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        }
        let body = app.as_user(&admin, EDIT, json!({ "k": 987_654_321, "a": "x" })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);

        // The alias changes, and goes with null.
        let body = app.as_user(&admin, EDIT, json!({ "k": client, "a": " Durand " })).await;
        assert_eq!(body["data"]["locations"]["editKnownAddress"], json!({ "id": client, "alias": "Durand" }));
        let body = app.as_user(&admin, EDIT, json!({ "k": client, "a": null })).await;
        assert_eq!(body["data"]["locations"]["editKnownAddress"]["alias"], Value::Null);

        // A terminated address leaves the book; terminating it again or renaming it is refused;
        // creating it again revives the same entry with the new alias.
        let body = app.as_user(&admin, TERMINATE_ADDRESS, json!({ "k": depot })).await;
        assert_eq!(body["data"]["locations"]["terminateKnownAddress"]["success"], true);
        for (query, variables) in [(TERMINATE_ADDRESS, json!({ "k": depot })), (EDIT, json!({ "k": depot, "a": "x" }))] {
            let body = app.as_user(&admin, query, variables).await;
            assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
            assert_eq!(body["errors"][0]["extensions"]["reason"], "KNOWN_ADDRESS_TERMINATED");
        }
        let body = app.as_user(&worker, LIST, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["knownAddresses"].as_array().unwrap().len(), 1);
        let rows = stored(app, company).await;
        assert!(rows[0].3.is_some(), "{rows:?}");
        let body = create(app, &admin, company, json!({ "g": geo, "a": "Dépôt Sud" })).await;
        assert_eq!(created_id(&body), depot);
        assert_eq!(body["data"]["locations"]["createKnownAddress"]["alias"], "Dépôt Sud");
        assert_eq!(stored(app, company).await.len(), 2);

        // Another company's admin cannot touch it.
        let other = app.new_user("other@example.com").await;
        app.new_company(&other, "Other").await;
        let body = app.as_user(&other, TERMINATE_ADDRESS, json!({ "k": depot })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert!(stored(app, company).await[0].3.is_none());
    }

    async fn missions_and_teams_use_known_addresses(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let other = app.new_user("other@example.com").await;
        let other_company = app.new_company(&other, "Other").await;
        let body = create(app, &admin, company, json!({ "g": { "properties": { "label": "1 Quai Rambaud 69002 Lyon", "city": "Lyon", "postcode": "69002" } }, "a": "Quai" })).await;
        let quai = created_id(&body);
        let body = create(app, &other, other_company, json!({ "m": "Their depot" })).await;
        let theirs = created_id(&body);

        let body = app
            .as_user(&admin, "mutation($c: Int!) { activities { createMission(companyId: $c) { id } } }", json!({ "c": company }))
            .await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let log = "mutation($m: Int!, $k: Int) { activities { logLocation(missionId: $m, type: \"mission_start_location\", companyKnownAddressId: $k) { name city postalCode alias } } }";
        let body = app.as_user(&admin, log, json!({ "m": mission, "k": quai })).await;
        assert_eq!(
            body["data"]["activities"]["logLocation"],
            json!({ "name": "1 Quai Rambaud 69002 Lyon", "city": "Lyon", "postalCode": "69002", "alias": "Quai" })
        );
        // Another company's address, or an unknown one, is refused.
        for k in [theirs, 987_654_321] {
            let body = app.as_user(&admin, log, json!({ "m": mission, "k": k })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        }
        // The location reads the address's current alias.
        app.as_user(&admin, EDIT, json!({ "k": quai, "a": "Quai Sud" })).await;
        let body = app
            .as_user(&admin, "query($m: Int!) { mission(id: $m) { startLocation { alias } } }", json!({ "m": mission }))
            .await;
        assert_eq!(body["data"]["mission"]["startLocation"]["alias"], "Quai Sud", "{body}");

        // Teams keep the company's addresses they are given, and lose terminated ones.
        let body = app
            .as_user(
                &admin,
                "mutation($c: Int!, $k: [Int]) { teams { createTeam(companyId: $c, name: \"Lyon\", knownAddressIds: $k) { teams { id knownAddresses { id alias } } } } }",
                json!({ "c": company, "k": [quai, theirs] }),
            )
            .await;
        assert_eq!(
            body["data"]["teams"]["createTeam"]["teams"][0]["knownAddresses"],
            json!([{ "id": quai, "alias": "Quai Sud" }]),
            "{body}"
        );
        app.as_user(&admin, TERMINATE_ADDRESS, json!({ "k": quai })).await;
        let (links,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM team_known_addresses")
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(links, 0);
        let body = app
            .as_user(&admin, "query($c: Int!) { company(id: $c) { teams { knownAddresses { id } } } }", json!({ "c": company }))
            .await;
        assert_eq!(body["data"]["company"]["teams"][0]["knownAddresses"], json!([]));
    }

    async fn a_company_counts_its_workers_and_admins(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let pending = app.new_user("pending@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        let hired = app.hire(&admin, company, &worker).await;
        app.employ(&admin, company, pending.id, "").await;
        let query = "query($c: Int!) { company(id: $c) { nbWorkers hasNoActiveAdmins currentAdmins { id } } }";
        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        assert_eq!(
            body["data"]["company"],
            json!({ "nbWorkers": 2, "hasNoActiveAdmins": false, "currentAdmins": [{ "id": admin.id }] })
        );
        // A worker reads the counts, not the admins.
        let body = app.as_user(&worker, query, json!({ "c": company })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        assert_eq!(body["data"]["company"]["nbWorkers"], 2);
        assert_eq!(body["data"]["company"]["currentAdmins"], Value::Null);
        // A second admin is listed; an ended employment no longer counts.
        let body = app.as_user(&admin, ROLE, json!({ "e": hired, "a": true })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        let mut admins: Vec<i64> = body["data"]["company"]["currentAdmins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["id"].as_i64().unwrap())
            .collect();
        admins.sort();
        assert_eq!(admins, [admin.id.min(worker.id), admin.id.max(worker.id)]);
        sqlx::query("UPDATE employments SET start_date = '2020-01-01' WHERE id = $1")
            .bind(hired)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let yesterday = (chrono::Utc::now().date_naive() - chrono::Days::new(1)).format("%Y-%m-%d").to_string();
        let body = app.as_user(&admin, TERMINATE, json!({ "e": hired, "d": yesterday })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, query, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["nbWorkers"], 1);
        // With its only admin gone, the company has no active admin.
        sqlx::query("UPDATE employments SET start_date = '2020-01-01', end_date = '2020-12-31' WHERE company_id = $1 AND user_id = $2")
            .bind(company)
            .bind(admin.id)
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let (_, body) = app.graphql("query($c: Int!) { company(id: $c) { hasNoActiveAdmins } }", json!({ "c": company }), Some(&pending.token)).await;
        assert_eq!(body["data"]["company"]["hasNoActiveAdmins"], true, "{body}");
    }
}
