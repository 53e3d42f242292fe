-- Known addresses (reference §4): a company's address book, used by logLocation
-- (companyKnownAddressId) and given to teams. Kept in lock-step with ../postgres/0030_known_addresses.sql.

CREATE TABLE company_known_addresses (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 500),
    city TEXT,
    postal_code TEXT,
    alias TEXT CHECK (alias IS NULL OR length(alias) <= 255),
    creation_time BIGINT NOT NULL,
    dismissed_at BIGINT,
    dismiss_author_id BIGINT REFERENCES users (id),
    CHECK ((dismissed_at IS NULL) = (dismiss_author_id IS NULL))
);
-- One entry per company and address, terminated ones included (creating a terminated address
-- again revives it), as the reference's only_one_entry_per_company_and_address.
CREATE UNIQUE INDEX only_one_entry_per_company_and_address
    ON company_known_addresses (company_id, name, COALESCE(city, ''), COALESCE(postal_code, ''));

-- The known addresses a team uses.
CREATE TABLE team_known_addresses (
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    known_address_id BIGINT NOT NULL REFERENCES company_known_addresses (id),
    PRIMARY KEY (team_id, known_address_id)
);

-- The known address a location entry was logged from (its alias is read from there).
ALTER TABLE location_entries ADD COLUMN company_known_address_id BIGINT REFERENCES company_known_addresses (id);
