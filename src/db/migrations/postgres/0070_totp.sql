-- The second factor (account.setupTotp, verifyTotp, disableTotp; auth.validateTotpLogin).
-- Kept in lock-step with ../sqlite/0070_totp.sql.

-- One authenticator per user. The shared secret is stored sealed as the card keys are
-- (domain/export/sealing.rs, bound to "totp:<user id>"); enabled_at is set once a first code
-- proved the authenticator (verifyTotp): until then the login asks for no code. last_step is the
-- 30-second step of the last code accepted, so that no code is accepted twice.
CREATE TABLE totp_credentials (
    user_id BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    enabled_at BIGINT,
    last_step BIGINT
);

-- Recovery codes, shown once by setupTotp: only their SHA-256 hash is kept, and each is spent by
-- one conditional UPDATE (used_at from NULL).
CREATE TABLE totp_recovery_codes (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at BIGINT,
    PRIMARY KEY (user_id, code_hash)
);

-- The login's challenge between the password and the code: a random token given once, kept as
-- its SHA-256 hash, bound to the user, short-lived and spent by the login it completes. It is no
-- bearer token: the token tables never hold it.
CREATE TABLE totp_challenges (
    token_hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX totp_challenges_expiry ON totp_challenges (expires_at);

-- Wrong codes (and wrong recovery codes), per user: the limit counts those of the last five
-- minutes, under the lock of the user's credential row.
CREATE TABLE totp_failures (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    at BIGINT NOT NULL
);
CREATE INDEX totp_failures_user ON totp_failures (user_id, at);
