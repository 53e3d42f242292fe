//! The identity behind a request, resolved once from its `Authorization: Bearer` header.

use crate::db::{Db, now};
use crate::errors::AppError;

use super::tokens;

/// What the credentials of a request amount to.
#[derive(Clone, Debug)]
pub enum Caller {
    /// No credentials were sent.
    Anonymous,
    /// A valid access token of this user: a login session's, or an OAuth client's (no session).
    User { user_id: i64, session_id: Option<i64> },
    /// Credentials were sent but are not valid; the message says why.
    Rejected(&'static str),
}

/// The raw bearer value, for the operations that take a refresh token instead of an access token.
#[derive(Clone, Debug, Default)]
pub struct BearerToken(pub Option<String>);

impl Caller {
    /// Reads the bearer value out of an `Authorization` header.
    pub fn bearer(header: Option<&str>) -> BearerToken {
        let value = header.and_then(|h| {
            let (scheme, rest) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim().to_string())
        });
        BearerToken(value.filter(|v| !v.is_empty()))
    }

    /// Resolves a bearer value against the stored access tokens.
    pub async fn resolve(db: &Db, bearer: &BearerToken) -> Result<Caller, AppError> {
        let Some(token) = &bearer.0 else {
            return Ok(Caller::Anonymous);
        };
        // Each kind of token carries its prefix (`rl_oat_` for an OAuth client's, `rl_at_` for a
        // login session's): one lookup where the prefix tells which table holds it.
        if token.starts_with("rl_oat_") {
            return Self::of_oauth_token(db, token).await;
        }
        let row: Option<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "SELECT t.user_id, t.session_id, t.expires_at, s.revoked_at
             FROM auth_tokens t JOIN sessions s ON s.id = t.session_id
             WHERE t.token_hash = $1 AND t.kind = 'access'",
        )
        .bind(tokens::hash(token))
        .fetch_optional(&db.pool)
        .await?;
        Ok(match row {
            None if token.starts_with("rl_at_") => Caller::Rejected("Invalid token"),
            // No known prefix: perhaps an access token that an OAuth client holds for the user.
            None => Self::of_oauth_token(db, token).await?,
            Some((_, _, _, Some(_))) => Caller::Rejected("Invalid token"),
            Some((_, _, expires_at, None)) if expires_at <= now() => Caller::Rejected("Expired access token"),
            Some((user_id, session_id, _, None)) => Caller::User {
                user_id,
                session_id: Some(session_id),
            },
        })
    }

    /// The caller an OAuth client's access token stands for.
    async fn of_oauth_token(db: &Db, token: &str) -> Result<Caller, AppError> {
        Ok(match crate::domain::auth::oauth_tokens::resolve(db, token).await? {
            Some((user_id, _client_id)) => Caller::User {
                user_id,
                session_id: None,
            },
            None => Caller::Rejected("Invalid token"),
        })
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
