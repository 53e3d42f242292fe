//! The scope of a request made with an employment token: the software acts as the employee, but
//! only inside the one company the employee linked it to (reference §3.1, the reference's
//! `g.company`), and among the employee's applications it sees its own only.
//!
//! The scope is a value of the [`Caller`](super::Caller), resolved once per request with it
//! ([`Scope`]). The lists that belong to the user across companies — notifications, regulation
//! computations, authorized applications — take it as a parameter, so that no path reaches them
//! without it. The older predicates (who may read or manage a company, read or write a mission,
//! which employments and missions a user lists, what an export covers) still read it from a
//! task-local set for the request's execution ([`within`], [`allows`], [`require`]); tasks that
//! the request spawns (the GraphQL loaders) carry it along with [`spawn`].
//!
//! Outside a request (the command line, background jobs) the scope is [`Scope::Unconfined`]:
//! nothing is restricted.

use std::future::Future;

use crate::errors::{AppError, AppResult};

/// How far a caller reaches: wherever its user may go, or — with a software vendor's employment
/// token — one company, and among the user's applications the vendor's own OAuth client.
///
/// It is part of the [`Caller`](super::Caller) ([`Caller::scope`](super::Caller::scope)); the
/// domain functions whose answer depends on it take it as a parameter, so that a caller cannot
/// reach them without saying how far it reaches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Everything the user may reach (a login session, an OAuth client, the command line).
    #[default]
    Unconfined,
    /// An employment token's: the company of its employment, and the vendor's client.
    Employment { company_id: i64, client_id: i64 },
}

impl Scope {
    /// The company the caller is confined to, if any.
    pub fn company(self) -> Option<i64> {
        match self {
            Scope::Unconfined => None,
            Scope::Employment { company_id, .. } => Some(company_id),
        }
    }

    /// The one OAuth client the caller may see among the user's applications, if confined.
    pub fn client(self) -> Option<i64> {
        match self {
            Scope::Unconfined => None,
            Scope::Employment { client_id, .. } => Some(client_id),
        }
    }

    /// Whether the caller may see the company at all.
    pub fn allows(self, company_id: i64) -> bool {
        self.company().is_none_or(|scope| scope == company_id)
    }

    /// Whether the caller may see or act on the user's authorization of this OAuth client.
    pub fn allows_client(self, client_id: i64) -> bool {
        self.client().is_none_or(|scope| scope == client_id)
    }

    /// [`out_of_scope`] for a company outside the scope.
    pub fn require(self, company_id: i64) -> AppResult<()> {
        if self.allows(company_id) {
            Ok(())
        } else {
            Err(out_of_scope())
        }
    }

    /// Keeps the rows of companies in scope (all of them when unconfined).
    pub fn keep<T>(self, rows: Vec<T>, company_of: impl Fn(&T) -> i64) -> Vec<T> {
        match self.company() {
            None => rows,
            Some(scope) => rows.into_iter().filter(|r| company_of(r) == scope).collect(),
        }
    }
}

tokio::task_local! {
    static SCOPE: Scope;
}

/// Runs `future` with the scope `scope`, for the predicates below that do not take it as a
/// parameter yet.
///
/// Not an `async fn`: one would hold `future` twice in its state (the argument and the scope
/// wrapping it), and a request's future is moved whole at each layer above it.
pub fn within<F: Future>(scope: Scope, future: F) -> impl Future<Output = F::Output> {
    SCOPE.scope(scope, future)
}

/// The scope of the current request (unconfined outside one).
fn scope() -> Scope {
    SCOPE.try_with(|s| *s).unwrap_or_default()
}

/// The company the current request is confined to, if any.
pub fn current() -> Option<i64> {
    scope().company()
}

/// Whether the current request may see the company at all.
pub fn allows(company_id: i64) -> bool {
    scope().allows(company_id)
}

/// AUTHORIZATION_ERROR "Forbidden access" for a company outside the request's scope: the same
/// answer as an unknown id, so that the software cannot probe the employee's other companies.
pub fn require(company_id: i64) -> AppResult<()> {
    scope().require(company_id)
}

/// The refusal of anything outside the scope.
pub fn out_of_scope() -> AppError {
    AppError::authorization("Forbidden access")
}

/// Keeps the rows of companies in the current request's scope (all of them without a scope).
pub fn keep<T>(rows: Vec<T>, company_of: impl Fn(&T) -> i64) -> Vec<T> {
    scope().keep(rows, company_of)
}

/// Spawns a task of the request with the request's scope.
pub fn spawn<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    tokio::spawn(within(scope(), future))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_scope_holds_inside_and_only_inside() {
        assert!(allows(7) && current().is_none());
        let confined = Scope::Employment {
            company_id: 3,
            client_id: 9,
        };
        assert!(confined.allows_client(9) && !confined.allows_client(8));
        assert!(Scope::Unconfined.allows_client(8) && Scope::Unconfined.allows(7));
        within(confined, async {
            assert_eq!(current(), Some(3));
            assert!(allows(3) && !allows(7));
            assert!(require(7).is_err() && require(3).is_ok());
            assert_eq!(keep(vec![1, 3, 3, 7], |c| *c), vec![3, 3]);
            let inner = spawn(async { current() }).await.unwrap();
            assert_eq!(inner, Some(3));
        })
        .await;
        within(Scope::Unconfined, async { assert!(allows(7)) }).await;
        assert!(current().is_none());
    }
}
