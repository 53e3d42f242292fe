//! Application errors and their wire form.
//!
//! The interface defines exactly thirteen `extensions.code` values; every error a resolver returns
//! is one of them, with a message a developer can act on and, where it helps, finer keys in
//! `extensions` (the reference service's finer reason, the conflicting object, …).

use async_graphql::ErrorExtensions;
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
            Code::InternalError => "INTERNAL_ERROR",
        }
    }

    /// Every code, for tests and documentation.
    pub const ALL: [Code; 13] = [
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
        Code::InternalError,
    ];
}

/// An error as the API reports it.
#[derive(Debug, Clone)]
pub struct AppError {
    pub code: Code,
    pub message: String,
    /// Further `extensions` keys, in order.
    pub extensions: Vec<(&'static str, Value)>,
}

impl AppError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        AppError {
            code,
            message: message.into(),
            extensions: Vec::new(),
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

    /// An unexpected failure. The cause is logged here, never sent to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        Self::new(Code::InternalError, "An internal error occurred")
    }
}

// AppError deliberately implements neither `Display` nor `std::error::Error`: async-graphql turns
// every `Display` type into an error without `extensions.code`, and our errors must keep theirs.

impl From<sqlx::Error> for AppError {
    fn from(error: sqlx::Error) -> Self {
        AppError::internal(error)
    }
}

impl From<AppError> for async_graphql::Error {
    fn from(error: AppError) -> Self {
        let AppError {
            code,
            message,
            extensions,
        } = error;
        async_graphql::Error::new(message).extend_with(move |_, e| {
            e.set("code", code.as_str());
            for (key, value) in &extensions {
                if let Ok(value) = async_graphql::Value::from_json(value.clone()) {
                    e.set(*key, value);
                }
            }
        })
    }
}

/// Shorthand for results of domain code.
pub type AppResult<T> = Result<T, AppError>;
