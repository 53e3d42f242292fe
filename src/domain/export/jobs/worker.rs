//! The report worker of an instance: claims queued jobs under a lease, builds at most
//! `concurrency` at once (read and written at the lowest priority, [`thread`]), keeps the
//! lease alive while building, and records the outcome only if the job is still its own and in
//! progress (a cancelled job stays cancelled, and its building stops at the next renewal). Each
//! round also fails the jobs out of attempts and removes the expired files.
//!
//! Instances sharing a database each run a worker; a job is claimed by one of them at a time
//! ([`store::claim`]). A worker that dies holding a job loses nothing: the lease expires and the
//! job is claimed again. A stopping server gives its jobs back at once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::db::{Db, now};

use super::build::{self, Outcome, SigningKey};
use super::store::{self, Job};
use super::thread;

/// How long a claim holds without renewal.
pub const LEASE_SECS: i64 = 120;

/// How often a job being built renews its lease (and notices a cancellation).
const RENEW_EVERY: Duration = Duration::from_secs(20);

/// How often the queue is polled.
const POLL: Duration = Duration::from_secs(1);

/// How often the upkeep runs (jobs out of attempts, expired files): nothing there is urgent.
const UPKEEP_EVERY: Duration = Duration::from_secs(30);

/// How many times a job's outcome is written before the job is left to its lease, the first
/// retry after `RECORD_RETRY`, each next one after twice as long.
const RECORD_ATTEMPTS: u32 = 5;
const RECORD_RETRY: Duration = Duration::from_millis(200);

/// Why a job failed when its building broke (the cause is in the server's log).
pub const BUILD_FAILED: &str = "La génération du fichier a échoué.";

/// A fresh claimer identity.
pub fn claimer_id() -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the system has a random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs the worker until `stop` turns true; builds at most `concurrency` jobs at once (at
/// least one), signing the workbooks with `key`.
pub fn spawn(
    db: Db,
    concurrency: usize,
    key: SigningKey,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let reader = match thread::Reader::start(&db, u32::try_from(concurrency.max(1)).unwrap_or(u32::MAX)).await {
            Ok(reader) => Arc::new(reader),
            Err(error) => {
                tracing::error!(
                    ?error,
                    "export worker: its reader did not start, no report is built here"
                );
                return;
            }
        };
        let claimer = claimer_id();
        let permits = Arc::new(Semaphore::new(concurrency.max(1)));
        let mut running = JoinSet::new();
        let mut last_upkeep: Option<Instant> = None;
        loop {
            if *stop.borrow() {
                break;
            }
            if last_upkeep.is_none_or(|at| at.elapsed() >= UPKEEP_EVERY) {
                last_upkeep = Some(Instant::now());
                match store::upkeep(&db).await {
                    Ok(0) => {}
                    Ok(removed) => tracing::info!(removed, "expired export files removed"),
                    Err(error) => tracing::warn!(?error, "export worker: upkeep failed"),
                }
            }
            while let Ok(permit) = permits.clone().try_acquire_owned() {
                match store::claim(&db, &claimer, LEASE_SECS).await {
                    Ok(Some(job)) => {
                        let (db, claimer, stop, key) = (db.clone(), claimer.clone(), stop.clone(), key.clone());
                        let reader = reader.clone();
                        running.spawn(async move {
                            run(&db, &reader, &claimer, job, key, stop).await;
                            drop(permit);
                        });
                    }
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!(?error, "export worker: the queue is unavailable");
                        break;
                    }
                }
            }
            while running.try_join_next().is_some() {}
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                _ = stop.changed() => {}
                Some(_) = running.join_next(), if !running.is_empty() => {}
            }
        }
        // Each job sees the stop and gives itself back.
        while running.join_next().await.is_some() {}
    })
}

/// Builds one claimed job on the reader and records its outcome.
async fn run(
    db: &Db,
    reader: &thread::Reader,
    claimer: &str,
    job: Job,
    key: SigningKey,
    mut stop: watch::Receiver<bool>,
) {
    let started = Instant::now();
    let elapsed = || i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    let (asked, at) = (job.clone(), now());
    let building = reader.read(move |reads| async move { build::build(&reads, &asked, at, key).await });
    tokio::pin!(building);
    // The guard `wait_for` gives is dropped inside this future, before the release awaits.
    let stopping = async move {
        let _ = stop.wait_for(|stopped| *stopped).await;
    };
    tokio::pin!(stopping);
    let mut renewal = tokio::time::interval(RENEW_EVERY);
    renewal.tick().await;
    let outcome = loop {
        tokio::select! {
            outcome = &mut building => break outcome,
            _ = renewal.tick() => {
                match store::renew(db, claimer, job.id, LEASE_SECS).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::info!(export_id = job.id, "export stopped: cancelled or taken over");
                        return;
                    }
                    Err(error) => tracing::warn!(?error, export_id = job.id, "export lease not renewed"),
                }
            }
            () = &mut stopping => {
                if let Err(error) = store::release(db, claimer, job.id).await {
                    tracing::warn!(?error, export_id = job.id, "export not given back: its lease will expire");
                }
                return;
            }
        }
    };
    // A failure to record the outcome (a busy database, a connection lost) is retried a few
    // times before the job is left to its lease: a built file is not thrown away for a moment's
    // unavailability, nor the job rebuilt two minutes later.
    let mut attempt = 0;
    loop {
        let recorded = record(db, claimer, &job, &outcome, elapsed()).await;
        match recorded {
            Ok(()) => break,
            Err(error) if attempt + 1 < RECORD_ATTEMPTS => {
                tracing::warn!(
                    ?error,
                    export_id = job.id,
                    attempt,
                    "export outcome not recorded: retrying"
                );
                tokio::time::sleep(RECORD_RETRY * 2u32.pow(attempt)).await;
                attempt += 1;
            }
            Err(error) => {
                tracing::warn!(
                    ?error,
                    export_id = job.id,
                    "export outcome not recorded: its lease will expire"
                );
                break;
            }
        }
    }
}

/// Records a job's outcome: its file, or why it failed.
async fn record(
    db: &Db,
    claimer: &str,
    job: &Job,
    outcome: &crate::errors::AppResult<Outcome>,
    elapsed: i64,
) -> crate::errors::AppResult<()> {
    match outcome {
        Ok(Outcome::Built(file)) => {
            let size = file.bytes.len();
            if store::finish(db, claimer, job.id, file, elapsed).await? {
                tracing::info!(
                    export_id = job.id,
                    exporter = job.exporter,
                    size,
                    ms = elapsed,
                    "export ready"
                );
            } else {
                tracing::info!(export_id = job.id, "export built but cancelled meanwhile: not stored");
            }
            Ok(())
        }
        Ok(Outcome::Refused(reason)) => {
            tracing::info!(export_id = job.id, %reason, "export failed");
            store::fail(db, claimer, job.id, reason, elapsed).await
        }
        Err(error) => {
            tracing::error!(?error, export_id = job.id, "export failed");
            store::fail(db, claimer, job.id, BUILD_FAILED, elapsed).await
        }
    }
}
