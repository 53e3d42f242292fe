-- The expenditures of a list of missions (a page's `expenditures`, the work days' meals): no
-- index began with the mission, so each such read scanned every expenditure of every company
-- (2.8 ms on PostgreSQL for a page of 30 missions among 6,000 expenditures, and growing with
-- them). Found by the benchmark's month case; tests/api/plans.rs now checks that every read by
-- a list of ids goes through an index.
-- Kept in lock-step with ../postgres/0054_expenditures_mission.sql.
CREATE INDEX expenditures_mission ON expenditures (mission_id);
