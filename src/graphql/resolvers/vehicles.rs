//! `Mutations.vehicles`: a company's vehicles, managed by its admins (see
//! `domain::vehicles::manage`).

use async_graphql::Context;

use crate::app::App;
use crate::domain::vehicles::manage;
use crate::graphql::caller;
use crate::graphql::contract::{
    Vehicle, VehiclesCreateVehicleArgs, VehiclesEditVehicleArgs, VehiclesResolver, VehiclesTerminateVehicleArgs, Void,
};
use crate::graphql::convert::ToGraphql;

#[async_trait::async_trait]
impl VehiclesResolver for App {
    async fn create_vehicle(
        &self,
        ctx: &Context<'_>,
        args: VehiclesCreateVehicleArgs,
    ) -> async_graphql::Result<Option<Vehicle>> {
        let actor = caller(ctx).actor()?;
        let row = manage::create(
            self.db(ctx),
            actor,
            args.company_id.into(),
            &args.registration_number,
            args.alias.as_deref(),
        )
        .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn edit_vehicle(
        &self,
        ctx: &Context<'_>,
        args: VehiclesEditVehicleArgs,
    ) -> async_graphql::Result<Option<Vehicle>> {
        let actor = caller(ctx).actor()?;
        let row = manage::edit(self.db(ctx), actor, args.id.into(), args.alias.as_deref()).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn terminate_vehicle(
        &self,
        ctx: &Context<'_>,
        args: VehiclesTerminateVehicleArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        manage::terminate(self.db(ctx), actor, args.id.into()).await?;
        Ok(Some(Void { success: true }))
    }
}
