//! The fields of `Mutations` outside its namespaces: `updateCompanyDetails`,
//! `editCompanySettings`, `snoozeNbWorkerInfo`, `seedSandboxCompany` (in `sandbox.rs`), and the software vendors' (in `vendor_access.rs`).

use async_graphql::Context;

use crate::app::App;
use crate::domain::companies::{business, company, details, permissions, settings};
use crate::graphql::caller;
use crate::graphql::contract::{
    Company, MutationsDismissCompanyTokenArgs, MutationsDismissEmploymentTokenArgs, MutationsEditCompanySettingsArgs,
    MutationsGenerateCompanyTokenArgs, MutationsResolver, MutationsRotateEmploymentTokenArgs,
    MutationsSeedSandboxCompanyArgs, MutationsSnoozeNbWorkerInfoArgs, MutationsUpdateCompanyDetailsArgs, Void,
};

#[async_trait::async_trait]
impl MutationsResolver for App {
    async fn update_company_details(
        &self,
        ctx: &Context<'_>,
        args: MutationsUpdateCompanyDetailsArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        // Every argument is checked before anything is written (the permission first).
        permissions::require_admin(self.db(ctx), actor, args.company_id.into()).await?;
        if let Some(name) = args.new_business_type.as_deref().filter(|n| !n.is_empty()) {
            business::parse_name(name, "newBusinessType")?;
        }
        details::update(self.db(ctx), actor, args.company_id.into(), (&args).into()).await?;
        if let Some(on) = args.eu_driving_time_checks {
            business::set_eu_driving_checks(self.db(ctx), actor, args.company_id.into(), on).await?;
        }
        business::update_company(
            self.db(ctx),
            actor,
            args.company_id.into(),
            args.new_business_type.as_deref(),
            args.apply_business_type_to_employees.unwrap_or(false),
        )
        .await?;
        Ok(company::find(self.db(ctx), args.company_id.into())
            .await?
            .as_ref()
            .map(Company::from))
    }

    async fn snooze_nb_worker_info(
        &self,
        ctx: &Context<'_>,
        args: MutationsSnoozeNbWorkerInfoArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        crate::domain::companies::employments::snooze::snooze(self.db(ctx), actor, args.employment_id.into()).await?;
        Ok(Some(Void { success: true }))
    }

    async fn edit_company_settings(
        &self,
        ctx: &Context<'_>,
        args: MutationsEditCompanySettingsArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        let company_id = args.company_id.into();
        settings::edit(self.db(ctx), actor, company_id, args.into()).await?;
        Ok(company::find(self.db(ctx), company_id)
            .await?
            .as_ref()
            .map(Company::from))
    }

    async fn seed_sandbox_company(
        &self,
        ctx: &Context<'_>,
        args: MutationsSeedSandboxCompanyArgs,
    ) -> async_graphql::Result<Option<crate::graphql::contract::SandboxSeedOutput>> {
        super::sandbox::seed(self, ctx, args.company_id).await.map(Some)
    }

    async fn dismiss_employment_token(
        &self,
        ctx: &Context<'_>,
        args: MutationsDismissEmploymentTokenArgs,
    ) -> async_graphql::Result<Option<crate::graphql::contract::Void>> {
        super::vendor_access::dismiss_employment_token(self, ctx, args.client_id, args.employment_id).await
    }

    async fn dismiss_company_token(
        &self,
        ctx: &Context<'_>,
        args: MutationsDismissCompanyTokenArgs,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::OAuth2Client>>>> {
        super::vendor_access::dismiss_company_token(self, ctx, args.client_id, args.company_id).await
    }

    async fn generate_company_token(
        &self,
        ctx: &Context<'_>,
        args: MutationsGenerateCompanyTokenArgs,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::OAuth2Client>>>> {
        super::vendor_access::generate_company_token(self, ctx, args.client_id, args.company_id).await
    }

    async fn rotate_employment_token(
        &self,
        ctx: &Context<'_>,
        args: MutationsRotateEmploymentTokenArgs,
    ) -> async_graphql::Result<Option<crate::graphql::contract::EmploymentTokenRotation>> {
        super::vendor_access::rotate_employment_token(self, ctx, args.client_id, args.employment_id).await
    }
}
