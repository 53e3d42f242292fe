//! `Mission`: what hangs below a mission, through the request's loaders.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{
    Activity, Comment, Company, Expenditure, LocationEntry, Mission, MissionActivitiesArgs, MissionExpendituresArgs,
    MissionResolver, MissionValidation, User, Vehicle,
};
use crate::graphql::loaders::users::load_user;

use crate::graphql::convert::ToGraphql;
use crate::graphql::loaders::missions::{
    self as loaders, ActivitiesByMission, CommentsByMission, ExpendituresByMission, LocationsByMission,
    ValidationsByMission, VehiclesById,
};

#[async_trait::async_trait]
impl MissionResolver for App {
    async fn company(&self, ctx: &Context<'_>, parent: &Mission) -> async_graphql::Result<Option<Company>> {
        Ok(crate::graphql::loaders::missions::company(ctx, parent.company_id.into()).await?)
    }

    async fn vehicle(&self, ctx: &Context<'_>, parent: &Mission) -> async_graphql::Result<Option<Vehicle>> {
        let Some(id) = parent.vehicle_id else { return Ok(None) };
        let rows = loaders::load::<VehiclesById, _>(ctx, id.into())
            .await?
            .unwrap_or_default();
        Ok(rows.first().map(|v| v.to_graphql()))
    }

    async fn submitter(&self, ctx: &Context<'_>, parent: &Mission) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.submitter_id.into()).await?)
    }

    async fn deleted_by(&self, ctx: &Context<'_>, parent: &Mission) -> async_graphql::Result<Option<String>> {
        if parent.deleted_at.is_none() {
            return Ok(None);
        }
        Ok(Some(
            crate::domain::missions::deleted::deleted_by(self.db(ctx), parent.id.into()).await?,
        ))
    }

    async fn is_holiday(&self, ctx: &Context<'_>, parent: &Mission) -> async_graphql::Result<Option<bool>> {
        Ok(Some(
            crate::domain::missions::deleted::is_holiday(self.db(ctx), parent.id.into()).await?,
        ))
    }

    async fn activities(
        &self,
        ctx: &Context<'_>,
        parent: &Mission,
        args: MissionActivitiesArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Activity>>>> {
        let all = args.include_dismissed_activities.unwrap_or(false);
        let rows = loaders::load::<ActivitiesByMission, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(Some(
            rows.iter()
                .filter(|a| all || a.dismissed_at.is_none())
                .map(|a| Some(a.to_graphql()))
                .collect(),
        ))
    }

    async fn expenditures(
        &self,
        ctx: &Context<'_>,
        parent: &Mission,
        args: MissionExpendituresArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Expenditure>>>> {
        let all = args.include_dismissed_expenditures.unwrap_or(false);
        let rows = loaders::load::<ExpendituresByMission, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(Some(
            rows.iter()
                .filter(|e| all || e.dismissed_at.is_none())
                .map(|e| Some(e.to_graphql()))
                .collect(),
        ))
    }

    async fn validations(
        &self,
        ctx: &Context<'_>,
        parent: &Mission,
    ) -> async_graphql::Result<Option<Vec<Option<MissionValidation>>>> {
        let rows = loaders::load::<ValidationsByMission, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(Some(rows.iter().map(|v| Some(v.to_graphql())).collect()))
    }

    async fn comments(
        &self,
        ctx: &Context<'_>,
        parent: &Mission,
    ) -> async_graphql::Result<Option<Vec<Option<Comment>>>> {
        let rows = loaders::load::<CommentsByMission, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(Some(rows.iter().map(|c| Some(c.to_graphql())).collect()))
    }

    async fn start_location(
        &self,
        ctx: &Context<'_>,
        parent: &Mission,
    ) -> async_graphql::Result<Option<LocationEntry>> {
        let rows = loaders::load::<LocationsByMission, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(rows
            .iter()
            .find(|l| l.kind == "mission_start_location")
            .map(|l| l.to_graphql()))
    }

    async fn end_location(&self, ctx: &Context<'_>, parent: &Mission) -> async_graphql::Result<Option<LocationEntry>> {
        let rows = loaders::load::<LocationsByMission, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(rows
            .iter()
            .find(|l| l.kind == "mission_end_location")
            .map(|l| l.to_graphql()))
    }
}
