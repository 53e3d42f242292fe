-- A mail is claimed with a lease (who, until when) and marked sent only after the relay took it:
-- a sender that dies between claim and send leaves a lease that expires, and the mail is retried.
ALTER TABLE emails ADD COLUMN claimed_by TEXT;
ALTER TABLE emails ADD COLUMN claimed_until BIGINT;
