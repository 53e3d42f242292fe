-- The expenditures of a list of missions (a page's `expenditures`, the work days' meals): no
-- index began with the mission, so each such read scanned every expenditure of every company
-- (2.8 ms on PostgreSQL for a page of 30 missions among 6,000 expenditures, and growing with
-- them). Found by the benchmark's month case; tests/api/plans.rs now checks that every read by
-- a list of ids goes through an index.
-- Kept in lock-step with ../sqlite/0054_expenditures_mission.sql (the statistics below are
-- PostgreSQL's own).
CREATE INDEX expenditures_mission ON expenditures (mission_id);

-- A company's page of missions filters on the end of each mission (`COALESCE(end_time,
-- reception_time)`, the window's lower bound and "still running"), an expression PostgreSQL
-- had no statistics for: it guessed a third of the rows for each such bound, so for a company
-- holding most of the missions it expected a few dozen and chose to read all of them and sort
-- (5.6 ms for the first page of the benchmark's company of 11,000 missions) rather than walk
-- missions_company_start backwards and stop after the page (1.5 ms). With statistics of the
-- expression (PostgreSQL 14 or later), an open bound is known to keep every row. SQLite
-- walks the index whatever its estimates.
CREATE STATISTICS missions_end_sort ON (COALESCE(end_time, reception_time)) FROM missions;
-- Gathered now rather than at autovacuum's next analysis of the table, which on a database in
-- service may be long after the upgrade.
ANALYZE missions;
