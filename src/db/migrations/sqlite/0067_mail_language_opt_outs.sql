-- The language of the e-mails a user receives and the optional e-mails they stopped
-- (User.language, User.emailOptOuts, account.changeLanguage, account.changeEmailOptOut, the
-- unsubscribe page). Kept in lock-step with ../postgres/0067_mail_language_opt_outs.sql.

-- 'fr' or 'en'. Accounts that exist already get French, the service's default; a sign-up
-- stores the language its request prefers, French when it names neither.
ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT 'fr' CHECK (language IN ('fr', 'en'));

-- One row per optional e-mail type a user stopped (the types of src/mail/kinds.rs that are
-- optional); stopping one twice, even concurrently, keeps one row.
CREATE TABLE mail_opt_outs (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    mail_type TEXT NOT NULL,
    stopped_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, mail_type)
);

-- The unsubscribe link of a queued optional e-mail, which the SMTP sender also gives as the
-- List-Unsubscribe header (RFC 2369, one-click per RFC 8058); NULL for the other e-mails.
ALTER TABLE emails ADD COLUMN unsubscribe_url TEXT;
