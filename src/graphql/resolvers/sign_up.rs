//! `Mutations.signUp`: accounts and companies, and redeeming an invitation.

use async_graphql::Context;

use crate::app::App;
use crate::db::Db;
use crate::domain::companies::establishments::{self, Establishment};
use crate::domain::companies::{company, employments, invitations};
use crate::graphql::contract::{
    Company, CompanySignUpOutput, Employment, SignUpCompaniesArgs, SignUpCompanyArgs, SignUpRedeemInviteArgs,
    SignUpResolver, SignUpUserArgs, UserTokens,
};
use crate::graphql::{caller, hashing};

use crate::domain::auth::attempts;
use crate::domain::users::accounts::{self, NewUser};
use crate::domain::users::sessions::{self};
use crate::domain::users::signup_limit;
use crate::graphql::convert::ToGraphql;

/// A company just signed up and its admin's employment, as the API returns them.
async fn signed_up(db: &Db, company_id: i64, employment_id: i64) -> async_graphql::Result<CompanySignUpOutput> {
    let company = company::find(db, company_id).await?.as_ref().map(Company::from);
    let mut conn = db.pool.acquire().await?;
    let employment = employments::find(&mut conn, employment_id)
        .await?
        .map(|e| e.to_graphql());
    Ok(CompanySignUpOutput { company, employment })
}

#[async_trait::async_trait]
impl SignUpResolver for App {
    async fn user(&self, ctx: &Context<'_>, args: SignUpUserArgs) -> async_graphql::Result<Option<UserTokens>> {
        // Each attempt counts, on the sign-up page's counter: an address cannot create accounts
        // (and send mail) without end.
        let address = crate::graphql::RequestData::of(ctx)
            .and_then(|data| data.client)
            .map(|a| a.0.to_string())
            .unwrap_or_default();
        let budget = [signup_limit::budget(&address)];
        if let Some(seconds) = attempts::retry_after(self.db(ctx), &budget).await? {
            return Err(signup_limit::throttled(seconds).into());
        }
        if let Err(error) = attempts::record(self.db(ctx), &budget).await {
            self.metrics.record_failed("signup");
            return Err(error.into());
        }
        let new = NewUser {
            // The confirmation e-mail in the language the request prefers.
            lang: crate::graphql::RequestData::of(ctx)
                .map(|data| data.lang)
                .unwrap_or_default(),
            // The language of the account's e-mails: the one the request names, else French.
            language: crate::graphql::RequestData::of(ctx)
                .and_then(|data| data.stated_lang)
                .unwrap_or(crate::i18n::Lang::Fr),
            ..args.into()
        };
        let scope = caller(ctx).scope();
        let user_id = accounts::create(self.db(ctx), new, scope, &self.public_url, &hashing(ctx)).await?;
        Ok(Some(
            sessions::open(self.db(ctx), self.environment, user_id).await?.into(),
        ))
    }

    async fn company(
        &self,
        ctx: &Context<'_>,
        args: SignUpCompanyArgs,
    ) -> async_graphql::Result<Option<CompanySignUpOutput>> {
        let actor = caller(ctx).actor()?;
        let (company_id, employment_id) =
            company::sign_up(self.db(ctx), self.company_register.as_ref(), actor, (&args).into()).await?;
        Ok(Some(signed_up(self.db(ctx), company_id, employment_id).await?))
    }

    async fn companies(
        &self,
        ctx: &Context<'_>,
        args: SignUpCompaniesArgs,
    ) -> async_graphql::Result<Option<Vec<Option<CompanySignUpOutput>>>> {
        let actor = caller(ctx).actor()?;
        let items: Vec<Establishment> = args.companies.into_iter().map(Establishment::from).collect();
        let created =
            establishments::sign_up(self.db(ctx), self.company_register.as_ref(), actor, &args.siren, &items).await?;
        let mut outputs = Vec::with_capacity(created.len());
        for (company_id, employment_id) in created {
            outputs.push(Some(signed_up(self.db(ctx), company_id, employment_id).await?));
        }
        Ok(Some(outputs))
    }

    async fn redeem_invite(
        &self,
        ctx: &Context<'_>,
        args: SignUpRedeemInviteArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            invitations::redeem_by(self.db(ctx), actor, &args.token, &self.public_url)
                .await?
                .to_graphql(),
        ))
    }
}
