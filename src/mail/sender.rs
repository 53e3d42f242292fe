//! Delivers queued e-mails, through an SMTP relay when one is configured, otherwise by writing
//! one log line per message (recipient and subject only: bodies hold invitation tokens, which are
//! secrets). Every instance of the service runs a sender; a message is claimed by exactly one of
//! them under a lease, marked sent only after the relay accepted it, and released at once when
//! the relay fails or the server stops. A sender that dies holding a claim loses nothing: its
//! lease expires and another sender (or the same one after a restart) sends the message.

use std::time::Duration;

use tokio::sync::{broadcast, watch};

use super::outbox::{self, Claimed};
use crate::db::Db;

/// How often the outbox is polled.
const POLL: Duration = Duration::from_secs(1);

/// How long a claim holds: far longer than one delivery (the relay has 30 s per command).
pub const LEASE_SECS: i64 = 300;

/// Messages claimed at once.
const BATCH: i64 = 20;

/// How messages leave.
#[derive(Clone, Debug)]
pub enum Transport {
    Log,
    Smtp(Box<super::smtp::Relay>),
}

/// What happened to one message (for tests and metrics).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailEvent {
    Delivered { id: i64 },
    Failed { id: i64 },
}

/// One sender: its identity in the claims, its transport, where it reports.
pub struct Sender {
    db: Db,
    transport: Transport,
    id: String,
    events: broadcast::Sender<MailEvent>,
}

impl Sender {
    pub fn new(db: Db, transport: Transport) -> Sender {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).expect("the system has a random source");
        let id = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Sender {
            db,
            transport,
            id,
            events: broadcast::channel(256).0,
        }
    }

    /// Where deliveries and failures are reported (subscribe to follow them).
    pub fn events_sender(&self) -> broadcast::Sender<MailEvent> {
        self.events.clone()
    }

    /// Delivers what is queued now, unless `stop` turns true; returns how many went out.
    pub async fn deliver_pending(&self, stop: &watch::Receiver<bool>) -> Result<usize, sqlx::Error> {
        let mut total = 0;
        loop {
            let batch = outbox::claim(&self.db, &self.id, BATCH, LEASE_SECS).await?;
            if batch.is_empty() {
                return Ok(total);
            }
            let mut failed = false;
            for (index, message) in batch.iter().enumerate() {
                if *stop.borrow() {
                    let rest: Vec<i64> = batch[index..].iter().map(|m| m.id).collect();
                    outbox::release(&self.db, &self.id, &rest).await?;
                    return Ok(total);
                }
                match self.send(message).await {
                    Ok(()) => {
                        outbox::mark_sent(&self.db, &self.id, message.id).await?;
                        tracing::info!(email_id = message.id, recipient = %message.recipient, subject = %message.subject, "e-mail delivered");
                        let _ = self.events.send(MailEvent::Delivered { id: message.id });
                        total += 1;
                    }
                    Err(error) => {
                        tracing::warn!(email_id = message.id, recipient = %message.recipient, %error, "e-mail not delivered, will retry");
                        outbox::mark_failed(&self.db, &self.id, message.id, &error).await?;
                        let _ = self.events.send(MailEvent::Failed { id: message.id });
                        failed = true;
                    }
                }
            }
            if failed {
                // The relay is down: the next poll tries again.
                return Ok(total);
            }
        }
    }

    async fn send(&self, message: &Claimed) -> Result<(), String> {
        match &self.transport {
            Transport::Log => Ok(()),
            Transport::Smtp(relay) => relay.send(message).await,
        }
    }

    /// Runs until `stop` turns true: the message being sent is finished, the others released.
    pub fn spawn(self, mut stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                if *stop.borrow() {
                    return;
                }
                if let Err(error) = self.deliver_pending(&stop).await {
                    tracing::warn!(%error, "mail sender: outbox unavailable");
                }
                tokio::select! {
                    () = tokio::time::sleep(POLL) => {}
                    _ = stop.changed() => {}
                }
            }
        })
    }
}
