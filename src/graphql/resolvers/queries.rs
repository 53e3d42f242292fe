//! The query root: who am I, users, the entry points owned by the other domains, and the dry
//! run of activity corrections (`output`).

use async_graphql::Context;

use crate::domain::companies::company;
use crate::domain::missions;
use crate::domain::missions::service::Correction;
use crate::domain::users::accounts;
use crate::errors::AppError;
use crate::graphql::contract::{
    Activity, CheckOutput, Company, Mission, QueriesCompanyArgs, QueriesMissionArgs, QueriesOutputArgs,
    QueriesResolver, QueriesSirenInfoArgs, QueriesUserArgs, SirenInfo, User,
};

use crate::app::App;
use crate::graphql::caller;
use crate::graphql::convert::{ToGraphql, user_seen_by};

#[async_trait::async_trait]
impl QueriesResolver for App {
    async fn me(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<User>> {
        let caller = caller(ctx);
        let actor = caller.actor()?;
        // Read with the token, unless the request has since run a mutation (see `execute`).
        if let Some(account) = caller.account() {
            return Ok(Some(user_seen_by(account.clone(), Some(actor))));
        }
        Ok(accounts::find(self.db(ctx), actor.user_id)
            .await?
            .map(|row| user_seen_by(row, Some(actor))))
    }

    async fn user(&self, ctx: &Context<'_>, args: QueriesUserArgs) -> async_graphql::Result<Option<User>> {
        let actor = caller(ctx).actor()?;
        // An unknown id and a forbidden one give the same answer: ids must not be probed.
        if !accounts::can_read(self.db(ctx), actor, args.id.into()).await? {
            return Err(AppError::authorization("Forbidden access").into());
        }
        match accounts::find(self.db(ctx), args.id.into()).await? {
            Some(row) => Ok(Some(user_seen_by(row, Some(actor)))),
            None => Err(AppError::authorization("Forbidden access").into()),
        }
    }

    async fn company(&self, ctx: &Context<'_>, args: QueriesCompanyArgs) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        // Current employees and pending invitees read the company; an unknown id looks the same
        // as a forbidden one.
        match company::find_for_employee(self.db(ctx), actor, args.id.into()).await? {
            Some(row) => Ok(Some(Company::from(&row))),
            None => Err(AppError::authorization("Forbidden access").into()),
        }
    }

    async fn mission(&self, ctx: &Context<'_>, args: QueriesMissionArgs) -> async_graphql::Result<Option<Mission>> {
        let actor = caller(ctx).actor()?;
        let mut conn = self.db.pool.acquire().await?;
        missions::permissions::readable(&mut conn, actor, args.id.into()).await?;
        drop(conn);
        Ok(Some(
            missions::store::load_one(self.db(ctx), args.id.into(), actor)
                .await?
                .to_graphql(),
        ))
    }

    async fn output(&self, ctx: &Context<'_>, args: QueriesOutputArgs) -> async_graphql::Result<Option<Activity>> {
        let actor = caller(ctx).actor()?;
        let items = args
            .items
            .into_iter()
            .flatten()
            .flatten()
            .map(Correction::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        let last = missions::dry_run::output(self.db(ctx), actor, &items).await?;
        Ok(last.map(|row| row.to_graphql()))
    }

    async fn siren_info(
        &self,
        ctx: &Context<'_>,
        args: QueriesSirenInfoArgs,
    ) -> async_graphql::Result<Option<SirenInfo>> {
        let info =
            crate::domain::companies::siren_info::siren_info(self.db(ctx), self.company_register.as_ref(), &args.siren)
                .await?;
        Ok(Some(info.into()))
    }

    async fn check_auth(&self, ctx: &Context<'_>) -> async_graphql::Result<CheckOutput> {
        let user_id = caller(ctx).user_id()?;
        Ok(CheckOutput {
            success: Some(true),
            user_id: Some(user_id as i32),
        })
    }
}
