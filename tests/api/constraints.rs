//! Constraint violations that are the client's mistake, on both databases: each is answered by
//! its rule of `errors::CONSTRAINTS`, found by the constraint's name on PostgreSQL and by what
//! SQLite's message names on SQLite; any other violation stays an internal error.

use roadlog::errors::{AppError, Code};
use serde_json::json;

use crate::support::TestApp;

/// The error a statement's violation becomes in the API.
async fn violation(app: &TestApp, statement: &'static str, id: i64) -> AppError {
    let error = sqlx::query(statement)
        .bind(id)
        .execute(&app.server.db.pool)
        .await
        .expect_err("the statement violates a constraint");
    AppError::from(error)
}

on_both_backends! {
    async fn a_taken_email_is_answered_by_its_constraint(app) {
        app.new_user("first@example.com").await;
        let second = app.new_user("second@example.com").await;
        let error = violation(app, "UPDATE users SET email = 'first@example.com' WHERE id = $1", second.id).await;
        assert_eq!(error.code, Code::InvalidInputs, "{error:?}");
        assert_eq!(error.message, "A user is already registered with this email");
        assert_eq!(error.extension("constraint"), Some(&json!("users_email_key")));
    }

    async fn a_short_siren_is_answered_by_its_constraint(app) {
        let admin = app.new_user("admin@example.com").await;
        let company = app.new_company(&admin, "Transports Martin").await;
        let error = violation(app, "UPDATE companies SET siren = '12345' WHERE id = $1", company).await;
        assert_eq!(error.code, Code::InvalidInputs, "{error:?}");
        assert_eq!(error.message, "SIREN must be exactly 9 characters");
        assert_eq!(error.extension("constraint"), Some(&json!("companies_siren_check")));
    }

    async fn other_violations_stay_internal_errors(app) {
        let user = app.new_user("someone@example.com").await;
        // The id's range is a CHECK of the same table, with no rule: the code should have
        // prevented it, so the client learns nothing of it.
        let error = violation(app, "UPDATE users SET id = 5 WHERE id = $1", user.id).await;
        assert_eq!(error.code, Code::InternalError, "{error:?}");
        assert_eq!(error.extension("constraint"), None);
    }
}
