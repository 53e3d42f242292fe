-- Authorization codes and failed-authentication counters. Kept in lock-step with
-- ../postgres/0007_oauth_codes.sql.

-- Codes are stored as SHA-256 hashes, live 5 minutes, are bound to the client, the redirect URI
-- and the user, and are used once: used_at is set atomically by the exchange. A second use
-- revokes the token the first one produced (token_id), as RFC 6749 §4.1.2 asks.
CREATE TABLE oauth_codes (
    code_hash TEXT PRIMARY KEY,
    client_id INTEGER NOT NULL REFERENCES oauth_clients (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    redirect_uri TEXT NOT NULL,
    -- Whether the authorization request named the redirect URI: then the token request must
    -- repeat it (RFC 6749 §4.1.3); otherwise it may leave it out.
    redirect_uri_given INTEGER NOT NULL DEFAULT 1 CHECK (redirect_uri_given IN (0, 1)),
    code_challenge TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    token_id INTEGER REFERENCES oauth_tokens (id)
);

-- Failed logins and client authentications, per account or client and per address, for rate
-- limiting (a sliding window counted in the database, so that it holds across instances).
CREATE TABLE auth_failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    subject TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX auth_failures_subject ON auth_failures (subject, at);
