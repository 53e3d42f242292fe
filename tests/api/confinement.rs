//! Confinement of an employment token, by construction (issue 43 item 3), on both databases.
//! Bob works for the vendor's company (A) and for another one (B), with missions, regulation
//! computations and notifications in both, and has authorized another OAuth application besides
//! the vendor. Walking every field reachable from `me`, `user(id)` and `company(id)` — and the
//! vendor schema's `employmentToken` — as the SDL lists them today, with the vendor's
//! employment token, shows nothing of B nor of the other application; every mutation aimed at
//! B's objects is refused and changes nothing of B. The lists that span Bob's companies answer
//! for A only.

use serde_json::{Value, json};

use crate::employment_tokens::{Headers, Journey, LOG_ENDED, call, journey, minutes_ago, token_for};
use crate::support::walk::{self, Input, Schema};
use crate::support::{TestApp, codes};
use crate::vendors::protected;

const VALIDATE: &str =
    "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }";
const CREATE_NAMED: &str =
    "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour A\") { id } } }";
const OTHER_APPLICATION: &str = "Secret Diary";
const BOB_STATE: &str = "{ me { email firstName lastName notifications { id read } authorizedClients { id } \
    employments(includePending: true) { id companyId hasAdminRights validationStatus endDate teamId hideEmail } \
    missions(includeDeletedMissions: true) { edges { node { id name companyId validations { userId } activities { id type startTime endTime } } } } } }";

/// The journey, with what spans Bob's two companies.
struct Cast {
    j: Journey,
    token: String,
    /// Bob's mission in A, validated three weeks ago.
    a_mission: i64,
    a_employment: i64,
    b_employment: i64,
    b_activity: i64,
    a_notification: i64,
    b_notification: i64,
    /// The other application, and its token for Bob.
    diary: i64,
    diary_token: String,
    /// A day of Bob's computations in A and one in B.
    a_day: String,
    b_day: String,
}

async fn one_id(app: &TestApp, sql: &str, binds: &[i64]) -> i64 {
    let mut query = sqlx::query_as::<_, (i64,)>(sqlx::AssertSqlSafe(sql.to_string()));
    for b in binds {
        query = query.bind(*b);
    }
    query.fetch_one(&app.server.db.pool).await.unwrap().0
}

async fn notify(app: &TestApp, user: i64, mission: i64) -> i64 {
    let data = json!({ "mission_id": mission, "mission_start_date": "2026-01-01" }).to_string();
    sqlx::query("INSERT INTO notifications (user_id, type, read, data, creation_time) VALUES ($1, 'mission_auto_validation', 0, $2, $3)")
        .bind(user)
        .bind(data)
        .bind(chrono::Utc::now().timestamp())
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    one_id(app, "SELECT MAX(id) FROM notifications", &[]).await
}

async fn cast(app: &TestApp) -> Cast {
    let j = journey(app).await;
    let token = token_for(app, &j.payroll, j.bob_employment).await;
    let as_vendor = Headers {
        client: Some(&j.client),
        token: Some(&token),
        bearer: None,
    };
    // Bob validates his time in B himself (today's computation reads it)...
    let body = app
        .as_user(&j.bob, VALIDATE, json!({ "m": j.other_mission, "u": [j.bob.id] }))
        .await;
    assert!(body["errors"].is_null(), "{body}");
    // ... and, through the vendor, a mission in A three weeks ago (far from B's time).
    let body = call(app, &as_vendor, CREATE_NAMED, json!({ "c": j.company })).await;
    let a_mission = body["data"]["activities"]["createMission"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{body}"));
    let start = minutes_ago(21 * 24 * 60 + 600);
    let body = call(
        app,
        &as_vendor,
        LOG_ENDED,
        json!({ "m": a_mission, "s": start, "e": start + 3600 }),
    )
    .await;
    assert!(body["errors"].is_null(), "{body}");
    let body = call(app, &as_vendor, VALIDATE, json!({ "m": a_mission, "u": [j.bob.id] })).await;
    assert!(body["errors"].is_null(), "{body}");
    // Bob's computations (his own in B, an admin's in A, where he is one): the earliest day is
    // of A's mission, the latest of B's.
    let days: Vec<(String,)> =
        sqlx::query_as("SELECT day FROM regulation_computations WHERE user_id = $1 ORDER BY day")
            .bind(j.bob.id)
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
    let (a_day, b_day) = match (days.first(), days.last()) {
        (Some(a), Some(b)) if a.0 < b.0 => (a.0.clone(), b.0.clone()),
        _ => panic!("computations of both missions: {days:?}"),
    };
    let a_employment = j.bob_employment;
    let b_employment = one_id(
        app,
        "SELECT id FROM employments WHERE company_id = $1 AND user_id = $2",
        &[j.other, j.bob.id],
    )
    .await;
    let b_activity = one_id(
        app,
        "SELECT id FROM activities WHERE mission_id = $1",
        &[j.other_mission],
    )
    .await;
    let a_notification = notify(app, j.bob.id, a_mission).await;
    let b_notification = notify(app, j.bob.id, j.other_mission).await;
    // Bob authorized another application, and the vendor's own client holds an OAuth token too.
    let env = roadlog::config::Environment::Sandbox;
    let created = roadlog::oauth::clients::create(
        &app.server.db,
        env,
        OTHER_APPLICATION,
        &["https://diary.example.com/cb".into()],
    )
    .await
    .unwrap();
    let diary: i64 = created.client_id.parse().unwrap();
    let diary_token = roadlog::domain::auth::oauth_tokens::issue(&app.server.db, diary, j.bob.id, None)
        .await
        .unwrap();
    roadlog::domain::auth::oauth_tokens::issue(&app.server.db, j.payroll.0, j.bob.id, None)
        .await
        .unwrap();
    Cast {
        j,
        token,
        a_mission,
        a_employment,
        b_employment,
        b_activity,
        a_notification,
        b_notification,
        diary,
        diary_token,
        a_day,
        b_day,
    }
}

impl Cast {
    fn vendor(&self) -> Headers<'_> {
        Headers {
            client: Some(&self.j.client),
            token: Some(&self.token),
            bearer: None,
        }
    }

    /// What belongs to B or to the other application: `(__typename, id)`.
    fn foreign_objects(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("Company", self.j.other),
            ("Mission", self.j.other_mission),
            ("Activity", self.b_activity),
            ("Employment", self.b_employment),
            ("User", self.j.other_admin.id),
            ("Notification", self.b_notification),
            ("OAuth2Client", self.diary),
        ]
    }

    /// Strings that belong to B or to the other application.
    fn foreign_strings(&self) -> Vec<String> {
        vec![
            "Other Co".into(),
            self.j.other_admin.email.clone(),
            OTHER_APPLICATION.into(),
            format!("\"mission_id\": {}", self.j.other_mission),
            format!("\"mission_id\":{}", self.j.other_mission),
        ]
    }

    /// Arguments of the read walk: Bob, A and A's objects.
    fn a_value(&self, owner: &str, field: &str, arg: &Input) -> Option<String> {
        let id = match (arg.name.as_str(), owner, field) {
            ("id", _, "company") | ("companyId", _, _) => self.j.company,
            ("id", _, "user") | ("userId", _, _) => self.j.bob.id,
            ("id", _, "mission") | ("missionId", _, _) => self.a_mission,
            ("employmentId", _, _) => self.a_employment,
            ("clientId", _, _) => self.j.payroll.0,
            _ => return None,
        };
        (walk::named(&arg.ty) == "Int").then(|| id.to_string())
    }

    /// Arguments of the mutation walk: B's objects (and the other application) by name, other
    /// values by type.
    fn b_value(&self, schema: &Schema, arg: &Input) -> Option<String> {
        let b = match arg.name.as_str() {
            "companyId" => Some(self.j.other),
            "missionId" => Some(self.j.other_mission),
            "activityId" | "currentActivityId" => Some(self.b_activity),
            "userId" | "usersIds" | "userIds" => Some(self.j.other_admin.id),
            "employmentId" | "employmentIds" => Some(self.b_employment),
            "clientId" => Some(self.diary),
            "notificationIds" => Some(self.b_notification),
            _ => None,
        };
        let scalar = |name: &str| -> Option<String> {
            Some(match name {
                "Int" => b.unwrap_or(999_999).to_string(),
                "Float" => "1.5".into(),
                "Boolean" => "false".into(),
                "TimeStamp" => minutes_ago(90).to_string(),
                "Date" => "\"2026-01-05\"".into(),
                "Email" => "\"nobody@example.com\"".into(),
                "ActivityTypeEnum" => "\"drive\"".into(),
                "SubmitterTypeEnum" => "\"employee\"".into(),
                "GenericScalar" | "JSONString" => "\"{}\"".into(),
                _ => "\"x\"".into(),
            })
        };
        schema.literal(&arg.ty, &scalar)
    }
}

/// The problems of an answer: B's objects and strings in it, and whether A's markers are there.
fn leaks(cast: &Cast, answer: &Value) -> Vec<String> {
    let (mut objects, mut strings) = (vec![], vec![]);
    walk::objects_and_strings(answer, &mut objects, &mut strings);
    let mut found = vec![];
    for (t, id) in cast.foreign_objects() {
        if objects.iter().any(|(ot, oid)| ot == t && *oid == id) {
            found.push(format!("{t} {id}"));
        }
    }
    for s in cast.foreign_strings() {
        if strings.iter().any(|text| text.contains(&s)) {
            found.push(s);
        }
    }
    found
}

/// Runs `document` with `headers` on `/api/graphql`; a document the guard refuses as too costly
/// answers `None` (the caller walks less deep).
async fn send(app: &TestApp, headers: &Headers<'_>, document: &str) -> Option<Value> {
    let (ok, body) = send_any(app, headers, document).await;
    ok.then_some(body)
}

/// Runs `document`; answers whether it executed (HTTP 200) and the body.
async fn send_any(app: &TestApp, headers: &Headers<'_>, document: &str) -> (bool, Value) {
    let request = headers.post(app, &json!({ "query": document }));
    let retry = request.try_clone().expect("a JSON request can be sent again");
    let mut response = request.send().await.unwrap();
    // The walk sends hundreds of documents with one vendor's token: past the vendor's rate it
    // waits as a well-behaved client does, so that only the guard's refusals count as refusals.
    if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
        let seconds: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
        response = retry.send().await.unwrap();
    }
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert!(
        status.is_success() || status == reqwest::StatusCode::BAD_REQUEST,
        "{status} for {document}: {body}"
    );
    (status.is_success(), body)
}

/// Every field of `root_type` under `root` (`me`, `user(id: …)`, …), one document per field, as
/// deep as the guard allows up to `DEPTH`; answers the answers and how many fields were asked.
async fn walk_root(
    app: &TestApp,
    schema: &Schema,
    headers: &Headers<'_>,
    root: &str,
    root_type: &str,
    fill: &walk::Fill<'_>,
) -> (Vec<Value>, usize) {
    const DEPTH: usize = 3;
    let (mut answers, mut asked) = (vec![], 0);
    for field in schema.fields(root_type) {
        let Some(call) = schema.call(root_type, field, fill) else {
            continue;
        };
        let inner = walk::named(&field.ty);
        let mut depth = DEPTH;
        loop {
            let mut count = 1;
            let selection = if schema.is_object(inner) {
                schema.selection(inner, depth, fill, &mut count)
            } else {
                String::new()
            };
            let document = format!("{{ {root} {{ __typename id {call} {selection} }} }}");
            if let Some(answer) = send(app, headers, &document).await {
                answers.push(answer);
                asked += count;
                break;
            }
            assert!(depth > 0, "the guard refuses even {document}");
            depth -= 1;
        }
    }
    (answers, asked)
}

on_both_backends! {
    async fn an_employment_token_reads_nothing_of_another_company(app) {
        let c = cast(app).await;
        let schema = Schema::parse(&std::fs::read_to_string("schema/roadlog.graphql").unwrap());
        let fill = |owner: &str, field: &str, arg: &Input| c.a_value(owner, field, arg);
        let roots = [
            ("me".to_string(), "User"),
            (format!("user(id: {})", c.j.bob.id), "User"),
            (format!("company(id: {})", c.j.company), "Company"),
        ];
        let (mut seen, mut asked) = (vec![], 0);
        for (root, root_type) in &roots {
            let (answers, n) = walk_root(app, &schema, &c.vendor(), root, root_type, &fill).await;
            for answer in &answers {
                assert_eq!(leaks(&c, answer), Vec::<String>::new(), "{root}: {answer}");
            }
            seen.extend(answers);
            asked += n;
        }
        // The walk is not vacuous: it asked hundreds of fields and met A's objects.
        assert!(asked > 300, "{asked} fields walked");
        let all = Value::Array(seen);
        let (mut objects, mut strings) = (vec![], vec![]);
        walk::objects_and_strings(&all, &mut objects, &mut strings);
        for marker in [("Company", c.j.company), ("Mission", c.a_mission), ("Notification", c.a_notification), ("OAuth2Client", c.j.payroll.0), ("Employment", c.a_employment)] {
            assert!(objects.iter().any(|(t, id)| t == marker.0 && *id == marker.1), "{marker:?} met in the walk");
        }
        // The same walk with Bob's login meets B: the markers above are reachable at all.
        let login = Headers { bearer: Some(&c.j.bob.token), ..Headers::default() };
        let (answers, _) = walk_root(app, &schema, &login, "me", "User", &fill).await;
        assert!(!leaks(&c, &Value::Array(answers)).is_empty(), "Bob's own login sees B");

        // The vendor schema, with the vendor's API key: the link to Bob's employment in A.
        let protected_schema = Schema::parse(&std::fs::read_to_string("schema/protected.graphql").unwrap());
        let vendor_fill = |owner: &str, field: &str, arg: &Input| c.a_value(owner, field, arg);
        let root = protected_schema.query_root().to_string();
        for field in protected_schema.fields(&root) {
            let Some(call) = protected_schema.call(&root, field, &vendor_fill) else { continue };
            let mut count = 0;
            let selection = protected_schema.selection(walk::named(&field.ty), 3, &vendor_fill, &mut count);
            // Fields that need a user answer AUTHORIZATION_ERROR to a vendor's API key; the
            // link itself is answered.
            let body = protected(app, &c.j.payroll, &format!("{{ {call} {selection} }}"), json!({})).await;
            assert_eq!(body["data"][&field.name]["employmentId"], c.a_employment, "{body}");
            assert_eq!(leaks(&c, &body), Vec::<String>::new(), "{call}: {body}");
        }
        // B's employment is not the vendor's to read.
        let query = format!("{{ employmentToken(clientId: {}, employmentId: {}) {{ id employment {{ id }} }} }}", c.j.payroll.0, c.b_employment);
        let body = protected(app, &c.j.payroll, &query, json!({})).await;
        assert_eq!(leaks(&c, &body), Vec::<String>::new(), "{body}");
        assert_eq!(body["data"]["employmentToken"], Value::Null, "{body}");
    }

    async fn an_employment_token_changes_nothing_of_another_company(app) {
        let c = cast(app).await;
        let schema = Schema::parse(&std::fs::read_to_string("schema/roadlog.graphql").unwrap());
        // B as its admin and Bob (with his login) read it, before and after.
        let snapshot = || async {
            let read = |fill_company: i64| move |_: &str, field: &str, arg: &Input| -> Option<String> {
                match (field, arg.name.as_str()) {
                    ("company", "id") => Some(fill_company.to_string()),
                    _ => None,
                }
            };
            let fill = read(c.j.other);
            let admin = Headers { bearer: Some(&c.j.other_admin.token), ..Headers::default() };
            let (b, _) = walk_root(app, &schema, &admin, &format!("company(id: {})", c.j.other), "Company", &fill).await;
            // Bob's own lists and his time (a walk of `me` would also meet A's audit trail,
            // which the vendor's calls extend).
            let mine = app.as_user(&c.j.bob, BOB_STATE, json!({})).await;
            // The data only: the order of a document's errors is not stable.
            let data: Vec<Value> = b.iter().map(|answer| answer["data"].clone()).collect();
            (data, mine["data"].clone())
        };
        let before = snapshot().await;
        let mutations = schema.mutations(&|_: &str, _: &str, arg: &Input| c.b_value(&schema, arg));
        assert!(mutations.len() > 40, "{} mutations", mutations.len());
        let mut aimed = 0;
        for (path, document) in &mutations {
            // Whether the document names one of B's objects.
            let names_b = [c.j.other, c.j.other_mission, c.b_activity, c.j.other_admin.id, c.b_employment, c.diary, c.b_notification]
                .iter()
                .any(|id| document.contains(&format!(": {id}")) || document.contains(&format!("[{id}]")));
            // A document refused before execution (an argument of the wrong form: HTTP 400)
            // changes nothing either.
            let (_, body) = send_any(app, &c.vendor(), document).await;
            if names_b {
                aimed += 1;
                assert!(body["errors"].as_array().is_some_and(|e| !e.is_empty()), "{path} acted on B: {document} → {body}");
            }
            assert_eq!(leaks(&c, &body), Vec::<String>::new(), "{path}: {body}");
        }
        assert!(aimed > 30, "{aimed} mutations aimed at B");
        let after = snapshot().await;
        assert_eq!(before, after, "B and Bob's own lists are unchanged");
        // The vendor's token still works, and the other application's too.
        let body = call(app, &c.vendor(), "{ me { id } }", json!({})).await;
        assert_eq!(body["data"]["me"]["id"], c.j.bob.id, "{body}");
        let (_, body) = app.graphql("{ me { id } }", json!({}), Some(&c.diary_token)).await;
        assert_eq!(body["data"]["me"]["id"], c.j.bob.id, "{body}");
    }

    async fn the_lists_spanning_companies_answer_for_the_token_company_only(app) {
        let c = cast(app).await;
        let vendor = c.vendor();
        let lists = "{ me { notifications { id } authorizedClients { id name } regulationComputationsByDay { day } employments { id authorizedClients { id } } } }";
        let body = call(app, &vendor, lists, json!({})).await;
        assert!(body["errors"].is_null(), "{body}");
        let me = &body["data"]["me"];
        assert_eq!(me["notifications"], json!([{ "id": c.a_notification }]), "{body}");
        assert_eq!(me["authorizedClients"], json!([{ "id": c.j.payroll.0, "name": "Payroll Plus" }]), "{body}");
        assert_eq!(me["employments"], json!([{ "id": c.a_employment, "authorizedClients": [{ "id": c.j.payroll.0 }] }]), "{body}");
        let days: Vec<&str> = me["regulationComputationsByDay"].as_array().unwrap().iter().map(|d| d["day"].as_str().unwrap()).collect();
        assert!(days.contains(&c.a_day.as_str()), "A's day {} in {days:?}", c.a_day);
        assert!(!days.contains(&c.b_day.as_str()), "B's day {} not in {days:?}", c.b_day);
        // Bob's login sees both companies' (the filter is the token's, not the data's).
        let body = app.as_user(&c.j.bob, lists, json!({})).await;
        let me = &body["data"]["me"];
        assert_eq!(me["notifications"].as_array().unwrap().len(), 2, "{body}");
        assert_eq!(me["authorizedClients"].as_array().unwrap().len(), 2, "{body}");
        let days: Vec<&str> = me["regulationComputationsByDay"].as_array().unwrap().iter().map(|d| d["day"].as_str().unwrap()).collect();
        assert!(days.contains(&c.a_day.as_str()) && days.contains(&c.b_day.as_str()), "{days:?}");

        // The other application cannot be revoked through the vendor, nor B's notification marked.
        let revoke = "mutation($c: Int!) { auth { revokeAuthorizedClient(clientId: $c) { success } } }";
        let body = call(app, &vendor, revoke, json!({ "c": c.diary })).await;
        assert_eq!(codes(&body), ["INVALID_RESOURCE"], "{body}");
        let (_, body) = app.graphql("{ me { id } }", json!({}), Some(&c.diary_token)).await;
        assert_eq!(body["data"]["me"]["id"], c.j.bob.id, "the other application still works: {body}");
        let mark = "mutation($n: [Int]!) { account { markNotificationsAsRead(notificationIds: $n) { id read } } }";
        let body = call(app, &vendor, mark, json!({ "n": [c.b_notification] })).await;
        assert_eq!(codes(&body), ["AUTHORIZATION_ERROR"], "{body}");
        let read = one_id(app, "SELECT read FROM notifications WHERE id = $1", &[c.b_notification]).await;
        assert_eq!(read, 0, "B's notification is still unread");
        let body = call(app, &vendor, mark, json!({ "n": [c.a_notification] })).await;
        assert_eq!(body["data"]["account"]["markNotificationsAsRead"], json!([{ "id": c.a_notification, "read": true }]), "{body}");
        // The vendor may withdraw its own OAuth authorization.
        let body = call(app, &vendor, revoke, json!({ "c": c.j.payroll.0 })).await;
        assert_eq!(body["data"]["auth"]["revokeAuthorizedClient"]["success"], true, "{body}");
        // An admin of A reading Bob through the token: his computations in A only, too.
        let query = format!("{{ user(id: {}) {{ regulationComputationsByDay {{ day }} }} }}", c.j.bob.id);
        let body = call(app, &vendor, &query, json!({})).await;
        let days = body["data"]["user"]["regulationComputationsByDay"].to_string();
        assert!(!days.contains(&c.b_day), "{body}");
    }
}
