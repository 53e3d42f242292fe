//! Teams over the real HTTP API, on both databases: `teams.createTeam / updateTeam /
//! deleteTeam`, `Company.teams`, `Employment.team`, `createEmployment(teamId)`,
//! `changeEmployeeTeam`, the rules other employment changes apply to teams, and the `teamId`
//! filter of `regulatoryAlertsRecap`; with their permissions, errors and database state.

use serde_json::{Value, json};

use crate::regulation::{company as regulated_company, day, mission, validate};
use crate::support::employments::{ROLE, VALIDATE, outbox};
use crate::support::{TestApp, TestUser, codes};

const TEAM_FIELDS: &str =
    "id teams { id name creationTime adminUsers { id } users { id } vehicles { id registrationNumber } }";

fn create_team() -> String {
    format!(
        "mutation($c: Int!, $n: String!, $u: [Int], $a: [Int], $v: [Int], $k: [Int]) {{ teams {{ createTeam(companyId: $c, name: $n, userIds: $u, adminIds: $a, vehicleIds: $v, knownAddressIds: $k) {{ {TEAM_FIELDS} }} }} }}"
    )
}

fn update_team() -> String {
    format!(
        "mutation($t: Int!, $n: String!, $u: [Int], $a: [Int], $v: [Int]) {{ teams {{ updateTeam(teamId: $t, name: $n, userIds: $u, adminIds: $a, vehicleIds: $v) {{ {TEAM_FIELDS} }} }} }}"
    )
}

const DELETE_TEAM: &str = "mutation($t: Int!) { teams { deleteTeam(teamId: $t) { id teams { id } } } }";
const CHANGE_TEAM: &str = "mutation($c: Int!, $u: Int, $e: Int, $t: Int) { employments { changeEmployeeTeam(companyId: $c, userId: $u, employmentId: $e, teamId: $t) { id } } }";
const TEAMS: &str = "query($c: Int!) { company(id: $c) { teams { id name users { id } } } }";
const EMPLOYMENTS: &str = "query($c: Int!) { company(id: $c) { employments { id userId teamId team { id name } } } }";

/// A vehicle of the company, created as the API creates them (through a mission).
async fn vehicle(app: &TestApp, admin: &TestUser, company: i64, plate: &str) -> i64 {
    let body = app
        .as_user(
            admin,
            "mutation($c: Int!, $p: String) { activities { createMission(companyId: $c, vehicleRegistrationNumber: $p) { vehicle { id } } } }",
            json!({ "c": company, "p": plate }),
        )
        .await;
    body["data"]["activities"]["createMission"]["vehicle"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"))
}

/// The team ids and `employments.team_id` of the company, as stored.
async fn stored(app: &TestApp, company: i64) -> (Vec<i64>, Vec<(i64, Option<i64>)>) {
    let teams: Vec<(i64,)> = sqlx::query_as("SELECT id FROM teams WHERE company_id = $1 ORDER BY id")
        .bind(company)
        .fetch_all(&app.server.db.pool)
        .await
        .unwrap();
    let employments: Vec<(i64, Option<i64>)> =
        sqlx::query_as("SELECT id, team_id FROM employments WHERE company_id = $1 ORDER BY id")
            .bind(company)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
    (teams.into_iter().map(|t| t.0).collect(), employments)
}

/// Creates a team with its creator as admin; answers its id.
async fn new_team(app: &TestApp, by: &TestUser, company: i64, name: &str) -> i64 {
    let body = app
        .as_user(by, &create_team(), json!({ "c": company, "n": name, "a": [by.id] }))
        .await;
    body["data"]["teams"]["createTeam"]["teams"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .find(|t| t["name"] == name)
        .unwrap()["id"]
        .as_i64()
        .unwrap()
}

/// The stored team of each employment of `user` in the company.
async fn teams_of(app: &TestApp, company: i64, user: i64) -> Vec<Option<i64>> {
    let rows: Vec<(Option<i64>,)> =
        sqlx::query_as("SELECT team_id FROM employments WHERE company_id = $1 AND user_id = $2 ORDER BY id")
            .bind(company)
            .bind(user)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
    rows.into_iter().map(|r| r.0).collect()
}

fn ids(list: &Value) -> Vec<i64> {
    let mut ids: Vec<i64> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    ids
}

/// A company with two admins and two workers, all accepted.
struct Crew {
    admin: TestUser,
    second_admin: TestUser,
    worker: TestUser,
    other_worker: TestUser,
    company: i64,
}

async fn crew(app: &TestApp) -> Crew {
    let admin = app.new_user("admin@example.com").await;
    let second_admin = app.new_user("second@example.com").await;
    let worker = app.new_user("worker@example.com").await;
    let other_worker = app.new_user("other@example.com").await;
    let company = app.new_company(&admin, "Acme").await;
    let second = app.hire(&admin, company, &second_admin).await;
    let body = app.as_user(&admin, ROLE, json!({ "e": second, "a": true })).await;
    assert!(body["errors"].is_null(), "{body}");
    app.hire(&admin, company, &worker).await;
    app.hire(&admin, company, &other_worker).await;
    Crew {
        admin,
        second_admin,
        worker,
        other_worker,
        company,
    }
}

on_both_backends! {
    async fn company_admins_create_replace_and_delete_teams(app) {
        let Crew { admin, second_admin, worker, other_worker, company } = crew(app).await;
        let truck = vehicle(app, &admin, company, "ab-123-cd").await;
        let outsider = app.new_user("outsider@example.com").await;
        let elsewhere = app.new_company(&outsider, "Elsewhere").await;
        let foreign_truck = vehicle(app, &outsider, elsewhere, "zz-999-zz").await;

        // Created with what the rules admit: a worker who is no admin is no team admin, another
        // company's vehicle is dropped, known addresses (Roadlog has none) are accepted and kept none.
        let body = app.as_user(&admin, &create_team(), json!({
            "c": company, "n": "  North  ", "u": [worker.id], "a": [second_admin.id, other_worker.id, admin.id],
            "v": [truck, foreign_truck], "k": [1, 2]
        })).await;
        assert!(body["errors"].is_null(), "{body}");
        let company_out = &body["data"]["teams"]["createTeam"];
        assert_eq!(company_out["id"], company);
        let team = &company_out["teams"][0];
        let team_id = team["id"].as_i64().unwrap();
        assert!((100_000_000..=999_999_999).contains(&team_id), "a random 9-digit id: {team_id}");
        assert_eq!(team["name"], "North");
        assert!(team["creationTime"].as_i64().unwrap() > 1_700_000_000);
        assert_eq!(ids(&team["adminUsers"]), { let mut v = vec![admin.id, second_admin.id]; v.sort(); v });
        assert_eq!(ids(&team["users"]), [worker.id]);
        assert_eq!(team["vehicles"], json!([{ "id": truck, "registrationNumber": "AB123CD" }]));
        // The new admin was told, at their own address; the actor was not.
        let mail = outbox(app, "second@example.com").await;
        assert!(mail.iter().any(|m| m["subject"] == "Vous gérez désormais le groupe North"), "{mail:?}");
        assert!(outbox(app, "admin@example.com").await.iter().all(|m| m["subject"] != "Vous gérez désormais le groupe North"));

        // Employment.team and teamId.
        let body = app.as_user(&admin, EMPLOYMENTS, json!({ "c": company })).await;
        for employment in body["data"]["company"]["employments"].as_array().unwrap() {
            if employment["userId"] == worker.id {
                assert_eq!(employment["teamId"], team_id);
                assert_eq!(employment["team"], json!({ "id": team_id, "name": "North" }));
            } else {
                assert!(employment["teamId"].is_null() && employment["team"].is_null(), "{employment}");
            }
        }
        // Any worker of the company reads its teams; a stranger does not.
        let body = app.as_user(&other_worker, TEAMS, json!({ "c": company })).await;
        assert_eq!(body["data"]["company"]["teams"][0]["users"], json!([{ "id": worker.id }]));
        let body = app.as_user(&outsider, TEAMS, json!({ "c": company })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);

        // Only an admin of the company changes its teams; unknown and foreign teams look alike.
        let before = stored(app, company).await;
        let attempts: Vec<(&TestUser, String, Value)> = vec![
            (&worker, create_team(), json!({ "c": company, "n": "Mine" })),
            (&outsider, create_team(), json!({ "c": company, "n": "Mine" })),
            (&worker, update_team(), json!({ "t": team_id, "n": "Mine" })),
            (&outsider, update_team(), json!({ "t": team_id, "n": "Mine" })),
            (&admin, update_team(), json!({ "t": 123_456_789, "n": "Mine" })),
            (&outsider, DELETE_TEAM.to_string(), json!({ "t": team_id })),
            (&worker, DELETE_TEAM.to_string(), json!({ "t": team_id })),
        ];
        for (who, query, variables) in attempts {
            let body = app.as_user(who, &query, variables.clone()).await;
            assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{variables}: {body}");
        }
        for name in ["", "   ", &"x".repeat(256)] {
            let body = app.as_user(&admin, &create_team(), json!({ "c": company, "n": name })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{name:?}");
            let body = app.as_user(&admin, &update_team(), json!({ "t": team_id, "n": name })).await;
            assert_eq!(codes(&body), ["INVALID_INPUTS"], "{name:?}");
        }
        assert_eq!(stored(app, company).await, before, "nothing changed");

        // Replaced whole: what is left out goes.
        let body = app.as_user(&admin, &update_team(), json!({ "t": team_id, "n": "South", "u": [other_worker.id], "a": [admin.id] })).await;
        assert!(body["errors"].is_null(), "{body}");
        let team = &body["data"]["teams"]["updateTeam"]["teams"][0];
        assert_eq!(team["name"], "South");
        assert_eq!(ids(&team["adminUsers"]), [admin.id]);
        assert_eq!(ids(&team["users"]), [other_worker.id]);
        assert_eq!(team["vehicles"], json!([]));
        let mail = outbox(app, "second@example.com").await;
        assert!(mail.iter().any(|m| m["subject"] == "Vous ne gérez plus le groupe South"), "{mail:?}");
        let (_, employments) = stored(app, company).await;
        assert_eq!(employments.iter().filter(|(_, team)| *team == Some(team_id)).count(), 1);

        // A second team; deleting one keeps the workers employed, out of any team.
        let body = app.as_user(&admin, &create_team(), json!({ "c": company, "n": "East" })).await;
        assert_eq!(body["data"]["teams"]["createTeam"]["teams"].as_array().unwrap().len(), 2);
        let body = app.as_user(&admin, DELETE_TEAM, json!({ "t": team_id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let teams = body["data"]["teams"]["deleteTeam"]["teams"].as_array().unwrap();
        assert_eq!(teams.len(), 1);
        assert_ne!(teams[0]["id"], team_id);
        let (stored_teams, employments) = stored(app, company).await;
        assert!(!stored_teams.contains(&team_id));
        assert_eq!(employments.len(), 4, "everyone is still employed");
        assert!(employments.iter().all(|(_, team)| team.is_none()), "{employments:?}");
        let (links,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM team_admin_users WHERE team_id = $1")
            .bind(team_id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(links, 0);
        let body = app.as_user(&admin, DELETE_TEAM, json!({ "t": team_id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "a deleted team is unknown");
    }

    async fn workers_change_teams(app) {
        let Crew { admin, second_admin, worker, other_worker, company } = crew(app).await;
        let outsider = app.new_user("outsider@example.com").await;
        let elsewhere = app.new_company(&outsider, "Elsewhere").await;
        let a = new_team(app, &admin, company, "A").await;
        let b = new_team(app, &admin, company, "B").await;
        let foreign = new_team(app, &outsider, elsewhere, "X").await;
        let team_of = |user: i64| teams_of(app, company, user);

        // By user: every employment of the user in the company.
        let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "u": worker.id, "t": a })).await;
        assert_eq!(body["data"]["employments"]["changeEmployeeTeam"]["id"], company, "{body}");
        assert_eq!(team_of(worker.id).await, [Some(a)]);
        // A team of another company, or unknown, is ignored: nothing changes.
        for t in [foreign, 123_456_789] {
            let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "u": worker.id, "t": t })).await;
            assert!(body["errors"].is_null(), "{body}");
            assert_eq!(team_of(worker.id).await, [Some(a)]);
        }
        // By employment.
        let body = app.as_user(&admin, EMPLOYMENTS, json!({ "c": company })).await;
        let employment = body["data"]["company"]["employments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["userId"] == other_worker.id)
            .unwrap()["id"]
            .as_i64()
            .unwrap();
        let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "e": employment, "t": b })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(team_of(other_worker.id).await, [Some(b)]);
        // Null: out of any team.
        let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "u": worker.id, "t": null })).await;
        assert!(body["errors"].is_null(), "{body}");
        assert_eq!(team_of(worker.id).await, [None]);

        // Errors, nothing changed.
        let before = stored(app, company).await;
        let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "t": a })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "u": worker.id, "e": employment, "t": a })).await;
        assert_eq!(codes(&body), ["INVALID_INPUTS"]);
        let body = app.as_user(&worker, CHANGE_TEAM, json!({ "c": company, "u": worker.id, "t": a })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        let body = app.as_user(&outsider, CHANGE_TEAM, json!({ "c": company, "u": worker.id, "t": a })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        // An employment of another company, through the admin's own company id.
        let (outsider_employment,): (i64,) = sqlx::query_as("SELECT id FROM employments WHERE company_id = $1")
            .bind(elsewhere)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, CHANGE_TEAM, json!({ "c": company, "e": outsider_employment, "t": a })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        assert_eq!(stored(app, company).await, before, "nothing changed");

        // createEmployment(teamId): the company's team is kept, another company's ignored.
        let newcomer = app.new_user("newcomer@example.com").await;
        let body = app.employ(&admin, company, newcomer.id, &format!(", teamId: {foreign}")).await;
        let ignored = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let (team,): (Option<i64>,) = sqlx::query_as("SELECT team_id FROM employments WHERE id = $1")
            .bind(ignored)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(team, None);
        let body = app.as_user(&admin, "mutation($e: Int!) { employments { cancelEmployment(employmentId: $e) { success } } }", json!({ "e": ignored })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&admin, "mutation($c: Int!, $u: Int!, $t: Int) { employments { createEmployment(companyId: $c, userId: $u, teamId: $t) { id teamId team { name } } } }", json!({ "c": company, "u": newcomer.id, "t": a })).await;
        assert_eq!(body["data"]["employments"]["createEmployment"]["teamId"], a, "{body}");
        assert_eq!(body["data"]["employments"]["createEmployment"]["team"]["name"], "A");

        // Accepting an employment that names a team moves all the user's employments of the
        // company into it (here: the cancelled one too, as the reference re-binds them all).
        let accepted = body["data"]["employments"]["createEmployment"]["id"].as_i64().unwrap();
        let body = app.as_user(&newcomer, VALIDATE, json!({ "e": accepted })).await;
        assert!(body["errors"].is_null(), "{body}");
        let teams: Vec<(Option<i64>,)> = sqlx::query_as("SELECT team_id FROM employments WHERE user_id = $1 AND company_id = $2")
            .bind(newcomer.id)
            .bind(company)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(teams, [(Some(a),), (Some(a),)]);

        // An admin who loses admin rights no longer manages the company's teams.
        let body = app.as_user(&admin, &update_team(), json!({ "t": b, "n": "B", "a": [second_admin.id] })).await;
        assert_eq!(ids(&body["data"]["teams"]["updateTeam"]["teams"].as_array().unwrap().iter().find(|t| t["id"] == b).unwrap()["adminUsers"]), [second_admin.id]);
        let (second_employment,): (i64,) = sqlx::query_as("SELECT id FROM employments WHERE user_id = $1 AND company_id = $2")
            .bind(second_admin.id)
            .bind(company)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        let body = app.as_user(&admin, ROLE, json!({ "e": second_employment, "a": false })).await;
        assert!(body["errors"].is_null(), "{body}");
        let (links,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM team_admin_users WHERE user_id = $1")
            .bind(second_admin.id)
            .fetch_one(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(links, 0);
    }

    async fn the_recap_filters_by_team(app) {
        let c = regulated_company(app).await;
        let d = day(8);
        let long = mission(app, &c.worker, c.id, &[("drive", d + 5 * 3600, d + 18 * 3600)]).await;
        validate(app, &c.worker, long, &c.worker).await;
        validate(app, &c.admin, long, &c.worker).await;
        let body = app.as_user(&c.admin, &create_team(), json!({ "c": c.id, "n": "Drivers", "u": [c.worker.id] })).await;
        let drivers = body["data"]["teams"]["createTeam"]["teams"][0]["id"].as_i64().unwrap();
        let body = app.as_user(&c.admin, &create_team(), json!({ "c": c.id, "n": "Office" })).await;
        let office = body["data"]["teams"]["createTeam"]["teams"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Office")
            .unwrap_or_else(|| panic!("{body}"))["id"]
            .as_i64()
            .unwrap();
        let month = crate::regulation::date(d)[..7].to_string();
        let recap = "query($c: Int!, $m: ShortMonth!, $u: Int, $t: Int) { company(id: $c) { regulatoryAlertsRecap(month: $m, uniqueUserId: $u, teamId: $t) { hasAnyComputation totalNbAlerts } } }";
        // The team of the worker: their alerts; the other team: no one; an unknown team: no one.
        let body = app.as_user(&c.admin, recap, json!({ "c": c.id, "m": month, "t": drivers })).await;
        let summary = &body["data"]["company"]["regulatoryAlertsRecap"];
        assert_eq!(summary["hasAnyComputation"], true, "{body}");
        assert!(summary["totalNbAlerts"].as_i64().unwrap() > 0);
        let all = app.as_user(&c.admin, recap, json!({ "c": c.id, "m": month })).await;
        assert_eq!(all["data"]["company"]["regulatoryAlertsRecap"], *summary);
        for team in [office, 123_456_789] {
            let body = app.as_user(&c.admin, recap, json!({ "c": c.id, "m": month, "t": team })).await;
            assert_eq!(body["data"]["company"]["regulatoryAlertsRecap"], json!({ "hasAnyComputation": false, "totalNbAlerts": 0 }), "{body}");
        }
        // uniqueUserId must be a current worker of the team.
        let body = app.as_user(&c.admin, recap, json!({ "c": c.id, "m": month, "t": drivers, "u": c.worker.id })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&c.admin, recap, json!({ "c": c.id, "m": month, "t": office, "u": c.worker.id })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"]);
        // Teams do not restrict the admin's other reads.
        let body = app.as_user(&c.admin, "query($c: Int!) { company(id: $c) { adminRegulationComputationsByUserAndByDay { userId } } }", json!({ "c": c.id })).await;
        assert!(body["data"]["company"]["adminRegulationComputationsByUserAndByDay"].as_array().unwrap().iter().any(|r| r["userId"] == c.worker.id));
    }
}
