//! Large requests: capped id lists bound as one parameter, and an archive streamed a chunk of
//! employees at a time with every employee in it once.

use super::*;

on_both_backends! {
    async fn id_lists_are_capped_and_bound_as_one_parameter(app) {
        let s = setup(app).await;
        // Far over the cap: the documented 404 shape, at once, before any query.
        let many: Vec<i64> = (1..=40_000).collect();
        let response = export(app, Some(&s.admin), json!({ "company_ids": [s.company], "user_ids": many })).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error_code"], "INVALID_INPUTS");
        assert_eq!(body["details"]["user_ids"], json!(["Must contain at most 5000 ids."]));
        let companies: Vec<i64> = (1..=101).collect();
        let response = export(app, Some(&s.admin), json!({ "company_ids": companies })).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        // At the cap: one parameter whatever the number of ids, on both databases.
        let mut at_cap: Vec<i64> = (1_000_000..1_004_999).collect();
        at_cap.push(s.worker.id);
        let response = export(app, Some(&s.admin), json!({ "company_ids": [s.company], "user_ids": at_cap })).await;
        assert_eq!(response.status(), StatusCode::OK);
        let files = unzip(&response.bytes().await.unwrap());
        assert_eq!(files.len(), 1, "only the employee among the ids is exported");
    }
}

// The archive is streamed a chunk of employees at a time (a first small chunk, then larger ones):
// across the chunks' boundaries, every employee has exactly one file, and the archive's directory
// and comment are whole.
on_both_backends! {
    async fn a_streamed_archive_holds_every_employee_across_chunks(app) {
        let s = setup(app).await;
        let pool = &app.server.db.pool;
        let mut tx = pool.begin().await.unwrap();
        crate::support::employments::insert_bare_employees(&mut tx, s.company, 300_000_000, 110).await;
        tx.commit().await.unwrap();
        let response = export(app, Some(&s.admin), json!({ "company_ids": [s.company], "employee_version": true })).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers().get("content-length").is_none());
        let bytes = response.bytes().await.unwrap();
        let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).expect("a whole ZIP archive");
        let comment = String::from_utf8_lossy(archive.comment()).to_string();
        assert!(comment.contains("C1B export, environment sandbox"), "{comment}");
        let files = unzip(&bytes);
        // The admin, the driver and the 110 (chunks of 10, 100 and 2): each a file and its employee version.
        assert_eq!(files.len(), 2 * 112);
        let mut names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 2 * 112, "no file twice");
        for e in 0..110 {
            let surname = format!("_J_DRIVER{e}_");
            assert_eq!(files.iter().filter(|(n, _)| n.contains(&surname)).count(), 2, "{surname}");
        }
        for (name, content) in &files {
            c1b::inspect(content, None).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        }
    }
}
