-- Each worker's span in each mission: the first start and the last end of their activities
-- that were not cancelled (an open activity ends at OPEN, the largest BIGINT), and each
-- mission's span over all its workers. The activity writes keep them (domain/activities/spans.rs)
-- in the transaction that changes the activities. A worker's missions page, the company's and
-- the interleaving rule read them through an index instead of grouping a whole history: their
-- cost follows the page, not the stored data.
CREATE TABLE mission_spans (
    user_id BIGINT NOT NULL REFERENCES users (id),
    mission_id BIGINT NOT NULL REFERENCES missions (id),
    start_time BIGINT NOT NULL,
    end_time BIGINT NOT NULL,
    PRIMARY KEY (user_id, mission_id),
    CHECK (end_time > start_time)
);
CREATE INDEX mission_spans_user_start ON mission_spans (user_id, start_time, mission_id);
CREATE INDEX mission_spans_mission ON mission_spans (mission_id);

INSERT INTO mission_spans (user_id, mission_id, start_time, end_time)
SELECT user_id, mission_id, MIN(start_time), MAX(COALESCE(end_time, 9223372036854775807))
FROM activities WHERE dismissed_at IS NULL
GROUP BY user_id, mission_id;

-- NULL while the mission has no activity: it is then listed at its reception time.
ALTER TABLE missions ADD COLUMN start_time BIGINT;
ALTER TABLE missions ADD COLUMN end_time BIGINT;
UPDATE missions SET
    start_time = (SELECT MIN(s.start_time) FROM mission_spans s WHERE s.mission_id = missions.id),
    end_time = (SELECT MAX(s.end_time) FROM mission_spans s WHERE s.mission_id = missions.id);
CREATE INDEX missions_company_start ON missions (company_id, COALESCE(start_time, reception_time), id);
