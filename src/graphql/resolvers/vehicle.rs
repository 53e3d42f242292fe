//! `Vehicle`: its company.

use async_graphql::Context;

use crate::app::App;
use crate::graphql::contract::{Company, Vehicle, VehicleResolver};

#[async_trait::async_trait]
impl VehicleResolver for App {
    async fn company(&self, ctx: &Context<'_>, parent: &Vehicle) -> async_graphql::Result<Option<Company>> {
        Ok(crate::graphql::loaders::missions::company(ctx, parent.company_id.into()).await?)
    }
}
