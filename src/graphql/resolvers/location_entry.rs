//! `LocationEntry`: its author.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{LocationEntry, LocationEntryResolver, User};
use crate::graphql::loaders::users::load_user;

#[async_trait::async_trait]
impl LocationEntryResolver for App {
    async fn submitter(&self, ctx: &Context<'_>, parent: &LocationEntry) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.submitter_id.into()).await?)
    }
}
