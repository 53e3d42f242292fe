-- A worker's page of missions walks mission_spans_user_start backwards and stops after the
-- page. Its statement was planned afresh for its values at every run (an unnamed statement:
-- a parse, a plan and one more round trip, 0.5 ms of the server's time a page), because the
-- plan PostgreSQL keeps for a prepared statement (a generic plan, made without the values)
-- estimates a user's missions from the average, a dozen, and chose to read all of a
-- 5,000-mission history and sort it. With the span's end in the index (the statement filters
-- on it), the walk needs no table row at all, and the generic plan is that walk: cheaper in
-- the planner's eyes than any read and sort, whatever the user's count. The statement is now
-- prepared once per connection (tests/api/plans.rs checks its generic plan).
-- Kept in lock-step with ../sqlite/0055_mission_spans_cover_end.sql.
DROP INDEX mission_spans_user_start;
CREATE INDEX mission_spans_user_start ON mission_spans (user_id, start_time, mission_id) INCLUDE (end_time);
-- The walk reads no table row only where the table's pages are marked all-visible, which
-- vacuum does. Every write widens a span (an update), so by default a busy table waited for
-- a fifth of its rows to change between vacuums; a plan made meanwhile would count a table
-- read per row and could fall back to reading and sorting. Vacuumed after 2 % instead (and
-- after 2 % of new rows), it stays mostly all-visible.
ALTER TABLE mission_spans SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02);
-- Gathered now rather than at autovacuum's next analysis of the table.
ANALYZE mission_spans;
