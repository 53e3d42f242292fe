-- The dates of the card each employee's C1B files show. Kept in lock-step with
-- ../sqlite/0012_tachograph_cards.sql. Decided at the employee's first export (issue on or before
-- the earliest data exported, expiry after the latest) and kept for later exports, so that every
-- file of an employee shows the same card; an export with older data only moves the issue date
-- earlier, one with later data only moves the expiry later. Dates are `YYYY-MM-DD`.
CREATE TABLE tachograph_cards (
    user_id BIGINT PRIMARY KEY REFERENCES users (id),
    issue_date TEXT NOT NULL,
    expiry_date TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    CHECK (issue_date <= expiry_date)
);
