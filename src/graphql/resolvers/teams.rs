//! `Mutations.teams`, and the fields of `Team`: a company's teams, created, replaced and deleted
//! by its admins (see `domain::teams`).

use async_graphql::Context;

use crate::app::App;
use crate::db::Db;
use crate::domain::companies::company;
use crate::domain::teams::{self, TeamRow};
use crate::domain::users::accounts;
use crate::graphql::caller;
use crate::graphql::contract::{
    Company, CompanyKnownAddress, Team, TeamResolver, TeamsCreateTeamArgs, TeamsDeleteTeamArgs, TeamsResolver,
    TeamsUpdateTeamArgs, User, Vehicle,
};
use crate::graphql::convert::ToGraphql;
use crate::graphql::scalars::TimeStamp;

impl ToGraphql for TeamRow {
    type Output = Team;

    fn to_graphql(&self) -> Team {
        Team {
            id: Some(self.id as i32),
            creation_time: TimeStamp(self.creation_time),
            name: self.name.clone(),
        }
    }
}

async fn company_of(db: &Db, company_id: i64) -> async_graphql::Result<Option<Company>> {
    Ok(company::find(db, company_id).await?.as_ref().map(Company::from))
}

#[async_trait::async_trait]
impl TeamsResolver for App {
    async fn create_team(
        &self,
        ctx: &Context<'_>,
        args: TeamsCreateTeamArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        let company_id = teams::create(
            self.db(ctx),
            actor,
            args.company_id.into(),
            args.into(),
            &self.public_url,
        )
        .await?;
        company_of(self.db(ctx), company_id).await
    }

    async fn delete_team(
        &self,
        ctx: &Context<'_>,
        args: TeamsDeleteTeamArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        let company_id = teams::delete(self.db(ctx), actor, args.team_id.into()).await?;
        company_of(self.db(ctx), company_id).await
    }

    async fn update_team(
        &self,
        ctx: &Context<'_>,
        args: TeamsUpdateTeamArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        let company_id = teams::update(self.db(ctx), actor, args.team_id.into(), args.into(), &self.public_url).await?;
        company_of(self.db(ctx), company_id).await
    }
}

#[async_trait::async_trait]
impl TeamResolver for App {
    async fn admin_users(&self, ctx: &Context<'_>, parent: &Team) -> async_graphql::Result<Option<Vec<Option<User>>>> {
        match parent.id {
            Some(id) => {
                self.users_by_id(ctx, teams::admin_ids(self.db(ctx), id.into()).await?)
                    .await
            }
            None => Ok(None),
        }
    }

    async fn vehicles(&self, ctx: &Context<'_>, parent: &Team) -> async_graphql::Result<Option<Vec<Option<Vehicle>>>> {
        let Some(id) = parent.id else {
            return Ok(None);
        };
        let vehicles = teams::vehicles(self.db(ctx), id.into()).await?;
        Ok(Some(vehicles.iter().map(|v| Some(v.to_graphql())).collect()))
    }

    async fn known_addresses(
        &self,
        ctx: &Context<'_>,
        parent: &Team,
    ) -> async_graphql::Result<Option<Vec<Option<CompanyKnownAddress>>>> {
        let Some(id) = parent.id else {
            return Ok(None);
        };
        let rows = crate::domain::companies::known_addresses::of_team(self.db(ctx), id.into()).await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn users(&self, ctx: &Context<'_>, parent: &Team) -> async_graphql::Result<Option<Vec<Option<User>>>> {
        match parent.id {
            Some(id) => {
                self.users_by_id(ctx, teams::member_ids(self.db(ctx), id.into()).await?)
                    .await
            }
            None => Ok(None),
        }
    }
}

impl App {
    /// The accounts of a team's members or admins, in one statement.
    async fn users_by_id(&self, ctx: &Context<'_>, ids: Vec<i64>) -> async_graphql::Result<Option<Vec<Option<User>>>> {
        let actor = crate::graphql::caller(ctx).actor().ok();
        let users = accounts::find_many(self.db(ctx), &ids).await?;
        Ok(Some(
            users
                .into_iter()
                .map(|u| Some(crate::graphql::convert::user_seen_by(u, actor)))
                .collect(),
        ))
    }
}
