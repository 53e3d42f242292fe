//! Missions as stored, and turning them into API objects in a bounded number of queries.

use std::collections::HashMap;

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::errors::{AppError, AppResult};

/// A mission as stored.
#[derive(sqlx::FromRow, Debug, Clone)]
pub struct MissionRow {
    pub id: i64,
    pub name: Option<String>,
    pub company_id: i64,
    pub submitter_id: i64,
    pub reception_time: i64,
    pub context: Option<String>,
    pub vehicle_id: Option<i64>,
    pub past_registration_justification: Option<String>,
}

/// Mission statements.
pub mod sql {
    use crate::db::PerBackend;
    use const_format::concatcp;

    const SELECT: &str = "SELECT m.id, m.name, m.company_id, m.submitter_id, m.reception_time, m.context, \
         m.vehicle_id, m.past_registration_justification FROM missions m";
    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE m.id = $1");
        pub const FIND_MANY: PerBackend = crate::per_backend!(SELECT, " WHERE ", ["m.id" in 1]);
        /// Who ended each mission.
        pub const ENDS_OF: PerBackend =
            crate::per_backend!("SELECT mission_id, user_id FROM mission_ends WHERE ", ["mission_id" in 1]);
        /// Per mission: its activities, the cancelled ones, the last cancellation.
        pub const CANCELLATIONS_OF: PerBackend = crate::per_backend!(
            "SELECT mission_id, COUNT(*), COUNT(dismissed_at), MAX(dismissed_at) FROM activities WHERE ",
            ["mission_id" in 1],
            " GROUP BY mission_id"
        );
    }
}

/// Reads a mission.
pub async fn find(conn: &mut AnyConnection, id: i64) -> AppResult<Option<MissionRow>> {
    Ok(sqlx::query_as::<_, MissionRow>(sql::FIND)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// What `createMission` stores.
pub struct NewMission<'a> {
    pub company_id: i64,
    pub submitter_id: i64,
    pub name: Option<&'a str>,
    pub context: Option<&'a serde_json::Value>,
    pub vehicle_id: Option<i64>,
    pub creation_time: Option<i64>,
    pub past_registration_justification: Option<&'a str>,
}

pub async fn insert(conn: &mut AnyConnection, new: &NewMission<'_>) -> AppResult<i64> {
    let received = now();
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO missions (name, company_id, submitter_id, reception_time, creation_time, context, vehicle_id,
                               past_registration_justification)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(new.name)
    .bind(new.company_id)
    .bind(new.submitter_id)
    .bind(received)
    .bind(new.creation_time.unwrap_or(received))
    .bind(new.context.map(|c| c.to_string()))
    .bind(new.vehicle_id)
    .bind(new.past_registration_justification)
    .fetch_one(conn)
    .await?;
    Ok(id)
}

/// A mission as a viewer sees it: the stored row, who ended it, whether it ended for the
/// viewer, and when it was deleted (all its activities cancelled).
#[derive(Debug, Clone)]
pub struct MissionView {
    pub row: MissionRow,
    pub ended_user_ids: Vec<i64>,
    pub is_ended_for_self: bool,
    pub deleted_at: Option<i64>,
}

/// Builds the views of several missions for `viewer` in three queries, whatever their number:
/// the missions, who ended them, and whether all their activities are cancelled.
pub async fn load_many(db: &Db, ids: &[i64], viewer: i64) -> AppResult<HashMap<i64, MissionView>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list = crate::db::id_list(ids);
    let rows = sqlx::query_as::<_, MissionRow>(db.sql(sql::FIND_MANY))
        .bind(&list)
        .fetch_all(&db.pool)
        .await?;

    let query = sqlx::query_as::<_, (i64, i64)>(db.sql(sql::ENDS_OF)).bind(&list);
    let mut ended: HashMap<i64, Vec<i64>> = HashMap::new();
    for (mission_id, user_id) in query.fetch_all(&db.pool).await? {
        ended.entry(mission_id).or_default().push(user_id);
    }

    // A mission is deleted when it has activities and all of them are cancelled.
    let query = sqlx::query_as::<_, (i64, i64, i64, Option<i64>)>(db.sql(sql::CANCELLATIONS_OF)).bind(&list);
    let mut deleted: HashMap<i64, i64> = HashMap::new();
    for (mission_id, total, dismissed, last) in query.fetch_all(&db.pool).await? {
        if total > 0 && total == dismissed {
            deleted.insert(mission_id, last.unwrap_or_default());
        }
    }

    Ok(rows
        .into_iter()
        .map(|row| {
            let ended_user_ids = ended.remove(&row.id).unwrap_or_default();
            let view = MissionView {
                is_ended_for_self: ended_user_ids.contains(&viewer),
                deleted_at: deleted.get(&row.id).copied(),
                ended_user_ids,
                row,
            };
            (view.row.id, view)
        })
        .collect())
}

/// One mission as `viewer` sees it.
pub async fn load_one(db: &Db, id: i64, viewer: i64) -> AppResult<MissionView> {
    load_many(db, &[id], viewer)
        .await?
        .remove(&id)
        .ok_or_else(|| AppError::internal("mission vanished"))
}
