-- Secrets the server generates for itself at first start and shares between its instances: the
-- key of the browser forms' CSRF tokens. Base64 of 32 random bytes, by purpose.
-- Kept in lock-step with ../sqlite/0057_server_secrets.sql.
CREATE TABLE server_secrets (
    name TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
