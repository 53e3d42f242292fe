//! The paginated lists: a user's missions and activities, a company's missions. Relay-style
//! connections with `first`/`after`, most recent first, opaque cursors, capped page sizes.

use base64::Engine;

use crate::db::{Backend, Db, PerBackend};
use crate::domain::activities::rules::OPEN;
use crate::domain::activities::store::ActivityRow;
use crate::domain::auth::Actor;
use crate::domain::companies::{date_text, today};
use crate::errors::{AppError, AppResult};

use super::store::{self, MissionView};

pub mod sql;

/// One page of a list, most recent first: each item with its opaque cursor, and whether more
/// follow.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<(String, T)>,
    pub has_next_page: bool,
}

impl<T> Page<T> {
    pub fn start_cursor(&self) -> Option<String> {
        self.items.first().map(|(c, _)| c.clone())
    }

    pub fn end_cursor(&self) -> Option<String> {
        self.items.last().map(|(c, _)| c.clone())
    }
}

/// Largest page of a user's missions or activities (the reference's cap).
pub const USER_PAGE_CAP: i64 = 200;
/// Largest page of a company's missions.
pub const COMPANY_PAGE_CAP: i64 = 1000;

/// An opaque cursor: the sort time and the id of the last row of a page.
pub fn encode_cursor(time: i64, id: i64) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{time},{id}"))
}

/// Reads a cursor; INVALID_INPUTS when it is not one of ours.
pub fn decode_cursor(cursor: &str) -> AppResult<(i64, i64)> {
    let invalid = || AppError::invalid_inputs("Invalid pagination cursor").with("field", "after");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.trim())
        .map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let (time, id) = text.split_once(',').ok_or_else(invalid)?;
    Ok((time.parse().map_err(|_| invalid())?, id.parse().map_err(|_| invalid())?))
}

fn page_size(first: Option<i32>, cap: i64) -> AppResult<i64> {
    match first {
        None => Ok(cap),
        Some(n) if n < 0 => Err(AppError::invalid_inputs("first must not be negative").with("field", "first")),
        Some(n) => Ok(i64::from(n).min(cap)),
    }
}

/// Which companies' data an actor sees of a user: everything of themselves, otherwise only what
/// belongs to companies they administer today. `None` = no restriction. An actor confined to one
/// company (an employment token's) sees that company's data only, of the user too.
pub async fn scope(db: &Db, actor: Actor, user_id: i64, field: &str) -> AppResult<Option<Vec<i64>>> {
    let confined = actor.scope.company();
    if actor.user_id == user_id {
        return Ok(confined.map(|company| vec![company]));
    }
    let rows: Vec<(i64,)> = sqlx::query_as(
        "SELECT company_id FROM employments WHERE user_id = $1 AND validation_status = 'approved' AND dismissed_at IS NULL
           AND has_admin_rights = 1 AND start_date <= $2 AND (end_date IS NULL OR end_date >= $2)",
    )
    .bind(actor.user_id)
    .bind(date_text(today()))
    .fetch_all(db)
    .await?;
    let rows = actor.scope.keep(rows, |r| r.0);
    if rows.is_empty() {
        return Err(AppError::authorization(format!(
            "Forbidden access to field '{field}' of user object. The field is only accessible to the user himself or company admins."
        )));
    }
    Ok(Some(rows.into_iter().map(|r| r.0).collect()))
}

/// The statement for an actor's scope, and the scope's companies as its `$8`.
fn scoped(
    db: &Db,
    scope: &Option<Vec<i64>>,
    all: &'static str,
    in_scope: PerBackend,
) -> (&'static str, Option<String>) {
    match scope {
        None => (all, None),
        Some(ids) => (db.sql(in_scope), Some(crate::db::id_list(ids))),
    }
}

/// What every list query binds as `$1`…`$7`, in this order: the owner (a user or a company),
/// the end and start of the time window (with `$3` standing for "still running"), the cursor,
/// and the page size plus one (to know whether more rows follow). Extra values (the companies
/// of an actor's scope) come after, from `$8`.
struct Window {
    owner: i64,
    until: i64,
    from: i64,
    cursor: (i64, i64),
    fetch: i64,
    /// The companies of the actor's scope (an id list), when the statement takes them.
    scope: Option<String>,
    /// Whether PostgreSQL may keep the statement prepared (see `bind`).
    prepared: bool,
}

impl Window {
    fn new(owner: i64, from: Option<i64>, until: Option<i64>, after: Option<String>, limit: i64) -> AppResult<Window> {
        let cursor = match after {
            Some(c) => decode_cursor(&c)?,
            None => (OPEN, OPEN),
        };
        Ok(Window {
            owner,
            until: until.unwrap_or(OPEN),
            from: from.unwrap_or(i64::MIN),
            cursor,
            fetch: limit + 1,
            scope: None,
            prepared: false,
        })
    }

    /// The same window, kept prepared on PostgreSQL when `prepared`: for a statement whose
    /// generic plan is proven to walk its index and stop after the page (`tests/api/plans.rs`).
    fn prepared(self, prepared: bool) -> Window {
        Window { prepared, ..self }
    }

    /// The same window, for a statement that also takes the actor's scope as `$8`.
    fn with_scope(self, scope: Option<String>) -> Window {
        Window { scope, ..self }
    }
}

impl PageBinds for Window {
    /// Binds `$1`…`$7`, then the company scope as `$8` when there is one.
    ///
    /// On PostgreSQL the statement is planned for its values at every run (an unnamed
    /// statement, not a cached one) unless the window is `prepared`: a cached statement soon
    /// gets a generic plan, which cannot know that the owner has thousands of rows nor that
    /// most bounds are open, estimates one row, and reads the owner's whole history then sorts
    /// it, where the plan for the values walks the index backwards and stops after the page.
    /// Planning afresh costs a parse, a plan and one more round trip (bench/README.md, "Figures
    /// behind code choices"). A worker's missions walk an index that holds every column the
    /// walk reads (migration 0058), whose backward walk is the generic plan too: those stay
    /// prepared. SQLite keeps its cached statement: its plan does not depend on the values.
    fn bind<'q, O>(&self, db: &Db, query: PageQuery<'q, O>) -> PageQuery<'q, O> {
        let mut query = query.persistent(db.backend == Backend::Sqlite || self.prepared);
        for value in [
            self.owner,
            self.until,
            OPEN,
            self.from,
            self.cursor.0,
            self.cursor.1,
            self.fetch,
        ] {
            query = query.bind(value);
        }
        match &self.scope {
            Some(list) => query.bind(list.clone()),
            None => query,
        }
    }
}

/// A row of a mission page on SQLite: the sort time (the cursor's first half) and the
/// mission's view.
#[derive(sqlx::FromRow)]
struct PageRow {
    start: i64,
    #[sqlx(flatten)]
    view: store::ViewRow,
}

/// Binds a page statement's values (a [`Window`], or the deleted missions' cursor).
trait PageBinds {
    fn bind<'q, O>(&self, db: &Db, query: PageQuery<'q, O>) -> PageQuery<'q, O>;
}

/// Reads a page of missions with a page statement: on SQLite its rows are the views; on
/// PostgreSQL its rows are the keys, and the views are read by id after (see
/// [`sql::PAGE_HEAD`]), in the keys' order.
async fn read_page(
    db: &Db,
    sql: &'static str,
    binds: &impl PageBinds,
    limit: i64,
    actor: Actor,
) -> AppResult<Page<Option<MissionView>>> {
    if db.backend == Backend::Sqlite {
        let rows = binds.bind(db, sqlx::query_as::<_, PageRow>(sql)).fetch_all(db).await?;
        return mission_page(rows, limit, actor);
    }
    let mut keys = binds
        .bind(db, sqlx::query_as::<_, (i64, i64)>(sql))
        .fetch_all(db)
        .await?;
    let has_next_page = keys.len() as i64 > limit;
    keys.truncate(limit as usize);
    let ids: Vec<i64> = keys.iter().map(|(_, id)| *id).collect();
    let mut views = store::load_many(db, &ids, actor).await?;
    // A mission keeps its row for good (deleting one cancels its activities), so every key
    // finds its view.
    let items = keys
        .into_iter()
        .filter_map(|(start, id)| views.remove(&id).map(|view| (encode_cursor(start, id), Some(view))))
        .collect();
    Ok(Page { items, has_next_page })
}

/// A page statement's query, before and after its values are bound.
type PageQuery<'q, O> = sqlx::query::QueryAs<'q, sqlx::Any, O, sqlx::any::AnyArguments>;

/// Builds a mission page from its rows, `limit + 1` of them at most.
fn mission_page(mut rows: Vec<PageRow>, limit: i64, actor: Actor) -> AppResult<Page<Option<MissionView>>> {
    let has_next_page = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let items = rows
        .into_iter()
        .map(|row| {
            let view = row.view.into_view(actor)?;
            Ok((encode_cursor(row.start, view.row.id), Some(view)))
        })
        .collect::<AppResult<_>>()?;
    Ok(Page { items, has_next_page })
}

/// `User.missions`: the missions the user worked in, by start of their first activity, newest
/// first; with `include_deleted`, also those whose activities are all cancelled.
#[allow(clippy::too_many_arguments)]
pub async fn user_missions(
    db: &Db,
    actor: Actor,
    user_id: i64,
    from: Option<i64>,
    until: Option<i64>,
    first: Option<i32>,
    after: Option<String>,
    include_deleted: bool,
) -> AppResult<Page<Option<MissionView>>> {
    let scope = scope(db, actor, user_id, "missions").await?;
    let limit = page_size(first, USER_PAGE_CAP)?;
    let (all, in_scope) = match (include_deleted, from.is_some()) {
        (true, _) => (sql::USER_ALL_MISSIONS, sql::USER_ALL_MISSIONS_IN_SCOPE),
        (false, false) => (sql::USER_MISSIONS, sql::USER_MISSIONS_IN_SCOPE),
        (false, true) => (sql::USER_MISSIONS_SINCE, sql::USER_MISSIONS_SINCE_IN_SCOPE),
    };
    let (sql, companies) = scoped(db, &scope, db.sql(all), in_scope);
    // The deleted missions' form reads the activities too (a union): planned for its values.
    let window = Window::new(user_id, from, until, after, limit)?
        .with_scope(companies)
        .prepared(!include_deleted);
    read_page(db, sql, &window, limit, actor).await
}

/// `Company.missions` (admins): the company's missions, newest first.
#[allow(clippy::too_many_arguments)]
pub async fn company_missions(
    db: &Db,
    actor: Actor,
    company_id: i64,
    from: Option<i64>,
    until: Option<i64>,
    after: Option<String>,
    first: Option<i32>,
    only_ended: bool,
) -> AppResult<Page<Option<MissionView>>> {
    let limit = page_size(first, COMPANY_PAGE_CAP)?;
    let sql = if only_ended {
        sql::COMPANY_ENDED_MISSIONS
    } else {
        sql::COMPANY_MISSIONS
    };
    let window = Window::new(company_id, from, until, after, limit)?;
    read_page(db, db.sql(sql), &window, limit, actor).await
}

/// `Company.missionsDeleted` (admins): the company's missions whose activities are all
/// cancelled, most recently created first.
pub async fn company_deleted_missions(
    db: &Db,
    actor: Actor,
    company_id: i64,
    first: Option<i32>,
    after: Option<String>,
) -> AppResult<Page<Option<MissionView>>> {
    let limit = page_size(first, COMPANY_PAGE_CAP)?;
    let cursor = match after {
        Some(c) => decode_cursor(&c)?,
        None => (OPEN, OPEN),
    };
    let binds = DeletedPage {
        company_id,
        cursor,
        fetch: limit + 1,
    };
    read_page(db, db.sql(sql::COMPANY_DELETED_MISSIONS), &binds, limit, actor).await
}

/// The values of the deleted missions' page statement: the company, the cursor, the page size
/// plus one.
struct DeletedPage {
    company_id: i64,
    cursor: (i64, i64),
    fetch: i64,
}

impl PageBinds for DeletedPage {
    fn bind<'q, O>(&self, _db: &Db, query: PageQuery<'q, O>) -> PageQuery<'q, O> {
        query
            .bind(self.company_id)
            .bind(self.cursor.0)
            .bind(self.cursor.1)
            .bind(self.fetch)
    }
}

/// `User.activities`: the user's activities that were not cancelled, newest first (with the
/// rows, for prefetching what the selection asks below them).
pub async fn user_activities(
    db: &Db,
    actor: Actor,
    user_id: i64,
    from: Option<i64>,
    until: Option<i64>,
    first: Option<i32>,
    after: Option<String>,
) -> AppResult<Page<ActivityRow>> {
    let scope = scope(db, actor, user_id, "activities").await?;
    let limit = page_size(first, USER_PAGE_CAP)?;
    let (sql, companies) = scoped(db, &scope, sql::USER_ACTIVITIES, sql::USER_ACTIVITIES_IN_SCOPE);
    let query = Window::new(user_id, from, until, after, limit)?
        .with_scope(companies)
        .bind(db, sqlx::query_as::<_, ActivityRow>(sql));
    let mut rows = query.fetch_all(db).await?;
    let has_next_page = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let items = rows
        .into_iter()
        .map(|row| (encode_cursor(row.start_time, row.id), row))
        .collect();
    Ok(Page { items, has_next_page })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let cursor = encode_cursor(1_700_000_000, 42);
        assert_eq!(decode_cursor(&cursor).unwrap(), (1_700_000_000, 42));
        for bad in [
            "",
            "not base64!",
            &base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("12"),
        ] {
            assert_eq!(decode_cursor(bad).unwrap_err().message, "Invalid pagination cursor");
        }
    }
}
