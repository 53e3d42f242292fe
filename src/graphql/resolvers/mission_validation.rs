//! `MissionValidation`: its mission, user and author.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{Mission, MissionValidation, MissionValidationResolver, User};
use crate::graphql::loaders::users::load_user;

use crate::graphql::loaders::missions::{self as loaders, MissionsById};

#[async_trait::async_trait]
impl MissionValidationResolver for App {
    async fn mission(&self, ctx: &Context<'_>, parent: &MissionValidation) -> async_graphql::Result<Option<Mission>> {
        Ok(loaders::load::<MissionsById, _>(ctx, parent.mission_id.into()).await?)
    }

    async fn user(&self, ctx: &Context<'_>, parent: &MissionValidation) -> async_graphql::Result<Option<User>> {
        match parent.user_id {
            Some(id) => Ok(load_user(ctx, id.into()).await?),
            None => Ok(None),
        }
    }

    async fn submitter(&self, ctx: &Context<'_>, parent: &MissionValidation) -> async_graphql::Result<Option<User>> {
        match parent.submitter_id {
            Some(id) => Ok(load_user(ctx, id.into()).await?),
            None => Ok(None),
        }
    }
}
