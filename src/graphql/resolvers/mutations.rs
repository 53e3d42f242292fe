//! The fields of `Mutations` outside its namespaces: `updateCompanyDetails`,
//! `seedSandboxCompany` (in `sandbox.rs`), and the software vendors' (in `vendor_access.rs`).

use async_graphql::Context;

use crate::app::App;
use crate::domain::companies::{business, company, details, permissions};
use crate::graphql::caller;
use crate::graphql::contract::{Company, MutationsResolver};

#[async_trait::async_trait]
impl MutationsResolver for App {
    async fn update_company_details(
        &self,
        ctx: &Context<'_>,
        apply_business_type_to_employees: Option<bool>,
        company_id: i32,
        new_business_type: Option<String>,
        new_name: Option<String>,
        new_nb_workers: Option<i32>,
        new_phone_number: Option<String>,
        eu_driving_time_checks: Option<bool>,
        new_legal_name: Option<String>,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        // Every argument is checked before anything is written (the permission first).
        permissions::require_admin(self.db(ctx), actor, company_id.into()).await?;
        if let Some(name) = new_business_type.as_deref().filter(|n| !n.is_empty()) {
            business::parse_name(name, "newBusinessType")?;
        }
        let details = details::Details {
            name: new_name.as_deref(),
            phone_number: new_phone_number.as_deref(),
            nb_workers: new_nb_workers.map(i64::from),
            legal_name: new_legal_name.as_deref(),
        };
        details::update(self.db(ctx), actor, company_id.into(), details).await?;
        if let Some(on) = eu_driving_time_checks {
            business::set_eu_driving_checks(self.db(ctx), actor, company_id.into(), on).await?;
        }
        business::update_company(
            self.db(ctx),
            actor,
            company_id.into(),
            new_business_type.as_deref(),
            apply_business_type_to_employees.unwrap_or(false),
        )
        .await?;
        Ok(company::find(self.db(ctx), company_id.into())
            .await?
            .as_ref()
            .map(Company::from))
    }

    async fn seed_sandbox_company(
        &self,
        ctx: &Context<'_>,
        company_id: i32,
    ) -> async_graphql::Result<Option<crate::graphql::contract::SandboxSeedOutput>> {
        super::sandbox::seed(self, ctx, company_id).await.map(Some)
    }

    async fn dismiss_employment_token(
        &self,
        ctx: &Context<'_>,
        client_id: i32,
        employment_id: i32,
    ) -> async_graphql::Result<Option<crate::graphql::contract::Void>> {
        super::vendor_access::dismiss_employment_token(self, ctx, client_id, employment_id).await
    }

    async fn dismiss_company_token(
        &self,
        ctx: &Context<'_>,
        client_id: i32,
        company_id: i32,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::OAuth2Client>>>> {
        super::vendor_access::dismiss_company_token(self, ctx, client_id, company_id).await
    }

    async fn generate_company_token(
        &self,
        ctx: &Context<'_>,
        client_id: i32,
        company_id: i32,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::OAuth2Client>>>> {
        super::vendor_access::generate_company_token(self, ctx, client_id, company_id).await
    }

    async fn rotate_employment_token(
        &self,
        ctx: &Context<'_>,
        client_id: i32,
        employment_id: i32,
    ) -> async_graphql::Result<Option<crate::graphql::contract::EmploymentTokenRotation>> {
        super::vendor_access::rotate_employment_token(self, ctx, client_id, employment_id).await
    }
}
