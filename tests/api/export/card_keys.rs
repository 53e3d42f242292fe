//! The employees' card keys: the signing keys encrypted at rest when a key is configured, and
//! the first exports taking their keys from the pool, which is refilled.

use super::*;

for_both_backends! {
    async fn signing_keys_are_encrypted_at_rest_when_a_key_is_configured(backend) {
        use base64::Engine;
        let key = base64::engine::general_purpose::STANDARD.encode([42u8; 32]);
        // First without a key: keys in clear, as before, the pool's too.
        let app = TestApp::spawn_with(backend, |s| s.card_key_pool = 2).await;
        pool_holds(&app.server.db, 2).await;
        let s = setup(&app).await;
        let signed = json!({ "company_ids": [s.company], "with_digital_signatures": true });
        let response = export(&app, Some(&s.admin), signed.clone()).await;
        assert_eq!(response.status(), StatusCode::OK);
        // Read to its end: the archive is written while it is sent.
        unzip(&response.bytes().await.unwrap());
        let before = root_key(&app).await;
        // The export took a key from the pool: wait until it is refilled (and idle) before
        // counting and stopping the server.
        pool_holds(&app.server.db, 2).await;
        let count_sealed = |db: roadlog::db::Db| async move {
            let rows: Vec<(Vec<u8>,)> = sqlx::query_as("SELECT key_bytes FROM tachograph_keys UNION ALL SELECT key_bytes FROM tachograph_card_keys UNION ALL SELECT key_bytes FROM tachograph_card_key_pool")
                .fetch_all(&db.pool)
                .await
                .unwrap();
            (rows.len(), rows.iter().filter(|r| r.0.starts_with(b"RLK1")).count())
        };
        let (all, sealed) = count_sealed(app.server.db.clone()).await;
        assert!(all >= 5 && sealed == 0, "{all} keys, {sealed} sealed");
        let url = app.database_url.clone();
        app.server.begin_stop();
        // A server with a key encrypts them at start, and signs with the same keys.
        let mut settings = roadlog::config::Settings::new(roadlog::config::Environment::Sandbox, Some(url.clone()));
        settings.key_encryption_key = Some(key.clone());
        settings.card_key_pool = 0;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let second = roadlog::server::start(&settings, listener).await.unwrap();
        let (all, sealed) = count_sealed(second.db.clone()).await;
        assert_eq!(sealed, all, "every key is encrypted");
        let root = reqwest::get(format!("{}/api/tachograph/root-public-key", second.url())).await.unwrap();
        assert_eq!(root.bytes().await.unwrap().to_vec(), before, "the same root");
        let response = reqwest::Client::new()
            .post(format!("{}/companies/generate_tachograph_files", second.url()))
            .bearer_auth(&s.admin.token)
            .json(&signed)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        second.stop().await;
        // Without the key, or with another, the server refuses to start: it names the problem.
        for wrong in [None, Some(base64::engine::general_purpose::STANDARD.encode([1u8; 32]))] {
            let mut settings = roadlog::config::Settings::new(roadlog::config::Environment::Sandbox, Some(url.clone()));
            settings.key_encryption_key = wrong;
            settings.card_key_pool = 0;
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let error = roadlog::server::start(&settings, listener).await.err().expect("refused");
            assert!(format!("{error:#}").contains("ROADLOG_KEY_ENCRYPTION_KEY"), "{error:#}");
        }
        app.cleanup().await;
    }
}

/// Waits (polling, up to a minute) until the card key pool holds `size` keys; returns them.
async fn pool_holds(db: &roadlog::db::Db, size: usize) -> Vec<Vec<u8>> {
    for _ in 0..600 {
        let rows: Vec<(Vec<u8>,)> = sqlx::query_as("SELECT key_bytes FROM tachograph_card_key_pool ORDER BY id")
            .fetch_all(&db.pool)
            .await
            .unwrap();
        if rows.len() == size {
            return rows.into_iter().map(|r| r.0).collect();
        }
        assert!(rows.len() < size, "the pool overshot: {} keys for {size}", rows.len());
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the card key pool did not reach {size} keys within a minute");
}

for_both_backends! {
    async fn first_exports_take_their_card_keys_from_the_pool(backend) {
        let app = TestApp::spawn_with(backend, |s| s.card_key_pool = 3).await;
        let pooled = pool_holds(&app.server.db, 3).await;
        let s = setup(&app).await;
        // The admin records time too: two employees without a card key yet.
        let body = app
            .as_user(&s.admin, "mutation($c: Int!) { activities { createMission(companyId: $c, name: \"Dépôt\") { id } } }", json!({ "c": s.company }))
            .await;
        let mission = body["data"]["activities"]["createMission"]["id"].as_i64().unwrap();
        let body = app
            .as_user(&s.admin, LOG, json!({ "m": mission, "t": "work", "s": day(2) + 14 * HOUR, "e": day(2) + 15 * HOUR }))
            .await;
        assert!(body["errors"].is_null(), "{body}");
        let signed = json!({ "company_ids": [s.company], "with_digital_signatures": true });
        let response = export(&app, Some(&s.admin), signed.clone()).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(unzip(&response.bytes().await.unwrap()).len(), 2);
        // Each employee's key is one of the pool's (the two oldest), gone from the pool.
        let given: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT user_id, key_bytes FROM tachograph_card_keys ORDER BY user_id")
            .fetch_all(&app.server.db.pool)
            .await
            .unwrap();
        assert_eq!(given.len(), 2);
        let mut given_keys: Vec<&Vec<u8>> = given.iter().map(|g| &g.1).collect();
        given_keys.sort();
        let mut oldest: Vec<&Vec<u8>> = pooled[..2].iter().collect();
        oldest.sort();
        assert_eq!(given_keys, oldest, "the pool's two oldest keys");
        assert_ne!(given[0].1, given[1].1, "one key per employee");
        // The pool is refilled to its size with new keys; the given ones are never handed out again.
        let refilled = pool_holds(&app.server.db, 3).await;
        assert_eq!(refilled[0], pooled[2]);
        assert!(refilled.iter().all(|k| !given_keys.contains(&k)));
        // A second export reuses the employees' keys: the pool is not touched.
        let response = export(&app, Some(&s.admin), signed).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(pool_holds(&app.server.db, 3).await, refilled);
        app.cleanup().await;
    }
}
