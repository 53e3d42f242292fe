//! `Employment`: its company, user, submitter, business, team, software vendors and detachment
//! request.

use async_graphql::Context;

use crate::app::App;
use crate::domain::companies::business;
use crate::graphql::caller;
use crate::graphql::contract::{
    Business, Company, DetachmentRequestOutput, Employment, EmploymentResolver, Team, User,
};
use crate::graphql::convert::ToGraphql;

#[async_trait::async_trait]
impl EmploymentResolver for App {
    async fn detachment_request(
        &self,
        ctx: &Context<'_>,
        parent: &Employment,
    ) -> async_graphql::Result<Option<DetachmentRequestOutput>> {
        let request =
            crate::domain::companies::employments::detachment::of_employment(self.db(ctx), parent.id.into()).await?;
        // Unix seconds, in the reference's Int (32 bits: until 2038).
        Ok(request.map(|r| DetachmentRequestOutput {
            requested_at: i32::try_from(r.requested_at).ok(),
            last_sent_at: i32::try_from(r.last_sent_at).ok(),
        }))
    }

    async fn company(&self, ctx: &Context<'_>, parent: &Employment) -> async_graphql::Result<Option<Company>> {
        Ok(crate::graphql::loaders::missions::company(ctx, parent.company_id.into()).await?)
    }

    async fn user(&self, ctx: &Context<'_>, parent: &Employment) -> async_graphql::Result<Option<User>> {
        let Some(id) = parent.user_id else {
            return Ok(None);
        };
        // Privacy before consent: a pending employment shows its user to that user only.
        let accepted = parent.validation_status.as_deref() == Some("approved");
        if !accepted && caller(ctx).user_id().ok() != Some(i64::from(id)) {
            return Ok(None);
        }
        let user = crate::graphql::loaders::users::load_user(ctx, id.into()).await?;
        // As the reference: an employee who hides their e-mail shows `***` through it.
        if parent.hide_email == Some(true) {
            return Ok(user.map(|user| User {
                email: Some(crate::graphql::convert::HIDDEN_EMAIL.to_string()),
                ..user
            }));
        }
        Ok(user)
    }

    async fn submitter(&self, ctx: &Context<'_>, parent: &Employment) -> async_graphql::Result<Option<User>> {
        match parent.submitter_id {
            Some(id) => Ok(crate::graphql::loaders::users::load_user(ctx, id.into()).await?),
            None => Ok(None),
        }
    }

    async fn business(&self, ctx: &Context<'_>, parent: &Employment) -> async_graphql::Result<Option<Business>> {
        Ok(business::of_employment(self.db(ctx), parent.id.into())
            .await?
            .map(Business::from))
    }

    async fn team(&self, ctx: &Context<'_>, parent: &Employment) -> async_graphql::Result<Option<Team>> {
        let team = crate::domain::teams::of_employment(self.db(ctx), parent.team_id.map(i64::from)).await?;
        Ok(team.map(|t| t.to_graphql()))
    }

    async fn authorized_clients(
        &self,
        ctx: &Context<'_>,
        parent: &Employment,
    ) -> async_graphql::Result<Option<Vec<Option<crate::graphql::contract::OAuth2Client>>>> {
        super::vendor_access::employment_clients(self, ctx, parent).await
    }
}
