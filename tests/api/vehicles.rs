//! Vehicles over the real HTTP API, on both databases: `Mutations.vehicles` (createVehicle's
//! find-or-create by plate, editVehicle, terminateVehicle), with their permissions, errors and
//! database state; and what a terminated vehicle still is: gone from `Company.vehicles` and
//! `Team.vehicles`, kept by missions (`Mission.vehicle`, `createMission(vehicleId)`, the C1B
//! file), and brought back by its plate.

use roadlog::domain::export::c1b;
use serde_json::{Value, json};

use crate::export::{date, day, export, setup, unzip};
use crate::support::{TestApp, TestUser, codes};

const CREATE: &str = "mutation($c: Int!, $r: String!, $a: String) { vehicles { createVehicle(companyId: $c, registrationNumber: $r, alias: $a) { id registrationNumber alias name companyId terminatedAt } } }";
const EDIT: &str = "mutation($v: Int!, $a: String) { vehicles { editVehicle(id: $v, alias: $a) { id registrationNumber alias name } } }";
const TERMINATE: &str = "mutation($v: Int!) { vehicles { terminateVehicle(id: $v) { success } } }";
const LIST: &str =
    "query($c: Int!) { company(id: $c) { vehicles { id registrationNumber } teams { name vehicles { id } } } }";

async fn create(app: &TestApp, user: &TestUser, company: i64, plate: &str, alias: Option<&str>) -> Value {
    app.as_user(user, CREATE, json!({ "c": company, "r": plate, "a": alias }))
        .await
}

fn created_id(body: &Value) -> i64 {
    body["data"]["vehicles"]["createVehicle"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

/// The company's vehicles as stored: (id, plate, alias, terminated).
async fn stored(app: &TestApp, company: i64) -> Vec<(i64, String, Option<String>, bool)> {
    let rows: Vec<(i64, String, Option<String>, Option<i64>)> = sqlx::query_as(
        "SELECT id, registration_number, alias, terminated_at FROM vehicles WHERE company_id = $1 ORDER BY id",
    )
    .bind(company)
    .fetch_all(&app.server.db.pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(id, plate, alias, t)| (id, plate, alias, t.is_some()))
        .collect()
}

async fn terminated_at(app: &TestApp, vehicle: i64) -> Option<i64> {
    let (at,): (Option<i64>,) = sqlx::query_as("SELECT terminated_at FROM vehicles WHERE id = $1")
        .bind(vehicle)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap();
    at
}

on_both_backends! {
    async fn admins_create_and_rename_vehicles_matched_by_plate(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let stranger = app.new_user("stranger@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.new_company(&stranger, "Other").await;
        app.hire(&admin, company, &worker).await;

        let body = create(app, &admin, company, "ab-123 cd", Some(" Le gros ")).await;
        let truck = created_id(&body);
        assert_eq!(
            body["data"]["vehicles"]["createVehicle"],
            json!({ "id": truck, "registrationNumber": "AB123CD", "alias": "Le gros", "name": "Le gros", "companyId": company, "terminatedAt": null })
        );
        // The same plate, spelt otherwise, is the same vehicle: no alias keeps the alias, a new
        // one replaces it.
        let body = create(app, &admin, company, "AB 123-CD", None).await;
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["id"], truck, "{body}");
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["alias"], "Le gros");
        let body = create(app, &admin, company, "Ab123cD", Some("Porteur")).await;
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["alias"], "Porteur", "{body}");
        // `%` and `_` are characters of a plate, not wildcards (the reference matched `ab%`
        // with AB123CD).
        let body = create(app, &admin, company, "ab%", None).await;
        let other = created_id(&body);
        assert_ne!(other, truck);
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["registrationNumber"], "AB%");

        // Refused, writing nothing: a plate of nothing but spaces and dashes, a plate too long,
        // an alias too long; a worker, another company's admin.
        for (plate, alias) in [(" - ", None), (&*"A".repeat(33), None), ("CD-456-EF", Some("a".repeat(256)))] {
            let body = create(app, &admin, company, plate, alias.as_deref()).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        }
        for user in [&worker, &stranger] {
            let body = create(app, user, company, "CD-456-EF", None).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        }
        assert_eq!(
            stored(app, company).await,
            vec![(truck, "AB123CD".into(), Some("Porteur".into()), false), (other, "AB%".into(), None, false)]
        );
        assert_eq!(app.scalar("SELECT COUNT(*) FROM vehicles").await, 2);

        // An employee reads the list.
        let body = app.as_user(&worker, LIST, json!({ "c": company })).await;
        assert_eq!(
            body["data"]["company"]["vehicles"],
            json!([{ "id": other, "registrationNumber": "AB%" }, { "id": truck, "registrationNumber": "AB123CD" }])
        );

        // editVehicle sets the alias; leaving it out removes it (the name is then the plate).
        let body = app.as_user(&admin, EDIT, json!({ "v": truck, "a": "Benne" })).await;
        assert_eq!(
            body["data"]["vehicles"]["editVehicle"],
            json!({ "id": truck, "registrationNumber": "AB123CD", "alias": "Benne", "name": "Benne" })
        );
        let body = app.as_user(&admin, EDIT, json!({ "v": truck })).await;
        assert_eq!(
            body["data"]["vehicles"]["editVehicle"],
            json!({ "id": truck, "registrationNumber": "AB123CD", "alias": null, "name": "AB123CD" })
        );
        let body = app.as_user(&admin, EDIT, json!({ "v": truck, "a": "x".repeat(256) })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"], "{body}");
        // Admins of the vehicle's company only; an unknown vehicle looks the same.
        app.as_user(&admin, EDIT, json!({ "v": truck, "a": "Benne" })).await;
        for (user, vehicle) in [(&worker, truck), (&stranger, truck), (&admin, 999_999)] {
            let body = app.as_user(user, EDIT, json!({ "v": vehicle, "a": "Volée" })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
            let body = app.as_user(user, TERMINATE, json!({ "v": vehicle })).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        }
        let (_, body) = app.graphql(TERMINATE, json!({ "v": truck }), None).await;
        assert_eq!(codes(&body), ["AUTHENTICATION_ERROR"], "{body}");
        assert_eq!(
            stored(app, company).await,
            vec![(truck, "AB123CD".into(), Some("Benne".into()), false), (other, "AB%".into(), None, false)]
        );
    }

    async fn a_terminated_vehicle_leaves_the_lists_stays_on_missions_and_comes_back(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;
        let truck = created_id(&create(app, &admin, company, "AB-123-CD", Some("Benne")).await);
        let van = created_id(&create(app, &admin, company, "EF-456-GH", None).await);
        let body = app
            .as_user(&admin, "mutation($c: Int!, $v: [Int]) { teams { createTeam(companyId: $c, name: \"Nord\", vehicleIds: $v) { id } } }", json!({ "c": company, "v": [truck, van] }))
            .await;
        assert!(body["errors"].is_null(), "{body}");
        let mission = "mutation($c: Int!, $v: Int, $r: String) { activities { createMission(companyId: $c, vehicleId: $v, vehicleRegistrationNumber: $r) { id vehicleId } } }";
        let body = app.as_user(&worker, mission, json!({ "c": company, "v": truck })).await;
        let used = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap_or_else(|| panic!("{body}"));

        let body = app.as_user(&admin, TERMINATE, json!({ "v": truck })).await;
        assert_eq!(body["data"]["vehicles"]["terminateVehicle"], json!({ "success": true }), "{body}");
        let first = terminated_at(app, truck).await.expect("terminated");
        let body = app.as_user(&worker, LIST, json!({ "c": company })).await;
        assert_eq!(
            body["data"]["company"],
            json!({ "vehicles": [{ "id": van, "registrationNumber": "EF456GH" }], "teams": [{ "name": "Nord", "vehicles": [{ "id": van }] }] })
        );
        assert_eq!(app.scalar(&format!("SELECT COUNT(*) FROM team_vehicles WHERE vehicle_id = {truck}")).await, 0);
        // The mission keeps it, terminated.
        let body = app
            .as_user(&worker, "query($m: Int!) { mission(id: $m) { vehicle { id name terminatedAt } } }", json!({ "m": used }))
            .await;
        assert_eq!(body["data"]["mission"]["vehicle"]["id"], truck, "{body}");
        assert_eq!(body["data"]["mission"]["vehicle"]["name"], "Benne");
        assert!(body["data"]["mission"]["vehicle"]["terminatedAt"].is_string(), "{body}");
        // Terminating it again succeeds and keeps the first date.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let body = app.as_user(&admin, TERMINATE, json!({ "v": truck })).await;
        assert_eq!(body["data"]["vehicles"]["terminateVehicle"], json!({ "success": true }), "{body}");
        assert_eq!(terminated_at(app, truck).await, Some(first));
        // A mission may still name it by id: it stays terminated.
        let body = app.as_user(&worker, mission, json!({ "c": company, "v": truck })).await;
        assert_eq!(body["data"]["activities"]["createMission"]["vehicleId"], truck, "{body}");
        assert_eq!(terminated_at(app, truck).await, Some(first));

        // Its plate brings it back, with the same id: through a mission's registration number…
        let body = app.as_user(&worker, mission, json!({ "c": company, "r": "ab 123 cd" })).await;
        assert_eq!(body["data"]["activities"]["createMission"]["vehicleId"], truck, "{body}");
        assert_eq!(terminated_at(app, truck).await, None);
        let body = app.as_user(&worker, LIST, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["vehicles"].as_array().map(Vec::len), Some(2), "{body}");
        // … but not into the team it left.
        assert_eq!(body["data"]["company"]["teams"][0]["vehicles"], json!([{ "id": van }]));
        // … and through createVehicle, which also keeps the alias when none is given.
        app.as_user(&admin, TERMINATE, json!({ "v": truck })).await;
        let body = create(app, &admin, company, "AB123CD", None).await;
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["id"], truck, "{body}");
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["terminatedAt"], Value::Null);
        assert_eq!(body["data"]["vehicles"]["createVehicle"]["alias"], "Benne");
        assert_eq!(app.scalar("SELECT COUNT(*) FROM vehicles").await, 2);
    }

    async fn a_plate_named_in_a_mission_joins_the_workers_team_when_it_lists_vehicles(app) {
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let mate = app.new_user("mate@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;
        app.hire(&admin, company, &mate).await;
        let van = created_id(&create(app, &admin, company, "EF-456-GH", None).await);
        let spare = created_id(&create(app, &admin, company, "XY-999-ZZ", None).await);
        let team = "mutation($c: Int!, $n: String!, $u: [Int], $v: [Int]) { teams { createTeam(companyId: $c, name: $n, userIds: $u, vehicleIds: $v) { id } } }";
        for (name, user, vehicles) in [("Nord", worker.id, vec![van]), ("Sud", mate.id, vec![])] {
            let body = app.as_user(&admin, team, json!({ "c": company, "n": name, "u": [user], "v": vehicles })).await;
            assert!(body["errors"].is_null(), "{body}");
        }
        let mission = "mutation($c: Int!, $v: Int, $r: String) { activities { createMission(companyId: $c, vehicleId: $v, vehicleRegistrationNumber: $r) { id vehicleId } } }";
        let teams = |body: &Value| body["data"]["company"]["teams"].clone();

        // The worker's team lists a vehicle: a new plate joins it, once.
        let body = app.as_user(&worker, mission, json!({ "c": company, "r": "gh-789-ij" })).await;
        let new = body["data"]["activities"]["createMission"]["vehicleId"].as_i64().unwrap_or_else(|| panic!("{body}"));
        app.as_user(&worker, mission, json!({ "c": company, "r": "GH789IJ" })).await;
        // A vehicle named by its id does not join; a team without vehicles gets none.
        app.as_user(&worker, mission, json!({ "c": company, "v": spare })).await;
        let body = app.as_user(&mate, mission, json!({ "c": company, "r": "KL-012-MN" })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, LIST, json!({ "c": company })).await;
        assert_eq!(
            teams(&body),
            json!([{ "name": "Nord", "vehicles": [{ "id": van }, { "id": new }] }, { "name": "Sud", "vehicles": [] }])
        );
        assert_eq!(app.scalar("SELECT COUNT(*) FROM team_vehicles").await, 2);
    }

    async fn a_terminated_vehicle_stays_in_the_c1b_file(app) {
        let s = setup(app).await;
        let (truck,): (i64,) = sqlx::query_as("SELECT id FROM vehicles WHERE company_id = $1")
            .bind(s.company)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&s.admin, TERMINATE, json!({ "v": truck })).await;
        assert!(body["errors"].is_null(), "{body}");
        let period = json!({ "company_ids": [s.company], "user_ids": [s.worker.id], "min_date": date(day(3)), "max_date": date(day(2)) });
        let response = export(app, Some(&s.admin), period).await;
        assert_eq!(response.status(), 200);
        let card = c1b::roadlog_card_number(s.worker.id as u64, 0).unwrap();
        let files = unzip(&response.bytes().await.unwrap());
        let (_, file) = files.into_iter().find(|(name, _)| name.contains(&card)).expect("the worker's file");
        let report = c1b::inspect(&file, None).expect("a well-formed file");
        let plates: Vec<&str> = report.vehicles.iter().map(|v| v.registration.as_str()).collect();
        assert_eq!(plates, ["AB123CD", "AB123CD"], "one record per day of use");
    }
}
