-- Mission auto-validation (reference §11). Kept in lock-step with
-- ../sqlite/0046_auto_validations.sql.
--
-- The queue: one row per worker, mission and queue (the worker's own, `is_admin` 0; the admins',
-- 1), waiting since `reception_time`. A job claims rows with a lease (`claimed_by`,
-- `claimed_until`), as the mail outbox does, so that several instances sharing the database
-- validate each row once, and a row whose job died is taken again when its lease expires.
CREATE TABLE mission_auto_validations (
    id BIGSERIAL PRIMARY KEY,
    mission_id BIGINT NOT NULL REFERENCES missions (id),
    user_id BIGINT NOT NULL REFERENCES users (id),
    is_admin BIGINT NOT NULL CHECK (is_admin IN (0, 1)),
    reception_time BIGINT NOT NULL,
    claimed_by TEXT,
    claimed_until BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0,
    last_error TEXT,
    UNIQUE (user_id, mission_id, is_admin)
);
CREATE INDEX mission_auto_validations_due ON mission_auto_validations (is_admin, reception_time);

-- An automatic validation has no submitter: the worker-side check now admits it.
ALTER TABLE mission_validations DROP CONSTRAINT mission_validations_check;
ALTER TABLE mission_validations ADD CONSTRAINT mission_validations_by_worker CHECK (is_admin = 1 OR (user_id IS NOT NULL AND
    (user_id = submitter_id OR (is_auto = 1 AND submitter_id IS NULL))));
ALTER TABLE mission_validations ADD CONSTRAINT mission_validations_auto_by_none
    CHECK (is_auto = 0 OR (submitter_id IS NULL AND user_id IS NOT NULL));
-- One automatic validation per worker, mission and side, whatever instance writes it.
CREATE UNIQUE INDEX mission_validations_auto_once ON mission_validations (mission_id, user_id, is_admin) WHERE is_auto = 1;
