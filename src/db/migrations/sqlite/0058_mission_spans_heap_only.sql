-- The span's end leaves mission_spans_user_start: PostgreSQL updates a span's end on nearly
-- every write, and with the end indexed each update left a dead row version and dead index
-- entries behind until vacuum (see ../postgres/0058_mission_spans_heap_only.sql). The pages'
-- statements read the end only for the one span that can begin before a window's start, so the
-- walk still reads the index alone. Here it also spares the index an update per write.
-- Kept in lock-step with ../postgres/0058_mission_spans_heap_only.sql.
DROP INDEX mission_spans_user_start;
CREATE INDEX mission_spans_user_start ON mission_spans (user_id, start_time, mission_id);
