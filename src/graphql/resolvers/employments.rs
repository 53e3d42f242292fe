//! `Mutations.employments`: creating, accepting, refusing, ending and changing employments, an
//! employee's request to be detached and a former employee's reattachment.

use async_graphql::Context;

use crate::app::App;
use crate::errors::AppError;
use crate::graphql::caller;
use crate::graphql::contract::{
    Company, Employment, EmploymentsBatchCreateWorkerEmploymentsArgs, EmploymentsBatchTerminateEmploymentsArgs,
    EmploymentsCancelEmploymentArgs, EmploymentsChangeEmployeeBusinessTypeArgs, EmploymentsChangeEmployeeRoleArgs,
    EmploymentsChangeEmployeeTeamArgs, EmploymentsCreateEmploymentArgs, EmploymentsReattachEmploymentArgs,
    EmploymentsRejectEmploymentArgs, EmploymentsRequestDetachmentArgs, EmploymentsResolver,
    EmploymentsSendInvitationsRemindersArgs, EmploymentsTerminateEmploymentArgs, EmploymentsUpdateHideEmailArgs,
    EmploymentsValidateEmploymentArgs, ReattachEmployment, SendInvitationsReminders, TerminateEmploymentResult, Void,
};

use crate::domain::companies::company;
use crate::domain::companies::employments::{self, Target};
use crate::domain::companies::service;
use crate::graphql::convert::ToGraphql;

#[async_trait::async_trait]
impl EmploymentsResolver for App {
    async fn request_detachment(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsRequestDetachmentArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        let row = employments::detachment::request(self.db(ctx), actor, args.employment_id.into()).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn reattach_employment(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsReattachEmploymentArgs,
    ) -> async_graphql::Result<Option<ReattachEmployment>> {
        let actor = caller(ctx).actor()?;
        let done = employments::reattach::reattach(
            self.db(ctx),
            actor,
            args.company_id.into(),
            args.user_id.into(),
            &self.public_url,
        )
        .await?;
        Ok(Some(ReattachEmployment {
            employment: Some(done.employment.to_graphql()),
            email_sent: Some(done.email_sent),
        }))
    }

    async fn create_employment(
        &self,
        ctx: &Context<'_>,
        mut args: EmploymentsCreateEmploymentArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        let target = match (args.user_id, args.mail.take()) {
            (Some(user_id), None) => Target::User(user_id.into()),
            (None, Some(mail)) => Target::Email(mail.0),
            _ => return Err(AppError::invalid_inputs("Exactly one of userId or mail should be provided.").into()),
        };
        let row = service::create(self.db(ctx), actor, target, args.into(), &self.public_url).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn validate_employment(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsValidateEmploymentArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            employments::answer(self.db(ctx), actor, args.employment_id.into(), true, &self.public_url)
                .await?
                .to_graphql(),
        ))
    }

    async fn reject_employment(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsRejectEmploymentArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        Ok(Some(
            employments::answer(self.db(ctx), actor, args.employment_id.into(), false, &self.public_url)
                .await?
                .to_graphql(),
        ))
    }

    async fn terminate_employment(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsTerminateEmploymentArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        let row = employments::terminate(
            self.db(ctx),
            actor,
            args.employment_id.into(),
            args.end_date.map(|d| d.0),
        )
        .await?;
        Ok(Some(row.to_graphql()))
    }

    async fn batch_terminate_employments(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsBatchTerminateEmploymentsArgs,
    ) -> async_graphql::Result<Option<Vec<Option<TerminateEmploymentResult>>>> {
        let actor = caller(ctx).actor()?;
        let items = args
            .employments
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                item.map(|i| (i64::from(i.employment_id), i.end_date.map(|d| d.0)))
                    .ok_or_else(|| {
                        AppError::invalid_inputs("An item of employments is null").with("itemIndex", index as i64)
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let outcomes = employments::terminate_batch(self.db(ctx), actor, &items).await?;
        Ok(Some(
            outcomes
                .into_iter()
                .map(|o| {
                    Some(TerminateEmploymentResult {
                        employment_id: Some(o.employment_id as i32),
                        success: Some(o.error.is_none()),
                        error: o.error.map(str::to_string),
                    })
                })
                .collect(),
        ))
    }

    async fn send_invitations_reminders(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsSendInvitationsRemindersArgs,
    ) -> async_graphql::Result<Option<SendInvitationsReminders>> {
        let actor = caller(ctx).actor()?;
        let ids = args
            .employment_ids
            .into_iter()
            .enumerate()
            .map(|(index, id)| {
                id.map(i64::from)
                    .ok_or_else(|| AppError::invalid_inputs("An employment id is null").with("itemIndex", index as i64))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let sent = crate::domain::companies::reminders::send(self.db(ctx), actor, &ids, &self.public_url).await?;
        Ok(Some(SendInvitationsReminders {
            success: Some(true),
            sent_to_employment_ids: Some(sent.into_iter().map(|id| Some(id as i32)).collect()),
        }))
    }

    async fn cancel_employment(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsCancelEmploymentArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = caller(ctx).actor()?;
        employments::cancel(self.db(ctx), actor, args.employment_id.into()).await?;
        Ok(Some(Void { success: true }))
    }

    async fn change_employee_role(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsChangeEmployeeRoleArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        let company_id =
            employments::change_role(self.db(ctx), actor, args.employment_id.into(), args.has_admin_rights).await?;
        Ok(company::find(self.db(ctx), company_id)
            .await?
            .as_ref()
            .map(Company::from))
    }

    async fn batch_create_worker_employments(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsBatchCreateWorkerEmploymentsArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Employment>>>> {
        let actor = caller(ctx).actor()?;
        let mut targets: Vec<Target> = Vec::new();
        targets.extend(args.mails.into_iter().flatten().flatten().map(|m| Target::Email(m.0)));
        targets.extend(
            args.user_ids
                .into_iter()
                .flatten()
                .flatten()
                .map(|u| Target::User(u.into())),
        );
        let rows =
            service::create_batch(self.db(ctx), actor, args.company_id.into(), targets, &self.public_url).await?;
        Ok(Some(rows.iter().map(|r| Some(r.to_graphql())).collect()))
    }

    async fn change_employee_business_type(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsChangeEmployeeBusinessTypeArgs,
    ) -> async_graphql::Result<Option<Company>> {
        let actor = caller(ctx).actor()?;
        let company_id = crate::domain::companies::business::change_employee(
            self.db(ctx),
            actor,
            args.employment_id.into(),
            &args.business_type,
        )
        .await?;
        Ok(company::find(self.db(ctx), company_id)
            .await?
            .as_ref()
            .map(Company::from))
    }

    async fn update_hide_email(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsUpdateHideEmailArgs,
    ) -> async_graphql::Result<Option<Employment>> {
        let actor = caller(ctx).actor()?;
        let row = employments::hide_email(self.db(ctx), actor, args.employment_id.into(), args.hide_email).await?;
        Ok(Some(row.to_graphql()))
    }

    async fn change_employee_team(
        &self,
        ctx: &Context<'_>,
        args: EmploymentsChangeEmployeeTeamArgs,
    ) -> async_graphql::Result<Option<Company>> {
        use crate::domain::teams::{self, Moved};
        let actor = caller(ctx).actor()?;
        let moved = match (args.user_id, args.employment_id) {
            (Some(user_id), None) => Moved::User(user_id.into()),
            (None, Some(employment_id)) => Moved::Employment(employment_id.into()),
            _ => {
                return Err(
                    AppError::invalid_inputs("Exactly one of userId or employmentId should be provided.").into(),
                );
            }
        };
        let company_id = teams::change_employee_team(
            self.db(ctx),
            actor,
            args.company_id.into(),
            moved,
            args.team_id.map(i64::from),
        )
        .await?;
        Ok(company::find(self.db(ctx), company_id)
            .await?
            .as_ref()
            .map(Company::from))
    }
}
