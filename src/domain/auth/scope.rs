//! The scope of a request made with an employment token: the software acts as the employee, but
//! only inside the one company the employee linked it to, and among the employee's applications it
//! sees its own only.
//!
//! The scope is a value of the [`Caller`](super::Caller), resolved once per request with it
//! ([`Scope`]), and travels inside the [`Actor`](super::Actor) that the resolvers hand to the
//! domain: every function whose answer depends on it (who may read or manage a company, read or
//! write a mission, which employments and missions a user lists, what an export covers, the
//! lists that belong to the user across companies) takes the actor or the scope as a parameter,
//! so that no path reaches it without saying how far its caller reaches.
//!
//! Outside a request (the command line, background jobs) the scope is [`Scope::Unconfined`]:
//! nothing is restricted.

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

/// The refusal of anything outside the scope.
pub fn out_of_scope() -> AppError {
    AppError::authorization("Forbidden access")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confined_scope_reaches_its_company_and_client_only() {
        let confined = Scope::Employment {
            company_id: 3,
            client_id: 9,
        };
        assert_eq!(confined.company(), Some(3));
        assert!(confined.allows(3) && !confined.allows(7));
        assert!(confined.require(7).is_err() && confined.require(3).is_ok());
        assert_eq!(confined.keep(vec![1, 3, 3, 7], |c| *c), vec![3, 3]);
        assert!(confined.allows_client(9) && !confined.allows_client(8));
        assert!(Scope::Unconfined.allows_client(8) && Scope::Unconfined.allows(7));
        assert_eq!(Scope::Unconfined.keep(vec![1, 7], |c| *c), vec![1, 7]);
        assert!(Scope::Unconfined.require(7).is_ok());
    }
}
