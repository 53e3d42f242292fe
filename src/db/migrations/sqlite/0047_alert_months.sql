-- The company recap (`regulatoryAlertsRecap`) counts a month of admin alerts of a company's
-- workers by day, check and flags. Read from `regulatory_alerts`, that is a row per worker and
-- alerted day (7,400 rows for a 233-worker company's month: 23 ms on SQLite); this summary holds
-- a row per worker, side, month, check and flags, with the month's alerted days as a bit set
-- (bit d-1: day d), so the recap reads a few rows per worker. Kept in lock-step with
-- ../postgres/0047_alert_months.sql.
--
-- Written only from `regulatory_alerts`, in the transaction that changes them
-- (`domain::alerts::store`): the months a computation touched are summarised again.
CREATE TABLE regulatory_alert_months (
    user_id BIGINT NOT NULL REFERENCES users (id),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    -- `YYYY-MM` of the alerts' day (the Monday, for weekly checks).
    month TEXT NOT NULL,
    check_type TEXT NOT NULL,
    night_work BIGINT NOT NULL CHECK (night_work IN (0, 1)),
    not_enough_break BIGINT NOT NULL CHECK (not_enough_break IN (0, 1)),
    too_much_uninterrupted_work_time BIGINT NOT NULL CHECK (too_much_uninterrupted_work_time IN (0, 1)),
    -- How many alerts, i.e. how many bits of `days` are set.
    alerts BIGINT NOT NULL CHECK (alerts > 0),
    days BIGINT NOT NULL,
    PRIMARY KEY (user_id, submitter_type, month, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time)
-- Rows stored in their key's order: a worker's months are read without a second lookup.
) WITHOUT ROWID;

-- A worker has at most one alert per day, check and side (a constraint of `regulatory_alerts`),
-- so the sum of the days' bits is their union.
INSERT INTO regulatory_alert_months (user_id, submitter_type, month, check_type, night_work, not_enough_break,
    too_much_uninterrupted_work_time, alerts, days)
SELECT user_id, submitter_type, substr(day, 1, 7), check_type, night_work, not_enough_break,
    too_much_uninterrupted_work_time, COUNT(*), SUM(CAST(1 AS BIGINT) << (CAST(substr(day, 9, 2) AS BIGINT) - 1))
FROM regulatory_alerts
GROUP BY user_id, submitter_type, substr(day, 1, 7), check_type, night_work, not_enough_break, too_much_uninterrupted_work_time;

-- The recap's day details (one line per worker and alerted day) read each alert's day, check
-- and flags only: an index holding them answers without reading the alert rows, which carry
-- the explanation and `extra` texts (about 2 KB each). It starts with the columns of the index
-- it replaces, so every lookup by worker, side and day keeps its index.
CREATE INDEX regulatory_alerts_recap ON regulatory_alerts
    (user_id, submitter_type, day, check_type, unit, night_work, not_enough_break, too_much_uninterrupted_work_time);
DROP INDEX regulatory_alerts_user;
