//! `editCompanySettings`: a company admin changes the company's settings, the reference's eight
//! (`CompanySettings`). An omitted or null argument leaves its setting as it is (so
//! `allowOtherTask` cannot go back to null once set, as in the reference); every value is checked
//! before anything is written, and the changes are written in one statement.
//!
//! What the settings do is decided where it happens, not here: `requireExpenditures` false
//! refuses `logExpenditure` (`domain::expenditures`), `allowTeamMode` false stops a non-admin
//! submitter from recording time for a co-worker who has none in the mission
//! (`missions::permissions`). The others shape the reference's own screens and its Excel and
//! PDF exports, which Roadlog does not produce: they are kept and served for the clients that
//! read them. The EU driving-time checks, a Roadlog extension, are changed by
//! `updateCompanyDetails(euDrivingTimeChecks)`.

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::{AppError, AppResult};

use super::permissions;

/// Longest `otherTaskLabel`, in characters (the reference's column is a `varchar(24)`).
pub const MAX_OTHER_TASK_LABEL: usize = 24;

pub mod sql {
    crate::statements! {
        /// Each setting `$2`…`$9` when not null, else unchanged; company `$1`.
        pub const EDIT: &str = "UPDATE companies SET \
               allow_team_mode = COALESCE($2, allow_team_mode), \
               allow_transfers = COALESCE($3, allow_transfers), \
               require_kilometer_data = COALESCE($4, require_kilometer_data), \
               require_expenditures = COALESCE($5, require_expenditures), \
               require_support_activity = COALESCE($6, require_support_activity), \
               require_mission_name = COALESCE($7, require_mission_name), \
               allow_other_task = COALESCE($8, allow_other_task), \
               other_task_label = COALESCE($9, other_task_label) \
             WHERE id = $1";
    }
}

/// The settings `editCompanySettings` changes; `None` leaves one as it is.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SettingsChange {
    pub allow_team_mode: Option<bool>,
    pub allow_transfers: Option<bool>,
    pub require_kilometer_data: Option<bool>,
    pub require_expenditures: Option<bool>,
    pub require_support_activity: Option<bool>,
    pub require_mission_name: Option<bool>,
    pub allow_other_task: Option<bool>,
    /// Kept as given: the empty label is a value (the reference's default).
    pub other_task_label: Option<String>,
}

/// Checks the change: the label's length is the only rule (the reference let the database refuse
/// a longer one with an internal error).
fn check(change: &SettingsChange) -> AppResult<()> {
    if change
        .other_task_label
        .as_deref()
        .is_some_and(|label| label.chars().count() > MAX_OTHER_TASK_LABEL)
    {
        return Err(AppError::invalid_inputs(format!(
            "otherTaskLabel must have at most {MAX_OTHER_TASK_LABEL} characters"
        ))
        .with("field", "otherTaskLabel"));
    }
    Ok(())
}

/// Changes the company's settings, for an admin of it: all or nothing.
pub async fn edit(db: &Db, actor: Actor, company_id: i64, change: SettingsChange) -> AppResult<()> {
    permissions::require_admin(db, actor, company_id).await?;
    check(&change)?;
    if change == SettingsChange::default() {
        return Ok(());
    }
    let flag = |value: Option<bool>| value.map(i64::from);
    sqlx::query(sql::EDIT)
        .bind(company_id)
        .bind(flag(change.allow_team_mode))
        .bind(flag(change.allow_transfers))
        .bind(flag(change.require_kilometer_data))
        .bind(flag(change.require_expenditures))
        .bind(flag(change.require_support_activity))
        .bind(flag(change.require_mission_name))
        .bind(flag(change.allow_other_task))
        .bind(change.other_task_label)
        .execute(db)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{SettingsChange, check};

    #[test]
    fn the_label_is_at_most_24_characters_the_empty_one_included() {
        let label = |text: &str| SettingsChange {
            other_task_label: Some(text.to_string()),
            ..SettingsChange::default()
        };
        assert!(check(&label("")).is_ok());
        assert!(check(&label(&"é".repeat(24))).is_ok());
        let error = check(&label(&"a".repeat(25))).unwrap_err();
        assert_eq!(error.message, "otherTaskLabel must have at most 24 characters");
    }
}
