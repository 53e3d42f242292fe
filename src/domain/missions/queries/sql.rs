//! The list statements of the paginated lists. Each binds the page's window as `$1`…`$7`; the
//! `…_IN_SCOPE` forms add the companies the actor may see as `$8`.

use crate::db::PerBackend;
use crate::per_backend;

// `LIMIT ($7 + 0)`, not `LIMIT $7`: SQLite's planner reads a bare parameter's value in
// LIMIT, so the statement would be parsed and planned again every time it is bound with a
// new page size; an expression keeps the cached plan.
//
// A worker's spans never overlap (the interleaving rule), nor do their activities, so of
// the rows ending after `$4` at most one starts at or before it: starting from the latest
// such start bounds the window below, and the whole window is one range of the index.
// Only when the window has a start (`…_SINCE`): PostgreSQL cannot estimate that bound (a
// subquery's value), guesses a few rows, and with statistics of a 5,000-mission history
// chose to read and sort all of it rather than walk the index backwards
// and stop after the page; without a start there is nothing to bound.
//
// `s.start_time <= $5` repeats the cursor's bound in a form both databases use as a range
// of the index, so a page deep in the history starts where its cursor is.
//
// The mission is joined only where the actor's scope needs its company: a span's mission
// always exists (a foreign key), and the join was one more index probe per span read.
const USER_MISSIONS_HEAD: &str = "SELECT s.start_time AS start, s.mission_id \
     FROM mission_spans s WHERE s.user_id = $1";
const USER_MISSIONS_IN_SCOPE_HEAD: &str = "SELECT s.start_time AS start, s.mission_id \
     FROM mission_spans s JOIN missions m ON m.id = s.mission_id WHERE s.user_id = $1";
//
// The span's end is not in the index (migration 0058: it moves with nearly every write, and
// an indexed end made each move leave dead entries until vacuum). A window keeps the spans
// ending after its start `$4`; a span starting at or after `$4` does (it ends after it
// starts), so the end is read, by the primary key, only for a span that starts before `$4`:
// the one at the lower bound. Without a start, every span ends after it; the window's end
// `$2` bounds the start only (a mission that began before it is listed). `$4 < $3`, true
// of every window (`$3` is OPEN), names the values these forms need no more, so that the
// statement still prepares with its seven values where they are not given types.
const USER_MISSIONS_LOWER_BOUND: &str = " AND s.start_time >= COALESCE((SELECT MAX(x.start_time) FROM mission_spans x \
                                      WHERE x.user_id = $1 AND x.start_time <= $4), $4) \
        AND (s.start_time >= $4 OR EXISTS (SELECT 1 FROM mission_spans e \
                                           WHERE e.user_id = $1 AND e.mission_id = s.mission_id AND e.end_time > $4))";
const USER_MISSIONS_TAIL: &str = " AND s.start_time < $2 AND $4 < $3 \
        AND s.start_time <= $5 AND (s.start_time < $5 OR (s.start_time = $5 AND s.mission_id < $6)) \
     ORDER BY s.start_time DESC, s.mission_id DESC LIMIT ($7 + 0)";

const USER_ACTIVITIES_HEAD: &str = const_format::concatcp!(
    "SELECT ",
    crate::domain::activities::store::COLUMNS,
    " FROM activities a JOIN missions m ON m.id = a.mission_id WHERE a.user_id = $1 AND a.dismissed_at IS NULL"
);
const USER_ACTIVITIES_TAIL: &str = " AND a.start_time < $2 AND COALESCE(a.end_time, $3) > $4 \
       AND a.start_time >= COALESCE((SELECT MAX(x.start_time) FROM activities x \
                                     WHERE x.user_id = $1 AND x.dismissed_at IS NULL AND x.start_time <= $4), $4) \
       AND (a.start_time < $5 OR (a.start_time = $5 AND a.id < $6)) \
     ORDER BY a.start_time DESC, a.id DESC LIMIT ($7 + 0)";

// The mission's span is stored (see `activities::spans`); a mission without activity is
// listed at its reception time. The index on `(company_id, sort time, id)` serves the order.
const COMPANY_MISSIONS_HEAD: &str = "SELECT COALESCE(m.start_time, m.reception_time) AS start, m.id AS mission_id \
     FROM missions m WHERE m.company_id = $1";
const COMPANY_MISSIONS_TAIL: &str = " AND COALESCE(m.start_time, m.reception_time) < $2 \
        AND COALESCE(m.end_time, m.reception_time) >= $4 AND COALESCE(m.end_time, m.reception_time) <= $3 \
        AND (COALESCE(m.start_time, m.reception_time) < $5 \
             OR (COALESCE(m.start_time, m.reception_time) = $5 AND m.id < $6)) \
     ORDER BY COALESCE(m.start_time, m.reception_time) DESC, m.id DESC LIMIT ($7 + 0)";

// A page of missions: the keyset query picks `(start, mission_id)` of at most `$7`
// missions, in page order. On SQLite each picked mission's view columns are read around it,
// in the same statement. On PostgreSQL the statement returns the keys only, and the views
// are read by id with `store::sql::VIEWS_OF` (see `read_page`): the keys' statement is
// planned for its values at every run (`Window::bind`), and planning the views with it costs
// more than reading them, where `VIEWS_OF` stays prepared with a plan that does not depend on
// the values (bench/README.md, "Figures behind code choices").
const PAGE_HEAD: PerBackend = PerBackend {
    sqlite: const_format::concatcp!(
        "SELECT k.start, ",
        crate::domain::missions::store::sql::VIEW_COLUMNS.sqlite,
        " FROM ("
    ),
    postgres: "SELECT k.start, k.mission_id FROM (",
};
const PAGE_TAIL: PerBackend = PerBackend {
    sqlite: const_format::concatcp!(
        ") k JOIN missions m ON m.id = k.mission_id",
        crate::domain::missions::store::sql::VIEW_JOIN.sqlite,
        " ORDER BY k.start DESC, m.id DESC"
    ),
    postgres: ") k ORDER BY k.start DESC, k.mission_id DESC",
};

// With the deleted missions (every activity cancelled, so no span): the user's span is
// rebuilt from their cancelled activities. Deleted missions may overlap others, so the
// lower bound of the non-overlapping spans does not apply; this form reads the window.
const USER_ALL_MISSIONS_HEAD: &str = "SELECT s.start_time AS start, s.mission_id FROM ( \
        SELECT mission_id, start_time, end_time FROM mission_spans WHERE user_id = $1 \
        UNION ALL \
        SELECT a.mission_id, MIN(a.start_time), MAX(COALESCE(a.end_time, $3)) FROM activities a \
        WHERE a.user_id = $1 \
          AND NOT EXISTS (SELECT 1 FROM activities x WHERE x.mission_id = a.mission_id AND x.dismissed_at IS NULL) \
        GROUP BY a.mission_id) s JOIN missions m ON m.id = s.mission_id WHERE 1 = 1";
const USER_ALL_MISSIONS_TAIL: &str = " AND s.start_time < $2 AND s.end_time > $4 AND s.end_time <= $3 \
        AND (s.start_time < $5 OR (s.start_time = $5 AND s.mission_id < $6)) \
     ORDER BY s.start_time DESC, s.mission_id DESC LIMIT ($7 + 0)";

// The company's deleted missions, newest created first (`$2`/`$3` the cursor, `$4` the
// page size plus one).
const COMPANY_DELETED_HEAD: &str = "SELECT m.creation_time AS start, m.id AS mission_id FROM missions m \
     WHERE m.company_id = $1 AND EXISTS (SELECT 1 FROM activities a WHERE a.mission_id = m.id) \
       AND NOT EXISTS (SELECT 1 FROM activities a WHERE a.mission_id = m.id AND a.dismissed_at IS NULL) \
       AND (m.creation_time < $2 OR (m.creation_time = $2 AND m.id < $3)) \
     ORDER BY m.creation_time DESC, m.id DESC LIMIT ($4 + 0)";

crate::statements! {
    /// The page of the user's missions, deleted ones included.
    pub const USER_ALL_MISSIONS: PerBackend =
        per_backend!({ PAGE_HEAD }, USER_ALL_MISSIONS_HEAD, USER_ALL_MISSIONS_TAIL, { PAGE_TAIL });
    pub const USER_ALL_MISSIONS_IN_SCOPE: PerBackend = per_backend!(
        { PAGE_HEAD },
        USER_ALL_MISSIONS_HEAD,
        " AND ",
        ["m.company_id" in 8],
        USER_ALL_MISSIONS_TAIL,
        { PAGE_TAIL }
    );
    /// The page of the company's deleted missions.
    pub const COMPANY_DELETED_MISSIONS: PerBackend = per_backend!({ PAGE_HEAD }, COMPANY_DELETED_HEAD, { PAGE_TAIL });
    /// The page of the user's missions, by start of their first activity.
    pub const USER_MISSIONS: PerBackend =
        per_backend!({ PAGE_HEAD }, USER_MISSIONS_HEAD, USER_MISSIONS_TAIL, { PAGE_TAIL });
    pub const USER_MISSIONS_IN_SCOPE: PerBackend = per_backend!(
        { PAGE_HEAD },
        USER_MISSIONS_IN_SCOPE_HEAD,
        " AND ",
        ["m.company_id" in 8],
        USER_MISSIONS_TAIL,
        { PAGE_TAIL }
    );
    /// The same in a window with a start.
    pub const USER_MISSIONS_SINCE: PerBackend =
        per_backend!({ PAGE_HEAD }, USER_MISSIONS_HEAD, USER_MISSIONS_LOWER_BOUND, USER_MISSIONS_TAIL, { PAGE_TAIL });
    pub const USER_MISSIONS_SINCE_IN_SCOPE: PerBackend = per_backend!(
        { PAGE_HEAD },
        USER_MISSIONS_IN_SCOPE_HEAD,
        USER_MISSIONS_LOWER_BOUND,
        " AND ",
        ["m.company_id" in 8],
        USER_MISSIONS_TAIL,
        { PAGE_TAIL }
    );
    /// The user's activities that were not cancelled.
    pub const USER_ACTIVITIES: &str = const_format::concatcp!(USER_ACTIVITIES_HEAD, USER_ACTIVITIES_TAIL);
    pub const USER_ACTIVITIES_IN_SCOPE: PerBackend =
        per_backend!(USER_ACTIVITIES_HEAD, " AND ", ["m.company_id" in 8], USER_ACTIVITIES_TAIL);
    /// The page of the company's missions.
    pub const COMPANY_MISSIONS: PerBackend =
        per_backend!({ PAGE_HEAD }, COMPANY_MISSIONS_HEAD, COMPANY_MISSIONS_TAIL, { PAGE_TAIL });
    /// Only the ended ones: a mission is ended when it has activities and every worker in it
    /// ended it.
    pub const COMPANY_ENDED_MISSIONS: PerBackend = per_backend!(
        { PAGE_HEAD },
        COMPANY_MISSIONS_HEAD,
        " AND EXISTS (SELECT 1 FROM activities x WHERE x.mission_id = m.id AND x.dismissed_at IS NULL) \
          AND NOT EXISTS (SELECT 1 FROM activities x WHERE x.mission_id = m.id AND x.dismissed_at IS NULL \
                          AND NOT EXISTS (SELECT 1 FROM mission_ends e WHERE e.mission_id = m.id AND e.user_id = x.user_id))",
        COMPANY_MISSIONS_TAIL,
        { PAGE_TAIL }
    );
}
