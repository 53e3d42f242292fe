-- Regulation (issue 15): businesses, which set the thresholds of the checks, and the results of
-- the checks as the reference stores them. Kept in lock-step with ../postgres/0014_regulation.sql.

-- The reference's businesses: a transport type and a business type (its French values), with
-- fixed ids (domain/regulation/business.rs).
CREATE TABLE businesses (
    id BIGINT PRIMARY KEY,
    transport_type TEXT NOT NULL CHECK (transport_type IN ('Marchandises', 'Voyageurs')),
    business_type TEXT NOT NULL UNIQUE
);
INSERT INTO businesses (id, transport_type, business_type) VALUES
    (1, 'Marchandises', 'Longue distance'),
    (2, 'Marchandises', 'Courte distance'),
    (3, 'Marchandises', 'Messagerie, Fonds et valeur'),
    (4, 'Voyageurs', 'Lignes régulières'),
    (5, 'Voyageurs', 'Occasionnels'),
    (6, 'Voyageurs', 'Taxi général'),
    (7, 'Voyageurs', 'Taxi conventionné'),
    (8, 'Voyageurs', 'VTC'),
    (9, 'Voyageurs', 'LOTI');

-- A company's business (NULL: none chosen) is copied to the employments created afterwards; the
-- checks use the business of the worker's current employment, else SHIPPING.
ALTER TABLE companies ADD COLUMN business_id BIGINT REFERENCES businesses (id);
ALTER TABLE employments ADD COLUMN business_id BIGINT REFERENCES businesses (id);
-- Opt-in EU driving-time checks (Regulation (EC) No 561/2006) on drive activities (Roadlog
-- extension).
ALTER TABLE companies ADD COLUMN eu_driving_checks BIGINT NOT NULL DEFAULT 0 CHECK (eu_driving_checks IN (0, 1));

-- "This day (or the week of this Monday) was computed" for a worker and a submitter type; the
-- row keeps its first creation time.
CREATE TABLE regulation_computations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    creation_time BIGINT NOT NULL,
    day TEXT NOT NULL,
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    user_id BIGINT NOT NULL REFERENCES users (id),
    CONSTRAINT only_one_entry_per_user_day_and_submitter_type UNIQUE (day, user_id, submitter_type)
);
CREATE INDEX regulation_computations_user ON regulation_computations (user_id, submitter_type, day);

-- A failed check: its day (the Monday for weekly checks), the reference's extra as its clients
-- read it (a JSON string), Roadlog's explanation (JSON), and the flags the recap counts by.
CREATE TABLE regulatory_alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    creation_time BIGINT NOT NULL,
    day TEXT NOT NULL,
    check_type TEXT NOT NULL,
    unit TEXT NOT NULL CHECK (unit IN ('day', 'week')),
    submitter_type TEXT NOT NULL CHECK (submitter_type IN ('employee', 'admin')),
    user_id BIGINT NOT NULL REFERENCES users (id),
    business_id BIGINT NOT NULL REFERENCES businesses (id),
    extra TEXT NOT NULL,
    explanation TEXT NOT NULL,
    night_work BIGINT NOT NULL DEFAULT 0 CHECK (night_work IN (0, 1)),
    not_enough_break BIGINT NOT NULL DEFAULT 0 CHECK (not_enough_break IN (0, 1)),
    too_much_uninterrupted_work_time BIGINT NOT NULL DEFAULT 0 CHECK (too_much_uninterrupted_work_time IN (0, 1)),
    CONSTRAINT only_one_entry_per_user_day_check_and_submitter_type UNIQUE (day, user_id, check_type, submitter_type)
);
CREATE INDEX regulatory_alerts_user ON regulatory_alerts (user_id, submitter_type, day);
