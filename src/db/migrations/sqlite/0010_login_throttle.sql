-- Login throttling by account and by (account, address), shared by the API login and the OAuth
-- login page. Failures are kept per e-mail as typed (normalised), whether or not an account
-- exists, so that unknown e-mails answer exactly as wrong passwords do. An address where the
-- account's owner logged in successfully stays usable when the account is attacked from
-- elsewhere.
CREATE TABLE login_failures (
    email TEXT NOT NULL,
    address TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX login_failures_email ON login_failures (email, at);
CREATE INDEX login_failures_pair ON login_failures (email, address, at);
CREATE INDEX login_failures_at ON login_failures (at);

CREATE TABLE login_known_addresses (
    email TEXT NOT NULL,
    address TEXT NOT NULL,
    last_success_at BIGINT NOT NULL,
    PRIMARY KEY (email, address)
);
