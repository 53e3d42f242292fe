-- Companies and employments. Kept in lock-step with ../postgres/0002_companies.sql.

CREATE TABLE companies (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    usual_name TEXT NOT NULL,
    siren TEXT NOT NULL CHECK (length(siren) = 9),
    phone_number TEXT,
    creation_time BIGINT NOT NULL,
    has_ceased_activity INTEGER NOT NULL DEFAULT 0 CHECK (has_ceased_activity IN (0, 1)),
    -- Settings, with the reference's defaults.
    allow_team_mode INTEGER NOT NULL DEFAULT 1 CHECK (allow_team_mode IN (0, 1)),
    allow_transfers INTEGER NOT NULL DEFAULT 0 CHECK (allow_transfers IN (0, 1)),
    require_kilometer_data INTEGER NOT NULL DEFAULT 1 CHECK (require_kilometer_data IN (0, 1)),
    require_expenditures INTEGER NOT NULL DEFAULT 1 CHECK (require_expenditures IN (0, 1)),
    require_support_activity INTEGER NOT NULL DEFAULT 0 CHECK (require_support_activity IN (0, 1)),
    require_mission_name INTEGER NOT NULL DEFAULT 1 CHECK (require_mission_name IN (0, 1))
);

-- The attachment of a user (or of an invited e-mail, user_id NULL) to a company over a period of
-- dates (end_date NULL: open-ended). Dates are TEXT YYYY-MM-DD, which compare like dates.
CREATE TABLE employments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER REFERENCES users (id),
    company_id INTEGER NOT NULL REFERENCES companies (id),
    email TEXT,
    submitter_id INTEGER REFERENCES users (id),
    reception_time BIGINT NOT NULL,
    validation_time BIGINT,
    validation_status TEXT NOT NULL CHECK (validation_status IN ('pending', 'approved', 'rejected')),
    start_date TEXT NOT NULL,
    end_date TEXT,
    has_admin_rights INTEGER NOT NULL DEFAULT 0 CHECK (has_admin_rights IN (0, 1)),
    -- NULL only while an e-mail invitation is not attached to a user and no choice was made:
    -- the primary rule is then applied when the invitation is redeemed.
    is_primary INTEGER CHECK (is_primary IN (0, 1)),
    dismissed_at BIGINT,
    dismiss_author_id INTEGER REFERENCES users (id),
    invite_token_hash TEXT UNIQUE,
    invite_expires_at BIGINT,
    CHECK (user_id IS NOT NULL OR email IS NOT NULL),
    CHECK (end_date IS NULL OR end_date >= start_date),
    CHECK ((dismissed_at IS NULL) = (dismiss_author_id IS NULL))
);
CREATE INDEX employments_user ON employments (user_id);
CREATE INDEX employments_company ON employments (company_id);
