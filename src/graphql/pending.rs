//! Parts of the contract whose implementation belongs to later work (companies and employments,
//! missions and activities): until then they answer INTERNAL_ERROR with the reason
//! `NOT_IMPLEMENTED`, so a client learns plainly that the operation is not available yet.

use async_graphql::Context;

use crate::errors::AppError;
use crate::graphql::contract::*;

use super::Api;

#[async_trait::async_trait]
impl ActivitiesResolver for Api {
    async fn create_mission(
        &self,
        _ctx: &Context<'_>,
        _company_id: i32,
        _context: Option<crate::graphql::scalars::GenericScalar>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _name: Option<String>,
        _past_registration_justification: Option<String>,
        _vehicle_id: Option<i32>,
        _vehicle_registration_number: Option<String>,
    ) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Activities.createMission").into())
    }
    async fn log_activity(
        &self,
        _ctx: &Context<'_>,
        _context: Option<crate::graphql::scalars::GenericScalar>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _end_time: Option<crate::graphql::scalars::TimeStamp>,
        _mission_id: i32,
        _start_time: crate::graphql::scalars::TimeStamp,
        _switch: Option<bool>,
        _type: crate::graphql::scalars::ActivityTypeEnum,
        _user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Activity>> {
        Err(AppError::not_implemented("Activities.logActivity").into())
    }
    async fn edit_activity(
        &self,
        _ctx: &Context<'_>,
        _activity_id: i32,
        _context: Option<crate::graphql::scalars::GenericScalar>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _end_time: Option<crate::graphql::scalars::TimeStamp>,
        _remove_end_time: Option<bool>,
        _start_time: Option<crate::graphql::scalars::TimeStamp>,
    ) -> async_graphql::Result<Option<Activity>> {
        Err(AppError::not_implemented("Activities.editActivity").into())
    }
    async fn cancel_activity(
        &self,
        _ctx: &Context<'_>,
        _activity_id: i32,
        _context: Option<crate::graphql::scalars::GenericScalar>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
    ) -> async_graphql::Result<Option<Void>> {
        Err(AppError::not_implemented("Activities.cancelActivity").into())
    }
    async fn end_mission(
        &self,
        _ctx: &Context<'_>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _end_time: crate::graphql::scalars::TimeStamp,
        _mission_id: i32,
        _past_registration_justification: Option<String>,
        _user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Activities.endMission").into())
    }
    async fn validate_mission(
        &self,
        _ctx: &Context<'_>,
        _activity_items: Option<Vec<Option<BulkActivityItem>>>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _expenditures_cancel_ids: Option<Vec<Option<i32>>>,
        _expenditures_inputs: Option<Vec<Option<BulkExpenditureItem>>>,
        _justification: Option<crate::graphql::scalars::OverValidationJustificationEnum>,
        _mission_id: i32,
        _users_ids: Vec<Option<i32>>,
    ) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Activities.validateMission").into())
    }
    async fn log_expenditure(
        &self,
        _ctx: &Context<'_>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _mission_id: i32,
        _spending_date: crate::graphql::scalars::Date,
        _type: crate::graphql::scalars::ExpenditureTypeEnum,
        _user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Expenditure>> {
        Err(AppError::not_implemented("Activities.logExpenditure").into())
    }
    async fn cancel_expenditure(
        &self,
        _ctx: &Context<'_>,
        _expenditure_id: i32,
    ) -> async_graphql::Result<Option<Void>> {
        Err(AppError::not_implemented("Activities.cancelExpenditure").into())
    }
    async fn log_comment(
        &self,
        _ctx: &Context<'_>,
        _mission_id: i32,
        _text: String,
    ) -> async_graphql::Result<Option<Comment>> {
        Err(AppError::not_implemented("Activities.logComment").into())
    }
    async fn cancel_comment(&self, _ctx: &Context<'_>, _comment_id: i32) -> async_graphql::Result<Option<Void>> {
        Err(AppError::not_implemented("Activities.cancelComment").into())
    }
    async fn log_location(
        &self,
        _ctx: &Context<'_>,
        _company_known_address_id: Option<i32>,
        _creation_time: Option<crate::graphql::scalars::TimeStamp>,
        _geo_api_data: Option<crate::graphql::scalars::GenericScalar>,
        _kilometer_reading: Option<i32>,
        _manual_address: Option<String>,
        _mission_id: i32,
        _override_existing: Option<bool>,
        _type: crate::graphql::scalars::LocationEntryTypeEnum,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        Err(AppError::not_implemented("Activities.logLocation").into())
    }
    async fn change_mission_name(
        &self,
        _ctx: &Context<'_>,
        _mission_id: i32,
        _name: String,
    ) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Activities.changeMissionName").into())
    }
    async fn cancel_mission(
        &self,
        _ctx: &Context<'_>,
        _mission_id: i32,
        _user_id: i32,
    ) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Activities.cancelMission").into())
    }
    async fn update_mission_vehicle(
        &self,
        _ctx: &Context<'_>,
        _mission_id: i32,
        _vehicle_id: Option<i32>,
        _vehicle_registration_number: Option<String>,
    ) -> async_graphql::Result<Option<Vehicle>> {
        Err(AppError::not_implemented("Activities.updateMissionVehicle").into())
    }
}

#[async_trait::async_trait]
impl VehicleResolver for Api {
    async fn company(&self, _ctx: &Context<'_>, _parent: &Vehicle) -> async_graphql::Result<Option<Company>> {
        Err(AppError::not_implemented("Vehicle.company").into())
    }
}

#[async_trait::async_trait]
impl MissionResolver for Api {
    async fn company(&self, _ctx: &Context<'_>, _parent: &Mission) -> async_graphql::Result<Option<Company>> {
        Err(AppError::not_implemented("Mission.company").into())
    }
    async fn vehicle(&self, _ctx: &Context<'_>, _parent: &Mission) -> async_graphql::Result<Option<Vehicle>> {
        Err(AppError::not_implemented("Mission.vehicle").into())
    }
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &Mission) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Mission.submitter").into())
    }
    async fn activities(
        &self,
        _ctx: &Context<'_>,
        _parent: &Mission,
        _include_dismissed_activities: Option<bool>,
    ) -> async_graphql::Result<Option<Vec<Option<Activity>>>> {
        Err(AppError::not_implemented("Mission.activities").into())
    }
    async fn expenditures(
        &self,
        _ctx: &Context<'_>,
        _parent: &Mission,
        _include_dismissed_expenditures: Option<bool>,
    ) -> async_graphql::Result<Option<Vec<Option<Expenditure>>>> {
        Err(AppError::not_implemented("Mission.expenditures").into())
    }
    async fn validations(
        &self,
        _ctx: &Context<'_>,
        _parent: &Mission,
    ) -> async_graphql::Result<Option<Vec<Option<MissionValidation>>>> {
        Err(AppError::not_implemented("Mission.validations").into())
    }
    async fn comments(
        &self,
        _ctx: &Context<'_>,
        _parent: &Mission,
    ) -> async_graphql::Result<Option<Vec<Option<Comment>>>> {
        Err(AppError::not_implemented("Mission.comments").into())
    }
    async fn start_location(
        &self,
        _ctx: &Context<'_>,
        _parent: &Mission,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        Err(AppError::not_implemented("Mission.startLocation").into())
    }
    async fn end_location(
        &self,
        _ctx: &Context<'_>,
        _parent: &Mission,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        Err(AppError::not_implemented("Mission.endLocation").into())
    }
}

#[async_trait::async_trait]
impl ActivityResolver for Api {
    async fn mission(&self, _ctx: &Context<'_>, _parent: &Activity) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Activity.mission").into())
    }
    async fn user(&self, _ctx: &Context<'_>, _parent: &Activity) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Activity.user").into())
    }
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &Activity) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Activity.submitter").into())
    }
    async fn dismiss_author(&self, _ctx: &Context<'_>, _parent: &Activity) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Activity.dismissAuthor").into())
    }
    async fn versions(
        &self,
        _ctx: &Context<'_>,
        _parent: &Activity,
    ) -> async_graphql::Result<Option<Vec<Option<ActivityVersion>>>> {
        Err(AppError::not_implemented("Activity.versions").into())
    }
}

#[async_trait::async_trait]
impl ActivityVersionResolver for Api {
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &ActivityVersion) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("ActivityVersion.submitter").into())
    }
}

#[async_trait::async_trait]
impl ExpenditureResolver for Api {
    async fn mission(&self, _ctx: &Context<'_>, _parent: &Expenditure) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Expenditure.mission").into())
    }
    async fn user(&self, _ctx: &Context<'_>, _parent: &Expenditure) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Expenditure.user").into())
    }
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &Expenditure) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Expenditure.submitter").into())
    }
    async fn dismiss_author(&self, _ctx: &Context<'_>, _parent: &Expenditure) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Expenditure.dismissAuthor").into())
    }
}

#[async_trait::async_trait]
impl CommentResolver for Api {
    async fn mission(&self, _ctx: &Context<'_>, _parent: &Comment) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("Comment.mission").into())
    }
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &Comment) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("Comment.submitter").into())
    }
}

#[async_trait::async_trait]
impl MissionValidationResolver for Api {
    async fn mission(&self, _ctx: &Context<'_>, _parent: &MissionValidation) -> async_graphql::Result<Option<Mission>> {
        Err(AppError::not_implemented("MissionValidation.mission").into())
    }
    async fn user(&self, _ctx: &Context<'_>, _parent: &MissionValidation) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("MissionValidation.user").into())
    }
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &MissionValidation) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("MissionValidation.submitter").into())
    }
}

#[async_trait::async_trait]
impl LocationEntryResolver for Api {
    async fn submitter(&self, _ctx: &Context<'_>, _parent: &LocationEntry) -> async_graphql::Result<Option<User>> {
        Err(AppError::not_implemented("LocationEntry.submitter").into())
    }
}
