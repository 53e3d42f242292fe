-- Activity disputes (reference §6): a worker contests an activity an admin validated, within 15
-- days. The dispute is the reference's JSON object {text, submitter_id, time, status[,
-- cancelled_at]}, stored as text. Kept in lock-step with ../sqlite/0031_activity_disputes.sql.

ALTER TABLE activities ADD COLUMN dispute TEXT;
