//! The arguments structs of the contract's fields as the domain's inputs: one conversion per
//! field whose arguments map onto a domain input, so that a resolver only adds what is not an
//! argument (the actor, the database) and calls the service.

use crate::domain::activities::log::{ActivityEdit, NewActivity};
use crate::domain::companies::company::NewCompany;
use crate::domain::companies::details::Details;
use crate::domain::companies::establishments::Establishment;
use crate::domain::companies::service::EmploymentInput;
use crate::domain::companies::settings::SettingsChange;
use crate::domain::expenditures::NewExpenditure;
use crate::domain::missions::holidays::HolidayInput;
use crate::domain::missions::locations;
use crate::domain::missions::service::{Correction, LocationInput, MissionInput, Validation};
use crate::domain::teams::TeamInput;
use crate::domain::users::accounts::NewUser;
use crate::domain::vendors::companies::Registration;
use crate::errors::AppError;
use crate::graphql::contract::{
    ActivitiesCreateMissionArgs, ActivitiesEditActivityArgs, ActivitiesLogActivityArgs, ActivitiesLogExpenditureArgs,
    ActivitiesLogHolidayArgs, ActivitiesLogLocationArgs, ActivitiesValidateMissionArgs, BulkActivityItem,
    BulkExpenditureItem, CompanySiret, EmploymentsCreateEmploymentArgs, MutationsEditCompanySettingsArgs,
    MutationsUpdateCompanyDetailsArgs, SignUpCompanyArgs, SignUpUserArgs, TeamsCreateTeamArgs, TeamsUpdateTeamArgs,
};
use crate::graphql::protected::contract_protected::ProtectedCompaniesSoftwareRegistrationArgs;

impl From<ActivitiesCreateMissionArgs> for MissionInput {
    fn from(args: ActivitiesCreateMissionArgs) -> Self {
        MissionInput {
            company_id: args.company_id.into(),
            name: args.name,
            context: args.context.map(|c| c.0),
            creation_time: args.creation_time.map(|t| t.0),
            past_registration_justification: args.past_registration_justification,
            vehicle_id: args.vehicle_id,
            vehicle_registration_number: args.vehicle_registration_number,
        }
    }
}

impl From<ActivitiesLogActivityArgs> for NewActivity {
    /// Without `switch`, the new activity ends the current one.
    fn from(args: ActivitiesLogActivityArgs) -> Self {
        NewActivity {
            mission_id: args.mission_id.into(),
            user_id: args.user_id.map(i64::from),
            kind: args.r#type,
            start: args.start_time.0,
            end: args.end_time.map(|t| t.0),
            switch: args.switch.unwrap_or(true),
            context: args.context.map(|c| c.0),
            creation_time: args.creation_time.map(|t| t.0),
        }
    }
}

impl From<ActivitiesEditActivityArgs> for ActivityEdit {
    fn from(args: ActivitiesEditActivityArgs) -> Self {
        ActivityEdit {
            activity_id: args.activity_id.into(),
            start: args.start_time.map(|t| t.0),
            end: args.end_time.map(|t| t.0),
            remove_end: args.remove_end_time.unwrap_or(false),
            context: args.context.map(|c| c.0),
            creation_time: args.creation_time.map(|t| t.0),
        }
    }
}

/// One `activityItems` entry of `validateMission`: exactly one of `log`, `edit`, `cancel`.
impl TryFrom<BulkActivityItem> for Correction {
    type Error = AppError;

    fn try_from(item: BulkActivityItem) -> Result<Self, AppError> {
        match (item.log, item.edit, item.cancel) {
            (Some(new), None, None) => Ok(Correction::Log(NewActivity {
                mission_id: new.mission_id.into(),
                user_id: new.user_id.map(i64::from),
                kind: new.r#type,
                start: new.start_time.0,
                end: new.end_time.map(|t| t.0),
                switch: new.switch.unwrap_or(new.end_time.is_none()),
                context: new.context.map(|c| c.0),
                creation_time: new.creation_time.map(|t| t.0),
            })),
            (None, Some(edit), None) => Ok(Correction::Edit(ActivityEdit {
                activity_id: edit.activity_id.into(),
                start: edit.start_time.map(|t| t.0),
                end: edit.end_time.map(|t| t.0),
                remove_end: edit.remove_end_time.unwrap_or(false),
                context: edit.context.map(|c| c.0),
                creation_time: edit.creation_time.map(|t| t.0),
            })),
            (None, None, Some(cancel)) => Ok(Correction::Cancel {
                activity_id: cancel.activity_id.into(),
                context: cancel.context.map(|c| c.0),
            }),
            _ => Err(AppError::invalid_inputs(
                "Each activity item holds exactly one of log, edit or cancel",
            )),
        }
    }
}

impl From<BulkExpenditureItem> for NewExpenditure {
    fn from(input: BulkExpenditureItem) -> Self {
        NewExpenditure {
            mission_id: input.mission_id.into(),
            user_id: input.user_id.map(i64::from),
            kind: input.r#type,
            spending_date: input.spending_date.0,
            creation_time: input.creation_time.map(|t| t.0),
        }
    }
}

/// Null entries of the lists are skipped; an activity item that is not exactly one correction
/// refuses the whole validation.
impl TryFrom<ActivitiesValidateMissionArgs> for Validation {
    type Error = AppError;

    fn try_from(args: ActivitiesValidateMissionArgs) -> Result<Self, AppError> {
        Ok(Validation {
            mission: args.mission_id.into(),
            users: args.users_ids.into_iter().flatten().map(i64::from).collect(),
            corrections: args
                .activity_items
                .into_iter()
                .flatten()
                .flatten()
                .map(Correction::try_from)
                .collect::<Result<_, _>>()?,
            expenditure_cancels: args
                .expenditures_cancel_ids
                .into_iter()
                .flatten()
                .flatten()
                .map(i64::from)
                .collect(),
            expenditures: args
                .expenditures_inputs
                .into_iter()
                .flatten()
                .flatten()
                .map(NewExpenditure::from)
                .collect(),
            justification: args.justification,
            creation_time: args.creation_time.map(|t| t.0),
        })
    }
}

impl From<ActivitiesLogExpenditureArgs> for NewExpenditure {
    fn from(args: ActivitiesLogExpenditureArgs) -> Self {
        NewExpenditure {
            mission_id: args.mission_id.into(),
            user_id: args.user_id.map(i64::from),
            kind: args.r#type,
            spending_date: args.spending_date.0,
            creation_time: args.creation_time.map(|t| t.0),
        }
    }
}

/// The address is exactly one of a manual one, a geocoded one and a company's known one.
impl TryFrom<ActivitiesLogLocationArgs> for LocationInput {
    type Error = AppError;

    fn try_from(args: ActivitiesLogLocationArgs) -> Result<Self, AppError> {
        Ok(LocationInput {
            mission: args.mission_id.into(),
            kind: args.r#type,
            address: locations::address(
                args.manual_address,
                args.geo_api_data.map(|g| g.0),
                args.company_known_address_id,
            )?,
            kilometer_reading: args.kilometer_reading,
            override_existing: args.override_existing.unwrap_or(false),
        })
    }
}

impl From<ActivitiesLogHolidayArgs> for HolidayInput {
    fn from(args: ActivitiesLogHolidayArgs) -> Self {
        HolidayInput {
            company_id: args.company_id.into(),
            start: args.start_time.0,
            end: args.end_time.0,
            title: args.title,
            comment: args.comment,
            user_id: args.user_id.map(i64::from),
        }
    }
}

/// The employee (a user or an e-mail address) is not part of the input: the resolver takes it
/// from the arguments first.
impl From<EmploymentsCreateEmploymentArgs> for EmploymentInput {
    fn from(args: EmploymentsCreateEmploymentArgs) -> Self {
        EmploymentInput {
            company_id: args.company_id.into(),
            start: args.start_date.map(|d| d.0),
            end: args.end_date.map(|d| d.0),
            has_admin_rights: args.has_admin_rights.unwrap_or(false),
            is_primary: args.is_primary,
            team_id: args.team_id.map(i64::from),
        }
    }
}

/// The language of the confirmation e-mail is not an argument: this gives the default one, which
/// the resolver replaces with the request's.
impl From<SignUpUserArgs> for NewUser {
    fn from(args: SignUpUserArgs) -> Self {
        NewUser {
            email: args.email.0,
            password: args.password,
            first_name: args.first_name,
            last_name: args.last_name,
            timezone_name: args.timezone_name,
            invite_token: args.invite_token,
            lang: crate::i18n::Lang::default(),
            language: crate::i18n::Lang::Fr,
        }
    }
}

impl<'a> From<&'a SignUpCompanyArgs> for NewCompany<'a> {
    fn from(args: &'a SignUpCompanyArgs) -> Self {
        NewCompany {
            usual_name: &args.usual_name,
            legal_name: args.legal_name.as_deref(),
            siren: &args.siren,
            phone_number: args.phone_number.as_deref(),
        }
    }
}

/// A list argument as ids: absent, null items and all.
fn ids(list: Option<Vec<Option<i32>>>) -> Vec<i64> {
    list.into_iter().flatten().flatten().map(i64::from).collect()
}

/// The company is not part of the input: the resolver passes it on its own.
impl From<TeamsCreateTeamArgs> for TeamInput {
    fn from(args: TeamsCreateTeamArgs) -> Self {
        TeamInput {
            name: args.name,
            user_ids: ids(args.user_ids),
            admin_ids: ids(args.admin_ids),
            vehicle_ids: ids(args.vehicle_ids),
            known_address_ids: ids(args.known_address_ids),
        }
    }
}

/// The team is not part of the input: the resolver passes it on its own.
impl From<TeamsUpdateTeamArgs> for TeamInput {
    fn from(args: TeamsUpdateTeamArgs) -> Self {
        TeamInput {
            name: args.name,
            user_ids: ids(args.user_ids),
            admin_ids: ids(args.admin_ids),
            vehicle_ids: ids(args.vehicle_ids),
            known_address_ids: ids(args.known_address_ids),
        }
    }
}

/// The vendor's client is not part of the registration: the resolver checks the `clientId`
/// argument against the credentials and passes the vendor's own.
impl<'a> From<&'a ProtectedCompaniesSoftwareRegistrationArgs> for Registration<'a> {
    fn from(args: &'a ProtectedCompaniesSoftwareRegistrationArgs) -> Self {
        Registration {
            usual_name: &args.usual_name,
            siren: &args.siren,
            siret: args.siret.as_deref(),
            nb_workers: args.nb_workers.into(),
        }
    }
}

/// The business type and the driving-time checks are not details: the resolver applies them on
/// their own, as is the company.
impl<'a> From<&'a MutationsUpdateCompanyDetailsArgs> for Details<'a> {
    fn from(args: &'a MutationsUpdateCompanyDetailsArgs) -> Self {
        Details {
            name: args.new_name.as_deref(),
            phone_number: args.new_phone_number.as_deref(),
            nb_workers: args.new_nb_workers.map(i64::from),
            legal_name: args.new_legal_name.as_deref(),
        }
    }
}

impl From<MutationsEditCompanySettingsArgs> for SettingsChange {
    fn from(args: MutationsEditCompanySettingsArgs) -> Self {
        SettingsChange {
            allow_team_mode: args.allow_team_mode,
            allow_transfers: args.allow_transfers,
            require_kilometer_data: args.require_kilometer_data,
            require_expenditures: args.require_expenditures,
            require_support_activity: args.require_support_activity,
            require_mission_name: args.require_mission_name,
            allow_other_task: args.allow_other_task,
            other_task_label: args.other_task_label,
        }
    }
}

/// An establishment of `signUp.companies`; a null item of the list is one without any field
/// (refused as such, with its position).
impl From<Option<CompanySiret>> for Establishment {
    fn from(item: Option<CompanySiret>) -> Self {
        let Some(item) = item else {
            return Establishment::default();
        };
        Establishment {
            siret: item.siret,
            usual_name: item.usual_name,
            phone_number: item.phone_number,
            business_type: item.business_type,
            nb_workers: item.nb_workers.map(i64::from),
        }
    }
}
