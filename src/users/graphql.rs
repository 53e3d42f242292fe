//! Resolvers of `Mutations.auth` and `Mutations.signUp`.

use async_graphql::Context;

use crate::auth::caller::BearerToken;
use crate::errors::AppError;
use crate::graphql::contract::{
    AuthResolver, CompanySignUpOutput, Employment, LoginOutput, SignUpResolver, UserTokens, Void,
};
use crate::graphql::scalars::Email;
use crate::graphql::{Api, caller};

use super::accounts::{self, NewUser};
use super::sessions::{self, TokenPair};

fn bearer<'a>(ctx: &'a Context<'_>) -> Option<&'a str> {
    ctx.data_opt::<BearerToken>().and_then(|b| b.0.as_deref())
}

impl From<TokenPair> for UserTokens {
    fn from(pair: TokenPair) -> Self {
        UserTokens {
            access_token: Some(pair.access_token),
            refresh_token: Some(pair.refresh_token),
        }
    }
}

#[async_trait::async_trait]
impl AuthResolver for Api {
    async fn login(
        &self,
        _ctx: &Context<'_>,
        email: Email,
        password: String,
    ) -> async_graphql::Result<Option<LoginOutput>> {
        let pair = sessions::login(&self.db, self.environment, &email.0, password).await?;
        Ok(Some(LoginOutput {
            access_token: Some(pair.access_token),
            refresh_token: Some(pair.refresh_token),
            // This release has no second factor.
            totp_required: Some(false),
        }))
    }

    async fn refresh(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<UserTokens>> {
        Ok(Some(
            sessions::refresh(&self.db, self.environment, bearer(ctx)).await?.into(),
        ))
    }

    async fn logout(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Void>> {
        sessions::logout(&self.db, bearer(ctx)).await?;
        Ok(Some(Void { success: true }))
    }
}

#[async_trait::async_trait]
impl SignUpResolver for Api {
    async fn user(
        &self,
        _ctx: &Context<'_>,
        email: Email,
        password: String,
        first_name: String,
        last_name: String,
        invite_token: Option<String>,
        timezone_name: Option<String>,
    ) -> async_graphql::Result<Option<UserTokens>> {
        if invite_token.is_some() {
            // Invitations come with the companies domain; refusing is better than silently
            // creating an account that is not attached to the company that invited it.
            return Err(AppError::not_implemented("signUp.user with inviteToken").into());
        }
        let new = NewUser {
            email: email.0,
            password,
            first_name,
            last_name,
            timezone_name,
        };
        let user_id = accounts::create(&self.db, new).await?;
        Ok(Some(sessions::open(&self.db, self.environment, user_id).await?.into()))
    }

    async fn company(
        &self,
        ctx: &Context<'_>,
        _usual_name: String,
        _siren: String,
        _phone_number: Option<String>,
    ) -> async_graphql::Result<Option<CompanySignUpOutput>> {
        caller(ctx).user_id()?;
        Err(AppError::not_implemented("signUp.company").into())
    }

    async fn redeem_invite(&self, ctx: &Context<'_>, _token: String) -> async_graphql::Result<Option<Employment>> {
        caller(ctx).user_id()?;
        Err(AppError::not_implemented("signUp.redeemInvite").into())
    }
}
