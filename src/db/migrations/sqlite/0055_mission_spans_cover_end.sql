-- A worker's page of missions walks mission_spans_user_start backwards and filters on the
-- span's end: with the end in the index, the walk reads no table row (a covering index).
-- Kept in lock-step with ../postgres/0055_mission_spans_cover_end.sql (whose reason is
-- PostgreSQL's plan of the prepared statement).
DROP INDEX mission_spans_user_start;
CREATE INDEX mission_spans_user_start ON mission_spans (user_id, start_time, mission_id, end_time);
