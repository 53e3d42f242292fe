//! Outgoing e-mail through an SMTP relay: an invitation reaches a (fake) relay with the right
//! envelope, headers and body; a relay that is down loses nothing; a sender that dies between
//! claiming a message and sending it loses nothing either (its lease expires and the message
//! is delivered once); a stopping sender gives back what it claimed. An optional e-mail carries
//! its unsubscribe link as `List-Unsubscribe` (one-click), a mandatory one does not.

use base64::Engine;
use roadlog::mail::outbox;
use roadlog::mail::sender::{MailEvent, Sender, Transport};
use serde_json::json;

use crate::support::TestApp;
use crate::support::relay::Relay;

fn with_relay(port: u16) -> impl FnOnce(&mut roadlog::config::Settings) {
    move |settings| {
        settings.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
        settings.mail_from = "roadlog@transports.example".into();
    }
}

async fn invite(app: &TestApp, mail: &str) {
    let admin = app.new_user("admin@example.com").await;
    let company = app.new_company(&admin, "Société Martin").await;
    let body = app
        .as_user(
            &admin,
            "mutation($c: Int!, $m: Email!) { employments { createEmployment(companyId: $c, mail: $m) { id } } }",
            json!({ "c": company, "m": mail }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
}

/// The decoded body of a message in an SMTP conversation.
fn message_body(transcript: &str) -> String {
    let data = transcript
        .split("\r\n\r\n")
        .nth(1)
        .unwrap()
        .split("\r\n.\r\n")
        .next()
        .unwrap();
    let encoded = data.replace("\r\n", "");
    String::from_utf8(base64::engine::general_purpose::STANDARD.decode(encoded).unwrap()).unwrap()
}

async fn sent_state(app: &TestApp, recipient: &str) -> (Option<i64>, i64, Option<String>, Option<String>) {
    sqlx::query_as("SELECT sent_at, attempts, last_error, claimed_by FROM emails WHERE recipient = $1")
        .bind(recipient)
        .fetch_one(&app.server.db.pool)
        .await
        .unwrap()
}

for_both_backends! {
    async fn optional_mail_reaches_the_relay_with_its_unsubscribe_header(backend) {
        let mut relay = Relay::start().await;
        let app = TestApp::spawn_with(backend, with_relay(relay.port)).await;
        let admin = app.new_user("admin@example.com").await;
        let worker = app.new_user("worker@example.com").await;
        let company = app.new_company(&admin, "Acme").await;
        app.hire(&admin, company, &worker).await;
        // The worker's employment e-mail cannot be stopped; the admin's acceptance one can.
        let first = relay.next().await.replace("\r\n ", " ");
        assert!(first.contains("RCPT TO:<worker@example.com>"), "{first}");
        assert!(!first.contains("List-Unsubscribe"), "{first}");
        let second = relay.next().await.replace("\r\n ", " ");
        assert!(second.contains("RCPT TO:<admin@example.com>"), "{second}");
        let body = message_body(&second);
        let at = body.find("http://").unwrap();
        let link = body[at..].split_whitespace().next().unwrap();
        assert!(link.contains("/mail/unsubscribe?token="), "{body}");
        assert!(second.contains(&format!("List-Unsubscribe: <{link}>\r\n")), "{second}");
        assert!(second.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"), "{second}");
        app.cleanup().await;
    }

    async fn invitations_reach_the_smtp_relay(backend) {
        let mut relay = Relay::start().await;
        let app = TestApp::spawn_with(backend, with_relay(relay.port)).await;
        let mut events = app.server.mail_events();
        invite(&app, "new.driver@example.com").await;
        let transcript = relay.next().await;
        assert!(transcript.contains("MAIL FROM:<roadlog@transports.example>"), "{transcript}");
        assert!(transcript.contains("RCPT TO:<new.driver@example.com>"), "{transcript}");
        assert!(
            transcript.lines().any(|l| l.starts_with("Subject: ") && l.to_lowercase().contains("=?utf-8?b?")),
            "non-ASCII subjects are encoded: {transcript}"
        );
        assert!(transcript.contains("Message-ID: <outbox-"), "{transcript}");
        let body = message_body(&transcript);
        assert!(body.contains("Société Martin invites you"), "{body}");
        assert!(body.contains("rl_inv_"), "the invitation token is in the e-mail");
        // Marked sent once the relay accepted it: the sender reports it, then the row says so.
        assert!(matches!(events.recv().await.unwrap(), MailEvent::Delivered { .. }));
        let (sent_at, attempts, error, claimed_by) = sent_state(&app, "new.driver@example.com").await;
        assert!(sent_at.is_some(), "marked sent");
        assert_eq!((attempts, error, claimed_by), (1, None, None));
        app.cleanup().await;
    }

    async fn a_relay_that_is_down_loses_nothing(backend) {
        // Nothing listens on this port.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let app = TestApp::spawn_with(backend, with_relay(port)).await;
        let mut events = app.server.mail_events();
        invite(&app, "later@example.com").await;
        assert!(matches!(events.recv().await.unwrap(), MailEvent::Failed { .. }));
        let (sent_at, attempts, error, claimed_by) = sent_state(&app, "later@example.com").await;
        assert_eq!(sent_at, None, "not marked sent");
        assert!(attempts >= 1);
        assert!(error.is_some(), "the reason is kept");
        assert_eq!(claimed_by, None, "released for the next attempt");
        app.cleanup().await;
    }

    async fn a_sender_that_died_after_claiming_loses_nothing(backend) {
        let mut relay = Relay::start().await;
        // Before any server runs: a message is queued and claimed by a sender that then dies
        // (its lease has run out by the time the new server starts).
        let seed = |db: roadlog::db::Db| async move {
            let mut tx = db.begin_write().await.unwrap();
            outbox::enqueue(&mut tx, "orphan@example.com", "Orphan", "claimed, never sent", None).await.unwrap();
            tx.commit().await.unwrap();
            let claimed = outbox::claim(&db, "dead-instance", 10, 300).await.unwrap();
            assert_eq!(claimed.len(), 1);
            sqlx::query("UPDATE emails SET claimed_until = claimed_until - 301")
                .execute(&db.pool)
                .await
                .unwrap();
        };
        let app = TestApp::spawn_seeded(backend, with_relay(relay.port), seed).await;
        let mut events = app.server.mail_events();
        let transcript = relay.next().await;
        assert!(transcript.contains("RCPT TO:<orphan@example.com>"), "{transcript}");
        assert!(matches!(events.recv().await.unwrap(), MailEvent::Delivered { .. }));
        let (sent_at, attempts, _, claimed_by) = sent_state(&app, "orphan@example.com").await;
        assert!(sent_at.is_some());
        assert_eq!((attempts, claimed_by), (2, None), "one failed claim, one delivery");
        // Exactly once as far as the relay can tell: nothing else arrived.
        app.cleanup().await;
        assert!(relay.pending().is_empty(), "delivered once");
    }

    async fn a_stopping_sender_gives_back_what_it_claimed(backend) {
        // Before any server runs, so that no other sender takes the messages: a sender asked to
        // stop before it sends anything claims a batch, then gives all of it back.
        let seed = |db: roadlog::db::Db| async move {
            let mut tx = db.begin_write().await.unwrap();
            for n in 0..3 {
                outbox::enqueue(&mut tx, &format!("r{n}@example.com"), "Held", "body", None).await.unwrap();
            }
            tx.commit().await.unwrap();
            let sender = Sender::new(db.clone(), Transport::Log);
            let (_keep, stopped) = tokio::sync::watch::channel(true);
            assert_eq!(sender.deliver_pending(&stopped).await.unwrap(), 0);
            type Row = (Option<i64>, i64, Option<String>, Option<i64>);
            let rows: Vec<Row> = sqlx::query_as(
                "SELECT sent_at, attempts, claimed_by, claimed_until FROM emails WHERE subject = 'Held' ORDER BY id",
            )
            .fetch_all(&db.pool)
            .await
            .unwrap();
            assert_eq!(rows, vec![(None, 0, None, None); 3], "unclaimed, no attempt counted");
        };
        let app = TestApp::spawn_seeded(backend, |_| {}, seed).await;
        app.cleanup().await;
    }
}
