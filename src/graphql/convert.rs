//! From domain rows to the contract's GraphQL objects: the one place where stored values
//! become the wire types (integer ids, `TimeStamp`, the string "enums", JSON contexts).

use crate::domain::activities::store::{ActivityRow, VersionRow};
use crate::domain::auth::Actor;
use crate::domain::companies::company::CompanyRow;
use crate::domain::companies::employments::EmploymentRow;
use crate::domain::companies::siren_info::{self, Registration};
use crate::domain::companies::{date_text, today};
use crate::domain::expenditures::ExpenditureRow;
use crate::domain::kinds::{ActivityType, ExpenditureType, ValidationJustification};
use crate::domain::missions::comments::CommentRow;
use crate::domain::missions::locations::LocationRow;
use crate::domain::missions::queries::Page;
use crate::domain::missions::store::MissionView;
use crate::domain::missions::validation::ValidationRow;
use crate::domain::users::accounts::UserRow;
use crate::domain::users::sessions::TokenPair;
use crate::domain::vehicles::VehicleRow;

use super::contract::{
    Activity, ActivityConnection, ActivityEdge, ActivityVersion, Comment, Company, CompanySettings, Employment,
    Expenditure, LocationEntry, Mission, MissionConnection, MissionEdge, MissionValidation,
    OverValidationJustification, PageInfo, SirenInfo, SirenRegistrationStatusEnum, User, UserTokens, Vehicle,
};
use super::scalars::{Date, GenericScalar, JSONString, TimeStamp};

/// A domain value as the contract's object.
pub trait ToGraphql {
    type Output;

    fn to_graphql(&self) -> Self::Output;
}

/// A time as the reference's `JSONString` times: a JSON string of the naive UTC time
/// (`"2025-01-14T10:00:00"`).
fn json_time(t: i64) -> JSONString {
    JSONString(serde_json::Value::String(crate::domain::regulation::time::iso(t)).to_string())
}

/// A stored JSON text as the `GenericScalar` it was given as.
fn json(text: &Option<String>) -> Option<GenericScalar> {
    text.as_deref()
        .and_then(|c| serde_json::from_str(c).ok())
        .map(GenericScalar)
}

/// The mask of an e-mail its user hides (the reference's, also in `Employment.email`).
pub const HIDDEN_EMAIL: &str = "***";

/// A user as `actor` (none when anonymous) reads them: the e-mail of a user who hides it from
/// one of their companies (`Employment.hideEmail`) reads [`HIDDEN_EMAIL`] for anyone but the
/// user. (No `From<UserRow>`: a user is always shown to someone.)
pub fn user_seen_by(row: UserRow, actor: Option<Actor>) -> User {
    let email = row.email_for(actor).unwrap_or(HIDDEN_EMAIL).to_string();
    User {
        id: row.id as i32,
        creation_time: Some(TimeStamp(row.creation_time)),
        email: Some(email),
        first_name: row.first_name,
        last_name: row.last_name,
        phone_number: row.phone_number,
        timezone_name: Some(row.timezone_name),
        // One step confirms and activates, as in the reference for accounts created by
        // sign-up (see `domain::users::confirmation`).
        has_confirmed_email: row.email_confirmed_at.is_some(),
        has_activated_email: row.email_confirmed_at.is_some(),
        // The reference's flag for its own staff. Roadlog has no staff accounts, so it is
        // false for every user: a documented deviation (the SDL says so), not data.
        admin: false,
        birth_date: row.birth_date,
        gender: row.gender,
        // Roadlog has no impersonation: every credential it accepts is the user's own or one
        // the user granted.
        is_impersonated: Some(false),
        should_update_password: Some(row.password_updated_at.is_none()),
    }
}

impl From<&CompanyRow> for Company {
    fn from(row: &CompanyRow) -> Company {
        Company {
            id: row.id as i32,
            name: Some(row.usual_name.clone()),
            legal_name: row.legal_name.clone(),
            siren: Some(row.siren.clone()),
            phone_number: row.phone_number.clone(),
            has_ceased_activity: row.has_ceased_activity == 1,
            number_workers: row.number_workers.map(|n| n.min(i64::from(i32::MAX)) as i32),
        }
    }
}

impl From<&CompanyRow> for CompanySettings {
    fn from(row: &CompanyRow) -> CompanySettings {
        CompanySettings {
            allow_team_mode: Some(row.allow_team_mode == 1),
            allow_transfers: Some(row.allow_transfers == 1),
            require_kilometer_data: Some(row.require_kilometer_data == 1),
            require_expenditures: Some(row.require_expenditures == 1),
            require_support_activity: Some(row.require_support_activity == 1),
            require_mission_name: Some(row.require_mission_name == 1),
            allow_other_task: row.allow_other_task.map(|on| on == 1),
            other_task_label: row.other_task_label.clone(),
            eu_driving_time_checks: Some(row.eu_driving_checks == 1),
        }
    }
}

impl ToGraphql for EmploymentRow {
    type Output = Employment;

    fn to_graphql(&self) -> Employment {
        let today = date_text(today());
        Employment {
            id: self.id as i32,
            reception_time: TimeStamp(self.reception_time),
            dismissed_at: self.dismissed_at.map(TimeStamp),
            validation_status: Some(self.validation_status.clone()),
            start_date: self.start_date.clone(),
            end_date: self.end_date.clone(),
            company_id: self.company_id as i32,
            has_admin_rights: Some(self.has_admin_rights == 1),
            user_id: self.user_id.map(|id| id as i32),
            // As the reference: an employee who hides their e-mail shows `***` once accepted.
            email: if self.hide_email == 1 && self.is_acknowledged() {
                Some("***".to_string())
            } else {
                self.email.clone()
            },
            submitter_id: self.submitter_id.map(|id| id as i32),
            is_primary: self.is_primary.map(|p| p == 1),
            is_acknowledged: Some(self.is_acknowledged()),
            status: Some(self.status(&today).to_string()),
            team_id: self.team_id.map(|id| id as i32),
            hide_email: Some(self.hide_email == 1),
            last_active_at: self.last_activity_end.map(TimeStamp),
            is_active: Some(self.is_active(&today)),
            is_terminated: Some(self.is_terminated(&today)),
            is_inactive: Some(self.status(&today) == "INACTIVE"),
            latest_invite_email_time: self.latest_invite_email_time.map(TimeStamp),
            should_force_nb_worker_info: Some(self.should_force_nb_worker_info(crate::domain::companies::today())),
        }
    }
}

impl ToGraphql for VehicleRow {
    type Output = Vehicle;

    fn to_graphql(&self) -> Vehicle {
        Vehicle {
            id: Some(self.id as i32),
            registration_number: self.registration_number.clone(),
            alias: self.alias.clone(),
            name: Some(self.alias.clone().unwrap_or_else(|| self.registration_number.clone())),
            company_id: self.company_id as i32,
            last_kilometer_reading: self.last_kilometer_reading.map(|k| k as i32),
            creation_time: json_time(self.creation_time),
            terminated_at: self.terminated_at.map(json_time),
        }
    }
}

impl ToGraphql for LocationRow {
    type Output = LocationEntry;

    fn to_graphql(&self) -> LocationEntry {
        LocationEntry {
            id: Some(self.id as i32),
            mission_id: self.mission_id as i32,
            name: self.name.clone(),
            city: self.city.clone(),
            postal_code: self.postal_code.clone(),
            alias: self.alias.clone(),
            kilometer_reading: self.kilometer_reading.map(|k| k as i32),
            submitter_id: self.submitter_id as i32,
            reception_time: TimeStamp(self.reception_time),
        }
    }
}

impl ToGraphql for CommentRow {
    type Output = Comment;

    fn to_graphql(&self) -> Comment {
        Comment {
            id: self.id as i32,
            text: self.text.clone(),
            mission_id: self.mission_id as i32,
            submitter_id: self.submitter_id as i32,
            reception_time: TimeStamp(self.reception_time),
        }
    }
}

impl ToGraphql for ActivityRow {
    type Output = Activity;

    fn to_graphql(&self) -> Activity {
        Activity {
            id: self.id as i32,
            r#type: ActivityType::from_str_opt(&self.kind).unwrap_or(ActivityType::Work),
            mission_id: self.mission_id as i32,
            user_id: self.user_id as i32,
            submitter_id: self.submitter_id as i32,
            start_time: TimeStamp(self.start_time),
            end_time: self.end_time.map(TimeStamp),
            reception_time: TimeStamp(self.reception_time),
            last_update_time: TimeStamp(self.last_update_time),
            last_submitter_id: self.last_submitter_id.map(|id| id as i32),
            dismissed_at: self.dismissed_at.map(TimeStamp),
            dismiss_author_id: self.dismiss_author_id.map(|id| id as i32),
            dismiss_context: json(&self.dismiss_context),
            dispute: json(&self.dispute),
        }
    }
}

impl ToGraphql for VersionRow {
    type Output = ActivityVersion;

    fn to_graphql(&self) -> ActivityVersion {
        ActivityVersion {
            id: self.id as i32,
            reception_time: TimeStamp(self.reception_time),
            start_time: TimeStamp(self.start_time),
            end_time: self.end_time.map(TimeStamp),
            context: json(&self.context),
            submitter_id: self.submitter_id as i32,
        }
    }
}

impl ToGraphql for ExpenditureRow {
    type Output = Expenditure;

    fn to_graphql(&self) -> Expenditure {
        Expenditure {
            id: self.id as i32,
            r#type: ExpenditureType::from_str_opt(&self.kind).unwrap_or(ExpenditureType::Snack),
            spending_date: Date(crate::domain::companies::parse_date(&self.spending_date).unwrap_or_default()),
            mission_id: self.mission_id as i32,
            user_id: self.user_id as i32,
            submitter_id: self.submitter_id as i32,
            reception_time: TimeStamp(self.reception_time),
            dismissed_at: self.dismissed_at.map(TimeStamp),
            dismiss_author_id: self.dismiss_author_id.map(|id| id as i32),
        }
    }
}

impl ToGraphql for ValidationRow {
    type Output = MissionValidation;

    fn to_graphql(&self) -> MissionValidation {
        MissionValidation {
            id: self.id as i32,
            mission_id: self.mission_id as i32,
            is_admin: self.is_admin == 1,
            is_auto: self.is_auto == 1,
            justification: self
                .justification
                .as_deref()
                .and_then(ValidationJustification::from_str_opt)
                .map(|j| match j {
                    ValidationJustification::Personal => OverValidationJustification::Personal,
                    ValidationJustification::Professional => OverValidationJustification::Professional,
                    ValidationJustification::TimeOff => OverValidationJustification::TimeOff,
                }),
            context: json(&self.context),
            user_id: self.user_id.map(|id| id as i32),
            submitter_id: self.submitter_id.map(|id| id as i32),
            reception_time: TimeStamp(self.reception_time),
        }
    }
}

impl ToGraphql for MissionView {
    type Output = Mission;

    fn to_graphql(&self) -> Mission {
        let row = &self.row;
        Mission {
            id: row.id as i32,
            reception_time: TimeStamp(row.reception_time),
            name: row.name.clone(),
            company_id: row.company_id as i32,
            context: json(&row.context),
            vehicle_id: row.vehicle_id.map(|v| v as i32),
            past_registration_justification: row.past_registration_justification.clone(),
            submitter_id: row.submitter_id as i32,
            is_ended_for_self: Some(self.is_ended_for_self),
            deleted_at: self.deleted_at.map(TimeStamp),
            ended_user_ids: Some(self.ended_user_ids.iter().map(|u| Some(*u as i32)).collect()),
        }
    }
}

fn page_info<T>(page: &Page<T>) -> PageInfo {
    PageInfo {
        has_next_page: page.has_next_page,
        has_previous_page: false,
        start_cursor: page.start_cursor(),
        end_cursor: page.end_cursor(),
    }
}

impl ToGraphql for Page<Option<MissionView>> {
    type Output = MissionConnection;

    fn to_graphql(&self) -> MissionConnection {
        MissionConnection {
            page_info: page_info(self),
            edges: self
                .items
                .iter()
                .map(|(cursor, view)| {
                    Some(MissionEdge {
                        node: view.as_ref().map(ToGraphql::to_graphql),
                        cursor: cursor.clone(),
                    })
                })
                .collect(),
        }
    }
}

impl ToGraphql for Page<ActivityRow> {
    type Output = ActivityConnection;

    fn to_graphql(&self) -> ActivityConnection {
        ActivityConnection {
            page_info: page_info(self),
            edges: self
                .items
                .iter()
                .map(|(cursor, row)| {
                    Some(ActivityEdge {
                        node: Some(row.to_graphql()),
                        cursor: cursor.clone(),
                    })
                })
                .collect(),
        }
    }
}

impl From<TokenPair> for UserTokens {
    fn from(pair: TokenPair) -> Self {
        UserTokens {
            access_token: Some(pair.access_token),
            refresh_token: Some(pair.refresh_token),
        }
    }
}

impl ToGraphql for crate::domain::companies::dashboard::DashboardSummary {
    type Output = crate::graphql::contract::DashboardSummary;

    fn to_graphql(&self) -> Self::Output {
        let int = |n: i64| Some(n.min(i64::from(i32::MAX)) as i32);
        crate::graphql::contract::DashboardSummary {
            active_missions_count: int(self.active_missions),
            pending_validations_count: int(self.pending_validations),
            pending_invitations_count: int(self.pending_invitation_ids.len() as i64),
            inactive_employees_count: int(self.inactive_employees),
            auto_validated_missions_count: int(self.auto_validated_missions),
            pending_invitation_employment_ids: Some(
                self.pending_invitation_ids.iter().map(|id| Some(*id as i32)).collect(),
            ),
            has_any_mission_this_week: Some(self.any_mission_this_week),
        }
    }
}

impl From<siren_info::SirenInfo> for SirenInfo {
    fn from(info: siren_info::SirenInfo) -> Self {
        SirenInfo {
            registration_status: match info.registration {
                Registration::Unregistered => SirenRegistrationStatusEnum::Unregistered,
                Registration::Fully => SirenRegistrationStatusEnum::FullyRegistered,
                Registration::Partially(_) => SirenRegistrationStatusEnum::PartiallyRegistered,
            },
            legal_unit: Some(GenericScalar(serde_json::Value::Object(info.legal_unit))),
            facilities: Some(
                info.facilities
                    .into_iter()
                    .map(|facility| Some(GenericScalar(serde_json::Value::Object(facility))))
                    .collect(),
            ),
        }
    }
}
