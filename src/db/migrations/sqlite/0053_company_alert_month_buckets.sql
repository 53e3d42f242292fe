-- A company's month summaries also kept in 16 buckets of workers (`bucket`: `user_id % 16`),
-- each the bucket's rows of `company_alert_month_summaries` (0052) joined with `|`: the recap
-- of a company's two months reads 32 rows, not a row per worker and month (a 233-worker
-- company: 400 rows, 0.44 ms of PostgreSQL's 0.84 ms per recap; 32 bucket rows, 0.11 ms). Kept
-- in lock-step with ../postgres/0053_company_alert_month_buckets.sql.
--
-- Sixteen, not one row per company and month: a computation rewrites its worker's bucket, a
-- sixteenth of the company's month (one row would make every validation rewrite the whole
-- company's month, and serialise every computation of the company on it).
--
-- Written only by `domain::alerts::store`: the per-worker rows as before, then, once per
-- transaction and before it commits, the buckets whose rows it changed, locked in key order
-- (so that two transactions never wait on each other in a cycle) and then read again from the
-- per-worker rows. A bucket with no rows left keeps an empty text.
ALTER TABLE company_alert_month_summaries ADD COLUMN bucket INTEGER NOT NULL DEFAULT 0;
UPDATE company_alert_month_summaries SET bucket = user_id % 16;

-- A bucket's rows, read when it is written again.
CREATE INDEX company_alert_month_summaries_bucket
    ON company_alert_month_summaries (company_id, submitter_type, month, bucket);

CREATE TABLE company_alert_month_buckets (
    company_id BIGINT NOT NULL REFERENCES companies (id),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    -- `YYYY-MM`, as in company_alert_month_summaries.
    month TEXT NOT NULL,
    bucket INTEGER NOT NULL CHECK (bucket > -16 AND bucket < 16),
    -- The bucket's `summary` texts joined with `|` (in no particular order); '' when none.
    summaries TEXT NOT NULL,
    PRIMARY KEY (company_id, submitter_type, month, bucket)
) WITHOUT ROWID;

INSERT INTO company_alert_month_buckets (company_id, submitter_type, month, bucket, summaries)
SELECT company_id, submitter_type, month, bucket, group_concat(summary, '|')
FROM company_alert_month_summaries
GROUP BY company_id, submitter_type, month, bucket;
