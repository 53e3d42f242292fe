//! `Mutations.activities`: missions, activities, expenditures, comments and locations. Each
//! resolver maps its arguments to the domain's input and calls one domain service.

use async_graphql::Context;

use crate::app::App;
use crate::domain::activities::log::{ActivityEdit, NewActivity};
use crate::domain::activities::service as activities;
use crate::domain::expenditures::NewExpenditure;
use crate::domain::missions::locations;
use crate::domain::missions::service::{self as missions, Correction, LocationInput, MissionInput, Validation};
use crate::errors::AppError;
use crate::graphql::caller;
use crate::graphql::contract::{
    ActivitiesResolver, Activity, BulkActivityItem, BulkExpenditureItem, Comment, Expenditure, LocationEntry, Mission,
    Vehicle, Void,
};
use crate::graphql::convert::ToGraphql;
use crate::graphql::scalars::{
    ActivityTypeEnum, Date, ExpenditureTypeEnum, GenericScalar, LocationEntryTypeEnum, OverValidationJustificationEnum,
    TimeStamp,
};

/// One `activityItems` entry of `validateMission`: exactly one of `log`, `edit`, `cancel`.
fn correction(item: BulkActivityItem) -> Result<Correction, AppError> {
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

fn expenditure(input: BulkExpenditureItem) -> NewExpenditure {
    NewExpenditure {
        mission_id: input.mission_id.into(),
        user_id: input.user_id.map(i64::from),
        kind: input.r#type,
        spending_date: input.spending_date.0,
        creation_time: input.creation_time.map(|t| t.0),
    }
}

fn done() -> async_graphql::Result<Option<Void>> {
    Ok(Some(Void { success: true }))
}

#[async_trait::async_trait]
impl ActivitiesResolver for App {
    async fn create_mission(
        &self,
        ctx: &Context<'_>,
        company_id: i32,
        context: Option<GenericScalar>,
        creation_time: Option<TimeStamp>,
        name: Option<String>,
        past_registration_justification: Option<String>,
        vehicle_id: Option<i32>,
        vehicle_registration_number: Option<String>,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        let input = MissionInput {
            company_id: company_id.into(),
            name,
            context: context.map(|c| c.0),
            creation_time: creation_time.map(|t| t.0),
            past_registration_justification,
            vehicle_id,
            vehicle_registration_number,
        };
        Ok(Some(missions::create(self.db(ctx), actor, input).await?.to_graphql()))
    }

    async fn log_activity(
        &self,
        ctx: &Context<'_>,
        context: Option<GenericScalar>,
        creation_time: Option<TimeStamp>,
        end_time: Option<TimeStamp>,
        mission_id: i32,
        start_time: TimeStamp,
        switch: Option<bool>,
        r#type: ActivityTypeEnum,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let new = NewActivity {
            mission_id: mission_id.into(),
            user_id: user_id.map(i64::from),
            kind: r#type,
            start: start_time.0,
            end: end_time.map(|t| t.0),
            switch: switch.unwrap_or(true),
            context: context.map(|c| c.0),
            creation_time: creation_time.map(|t| t.0),
        };
        Ok(Some(
            activities::log_activity(self.db(ctx), actor, new).await?.to_graphql(),
        ))
    }

    async fn edit_activity(
        &self,
        ctx: &Context<'_>,
        activity_id: i32,
        context: Option<GenericScalar>,
        creation_time: Option<TimeStamp>,
        end_time: Option<TimeStamp>,
        remove_end_time: Option<bool>,
        start_time: Option<TimeStamp>,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let edit = ActivityEdit {
            activity_id: activity_id.into(),
            start: start_time.map(|t| t.0),
            end: end_time.map(|t| t.0),
            remove_end: remove_end_time.unwrap_or(false),
            context: context.map(|c| c.0),
            creation_time: creation_time.map(|t| t.0),
        };
        Ok(Some(
            activities::edit_activity(self.db(ctx), actor, edit).await?.to_graphql(),
        ))
    }

    async fn cancel_activity(
        &self,
        ctx: &Context<'_>,
        activity_id: i32,
        context: Option<GenericScalar>,
        _creation_time: Option<TimeStamp>,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        activities::cancel_activity(self.db(ctx), actor, activity_id.into(), context.map(|c| c.0)).await?;
        done()
    }

    async fn end_mission(
        &self,
        ctx: &Context<'_>,
        _creation_time: Option<TimeStamp>,
        end_time: TimeStamp,
        mission_id: i32,
        _past_registration_justification: Option<String>,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        let worker = user_id.map(i64::from);
        Ok(Some(
            missions::end(self.db(ctx), actor, mission_id.into(), end_time.0, worker)
                .await?
                .to_graphql(),
        ))
    }

    async fn validate_mission(
        &self,
        ctx: &Context<'_>,
        activity_items: Option<Vec<Option<BulkActivityItem>>>,
        creation_time: Option<TimeStamp>,
        expenditures_cancel_ids: Option<Vec<Option<i32>>>,
        expenditures_inputs: Option<Vec<Option<BulkExpenditureItem>>>,
        justification: Option<OverValidationJustificationEnum>,
        mission_id: i32,
        users_ids: Vec<Option<i32>>,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        let validation = Validation {
            mission: mission_id.into(),
            users: users_ids.into_iter().flatten().map(i64::from).collect(),
            corrections: activity_items
                .into_iter()
                .flatten()
                .flatten()
                .map(correction)
                .collect::<Result<_, _>>()?,
            expenditure_cancels: expenditures_cancel_ids
                .into_iter()
                .flatten()
                .flatten()
                .map(i64::from)
                .collect(),
            expenditures: expenditures_inputs
                .into_iter()
                .flatten()
                .flatten()
                .map(expenditure)
                .collect(),
            justification,
            creation_time: creation_time.map(|t| t.0),
        };
        Ok(Some(
            missions::validate(self.db(ctx), actor, validation).await?.to_graphql(),
        ))
    }

    async fn log_expenditure(
        &self,
        ctx: &Context<'_>,
        creation_time: Option<TimeStamp>,
        mission_id: i32,
        spending_date: Date,
        r#type: ExpenditureTypeEnum,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Expenditure>> {
        let actor = caller(ctx).actor()?;
        let new = NewExpenditure {
            mission_id: mission_id.into(),
            user_id: user_id.map(i64::from),
            kind: r#type,
            spending_date: spending_date.0,
            creation_time: creation_time.map(|t| t.0),
        };
        Ok(Some(
            missions::log_expenditure(self.db(ctx), actor, new).await?.to_graphql(),
        ))
    }

    async fn cancel_expenditure(&self, ctx: &Context<'_>, expenditure_id: i32) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        missions::cancel_expenditure(self.db(ctx), actor, expenditure_id.into()).await?;
        done()
    }

    async fn log_comment(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        text: String,
    ) -> async_graphql::Result<Option<Comment>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::log_comment(self.db(ctx), actor, mission_id.into(), &text)
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_comment(&self, ctx: &Context<'_>, comment_id: i32) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        missions::cancel_comment(self.db(ctx), actor, comment_id.into()).await?;
        done()
    }

    async fn log_location(
        &self,
        ctx: &Context<'_>,
        company_known_address_id: Option<i32>,
        _creation_time: Option<TimeStamp>,
        geo_api_data: Option<GenericScalar>,
        kilometer_reading: Option<i32>,
        manual_address: Option<String>,
        mission_id: i32,
        override_existing: Option<bool>,
        r#type: LocationEntryTypeEnum,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        let actor = caller(ctx).actor()?;
        let input = LocationInput {
            mission: mission_id.into(),
            kind: r#type,
            address: locations::address(manual_address, geo_api_data.map(|g| g.0), company_known_address_id)?,
            kilometer_reading,
            override_existing: override_existing.unwrap_or(false),
        };
        Ok(Some(
            missions::log_location(self.db(ctx), actor, input).await?.to_graphql(),
        ))
    }

    async fn register_kilometer_at_location(
        &self,
        ctx: &Context<'_>,
        kilometer_reading: i32,
        mission_location_id: i32,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        missions::register_kilometer(
            self.db(ctx),
            actor,
            mission_location_id.into(),
            kilometer_reading.into(),
        )
        .await?;
        done()
    }

    async fn log_holiday(
        &self,
        ctx: &Context<'_>,
        comment: Option<String>,
        company_id: i32,
        end_time: TimeStamp,
        start_time: TimeStamp,
        title: String,
        user_id: Option<i32>,
    ) -> async_graphql::Result<Option<Vec<Option<Mission>>>> {
        use crate::domain::missions::holidays::{self, HolidayInput};
        let actor = caller(ctx).actor()?;
        let input = HolidayInput {
            company_id: company_id.into(),
            start: start_time.0,
            end: end_time.0,
            title,
            comment,
            user_id: user_id.map(i64::from),
        };
        let views = holidays::log_holiday(self.db(ctx), actor, input).await?;
        Ok(Some(views.iter().map(|view| Some(view.to_graphql())).collect()))
    }

    async fn dispute_activity(
        &self,
        ctx: &Context<'_>,
        activity_id: i32,
        text: String,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let row = crate::domain::activities::disputes::dispute(self.db(ctx), actor, activity_id.into(), &text).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn cancel_dispute(&self, ctx: &Context<'_>, activity_id: i32) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let row = crate::domain::activities::disputes::cancel(self.db(ctx), actor, activity_id.into()).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn change_mission_name(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        name: String,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::rename(self.db(ctx), actor, mission_id.into(), &name)
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_mission(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        user_id: i32,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::cancel(self.db(ctx), actor, mission_id.into(), user_id.into())
                .await?
                .to_graphql(),
        ))
    }

    async fn update_mission_vehicle(
        &self,
        ctx: &Context<'_>,
        mission_id: i32,
        vehicle_id: Option<i32>,
        vehicle_registration_number: Option<String>,
    ) -> async_graphql::Result<Option<Vehicle>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::change_vehicle(
                self.db(ctx),
                actor,
                mission_id.into(),
                vehicle_id,
                vehicle_registration_number,
            )
            .await?
            .to_graphql(),
        ))
    }
}
