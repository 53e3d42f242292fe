-- Software vendors (issue 18): API keys of OAuth clients, their links to companies and to
-- employments, and the SIRET of companies. Kept in lock-step with ../sqlite/0020_vendors.sql.

-- Keys a client sends in X-API-KEY on /protected. Only a SHA-256 hash of each key is stored (the
-- key is 256 random bits: no dictionary applies); `prefix` is its first characters, for the
-- operator to tell keys apart. Several keys per client, so that one can be rotated without
-- downtime.
CREATE TABLE client_api_keys (
    id BIGSERIAL PRIMARY KEY,
    client_id BIGINT NOT NULL REFERENCES oauth_clients (id),
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX client_api_keys_client ON client_api_keys (client_id);

-- The establishment numbers of companies registered with one (14 digits, starting with the
-- SIREN). Unique: an establishment is registered once.
ALTER TABLE companies ADD COLUMN siret TEXT CHECK (siret IS NULL OR length(siret) = 14);
CREATE UNIQUE INDEX companies_siret ON companies (siret);

-- A client's right to act on a company (softwareRegistration creates it); dismissed_at ends it.
CREATE TABLE client_companies (
    client_id BIGINT NOT NULL REFERENCES oauth_clients (id),
    company_id BIGINT NOT NULL REFERENCES companies (id),
    created_at BIGINT NOT NULL,
    dismissed_at BIGINT,
    PRIMARY KEY (client_id, company_id)
);

-- An employee synced by a client (syncEmployment): what the client sent, the invitation mailed
-- to the employee (a hash, 7 days), the employee's answer, and the employment token issued once
-- accepted (a hash). `created_employment` tells whether the sync created the employment (a
-- decline then rejects it) or found an existing one (left as it is).
CREATE TABLE client_employments (
    id BIGSERIAL PRIMARY KEY,
    client_id BIGINT NOT NULL REFERENCES oauth_clients (id),
    employment_id BIGINT NOT NULL REFERENCES employments (id),
    email TEXT NOT NULL,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    has_admin_rights BIGINT NOT NULL CHECK (has_admin_rights IN (0, 1)),
    timezone_name TEXT NOT NULL,
    created_employment BIGINT NOT NULL CHECK (created_employment IN (0, 1)),
    created_at BIGINT NOT NULL,
    invitation_hash TEXT UNIQUE,
    invitation_expires_at BIGINT NOT NULL,
    accepted_at BIGINT,
    declined_at BIGINT,
    user_id BIGINT REFERENCES users (id),
    access_token_hash TEXT UNIQUE,
    token_issued_at BIGINT,
    dismissed_at BIGINT,
    UNIQUE (client_id, employment_id),
    CHECK (accepted_at IS NULL OR declined_at IS NULL),
    CHECK (access_token_hash IS NULL OR accepted_at IS NOT NULL)
);
CREATE INDEX client_employments_employment ON client_employments (employment_id);
