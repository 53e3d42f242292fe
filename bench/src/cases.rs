//! The cases: what each sends, to which server, what it is compared with and what it must reach
//! (the goals, `bench/README.md`). Read cases are one fixed request each; the write cases
//! build their requests in Lua so that every write is a distinct, valid activity of one of the 32
//! writers (each wrk thread owns half of them, each write a new minute of its writer's mission).

use serde_json::json;

use crate::seed::{ANCHOR, Fixture, WRITES_FROM};
use crate::wrk::Requests;

/// Which server a case runs against.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Floor,
    Roadlog,
}

/// What a case must reach.
#[derive(Clone, Copy, Debug)]
pub enum Goal {
    /// Throughput at least this fraction of the baseline's.
    Ratio(f64),
    /// At least this many requests a second (SQLite, PostgreSQL) and a p99 under this many ms.
    Writes { sqlite: f64, postgres: f64, p99_ms: f64 },
    /// No error and a p99 under this many ms.
    Latency { p99_ms: f64 },
    /// One request at a time: at least this many a second and a p50 under this many ms.
    Sequential { per_second: f64, p50_ms: f64 },
}

pub struct Case {
    pub name: &'static str,
    pub what: &'static str,
    pub side: Side,
    pub requests: Requests,
    pub connections: u32,
    /// Checked on every response when set (see `wrk::Load::check_status`).
    pub check_status: Option<u16>,
    /// The case this one is compared with (a floor case, or a case of the same server).
    pub baseline: Option<&'static str>,
    pub goal: Option<Goal>,
    /// The in-memory floor case answering a page of this case's shape (same fields, nesting and
    /// item counts), when it has one: the executor's own ceiling for such an answer.
    pub shape: Option<&'static str>,
}

fn graphql(query: &str, token: Option<&str>) -> Requests {
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(token) = token {
        headers.push(("Authorization".to_string(), format!("Bearer {token}")));
    }
    Requests::Fixed {
        method: "POST",
        path: "/api/graphql".into(),
        headers,
        body: json!({ "query": query }).to_string(),
    }
}

/// The same request as `graphql`, its answer asked compressed (`Accept-Encoding: coding`).
fn compressed(query: &str, token: &str, coding: &str) -> Requests {
    let mut request = graphql(query, Some(token));
    if let Requests::Fixed { headers, .. } = &mut request {
        headers.push(("Accept-Encoding".to_string(), coding.to_string()));
    }
    request
}

/// A read case against another case of the same server, without a goal: what a variant of
/// that request costs or saves.
fn variant(name: &'static str, what: &'static str, request: Requests, baseline: &'static str) -> Case {
    against(name, what, request, baseline, None, None)
}

fn read(
    name: &'static str,
    what: &'static str,
    request: Requests,
    baseline: &'static str,
    goal: Goal,
    shape: Option<&'static str>,
) -> Case {
    against(name, what, request, baseline, Some(goal), shape)
}

/// A read case of Roadlog's, 32 connections, measured against `baseline`.
fn against(
    name: &'static str,
    what: &'static str,
    request: Requests,
    baseline: &'static str,
    goal: Option<Goal>,
    shape: Option<&'static str>,
) -> Case {
    Case {
        name,
        what,
        side: Side::Roadlog,
        requests: request,
        connections: 32,
        check_status: None,
        baseline: Some(baseline),
        goal,
        shape,
    }
}

/// The in-memory floor's cases: `{ hello }`, the 50-item list, and a page of each richer read
/// case's shape (`shaped`: the same selection and item counts as the seeded answer, from memory),
/// the latter against the list, which shows what the executor alone allows such an answer.
pub fn floor() -> Vec<Case> {
    let case = |name, what, query: &str, baseline| Case {
        name,
        what,
        side: Side::Floor,
        requests: graphql(query, None),
        connections: 32,
        check_status: None,
        baseline,
        goal: None,
        shape: None,
    };
    let month = format!(
        "{{ shaped(first: {MONTH_MISSIONS}, activities: 6, expenditures: 1, comments: 1, validations: 2) \
         {{ edges {{ node {{ {MONTH_FIELDS} }} }} }} }}"
    );
    vec![
        case("floor_hello", "floor: { hello }", "{ hello }", None),
        case(
            "floor_list",
            "floor: 50 items { id name }",
            "{ list(count: 50) { id name } }",
            None,
        ),
        case(
            SHAPE_NESTED,
            "floor: missions50_activities' shape",
            "{ shaped(first: 50, activities: 2) { edges { node { id name activities { id type startTime endTime } } } } }",
            Some("floor_list"),
        ),
        case(SHAPE_MONTH, "floor: the month's shape", &month, Some("floor_list")),
        case(
            SHAPE_COMPANY,
            "floor: company50's shape",
            "{ shaped(first: 50, activities: 6) { edges { node { id name activities { id type startTime endTime user { id firstName lastName } } } } } }",
            Some("floor_list"),
        ),
        // The mixed case's load on the executor alone: at 64 connections, four requests in five
        // the month's shape, the fifth `{ hello }` in place of a write (cheaper than any write).
        // Its p99 is the least the mixed case's can be on this stack and machine.
        Case {
            name: SHAPE_MIXED,
            what: "floor: mixed's shape, 64 conns",
            side: Side::Floor,
            requests: Requests::Scripted(alternating_lua(
                MIXED_READ_EVERY,
                &json!({ "query": month }).to_string(),
                &json!({ "query": "{ hello }" }).to_string(),
            )),
            connections: 64,
            check_status: Some(200),
            baseline: None,
            goal: None,
            shape: None,
        },
    ]
}

/// Lua sending `other` as every `every`-th request and `main` otherwise.
fn alternating_lua(every: u32, main: &str, other: &str) -> String {
    let literal = |body: &str| serde_json::to_string(body).expect("a string serializes");
    format!(
        "local n = 0\nlocal every = {every}\nlocal main_body = {}\nlocal other_body = {}\n\
         local headers = {{ [\"Content-Type\"] = \"application/json\" }}\n\
         function request()\n\
           n = n + 1\n\
           if n % every ~= 0 then\n\
             return wrk.format(\"POST\", \"/api/graphql\", headers, main_body)\n\
           end\n\
           return wrk.format(\"POST\", \"/api/graphql\", headers, other_body)\n\
         end\n",
        literal(main),
        literal(other)
    )
}

/// The mixed cases send one write (or its stand-in) every this many requests, reads otherwise.
const MIXED_READ_EVERY: u32 = 5;

/// The in-memory pages shaped as Roadlog's richer read cases (see [`floor`]).
const SHAPE_NESTED: &str = "floor_shape_nested";
const SHAPE_MONTH: &str = "floor_shape_month";
const SHAPE_COMPANY: &str = "floor_shape_company";
const SHAPE_MIXED: &str = "floor_shape_mixed";

/// Missions in the month case's answer: one a day of the seeded month's 30.
const MONTH_MISSIONS: usize = 30;

/// The dressed floor's case (`floor.rs`, `--dressed`): `{ hello }` through Roadlog's listener
/// and middleware, against the bare `{ hello }`; `typename` is measured against it too.
pub const FLOOR_DRESSED: &str = "floor_dressed_hello";

pub fn floor_dressed() -> Vec<Case> {
    vec![Case {
        name: FLOOR_DRESSED,
        what: "floor + Roadlog's middleware: { hello }",
        side: Side::Floor,
        requests: graphql("{ hello }", None),
        connections: 32,
        check_status: None,
        baseline: Some("floor_hello"),
        goal: None,
        shape: None,
    }]
}

/// The database floor's case: the request of Roadlog's `missions50`, with the floor's token,
/// answered by the floor from its database (two statements through the native driver).
pub const FLOOR_DATABASE: &str = "floor_db_missions50";

pub fn floor_database() -> Vec<Case> {
    vec![Case {
        name: FLOOR_DATABASE,
        what: "floor + database: 50 missions { id name }",
        side: Side::Floor,
        requests: graphql(MISSIONS50, Some("floor-token")),
        connections: 32,
        check_status: None,
        baseline: Some("floor_list"),
        goal: None,
        shape: None,
    }]
}

/// A worker's 50 latest missions, as the reference's clients list them.
const MISSIONS50: &str = "{ me { missions(first: 50) { edges { node { id name } } } } }";

const MONTH_FIELDS: &str = "id name receptionTime submitterId isEndedForSelf \
    vehicle { id registrationNumber name } \
    activities { id type startTime endTime userId submitterId lastUpdateTime } \
    expenditures { id type spendingDate userId } \
    comments { id text submitterId receptionTime } \
    validations { id userId isAdmin receptionTime }";

/// The veteran's 50 latest missions with their activities (`missions50_activities`, and the
/// page of `nested_after_writes`).
pub fn nested_page(fixture: &Fixture) -> Requests {
    graphql(
        "{ me { missions(first: 50) { edges { node { id name activities { id type startTime endTime } } } } } }",
        Some(&fixture.history_token),
    )
}

/// Lua for the write cases: writer `w` of thread `tid` writes one minute after its last, from a
/// day of its own for this run (`slot`), so no two writes overlap and no run meets another's.
fn writes_lua(fixture: &Fixture, slot: i64, read_every: Option<(u32, &str)>) -> String {
    let writers: Vec<String> = fixture
        .writers
        .iter()
        .map(|(token, mission)| format!("{{\"Bearer {token}\", {mission}}}"))
        .collect();
    let base = WRITES_FROM + slot * 2 * 86_400;
    let mut lua = format!(
        "local writers = {{ {} }}\nlocal base = {base}\nlocal n = 0\nlocal next_minute = {{}}\n",
        writers.join(", ")
    );
    if let Some((every, body)) = read_every {
        lua.push_str(&format!(
            "local read_every = {every}\nlocal read_body = {}\nlocal read_headers = {{ [\"Content-Type\"] = \"application/json\", [\"Authorization\"] = \"Bearer {}\" }}\n",
            serde_json::to_string(body).expect("a string serializes"),
            fixture.worker_token
        ));
    }
    lua.push_str(
        "function request()\n\
           n = n + 1\n",
    );
    if read_every.is_some() {
        lua.push_str(
            "  if n % read_every ~= 0 then\n\
                 return wrk.format(\"POST\", \"/api/graphql\", read_headers, read_body)\n\
               end\n",
        );
    }
    lua.push_str(
        "  local half = #writers / 2\n\
           local w = tid * half + (n % half) + 1\n\
           local minute = (next_minute[w] or 0)\n\
           next_minute[w] = minute + 1\n\
           local start = base + minute * 60\n\
           local body = string.format('{\"query\":\"mutation { activities { logActivity(missionId: %d, type: \\\\\"drive\\\\\", startTime: %d, endTime: %d, switch: false) { id } } }\"}', writers[w][2], start, start + 60)\n\
           return wrk.format(\"POST\", \"/api/graphql\", { [\"Content-Type\"] = \"application/json\", [\"Authorization\"] = writers[w][1] }, body)\n\
         end\n",
    );
    lua
}

/// Roadlog's cases on a seeded database. `deep_cursor` points deep into the veteran's history;
/// `slot` numbers this run so the write cases never write the same minutes twice.
pub fn roadlog(fixture: &Fixture, deep_cursor: &str, slot: i64) -> Vec<Case> {
    let month_from = ANCHOR - 30 * 86_400;
    let month = format!(
        "{{ me {{ missions(fromTime: {month_from}, untilTime: {ANCHOR}, first: 50) {{ edges {{ node {{ {MONTH_FIELDS} }} }} }} }} }}"
    );
    let company = format!(
        "{{ company(id: {}) {{ missions(first: 50) {{ edges {{ node {{ id name activities {{ id type startTime endTime user {{ id firstName lastName }} }} }} }} }} }} }}",
        fixture.company_id
    );
    // The month before the anchor: the seeded days were validated, so their alerts are stored.
    let last_month = chrono::DateTime::from_timestamp(ANCHOR - 86_400, 0)
        .expect("the anchor is a valid time")
        .format("%Y-%m");
    let recap = format!(
        "{{ company(id: {}) {{ regulatoryAlertsRecap(month: \"{last_month}\") {{ month totalNbAlerts totalNbAlertsPreviousMonth \
         dailyAlerts {{ alertsType nbAlerts days }} weeklyAlerts {{ alertsType nbAlerts days }} }} }} }}",
        fixture.company_id
    );
    let deep = format!(
        "{{ me {{ missions(first: 50, after: {}) {{ edges {{ node {{ id name }} }} }} }} }}",
        serde_json::to_string(deep_cursor).expect("a string serializes")
    );
    let token_form = format!(
        "grant_type=authorization_code&code=not-a-code&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&client_id={}&client_secret={}",
        fixture.client_id, fixture.client_secret
    );
    let veteran = Some(fixture.history_token.as_str());
    vec![
        read(
            "typename",
            "{ __typename }",
            graphql("{ __typename }", None),
            "floor_hello",
            Goal::Ratio(0.90),
            Some(FLOOR_DRESSED),
        ),
        read(
            "missions50",
            "worker's 50 missions { id name }",
            graphql(MISSIONS50, veteran),
            "floor_list",
            Goal::Ratio(0.50),
            None,
        ),
        read(
            "missions50_activities",
            "the same, 6 activities nested each",
            nested_page(fixture),
            "floor_list",
            Goal::Ratio(0.25),
            Some(SHAPE_NESTED),
        ),
        read(
            "month",
            "one worker's month, every field",
            graphql(&month, Some(&fixture.worker_token)),
            "floor_list",
            Goal::Ratio(0.15),
            Some(SHAPE_MONTH),
        ),
        // Compression (item 7 of the performance issue sets no goal: it asks for throughput
        // with and without). The month is the largest read answer; `bytes/resp` shows the saving.
        variant(
            "month_gzip",
            "the month, gzip (Accept-Encoding)",
            compressed(&month, &fixture.worker_token, "gzip"),
            "month",
        ),
        variant(
            "month_br",
            "the month, brotli (Accept-Encoding)",
            compressed(&month, &fixture.worker_token, "br"),
            "month",
        ),
        read(
            "company50",
            "admin: company's 50 missions + workers",
            graphql(&company, Some(&fixture.admin_token)),
            "floor_list",
            Goal::Ratio(0.20),
            Some(SHAPE_COMPANY),
        ),
        read(
            "recap",
            "admin: regulatory alerts recap, 1 month",
            graphql(&recap, Some(&fixture.admin_token)),
            "floor_list",
            Goal::Ratio(0.10),
            None,
        ),
        read(
            "deep_page",
            "a page deep in the history",
            graphql(&deep, veteran),
            "missions50",
            Goal::Ratio(1.0 / 1.2),
            None,
        ),
        Case {
            name: "token",
            what: "token endpoint, valid client, wrong code",
            side: Side::Roadlog,
            requests: Requests::Fixed {
                method: "POST",
                path: "/api/oauth/token".into(),
                headers: vec![("Content-Type".into(), "application/x-www-form-urlencoded".into())],
                body: token_form,
            },
            connections: 32,
            check_status: Some(400),
            baseline: Some("floor_hello"),
            goal: Some(Goal::Ratio(0.30)),
            shape: None,
        },
        Case {
            name: "log_activity",
            what: "logActivity, 32 connections, 32 workers",
            side: Side::Roadlog,
            requests: Requests::Scripted(writes_lua(fixture, slot * 3, None)),
            connections: 32,
            check_status: Some(200),
            baseline: None,
            goal: Some(Goal::Writes {
                sqlite: 500.0,
                postgres: 1000.0,
                p99_ms: 50.0,
            }),
            shape: None,
        },
        Case {
            name: "log_activity_seq",
            what: "logActivity, one connection, one at a time",
            side: Side::Roadlog,
            requests: Requests::Scripted(writes_lua(fixture, slot * 3 + 2, None)),
            connections: 1,
            check_status: Some(200),
            baseline: None,
            goal: Some(Goal::Sequential {
                per_second: 500.0,
                p50_ms: 2.0,
            }),
            shape: None,
        },
        Case {
            name: "mixed",
            what: "mixed: 4 month reads to 1 write, 64 conns",
            side: Side::Roadlog,
            requests: Requests::Scripted(writes_lua(
                fixture,
                slot * 3 + 1,
                Some((MIXED_READ_EVERY, &json!({ "query": month }).to_string())),
            )),
            connections: 64,
            check_status: Some(200),
            baseline: None,
            goal: Some(Goal::Latency { p99_ms: 100.0 }),
            shape: Some(SHAPE_MIXED),
        },
    ]
}
