-- A worker's span grows with nearly every activity they log (its end moves), so a span row is
-- updated once per write. With the end in mission_spans_user_start (0055), every such update
-- changed an indexed column: PostgreSQL wrote a new row version and a new entry in each of the
-- table's indexes, and left the old ones to vacuum. Until a vacuum pass, the dead versions piled
-- up (50,000 writes of 32 workers left 50,000 dead rows beside 5,032 live ones), the table's
-- pages multiplied, and the generic plan of the other workers' pages, costed on those pages,
-- turned from the index walk to reading and sorting all of a worker's spans.
-- Without the end in any index, moving it is a heap-only update: the new version goes to the
-- same page, no index changes, and the page drops the dead versions itself the next time it
-- fills, without vacuum. The pages' statements read the end only for the one span that can begin
-- before a window's start (domain/missions/queries.rs); the walk still reads the index alone.
-- Only a span whose start moves (an activity logged before the first) gets new index entries.
-- Kept in lock-step with ../sqlite/0058_mission_spans_heap_only.sql.
DROP INDEX mission_spans_user_start;
CREATE INDEX mission_spans_user_start ON mission_spans (user_id, start_time, mission_id);
-- Room on each page for the new versions of its rows (heap-only updates need it on the same
-- page); new pages are filled to 80 %.
ALTER TABLE mission_spans SET (fillfactor = 80);
ANALYZE mission_spans;
