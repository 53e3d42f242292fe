-- The recap's month summaries as plain rows: one per company, side, month, worker, check and
-- flags, holding how many of the month's days the worker was alerted on and which (`days`, a bit
-- set: bit d-1 for day d). They replace the texts of `company_alert_month_summaries` (0052) and
-- their 16 buckets per company and month (`company_alert_month_buckets`, 0053), which the service
-- parsed back. Kept in lock-step with ../postgres/0059_company_alert_months.sql.
--
-- A worker's rows are the same in every company: a copy for each company in which the worker has
-- an employment that was not rejected, whatever its dates (the recap keeps its current workers'
-- rows). Written only by `domain::alerts::store`, under the worker's lock: the months a
-- computation touches are summarised again for each such company, and a company the worker joins
-- gets all of them from the alerts. A row belongs to one worker, so transactions that write rows
-- of different workers never write the same rows.
CREATE TABLE company_alert_months (
    company_id BIGINT NOT NULL REFERENCES companies (id),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    -- `YYYY-MM` of the alerts' day (the Monday, for weekly checks).
    month TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id),
    check_type TEXT NOT NULL,
    night_work BIGINT NOT NULL CHECK (night_work IN (0, 1)),
    not_enough_break BIGINT NOT NULL CHECK (not_enough_break IN (0, 1)),
    too_much_uninterrupted_work_time BIGINT NOT NULL CHECK (too_much_uninterrupted_work_time IN (0, 1)),
    -- How many alerts: the number of bits set in `days`.
    alerts BIGINT NOT NULL CHECK (alerts > 0),
    days BIGINT NOT NULL CHECK (days > 0),
    PRIMARY KEY (company_id, submitter_type, month, user_id, check_type, night_work, not_enough_break,
        too_much_uninterrupted_work_time)
-- Rows stored in their key's order: a company's month is one run of rows.
) WITHOUT ROWID;

-- A worker's rows in every company, for the months summarised again.
CREATE INDEX company_alert_months_user ON company_alert_months (user_id, submitter_type, month);

-- Summarised again from the alerts, which the texts summarised. A worker has at most one alert
-- per day, check and side (a constraint of `regulatory_alerts`), so the sum of the days' bits is
-- their union.
INSERT INTO company_alert_months (company_id, submitter_type, month, user_id, check_type, night_work,
    not_enough_break, too_much_uninterrupted_work_time, alerts, days)
SELECT e.company_id, g.submitter_type, g.month, g.user_id, g.check_type, g.night_work, g.not_enough_break,
    g.too_much_uninterrupted_work_time, g.alerts, g.days
FROM (SELECT user_id, submitter_type, substr(day, 1, 7) AS month, check_type, night_work, not_enough_break,
          too_much_uninterrupted_work_time, COUNT(*) AS alerts,
          SUM(CAST(1 AS BIGINT) << (CAST(substr(day, 9, 2) AS INTEGER) - 1)) AS days
      FROM regulatory_alerts
      GROUP BY user_id, submitter_type, substr(day, 1, 7), check_type, night_work, not_enough_break,
          too_much_uninterrupted_work_time) g
JOIN (SELECT DISTINCT company_id, user_id FROM employments
      WHERE user_id IS NOT NULL AND validation_status <> 'rejected') e ON e.user_id = g.user_id;

DROP TABLE company_alert_month_buckets;
DROP TABLE company_alert_month_summaries;
