-- Outgoing e-mails. Kept in lock-step with ../postgres/0003_outbox.sql.
-- Written in the same transaction as what causes them (an invitation), sent afterwards by the
-- mail sender, so that no e-mail is lost or sent for a change that was rolled back.
CREATE TABLE emails (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0,
    last_error TEXT
);
CREATE INDEX emails_unsent ON emails (sent_at, id);
