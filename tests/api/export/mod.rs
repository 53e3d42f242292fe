//! The C1B export over HTTP, on both databases: every status (200, 401, 403, 404 with details),
//! every body option, and the round trip export → unzip → inspect: the activities recorded
//! through the API come back minute for minute, signatures verify, a flipped byte fails, and a
//! long period wraps the activity buffer correctly.

use std::io::Read;

use reqwest::StatusCode;
use roadlog::domain::export::c1b::{self, ActivityKind, SignatureStatus};
use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, codes};

mod card_keys;
mod sizes;

pub const HOUR: i64 = 3600;
pub const LOG: &str = "mutation($m: Int!, $t: ActivityTypeEnum!, $s: TimeStamp!, $e: TimeStamp) { activities { logActivity(missionId: $m, type: $t, startTime: $s, endTime: $e, switch: false) { id } } }";

pub fn day(days_ago: i64) -> i64 {
    (chrono::Utc::now().timestamp() / 86_400 - days_ago) * 86_400
}

pub fn date(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap()
        .format("%Y-%m-%d")
        .to_string()
}

pub struct Setup {
    pub admin: TestUser,
    pub worker: TestUser,
    pub company: i64,
    pub mission: i64,
}

/// A company with a driver (Élodie Müller) who worked two days, recorded through the API.
pub async fn setup(app: &TestApp) -> Setup {
    let (admin, worker, company) = crate::support::employments::elodie_at_transports_martin(app).await;
    sqlx::query("UPDATE employments SET start_date = '2020-01-01'")
        .execute(&app.server.db.pool)
        .await
        .unwrap();
    let body = app
        .as_user(&worker, "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Tour\", vehicleRegistrationNumber: \"AB-123-CD\") { id } } }", json!({ "c": company }))
        .await;
    let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
    for (kind, start, end) in recorded() {
        let body = app
            .as_user(&worker, LOG, json!({ "m": mission, "t": kind, "s": start, "e": end }))
            .await;
        assert!(body["errors"].is_null(), "{body}");
    }
    Setup {
        admin,
        worker,
        company,
        mission,
    }
}

/// What the worker recorded: two days, one of them with a break.
pub fn recorded() -> Vec<(&'static str, i64, i64)> {
    let (d1, d2) = (day(3), day(2));
    vec![
        ("drive", d1 + 6 * HOUR, d1 + 9 * HOUR + 15 * 60),
        ("work", d1 + 9 * HOUR + 15 * 60, d1 + 11 * HOUR),
        ("drive", d1 + 12 * HOUR, d1 + 15 * HOUR + 7 * 60),
        ("support", d2 + 7 * HOUR, d2 + 10 * HOUR),
        ("transfer", d2 + 10 * HOUR, d2 + 10 * HOUR + 30 * 60),
    ]
}

pub async fn export(app: &TestApp, user: Option<&TestUser>, body: Value) -> reqwest::Response {
    let mut request = app
        .client
        .post(app.url("/companies/generate_tachograph_files"))
        .json(&body);
    if let Some(user) = user {
        request = request.bearer_auth(&user.token);
    }
    request.send().await.unwrap()
}

pub fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP archive");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).unwrap();
            let mut content = Vec::new();
            file.read_to_end(&mut content).unwrap();
            (file.name().unwrap().to_string(), content)
        })
        .collect()
}

fn kind_name(kind: ActivityKind) -> &'static str {
    match kind {
        ActivityKind::Drive => "drive",
        ActivityKind::Work => "work",
        ActivityKind::Support => "support",
        ActivityKind::Transfer => "transfer",
    }
}

pub async fn root_key(app: &TestApp) -> Vec<u8> {
    let response = app
        .client
        .get(app.url("/api/tachograph/root-public-key"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.bytes().await.unwrap().to_vec();
    assert_eq!(bytes.len(), 144);
    bytes
}

on_both_backends! {
    async fn export_round_trips_minute_for_minute(app) {
        let Setup { admin, worker, company, .. } = setup(app).await;
        let response = export(app, Some(&admin), json!({ "company_ids": [company] })).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/zip");
        assert_eq!(response.headers()["content-disposition"], "attachment; filename=fichiers_C1B.zip");
        // Streamed as it is produced: chunked, no length known in advance.
        assert!(response.headers().get("content-length").is_none());
        assert_eq!(response.headers()["transfer-encoding"], "chunked");
        let bytes = response.bytes().await.unwrap();
        let files = unzip(&bytes);
        assert_eq!(files.len(), 2, "one file per employee: the admin and the driver");
        let card = c1b::roadlog_card_number(worker.id as u64, 0).unwrap();
        let (name, content) = files.iter().find(|(n, _)| n.contains(&card)).expect("the driver's file");
        assert!(name.starts_with("C_") && name.ends_with(&format!("_E_MULLER_{card}.C1B")), "{name}");
        let report = c1b::inspect(content, None).expect("a valid driver-card file");
        let intervals: Vec<(&str, i64, i64)> =
            c1b::activity_intervals(&report).into_iter().map(|(k, s, e)| (kind_name(k), s, e)).collect();
        assert_eq!(intervals, recorded());
        let json = serde_json::to_value(&report).unwrap();
        let text = json.to_string();
        assert!(text.contains("ROADLOG - NOT AN OFFICIAL CARD"), "the file says where it comes from");
        assert!(text.contains("AB123CD"), "the vehicle is in EF_Vehicles_Used");
    }

    async fn signed_exports_verify_and_detect_tampering(app) {
        let Setup { admin, worker, company, .. } = setup(app).await;
        let response = export(app, Some(&admin), json!({ "company_ids": [company], "user_ids": [worker.id], "with_digital_signatures": true })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let files = unzip(&response.bytes().await.unwrap());
        assert_eq!(files.len(), 1, "user_ids restricts the export");
        let root = root_key(app).await;
        let report = c1b::inspect(&files[0].1, Some(&root)).unwrap();
        let signed: Vec<_> = report.files.iter().filter(|ef| ef.signature != SignatureStatus::Unsigned).collect();
        assert!(signed.len() >= 10, "{:?}", report.files);
        assert!(signed.iter().all(|ef| ef.signature == SignatureStatus::Valid), "{:?}", report.files);

        // One flipped byte in EF_Identification's data: that signature fails.
        let mut tampered = files[0].1.clone();
        let at = tampered.windows(3).position(|w| w == [0x05, 0x20, 0x00]).expect("EF_Identification tag") + 5 + 20;
        tampered[at] ^= 0x01;
        let report = c1b::inspect(&tampered, Some(&root)).unwrap();
        let identification = report.files.iter().find(|ef| ef.fid == "0520").unwrap();
        assert_eq!(identification.signature, SignatureStatus::Invalid);

        // The same employee gets the same card key in a later export.
        let again = export(app, Some(&admin), json!({ "company_ids": [company], "user_ids": [worker.id], "with_digital_signatures": true })).await;
        let again = unzip(&again.bytes().await.unwrap());
        let cert = |bytes: &[u8]| bytes.windows(3).position(|w| w == [0xC1, 0x00, 0x00]).map(|p| bytes[p + 5..p + 5 + 194].to_vec());
        assert_eq!(cert(&files[0].1), cert(&again[0].1));
    }

    async fn employee_version_shows_what_the_employee_declared(app) {
        let Setup { admin, worker, company, mission } = setup(app).await;
        // The worker validates; the admin corrects the first driving period when validating.
        let validate = "mutation($m: Int!, $u: [Int]!) { activities { validateMission(missionId: $m, usersIds: $u) { id } } }";
        app.as_user(&worker, validate, json!({ "m": mission, "u": [worker.id] })).await;
        let body = app.as_user(&admin, "query($m: Int!) { mission(id: $m) { activities { id startTime } } }", json!({ "m": mission })).await;
        let first = body["data"]["mission"]["activities"][0]["id"].as_i64().unwrap();
        let fix = "mutation($m: Int!, $u: [Int]!, $a: Int!, $s: TimeStamp) { activities { validateMission(missionId: $m, usersIds: $u, activityItems: [{ edit: { activityId: $a, startTime: $s } }]) { id } } }";
        let body = app.as_user(&admin, fix, json!({ "m": mission, "u": [worker.id], "a": first, "s": day(3) + 6 * HOUR + 30 * 60 })).await;
        assert!(body["errors"].is_null(), "{body}");

        let response = export(app, Some(&admin), json!({ "company_ids": [company], "user_ids": [worker.id], "employee_version": true })).await;
        let files = unzip(&response.bytes().await.unwrap());
        assert_eq!(files.len(), 2);
        let (current, declared) = if files[0].0.ends_with("_employee.C1B") { (&files[1], &files[0]) } else { (&files[0], &files[1]) };
        assert!(declared.0.ends_with("_employee.C1B"));
        let starts = |bytes: &[u8]| c1b::activity_intervals(&c1b::inspect(bytes, None).unwrap())[0].1;
        assert_eq!(starts(&current.1), day(3) + 6 * HOUR + 30 * 60, "the admin's correction");
        assert_eq!(starts(&declared.1), day(3) + 6 * HOUR, "what the driver declared");
    }

    async fn export_statuses(app) {
        let Setup { admin, worker, company, .. } = setup(app).await;
        // 401: no token, or a bad one.
        let response = export(app, None, json!({ "company_ids": [company] })).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(response.json::<Value>().await.unwrap()["error_code"], "AUTHENTICATION_ERROR");
        let response = app
            .client
            .post(app.url("/api/companies/generate_tachograph_files"))
            .bearer_auth("rl_at_forged")
            .json(&json!({ "company_ids": [company] }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        // 403: a worker is not an admin; an unknown company looks the same.
        for (user, id) in [(&worker, company), (&admin, 987_654)] {
            let response = export(app, Some(user), json!({ "company_ids": [id] })).await;
            assert_eq!(response.status(), StatusCode::FORBIDDEN);
            assert_eq!(response.json::<Value>().await.unwrap()["error_code"], "AUTHORIZATION_ERROR");
        }
        // 404 with details, for each kind of ill-formed request.
        for (body, field) in [
            (json!({}), "company_ids"),
            (json!({ "company_ids": [] }), "company_ids"),
            (json!({ "company_ids": ["one"] }), "company_ids"),
            (json!({ "company_ids": [company], "min_date": "01/02/2026" }), "min_date"),
            (json!({ "company_ids": [company], "min_date": "2026-03-01", "max_date": "2026-02-01" }), "max_date"),
            (json!({ "company_ids": [company], "min_date": "2026-01-01", "max_date": "2026-06-01" }), "max_date"),
            (json!({ "company_ids": [company], "with_digital_signatures": "yes" }), "with_digital_signatures"),
            (json!({ "company_ids": [company], "user_id": 5 }), "user_id"),
        ] {
            let response = export(app, Some(&admin), body.clone()).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{body}");
            let answer: Value = response.json().await.unwrap();
            assert_eq!(answer["error_code"], "INVALID_INPUTS");
            assert!(answer["details"][field].is_array(), "{body}: {answer}");
        }
        let response = app
            .client
            .post(app.url("/companies/generate_tachograph_files"))
            .bearer_auth(&admin.token)
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert!(response.json::<Value>().await.unwrap()["details"]["json"].is_array());
        // A period in the past without activity still gives one file per employee.
        let response = export(app, Some(&admin), json!({ "company_ids": [company], "min_date": "2021-01-01", "max_date": "2021-01-31" })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let files = unzip(&response.bytes().await.unwrap());
        assert_eq!(files.len(), 2);
        for (_, content) in files {
            assert!(c1b::activity_intervals(&c1b::inspect(&content, None).unwrap()).is_empty());
        }
        let _ = codes(&json!({}));
    }

    async fn a_long_period_wraps_the_activity_buffer(app) {
        let Setup { admin, worker, company, mission } = setup(app).await;
        // 64 days of 120 ten-minute alternations, written directly: far more than the 13 776 bytes
        // of the activity buffer.
        sqlx::query("DELETE FROM activity_versions").execute(&app.server.db.pool).await.unwrap();
        sqlx::query("DELETE FROM activities").execute(&app.server.db.pool).await.unwrap();
        let first_day = day(66);
        for d in 0..64 {
            let mut values = Vec::new();
            for slot in 0..120 {
                let start = first_day + d * 86_400 + 2 * HOUR + slot * 600;
                let kind = if slot % 2 == 0 { "drive" } else { "work" };
                values.push(format!("({mission}, {}, {}, '{kind}', {start}, {start}, {start}, {}, {})", worker.id, worker.id, start + 600, start + 600));
            }
            let sql = format!(
                "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) VALUES {}",
                values.join(", ")
            );
            sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&app.server.db.pool).await.unwrap();
        }
        let body = json!({ "company_ids": [company], "user_ids": [worker.id], "min_date": date(first_day), "max_date": date(first_day + 63 * 86_400) });
        let response = export(app, Some(&admin), body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let files = unzip(&response.bytes().await.unwrap());
        let report = c1b::inspect(&files[0].1, None).expect("the wrapped buffer is consistent");
        let intervals = c1b::activity_intervals(&report);
        // The oldest days were dropped, the newest ones are all there, minute for minute.
        let last_day = first_day + 63 * 86_400;
        let kept: Vec<_> = intervals.iter().filter(|(_, s, _)| *s >= last_day).collect();
        assert_eq!(kept.len(), 120);
        assert_eq!((kept[0].1, kept[0].2), (last_day + 2 * HOUR, last_day + 2 * HOUR + 600));
        assert!(intervals.first().unwrap().1 > first_day + 86_400, "the buffer wrapped: the oldest days are gone");
        assert!(intervals.len() < 64 * 120);
    }
}

tests! {
async fn inspect_command_reads_files_and_refuses_broken_ones() {
    let app = TestApp::spawn(crate::support::Backend::Sqlite).await;
    let Setup { admin, company, .. } = setup(&app).await;
    let response = export(
        &app,
        Some(&admin),
        json!({ "company_ids": [company], "with_digital_signatures": true }),
    )
    .await;
    let files = unzip(&response.bytes().await.unwrap());
    let dir = std::env::temp_dir().join(format!("roadlog-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("card.C1B");
    std::fs::write(&file, &files[0].1).unwrap();
    let key = dir.join("EC_PK.bin");
    std::fs::write(&key, root_key(&app).await).unwrap();

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_roadlog"))
        .args(["c1b", "inspect"])
        .arg(&file)
        .arg("--root-key")
        .arg(&key)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|ef| ef["signature"] == "valid"),
        "{report}"
    );

    let truncated = dir.join("broken.C1B");
    std::fs::write(&truncated, &files[0].1[..files[0].1.len() / 2]).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_roadlog"))
        .args(["c1b", "inspect"])
        .arg(&truncated)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(!output.stderr.is_empty());
    let _ = std::fs::remove_dir_all(dir);
    app.cleanup().await;
}
}
