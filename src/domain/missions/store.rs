//! Missions as stored, and turning them into API objects in a bounded number of queries.

use std::collections::HashMap;

use sqlx::AnyConnection;

use crate::db::{Db, now};
use crate::domain::auth::Actor;
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
    use crate::db::sql::JOINED_USER_IDS;
    use const_format::concatcp;

    /// The columns of a [`super::MissionRow`], read from `missions m`.
    pub(crate) const COLUMNS: &str = "m.id, m.name, m.company_id, m.submitter_id, m.reception_time, m.context, \
         m.vehicle_id, m.past_registration_justification";
    const SELECT: &str = concatcp!("SELECT ", COLUMNS, " FROM missions m");
    // A view needs who ended the mission, and its activities counted (all, cancelled) with the
    // last cancellation — a mission whose activities are all cancelled is deleted. Correlated
    // subqueries read the `(mission_id)` indexes, so the cost follows the number of missions
    // read, never the stored history.

    /// The columns of a mission's view (a [`super::ViewRow`]), read from `missions m` joined
    /// with [`VIEW_JOIN`].
    pub(crate) const VIEW_COLUMNS: PerBackend = crate::per_backend!(
        COLUMNS,
        // Who ended the mission.
        ", (SELECT ",
        { JOINED_USER_IDS },
        " FROM mission_ends e WHERE e.mission_id = m.id) AS ended_by, ",
        { ACTIVITY_COUNTS }
    );
    /// The activities counted. PostgreSQL reads them in one pass per mission (a `LATERAL`
    /// aggregate, [`VIEW_JOIN`]): three correlated subqueries are three index scans per
    /// mission and more planning. SQLite has no `LATERAL`; its subqueries
    /// cost no planning per request (its statements stay prepared).
    const ACTIVITY_COUNTS: PerBackend = PerBackend {
        sqlite: "(SELECT COUNT(*) FROM activities a WHERE a.mission_id = m.id) AS activity_count, \
                 (SELECT COUNT(a.dismissed_at) FROM activities a WHERE a.mission_id = m.id) AS dismissed_count, \
                 (SELECT MAX(a.dismissed_at) FROM activities a WHERE a.mission_id = m.id) AS last_dismissal",
        postgres: "ac.activity_count, ac.dismissed_count, ac.last_dismissal",
    };
    /// What follows `missions m` in the `FROM` of a statement reading [`VIEW_COLUMNS`].
    pub(crate) const VIEW_JOIN: PerBackend = PerBackend {
        sqlite: "",
        postgres: " CROSS JOIN LATERAL (SELECT COUNT(*) AS activity_count, COUNT(a.dismissed_at) AS dismissed_count, \
                   MAX(a.dismissed_at) AS last_dismissal FROM activities a WHERE a.mission_id = m.id) ac",
    };
    crate::statements! {
        pub const FIND: &str = concatcp!(SELECT, " WHERE m.id = $1");
        /// Each mission with what its view needs, in one statement.
        pub const VIEWS_OF: PerBackend =
            crate::per_backend!("SELECT ", { VIEW_COLUMNS }, " FROM missions m", { VIEW_JOIN }, " WHERE ", ["m.id" in 1]);
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

/// A mission as the actor sees it: the stored row, who ended it, whether it ended for the
/// actor, and when it was deleted (all its activities cancelled).
#[derive(Debug, Clone)]
pub struct MissionView {
    pub row: MissionRow,
    pub ended_user_ids: Vec<i64>,
    pub is_ended_for_self: bool,
    pub deleted_at: Option<i64>,
}

/// A mission and what its view needs, as [`sql::VIEW_COLUMNS`] reads it.
#[derive(sqlx::FromRow)]
pub struct ViewRow {
    #[sqlx(flatten)]
    row: MissionRow,
    ended_by: Option<String>,
    activity_count: i64,
    dismissed_count: i64,
    last_dismissal: Option<i64>,
}

impl ViewRow {
    /// The mission as `actor` sees it.
    pub fn into_view(self, actor: Actor) -> AppResult<MissionView> {
        let ended_user_ids = crate::db::joined_integers(self.ended_by.as_deref())
            .map_err(|cause| AppError::internal(format!("a user id in mission_ends: {cause}")))?;
        // A mission is deleted when it has activities and all of them are cancelled.
        let deleted = self.activity_count > 0 && self.activity_count == self.dismissed_count;
        Ok(MissionView {
            is_ended_for_self: ended_user_ids.contains(&actor.user_id),
            deleted_at: deleted.then(|| self.last_dismissal.unwrap_or_default()),
            ended_user_ids,
            row: self.row,
        })
    }
}

/// Builds the views of several missions for `actor` in one query, whatever their number.
pub async fn load_many(db: &Db, ids: &[i64], actor: Actor) -> AppResult<HashMap<i64, MissionView>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = sqlx::query_as::<_, ViewRow>(db.sql(sql::VIEWS_OF))
        .bind(crate::db::id_list(ids))
        .fetch_all(db)
        .await?;
    rows.into_iter()
        .map(|row| row.into_view(actor).map(|view| (view.row.id, view)))
        .collect()
}

/// One mission as `actor` sees it.
pub async fn load_one(db: &Db, id: i64, actor: Actor) -> AppResult<MissionView> {
    load_many(db, &[id], actor)
        .await?
        .remove(&id)
        .ok_or_else(|| AppError::internal("mission vanished"))
}
