-- An employee's request to be detached from a company (employments.requestDetachment,
-- Employment.detachmentRequest): when it was first made and when the admins were last written
-- to. terminateEmployment keeps them; reattachEmployment cancelling a termination of the same day
-- clears them. Kept in lock-step with ../sqlite/0065_detachment_request.sql.
ALTER TABLE employments ADD COLUMN detachment_requested_at BIGINT;
ALTER TABLE employments ADD COLUMN detachment_last_sent_at BIGINT;
