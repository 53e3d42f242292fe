//! `Mutations.account` and `User.notifications`: the caller's own account (see
//! `domain::users::profile`, `email_change`, `password_change`, `totp`) and notifications (see
//! `domain::notifications`).

use async_graphql::Context;

use crate::app::App;
use crate::domain::auth::Actor;
use crate::domain::kinds::NotificationType as Kind;
use crate::domain::mails::preferences;
use crate::domain::notifications::{self, NotificationRow};
use crate::domain::users::password_change::{self, PasswordChange};
use crate::domain::users::{accounts, email_change, profile, totp};
use crate::errors::AppError;
use crate::graphql::contract::{
    AccountChangeEmailArgs, AccountChangeEmailOptOutArgs, AccountChangeGenderArgs, AccountChangeLanguageArgs,
    AccountChangeNameArgs, AccountChangePhoneNumberArgs, AccountChangeTimezoneArgs, AccountDisableTotpArgs,
    AccountDisableWarningArgs, AccountMarkNotificationsAsReadArgs, AccountResetPasswordConnectedArgs, AccountResolver,
    AccountVerifyTotpArgs, Notification, NotificationType, SetupTOTPOutput, User, Void,
};
use crate::graphql::convert::{ToGraphql, user_seen_by};
use crate::graphql::scalars::{JSONString, TimeStamp};
use crate::graphql::{RequestData, caller, hashing};

impl ToGraphql for NotificationRow {
    type Output = Notification;

    fn to_graphql(&self) -> Notification {
        Notification {
            id: Some(self.id as i32),
            creation_time: Some(TimeStamp(self.creation_time)),
            r#type: match self.kind() {
                Kind::MissionChangesWarning => NotificationType::MissionChangesWarning,
                Kind::NewMissionByAdmin => NotificationType::NewMissionByAdmin,
                Kind::MissionAutoValidation => NotificationType::MissionAutoValidation,
            },
            read: self.read == 1,
            data: Some(JSONString(self.data.clone())),
        }
    }
}

/// The rows as the contract's list.
pub fn list(rows: &[NotificationRow]) -> Option<Vec<Option<Notification>>> {
    Some(rows.iter().map(|row| Some(row.to_graphql())).collect())
}

/// The caller acting on their own account. A software vendor's employment token is refused: it
/// reaches one company's data, not the account of the person.
fn owner(ctx: &Context<'_>) -> Result<Actor, AppError> {
    let actor = caller(ctx).actor()?;
    if caller(ctx).employment().is_some() {
        return Err(AppError::authorization(
            "An employment token cannot change the account: only its owner, logged in, can",
        ));
    }
    Ok(actor)
}

/// The caller's account as it is now.
async fn me(app: &App, ctx: &Context<'_>, actor: Actor) -> async_graphql::Result<Option<User>> {
    let row = accounts::find(app.db(ctx), actor.user_id).await?;
    Ok(row.map(|row| user_seen_by(row, Some(actor))))
}

fn done() -> Option<Void> {
    Some(Void { success: true })
}

#[async_trait::async_trait]
impl AccountResolver for App {
    async fn mark_notifications_as_read(
        &self,
        ctx: &Context<'_>,
        args: AccountMarkNotificationsAsReadArgs,
    ) -> async_graphql::Result<Option<Vec<Option<Notification>>>> {
        let actor = caller(ctx).actor()?;
        let ids: Vec<i64> = args.notification_ids.into_iter().flatten().map(i64::from).collect();
        let rows = notifications::mark_read(self.db(ctx), actor, &ids).await?;
        Ok(list(&rows))
    }

    async fn change_email(
        &self,
        ctx: &Context<'_>,
        args: AccountChangeEmailArgs,
    ) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        // The e-mails in the account's language.
        email_change::change(self.db(ctx), actor.user_id, &args.email.0, &self.public_url).await?;
        me(self, ctx, actor).await
    }

    async fn change_name(&self, ctx: &Context<'_>, args: AccountChangeNameArgs) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        profile::only_self(actor.user_id, args.user_id.into())?;
        profile::change_name(self.db(ctx), actor.user_id, &args.new_first_name, &args.new_last_name).await?;
        me(self, ctx, actor).await
    }

    async fn change_phone_number(
        &self,
        ctx: &Context<'_>,
        args: AccountChangePhoneNumberArgs,
    ) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        profile::only_self(actor.user_id, args.user_id.into())?;
        profile::change_phone_number(self.db(ctx), actor.user_id, &args.new_phone_number).await?;
        me(self, ctx, actor).await
    }

    async fn change_timezone(
        &self,
        ctx: &Context<'_>,
        args: AccountChangeTimezoneArgs,
    ) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        profile::change_timezone(self.db(ctx), actor.user_id, &args.timezone_name).await?;
        me(self, ctx, actor).await
    }

    async fn change_gender(
        &self,
        ctx: &Context<'_>,
        args: AccountChangeGenderArgs,
    ) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        profile::change_gender(self.db(ctx), actor.user_id, args.gender).await?;
        me(self, ctx, actor).await
    }

    async fn reset_password_connected(
        &self,
        ctx: &Context<'_>,
        args: AccountResetPasswordConnectedArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = owner(ctx)?;
        profile::only_self(actor.user_id, args.user_id.into())?;
        let address = RequestData::of(ctx)
            .and_then(|data| data.client)
            .map(|a| a.0.to_string())
            .unwrap_or_default();
        let change = PasswordChange {
            current: args.current_password,
            new: args.password.0,
        };
        password_change::change(
            self.db(ctx),
            actor.user_id,
            caller(ctx).session(),
            change,
            &address,
            &hashing(ctx),
        )
        .await?;
        Ok(done())
    }

    async fn disable_warning(
        &self,
        ctx: &Context<'_>,
        args: AccountDisableWarningArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = owner(ctx)?;
        profile::disable_warning(self.db(ctx), actor.user_id, args.warning_name).await?;
        Ok(done())
    }

    async fn change_language(
        &self,
        ctx: &Context<'_>,
        args: AccountChangeLanguageArgs,
    ) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        let lang = preferences::language(&args.language)?;
        preferences::change_language(self.db(ctx), actor.user_id, lang).await?;
        me(self, ctx, actor).await
    }

    async fn change_email_opt_out(
        &self,
        ctx: &Context<'_>,
        args: AccountChangeEmailOptOutArgs,
    ) -> async_graphql::Result<Option<User>> {
        let actor = owner(ctx)?;
        let kind = preferences::optional_type(&args.email_type)?;
        preferences::change_opt_out(self.db(ctx), actor.user_id, kind, args.opt_out).await?;
        me(self, ctx, actor).await
    }

    async fn setup_totp(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<SetupTOTPOutput>> {
        let actor = owner(ctx)?;
        let setup = totp::setup(self.db(ctx), &self.key_sealer, actor.user_id).await?;
        Ok(Some(SetupTOTPOutput {
            provisioning_uri: setup.provisioning_uri,
            secret: setup.secret,
            recovery_codes: setup.recovery_codes,
        }))
    }

    async fn verify_totp(&self, ctx: &Context<'_>, args: AccountVerifyTotpArgs) -> async_graphql::Result<Option<Void>> {
        let actor = owner(ctx)?;
        totp::verify(self.db(ctx), &self.key_sealer, actor.user_id, &args.code).await?;
        Ok(done())
    }

    async fn disable_totp(
        &self,
        ctx: &Context<'_>,
        args: AccountDisableTotpArgs,
    ) -> async_graphql::Result<Option<Void>> {
        let actor = owner(ctx)?;
        totp::disable(self.db(ctx), &self.key_sealer, actor.user_id, &args.code).await?;
        Ok(done())
    }
}
