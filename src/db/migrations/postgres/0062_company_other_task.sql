-- The reference's last two company settings (CompanySettings.allowOtherTask, otherTaskLabel),
-- changed by an admin through editCompanySettings. allow_other_task may be NULL: the reference
-- sets it when a company is created from its business (false for SHIPPING, true for any other)
-- and leaves it null for a company created without one, which is how every Roadlog company is
-- created; the companies that exist already get what the reference back-filled its own with
-- (true, and an empty label). The label's bound (24 characters) is checked by the domain, with a
-- clear error, where the reference's varchar(24) made the database refuse it.
-- Kept in lock-step with ../sqlite/0062_company_other_task.sql.
ALTER TABLE companies ADD COLUMN allow_other_task BIGINT CHECK (allow_other_task IN (0, 1));
ALTER TABLE companies ADD COLUMN other_task_label TEXT DEFAULT '';
UPDATE companies SET allow_other_task = 1;
