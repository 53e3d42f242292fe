//! The identity behind a request, resolved once from its credentials: `Authorization: Bearer`
//! (a login session's access token or an OAuth client's), or a software vendor's
//! `X-CLIENT-ID` + `X-EMPLOYMENT-TOKEN`.
//!
//! The order is the reference's (§3.1): a valid login token wins; then the employment token (its
//! refusal is the answer, whatever else was sent); then the bearer value as before (an OAuth
//! client's token, or the refusal of a login token).

use std::sync::Arc;

use crate::db::{Db, now};
use crate::domain::users::accounts::{USER_COLUMNS_OF_U, UserRow};
use crate::domain::vendors::employment_tokens::{self, Grant};
use crate::errors::AppError;

use super::scope::Scope;
use super::tokens;

/// An authenticated user acting, with the reach of the credential they act through: the one
/// name the domain gives whoever acts (parameters named `actor`). The transport gets it from a
/// [`Caller`] ([`Caller::actor`]); the command line, jobs and the sandbox make it unconfined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Actor {
    pub user_id: i64,
    pub scope: Scope,
}

impl Actor {
    /// The user acting with no confinement: a login session, an OAuth client, the command line,
    /// a background job.
    pub fn unconfined(user_id: i64) -> Actor {
        Actor {
            user_id,
            scope: Scope::Unconfined,
        }
    }
}

/// The statements that find the caller. Each reads the user's row with their token, so that
/// `me` — where most documents start — costs no statement of its own (a token's user always
/// exists, by foreign key: the join never loses a token).
pub mod sql {
    use super::USER_COLUMNS_OF_U;
    use const_format::concatcp;

    crate::statements! {
        /// A login session's access token (`$1` its hash): its session's state and its user.
        pub const LOGIN_TOKEN: &str = concatcp!(
            "SELECT t.session_id, t.expires_at, s.revoked_at, ",
            USER_COLUMNS_OF_U,
            " FROM auth_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = t.user_id \
             WHERE t.token_hash = $1 AND t.kind = 'access'"
        );
        /// An OAuth client's access token (`$1` its hash) valid at `$2`, and its user.
        pub const OAUTH_TOKEN: &str = concatcp!(
            "SELECT ",
            USER_COLUMNS_OF_U,
            " FROM oauth_tokens t JOIN oauth_clients c ON c.id = t.client_id JOIN users u ON u.id = t.user_id \
             WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND c.revoked_at IS NULL \
               AND (t.expires_at IS NULL OR t.expires_at > $2)"
        );
    }
}

/// A login token's row: its session's state and its user.
#[derive(sqlx::FromRow)]
struct LoginToken {
    session_id: i64,
    expires_at: i64,
    revoked_at: Option<i64>,
    #[sqlx(flatten)]
    account: UserRow,
}

/// What the credentials of a request amount to, as the transport reads them (GraphQL and REST
/// alike): nobody, a user, or a refusal. The domain never takes it: it takes the [`Actor`] that
/// [`Caller::actor`] gives for a user; the caller keeps what the actor does not say (the session,
/// the employment token's [`Grant`] for the vendors' audit trail, the row read with the token).
#[derive(Clone, Debug)]
pub enum Caller {
    /// No credentials were sent.
    Anonymous,
    /// A valid access token of this user: a login session's, or an OAuth client's (no session);
    /// or a software vendor's employment token (`employment`), confined to its company.
    User {
        user_id: i64,
        session_id: Option<i64>,
        employment: Option<Grant>,
        /// The user's row as read with the token (none with an employment token): what `me`
        /// answers until a mutation of the request may have changed it (see [`Caller::account`]).
        account: Option<Arc<UserRow>>,
    },
    /// Credentials were sent but are not valid; the message says why.
    Rejected(&'static str),
}

/// The raw bearer value, for the operations that take a refresh token instead of an access token.
#[derive(Clone, Debug, Default)]
pub struct BearerToken(pub Option<String>);

/// Every credential a request may carry, as the transport read them from its headers.
#[derive(Clone, Debug, Default)]
pub struct Credentials {
    pub bearer: BearerToken,
    /// `X-CLIENT-ID`.
    pub client_id: Option<String>,
    /// `X-EMPLOYMENT-TOKEN`.
    pub employment_token: Option<String>,
}

impl Caller {
    /// Reads the bearer value out of an `Authorization` header.
    pub fn bearer(header: Option<&str>) -> BearerToken {
        let value = header.and_then(|h| {
            let (scheme, rest) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim().to_string())
        });
        BearerToken(value.filter(|v| !v.is_empty()))
    }

    /// Resolves the credentials of a request, in the reference's order.
    pub async fn resolve(db: &Db, credentials: &Credentials) -> Result<Caller, AppError> {
        let login = match &credentials.bearer.0 {
            Some(token) if !token.starts_with("rl_oat_") => Self::of_login_token(db, token).await?,
            _ => None,
        };
        if let Some(caller @ Caller::User { .. }) = login {
            return Ok(caller);
        }
        if let Some(token) = credentials.employment_token.as_deref().filter(|t| !t.trim().is_empty()) {
            let Some(client) = credentials.client_id.as_deref() else {
                return Ok(Caller::Rejected("X-EMPLOYMENT-TOKEN needs the X-CLIENT-ID header"));
            };
            return Ok(match employment_tokens::resolve(db, client, token).await? {
                Ok(grant) => Caller::User {
                    user_id: grant.user_id,
                    session_id: None,
                    employment: Some(grant),
                    account: None,
                },
                Err(refusal) => Caller::Rejected(refusal.message()),
            });
        }
        let Some(token) = &credentials.bearer.0 else {
            return Ok(Caller::Anonymous);
        };
        Ok(match login {
            Some(rejected) => rejected,
            None if token.starts_with("rl_at_") => Caller::Rejected("Invalid token"),
            // No known prefix, or an OAuth client's: an access token a client holds for the user.
            None => Self::of_oauth_token(db, token).await?,
        })
    }

    /// The caller a login session's access token stands for; `None` when no session issued it.
    async fn of_login_token(db: &Db, token: &str) -> Result<Option<Caller>, AppError> {
        // Each kind of token carries its prefix (`rl_oat_` for an OAuth client's, `rl_at_` for a
        // login session's), so OAuth tokens never get here; unprefixed values are looked up in
        // both tables.
        let row: Option<LoginToken> = sqlx::query_as(sql::LOGIN_TOKEN)
            .bind(tokens::hash(token))
            .fetch_optional(db)
            .await?;
        Ok(row.map(|row| match row {
            LoginToken {
                revoked_at: Some(_), ..
            } => Caller::Rejected("Invalid token"),
            LoginToken { expires_at, .. } if expires_at <= now() => Caller::Rejected("Expired access token"),
            LoginToken {
                session_id, account, ..
            } => Caller::User {
                user_id: account.id,
                session_id: Some(session_id),
                employment: None,
                account: Some(Arc::new(account)),
            },
        }))
    }

    /// The caller an OAuth client's access token stands for.
    async fn of_oauth_token(db: &Db, token: &str) -> Result<Caller, AppError> {
        let row: Option<UserRow> = sqlx::query_as(sql::OAUTH_TOKEN)
            .bind(tokens::hash(token))
            .bind(now())
            .fetch_optional(db)
            .await?;
        Ok(match row {
            Some(account) => Caller::User {
                user_id: account.id,
                session_id: None,
                employment: None,
                account: Some(Arc::new(account)),
            },
            None => Caller::Rejected("Invalid token"),
        })
    }

    /// How far the caller reaches: an employment token's company and vendor, or unconfined.
    pub fn scope(&self) -> Scope {
        match self {
            Caller::User {
                employment: Some(grant),
                ..
            } => Scope::Employment {
                company_id: grant.company_id,
                client_id: grant.client_id,
            },
            _ => Scope::Unconfined,
        }
    }

    /// The user and how far they reach, or AUTHENTICATION_ERROR: what the domain functions whose
    /// answer depends on the scope receive.
    pub fn actor(&self) -> Result<Actor, AppError> {
        Ok(Actor {
            user_id: self.user_id()?,
            scope: self.scope(),
        })
    }

    /// The software vendor's grant behind the request, if it came with an employment token.
    pub fn employment(&self) -> Option<&Grant> {
        match self {
            Caller::User { employment, .. } => employment.as_ref(),
            _ => None,
        }
    }

    /// The login session behind the request, when it came with a login session's token (not an
    /// OAuth client's or an employment token).
    pub fn session(&self) -> Option<i64> {
        match self {
            Caller::User { session_id, .. } => *session_id,
            _ => None,
        }
    }

    /// The user's row as read with the token, when the caller came with one.
    pub fn account(&self) -> Option<&UserRow> {
        match self {
            Caller::User { account, .. } => account.as_deref(),
            _ => None,
        }
    }

    /// The same caller without the row read with the token: for the operations of a request
    /// that follow a mutation, which may have changed it.
    pub fn without_account(&self) -> Caller {
        match self {
            Caller::User {
                user_id,
                session_id,
                employment,
                ..
            } => Caller::User {
                user_id: *user_id,
                session_id: *session_id,
                employment: employment.clone(),
                account: None,
            },
            other => other.clone(),
        }
    }

    /// The user, or AUTHENTICATION_ERROR.
    pub fn user_id(&self) -> Result<i64, AppError> {
        match self {
            Caller::User { user_id, .. } => Ok(*user_id),
            Caller::Anonymous => Err(AppError::authentication(
                "Unable to find a valid cookie or authorization header",
            )),
            Caller::Rejected(reason) => Err(AppError::authentication(*reason)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Caller;

    #[test]
    fn bearer_values_are_read_case_insensitively() {
        assert_eq!(Caller::bearer(Some("Bearer abc")).0.as_deref(), Some("abc"));
        assert_eq!(Caller::bearer(Some("bearer   abc ")).0.as_deref(), Some("abc"));
        assert_eq!(Caller::bearer(Some("Basic abc")).0, None);
        assert_eq!(Caller::bearer(Some("Bearer ")).0, None);
        assert_eq!(Caller::bearer(None).0, None);
    }
}
