//! `Mutations.locations`: a company's known addresses, managed by its admins (see
//! `domain::companies::known_addresses`), and their conversion to `CompanyKnownAddress`.

use async_graphql::Context;

use crate::app::App;
use crate::domain::companies::known_addresses::{self, KnownAddressRow};
use crate::domain::missions::locations;
use crate::graphql::caller;
use crate::graphql::contract::{
    CompanyKnownAddress, LocationsCreateKnownAddressArgs, LocationsEditKnownAddressArgs, LocationsResolver,
    LocationsTerminateKnownAddressArgs, Void,
};
use crate::graphql::convert::ToGraphql;

impl ToGraphql for KnownAddressRow {
    type Output = CompanyKnownAddress;

    fn to_graphql(&self) -> CompanyKnownAddress {
        CompanyKnownAddress {
            alias: self.alias.clone(),
            id: self.id as i32,
            name: self.name.clone(),
            city: self.city.clone(),
            postal_code: self.postal_code.clone(),
        }
    }
}

#[async_trait::async_trait]
impl LocationsResolver for App {
    async fn create_known_address(
        &self,
        ctx: &Context<'_>,
        args: LocationsCreateKnownAddressArgs,
    ) -> async_graphql::Result<Option<CompanyKnownAddress>> {
        let actor = caller(ctx).actor()?;
        let address = match (args.manual_address, args.geo_api_data) {
            (None, None) | (Some(_), Some(_)) => {
                return Err(crate::errors::AppError::invalid_inputs(
                    "Exactly one of geoApiData or manualAddress should be set",
                )
                .into());
            }
            (manual, geo) => locations::address(manual, geo.map(|g| g.0), None)?,
        };
        let row = known_addresses::create(
            self.db(ctx),
            actor,
            args.company_id.into(),
            address,
            args.alias.as_deref(),
        )
        .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn edit_known_address(
        &self,
        ctx: &Context<'_>,
        args: LocationsEditKnownAddressArgs,
    ) -> async_graphql::Result<Option<CompanyKnownAddress>> {
        let actor = caller(ctx).actor()?;
        let row = known_addresses::edit(
            self.db(ctx),
            actor,
            args.company_known_address_id.into(),
            args.alias.as_deref(),
        )
        .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn terminate_known_address(
        &self,
        ctx: &Context<'_>,
        args: LocationsTerminateKnownAddressArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        known_addresses::terminate(self.db(ctx), actor, args.company_known_address_id.into()).await?;
        Ok(Some(Void { success: true }))
    }
}
