//! The threads that write the reports' files: each workbook (and the ZIP of several) is written
//! on a thread of its own at the lowest scheduling priority, so that when the API and a report
//! both want the cores, the API gets them, and a report uses only the time left over. The
//! worker's concurrency bounds how many such threads run at once.

use crate::errors::{AppError, AppResult};

/// The nice value of a report's thread: the lowest priority there is.
pub const NICE: i32 = 19;

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
