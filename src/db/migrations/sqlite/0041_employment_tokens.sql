-- Employment tokens in use (issue 18 items 4 and 5): their last use, an optional expiry and
-- rotation, the per-client lifetime that sets it, and the audit trail of what vendors did.
-- Kept in lock-step with ../postgres/0041_employment_tokens.sql.

-- When the employment token was last accepted (written at most once a minute per token), when
-- it stops working (NULL: never, the reference's behaviour), and who dismissed the link (the
-- employee, or an admin through the company link).
ALTER TABLE client_employments ADD COLUMN token_last_used_at BIGINT;
ALTER TABLE client_employments ADD COLUMN token_expires_at BIGINT;
ALTER TABLE client_employments ADD COLUMN dismiss_author_id INTEGER REFERENCES users (id);

-- Lifetime in seconds of the employment tokens issued to a client (NULL: no expiry), set by the
-- operator: a token gets its expiry when it is issued or rotated.
ALTER TABLE oauth_clients ADD COLUMN employment_token_lifetime BIGINT
    CHECK (employment_token_lifetime IS NULL OR employment_token_lifetime > 0);

-- Who linked or unlinked a company (softwareRegistration: NULL author; generateCompanyToken /
-- dismissCompanyToken: the admin).
ALTER TABLE client_companies ADD COLUMN dismiss_author_id INTEGER REFERENCES users (id);

-- What software vendors did, for the company's admins: one row per operation of a client on a
-- company, through an API key (/protected) or an employment token (the API acting for an
-- employee). `operation` is the GraphQL field or REST operation; never a token or a key.
CREATE TABLE vendor_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    client_id INTEGER NOT NULL REFERENCES oauth_clients (id),
    company_id INTEGER NOT NULL REFERENCES companies (id),
    api_key_id INTEGER REFERENCES client_api_keys (id),
    client_employment_id INTEGER REFERENCES client_employments (id),
    operation TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CHECK (api_key_id IS NULL OR client_employment_id IS NULL)
);
CREATE INDEX vendor_audit_company ON vendor_audit (company_id, created_at);
