-- Browser sessions of the OAuth login page. Kept in lock-step with ../postgres/0008_browser_sessions.sql.
-- The cookie holds a random token; only its SHA-256 hash is stored. Any server instance can read
-- a session another one created.
CREATE TABLE browser_sessions (
    token_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
