-- OAuth 2.0 clients and the tokens issued to them. Kept in lock-step with ../sqlite/0006_oauth.sql.

-- Third-party applications, registered by an operator (`roadlog client create`). Ids are random
-- 9-digit integers as in the reference service; secrets are stored only as argon2id hashes.
CREATE TABLE oauth_clients (
    id BIGINT PRIMARY KEY CHECK (id BETWEEN 100000000 AND 999999999),
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);

-- Redirect URIs of a client, matched by exact string comparison.
CREATE TABLE oauth_client_redirect_uris (
    client_id BIGINT NOT NULL REFERENCES oauth_clients (id),
    uri TEXT NOT NULL,
    PRIMARY KEY (client_id, uri)
);

-- Access tokens issued to clients, acting as a user; stored as SHA-256 hashes. No expiry by
-- default (expires_at NULL), as the reference's integrations expect; revocable.
CREATE TABLE oauth_tokens (
    id BIGSERIAL PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    client_id BIGINT NOT NULL REFERENCES oauth_clients (id),
    user_id BIGINT NOT NULL REFERENCES users (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX oauth_tokens_user ON oauth_tokens (user_id);
