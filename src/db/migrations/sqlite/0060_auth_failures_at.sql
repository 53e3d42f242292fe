-- Every recorded failure also forgets the failures older than the rate limits' window
-- (`DELETE FROM auth_failures WHERE at < $1`, domain/auth/attempts.rs). The other index,
-- auth_failures_subject, leads with the subject and cannot bound that purge: without this one it
-- reads every row on each failed login (SQLite scans the table, PostgreSQL all of that index), a
-- cost that follows the table, which grows fastest under the very attack the limits are for. An
-- index on the time alone makes it one range of the expired rows.
-- Kept in lock-step with ../postgres/0060_auth_failures_at.sql.
CREATE INDEX auth_failures_at ON auth_failures (at);
