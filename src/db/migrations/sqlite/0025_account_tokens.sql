-- E-mail confirmation and password reset (issue 14). Kept in lock-step with
-- ../postgres/0025_account_tokens.sql.

-- When the account's owner proved the address (the confirmation link, an invitation sent to it, a
-- password reset). Accounts that existed before confirmation was asked for count as confirmed.
ALTER TABLE users ADD COLUMN email_confirmed_at BIGINT;
UPDATE users SET email_confirmed_at = creation_time;

-- Single-use links sent by e-mail: only the SHA-256 hash of the token is kept. A link is spent by
-- one conditional UPDATE (used_at from NULL), so two uses cannot both succeed.
CREATE TABLE account_tokens (
    token_hash TEXT PRIMARY KEY,
    purpose TEXT NOT NULL CHECK (purpose IN ('confirm_email', 'reset_password')),
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX account_tokens_user ON account_tokens (user_id, purpose);
