-- The month summaries kept per company (were per worker: `regulatory_alert_month_summaries`,
-- 0051): a company's recap reads its workers' summaries of two months as one range of its key,
-- where it probed the key once per worker (a 233-worker company: 233 index descents and 400
-- scattered rows, 0.49 ms of PostgreSQL's 0.9 ms per recap; read as one range, 0.09 ms). Kept in
-- lock-step with ../sqlite/0052_company_alert_month_summaries.sql.
--
-- `summary`: the row's worker and month, then the month's items (their format is in 0051), all
-- separated by spaces: `user_id month items`. The recap reads the one column: three lists (the
-- workers, the months, the items) cost PostgreSQL 0.07 ms more per recap of 400 rows.
--
-- A worker's summaries are the same in every company: a row for each company in
-- which the worker has an employment that was not rejected, whatever its dates (the recap keeps
-- only its current workers' rows). Written only by `domain::alerts::store`, under the worker's
-- lock: the months a computation touches are summarised again for each such company, and a
-- company the worker joins gets all of them from the alerts.
CREATE TABLE company_alert_month_summaries (
    company_id BIGINT NOT NULL REFERENCES companies (id),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    -- `YYYY-MM` of the alerts' day (the Monday, for weekly checks).
    month TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id),
    summary TEXT NOT NULL CHECK (summary <> ''),
    PRIMARY KEY (company_id, submitter_type, month, user_id)
);

-- A worker's rows in every company, for the months summarised again.
CREATE INDEX company_alert_month_summaries_user ON company_alert_month_summaries (user_id, submitter_type, month);

INSERT INTO company_alert_month_summaries (company_id, submitter_type, month, user_id, summary)
SELECT e.company_id, m.submitter_type, m.month, m.user_id,
    CAST(m.user_id AS TEXT) || ' ' || m.month || ' ' || m.summary
FROM regulatory_alert_month_summaries m
JOIN (SELECT DISTINCT company_id, user_id FROM employments
      WHERE user_id IS NOT NULL AND validation_status <> 'rejected') e ON e.user_id = m.user_id;

DROP TABLE regulatory_alert_month_summaries;
