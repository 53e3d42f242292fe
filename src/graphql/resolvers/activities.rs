//! `Mutations.activities`: missions, activities, expenditures, comments and locations. Each
//! resolver turns its arguments into the domain's input (`crate::graphql::convert_args`) and calls one
//! domain service.

use async_graphql::Context;

use crate::app::App;
use crate::domain::activities::service as activities;
use crate::domain::missions::service as missions;
use crate::graphql::caller;
use crate::graphql::contract::{
    ActivitiesCancelActivityArgs, ActivitiesCancelCommentArgs, ActivitiesCancelDisputeArgs,
    ActivitiesCancelExpenditureArgs, ActivitiesCancelMissionArgs, ActivitiesChangeMissionNameArgs,
    ActivitiesCreateMissionArgs, ActivitiesDisputeActivityArgs, ActivitiesEditActivityArgs, ActivitiesEndMissionArgs,
    ActivitiesLogActivityArgs, ActivitiesLogCommentArgs, ActivitiesLogExpenditureArgs, ActivitiesLogHolidayArgs,
    ActivitiesLogLocationArgs, ActivitiesRegisterKilometerAtLocationArgs, ActivitiesResolver,
    ActivitiesUpdateMissionVehicleArgs, ActivitiesValidateMissionArgs, Activity, Comment, Expenditure, LocationEntry,
    Mission, Vehicle, Void,
};
use crate::graphql::convert::ToGraphql;

fn done() -> async_graphql::Result<Option<Void>> {
    Ok(Some(Void { success: true }))
}

#[async_trait::async_trait]
impl ActivitiesResolver for App {
    async fn create_mission(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesCreateMissionArgs,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::create(self.db(ctx), actor, args.into()).await?.to_graphql(),
        ))
    }

    async fn log_activity(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesLogActivityArgs,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            activities::log_activity(self.db(ctx), actor, args.into())
                .await?
                .to_graphql(),
        ))
    }

    async fn edit_activity(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesEditActivityArgs,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            activities::edit_activity(self.db(ctx), actor, args.into())
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_activity(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesCancelActivityArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        activities::cancel_activity(self.db(ctx), actor, args.activity_id.into(), args.context.map(|c| c.0)).await?;
        done()
    }

    async fn end_mission(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesEndMissionArgs,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        let worker = args.user_id.map(i64::from);
        Ok(Some(
            missions::end(self.db(ctx), actor, args.mission_id.into(), args.end_time.0, worker)
                .await?
                .to_graphql(),
        ))
    }

    async fn validate_mission(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesValidateMissionArgs,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::validate(self.db(ctx), actor, args.try_into()?, &self.public_url)
                .await?
                .to_graphql(),
        ))
    }

    async fn log_expenditure(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesLogExpenditureArgs,
    ) -> async_graphql::Result<Option<Expenditure>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::log_expenditure(self.db(ctx), actor, args.into())
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_expenditure(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesCancelExpenditureArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        missions::cancel_expenditure(self.db(ctx), actor, args.expenditure_id.into()).await?;
        done()
    }

    async fn log_comment(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesLogCommentArgs,
    ) -> async_graphql::Result<Option<Comment>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::log_comment(self.db(ctx), actor, args.mission_id.into(), &args.text)
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_comment(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesCancelCommentArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        missions::cancel_comment(self.db(ctx), actor, args.comment_id.into()).await?;
        done()
    }

    async fn log_location(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesLogLocationArgs,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::log_location(self.db(ctx), actor, args.try_into()?)
                .await?
                .to_graphql(),
        ))
    }

    async fn register_kilometer_at_location(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesRegisterKilometerAtLocationArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        missions::register_kilometer(
            self.db(ctx),
            actor,
            args.mission_location_id.into(),
            args.kilometer_reading.into(),
        )
        .await?;
        done()
    }

    async fn log_holiday(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesLogHolidayArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Mission>>>> {
        let actor = caller(ctx).actor()?;
        let views =
            crate::domain::missions::holidays::log_holiday(self.db(ctx), actor, args.into(), &self.public_url).await?;
        Ok(Some(views.iter().map(|view| Some(view.to_graphql())).collect()))
    }

    async fn dispute_activity(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesDisputeActivityArgs,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let row =
            crate::domain::activities::disputes::dispute(self.db(ctx), actor, args.activity_id.into(), &args.text)
                .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn cancel_dispute(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesCancelDisputeArgs,
    ) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let row = crate::domain::activities::disputes::cancel(self.db(ctx), actor, args.activity_id.into()).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn change_mission_name(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesChangeMissionNameArgs,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::rename(self.db(ctx), actor, args.mission_id.into(), &args.name)
                .await?
                .to_graphql(),
        ))
    }

    async fn cancel_mission(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesCancelMissionArgs,
    ) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::cancel(self.db(ctx), actor, args.mission_id.into(), args.user_id.into())
                .await?
                .to_graphql(),
        ))
    }

    async fn update_mission_vehicle(
        &self,
        ctx: &Context<'_>,
        args: ActivitiesUpdateMissionVehicleArgs,
    ) -> async_graphql::Result<Option<Vehicle>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            missions::change_vehicle(
                self.db(ctx),
                actor,
                args.mission_id.into(),
                args.vehicle_id,
                args.vehicle_registration_number,
            )
            .await?
            .to_graphql(),
        ))
    }
}
