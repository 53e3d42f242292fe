//! The company scope of a request made with an employment token: the software acts as the
//! employee, but only inside the one company the employee linked it to (reference §3.1, the
//! reference's `g.company`).
//!
//! The scope is resolved once per request with the [`Caller`](super::Caller) and held in a
//! task-local for the request's execution, and the domain's predicates and lists consult it
//! ([`allows`], [`require`]): who may read or manage a company, read or write a mission, which
//! employments and missions a user lists, what an export covers. Threading it as a parameter
//! through every domain function would touch each of them, and one forgotten call would be a
//! leak; here the check sits in the few predicates every path already goes through. Tasks that
//! the request spawns (the GraphQL loaders) carry it along with [`spawn`].
//!
//! Outside a request (the command line, background jobs) there is no scope: nothing is
//! restricted.

use std::future::Future;

use crate::errors::{AppError, AppResult};

tokio::task_local! {
    static COMPANY: Option<i64>;
}

/// Runs `future` with the company scope `company` (`None`: unrestricted).
///
/// Not an `async fn`: one would hold `future` twice in its state (the argument and the scope
/// wrapping it), and a request's future is moved whole at each layer above it.
pub fn within<F: Future>(company: Option<i64>, future: F) -> impl Future<Output = F::Output> {
    COMPANY.scope(company, future)
}

/// The company the current request is confined to, if any.
pub fn current() -> Option<i64> {
    COMPANY.try_with(|c| *c).ok().flatten()
}

/// Whether the current request may see the company at all.
pub fn allows(company_id: i64) -> bool {
    current().is_none_or(|scope| scope == company_id)
}

/// AUTHORIZATION_ERROR "Forbidden access" for a company outside the request's scope: the same
/// answer as an unknown id, so that the software cannot probe the employee's other companies.
pub fn require(company_id: i64) -> AppResult<()> {
    if allows(company_id) {
        Ok(())
    } else {
        Err(out_of_scope())
    }
}

/// The refusal of anything outside the scope.
pub fn out_of_scope() -> AppError {
    AppError::authorization("Forbidden access")
}

/// Keeps the rows of companies in scope (all of them without a scope).
pub fn keep<T>(rows: Vec<T>, company_of: impl Fn(&T) -> i64) -> Vec<T> {
    match current() {
        None => rows,
        Some(scope) => rows.into_iter().filter(|r| company_of(r) == scope).collect(),
    }
}

/// Spawns a task of the request with the request's scope.
pub fn spawn<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let company = current();
    tokio::spawn(within(company, future))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_scope_holds_inside_and_only_inside() {
        assert!(allows(7) && current().is_none());
        within(Some(3), async {
            assert_eq!(current(), Some(3));
            assert!(allows(3) && !allows(7));
            assert!(require(7).is_err() && require(3).is_ok());
            assert_eq!(keep(vec![1, 3, 3, 7], |c| *c), vec![3, 3]);
            let inner = spawn(async { current() }).await.unwrap();
            assert_eq!(inner, Some(3));
        })
        .await;
        within(None, async { assert!(allows(7)) }).await;
        assert!(current().is_none());
    }
}
