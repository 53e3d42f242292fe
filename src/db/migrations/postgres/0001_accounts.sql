-- Accounts and their sessions. Kept in lock-step with ../sqlite/0001_accounts.sql.

-- The environment this database belongs to, claimed on first start (sandbox or production).
CREATE TABLE environment (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL CHECK (name IN ('sandbox', 'production'))
);

-- User ids are random 9-digit integers, as in the reference service: they fit GraphQL's Int and
-- cannot be enumerated.
CREATE TABLE users (
    id BIGINT PRIMARY KEY CHECK (id BETWEEN 100000000 AND 999999999),
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    timezone_name TEXT NOT NULL DEFAULT 'Europe/Paris',
    phone_number TEXT,
    birth_date TEXT,
    creation_time BIGINT NOT NULL,
    failed_login_count BIGINT NOT NULL DEFAULT 0,
    locked_until BIGINT
);

-- A login: the family of access and refresh tokens rotated from it, revoked together.
CREATE TABLE sessions (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Tokens are stored only as SHA-256 hashes of the random value given to the client.
CREATE TABLE auth_tokens (
    token_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX auth_tokens_session ON auth_tokens (session_id);
