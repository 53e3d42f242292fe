-- Missions, activities, expenditures and what hangs off missions. Kept in lock-step with
-- ../postgres/0004_missions.sql. Times are Unix seconds; activity times are whole minutes.
-- Rules that span rows (activities of one worker never overlap, missions never interleave) are
-- checked in transactions serialised on the worker's user row; single-row rules are CHECKs and
-- unique indexes here.

-- Vehicles of a company; registration numbers are stored normalised (upper case, no spaces or
-- dashes) so that "ab-123-cd" and "AB 123 CD" are one vehicle.
CREATE TABLE vehicles (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    registration_number TEXT NOT NULL,
    alias TEXT,
    creation_time BIGINT NOT NULL,
    terminated_at BIGINT,
    last_kilometer_reading BIGINT,
    UNIQUE (company_id, registration_number)
);

CREATE TABLE missions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    submitter_id INTEGER NOT NULL REFERENCES users (id),
    reception_time BIGINT NOT NULL,
    creation_time BIGINT NOT NULL,
    context TEXT,
    vehicle_id INTEGER REFERENCES vehicles (id),
    past_registration_justification TEXT
);
CREATE INDEX missions_company ON missions (company_id);

CREATE TABLE activities (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mission_id INTEGER NOT NULL REFERENCES missions (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    submitter_id INTEGER NOT NULL REFERENCES users (id),
    type TEXT NOT NULL CHECK (type IN ('drive', 'work', 'support', 'transfer', 'off')),
    reception_time BIGINT NOT NULL,
    creation_time BIGINT NOT NULL,
    start_time BIGINT NOT NULL CHECK (start_time % 60 = 0),
    end_time BIGINT CHECK (end_time IS NULL OR (end_time > start_time AND end_time % 60 = 0)),
    last_update_time BIGINT NOT NULL,
    last_submitter_id INTEGER REFERENCES users (id),
    dismissed_at BIGINT,
    dismiss_author_id INTEGER REFERENCES users (id),
    dismiss_context TEXT,
    CHECK ((dismissed_at IS NULL) = (dismiss_author_id IS NULL)),
    -- Nothing may be recorded more than 5 minutes ahead of the moment it was received.
    CHECK (start_time <= last_update_time + 300),
    CHECK (end_time IS NULL OR end_time <= last_update_time + 300)
);
CREATE INDEX activities_user_time ON activities (user_id, start_time);
CREATE INDEX activities_mission ON activities (mission_id);

-- The history of an activity: version 1 at creation, one more per change of its times.
CREATE TABLE activity_versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id INTEGER NOT NULL REFERENCES activities (id),
    version_number BIGINT NOT NULL,
    reception_time BIGINT NOT NULL,
    creation_time BIGINT NOT NULL,
    start_time BIGINT NOT NULL,
    end_time BIGINT CHECK (end_time IS NULL OR end_time > start_time),
    context TEXT,
    submitter_id INTEGER NOT NULL REFERENCES users (id),
    UNIQUE (activity_id, version_number)
);

-- A worker ended a mission (at most once, until a new open activity reopens it).
CREATE TABLE mission_ends (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mission_id INTEGER NOT NULL REFERENCES missions (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    submitter_id INTEGER REFERENCES users (id),
    reception_time BIGINT NOT NULL,
    end_time BIGINT NOT NULL,
    UNIQUE (mission_id, user_id)
);

CREATE TABLE mission_validations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mission_id INTEGER NOT NULL REFERENCES missions (id),
    submitter_id INTEGER REFERENCES users (id),
    user_id INTEGER REFERENCES users (id),
    is_admin BIGINT NOT NULL CHECK (is_admin IN (0, 1)),
    is_auto BIGINT NOT NULL DEFAULT 0 CHECK (is_auto IN (0, 1)),
    justification TEXT CHECK (justification IS NULL OR justification IN ('personal', 'professional', 'time_off')),
    context TEXT,
    reception_time BIGINT NOT NULL,
    creation_time BIGINT NOT NULL,
    -- A worker validates only for themselves.
    CHECK (is_admin = 1 OR (user_id IS NOT NULL AND user_id = submitter_id))
);
CREATE INDEX mission_validations_mission ON mission_validations (mission_id);

CREATE TABLE expenditures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mission_id INTEGER NOT NULL REFERENCES missions (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    submitter_id INTEGER NOT NULL REFERENCES users (id),
    type TEXT NOT NULL CHECK (type IN ('day_meal', 'night_meal', 'sleep_over', 'snack')),
    spending_date TEXT NOT NULL,
    reception_time BIGINT NOT NULL,
    creation_time BIGINT NOT NULL,
    dismissed_at BIGINT,
    dismiss_author_id INTEGER REFERENCES users (id),
    CHECK ((dismissed_at IS NULL) = (dismiss_author_id IS NULL))
);
-- One expenditure of a type per worker, mission and day, among those not cancelled.
CREATE UNIQUE INDEX no_duplicate_expenditures ON expenditures (user_id, mission_id, spending_date, type)
    WHERE dismissed_at IS NULL;

CREATE TABLE comments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mission_id INTEGER NOT NULL REFERENCES missions (id),
    submitter_id INTEGER NOT NULL REFERENCES users (id),
    text TEXT NOT NULL,
    reception_time BIGINT NOT NULL,
    dismissed_at BIGINT,
    dismiss_author_id INTEGER REFERENCES users (id)
);
CREATE INDEX comments_mission ON comments (mission_id);

-- Where a mission started and ended (one entry per end), with the odometer reading.
CREATE TABLE location_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mission_id INTEGER NOT NULL REFERENCES missions (id),
    type TEXT NOT NULL CHECK (type IN ('mission_start_location', 'mission_end_location')),
    submitter_id INTEGER NOT NULL REFERENCES users (id),
    reception_time BIGINT NOT NULL,
    creation_time BIGINT NOT NULL,
    name TEXT NOT NULL,
    city TEXT,
    postal_code TEXT,
    kilometer_reading BIGINT CHECK (kilometer_reading IS NULL OR kilometer_reading >= 0),
    UNIQUE (mission_id, type)
);
