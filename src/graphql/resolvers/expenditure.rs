//! Resolvers of `Expenditure`.

use async_graphql::Context;

use crate::app::App;
use crate::domain::missions::store;
use crate::graphql::caller;
use crate::graphql::contract::{Expenditure, ExpenditureResolver, Mission, User};
use crate::graphql::convert::ToGraphql;
use crate::graphql::loaders::users::load_user;

#[async_trait::async_trait]
impl ExpenditureResolver for App {
    async fn mission(&self, ctx: &Context<'_>, parent: &Expenditure) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            store::load_one(self.db(ctx), parent.mission_id.into(), actor)
                .await?
                .to_graphql(),
        ))
    }

    async fn user(&self, ctx: &Context<'_>, parent: &Expenditure) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.user_id.into()).await?)
    }

    async fn submitter(&self, ctx: &Context<'_>, parent: &Expenditure) -> async_graphql::Result<Option<User>> {
        Ok(load_user(ctx, parent.submitter_id.into()).await?)
    }

    async fn dismiss_author(&self, ctx: &Context<'_>, parent: &Expenditure) -> async_graphql::Result<Option<User>> {
        match parent.dismiss_author_id {
            Some(id) => Ok(load_user(ctx, id.into()).await?),
            None => Ok(None),
        }
    }
}
