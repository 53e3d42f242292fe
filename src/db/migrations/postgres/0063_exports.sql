-- Excel activity reports built in the background (`POST /companies/download_activity_report`).
-- Kept in lock-step with ../sqlite/0063_exports.sql.
-- A job is a row: queued as work_in_progress with the request's parameters, claimed by one
-- instance's worker under a lease (claimed_by, claimed_until), built, then ready; checkout turns
-- it downloaded (a link is handed out once); cancel turns work_in_progress or ready cancelled.
-- A job whose builder died is claimed again once its lease expired, at most a few attempts.
CREATE TABLE exports (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    export_type TEXT NOT NULL DEFAULT 'excel' CHECK (export_type IN ('excel', 'refused_cgu')),
    status TEXT NOT NULL DEFAULT 'work_in_progress'
        CHECK (status IN ('work_in_progress', 'ready', 'downloaded', 'failed', 'cancelled')),
    -- The request: JSON lists of ids, dates YYYY-MM-DD as sent (NULL: the default), and the day
    -- it was queued, from which the defaults and the split are computed.
    company_ids TEXT NOT NULL,
    user_ids TEXT NOT NULL,
    min_date TEXT,
    max_date TEXT,
    one_file_by_employee BIGINT NOT NULL CHECK (one_file_by_employee IN (0, 1)),
    as_of TEXT NOT NULL,
    file_name TEXT,
    content_type TEXT,
    file_size BIGINT,
    duration_ms BIGINT,
    failure_reason TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    claimed_by TEXT,
    claimed_until BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX exports_user_status ON exports (user_id, status);
CREATE INDEX exports_pending ON exports (status, claimed_until);

-- The built file, in the database so that every instance serves it; removed once expired
-- (seven days after it was built) by the workers.
CREATE TABLE export_files (
    export_id BIGINT PRIMARY KEY REFERENCES exports (id) ON DELETE CASCADE,
    content BYTEA NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX export_files_expiry ON export_files (expires_at);
