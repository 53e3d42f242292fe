-- Card keys generated ahead of need. Kept in lock-step with ../sqlite/0040_card_key_pool.sql.
-- An RSA-1024 card key takes ~15 ms of one core to generate: a first export of 1,000 employees
-- spent most of its time there. A background task keeps this pool at its configured size
-- (`--card-key-pool`); an export takes keys from it (deleted in the taking transaction, so two
-- instances never take the same key) and generates only what the pool lacks. Sealed like the
-- other keys (encrypted when a key-encryption key is configured).
CREATE TABLE tachograph_card_key_pool (
    id BIGSERIAL PRIMARY KEY,
    key_bytes BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
