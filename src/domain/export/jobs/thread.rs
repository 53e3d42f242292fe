//! The threads that build the reports, at the lowest scheduling priority, so that when the API
//! and a report both want the cores, the API gets them and a report uses the time left over:
//!
//! - the [`Reader`]: a thread of its own running a runtime of its own, on which each report is
//!   read from the database (its statements on a pool of the reader's, their rows decoded and the
//!   days computed there; on SQLite each connection's thread is started by it and inherits its
//!   priority);
//! - [`run`]: a thread per workbook (and for the ZIP of several), which writes and signs it.
//!
//! The worker's concurrency bounds how many reports are read and written at once. Only reads
//! run at the low priority: a write holding SQLite's lock at that priority would hold up the
//! API's writers, so the jobs' writes stay with the worker.

use crate::db::Db;
use crate::errors::{AppError, AppResult};

/// The nice value of a report's thread: the lowest priority there is.
pub const NICE: i32 = 19;

/// The reports' reader: a low-priority thread driving a runtime with a pool of its own.
/// Dropping it stops the thread, and with it the reads still running there.
pub struct Reader {
    handle: tokio::runtime::Handle,
    db: Db,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Reader {
    /// Starts the reader, with a pool of at most `connections` beside `db`'s.
    pub async fn start(db: &Db, connections: u32) -> AppResult<Reader> {
        let (ready, started) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let db = db.clone();
        std::thread::Builder::new()
            .name("report-reader".to_string())
            .spawn(move || {
                lower_priority();
                let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = ready.send(Err(AppError::internal(error)));
                        return;
                    }
                };
                // The pool is made here: its connections and its upkeep belong to this runtime.
                let own = runtime.block_on(async { db.with_own_pool(connections) });
                let _ = ready.send(Ok((runtime.handle().clone(), own)));
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })
            .map_err(AppError::internal)?;
        let (handle, db) = started.await.map_err(AppError::internal)??;
        Ok(Reader {
            handle,
            db,
            _stop: stop,
        })
    }

    /// Runs `read` on the reader with its database, and waits for its result without blocking
    /// the caller's runtime. Dropping the returned future stops the read.
    pub async fn read<T, F, Fut>(&self, read: F) -> AppResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Db) -> Fut,
        Fut: std::future::Future<Output = AppResult<T>> + Send + 'static,
    {
        AbortOnDrop(self.handle.spawn(read(self.db.clone()))).await
    }
}

/// A task of the reader's runtime, stopped when its waiter is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<AppResult<T>>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> std::future::Future for AbortOnDrop<T> {
    type Output = AppResult<T>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0)
            .poll(cx)
            .map(|joined| joined.map_err(AppError::internal).and_then(|outcome| outcome))
    }
}

/// Runs `work` on a new low-priority thread and waits for its result without blocking the
/// runtime; a panic of `work` is an internal error.
pub async fn run<T: Send + 'static>(work: impl FnOnce() -> AppResult<T> + Send + 'static) -> AppResult<T> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("report-writer".to_string())
        .spawn(move || {
            lower_priority();
            let _ = sender.send(work());
        })
        .map_err(AppError::internal)?;
    receiver.await.map_err(AppError::internal)?
}

/// Lowers the calling thread's priority to [`NICE`]. On Linux the nice value belongs to each
/// thread (`who` 0 is the calling thread, not the process), so only this thread is lowered.
#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: setpriority only reads its integer arguments.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, NICE) } != 0 {
        tracing::debug!(error = %std::io::Error::last_os_error(), "report thread kept its priority");
    }
}

/// Elsewhere the same call would lower the whole process: the thread keeps its priority.
#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's nice value (Linux: `who` 0 is the thread).
    #[cfg(target_os = "linux")]
    fn nice() -> i32 {
        // SAFETY: getpriority only reads its integer arguments.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn writes_at_the_lowest_priority_and_leaves_the_caller_as_it_was() {
        let before = nice();
        let during = run(|| Ok(nice())).await.unwrap();
        assert_eq!(during, NICE);
        assert_eq!(nice(), before);
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_reader_reads_at_the_lowest_priority_through_its_own_pool() {
        let folder = std::env::temp_dir().join(format!("roadlog-reader-{}", std::process::id()));
        let db = Db::connect(&format!("sqlite://{}/reads.db?mode=rwc", folder.display()))
            .await
            .unwrap();
        let before = nice();
        let reader = Reader::start(&db, 1).await.unwrap();
        let (priority, answer, own) = reader
            .read(|reads| async move {
                let (answer,): (i64,) = sqlx::query_as("SELECT 41 + 1").fetch_one(&reads.pool).await?;
                Ok((nice(), answer, reads.pool.options().get_max_connections()))
            })
            .await
            .unwrap();
        assert_eq!((priority, answer, own), (NICE, 42, 1));
        assert_eq!(nice(), before);
        drop(reader);
        db.pool.close().await;
        let _ = std::fs::remove_dir_all(folder);
    }

    #[tokio::test]
    async fn a_dropped_read_is_stopped() {
        let folder = std::env::temp_dir().join(format!("roadlog-reader-stop-{}", std::process::id()));
        let db = Db::connect(&format!("sqlite://{}/reads.db?mode=rwc", folder.display()))
            .await
            .unwrap();
        let reader = Reader::start(&db, 1).await.unwrap();
        let (sender, mut ended) = tokio::sync::oneshot::channel::<()>();
        let read = reader.read(move |_| async move {
            let _keep = sender;
            std::future::pending::<AppResult<()>>().await
        });
        // Started, then dropped while it runs: its task is aborted, which drops what it held.
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(100), read)
                .await
                .is_err()
        );
        let closed = tokio::time::timeout(std::time::Duration::from_secs(5), &mut ended).await;
        assert!(matches!(closed, Ok(Err(_))), "the read's task still runs");
        drop(reader);
        db.pool.close().await;
        let _ = std::fs::remove_dir_all(folder);
    }

    #[tokio::test]
    async fn gives_the_work_result_or_error() {
        assert_eq!(run(|| Ok(7)).await.unwrap(), 7);
        assert!(
            run(|| -> AppResult<()> { Err(AppError::internal("broken")) })
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn a_panic_is_an_error_not_a_crash() {
        let outcome = run(|| -> AppResult<()> { panic!("a broken writer") }).await;
        assert!(outcome.is_err());
    }
}
