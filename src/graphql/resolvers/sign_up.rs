//! `Mutations.signUp`: accounts and companies, and redeeming an invitation.

use async_graphql::Context;

use crate::app::App;
use crate::domain::companies::{company, employments, invitations};
use crate::graphql::contract::{
    Company, CompanySignUpOutput, Employment, SignUpCompanyArgs, SignUpRedeemInviteArgs, SignUpResolver,
    SignUpUserArgs, UserTokens,
};
use crate::graphql::{caller, hashing};

use crate::domain::auth::attempts;
use crate::domain::users::accounts::{self, NewUser};
use crate::domain::users::sessions::{self};
use crate::domain::users::signup_limit;
use crate::graphql::convert::ToGraphql;

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
        let company = company::find(self.db(ctx), company_id)
            .await?
            .as_ref()
            .map(Company::from);
        let mut conn = self.db.pool.acquire().await?;
        let employment = employments::find(&mut conn, employment_id)
            .await?
            .map(|e| e.to_graphql());
        Ok(Some(CompanySignUpOutput { company, employment }))
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
