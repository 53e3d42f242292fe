//! What tachograph readers show of exported C1B files, checked on files exported over HTTP on both
//! databases: a mission across midnight (odometers interpolated, 23:59, per-day distances), names
//! in Cyrillic, Greek and Polish decoded back exactly, the card's dates before the first activity
//! and kept across exports, unsigned files that carry the certificate chain and no failing
//! signature, EF_Current_Usage with no open session, and ZIP entries dated at the export.
//!
//! Set `ROADLOG_KEEP_C1B` to a folder to keep the exported files there, e.g. to open them in a
//! tachograph reader.

use reqwest::StatusCode;
use roadlog::domain::export::c1b::{self, CertificateStatus, Report, SignatureStatus};
use serde_json::{Value, json};

use crate::export::{HOUR, LOG, date, day, export, root_key, setup, unzip};
use crate::support::{TestApp, TestUser};

/// Copies an exported file to `$ROADLOG_KEEP_C1B` when it is set.
fn keep(name: &str, bytes: &[u8]) {
    if let Some(dir) = std::env::var_os("ROADLOG_KEEP_C1B") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// The one file of `user` in an export of `body`.
async fn file_of(app: &TestApp, admin: &TestUser, user: &TestUser, body: Value) -> (String, Vec<u8>) {
    let response = export(app, Some(admin), body).await;
    assert_eq!(response.status(), StatusCode::OK);
    let card = c1b::roadlog_card_number(user.id as u64, 0).unwrap();
    let files = unzip(&response.bytes().await.unwrap());
    let (name, bytes) = files
        .into_iter()
        .find(|(n, _)| n.contains(&card))
        .expect("the user's file");
    keep(&name, &bytes);
    (name, bytes)
}

/// The TLVs of a file: (FID, appendix, value), walked from the start.
fn tlvs(file: &[u8]) -> Vec<([u8; 2], u8, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 5 <= file.len() {
        let length = usize::from(u16::from_be_bytes([file[at + 3], file[at + 4]]));
        out.push(([file[at], file[at + 1]], file[at + 2], &file[at + 5..at + 5 + length]));
        at += 5 + length;
    }
    assert_eq!(at, file.len(), "the TLVs cover the file");
    out
}

/// The data of EF `fid`.
fn ef(file: &[u8], fid: [u8; 2]) -> &[u8] {
    tlvs(file)
        .into_iter()
        .find(|(f, appendix, _)| *f == fid && *appendix == 0)
        .map(|(_, _, value)| value)
        .expect("the EF")
}

async fn rename(app: &TestApp, user: &TestUser, first: &str, last: &str) {
    sqlx::query("UPDATE users SET first_name = $1, last_name = $2 WHERE id = $3")
        .bind(first)
        .bind(last)
        .bind(user.id)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
}

on_both_backends! {
    async fn a_mission_across_midnight_shows_each_day_with_its_odometers(app) {
        let s = setup(app).await;
        let create = "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Nuit\", vehicleRegistrationNumber: \"EF-456-GH\") { id } } }";
        let body = app.as_user(&s.worker, create, json!({ "c": s.company })).await;
        let night = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let location = "mutation($m: Int!, $t: LocationEntryTypeEnum!, $k: Int) { activities { logLocation(missionId: $m, type: $t, manualAddress: \"Dépôt, Lyon\", kilometerReading: $k) { id } } }";
        let body = app.as_user(&s.worker, location, json!({ "m": night, "t": "mission_start_location", "k": 300_000 })).await;
        assert!(body["errors"].is_null(), "{body}");
        // Drives 20:00 → 04:00 five days ago (the other mission is three and two days ago).
        let evening = day(5) + 20 * HOUR;
        let body = app.as_user(&s.worker, LOG, json!({ "m": night, "t": "drive", "s": evening, "e": evening + 8 * HOUR })).await;
        assert!(body["errors"].is_null(), "{body}");
        let body = app.as_user(&s.worker, location, json!({ "m": night, "t": "mission_end_location", "k": 300_700 })).await;
        assert!(body["errors"].is_null(), "{body}");

        let period = json!({ "company_ids": [s.company], "user_ids": [s.worker.id], "min_date": date(day(5)), "max_date": date(day(4)) });
        let (_, file) = file_of(app, &s.admin, &s.worker, period).await;
        // Read back by the command a person would run.
        let path = crate::support::cleanup::new_dir().join("night.C1B");
        std::fs::write(&path, &file).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_roadlog"))
            .args(["c1b", "inspect"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let vehicles: Vec<Value> = report["vehicles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| json!([v["registration"], v["first_use"], v["last_use"], v["odometer_begin"], v["odometer_end"]]))
            .collect();
        let (d5, d4) = (date(day(5)), date(day(4)));
        assert_eq!(
            vehicles,
            vec![
                json!(["EF456GH", format!("{d5}T20:00:00Z"), format!("{d5}T23:59:00Z"), 300_000, 300_350]),
                json!(["EF456GH", format!("{d4}T00:00:00Z"), format!("{d4}T04:00:00Z"), 300_350, 300_700]),
            ]
        );
        let days: Vec<Value> = report["activity"]["days"].as_array().unwrap().iter().map(|d| json!([d["date"], d["distance_km"]])).collect();
        assert_eq!(days, vec![json!([d5, 350]), json!([d4, 350])], "the days' distances add up to the mission's 700 km");
        let places: Vec<Value> = report["places"].as_array().unwrap().iter().map(|p| json!([p["entry_type"], p["odometer"]])).collect();
        assert_eq!(places, vec![json!(["begin", 300_000]), json!(["end", 300_700])]);
        assert_eq!(report["current_usage"]["open_session"], false);
        assert_eq!(report["findings"], json!([]), "{report}");
    }

    async fn names_in_cyrillic_greek_and_polish_come_back_exactly(app) {
        let s = setup(app).await;
        let mut people = Vec::new();
        for (email, first, last, code_page, file_part) in [
            ("ivan@example.com", "Иван", "Петров", 5, "_I_PETROV_"),
            ("giorgos@example.com", "Γιώργος", "Παπαδόπουλος", 7, "_G_PAPADOPOULOS_"),
            ("lukasz@example.com", "Łukasz", "Wałęsa-Żak", 2, "_L_WALESA-ZAK_"),
        ] {
            let user = app.new_user(email).await;
            rename(app, &user, first, last).await;
            app.hire(&s.admin, s.company, &user).await;
            people.push((user, first, last, code_page, file_part));
        }
        let response = export(app, Some(&s.admin), json!({ "company_ids": [s.company] })).await;
        let files = unzip(&response.bytes().await.unwrap());
        for (user, first, last, code_page, file_part) in people {
            let card = c1b::roadlog_card_number(user.id as u64, 0).unwrap();
            let (name, bytes) = files.iter().find(|(n, _)| n.contains(&card)).expect("a file per employee");
            keep(name, bytes);
            assert!(name.contains(&format!("{file_part}{card}")), "{name}");
            assert!(name.is_ascii());
            let report = c1b::inspect(bytes, None).unwrap();
            assert_eq!((report.identification.first_names.as_str(), report.identification.surname.as_str()), (first, last));
            // holderSurname and holderFirstNames announce their ISO/IEC 8859 part.
            let identification = ef(bytes, [0x05, 0x20]);
            assert_eq!((identification[65], identification[101]), (code_page, code_page), "{last}");
            assert!(!identification[65..137].contains(&b'?'));
        }
    }

    async fn the_card_is_issued_before_the_first_activity_and_kept(app) {
        let s = setup(app).await;
        // Employed since yesterday, but activities were recorded three and two days ago.
        sqlx::query("UPDATE employments SET start_date = $1")
            .bind(date(day(1)))
            .execute(&app.server.db.pool)
            .await
            .unwrap();
        let body = json!({ "company_ids": [s.company], "user_ids": [s.worker.id] });
        let (_, first) = file_of(app, &s.admin, &s.worker, body.clone()).await;
        let report = c1b::inspect(&first, None).unwrap();
        let ident = &report.identification;
        let first_day = format!("{}T00:00:00Z", date(day(3)));
        assert_eq!(ident.card_issue.as_deref(), Some(first_day.as_str()));
        assert_eq!(ident.card_validity_begin.as_deref(), Some(first_day.as_str()));
        assert!(ident.card_expiry.as_deref().unwrap() > ident.card_issue.as_deref().unwrap());
        assert_eq!(report.activity.days[0].date, date(day(3)));
        assert_eq!(report.findings, Vec::<String>::new());

        // A later export shows the same card, even for a period with nothing older.
        let (_, again) = file_of(app, &s.admin, &s.worker, json!({ "company_ids": [s.company], "user_ids": [s.worker.id], "min_date": date(day(2)) })).await;
        let again = c1b::inspect(&again, None).unwrap();
        assert_eq!(
            (&again.identification.card_issue, &again.identification.card_expiry),
            (&ident.card_issue, &ident.card_expiry)
        );

        // Older data appears (work ten days ago, before the employment's recorded start, so written
        // directly): the card is issued that day from now on.
        let start = day(10) + 8 * HOUR;
        sqlx::query(
            "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, start_time, end_time, last_update_time) \
             VALUES ($1, $2, $2, 'work', $3, $3, $3, $4, $4)",
        )
        .bind(s.mission)
        .bind(s.worker.id)
        .bind(start)
        .bind(start + HOUR)
        .execute(&app.server.db.pool)
        .await
        .unwrap();
        let (_, older) = file_of(app, &s.admin, &s.worker, body).await;
        let older = c1b::inspect(&older, None).unwrap();
        let older_day = format!("{}T00:00:00Z", date(day(10)));
        assert_eq!(older.identification.card_issue.as_deref(), Some(older_day.as_str()));
        assert_eq!(older.identification.card_expiry, ident.card_expiry, "the expiry never moves earlier");
        assert_eq!(older.findings, Vec::<String>::new());
    }

    async fn unsigned_files_carry_the_chain_and_no_failing_signature(app) {
        let s = setup(app).await;
        let root = root_key(app).await;
        let unsigned = json!({ "company_ids": [s.company], "user_ids": [s.worker.id] });
        let (name, plain) = file_of(app, &s.admin, &s.worker, unsigned).await;
        keep(&format!("unsigned_{name}"), &plain);
        keep("EC_PK.bin", &root);
        let signed = json!({ "company_ids": [s.company], "user_ids": [s.worker.id], "with_digital_signatures": true });
        let (_, sealed) = file_of(app, &s.admin, &s.worker, signed).await;

        let report: Report = c1b::inspect(&plain, Some(&root)).unwrap();
        assert_eq!(report.certificates.ca.status, CertificateStatus::Valid);
        assert_eq!(report.certificates.card.status, CertificateStatus::Valid);
        assert_eq!(report.certificates.card_serial_matches_chr, Some(true));
        assert!(report.files.iter().all(|f| f.signature == SignatureStatus::Unsigned && !f.signed), "{:?}", report.files);
        assert!(tlvs(&plain).iter().all(|(_, appendix, _)| *appendix == 0), "no signature TLV");
        assert_eq!(report.findings, Vec::<String>::new());
        // The same chain and serial number as a signed export of the same employee.
        for fid in [[0xC1, 0x00], [0xC1, 0x08], [0x00, 0x02]] {
            assert_eq!(ef(&plain, fid), ef(&sealed, fid), "EF {fid:02X?}");
        }
        assert!(ef(&plain, [0xC1, 0x00]).iter().any(|&b| b != 0));
        // EF_Current_Usage: no session open (19 zero bytes, as after card removal).
        assert_eq!(ef(&plain, [0x05, 0x07]), &[0u8; 19]);
        assert_eq!(report.current_usage.as_ref().map(|u| u.open_session), Some(false));
        let sealed = c1b::inspect(&sealed, Some(&root)).unwrap();
        assert!(sealed.files.iter().filter(|f| f.signed).all(|f| f.signature == SignatureStatus::Valid));
    }

    async fn zip_entries_are_dated_at_the_export_and_the_archive_says_where_it_comes_from(app) {
        let s = setup(app).await;
        let before = chrono::Utc::now().naive_utc() - chrono::Duration::seconds(2);
        let response = export(app, Some(&s.admin), json!({ "company_ids": [s.company], "min_date": date(day(5)), "max_date": date(day(1)) })).await;
        let bytes = response.bytes().await.unwrap();
        let after = chrono::Utc::now().naive_utc();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        let comment = String::from_utf8(archive.comment().to_vec()).unwrap();
        assert!(comment.starts_with("Roadlog "), "{comment}");
        let period = format!("environment sandbox, period {} to {} (UTC days)", date(day(5)), date(day(1)));
        assert!(comment.contains(&period), "{comment}");
        assert_eq!(archive.len(), 2);
        for i in 0..archive.len() {
            let entry = archive.by_index(i).unwrap();
            let t = entry.last_modified().expect("a modification time");
            let modified = chrono::NaiveDate::from_ymd_opt(t.year().into(), t.month().into(), t.day().into())
                .and_then(|d| d.and_hms_opt(t.hour().into(), t.minute().into(), t.second().into()))
                .unwrap();
            assert!(before <= modified && modified <= after, "{modified} not within {before} .. {after}");
        }
    }
}
