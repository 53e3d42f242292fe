-- A recomputation compares each computed alert with the stored one and writes only the
-- difference. It read every stored alert's `extra` and explanation texts to compare them
-- (about 2 KB each: 30 MB for a 233-worker company's month); it now compares a digest of
-- every stored field (`domain::alerts::store`, SHA-256, 128 bits in hex), kept in the index
-- the comparison reads, so an index-only scan answers it (the id included).
-- Alerts stored before have none: the first recomputation of their days writes them again
-- (same content, a new id and creation time), as a change would.
-- Kept in lock-step with ../sqlite/0048_alert_digests.sql.
ALTER TABLE regulatory_alerts ADD COLUMN digest TEXT;

DROP INDEX regulatory_alerts_recap;
CREATE INDEX regulatory_alerts_recap ON regulatory_alerts (user_id, submitter_type, day)
    INCLUDE (id, check_type, unit, night_work, not_enough_break, too_much_uninterrupted_work_time, digest);
