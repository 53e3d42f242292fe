//! Software vendors as the main API shows them to employees and admins: the root mutations
//! `dismissEmploymentToken`, `dismissCompanyToken`, `generateCompanyToken` (the reference's) and
//! `rotateEmploymentToken` (Roadlog's), and the company fields `authorizedClients` and
//! `vendorActions`, and `Employment.authorizedClients`. Called from the `Mutations`, `Company`
//! and `Employment` resolvers.

use async_graphql::Context;

use crate::app::App;
use crate::domain::companies::permissions;
use crate::domain::vendors::{audit, employment_tokens, revocation};
use crate::errors::AppError;
use crate::graphql::caller;
use crate::graphql::contract::{Company, Employment, EmploymentTokenRotation, OAuth2Client, VendorAction, Void};
use crate::graphql::scalars::TimeStamp;

fn client(row: revocation::AuthorizedClient) -> Option<OAuth2Client> {
    Some(OAuth2Client {
        id: row.client_id as i32,
        name: row.name,
        linked_at: Some(TimeStamp(row.linked_at)),
        last_used_at: row.last_used_at.map(TimeStamp),
        employment_token_count: Some(row.token_count as i32),
    })
}

fn clients(rows: Vec<revocation::AuthorizedClient>) -> Option<Vec<Option<OAuth2Client>>> {
    Some(rows.into_iter().map(client).collect())
}

pub async fn dismiss_employment_token(
    app: &App,
    ctx: &Context<'_>,
    client_id: i32,
    employment_id: i32,
) -> async_graphql::Result<Option<Void>> {
    let actor = caller(ctx).actor()?;
    revocation::dismiss_employment_token(app.db(ctx), actor, client_id.into(), employment_id.into()).await?;
    Ok(Some(Void { success: true }))
}

pub async fn dismiss_company_token(
    app: &App,
    ctx: &Context<'_>,
    client_id: i32,
    company_id: i32,
) -> async_graphql::Result<Option<Vec<Option<OAuth2Client>>>> {
    let actor = caller(ctx).actor()?;
    let rows = revocation::dismiss_company_token(app.db(ctx), actor, client_id.into(), company_id.into()).await?;
    Ok(clients(rows))
}

pub async fn generate_company_token(
    app: &App,
    ctx: &Context<'_>,
    client_id: i32,
    company_id: i32,
) -> async_graphql::Result<Option<Vec<Option<OAuth2Client>>>> {
    let actor = caller(ctx).actor()?;
    let rows = revocation::generate_company_token(app.db(ctx), actor, client_id.into(), company_id.into()).await?;
    Ok(clients(rows))
}

pub async fn rotate_employment_token(
    app: &App,
    ctx: &Context<'_>,
    client_id: i32,
    employment_id: i32,
) -> async_graphql::Result<Option<EmploymentTokenRotation>> {
    let me = caller(ctx);
    me.user_id()?;
    let Some(grant) = me.employment() else {
        return Err(AppError::authorization(
            "Only a request made with an employment token (X-CLIENT-ID and X-EMPLOYMENT-TOKEN) can rotate it",
        )
        .into());
    };
    if grant.client_id != i64::from(client_id) || grant.employment_id != i64::from(employment_id) {
        return Err(
            AppError::authorization("The token of the request is not this client's link to this employment").into(),
        );
    }
    match employment_tokens::rotate(app.db(ctx), grant).await? {
        Some(rotated) => Ok(Some(EmploymentTokenRotation {
            access_token: rotated.access_token,
            expires_at: rotated.expires_at.map(TimeStamp),
        })),
        // Dismissed or rotated by a concurrent request since this one was authenticated.
        None => Err(AppError::authentication("Invalid token").into()),
    }
}

pub async fn authorized_clients(
    app: &App,
    ctx: &Context<'_>,
    parent: &Company,
) -> async_graphql::Result<Option<Vec<Option<OAuth2Client>>>> {
    let actor = caller(ctx).actor()?;
    if !permissions::is_admin(app.db(ctx), actor, parent.id.into()).await? {
        return Err(permissions::admin_only_field("authorizedClients").into());
    }
    Ok(clients(
        revocation::authorized_clients(app.db(ctx), parent.id.into()).await?,
    ))
}

pub async fn vendor_actions(
    app: &App,
    ctx: &Context<'_>,
    parent: &Company,
    client_id: Option<i32>,
    first: Option<i32>,
) -> async_graphql::Result<Option<Vec<Option<VendorAction>>>> {
    let actor = caller(ctx).actor()?;
    if !permissions::is_admin(app.db(ctx), actor, parent.id.into()).await? {
        return Err(permissions::admin_only_field("vendorActions").into());
    }
    let first = i64::from(first.unwrap_or(audit::MAX_ACTIONS as i32));
    if !(0..=audit::MAX_ACTIONS).contains(&first) {
        return Err(
            AppError::invalid_inputs(format!("first must be between 0 and {}", audit::MAX_ACTIONS))
                .with("field", "first")
                .into(),
        );
    }
    let rows = audit::actions(app.db(ctx), parent.id.into(), client_id.map(i64::from), first).await?;
    Ok(Some(
        rows.into_iter()
            .map(|a| {
                Some(VendorAction {
                    time: TimeStamp(a.time),
                    client_id: a.client_id as i32,
                    client_name: a.client_name,
                    operation: a.operation,
                    credential: a.credential.to_string(),
                    employment_id: a.employment_id.map(|id| id as i32),
                    user_id: a.user_id.map(|id| id as i32),
                })
            })
            .collect(),
    ))
}

pub async fn employment_clients(
    app: &App,
    ctx: &Context<'_>,
    parent: &Employment,
) -> async_graphql::Result<Option<Vec<Option<OAuth2Client>>>> {
    let me = caller(ctx).actor()?;
    if parent.user_id.map(i64::from) != Some(me.user_id) {
        return Err(AppError::authorization(
            "Forbidden access to field 'authorizedClients' of employment object. The field is only accessible to the employee.",
        )
        .into());
    }
    let rows = revocation::clients_of_employment(app.db(ctx), me.scope, parent.id.into()).await?;
    Ok(Some(
        rows.into_iter()
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
