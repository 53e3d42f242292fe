//! The recap's statements: its head (permission, workers, settings, the previous month's total)
//! and its lines, each reading the company's current workers itself (`w`); for all the company's
//! current workers without day details, head and lines in one statement.

use const_format::concatcp;

use crate::db::PerBackend;
use crate::db::sql::Fragment;
use crate::domain::companies::permissions::sql::admin_on;

/// "employment `$alias` is current on `$2` (today)": approved, not dismissed, covering the day.
macro_rules! current {
    ($alias:literal) => {
        ::const_format::concatcp!(
            $alias,
            ".validation_status = 'approved' AND ",
            $alias,
            ".dismissed_at IS NULL AND ",
            $alias,
            ".start_date <= $2 AND (",
            $alias,
            ".end_date IS NULL OR ",
            $alias,
            ".end_date >= $2)"
        )
    };
}

/// [`current!`] of the employments `e` and `c`.
const CURRENT_E: &str = current!("e");
const CURRENT_C: &str = current!("c");

/// Opens a statement with `w`: the company's (`$1`) workers on `$2` (today), a current
/// employment, only those of the JSON list `$3` when it is not null. A worker with two such
/// employments is in it twice: the statements only ask whether a worker is in it.
pub const WORKERS: Fragment = crate::per_backend!(
    "WITH w AS (SELECT e.user_id FROM employments e WHERE e.company_id = $1 AND e.user_id IS NOT NULL AND ",
    CURRENT_E,
    " AND (CAST($3 AS TEXT) IS NULL OR ",
    ["e.user_id" in 3],
    ")) "
);

/// "is one of the workers `w`", after a column. On PostgreSQL an array, so that a table indexed
/// by worker is read by one index lookup per worker (an `IN (SELECT …)` is planned as a join
/// over a scan of the whole table).
pub const IN_WORKERS: Fragment = PerBackend {
    sqlite: " IN (SELECT user_id FROM w)",
    postgres: " = ANY(ARRAY(SELECT user_id FROM w))",
};

/// The month rows' day sets (`days`) as one text, joined with commas: a few rows per month
/// where a row per worker would cost a hand-over each (bench/README.md, "The regulatory alerts
/// recap"). Read back with [`joined_integers`](crate::db::joined_integers).
const JOINED_DAYS: Fragment = PerBackend {
    sqlite: "group_concat(m.days)",
    postgres: "string_agg(CAST(m.days AS TEXT), ',')",
};

/// The company's (`$1`) month rows of the workers who are not current (`g`), read by worker
/// (`company_alert_months_user`): neither planner has the statistics to see that a few workers'
/// rows are fewer than the company's month, and both would walk the company's month by the
/// primary key (0.8 k rows a recap on the benchmark's company, even with no such worker).
/// SQLite is told the index; on PostgreSQL the workers are an array (an index lookup each) and
/// the company is compared as `company_id + 0`, which the primary key cannot serve.
const OTHERS_MONTH_ROWS: Fragment = PerBackend {
    sqlite: "company_alert_months m INDEXED BY company_alert_months_user \
             WHERE m.user_id IN (SELECT user_id FROM g) AND m.company_id = $1",
    postgres: "company_alert_months m WHERE m.user_id = ANY(ARRAY(SELECT user_id FROM g)) AND m.company_id + 0 = $1",
};

/// On SQLite, the worker index of `employments` (see [`FORMER`]).
const EMPLOYMENTS_BY_WORKER: Fragment = PerBackend {
    sqlite: "INDEXED BY employments_user ",
    postgres: "",
};

/// The company's (`$1`) workers with no current employment there on `$2` (`g`), for
/// [`COMPANY_DAYS`]: those of its employments that are not current, each looked up by worker
/// (on SQLite by the worker index, which the planner would otherwise pass over for the company's),
/// so that a company whose employments are all current reads each once.
const FORMER: Fragment = crate::per_backend!(
    "WITH g AS (SELECT DISTINCT e.user_id FROM employments e WHERE e.company_id = $1 AND e.user_id IS NOT NULL \
     AND (CASE WHEN ",
    CURRENT_E,
    " THEN 0 ELSE 1 END) = 1 AND NOT EXISTS (SELECT 1 FROM employments c ",
    { EMPLOYMENTS_BY_WORKER },
    "WHERE c.user_id = e.user_id AND c.company_id = $1 AND ",
    CURRENT_C,
    ")) "
);

/// 1 when an admin computation of a current worker of the company (`$1`) on `$2` is dated in
/// `[$5, $6)`, else 0, for [`COMPANY_DAYS`]. Both walk the company's current employments and stop
/// at the first worker with one, each worker's computations looked up by the worker index. On
/// PostgreSQL the lookup is a `LATERAL … LIMIT 1`: as a plain join, the generic plan reads the
/// period's computations of every company and matches them against the workers.
const COMPUTED: Fragment = PerBackend {
    sqlite: concatcp!(
        "CASE WHEN EXISTS (SELECT 1 FROM employments e JOIN regulation_computations r ON r.user_id = e.user_id \
         WHERE e.company_id = $1 AND ",
        CURRENT_E,
        " AND r.submitter_type = 'admin' AND r.day >= $5 AND r.day < $6) THEN 1 ELSE 0 END"
    ),
    postgres: concatcp!(
        "CASE WHEN EXISTS (SELECT 1 FROM employments e CROSS JOIN LATERAL (SELECT 1 FROM regulation_computations r \
         WHERE r.user_id = e.user_id AND r.submitter_type = 'admin' AND r.day >= $5 AND r.day < $6 LIMIT 1) x \
         WHERE e.company_id = $1 AND ",
        CURRENT_E,
        ") THEN 1 ELSE 0 END"
    ),
};

/// An employment of user `$4` in company `$1` covering `$2` (today), with admin rights.
const ADMIN_OF_ACTOR: &str = admin_on!("$1", "$2", "$4");

/// [`ADMIN_OF_ACTOR`] for [`COMPANY_DAYS`], whose user is `$8`.
const ADMIN_OF_ACTOR_8: &str = admin_on!("$1", "$2", "$8");

crate::statements! {
    /// The recap's head: a row only when user `$4` is an admin of company `$1` on `$2` (today),
    /// with how many workers it has that day ([`WORKERS`], `$3`), whether any admin computation
    /// of theirs is dated in `[$5, $6)`, the company's SIREN and whether it opted in to the EU
    /// checks, and their admin alerts of month `$7` (`YYYY-MM`; null: none) counted as the recap
    /// counts them (an `enoughBreak` alert with both halves failed counts twice).
    pub const RECAP: PerBackend = crate::per_backend!(
        {WORKERS},
        "SELECT (SELECT COUNT(*) FROM w) AS workers, \
           (SELECT COUNT(*) FROM (SELECT 1 FROM regulation_computations r WHERE r.submitter_type = 'admin' \
              AND r.day >= $5 AND r.day < $6 AND r.user_id",
        {IN_WORKERS},
        " LIMIT 1) x) AS computed, c.siren, c.eu_driving_checks, \
           (SELECT CAST(COALESCE(SUM(m.alerts * (1 + m.not_enough_break * m.too_much_uninterrupted_work_time)), 0) AS BIGINT) \
            FROM company_alert_months m WHERE m.company_id = $1 AND m.submitter_type = 'admin' AND m.month = $7 \
              AND m.user_id",
        {IN_WORKERS},
        ") AS previous_total FROM companies c WHERE c.id = $1 AND EXISTS (",
        ADMIN_OF_ACTOR,
        ")"
    );
    /// The admin month rows of the workers ([`WORKERS`]) from month `$4` to `$5` (`YYYY-MM`),
    /// grouped per month, check and flags with the workers' day sets joined ([`JOINED_DAYS`]):
    /// the recap's counts when it gives no day details.
    pub const MONTHS: PerBackend = crate::per_backend!(
        {WORKERS},
        "SELECT m.month, m.check_type, m.night_work, m.not_enough_break, m.too_much_uninterrupted_work_time, ",
        {JOINED_DAYS},
        " AS days FROM company_alert_months m WHERE m.company_id = $1 AND m.submitter_type = 'admin' \
           AND m.month >= $4 AND m.month <= $5 AND m.user_id",
        {IN_WORKERS},
        " GROUP BY m.month, m.check_type, m.night_work, m.not_enough_break, m.too_much_uninterrupted_work_time"
    );
    /// A recap of all the company's current workers without day details, in one statement: its
    /// head, the admin alerts of days `[$5, $6)` and the total of the days `[$7, $5)` (the month
    /// before, or none), as four parts (`part`): 0, the company's (`$1`) counts per day, check and
    /// flags (`company_alert_days`), the counts of every worker who keeps month rows in the
    /// company; 1, the admin month rows from month `$3` to `$4` (`YYYY-MM`) of its workers with
    /// no current employment there on `$2` ([`FORMER`]), grouped as [`MONTHS`], to be taken out;
    /// 2, one row whose `workers` is the total of the days `[$7, $5)` counted as the recap counts
    /// (an `enoughBreak` alert with both halves failed counts twice); 3, the head, only when user
    /// `$8` is an admin of the company on `$2`: whether it opted in to the EU checks, and whether
    /// any admin computation of a current worker is dated in `[$5, $6)` ([`COMPUTED`]). A company
    /// whose workers are all current reads none of its month rows.
    pub const COMPANY_DAYS: PerBackend = crate::per_backend!(
        {FORMER},
        "SELECT CAST(0 AS BIGINT) AS part, d.day AS period, d.check_type, d.night_work, d.not_enough_break, \
           d.too_much_uninterrupted_work_time, d.workers, CAST(NULL AS TEXT) AS days, \
           CAST(NULL AS BIGINT) AS eu_driving_checks, CAST(NULL AS BIGINT) AS computed FROM company_alert_days d \
         WHERE d.company_id = $1 AND d.day >= $5 AND d.day < $6 AND d.workers > 0 \
         UNION ALL \
         SELECT CAST(1 AS BIGINT), m.month, m.check_type, m.night_work, m.not_enough_break, \
           m.too_much_uninterrupted_work_time, CAST(0 AS BIGINT), ",
        {JOINED_DAYS},
        ", NULL, NULL FROM ",
        {OTHERS_MONTH_ROWS},
        " AND m.submitter_type = 'admin' AND m.month >= $3 AND m.month <= $4 \
         GROUP BY m.month, m.check_type, m.night_work, m.not_enough_break, m.too_much_uninterrupted_work_time \
         UNION ALL \
         SELECT CAST(2 AS BIGINT), '', '', CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT), \
           CAST(COALESCE(SUM(d.workers * (1 + d.not_enough_break * d.too_much_uninterrupted_work_time)), 0) AS BIGINT), \
           NULL, NULL, NULL FROM company_alert_days d WHERE d.company_id = $1 AND d.day >= $7 AND d.day < $5 \
         UNION ALL \
         SELECT CAST(3 AS BIGINT), '', '', CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT), \
           NULL, c.eu_driving_checks, CAST(",
        {COMPUTED},
        " AS BIGINT) FROM companies c WHERE c.id = $1 AND EXISTS (",
        ADMIN_OF_ACTOR_8,
        ")"
    );
    /// The admin alerts of the workers ([`WORKERS`]) dated in `[$4, $5)`, per day, check, worker
    /// and flags: the recap's lines when it gives the day details (one per worker and day).
    pub const ALERTS_BY_DAY_AND_USER: PerBackend = crate::per_backend!(
        {WORKERS},
        "SELECT a.day, a.check_type, a.user_id, a.night_work, a.not_enough_break, \
           a.too_much_uninterrupted_work_time, CAST(COUNT(*) AS BIGINT) AS alerts \
         FROM regulatory_alerts a WHERE a.submitter_type = 'admin' AND a.day >= $4 AND a.day < $5 AND a.user_id",
        {IN_WORKERS},
        " GROUP BY a.day, a.check_type, a.user_id, a.night_work, a.not_enough_break, \
           a.too_much_uninterrupted_work_time ORDER BY a.day, a.user_id"
    );
}
