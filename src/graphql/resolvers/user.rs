//! `User`: a user's lists (missions, activities, employments, companies, applications) and
//! regulatory computations.

use async_graphql::Context;

use crate::app::App;
use crate::domain::auth::Actor;
use crate::domain::companies::{company, employments};
use crate::domain::missions;
use crate::errors::AppError;
use crate::graphql::caller;
use crate::graphql::contract::{
    ActivityConnection, Company, Employment, MissionConnection, OAuth2Client, User, UserActivitiesArgs,
    UserAdminedCompaniesArgs, UserEmploymentsArgs, UserMissionsArgs, UserRegulationComputationsByDayArgs, UserResolver,
    UserWorkDaysArgs,
};
use crate::graphql::scalars::Date;

use crate::graphql::convert::ToGraphql;
use crate::graphql::loaders::missions as loaders;

/// These fields describe a user's own attachments: only that user reads them.
fn self_only(ctx: &Context<'_>, parent: &User, field: &str) -> Result<i64, AppError> {
    Ok(self_actor(ctx, parent, field)?.user_id)
}

/// [`self_only`], with the reach of the credential the user acts through.
fn self_actor(ctx: &Context<'_>, parent: &User, field: &str) -> Result<Actor, AppError> {
    let me = caller(ctx).actor()?;
    if me.user_id != i64::from(parent.id) {
        return Err(AppError::authorization(format!(
            "Forbidden access to field '{field}' of user object. The field is only accessible to the user himself."
        )));
    }
    Ok(me)
}

#[async_trait::async_trait]
impl UserResolver for App {
    async fn disabled_warnings(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<Vec<Option<String>>>> {
        let user = self_only(ctx, parent, "disabledWarnings")?;
        let warnings = crate::domain::users::profile::disabled_warnings(self.db(ctx), user).await?;
        Ok(Some(warnings.into_iter().map(Some).collect()))
    }

    async fn language(&self, ctx: &Context<'_>, parent: &User) -> async_graphql::Result<Option<String>> {
        let user = self_only(ctx, parent, "language")?;
        let lang = crate::domain::mails::preferences::language_of(self.db(ctx), user).await?;
        Ok(Some(lang.tag().to_string()))
    }

    async fn email_opt_outs(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<Vec<Option<String>>>> {
        let user = self_only(ctx, parent, "emailOptOuts")?;
        let stopped = crate::domain::mails::preferences::opt_outs(self.db(ctx), user).await?;
        Ok(Some(
            stopped
                .into_iter()
                .map(|kind| Some(kind.as_str().to_string()))
                .collect(),
        ))
    }

    async fn totp_enabled(&self, ctx: &Context<'_>, parent: &User) -> async_graphql::Result<Option<bool>> {
        let user = self_only(ctx, parent, "totpEnabled")?;
        Ok(Some(crate::domain::users::totp::is_enabled(self.db(ctx), user).await?))
    }

    async fn regulation_computations_by_day(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        args: UserRegulationComputationsByDayArgs,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::RegulationComputationByDayOutput>>>> {
        use crate::domain::alerts::read;
        use crate::graphql::contract::{RegulationComputation, RegulationComputationByDayOutput};
        let actor = caller(ctx).actor()?;
        let user = i64::from(parent.id);
        read::may_read(self.db(ctx), actor, user).await?;
        let rows = read::computations(
            self.db(ctx),
            actor.scope,
            user,
            args.submitter_type,
            args.from_date.map(|d| d.0),
            args.to_date.map(|d| d.0),
        )
        .await?;
        let mut days: Vec<Option<RegulationComputationByDayOutput>> = vec![];
        let mut current: Option<(String, Vec<Option<RegulationComputation>>)> = None;
        for row in &rows {
            match &mut current {
                Some((day, list)) if *day == row.day => list.push(Some(row.into())),
                _ => {
                    if let Some((day, list)) = current.take() {
                        days.push(Some(by_day(&day, list)));
                    }
                    current = Some((row.day.clone(), vec![Some(row.into())]));
                }
            }
        }
        if let Some((day, list)) = current {
            days.push(Some(by_day(&day, list)));
        }
        Ok(Some(days))
    }

    async fn activities(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        args: UserActivitiesArgs,
    ) -> async_graphql::Result<Option<ActivityConnection>> {
        let actor = caller(ctx).actor()?;
        let (from, until) = (args.from_time.map(|t| t.0), args.until_time.map(|t| t.0));
        let page = missions::queries::user_activities(
            self.db(ctx),
            actor,
            parent.id.into(),
            from,
            until,
            args.first,
            args.after,
        )
        .await?;
        let mut users = std::collections::HashSet::new();
        let node = ctx.look_ahead().field("edges").field("node");
        let rows: Vec<_> = page.items.iter().map(|(_, row)| row.clone()).collect();
        loaders::prefetch_activity_children(ctx, self.db(ctx), &rows, node, &mut users).await?;
        loaders::feed_users(ctx, self.db(ctx), users).await?;
        Ok(Some(page.to_graphql()))
    }

    async fn missions(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        args: UserMissionsArgs,
    ) -> async_graphql::Result<Option<MissionConnection>> {
        let actor = caller(ctx).actor()?;
        let (from, until) = (args.from_time.map(|t| t.0), args.until_time.map(|t| t.0));
        let page = missions::queries::user_missions(
            self.db(ctx),
            actor,
            parent.id.into(),
            from,
            until,
            args.first,
            args.after,
            args.include_deleted_missions.unwrap_or(false),
        )
        .await?;
        let views: Vec<_> = page.items.iter().filter_map(|(_, view)| view.as_ref()).collect();
        loaders::prefetch_missions(ctx, self.db(ctx), &views, ctx.look_ahead().field("edges").field("node")).await?;
        Ok(Some(page.to_graphql()))
    }

    async fn work_days(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        args: UserWorkDaysArgs,
    ) -> async_graphql::Result<Option<crate::graphql::contract::WorkDayConnection>> {
        use crate::domain::workdays::{self, Flavor};
        let actor = caller(ctx).actor()?;
        let page = workdays::of_user(
            self.db(ctx),
            actor,
            parent.id.into(),
            args.from_date.map(|d| d.0),
            args.until_date.map(|d| d.0),
            args.first,
            args.after,
        )
        .await?;
        Ok(Some(
            crate::graphql::convert_workdays::connection(ctx, &page, Flavor::User).await?,
        ))
    }

    async fn had_enough_break_last_mission(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<bool>> {
        let me = self_only(ctx, parent, "hadEnoughBreakLastMission")?;
        Ok(Some(
            crate::domain::alerts::last_mission::had_enough_break(self.db(ctx), me).await?,
        ))
    }

    async fn notifications(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::Notification>>>> {
        let me = self_actor(ctx, parent, "notifications")?;
        let rows = crate::domain::notifications::of_user(self.db(ctx), me).await?;
        Ok(super::account::list(&rows))
    }

    async fn current_employments(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let me = self_actor(ctx, parent, "currentEmployments")?;
        let rows = employments::current_of_user(self.db(ctx), me).await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn employments(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        args: UserEmploymentsArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let me = self_actor(ctx, parent, "employments")?;
        let rows = employments::of_user(
            self.db(ctx),
            me,
            args.from_date.map(|d| d.0),
            args.until_date.map(|d| d.0),
            args.include_pending.unwrap_or(false),
        )
        .await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn admined_companies(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        args: UserAdminedCompaniesArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Company>>>> {
        let me = self_actor(ctx, parent, "adminedCompanies")?;
        let wanted: Option<Vec<i64>> = args
            .company_ids
            .map(|ids| ids.into_iter().flatten().map(i64::from).collect());
        let rows = company::admined_by(self.db(ctx), me).await?;
        Ok(Some(
            rows.iter()
                .filter(|c| wanted.as_ref().is_none_or(|w| w.contains(&c.id)))
                .map(|c| Some(Company::from(c)))
                .collect(),
        ))
    }

    async fn authorized_clients(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<Vec<Option<OAuth2Client>>>> {
        let me = self_actor(ctx, parent, "authorizedClients")?;
        let clients = crate::domain::auth::oauth_tokens::authorized_clients(self.db(ctx), me).await?;
        Ok(Some(
            clients
                .into_iter()
                .map(|(id, name)| {
                    Some(OAuth2Client {
                        id: id as i32,
                        name,
                        linked_at: None,
                        last_used_at: None,
                        employment_token_count: None,
                    })
                })
                .collect(),
        ))
    }
}

fn by_day(
    day: &str,
    list: Vec<Option<crate::graphql::contract::RegulationComputation>>,
) -> crate::graphql::contract::RegulationComputationByDayOutput {
    crate::graphql::contract::RegulationComputationByDayOutput {
        day: crate::domain::companies::parse_date(day).map(Date),
        regulation_computations: Some(list),
    }
}
