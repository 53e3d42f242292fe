//! Outgoing e-mail through an SMTP relay: an invitation reaches a (fake) relay with the right
//! envelope, headers and body; a relay that is down loses nothing, the message is retried.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use common::TestApp;

/// A relay that accepts every message and keeps the SMTP conversation.
async fn fake_relay() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let store = received.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let store = store.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut reader = BufReader::new(read);
                write.write_all(b"220 fake ESMTP\r\n").await.unwrap();
                let mut transcript = String::new();
                let mut in_data = false;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                        break;
                    }
                    transcript.push_str(&line);
                    if in_data {
                        if line == ".\r\n" {
                            in_data = false;
                            write.write_all(b"250 queued\r\n").await.unwrap();
                        }
                        continue;
                    }
                    let answer: &[u8] = match line.get(..4).unwrap_or("") {
                        "EHLO" => b"250-fake\r\n250 8BITMIME\r\n",
                        "DATA" => {
                            in_data = true;
                            b"354 go ahead\r\n"
                        }
                        "QUIT" => {
                            write.write_all(b"221 bye\r\n").await.unwrap();
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    write.write_all(answer).await.unwrap();
                }
                store.lock().unwrap().push(transcript);
            });
        }
    });
    (port, received)
}

/// A server on its own database whose e-mails go to the relay on `port`.
async fn app_with_relay(backend: common::Backend, port: u16) -> Option<TestApp> {
    TestApp::spawn_with(backend, |settings| {
        settings.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
        settings.mail_from = "roadlog@transports.example".into();
    })
    .await
}

async fn invite(app: &TestApp, mail: &str) {
    let admin = app.new_user("admin@example.com").await;
    let company = app.new_company(&admin, "Société Martin").await;
    let response = app
        .client
        .post(app.url("/api/graphql"))
        .bearer_auth(&admin.token)
        .json(&json!({ "query": "mutation($c: Int!, $m: Email!) { employments { createEmployment(companyId: $c, mail: $m) { id } } }", "variables": { "c": company, "m": mail } }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

async fn reaches_the_relay(backend: common::Backend) {
    let (port, received) = fake_relay().await;
    let Some(app) = app_with_relay(backend, port).await else {
        return;
    };
    invite(&app, "new.driver@example.com").await;
    let mut transcript = None;
    for _ in 0..100 {
        if let Some(t) = received
            .lock()
            .unwrap()
            .iter()
            .find(|t| t.contains("new.driver@example.com"))
        {
            transcript = Some(t.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let transcript = transcript.expect("the relay received the invitation");
    assert!(transcript.contains("MAIL FROM:<roadlog@transports.example>\r\n"));
    assert!(transcript.contains("RCPT TO:<new.driver@example.com>\r\n"));
    assert!(
        transcript.contains("Subject: =?UTF-8?B?"),
        "non-ASCII subjects are encoded"
    );
    let body: String = transcript
        .split("\r\n\r\n")
        .nth(1)
        .unwrap()
        .split("\r\n.\r\n")
        .next()
        .unwrap()
        .replace("\r\n", "");
    let body = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(body).unwrap()).unwrap();
    assert!(body.contains("Société Martin invites you"), "{body}");
    assert!(body.contains("rl_inv_"), "the invitation token is in the e-mail");
    let mut sent = None;
    for _ in 0..50 {
        let (at,): (Option<i64>,) =
            sqlx::query_as("SELECT sent_at FROM emails WHERE recipient = 'new.driver@example.com'")
                .fetch_one(&app.server.db.pool)
                .await
                .unwrap();
        if at.is_some() {
            sent = at;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(sent.is_some(), "marked sent");
    app.cleanup().await;
}

async fn survives_a_relay_that_is_down(backend: common::Backend) {
    // Nothing listens on this port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let Some(app) = app_with_relay(backend, port).await else {
        return;
    };
    invite(&app, "later@example.com").await;
    let mut row = None;
    for _ in 0..50 {
        let found: Option<(Option<i64>, i64, Option<String>)> =
            sqlx::query_as("SELECT sent_at, attempts, last_error FROM emails WHERE recipient = 'later@example.com'")
                .fetch_optional(&app.server.db.pool)
                .await
                .unwrap();
        if let Some(found) = found.filter(|f| f.1 > 0 && f.0.is_none() && f.2.is_some()) {
            row = Some(found);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (sent_at, attempts, _) = row.expect("a failed attempt is recorded and the message released");
    assert_eq!(sent_at, None);
    assert!(attempts >= 1);
    app.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitations_reach_the_smtp_relay_sqlite() {
    reaches_the_relay(common::Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitations_reach_the_smtp_relay_postgres() {
    reaches_the_relay(common::Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_that_is_down_loses_nothing_sqlite() {
    survives_a_relay_that_is_down(common::Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_that_is_down_loses_nothing_postgres() {
    survives_a_relay_that_is_down(common::Backend::Postgres).await;
}
