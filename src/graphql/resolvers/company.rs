//! `Company`: its business, settings, users, missions, vehicles, employments, regulatory
//! alerts, its establishments and an admin's dashboard.

use async_graphql::Context;

use crate::app::App;
use crate::domain::users::accounts;
use crate::errors::AppError;
use crate::graphql::caller;
use crate::graphql::contract::{
    Business, Company, CompanyAdminRegulationComputationsByUserAndByDayArgs, CompanyEmploymentsArgs,
    CompanyMissionsArgs, CompanyMissionsDeletedArgs, CompanyRegulatoryAlertsRecapArgs, CompanyResolver,
    CompanySettings, CompanyUsersArgs, CompanyVendorActionsArgs, CompanyWorkDaysArgs, DashboardSummary, Employment,
    MissionConnection, Team, User, Vehicle,
};

use crate::domain::companies::employments::{self};
use crate::domain::companies::{company, date_text, permissions, today};
use crate::graphql::convert::{ToGraphql, user_seen_by};

#[async_trait::async_trait]
impl CompanyResolver for App {
    async fn regulatory_alerts_recap(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyRegulatoryAlertsRecapArgs,
    ) -> async_graphql::Result<Option<crate::graphql::contract::RegulatoryAlertsSummary>> {
        use crate::domain::alerts::recap::{self, RecapQuery};
        let actor = caller(ctx).actor()?;
        // The day details cost a line per worker and day, names and other companies: read them
        // only when the document asks for them.
        let look = ctx.look_ahead();
        let with_details = look.field("dailyAlerts").field("dayDetails").exists()
            || look.field("weeklyAlerts").field("dayDetails").exists();
        let query = RecapQuery {
            company_id: parent.id.into(),
            month: args.month.0,
            unique_user_id: args.unique_user_id.map(i64::from),
            team_id: args.team_id.map(i64::from),
            from: args.from_date.map(|d| d.0),
            to: args.to_date.map(|d| d.0),
            with_details,
        };
        let summary = recap::recap(self.db(ctx), actor, query).await?;
        Ok(Some((&summary).into()))
    }

    async fn work_days(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyWorkDaysArgs,
    ) -> async_graphql::Result<Option<crate::graphql::contract::WorkDayConnection>> {
        use crate::domain::workdays::{self, Flavor};
        let actor = caller(ctx).actor()?;
        let users = args
            .user_ids
            .map(|ids| ids.into_iter().flatten().map(i64::from).collect());
        let page = workdays::of_company(
            self.db(ctx),
            actor,
            parent.id.into(),
            args.from_date.map(|d| d.0),
            args.until_date.map(|d| d.0),
            args.first,
            args.after,
            users,
        )
        .await?;
        Ok(Some(
            crate::graphql::convert_workdays::connection(ctx, &page, Flavor::Company).await?,
        ))
    }

    async fn admin_regulation_computations_by_user_and_by_day(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyAdminRegulationComputationsByUserAndByDayArgs,
    ) -> async_graphql::Result<
        Option<Vec<Option<crate::graphql::contract::CompanyAdminRegulationComputationsByUserAndDay>>>,
    > {
        let actor = caller(ctx).actor()?;
        let users = args
            .user_ids
            .map(|ids| ids.into_iter().flatten().map(i64::from).collect());
        let rows = crate::domain::alerts::recap::admin_days(
            self.db(ctx),
            actor,
            parent.id.into(),
            args.from_date.map(|d| d.0),
            args.to_date.map(|d| d.0),
            users,
        )
        .await?;
        Ok(Some(rows.iter().map(|r| Some(r.into())).collect()))
    }

    async fn business(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<Business>> {
        Ok(
            crate::domain::companies::business::of_company(self.db(ctx), parent.id.into())
                .await?
                .map(Business::from),
        )
    }

    async fn settings(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<CompanySettings>> {
        Ok(company::find(self.db(ctx), parent.id.into())
            .await?
            .as_ref()
            .map(CompanySettings::from))
    }

    async fn users(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyUsersArgs,
    ) -> async_graphql::Result<Option<Vec<Option<User>>>> {
        let actor = caller(ctx).actor()?;
        if !permissions::is_employed(self.db(ctx), actor, parent.id.into()).await? {
            return Err(AppError::authorization("Forbidden access").into());
        }
        let from = args
            .from_date
            .map(|d| date_text(d.0))
            .unwrap_or_else(|| "0000-01-01".into());
        let to = args
            .to_date
            .map(|d| date_text(d.0))
            .unwrap_or_else(|| "9999-12-31".into());
        // Accepted employments only: until a user accepts, the company sees only what it typed
        // in the invitation (Employment.userId and .email), never the account.
        let users = accounts::of_company(self.db(ctx), parent.id.into(), &from, &to, true).await?;
        Ok(Some(
            users.into_iter().map(|u| Some(user_seen_by(u, Some(actor)))).collect(),
        ))
    }

    async fn current_users(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
    ) -> async_graphql::Result<Option<Vec<Option<User>>>> {
        let actor = caller(ctx).actor()?;
        if !permissions::is_employed(self.db(ctx), actor, parent.id.into()).await? {
            return Err(AppError::authorization("Forbidden access").into());
        }
        let today = date_text(today());
        let users = accounts::of_company(self.db(ctx), parent.id.into(), &today, &today, true).await?;
        Ok(Some(
            users.into_iter().map(|u| Some(user_seen_by(u, Some(actor)))).collect(),
        ))
    }

    async fn missions_deleted(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyMissionsDeletedArgs,
    ) -> async_graphql::Result<Option<MissionConnection>> {
        let actor = caller(ctx).actor()?;
        if !permissions::is_admin(self.db(ctx), actor, parent.id.into()).await? {
            return Err(permissions::admin_only_field("missionsDeleted").into());
        }
        let page = crate::domain::missions::queries::company_deleted_missions(
            self.db(ctx),
            actor,
            parent.id.into(),
            args.first,
            args.after,
        )
        .await?;
        let views: Vec<_> = page.items.iter().filter_map(|(_, view)| view.as_ref()).collect();
        crate::graphql::loaders::missions::prefetch_missions(
            ctx,
            self.db(ctx),
            &views,
            ctx.look_ahead().field("edges").field("node"),
        )
        .await?;
        Ok(Some(page.to_graphql()))
    }

    async fn missions(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyMissionsArgs,
    ) -> async_graphql::Result<Option<MissionConnection>> {
        let actor = caller(ctx).actor()?;
        if !permissions::is_admin(self.db(ctx), actor, parent.id.into()).await? {
            return Err(permissions::admin_only_field("missions").into());
        }
        let page = crate::domain::missions::queries::company_missions(
            self.db(ctx),
            actor,
            parent.id.into(),
            args.from_time.map(|t| t.0),
            args.until_time.map(|t| t.0),
            args.after,
            args.first,
            args.only_ended_missions.unwrap_or(false),
        )
        .await?;
        let views: Vec<_> = page.items.iter().filter_map(|(_, view)| view.as_ref()).collect();
        crate::graphql::loaders::missions::prefetch_missions(
            ctx,
            self.db(ctx),
            &views,
            ctx.look_ahead().field("edges").field("node"),
        )
        .await?;
        Ok(Some(page.to_graphql()))
    }

    async fn vehicles(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
    ) -> async_graphql::Result<Option<Vec<Option<Vehicle>>>> {
        let actor = caller(ctx).actor()?;
        if !permissions::has_any_employment(self.db(ctx), actor, parent.id.into()).await? {
            return Err(AppError::authorization("Forbidden access").into());
        }
        let vehicles = crate::domain::vehicles::of_company(self.db(ctx), parent.id.into()).await?;
        Ok(Some(vehicles.iter().map(|v| Some(v.to_graphql())).collect()))
    }

    async fn known_addresses(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::CompanyKnownAddress>>>> {
        let actor = caller(ctx).actor()?;
        let rows = crate::domain::companies::known_addresses::of_company(self.db(ctx), actor, parent.id.into()).await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn nb_workers(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<i32>> {
        let n = crate::domain::companies::staff::nb_workers(self.db(ctx), parent.id.into()).await?;
        Ok(Some(n.min(i64::from(i32::MAX)) as i32))
    }

    async fn sirets(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<Vec<Option<String>>>> {
        let sirets = crate::domain::companies::records::sirets(self.db(ctx), parent.id.into()).await?;
        Ok(Some(sirets.into_iter().map(Some).collect()))
    }

    async fn has_no_activity(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<bool>> {
        Ok(Some(
            crate::domain::companies::records::has_no_activity(self.db(ctx), parent.id.into()).await?,
        ))
    }

    async fn dashboard_summary(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
    ) -> async_graphql::Result<Option<DashboardSummary>> {
        let actor = caller(ctx).actor()?;
        let summary = crate::domain::companies::dashboard::summary(self.db(ctx), actor, parent.id.into()).await?;
        Ok(Some(summary.to_graphql()))
    }

    async fn has_no_active_admins(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<bool>> {
        Ok(Some(
            crate::domain::companies::staff::has_no_active_admins(self.db(ctx), parent.id.into()).await?,
        ))
    }

    async fn current_admins(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
    ) -> async_graphql::Result<Option<Vec<Option<User>>>> {
        let actor = caller(ctx).actor()?;
        if !permissions::is_admin(self.db(ctx), actor, parent.id.into()).await? {
            return Err(permissions::admin_only_field("currentAdmins").into());
        }
        let users = crate::domain::companies::staff::current_admins(self.db(ctx), parent.id.into()).await?;
        Ok(Some(
            users.into_iter().map(|u| Some(user_seen_by(u, Some(actor)))).collect(),
        ))
    }

    async fn employments(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyEmploymentsArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let actor = caller(ctx).actor()?;
        if !permissions::is_admin(self.db(ctx), actor, parent.id.into()).await? {
            return Err(permissions::admin_only_field("employments").into());
        }
        let rows =
            employments::of_company(self.db(ctx), parent.id.into(), args.latest_per_user.unwrap_or(false)).await?;
        // The people of the list, loaded in one query when the selection asks for them.
        let selection = ctx.look_ahead();
        let mut users = std::collections::HashSet::new();
        if selection.field("user").exists() {
            users.extend(rows.iter().filter_map(|r| r.user_id));
        }
        if selection.field("submitter").exists() {
            users.extend(rows.iter().filter_map(|r| r.submitter_id));
        }
        crate::graphql::loaders::missions::feed_users(ctx, self.db(ctx), users).await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn teams(&self, ctx: &Context<'_>, parent: &Company) -> async_graphql::Result<Option<Vec<Option<Team>>>> {
        let actor = caller(ctx).actor()?;
        let teams = crate::domain::teams::of_company(self.db(ctx), actor, parent.id.into()).await?;
        Ok(Some(teams.iter().map(|t| Some(t.to_graphql())).collect()))
    }

    async fn authorized_clients(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::OAuth2Client>>>> {
        super::vendor_access::authorized_clients(self, ctx, parent).await
    }

    async fn vendor_actions(
        &self,
        ctx: &Context<'_>,
        parent: &Company,
        args: CompanyVendorActionsArgs,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::VendorAction>>>> {
        super::vendor_access::vendor_actions(self, ctx, parent, args.client_id, args.first).await
    }
}
