//! Temporary databases and folders of a test run. Each run keeps its SQLite folders under one
//! folder named after its process id and names its PostgreSQL databases after it too, so that
//! the end of the run removes them all, failed tests included, and the next run removes what a
//! killed run left behind (a process id that no longer runs).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// PostgreSQL databases created by this run: (server URL, name).
static DATABASES: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

const PREFIX: &str = "roadlog_test_";

/// The folder of this run's SQLite databases.
pub fn run_dir() -> PathBuf {
    std::env::temp_dir().join(format!("{PREFIX}{}", std::process::id()))
}

/// A name no other test of any run uses: `roadlog_test_<pid>_<n>`.
pub fn unique_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{PREFIX}{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A new folder for one test's files, removed when the run ends.
pub fn new_dir() -> PathBuf {
    let dir = run_dir().join(unique_name());
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// Remembers a database to drop when the run ends.
pub fn register_database(server_url: &str, name: &str) {
    DATABASES
        .lock()
        .unwrap()
        .push((server_url.to_string(), name.to_string()));
}

/// Forgets a database a test dropped itself.
pub fn forget_database(name: &str) {
    DATABASES.lock().unwrap().retain(|(_, n)| n != name);
}

/// Drops one database (connections of a failed test's server included).
pub async fn drop_database(server_url: &str, name: &str) {
    if let Ok(mut conn) = <sqlx::AnyConnection as sqlx::Connection>::connect(server_url).await {
        let drop = sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        let _ = sqlx::query(drop).execute(&mut conn).await;
    }
}

/// Removes everything this run created.
pub fn remove_all() {
    let databases = std::mem::take(&mut *DATABASES.lock().unwrap());
    if !databases.is_empty() {
        super::harness::block_on(Box::pin(async move {
            for (url, name) in databases {
                drop_database(&url, &name).await;
            }
        }));
    }
    let _ = std::fs::remove_dir_all(run_dir());
}

fn process_runs(pid: &str) -> bool {
    std::path::Path::new("/proc").join(pid).exists()
}

/// The process id in a name of ours, if any.
fn owner(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(PREFIX)?;
    let pid = rest.split('_').next()?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(pid)
}

/// Removes what runs that no longer exist left behind.
pub fn sweep_stale() {
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if owner(&name).is_some_and(|pid| !process_runs(pid)) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let Some(url) = super::app::postgres_url() else {
        return;
    };
    super::harness::block_on(Box::pin(async move {
        sqlx::any::install_default_drivers();
        let Ok(mut conn) = <sqlx::AnyConnection as sqlx::Connection>::connect(&url).await else {
            return;
        };
        let names: Vec<(String,)> =
            sqlx::query_as("SELECT datname::text FROM pg_database WHERE datname LIKE 'roadlog\\_test\\_%'")
                .fetch_all(&mut conn)
                .await
                .unwrap_or_default();
        drop(conn);
        for (name,) in names {
            if owner(&name).is_some_and(|pid| !process_runs(pid)) {
                drop_database(&url, &name).await;
            }
        }
    }));
}
