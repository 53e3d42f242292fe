-- A mission's activities by type: whether a mission holds any activity and whether it holds an
-- `off` one (the holiday rules, checked by every logActivity) become two index probes. They
-- counted every activity of the mission, so a write cost grew with the mission's size (1.27 ms
-- per write in a mission of 5,951 activities, 8 µs in one of a few). The new index starts with
-- `mission_id`, so it serves every lookup of the old one, which it replaces.
-- Kept in lock-step with ../postgres/0049_activities_mission_type.sql.
CREATE INDEX activities_mission_type ON activities (mission_id, type);
DROP INDEX activities_mission;
