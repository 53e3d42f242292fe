//! Application errors and their wire form.
//!
//! The interface defines exactly thirteen `extensions.code` values; every error a resolver returns
//! is one of them, with a message a developer can act on and, where it helps, finer keys in
//! `extensions` (the reference service's finer reason, the conflicting object, …).

use std::sync::Arc;

use serde_json::Value;

/// The thirteen error codes of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    InvalidInputs,
    AuthenticationError,
    AuthorizationError,
    InvalidToken,
    OverlappingMissions,
    OverlappingActivities,
    InvalidActivitySwitch,
    MissionAlreadyEnded,
    DuplicateExpenditures,
    OverlappingEmployments,
    NoPrimaryEmployment,
    InvalidResource,
    /// No company register is configured on this server (`sirenInfo`).
    NoSirenApiCredentials,
    /// The company register knows no such SIREN.
    InaccessibleSiren,
    /// The company register failed or could not be reached.
    UnavailableSirenApi,
    InternalError,
}

impl Code {
    /// The spelling in `extensions.code`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidInputs => "INVALID_INPUTS",
            Code::AuthenticationError => "AUTHENTICATION_ERROR",
            Code::AuthorizationError => "AUTHORIZATION_ERROR",
            Code::InvalidToken => "INVALID_TOKEN",
            Code::OverlappingMissions => "OVERLAPPING_MISSIONS",
            Code::OverlappingActivities => "OVERLAPPING_ACTIVITIES",
            Code::InvalidActivitySwitch => "INVALID_ACTIVITY_SWITCH",
            Code::MissionAlreadyEnded => "MISSION_ALREADY_ENDED",
            Code::DuplicateExpenditures => "DUPLICATE_EXPENDITURES",
            Code::OverlappingEmployments => "OVERLAPPING_EMPLOYMENTS",
            Code::NoPrimaryEmployment => "NO_PRIMARY_EMPLOYMENT",
            Code::InvalidResource => "INVALID_RESOURCE",
            Code::NoSirenApiCredentials => "NO_SIREN_API_CREDENTIALS",
            Code::InaccessibleSiren => "INACCESSIBLE_SIREN",
            Code::UnavailableSirenApi => "UNAVAILABLE_SIREN_API",
            Code::InternalError => "INTERNAL_ERROR",
        }
    }

    /// Every code, for tests and documentation.
    pub const ALL: [Code; 16] = [
        Code::InvalidInputs,
        Code::AuthenticationError,
        Code::AuthorizationError,
        Code::InvalidToken,
        Code::OverlappingMissions,
        Code::OverlappingActivities,
        Code::InvalidActivitySwitch,
        Code::MissionAlreadyEnded,
        Code::DuplicateExpenditures,
        Code::OverlappingEmployments,
        Code::NoPrimaryEmployment,
        Code::InvalidResource,
        Code::NoSirenApiCredentials,
        Code::InaccessibleSiren,
        Code::UnavailableSirenApi,
        Code::InternalError,
    ];
}

/// Why an internal error happened: the cause the client never sees, kept for the log line that
/// reports the error where it is handled (with its whole chain of sources).
pub type Cause = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// An error as the API reports it: one of the interface's codes, a message a developer can act
/// on, further `extensions` keys, and, for internal errors, the cause.
///
/// It is created where the problem is found and logged once, where it is handled: the GraphQL
/// layer (`http::graphql`) logs the internal errors of a response, the REST handlers theirs.
/// async-graphql turns it into a field error through its `Display`, keeping it as the error's
/// source; the GraphQL layer reads the code and extensions back from that source.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub code: Code,
    pub message: String,
    /// Further `extensions` keys, in order.
    pub extensions: Vec<(&'static str, Value)>,
    #[source]
    pub cause: Option<Cause>,
}

impl AppError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        AppError {
            code,
            message: message.into(),
            extensions: Vec::new(),
            cause: None,
        }
    }

    /// Adds a key to `extensions`.
    pub fn with(mut self, key: &'static str, value: impl Into<Value>) -> Self {
        self.extensions.push((key, value.into()));
        self
    }

    pub fn invalid_inputs(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidInputs, message)
    }

    pub fn authentication(message: impl Into<String>) -> Self {
        Self::new(Code::AuthenticationError, message)
    }

    pub fn authorization(message: impl Into<String>) -> Self {
        Self::new(Code::AuthorizationError, message)
    }

    pub fn invalid_resource(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidResource, message)
    }

    /// The value of a further `extensions` key.
    pub fn extension(&self, key: &str) -> Option<&Value> {
        self.extensions.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// An unexpected failure described by a text (the client sees a generic message).
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::caused_by(Arc::new(Described(cause.to_string())))
    }

    /// An unexpected failure caused by an error, whose chain of sources is kept.
    pub fn caused_by(cause: Cause) -> Self {
        AppError {
            cause: Some(cause),
            ..Self::new(Code::InternalError, "An internal error occurred")
        }
    }

    /// The cause and its sources, for a log line: `a: b: c`.
    pub fn chain(&self) -> String {
        let mut text = String::new();
        let mut next: Option<&(dyn std::error::Error + 'static)> = self.cause.as_deref().map(|c| c as _);
        while let Some(error) = next {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&error.to_string());
            next = error.source();
        }
        text
    }

    /// Logs the error once, where it is handled: internal errors with their cause at `error`,
    /// the others (the client's mistakes) not at all.
    pub fn log_if_internal(&self) {
        if self.code == Code::InternalError {
            tracing::error!(cause = %self.chain(), "internal error");
        }
    }

    /// The answer of a database error that reports one of the constraints of [`CONSTRAINTS`]
    /// as violated, otherwise an internal error.
    fn from_database(error: sqlx::Error) -> AppError {
        if let sqlx::Error::Database(db) = &error
            && let Some(rule) = ConstraintRule::violated(db.as_ref())
        {
            return AppError::new(rule.code, rule.message).with("constraint", rule.name);
        }
        AppError::caused_by(Arc::new(error))
    }
}

/// A cause given as text.
#[derive(Debug)]
struct Described(String);

impl std::fmt::Display for Described {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Described {}

/// A database constraint whose violation is the client's mistake, with the answer it gets. The
/// two databases report a violation differently, so one entry names the constraint both ways:
/// PostgreSQL gives the constraint's name, SQLite only a message that ends with the table and
/// columns of a UNIQUE constraint or the expression of an unnamed CHECK.
pub struct ConstraintRule {
    /// The constraint's name, as PostgreSQL reports it.
    pub name: &'static str,
    /// The same constraint in SQLite's message.
    pub sqlite: SqliteConstraint,
    pub code: Code,
    pub message: &'static str,
}

/// How SQLite's message names a constraint it reports as violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqliteConstraint {
    /// `UNIQUE constraint failed: ` and the table and columns: `users.email` (`t.a, t.b` for two).
    Unique(&'static str),
    /// `CHECK constraint failed: ` and the check's expression as written in the table's
    /// definition (its name, for a named one).
    Check(&'static str),
}

impl SqliteConstraint {
    /// Whether an SQLite error message reports this constraint as violated: the whole of what
    /// follows the message's kind, so that `users.email` is not taken for `users.email, x.y`.
    pub fn is_named_by(self, message: &str) -> bool {
        let (kind, named) = match self {
            SqliteConstraint::Unique(columns) => ("UNIQUE constraint failed: ", columns),
            SqliteConstraint::Check(expression) => ("CHECK constraint failed: ", expression),
        };
        message.strip_prefix(kind) == Some(named)
    }
}

impl ConstraintRule {
    /// The rule of the constraint a database error reports as violated, if it has one: by the
    /// constraint's name on PostgreSQL, by what the message names on SQLite.
    pub fn violated(error: &dyn sqlx::error::DatabaseError) -> Option<&'static ConstraintRule> {
        if error.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some() {
            let name = error.constraint()?;
            return CONSTRAINTS.iter().find(|rule| rule.name == name);
        }
        if error.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
            return CONSTRAINTS.iter().find(|rule| rule.sqlite.is_named_by(error.message()));
        }
        None
    }
}

/// The constraints that answer the client (the others are internal errors: the code should
/// have prevented them). Services that must tell apart several outcomes of one insert still
/// check the violation themselves (see `db::is_unique_violation`).
pub const CONSTRAINTS: &[ConstraintRule] = &[
    ConstraintRule {
        name: "users_email_key",
        sqlite: SqliteConstraint::Unique("users.email"),
        code: Code::InvalidInputs,
        message: "A user is already registered with this email",
    },
    ConstraintRule {
        name: "companies_siren_check",
        sqlite: SqliteConstraint::Check("length(siren) = 9"),
        code: Code::InvalidInputs,
        message: "SIREN must be exactly 9 characters",
    },
];

impl From<sqlx::Error> for AppError {
    fn from(error: sqlx::Error) -> Self {
        AppError::from_database(error)
    }
}

/// Shorthand for results of domain code.
pub type AppResult<T> = Result<T, AppError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_messages_name_their_constraint() {
        let email = SqliteConstraint::Unique("users.email");
        assert!(email.is_named_by("UNIQUE constraint failed: users.email"));
        assert!(!email.is_named_by("UNIQUE constraint failed: users.email, users.phone_number"));
        assert!(!email.is_named_by("NOT NULL constraint failed: users.email"));
        let siren = SqliteConstraint::Check("length(siren) = 9");
        assert!(siren.is_named_by("CHECK constraint failed: length(siren) = 9"));
        assert!(!siren.is_named_by("UNIQUE constraint failed: length(siren) = 9"));
    }

    #[test]
    fn each_constraint_has_one_rule() {
        for (i, rule) in CONSTRAINTS.iter().enumerate() {
            for other in &CONSTRAINTS[i + 1..] {
                assert_ne!(rule.name, other.name);
                assert_ne!(rule.sqlite, other.sqlite);
            }
        }
    }
}
