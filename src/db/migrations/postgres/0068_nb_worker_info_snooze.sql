-- The day an admin last put off the question of the company's number of workers
-- (snoozeNbWorkerInfo, Employment.shouldForceNbWorkerInfo), as YYYY-MM-DD like the other dates
-- of employments; NULL when never put off. Kept in lock-step with ../sqlite/0068_nb_worker_info_snooze.sql.
ALTER TABLE employments ADD COLUMN nb_worker_info_snooze_date TEXT;
