-- The recap's month rows keyed in the order the recap groups them: company, side, month, then the
-- kind (check and flags), the worker last. A recap adds up a month's rows per kind; in this order
-- they come out of the key already grouped, where the worker-first order made every recap sort
-- them (bench/README.md, "The regulatory alerts recap"). Kept in lock-step with
-- ../postgres/0061_company_alert_months_by_kind.sql.
CREATE TABLE company_alert_months_by_kind (
    company_id BIGINT NOT NULL REFERENCES companies (id),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    month TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id),
    check_type TEXT NOT NULL,
    night_work BIGINT NOT NULL CHECK (night_work IN (0, 1)),
    not_enough_break BIGINT NOT NULL CHECK (not_enough_break IN (0, 1)),
    too_much_uninterrupted_work_time BIGINT NOT NULL CHECK (too_much_uninterrupted_work_time IN (0, 1)),
    alerts BIGINT NOT NULL CHECK (alerts > 0),
    days BIGINT NOT NULL CHECK (days > 0),
    PRIMARY KEY (company_id, submitter_type, month, check_type, night_work, not_enough_break,
        too_much_uninterrupted_work_time, user_id)
) WITHOUT ROWID;

INSERT INTO company_alert_months_by_kind (company_id, submitter_type, month, user_id, check_type, night_work,
    not_enough_break, too_much_uninterrupted_work_time, alerts, days)
SELECT company_id, submitter_type, month, user_id, check_type, night_work, not_enough_break,
    too_much_uninterrupted_work_time, alerts, days
FROM company_alert_months;

DROP TABLE company_alert_months;
ALTER TABLE company_alert_months_by_kind RENAME TO company_alert_months;

-- A worker's rows in every company, for the months summarised again.
CREATE INDEX company_alert_months_user ON company_alert_months (user_id, submitter_type, month);
