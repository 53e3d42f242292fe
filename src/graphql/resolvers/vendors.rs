//! The software vendors' schema (`/protected`): `company.softwareRegistration`,
//! `company.syncEmployment`, `employmentToken`. The transport has authenticated the vendor
//! (`X-CLIENT-ID` + `X-API-KEY`) and placed it in the request data.

use async_graphql::Context;

use crate::app::App;
use crate::db::Db;
use crate::domain::vendors::api_keys::Vendor;
use crate::domain::vendors::{audit, companies, employees};
use crate::errors::AppError;
use crate::graphql::contract::{Company, Employment};
use crate::graphql::convert::ToGraphql;
use crate::graphql::protected::contract_protected::{
    ProtectedCompaniesResolver, ProtectedCompaniesSoftwareRegistrationArgs, ProtectedCompaniesSyncEmploymentArgs,
    ProtectedQueriesEmploymentTokenArgs, ProtectedQueriesResolver, ThirdPartyClientEmployment,
    ThirdPartyClientEmploymentResolver,
};

/// The authenticated vendor; the transport refuses a request without one before it runs, so
/// its absence here is a request that did not come through `/protected`.
fn vendor<'a>(ctx: &'a Context<'_>) -> Result<&'a Vendor, AppError> {
    crate::graphql::RequestData::of(ctx)
        .and_then(|data| data.vendor.as_ref())
        .ok_or_else(|| AppError::authentication("Invalid API Key"))
}

/// A `clientId` argument must name the client of the credentials (the reference's check).
fn same_client(vendor: &Vendor, client_id: i32) -> Result<(), AppError> {
    if i64::from(client_id) != vendor.client_id {
        return Err(AppError::authorization(
            "You do not have access to the provided client id",
        ));
    }
    Ok(())
}

/// Records a successful operation of the vendor on a company in the audit trail.
async fn audited(db: &Db, vendor: &Vendor, company_id: i64, operation: &str) {
    let credential = audit::Credential::ApiKey(vendor.key_id);
    audit::record_or_log(db, vendor.client_id, company_id, credential, operation).await;
}

#[async_trait::async_trait]
impl ProtectedCompaniesResolver for App {
    async fn software_registration(
        &self,
        ctx: &Context<'_>,
        args: ProtectedCompaniesSoftwareRegistrationArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let vendor = vendor(ctx)?;
        same_client(vendor, args.client_id)?;
        let company = companies::register(self.db(ctx), vendor.client_id, (&args).into()).await?;
        audited(
            self.db(ctx),
            vendor,
            company.id,
            "mutation company.softwareRegistration",
        )
        .await;
        Ok(Some(Company::from(&company)))
    }

    async fn sync_employment(
        &self,
        ctx: &Context<'_>,
        args: ProtectedCompaniesSyncEmploymentArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let vendor = vendor(ctx)?;
        let employees = args
            .employees
            .into_iter()
            .flatten()
            .map(|e| employees::Employee {
                email: e.email.0,
                first_name: e.first_name,
                last_name: e.last_name,
                has_admin_rights: e.has_admin_rights.unwrap_or(false),
                timezone_name: e.timezone_name.unwrap_or_else(|| "Europe/Paris".to_string()),
            })
            .collect();
        let rows = employees::sync(
            self.db(ctx),
            (vendor.client_id, &vendor.client_name),
            args.company_id.into(),
            employees,
            &self.public_url,
        )
        .await?;
        audited(
            self.db(ctx),
            vendor,
            args.company_id.into(),
            "mutation company.syncEmployment",
        )
        .await;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }
}

#[async_trait::async_trait]
impl ProtectedQueriesResolver for App {
    async fn employment_token(
        &self,
        ctx: &Context<'_>,
        args: ProtectedQueriesEmploymentTokenArgs,
    ) -> async_graphql::Result<Option<ThirdPartyClientEmployment>> {
        let vendor = vendor(ctx)?;
        same_client(vendor, args.client_id)?;
        let view = employees::employment_token(
            self.db(ctx),
            (vendor.client_id, &vendor.client_name),
            args.employment_id.into(),
        )
        .await?;
        if let Some(v) = &view {
            audited(self.db(ctx), vendor, v.employment.company_id, "query employmentToken").await;
        }
        Ok(view.map(|v| ThirdPartyClientEmployment {
            id: Some(v.link_id as i32),
            employment_id: v.employment.id as i32,
            client_id: v.client_id as i32,
            access_token: v.access_token,
            client_name: Some(v.client_name),
        }))
    }
}

#[async_trait::async_trait]
impl ThirdPartyClientEmploymentResolver for App {
    async fn employment(
        &self,
        ctx: &Context<'_>,
        parent: &ThirdPartyClientEmployment,
    ) -> async_graphql::Result<Option<Employment>> {
        let row = employees::client_view_of(self.db(ctx), parent.client_id.into(), parent.employment_id.into()).await?;
        Ok(row.map(|r| r.to_graphql()))
    }
}
