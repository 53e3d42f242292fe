-- The user's own account (account.changeGender, disableWarning, resetPasswordConnected; the
-- User fields gender, disabledWarnings, shouldUpdatePassword). Kept in lock-step with
-- ../postgres/0064_own_account.sql.

-- The reference's two values; NULL until the user says.
ALTER TABLE users ADD COLUMN gender TEXT CHECK (gender IN ('female', 'male'));

-- When the owner last chose the password (sign-up, a reset link, resetPasswordConnected, the
-- acceptance page of a vendor's invitation); NULL for an account whose password someone else set
-- (the sandbox's demo workers), which User.shouldUpdatePassword reports. Accounts that exist
-- already chose theirs at creation, except the demo workers (their reserved e-mail domain).
ALTER TABLE users ADD COLUMN password_updated_at BIGINT;
UPDATE users SET password_updated_at = creation_time WHERE email NOT LIKE '%@demo.roadlog.invalid';

-- The warnings of the reference's applications a user asked not to see again: a preference
-- those applications read, never read by the service itself. One row per warning, so that
-- disabling one twice, even concurrently, keeps one.
CREATE TABLE user_disabled_warnings (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    warning TEXT NOT NULL CHECK (warning IN ('employee-validation', 'admin-mission-modification',
                                             'employee-geolocation-information', 'employee-off-creation')),
    disabled_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, warning)
);
