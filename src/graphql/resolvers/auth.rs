//! `Mutations.auth`: login (with its second factor), token refresh, logout, revocation of an
//! authorized application.

use async_graphql::Context;

use crate::app::App;
use crate::errors::AppError;
use crate::graphql::contract::{
    AuthLoginArgs, AuthResolver, AuthRevokeAuthorizedClientArgs, AuthValidateTotpLoginArgs, LoginOutput, UserTokens,
    Void,
};
use crate::graphql::{bearer, caller, hashing};

use crate::domain::users::{sessions, totp};

#[async_trait::async_trait]
impl AuthResolver for App {
    async fn login(&self, ctx: &Context<'_>, args: AuthLoginArgs) -> async_graphql::Result<Option<LoginOutput>> {
        let address = crate::graphql::RequestData::of(ctx)
            .and_then(|data| data.client)
            .map(|a| a.0.to_string())
            .unwrap_or_default();
        let answer = sessions::login(
            self.db(ctx),
            self.environment,
            &args.email.0,
            args.password,
            &address,
            &hashing(ctx),
        )
        .await?;
        Ok(Some(match answer {
            sessions::Login::Session(pair) => LoginOutput {
                access_token: Some(pair.access_token),
                refresh_token: Some(pair.refresh_token),
                totp_required: Some(false),
            },
            // The challenge goes where the reference puts it; it opens nothing but
            // validateTotpLogin.
            sessions::Login::SecondFactor { challenge } => LoginOutput {
                access_token: Some(challenge),
                refresh_token: None,
                totp_required: Some(true),
            },
        }))
    }

    async fn validate_totp_login(
        &self,
        ctx: &Context<'_>,
        args: AuthValidateTotpLoginArgs,
    ) -> async_graphql::Result<Option<UserTokens>> {
        let Some(challenge) = bearer(ctx) else {
            return Err(AppError::authentication("Missing authorization header").into());
        };
        let user_id = totp::challenge::complete(self.db(ctx), &self.key_sealer, challenge, &args.code).await?;
        Ok(Some(
            sessions::open(self.db(ctx), self.environment, user_id).await?.into(),
        ))
    }

    async fn refresh(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<UserTokens>> {
        Ok(Some(
            sessions::refresh(self.db(ctx), self.environment, bearer(ctx))
                .await?
                .into(),
        ))
    }

    async fn logout(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Void>> {
        sessions::logout(self.db(ctx), bearer(ctx)).await?;
        Ok(Some(Void { success: true }))
    }

    async fn revoke_authorized_client(
        &self,
        ctx: &Context<'_>,
        args: AuthRevokeAuthorizedClientArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let me = caller(ctx).actor()?;
        if !crate::domain::auth::oauth_tokens::revoke_for_user(self.db(ctx), me, args.client_id.into()).await? {
            return Err(AppError::invalid_resource("This application holds no authorization of the user").into());
        }
        Ok(Some(Void { success: true }))
    }
}
