-- The company whose action sent a mail to an address the company typed (an invitation), so
-- that the sandbox outbox shows a company admin only that company's mail. Mail to an account's
-- own address (notifications) belongs to no company here: its recipient is the user's, not
-- something the company typed.
ALTER TABLE emails ADD COLUMN company_id BIGINT;
CREATE INDEX emails_company ON emails (company_id, id);
