-- The recap's month rows keyed in the order the recap groups them: company, side, month, then the
-- kind (check and flags), the worker last. A recap adds up a month's rows per kind; in this order
-- they come out of the key already grouped, where the worker-first order made every recap sort
-- them (bench/README.md, "The regulatory alerts recap"). Kept in lock-step with
-- ../sqlite/0061_company_alert_months_by_kind.sql.
ALTER TABLE company_alert_months
    DROP CONSTRAINT company_alert_months_pkey,
    ADD CONSTRAINT company_alert_months_pkey PRIMARY KEY (company_id, submitter_type, month, check_type,
        night_work, not_enough_break, too_much_uninterrupted_work_time, user_id);
