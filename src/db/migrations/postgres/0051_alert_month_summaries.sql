-- The company recap's month summaries, one row per worker, side and month (was one per worker,
-- side, month, check and flags: `regulatory_alert_months`, 0047). The recap reads every current
-- worker's summaries of two months: as one text per worker and month, the database hands it
-- half the rows and no number to turn into text (a 233-worker company's recap: 400 rows, was
-- 800). Kept in lock-step with ../sqlite/0051_alert_month_summaries.sql.
--
-- `summary`: one item per check and flags of the month, joined with `;`, each
-- `check_type flags days` separated by spaces, where flags = night_work + 2 × not_enough_break
-- + 4 × too_much_uninterrupted_work_time and days is the month's alerted days as a bit set
-- (bit d-1: day d). Written only from `regulatory_alerts`, in the transaction that changes them
-- (`domain::alerts::store`): the months a computation touched are summarised again.
CREATE TABLE regulatory_alert_month_summaries (
    user_id BIGINT NOT NULL REFERENCES users (id),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    -- `YYYY-MM` of the alerts' day (the Monday, for weekly checks).
    month TEXT NOT NULL,
    summary TEXT NOT NULL CHECK (summary <> ''),
    PRIMARY KEY (user_id, submitter_type, month)
);

INSERT INTO regulatory_alert_month_summaries (user_id, submitter_type, month, summary)
SELECT user_id, submitter_type, month,
    string_agg(check_type || ' ' || CAST(night_work + 2 * not_enough_break + 4 * too_much_uninterrupted_work_time AS TEXT)
        || ' ' || CAST(days AS TEXT), ';')
FROM regulatory_alert_months
GROUP BY user_id, submitter_type, month;

DROP TABLE regulatory_alert_months;
