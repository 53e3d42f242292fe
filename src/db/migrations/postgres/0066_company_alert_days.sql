-- A company's admin alerts counted per day, check and flags: how many of the workers who keep
-- their month rows in the company (`company_alert_months`) were alerted that day. A recap of all
-- the company's current workers reads these few rows (a month has at most 31 per kind) where it
-- would read one row per worker and kind, and subtracts the rows of the workers who are not
-- current. Written only by `domain::alerts::store`: each transaction that changes month rows adds
-- the differences once, in key order, so that two transactions never wait on each other's rows in
-- opposite orders. Kept in lock-step with ../sqlite/0066_company_alert_days.sql.
CREATE TABLE company_alert_days (
    company_id BIGINT NOT NULL REFERENCES companies (id),
    -- `YYYY-MM-DD` of the alerts (the Monday, for weekly checks).
    day TEXT NOT NULL,
    check_type TEXT NOT NULL,
    night_work BIGINT NOT NULL CHECK (night_work IN (0, 1)),
    not_enough_break BIGINT NOT NULL CHECK (not_enough_break IN (0, 1)),
    too_much_uninterrupted_work_time BIGINT NOT NULL CHECK (too_much_uninterrupted_work_time IN (0, 1)),
    -- How many workers were alerted (a worker has at most one alert per day, check and side); a
    -- row that falls to 0 stays, so that a day alerted again is an update. No `CHECK (workers >=
    -- 0)`: the differences are added by an upsert, and both databases check a `CHECK` on the row
    -- proposed for insertion (the difference, which may be negative) before the conflict.
    workers BIGINT NOT NULL,
    PRIMARY KEY (company_id, day, check_type, night_work, not_enough_break, too_much_uninterrupted_work_time)
);

-- Counted from the month rows' day sets (bit d-1: day d).
INSERT INTO company_alert_days (company_id, day, check_type, night_work, not_enough_break,
    too_much_uninterrupted_work_time, workers)
SELECT m.company_id, m.month || '-' || lpad(CAST(n.d AS TEXT), 2, '0'), m.check_type, m.night_work,
    m.not_enough_break, m.too_much_uninterrupted_work_time, COUNT(*)
FROM company_alert_months m JOIN generate_series(1, 31) AS n(d) ON (m.days >> (n.d - 1)) & 1 = 1
WHERE m.submitter_type = 'admin'
GROUP BY m.company_id, m.month, n.d, m.check_type, m.night_work, m.not_enough_break, m.too_much_uninterrupted_work_time;
