//! The database: one code path over sqlx's `Any` driver for SQLite (embedded default) and
//! PostgreSQL (production, shared by several server instances).
//!
//! Portable schema rules, because the `Any` driver knows only a few value kinds: flags are
//! `INTEGER` 0/1, times are `BIGINT` Unix seconds, dates are `TEXT` `YYYY-MM-DD` (which sorts
//! like the date), identifiers are 64-bit integers. Invariants live in the database (unique keys,
//! checks, foreign keys), never only in memory, so that concurrent requests cannot break them.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, ConnectOptions};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::{Environment, SqliteSynchronous};

pub mod request;
pub mod sql;
pub use sql::PerBackend;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("src/db/migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("src/db/migrations/postgres");

/// Which database server is behind the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The database behind a connection (for code that runs on a connection or transaction
    /// rather than on the pool).
    pub fn of(conn: &sqlx::AnyConnection) -> Backend {
        if conn.backend_name() == "PostgreSQL" {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }

    /// The spelling of `statement` for this database.
    pub fn sql(self, statement: sql::PerBackend) -> &'static str {
        match self {
            Backend::Sqlite => statement.sqlite,
            Backend::Postgres => statement.postgres,
        }
    }
}

/// A connection pool and the backend it talks to.
#[derive(Clone, Debug)]
pub struct Db {
    pub pool: AnyPool,
    pub backend: Backend,
    /// SQLite's writers take turns here (see [`Db::begin_write`]).
    writer_turn: Arc<Semaphore>,
    /// How many requests may hold a connection of their own ([`request`]).
    request_gate: request::Gate,
    /// The connection of the request this `Db` was made for ([`Db::for_request`]), if any.
    request: Option<Arc<request::Shared>>,
    /// SQLite's `synchronous`, which every connection of the pool is given.
    synchronous: SqliteSynchronous,
}

/// A write transaction (see [`Db::begin_write`]): used as the connection it runs on, and ended
/// by [`WriteTx::commit`] or by being dropped (rolled back). On SQLite it holds the process's
/// writer turn until then.
pub struct WriteTx {
    tx: sqlx::Transaction<'static, sqlx::Any>,
    _turn: Option<OwnedSemaphorePermit>,
}

impl WriteTx {
    /// Commits, then gives the writer turn to the next writer.
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        self.tx.commit().await
    }

    /// Undoes everything the transaction wrote, now rather than when the connection is next
    /// used, then gives the writer turn to the next writer.
    pub async fn rollback(self) -> Result<(), sqlx::Error> {
        self.tx.rollback().await
    }
}

impl std::ops::Deref for WriteTx {
    type Target = sqlx::AnyConnection;
    fn deref(&self) -> &sqlx::AnyConnection {
        &self.tx
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut sqlx::AnyConnection {
        &mut self.tx
    }
}

/// The pool's settings, and those of each connection it opens.
fn pool_options(backend: Backend, synchronous: SqliteSynchronous, size: u32) -> AnyPoolOptions {
    // No ping before each acquire: it doubles the round trips of every statement
    // (bench/README.md, "Figures behind code choices"). A connection the server closed fails
    // its next statement once and is replaced; idle ones are recycled before a server's own
    // idle timeout would close them.
    AnyPoolOptions::new()
        .max_connections(size)
        .test_before_acquire(false)
        .idle_timeout(Duration::from_secs(300))
        .max_lifetime(Duration::from_secs(1800))
        .acquire_timeout(Duration::from_secs(10))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    // WAL lets readers run beside the writer; the busy timeout makes
                    // concurrent writers wait for each other instead of failing at once.
                    sqlx::query("PRAGMA journal_mode = WAL").execute(&mut *conn).await?;
                    sqlx::query("PRAGMA busy_timeout = 10000").execute(&mut *conn).await?;
                    sqlx::query("PRAGMA foreign_keys = ON").execute(&mut *conn).await?;
                    // Under WAL, NORMAL syncs at checkpoints instead of every commit: a
                    // crash of the process loses nothing (the WAL is in the OS's hands), a
                    // power loss may drop the last commits. The book says so; FULL on demand.
                    let pragma = match synchronous {
                        SqliteSynchronous::Normal => "PRAGMA synchronous = NORMAL",
                        SqliteSynchronous::Full => "PRAGMA synchronous = FULL",
                    };
                    sqlx::query(pragma).execute(&mut *conn).await?;
                }
                Ok(())
            })
        })
}

impl Db {
    /// Opens the database at `url` with the default settings.
    pub async fn connect(url: &str) -> anyhow::Result<Db> {
        Db::connect_with(url, SqliteSynchronous::default()).await
    }

    /// Opens the database at `url`, creating a SQLite file (and its folder) if needed.
    pub async fn connect_with(url: &str, synchronous: SqliteSynchronous) -> anyhow::Result<Db> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            anyhow::bail!("unsupported database URL: use sqlite://… or postgres://…");
        };
        if backend == Backend::Sqlite
            && let Some(parent) = sqlite_file(url).and_then(|p| std::path::Path::new(p).parent().map(|d| d.to_owned()))
            && !parent.as_os_str().is_empty()
            && !parent.exists()
        {
            // A folder we create holds secrets (signing keys, token hashes): the service's only.
            std::fs::create_dir_all(&parent)?;
            set_mode(&parent, 0o700)?;
        }
        let options = AnyConnectOptions::from_str(url)?.log_statements(tracing::log::LevelFilter::Trace);
        // One connection first, outside the pool: an unreachable server or an unopenable file
        // fails here at once with the system's reason ("connection refused"), where the pool
        // would retry until its timeout and report only that it timed out.
        let probe = <sqlx::AnyConnection as sqlx::Connection>::connect_with(&options).await?;
        sqlx::Connection::close(probe).await?;
        if let Some(file) = sqlite_file(url) {
            // Readable by the service only; SQLite gives its WAL and shared-memory files the
            // same mode as the database file.
            set_mode(std::path::Path::new(file), 0o600)?;
        }
        let size = if backend == Backend::Sqlite { 8 } else { 16 };
        let pool = pool_options(backend, synchronous, size).connect_with(options).await?;
        Ok(Db {
            pool,
            backend,
            writer_turn: Arc::new(Semaphore::new(1)),
            request_gate: request::Gate::for_pool(size),
            request: None,
            synchronous,
        })
    }

    /// The same database through a pool of its own of at most `size` connections, opened as
    /// they are needed, with the same settings; writers still take turns with this `Db`'s. Its
    /// connections belong to the runtime that calls this (their sockets, and the pool's upkeep):
    /// for work that runs on a runtime of its own (the reports' reader,
    /// `domain::export::jobs::thread`).
    pub fn with_own_pool(&self, size: u32) -> Db {
        let options = (*self.pool.connect_options()).clone();
        Db {
            pool: pool_options(self.backend, self.synchronous, size).connect_lazy_with(options),
            request_gate: request::Gate::for_pool(size),
            request: None,
            ..self.clone()
        }
    }

    fn migrator(&self) -> &'static Migrator {
        match self.backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        }
    }

    /// Applies the migrations of this backend (both sets are kept in lock-step).
    pub async fn migrate(&self) -> anyhow::Result<()> {
        self.migrator().run(&self.pool).await?;
        Ok(())
    }

    /// Whether the database answers and holds every migration this version knows: the number
    /// applied, or why it is not ready.
    pub async fn readiness(&self) -> Result<i64, String> {
        let known = self.migrator().iter().count() as i64;
        let applied: Result<(i64,), _> = sqlx::query_as("SELECT COUNT(*) FROM _sqlx_migrations WHERE success")
            .fetch_one(self)
            .await;
        match applied {
            Ok((applied,)) if applied >= known => Ok(applied),
            Ok((applied,)) => Err(format!("The database lacks migrations: {applied} of {known} applied")),
            Err(error) => {
                tracing::warn!(%error, "readiness: the database does not answer");
                Err("The database is unreachable".to_string())
            }
        }
    }

    /// Binds the database to one environment the first time, and refuses afterwards to serve it
    /// as the other one: sandbox data must never be served as production data, or the reverse.
    pub async fn claim_environment(&self, environment: Environment) -> anyhow::Result<()> {
        sqlx::query("INSERT INTO environment (id, name) VALUES (1, $1) ON CONFLICT (id) DO NOTHING")
            .bind(environment.as_str())
            .execute(self)
            .await?;
        let (stored,): (String,) = sqlx::query_as("SELECT name FROM environment WHERE id = 1")
            .fetch_one(self)
            .await?;
        if stored != environment.as_str() {
            anyhow::bail!(
                "this database holds {stored} data and cannot be served as {}: use the database of that environment",
                environment.as_str()
            );
        }
        Ok(())
    }

    /// Starts a transaction that will write. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a deferred transaction that reads first cannot wait for the lock
    /// later and fails with "database is locked" under concurrency. SQLite has one writer at a
    /// time anyway, so this process's writers first take turns on a fair queue, before they
    /// take a connection: without it they would wait in SQLite's busy handler, which sleeps
    /// and retries (up to 100 ms a retry, which shows in the writes' p99) and holds
    /// a pooled connection meanwhile. Other processes on the same file still meet the busy
    /// timeout. On PostgreSQL writers serialise on the row locks they take, so a plain `BEGIN`
    /// is right.
    pub async fn begin_write(&self) -> Result<WriteTx, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => {
                let turn = Arc::clone(&self.writer_turn)
                    .acquire_owned()
                    .await
                    .map_err(|_| sqlx::Error::PoolClosed)?;
                Ok(WriteTx {
                    tx: self.pool.begin_with("BEGIN IMMEDIATE").await?,
                    _turn: Some(turn),
                })
            }
            Backend::Postgres => Ok(WriteTx {
                tx: self.pool.begin().await?,
                _turn: None,
            }),
        }
    }

    /// The spelling of `statement` for this database.
    pub fn sql(&self, statement: sql::PerBackend) -> &'static str {
        self.backend.sql(statement)
    }

    /// Whether the database answers (for `GET /health`).
    pub async fn ping(&self) -> bool {
        sqlx::query("SELECT 1").execute(self).await.is_ok()
    }
}

#[cfg(unix)]
fn set_mode(path: &std::path::Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &std::path::Path, _: u32) -> std::io::Result<()> {
    Ok(())
}

fn sqlite_file(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or("");
    (!path.is_empty() && path != ":memory:").then_some(path)
}

/// The parameter of an id list (`[column in N]` in [`per_backend!`](crate::per_backend)): the
/// ids as a JSON array.
pub fn id_list(ids: &[i64]) -> String {
    let mut text = String::with_capacity(ids.len() * 8 + 2);
    text.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&id.to_string());
    }
    text.push(']');
    text
}

/// The integers of a comma-joined text ([`sql::JOINED_USER_IDS`], a recap's day sets), in its
/// order (null: none).
pub fn joined_integers(text: Option<&str>) -> Result<Vec<i64>, std::num::ParseIntError> {
    text.map_or(Ok(vec![]), |text| text.split(',').map(str::parse).collect())
}

/// The current time in Unix seconds.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Whether an error is the violation of a unique key (both backends).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => {
            db.is_unique_violation() || db.code().is_some_and(|c| c == "23505" || c == "2067" || c == "1555")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn id_lists_are_json_arrays() {
        assert_eq!(super::id_list(&[]), "[]");
        assert_eq!(super::id_list(&[3, -1, 42]), "[3,-1,42]");
    }

    #[test]
    fn sqlite_paths_are_found() {
        assert_eq!(super::sqlite_file("sqlite://data/x.db?mode=rwc"), Some("data/x.db"));
        assert_eq!(super::sqlite_file("sqlite::memory:"), None);
    }
}
