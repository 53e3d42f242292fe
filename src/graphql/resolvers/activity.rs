//! `Activity`: its mission, people and versions.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{Activity, ActivityResolver, ActivityVersion, Mission, User};
use crate::graphql::convert::ToGraphql;
use crate::graphql::loaders::missions::{self as loaders, MissionsById, VersionsByActivity};
use crate::graphql::loaders::users::load_user;

#[async_trait::async_trait]
impl ActivityResolver for App {
    async fn mission(&self, ctx: &Context<'_>, parent: &Activity) -> async_graphql::Result<Option<Mission>> {
        Ok(loaders::load::<MissionsById, _>(ctx, parent.mission_id.into()).await?)
    }

    async fn user(&self, ctx: &Context<'_>, parent: &Activity) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.user_id.into()).await?)
    }

    async fn submitter(&self, ctx: &Context<'_>, parent: &Activity) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.submitter_id.into()).await?)
    }

    async fn dismiss_author(&self, ctx: &Context<'_>, parent: &Activity) -> async_graphql::Result<Option<User>> {
        match parent.dismiss_author_id {
            Some(id) => Ok(load_user(ctx, id.into()).await?),
            None => Ok(None),
        }
    }

    async fn versions(
        &self,
        ctx: &Context<'_>,
        parent: &Activity,
    ) -> async_graphql::Result<Option<Vec<Option<ActivityVersion>>>> {
        let rows = loaders::load::<VersionsByActivity, _>(ctx, parent.id.into())
            .await?
            .unwrap_or_default();
        Ok(Some(rows.iter().map(|v| Some(v.to_graphql())).collect()))
    }
}
