//! The insert of a logged activity with everything that follows from it in the same
//! transaction: its first version, the reopening of the worker's mission (an open activity), the
//! worker's and the mission's spans widened to take it in, and the two rules that span rows (no
//! overlapping activities, no interleaved missions), checked against committed data while the
//! worker's row is locked (see [`crate::domain::workers`]).
//!
//! On SQLite these are a statement each, run one after the other on a database in the same
//! process. On PostgreSQL each statement is a round trip to another process, and a sequential
//! write's time goes to them (nine round trips per `logActivity`): there they are one statement,
//! a data-modifying `WITH`. Its sub-statements share one snapshot, taken after the worker's
//! lock, which is the committed data plus this transaction's earlier writes (a switch's closed
//! activity) without the row being inserted: exactly what the rules are checked against. A
//! conflict comes back as columns of the returned row, described; the error then rolls the
//! transaction back, writes included.

use sqlx::AnyConnection;

use crate::db::{Backend, PerBackend};
use crate::domain::auth::Actor;
use crate::domain::kinds::ActivityType;
use crate::errors::AppResult;

use super::checks::{self, Conflict, OtherMission};
use super::rules::OPEN;
use super::spans;
use super::store::{ActivityRow, add_version};

/// An activity to insert, checked: already decided to be allowed, its times in whole minutes.
pub struct Insert<'a> {
    pub mission_id: i64,
    pub user_id: i64,
    pub actor: Actor,
    pub kind: ActivityType,
    pub received: i64,
    pub creation_time: Option<i64>,
    pub start: i64,
    pub end: Option<i64>,
    pub context: Option<&'a serde_json::Value>,
}

/// Inserts the activity and keeps the worker's time consistent (module doc); returns the row
/// as stored, or the rule it breaks.
pub async fn insert(conn: &mut AnyConnection, new: Insert<'_>) -> AppResult<ActivityRow> {
    match Backend::of(conn) {
        Backend::Postgres => in_one_statement(conn, new).await,
        Backend::Sqlite => in_sequence(conn, new).await,
    }
}

type Query<'q, O> = sqlx::query::QueryAs<'q, sqlx::Any, O, sqlx::any::AnyArguments>;

/// [`sql::INSERT`] in either spelling, with the activity's own columns bound (`$1` to `$8`).
fn with_activity<'q, O>(statement: &'static str, new: &Insert<'_>) -> Query<'q, O>
where
    O: for<'r> sqlx::FromRow<'r, sqlx::any::AnyRow>,
{
    sqlx::query_as(statement)
        .bind(new.mission_id)
        .bind(new.user_id)
        .bind(new.actor.user_id)
        .bind(new.kind.as_str())
        .bind(new.received)
        .bind(new.creation_time.unwrap_or(new.received))
        .bind(new.start)
        .bind(new.end)
}

/// The SQLite way: a statement per step.
async fn in_sequence(conn: &mut AnyConnection, new: Insert<'_>) -> AppResult<ActivityRow> {
    let logged: ActivityRow = with_activity(sql::INSERT.sqlite, &new).fetch_one(&mut *conn).await?;
    add_version(conn, logged.id, new.actor.user_id, new.context, new.creation_time).await?;
    if new.end.is_none() {
        reopen(conn, new.mission_id, new.user_id).await?;
    }
    let widened = spans::widen_after_logging(conn, new.user_id, new.mission_id, new.start, new.end).await?;
    checks::no_overlap(conn, new.actor.scope, new.user_id, logged.id, new.start, new.end).await?;
    // The spans of the worker's other missions can only have shrunk (a switch closed the
    // running activity): only a span that grew can have come to overlap one of them.
    if let Some(span) = widened {
        checks::span_not_interleaved(conn, new.actor.scope, new.user_id, span).await?;
    }
    Ok(logged)
}

/// Reopens the worker's mission: an open activity means the mission is not over for them.
pub(super) async fn reopen(conn: &mut AnyConnection, mission_id: i64, user_id: i64) -> AppResult<()> {
    sqlx::query("DELETE FROM mission_ends WHERE mission_id = $1 AND user_id = $2")
        .bind(mission_id)
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// What [`sql::INSERT`] returns on PostgreSQL: the row as stored, the activity it overlaps
/// (`o_*`, all null when none) and the mission it interleaves with (`i_*`, likewise).
#[derive(sqlx::FromRow)]
struct Checked {
    #[sqlx(flatten)]
    logged: ActivityRow,
    o_id: Option<i64>,
    o_start_time: Option<i64>,
    o_end_time: Option<i64>,
    o_mission_id: Option<i64>,
    o_kind: Option<String>,
    o_submitter_id: Option<i64>,
    o_first_name: Option<String>,
    o_last_name: Option<String>,
    o_company_id: Option<i64>,
    i_mission_id: Option<i64>,
    i_name: Option<String>,
    i_reception_time: Option<i64>,
    i_submitter_id: Option<i64>,
    i_first_name: Option<String>,
    i_last_name: Option<String>,
    i_company_id: Option<i64>,
}

impl Checked {
    /// The activity the new one overlaps, when there is one.
    fn overlapped(&mut self) -> Option<Conflict> {
        Some(Conflict {
            id: self.o_id?,
            start_time: self.o_start_time?,
            end_time: self.o_end_time,
            mission_id: self.o_mission_id?,
            kind: self.o_kind.take()?,
            submitter_id: self.o_submitter_id?,
            first_name: self.o_first_name.take()?,
            last_name: self.o_last_name.take()?,
            company_id: self.o_company_id?,
        })
    }

    /// The mission the worker's widened span now meets, described when it still exists.
    fn interleaved(&mut self) -> Option<(i64, Option<OtherMission>)> {
        let other = self.i_mission_id?;
        let described = (|| {
            Some(OtherMission {
                id: other,
                name: self.i_name.take(),
                reception_time: self.i_reception_time?,
                submitter_id: self.i_submitter_id?,
                first_name: self.i_first_name.take()?,
                last_name: self.i_last_name.take()?,
                company_id: self.i_company_id?,
            })
        })();
        Some((other, described))
    }
}

/// The PostgreSQL way: one statement ([`sql::INSERT`]), then the conflicts it found, in the
/// order the rules are checked on SQLite (overlap first).
async fn in_one_statement(conn: &mut AnyConnection, new: Insert<'_>) -> AppResult<ActivityRow> {
    let mut checked: Checked = with_activity(sql::INSERT.postgres, &new)
        .bind(new.context.map(|c| c.to_string()))
        .bind(new.end.unwrap_or(OPEN))
        .fetch_one(&mut *conn)
        .await?;
    if let Some(conflict) = checked.overlapped() {
        return Err(checks::overlapping_activities(new.actor.scope, conflict));
    }
    if let Some((other, described)) = checked.interleaved() {
        return Err(checks::overlapping_missions(new.actor.scope, other, described));
    }
    Ok(checked.logged)
}

pub mod sql {
    use const_format::concatcp;

    use super::PerBackend;
    use crate::domain::activities::checks::rule_searches;
    use crate::domain::activities::spans::sql::WIDEN_CONFLICT;
    use crate::domain::activities::store::RETURNED;

    const INSERT_ACTIVITY: &str = concatcp!(
        "INSERT INTO activities (mission_id, user_id, submitter_id, type, reception_time, creation_time, \
           start_time, end_time, last_update_time, last_submitter_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $5, $3) RETURNING ",
        RETURNED
    );

    crate::statements! {
        /// A new activity of worker `$2` in mission `$1` (submitter `$3`, type `$4`, received
        /// at `$5`, created at `$6`, from `$7` to `$8`, null while open), returned as stored.
        ///
        /// On PostgreSQL the statement goes on (`$9` the first version's context, `$10` the end
        /// or [`OPEN`](super::OPEN)): `a` inserts the activity, `v` its first version, `r`
        /// reopens the mission for an open activity, `s` widens the worker's span (as
        /// [`spans::sql::WIDEN_SPAN`](crate::domain::activities::spans::sql::WIDEN_SPAN), which
        /// says why a union suffices) and `m` the mission's when the worker's grew. `o` is the
        /// live activity of the worker that shares a minute with the new one, `i` the other
        /// mission whose span meets the worker's widened one (none when the span did not grow):
        /// the searches of [`checks::sql::OVERLAP`](super::checks::sql::OVERLAP) and
        /// [`checks::sql::INTERLEAVED`](super::checks::sql::INTERLEAVED), written once
        /// (`checks::rule_searches`) and given this statement's values. Each is described for
        /// its error.
        pub const INSERT: PerBackend = PerBackend {
            sqlite: INSERT_ACTIVITY,
            postgres: concatcp!(
                "WITH a AS (",
                INSERT_ACTIVITY,
                "), v AS (INSERT INTO activity_versions (activity_id, version_number, reception_time, creation_time, \
                   start_time, end_time, context, submitter_id) \
                 SELECT a.id, 1, $5, $6, a.start_time, a.end_time, $9, $3 FROM a), \
                 r AS (DELETE FROM mission_ends WHERE mission_id = $1 AND user_id = $2 AND $8 IS NULL), \
                 s AS (INSERT INTO mission_spans (user_id, mission_id, start_time, end_time) VALUES ($2, $1, $7, $10) ",
                WIDEN_CONFLICT.postgres,
                "), \
                 m AS (UPDATE missions SET start_time = LEAST(COALESCE(start_time, $7), $7), \
                   end_time = GREATEST(COALESCE(end_time, $10), $10) WHERE id = $1 AND EXISTS (SELECT 1 FROM s)), \
                 o AS (",
                rule_searches!(overlap: user "$2", other_than "(SELECT a.id FROM a)", start "$7", end "$10"),
                "), \
                 i AS (",
                rule_searches!(interleaving: user "$2", mission "$1",
                    start "(SELECT s.start_time FROM s)", end "(SELECT s.end_time FROM s)"),
                ") \
                 SELECT a.*, o.id AS o_id, o.start_time AS o_start_time, o.end_time AS o_end_time, \
                   o.mission_id AS o_mission_id, o.kind AS o_kind, o.submitter_id AS o_submitter_id, \
                   o.first_name AS o_first_name, o.last_name AS o_last_name, o.company_id AS o_company_id, \
                   i.mission_id AS i_mission_id, im.name AS i_name, im.reception_time AS i_reception_time, \
                   iu.id AS i_submitter_id, iu.first_name AS i_first_name, iu.last_name AS i_last_name, \
                   im.company_id AS i_company_id \
                 FROM a LEFT JOIN o ON TRUE LEFT JOIN i ON TRUE \
                   LEFT JOIN missions im ON im.id = i.mission_id LEFT JOIN users iu ON iu.id = im.submitter_id"
            ),
        };
    }
}
