//! Resolvers of `Mutations.auth`, `Mutations.signUp` and `User`.

use async_graphql::Context;

use crate::domain::auth::caller::BearerToken;
use crate::domain::companies::{company, employments, invitations};
use crate::domain::missions;
use crate::errors::AppError;
use crate::graphql::contract::{
    ActivityConnection, AuthResolver, Company, CompanySignUpOutput, Employment, LoginOutput, MissionConnection,
    OAuth2Client, SignUpResolver, User, UserResolver, UserTokens, Void,
};
use crate::graphql::scalars::{Date, Email, TimeStamp};
use crate::graphql::{Api, caller};

use crate::domain::users::accounts::{self, NewUser};
use crate::domain::users::sessions::{self, TokenPair};
use crate::graphql::convert::ToGraphql;
use crate::graphql::loaders::missions as loaders;

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
        ctx: &Context<'_>,
        email: Email,
        password: String,
    ) -> async_graphql::Result<Option<LoginOutput>> {
        let address = ctx
            .data_opt::<crate::http::middleware::ClientIp>()
            .map(|ip| ip.0.to_string())
            .unwrap_or_default();
        let pair = sessions::login(&self.db, self.environment, &email.0, password, &address).await?;
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

    async fn revoke_authorized_client(&self, ctx: &Context<'_>, client_id: i32) -> async_graphql::Result<Option<Void>> {
        let me = caller(ctx).user_id()?;
        if !crate::domain::auth::oauth_tokens::revoke_for_user(&self.db, me, client_id.into()).await? {
            return Err(AppError::invalid_resource("This application holds no authorization of the user").into());
        }
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
        let new = NewUser {
            email: email.0,
            password,
            first_name,
            last_name,
            timezone_name,
            invite_token,
        };
        let user_id = accounts::create(&self.db, new).await?;
        Ok(Some(sessions::open(&self.db, self.environment, user_id).await?.into()))
    }

    async fn company(
        &self,
        ctx: &Context<'_>,
        usual_name: String,
        siren: String,
        phone_number: Option<String>,
    ) -> async_graphql::Result<Option<CompanySignUpOutput>> {
        let actor = caller(ctx).user_id()?;
        let (company_id, employment_id) =
            company::sign_up(&self.db, actor, &usual_name, &siren, phone_number.as_deref()).await?;
        let company = company::find(&self.db, company_id).await?.as_ref().map(Company::from);
        let mut conn = self.db.pool.acquire().await?;
        let employment = employments::find(&mut conn, employment_id)
            .await?
            .map(|e| e.to_graphql());
        Ok(Some(CompanySignUpOutput { company, employment }))
    }

    async fn redeem_invite(&self, ctx: &Context<'_>, token: String) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).user_id()?;
        let mut tx = self.db.begin_write().await?;
        let id = invitations::redeem(&mut tx, actor, &token).await?;
        tx.commit().await?;
        let mut conn = self.db.pool.acquire().await?;
        Ok(employments::find(&mut conn, id).await?.map(|e| e.to_graphql()))
    }
}

#[async_trait::async_trait]
impl UserResolver for Api {
    async fn activities(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        from_time: Option<TimeStamp>,
        until_time: Option<TimeStamp>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<Option<ActivityConnection>> {
        let viewer = caller(ctx).user_id()?;
        let (from, until) = (from_time.map(|t| t.0), until_time.map(|t| t.0));
        let page =
            missions::queries::user_activities(&self.db, viewer, parent.id.into(), from, until, first, after).await?;
        let mut users = std::collections::HashSet::new();
        let node = ctx.look_ahead().field("edges").field("node");
        let rows: Vec<_> = page.items.iter().map(|(_, row)| row.clone()).collect();
        loaders::prefetch_activity_children(ctx, &self.db, &rows, node, &mut users).await?;
        loaders::feed_users(ctx, &self.db, users).await?;
        Ok(Some(page.to_graphql()))
    }

    async fn missions(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        from_time: Option<TimeStamp>,
        until_time: Option<TimeStamp>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<Option<MissionConnection>> {
        let viewer = caller(ctx).user_id()?;
        let (from, until) = (from_time.map(|t| t.0), until_time.map(|t| t.0));
        let page =
            missions::queries::user_missions(&self.db, viewer, parent.id.into(), from, until, first, after).await?;
        let views: Vec<_> = page.items.iter().filter_map(|(_, view)| view.as_ref()).collect();
        loaders::prefetch_missions(ctx, &self.db, &views, ctx.look_ahead().field("edges").field("node")).await?;
        Ok(Some(page.to_graphql()))
    }

    async fn current_employments(
        &self,
        ctx: &Context<'_>,
        parent: &User,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let me = self_only(ctx, parent, "currentEmployments")?;
        let rows = employments::current_of_user(&self.db, me).await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn employments(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        from_date: Option<Date>,
        until_date: Option<Date>,
        include_pending: Option<bool>,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let me = self_only(ctx, parent, "employments")?;
        let rows = employments::of_user(
            &self.db,
            me,
            from_date.map(|d| d.0),
            until_date.map(|d| d.0),
            include_pending.unwrap_or(false),
        )
        .await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn admined_companies(
        &self,
        ctx: &Context<'_>,
        parent: &User,
        company_ids: Option<Vec<Option<i32>>>,
    ) -> async_graphql::Result<Option<Vec<Option<Company>>>> {
        let me = self_only(ctx, parent, "adminedCompanies")?;
        let wanted: Option<Vec<i64>> = company_ids.map(|ids| ids.into_iter().flatten().map(i64::from).collect());
        let rows = company::admined_by(&self.db, me).await?;
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
        let me = self_only(ctx, parent, "authorizedClients")?;
        let clients = crate::domain::auth::oauth_tokens::authorized_clients(&self.db, me).await?;
        Ok(Some(
            clients
                .into_iter()
                .map(|(id, name)| Some(OAuth2Client { id: id as i32, name }))
                .collect(),
        ))
    }
}

/// These fields describe a user's own attachments: only that user reads them.
fn self_only(ctx: &Context<'_>, parent: &User, field: &str) -> Result<i64, AppError> {
    let me = caller(ctx).user_id()?;
    if me != i64::from(parent.id) {
        return Err(AppError::authorization(format!(
            "Forbidden access to field '{field}' of user object. The field is only accessible to the user himself."
        )));
    }
    Ok(me)
}
