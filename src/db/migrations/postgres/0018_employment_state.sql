-- State fields of the reference's employments and companies (issue 14). Kept in lock-step with
-- ../sqlite/0018_employment_state.sql.

-- The employee hides their e-mail from the company (employments.updateHideEmail).
ALTER TABLE employments ADD COLUMN hide_email BIGINT NOT NULL DEFAULT 0 CHECK (hide_email IN (0, 1));
-- When the latest invitation e-mail of the employment was queued (Employment.latestInviteEmailTime).
ALTER TABLE employments ADD COLUMN latest_invite_email_time BIGINT;
-- The number of workers the company declares (updateCompanyDetails(newNbWorkers)).
ALTER TABLE companies ADD COLUMN number_workers BIGINT CHECK (number_workers IS NULL OR number_workers > 0);
