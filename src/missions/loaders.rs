//! Per-request batch loaders for what hangs off missions and activities: a query for a hundred
//! missions with their activities, versions and users makes one database round trip per kind of
//! object, not one per object.

use std::collections::HashMap;

use async_graphql::dataloader::{DataLoader, Loader};

use crate::activities::store::{self as activity_store, ActivityRow, VersionRow};
use crate::errors::AppError;
use crate::expenditures::{self, ExpenditureRow};
use crate::graphql::contract::Mission;
use crate::storage::Db;

use super::comments::CommentRow;
use super::locations::{self, LocationRow};
use super::store;
use super::vehicles::VehicleRow;

/// Rows whose `column` is one of `ids`, grouped by that column.
async fn grouped<T>(db: &Db, select: &str, ids: &[i64], key: impl Fn(&T) -> i64) -> Result<HashMap<i64, Vec<T>>, async_graphql::Error>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> + Send + Unpin,
{
    let list = (1..=ids.len()).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
    let sql = sqlx::AssertSqlSafe(select.replace("{ids}", &list));
    let mut query = sqlx::query_as::<_, T>(sql);
    for id in ids {
        query = query.bind(*id);
    }
    let rows = query.fetch_all(&db.pool).await.map_err(AppError::from)?;
    let mut map: HashMap<i64, Vec<T>> = HashMap::new();
    for row in rows {
        map.entry(key(&row)).or_default().push(row);
    }
    Ok(map)
}

macro_rules! grouped_loader {
    ($(#[$doc:meta])* $name:ident, $row:ty, $select:expr, $key:expr) => {
        $(#[$doc])*
        pub struct $name(pub Db);

        impl Loader<i64> for $name {
            type Value = Vec<$row>;
            type Error = async_graphql::Error;

            async fn load(&self, keys: &[i64]) -> Result<HashMap<i64, Vec<$row>>, Self::Error> {
                grouped(&self.0, &$select, keys, $key).await
            }
        }
    };
}

grouped_loader!(
    /// Every activity of each mission (cancelled ones included), in time order.
    ActivitiesByMission,
    ActivityRow,
    format!("SELECT {} FROM activities a WHERE a.mission_id IN ({{ids}}) ORDER BY a.start_time, a.id", activity_store::COLUMNS),
    |r: &ActivityRow| r.mission_id
);
grouped_loader!(
    /// The versions of each activity, oldest first.
    VersionsByActivity,
    VersionRow,
    "SELECT id, activity_id, reception_time, start_time, end_time, context, submitter_id FROM activity_versions
     WHERE activity_id IN ({ids}) ORDER BY version_number".to_string(),
    |r: &VersionRow| r.activity_id
);
grouped_loader!(
    /// Every expenditure of each mission (cancelled ones included).
    ExpendituresByMission,
    ExpenditureRow,
    format!("SELECT {} FROM expenditures e WHERE e.mission_id IN ({{ids}}) ORDER BY e.spending_date, e.id", expenditures::COLUMNS),
    |r: &ExpenditureRow| r.mission_id
);
grouped_loader!(
    /// The comments of each mission that were not cancelled.
    CommentsByMission,
    CommentRow,
    "SELECT id, mission_id, submitter_id, text, reception_time FROM comments
     WHERE mission_id IN ({ids}) AND dismissed_at IS NULL ORDER BY id".to_string(),
    |r: &CommentRow| r.mission_id
);
grouped_loader!(
    /// The start and end locations of each mission.
    LocationsByMission,
    LocationRow,
    format!("SELECT {} FROM location_entries WHERE mission_id IN ({{ids}})", locations::COLUMNS),
    |r: &LocationRow| r.mission_id
);
grouped_loader!(
    /// The validations of each mission.
    ValidationsByMission,
    super::graphql::ValidationRow,
    "SELECT id, mission_id, is_admin, is_auto, justification, context, user_id, submitter_id, reception_time
     FROM mission_validations WHERE mission_id IN ({ids}) ORDER BY id".to_string(),
    |r: &super::graphql::ValidationRow| r.mission_id
);
grouped_loader!(
    /// Vehicles by id.
    VehiclesById,
    VehicleRow,
    "SELECT id, company_id, registration_number, alias, last_kilometer_reading FROM vehicles WHERE id IN ({ids})".to_string(),
    |r: &VehicleRow| r.id
);

/// Missions as API objects for the viewer of the request.
pub struct MissionsById {
    pub db: Db,
    pub viewer: i64,
}

impl Loader<i64> for MissionsById {
    type Value = Mission;
    type Error = async_graphql::Error;

    async fn load(&self, keys: &[i64]) -> Result<HashMap<i64, Mission>, Self::Error> {
        Ok(store::load_many(&self.db, keys, self.viewer).await?)
    }
}

/// Adds every loader of this module to a request.
pub fn attach(request: async_graphql::Request, db: &Db, viewer: i64) -> async_graphql::Request {
    let spawn = tokio::spawn;
    request
        .data(DataLoader::new(ActivitiesByMission(db.clone()), spawn))
        .data(DataLoader::new(VersionsByActivity(db.clone()), spawn))
        .data(DataLoader::new(ExpendituresByMission(db.clone()), spawn))
        .data(DataLoader::new(CommentsByMission(db.clone()), spawn))
        .data(DataLoader::new(LocationsByMission(db.clone()), spawn))
        .data(DataLoader::new(ValidationsByMission(db.clone()), spawn))
        .data(DataLoader::new(VehiclesById(db.clone()), spawn))
        .data(DataLoader::new(MissionsById { db: db.clone(), viewer }, spawn))
}

/// Loads through a loader of the request.
pub async fn load<L, V>(ctx: &async_graphql::Context<'_>, key: i64) -> Result<Option<V>, AppError>
where
    L: Loader<i64, Value = V, Error = async_graphql::Error>,
    V: Clone + Send + Sync + 'static,
{
    match ctx.data_opt::<DataLoader<L>>() {
        Some(loader) => loader.load_one(key).await.map_err(|e| AppError::internal(e.message)),
        None => Err(AppError::internal("a loader is missing from the request")),
    }
}
