//! `ActivityVersion`: its author.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{ActivityVersion, ActivityVersionResolver, User};
use crate::graphql::loaders::users::load_user;

#[async_trait::async_trait]
impl ActivityVersionResolver for App {
    async fn submitter(&self, ctx: &Context<'_>, parent: &ActivityVersion) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.submitter_id.into()).await?)
    }
}
