-- The sandbox companies filled with demo data (roadlog sandbox seed, Mutations.seedSandboxCompany).
-- Kept in lock-step with ../sqlite/0015_sandbox_seeds.sql. One row per company: the primary key
-- is what refuses a second seed, even when two arrive at once, and the row is written in the
-- seed's own transaction, so a seed that fails leaves no row (and no data) behind.
CREATE TABLE sandbox_seeds (
    company_id BIGINT PRIMARY KEY REFERENCES companies (id),
    -- The admin on whose behalf the demo data was recorded.
    admin_id BIGINT NOT NULL REFERENCES users (id),
    seeded_at BIGINT NOT NULL,
    -- The seeded days, YYYY-MM-DD in the demo workers' time zone.
    first_day TEXT NOT NULL,
    last_day TEXT NOT NULL,
    CHECK (first_day <= last_day)
);
