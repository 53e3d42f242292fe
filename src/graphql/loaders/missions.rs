//! Per-request batch loaders for what hangs off missions and activities: a query for a hundred
//! missions with their activities, versions and users makes one database round trip per kind of
//! object, not one per object.

use std::collections::{HashMap, HashSet};

use async_graphql::dataloader::Loader;
use async_graphql::{Context, Lookahead};

use crate::db::{Db, PerBackend};
use crate::domain::activities::store::{self as activity_store, ActivityRow, VersionRow};
use crate::domain::auth::Actor;
use crate::domain::expenditures::{self, ExpenditureRow};
use crate::errors::AppError;
use crate::graphql::contract::Mission;

use super::Lazy;
use crate::domain::companies::company::{self, CompanyRow};
use crate::domain::missions::comments::{self, CommentRow};
use crate::domain::missions::locations::{self, LocationRow};
use crate::domain::missions::store::{self, MissionView};
use crate::domain::missions::validation::{self, ValidationRow};
use crate::domain::vehicles::{self, VehicleRow};
use crate::graphql::RequestData;
use crate::graphql::convert::{ToGraphql, user_seen_by};

/// Rows whose key is one of `ids` (a statement whose `$1` is the id list), grouped by key.
async fn grouped<T>(
    db: &Db,
    statement: PerBackend,
    ids: &[i64],
    key: impl Fn(&T) -> i64,
) -> Result<HashMap<i64, Vec<T>>, AppError>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> + Send + Unpin,
{
    let rows = sqlx::query_as::<_, T>(db.sql(statement))
        .bind(crate::db::id_list(ids))
        .fetch_all(db)
        .await?;
    let mut map: HashMap<i64, Vec<T>> = HashMap::new();
    for row in rows {
        map.entry(key(&row)).or_default().push(row);
    }
    Ok(map)
}

macro_rules! grouped_loader {
    ($(#[$doc:meta])* $name:ident, $row:ty, $statement:expr, $key:expr) => {
        $(#[$doc])*
        pub struct $name(pub Db);

        impl Loader<i64> for $name {
            type Value = Vec<$row>;
            type Error = async_graphql::Error;

            async fn load(&self, keys: &[i64]) -> Result<HashMap<i64, Vec<$row>>, Self::Error> {
                Ok(grouped(&self.0, $statement, keys, $key).await?)
            }
        }
    };
}

grouped_loader!(
    /// Every activity of each mission (cancelled ones included), in time order.
    ActivitiesByMission,
    ActivityRow,
    activity_store::sql::OF_MISSIONS,
    |r: &ActivityRow| r.mission_id
);
grouped_loader!(
    /// The versions of each activity, oldest first.
    VersionsByActivity,
    VersionRow,
    activity_store::sql::VERSIONS_OF,
    |r: &VersionRow| r.activity_id
);
grouped_loader!(
    /// Every expenditure of each mission (cancelled ones included).
    ExpendituresByMission,
    ExpenditureRow,
    expenditures::sql::OF_MISSIONS,
    |r: &ExpenditureRow| r.mission_id
);
grouped_loader!(
    /// The comments of each mission that were not cancelled.
    CommentsByMission,
    CommentRow,
    comments::OF_MISSIONS,
    |r: &CommentRow| r.mission_id
);
grouped_loader!(
    /// The start and end locations of each mission.
    LocationsByMission,
    LocationRow,
    locations::sql::OF_MISSIONS,
    |r: &LocationRow| r.mission_id
);
grouped_loader!(
    /// The validations of each mission.
    ValidationsByMission,
    ValidationRow,
    validation::OF_MISSIONS,
    |r: &ValidationRow| r.mission_id
);
grouped_loader!(
    /// Vehicles by id.
    VehiclesById,
    VehicleRow,
    vehicles::sql::FIND_MANY,
    |r: &VehicleRow| r.id
);
grouped_loader!(
    /// Companies by id.
    CompaniesById,
    CompanyRow,
    company::sql::FIND_MANY,
    |r: &CompanyRow| r.id
);

/// Missions as API objects as the request's actor sees them (an anonymous request reads none:
/// a mission is only ever reached through data its actor may read).
pub struct MissionsById {
    pub db: Db,
    pub actor: Option<Actor>,
}

impl Loader<i64> for MissionsById {
    type Value = Mission;
    type Error = async_graphql::Error;

    async fn load(&self, keys: &[i64]) -> Result<HashMap<i64, Mission>, Self::Error> {
        let actor = self
            .actor
            .ok_or_else(|| AppError::authentication("Unable to find a valid cookie or authorization header"))?;
        let views = store::load_many(&self.db, keys, actor).await?;
        Ok(views.into_iter().map(|(id, view)| (id, view.to_graphql())).collect())
    }
}

/// Loads through a loader of the request (here for the resolvers, which read the missions' loaders).
pub use super::load;

/// Feeds a loader of the request with rows grouped by key (keys without rows get an empty list).
async fn feed<L, T>(ctx: &Context<'_>, keys: &[i64], mut rows: HashMap<i64, Vec<T>>)
where
    L: Lazy + Loader<i64, Value = Vec<T>, Error = async_graphql::Error>,
    T: Clone + Send + Sync + 'static,
{
    if let Some(data) = RequestData::of(ctx) {
        data.loaders
            .get::<L>()
            .feed_many(keys.iter().map(|k| (*k, rows.remove(k).unwrap_or_default())))
            .await;
    }
}

/// A list of missions is about to be resolved: what its selection asks for below each mission
/// is loaded now, one query per kind of object, and fed to the loaders. Batching by the
/// loaders' time window alone depends on how fast the resolvers run; this does not.
pub async fn prefetch_missions(
    ctx: &Context<'_>,
    db: &Db,
    missions: &[&MissionView],
    node: Lookahead<'_>,
) -> Result<(), AppError> {
    if missions.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = missions.iter().map(|m| m.row.id).collect();
    let mut users: HashSet<i64> = HashSet::new();
    if node.field("submitter").exists() {
        users.extend(missions.iter().map(|m| m.row.submitter_id));
    }
    let activities = node.field("activities");
    if activities.exists() {
        let rows = grouped::<ActivityRow>(db, activity_store::sql::OF_MISSIONS, &ids, |r| r.mission_id).await?;
        let all: Vec<ActivityRow> = rows.values().flatten().cloned().collect();
        prefetch_activity_children(ctx, db, &all, activities, &mut users).await?;
        feed::<ActivitiesByMission, _>(ctx, &ids, rows).await;
    }
    if node.field("expenditures").exists() {
        let rows = grouped::<ExpenditureRow>(db, expenditures::sql::OF_MISSIONS, &ids, |r| r.mission_id).await?;
        feed::<ExpendituresByMission, _>(ctx, &ids, rows).await;
    }
    if node.field("comments").exists() {
        let rows = grouped::<CommentRow>(db, comments::OF_MISSIONS, &ids, |r| r.mission_id).await?;
        feed::<CommentsByMission, _>(ctx, &ids, rows).await;
    }
    if node.field("validations").exists() {
        let rows = grouped::<ValidationRow>(db, validation::OF_MISSIONS, &ids, |r| r.mission_id).await?;
        feed::<ValidationsByMission, _>(ctx, &ids, rows).await;
    }
    if node.field("startLocation").exists() || node.field("endLocation").exists() {
        let rows = grouped::<LocationRow>(db, locations::sql::OF_MISSIONS, &ids, |r| r.mission_id).await?;
        feed::<LocationsByMission, _>(ctx, &ids, rows).await;
    }
    if node.field("vehicle").exists() {
        let vehicle_ids: Vec<i64> = missions
            .iter()
            .filter_map(|m| m.row.vehicle_id)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        if !vehicle_ids.is_empty() {
            let rows = grouped::<VehicleRow>(db, vehicles::sql::FIND_MANY, &vehicle_ids, |r| r.id).await?;
            feed::<VehiclesById, _>(ctx, &vehicle_ids, rows).await;
        }
    }
    if node.field("company").exists() {
        let company_ids: Vec<i64> = missions
            .iter()
            .map(|m| m.row.company_id)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let rows = grouped::<CompanyRow>(db, company::sql::FIND_MANY, &company_ids, |r| r.id).await?;
        feed::<CompaniesById, _>(ctx, &company_ids, rows).await;
    }
    feed_users(ctx, db, users).await
}

/// The same for a list of activities (a user's activities, or the activities of missions).
pub async fn prefetch_activity_children(
    ctx: &Context<'_>,
    db: &Db,
    activities: &[ActivityRow],
    node: Lookahead<'_>,
    users: &mut HashSet<i64>,
) -> Result<(), AppError> {
    if node.field("user").exists() {
        users.extend(activities.iter().map(|a| a.user_id));
    }
    if node.field("submitter").exists() {
        users.extend(activities.iter().map(|a| a.submitter_id));
    }
    if node.field("dismissAuthor").exists() {
        users.extend(activities.iter().filter_map(|a| a.dismiss_author_id));
    }
    let versions = node.field("versions");
    if versions.exists() && !activities.is_empty() {
        let ids: Vec<i64> = activities.iter().map(|a| a.id).collect();
        let rows = grouped::<VersionRow>(db, activity_store::sql::VERSIONS_OF, &ids, |r| r.activity_id).await?;
        if versions.field("submitter").exists() {
            users.extend(rows.values().flatten().map(|v| v.submitter_id));
        }
        feed::<VersionsByActivity, _>(ctx, &ids, rows).await;
    }
    Ok(())
}

/// Loads users in one query and feeds the user loader.
pub async fn feed_users(ctx: &Context<'_>, db: &Db, users: HashSet<i64>) -> Result<(), AppError> {
    if users.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = users.into_iter().collect();
    let rows = crate::domain::users::accounts::find_many(db, &ids).await?;
    if let Some(data) = RequestData::of(ctx) {
        let actor = data.caller.actor().ok();
        data.loaders
            .get::<crate::graphql::loaders::users::UserLoader>()
            .feed_many(rows.into_iter().map(|row| (row.id, user_seen_by(row, actor))))
            .await;
    }
    Ok(())
}

/// A company mentioned by an object the caller may already read.
pub async fn company(ctx: &Context<'_>, id: i64) -> Result<Option<crate::graphql::contract::Company>, AppError> {
    let rows = load::<CompaniesById, _>(ctx, id).await?.unwrap_or_default();
    Ok(rows.first().map(crate::graphql::contract::Company::from))
}
