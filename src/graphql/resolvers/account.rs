//! `Mutations.account` and `User.notifications`: the caller's notifications (see
//! `domain::notifications`).

use async_graphql::Context;

use crate::app::App;
use crate::domain::kinds::NotificationType as Kind;
use crate::domain::notifications::{self, NotificationRow};
use crate::graphql::caller;
use crate::graphql::contract::{AccountMarkNotificationsAsReadArgs, AccountResolver, Notification, NotificationType};
use crate::graphql::convert::ToGraphql;
use crate::graphql::scalars::{JSONString, TimeStamp};

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
}
