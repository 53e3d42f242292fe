-- Signing keys of the C1B export. Kept in lock-step with ../sqlite/0005_tachograph_keys.sql.
-- A self-issued, clearly non-official chain: one root and one member-state-level CA key per
-- environment, created on first use, and one card key per employee, created once and reused so
-- that the same employee's files carry the same card certificate.
CREATE TABLE tachograph_keys (
    kind TEXT PRIMARY KEY CHECK (kind IN ('root', 'ca')),
    key_bytes BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE tachograph_card_keys (
    user_id BIGINT PRIMARY KEY REFERENCES users (id),
    key_bytes BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
