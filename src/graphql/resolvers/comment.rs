//! `Comment`: its mission and author.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{Comment, CommentResolver, Mission, User};
use crate::graphql::loaders::users::load_user;

use crate::graphql::loaders::missions::{self as loaders, MissionsById};

#[async_trait::async_trait]
impl CommentResolver for App {
    async fn mission(&self, ctx: &Context<'_>, parent: &Comment) -> async_graphql::Result<Option<Mission>> {
        Ok(loaders::load::<MissionsById, _>(ctx, parent.mission_id.into()).await?)
    }

    async fn submitter(&self, ctx: &Context<'_>, parent: &Comment) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.submitter_id.into()).await?)
    }
}
