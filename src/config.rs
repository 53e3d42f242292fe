//! Command line and settings: every setting is a flag or an environment variable, and each
//! command takes only the options it uses (`roadlog client --help` does not list the server's).
//!
//! `roadlog` alone runs the server, so its options are also accepted without the `serve` word.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};

use crate::telemetry::LogFormat;

mod commands;

pub use commands::{
    ApiKeyCommand, C1bCommand, ClientCommand, Command, MissionsCommand, OutboxCommand, RegulationCommand,
    SandboxCommand, UsersCommand,
};

/// Which of the two deployments this server is: each has its own base URL and its own data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Environment {
    Sandbox,
    Production,
}

impl Environment {
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Sandbox => "sandbox",
            Environment::Production => "production",
        }
    }
}

/// Roadlog: working time of road-transport workers, with a GraphQL and OAuth 2.0 API.
#[derive(Parser, Debug, Clone)]
#[command(name = "roadlog", version, about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// The server's options, for `roadlog` without a command.
    #[command(flatten)]
    pub serve: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Default values, shared by the flags and by [`Settings::new`].
pub mod defaults {
    pub const BIND: &str = "127.0.0.1:8080";
    pub const MAIL_FROM: &str = "roadlog@localhost";
    pub const SHUTDOWN_TIMEOUT_SECS: u64 = 30;
    pub const MAX_CONNECTIONS: usize = 4096;
    pub const HEADER_READ_TIMEOUT_SECS: u64 = 10;
    pub const BODY_TIMEOUT_SECS: u64 = 30;
    pub const CLIENT_RATE_LIMIT: u32 = 3000;
    pub const VENDOR_RATE_LIMIT: u32 = 1200;
    pub const CARD_KEY_POOL: usize = 1000;
    /// The shortest signing key of the workbooks an operator may set.
    pub const MIN_SIGNING_KEY: usize = 16;
    pub const AUTO_VALIDATION_PERIOD_SECS: u64 = 3600;
    pub const EXPORT_WORKERS: usize = 2;
}

/// Where the data is: every command that opens the database takes these.
#[derive(Args, Debug, Clone)]
pub struct DatabaseArgs {
    /// `sandbox` (the default: test data, integrator tools) or `production`.
    #[arg(long, env = "ROADLOG_ENV", value_enum, default_value = "sandbox")]
    pub environment: Environment,
    /// `sqlite://…` or `postgres://…`. Default: the SQLite file `roadlog-<environment>.db` in
    /// the data directory.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// Folder of the default SQLite database. Default: the user's data directory
    /// (`$XDG_DATA_HOME/roadlog`, usually `~/.local/share/roadlog`), the same from any working
    /// directory.
    #[arg(long, env = "ROADLOG_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Let a production server run on SQLite (one machine, one instance, no shared database).
    #[arg(long, env = "ROADLOG_ALLOW_SQLITE_IN_PRODUCTION")]
    pub allow_sqlite_in_production: bool,
    /// Log lines as text for people (`human`) or one JSON object a line (`json`); always on
    /// standard error.
    #[arg(long, env = "ROADLOG_LOG_FORMAT", value_enum, default_value = "human")]
    pub log_format: LogFormat,
    /// When a SQLite commit reaches the disk. `normal` (the default, under WAL): a process crash
    /// loses nothing, a power loss or OS crash may drop the last commits. `full`: each commit is
    /// on disk before it is acknowledged, at a cost per write. PostgreSQL is unaffected (it keeps
    /// `synchronous_commit=on`).
    #[arg(long, env = "ROADLOG_SQLITE_SYNCHRONOUS", value_enum, default_value = "normal")]
    pub sqlite_synchronous: SqliteSynchronous,
}

/// SQLite's `synchronous` setting under WAL (see [`DatabaseArgs::sqlite_synchronous`]).
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SqliteSynchronous {
    /// The WAL is synced at checkpoints only: durable against a crash of the process.
    #[default]
    Normal,
    /// The WAL is synced at every commit: durable against a power loss too.
    Full,
}

impl DatabaseArgs {
    pub fn new(environment: Environment, database_url: Option<String>) -> DatabaseArgs {
        DatabaseArgs {
            environment,
            database_url,
            data_dir: None,
            allow_sqlite_in_production: false,
            log_format: LogFormat::Human,
            sqlite_synchronous: SqliteSynchronous::Normal,
        }
    }

    /// The database URL: the configured one, or the SQLite file of the environment in the data
    /// directory (an absolute path, so every command finds the same file).
    pub fn database_url(&self) -> anyhow::Result<String> {
        if let Some(url) = &self.database_url {
            return Ok(url.clone());
        }
        let dir = match &self.data_dir {
            Some(dir) => dir.clone(),
            None => directories::ProjectDirs::from("", "", "roadlog")
                .map(|dirs| dirs.data_dir().to_path_buf())
                .ok_or_else(|| {
                    anyhow::anyhow!("no home directory to keep the database in: set --data-dir or DATABASE_URL")
                })?,
        };
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        let file = dir.join(format!("roadlog-{}.db", self.environment.as_str()));
        Ok(format!("sqlite://{}?mode=rwc", file.display()))
    }

    /// Refuses settings that are unsafe for the environment.
    pub fn check(&self) -> anyhow::Result<()> {
        let url = self.database_url()?;
        if self.environment == Environment::Production && url.starts_with("sqlite:") && !self.allow_sqlite_in_production
        {
            anyhow::bail!(
                "production runs on PostgreSQL (DATABASE_URL=postgres://…): SQLite serves one instance on one machine; pass --allow-sqlite-in-production to accept that"
            );
        }
        Ok(())
    }
}

/// The server's settings.
#[derive(Args, Debug, Clone)]
pub struct Settings {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Address and port to listen on.
    #[arg(long, env = "ROADLOG_BIND", default_value = defaults::BIND)]
    pub bind: SocketAddr,
    /// The public base URL of this environment (used in links and OAuth metadata).
    /// Default: `http://<bind>`.
    #[arg(long, env = "ROADLOG_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Lifetime of OAuth access tokens, in seconds. Default: no expiry, as integrations of the
    /// reference service expect.
    #[arg(long, env = "ROADLOG_OAUTH_TOKEN_LIFETIME")]
    pub oauth_token_lifetime: Option<i64>,
    /// SMTP relay for outgoing e-mail, `smtp://host[:port]` (no TLS, no authentication: a local
    /// relay). Default: e-mails are only logged (recipient and subject).
    #[arg(long, env = "ROADLOG_SMTP_URL")]
    pub smtp_url: Option<String>,
    /// Sender address of outgoing e-mail.
    #[arg(long, env = "ROADLOG_MAIL_FROM", default_value = defaults::MAIL_FROM)]
    pub mail_from: String,
    /// Serve `GET /metrics` on this address only, instead of on the public one.
    #[arg(long, env = "ROADLOG_METRICS_BIND")]
    pub metrics_bind: Option<SocketAddr>,
    /// On SIGTERM or Ctrl-C: seconds given to requests in flight before their connections are
    /// cut.
    #[arg(long, env = "ROADLOG_SHUTDOWN_TIMEOUT", default_value_t = defaults::SHUTDOWN_TIMEOUT_SECS)]
    pub shutdown_timeout: u64,
    /// Client connections served at once (further ones wait to be accepted); lowered to what
    /// the process's file-descriptor limit allows.
    #[arg(long, env = "ROADLOG_MAX_CONNECTIONS", default_value_t = defaults::MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Seconds a client has to send a request's line and headers; also the longest idle time of
    /// a keep-alive connection.
    #[arg(long, env = "ROADLOG_HEADER_READ_TIMEOUT", default_value_t = defaults::HEADER_READ_TIMEOUT_SECS)]
    pub header_read_timeout: u64,
    /// Seconds a client has to send a request's body once its headers are in.
    #[arg(long, env = "ROADLOG_BODY_TIMEOUT", default_value_t = defaults::BODY_TIMEOUT_SECS)]
    pub body_timeout: u64,
    /// Token requests each OAuth client may send per minute (in bursts of up to two seconds'
    /// worth), whatever their outcome; 0 removes the limit.
    #[arg(long, env = "ROADLOG_CLIENT_RATE_LIMIT", default_value_t = defaults::CLIENT_RATE_LIMIT)]
    pub client_rate_limit: u32,
    /// Requests each software vendor (client) may send per minute on its doors, `/protected`
    /// (API key) and the API with its employees' employment tokens together (in bursts of up to
    /// two seconds' worth); 0 removes the limit.
    #[arg(long, env = "ROADLOG_VENDOR_RATE_LIMIT", default_value_t = defaults::VENDOR_RATE_LIMIT)]
    pub vendor_rate_limit: u32,
    /// A proxy (address or CIDR block) whose `X-Forwarded-For` / `Forwarded` headers tell the
    /// client's address; repeat, or separate with commas in the variable. Without one, the
    /// client's address is the connection's peer and those headers are ignored.
    #[arg(long = "trusted-proxy", env = "ROADLOG_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// A browser origin whose pages may call the API (CORS), written as browsers send it
    /// (`https://app.example.com`, `http://localhost:3000`), or `*` for any origin (never with
    /// credentials: bearer tokens need none); repeat, or separate with commas in the variable.
    /// Default: none, no page of another origin may read the API's answers.
    #[arg(long = "cors-origin", env = "ROADLOG_CORS_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_origins: Vec<String>,
    /// Base64 of 32 random bytes (`openssl rand -base64 32`): the C1B signing keys are stored
    /// encrypted with it (those stored in clear are encrypted at start). Best given through the
    /// environment, not the command line.
    #[arg(long, env = "ROADLOG_KEY_ENCRYPTION_KEY", hide_env_values = true)]
    pub key_encryption_key: Option<String>,
    /// Serve the interactive API console (GraphiQL) at `/console`, and at `GET /api/graphql`
    /// to browsers; `--console=false` turns it off (then `/console` is 404).
    #[arg(long, env = "ROADLOG_CONSOLE", default_value_t = true, action = clap::ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true", require_equals = true)]
    pub console: bool,
    /// Card keys of the C1B export kept generated ahead of need (one per employee at a first
    /// export, each slow to generate), refilled in the background one key at a time. 0 turns
    /// the pool off: first exports then generate their keys on the spot.
    #[arg(long, env = "ROADLOG_CARD_KEY_POOL", default_value_t = defaults::CARD_KEY_POOL)]
    pub card_key_pool: usize,
    /// Seconds between two runs of the missions' automatic validation (the reference runs it
    /// hourly); the first run comes at most a minute after start. 0 turns it off on this
    /// instance (another instance sharing the database, or `roadlog missions auto-validate`
    /// from a scheduler, may run it).
    #[arg(long, env = "ROADLOG_AUTO_VALIDATION_PERIOD", default_value_t = defaults::AUTO_VALIDATION_PERIOD_SECS)]
    pub auto_validation_period: u64,
    /// Excel activity reports this instance builds at once, each on a blocking thread of its
    /// own (the API's requests keep the other threads). 0: this instance builds none (another
    /// instance sharing the database does).
    #[arg(long, env = "ROADLOG_EXPORT_WORKERS", default_value_t = defaults::EXPORT_WORKERS)]
    pub export_workers: usize,
    /// The key of the Excel reports' integrity signature (`Mobilic HMAC`, HMAC-SHA256 keyed with
    /// the text's UTF-8 bytes, as the reference's `HMAC_SIGNING_KEY`), at least 16 bytes; every
    /// instance sharing a database gives the same. Default: a key generated at first start and
    /// kept in the database. Best given through the environment, not the command line.
    #[arg(long, env = "ROADLOG_XLSX_SIGNING_KEY", hide_env_values = true, value_parser = parse_signing_key)]
    pub xlsx_signing_key: Option<String>,
}

impl Settings {
    /// The defaults of every flag, on the given database (tests and embedding).
    pub fn new(environment: Environment, database_url: Option<String>) -> Settings {
        Settings {
            database: DatabaseArgs::new(environment, database_url),
            bind: defaults::BIND.parse().expect("a valid default address"),
            public_url: None,
            oauth_token_lifetime: None,
            smtp_url: None,
            mail_from: defaults::MAIL_FROM.into(),
            metrics_bind: None,
            shutdown_timeout: defaults::SHUTDOWN_TIMEOUT_SECS,
            max_connections: defaults::MAX_CONNECTIONS,
            header_read_timeout: defaults::HEADER_READ_TIMEOUT_SECS,
            body_timeout: defaults::BODY_TIMEOUT_SECS,
            client_rate_limit: defaults::CLIENT_RATE_LIMIT,
            vendor_rate_limit: defaults::VENDOR_RATE_LIMIT,
            trusted_proxies: Vec::new(),
            cors_origins: Vec::new(),
            key_encryption_key: None,
            console: true,
            card_key_pool: defaults::CARD_KEY_POOL,
            auto_validation_period: defaults::AUTO_VALIDATION_PERIOD_SECS,
            export_workers: defaults::EXPORT_WORKERS,
            xlsx_signing_key: None,
        }
    }

    pub fn environment(&self) -> Environment {
        self.database.environment
    }

    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.bind))
            .trim_end_matches('/')
            .to_string()
    }
}

/// A database URL as it may be shown: the SQLite file, or the PostgreSQL user, host, port and
/// database, never a password.
pub fn describe_database(url: &str) -> String {
    if let Some(rest) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
        return format!("SQLite {}", rest.split('?').next().unwrap_or(rest));
    }
    match url::Url::parse(url) {
        Ok(parsed) => {
            let user = parsed.username();
            let host = parsed.host_str().unwrap_or("localhost");
            let port = parsed.port().unwrap_or(5432);
            let database = parsed.path().trim_start_matches('/');
            let at = if user.is_empty() {
                String::new()
            } else {
                format!("{user}@")
            };
            format!("PostgreSQL {at}{host}:{port}/{database}")
        }
        Err(_) => "an unreadable database URL".to_string(),
    }
}

/// Checks the key given to `--xlsx-signing-key`: at least [`defaults::MIN_SIGNING_KEY`] bytes.
pub fn parse_signing_key(text: &str) -> Result<String, String> {
    if text.len() < defaults::MIN_SIGNING_KEY {
        return Err(format!(
            "the workbooks' signing key must be at least {} bytes long (`openssl rand -base64 32`)",
            defaults::MIN_SIGNING_KEY
        ));
    }
    Ok(text.to_string())
}

/// Checks an origin given to `--cors-origin`: `*`, or exactly what a browser sends in `Origin`
/// (`https://app.example.com`, `http://localhost:3000`: scheme, host, port when not the
/// default, no path, no trailing slash).
pub fn parse_origin(text: &str) -> Result<String, String> {
    if text == "*" {
        return Ok(text.to_string());
    }
    let url = url::Url::parse(text)
        .map_err(|e| format!("{text:?} is not an origin ({e}): write it as scheme://host[:port]"))?;
    let serialized = url.origin().ascii_serialization();
    if !matches!(url.scheme(), "http" | "https") || serialized != text {
        return Err(format!(
            "{text:?} is not an origin as browsers send it: write {serialized:?} (scheme://host[:port], no path, no trailing slash)"
        ));
    }
    Ok(serialized)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_descriptions_hold_no_password() {
        assert_eq!(
            describe_database("postgres://app:s3cret@db.internal:6432/roadlog?sslmode=require"),
            "PostgreSQL app@db.internal:6432/roadlog"
        );
        assert_eq!(
            describe_database("sqlite:///var/lib/roadlog/x.db?mode=rwc"),
            "SQLite /var/lib/roadlog/x.db"
        );
    }

    #[test]
    fn the_default_database_is_an_absolute_path() {
        let mut args = DatabaseArgs::new(Environment::Sandbox, None);
        args.data_dir = Some("relative/dir".into());
        let url = args.database_url().unwrap();
        let path = url.strip_prefix("sqlite://").unwrap();
        assert!(path.starts_with('/'), "{url}");
        assert!(path.ends_with("relative/dir/roadlog-sandbox.db?mode=rwc"), "{url}");
    }

    #[test]
    fn the_console_flag_turns_the_console_off() {
        let serve = |args: &[&str]| match Cli::try_parse_from(args).unwrap() {
            Cli { command: None, serve } => serve.console,
            other => panic!("not the server: {other:?}"),
        };
        assert!(serve(&["roadlog"]));
        assert!(serve(&["roadlog", "--console"]));
        assert!(!serve(&["roadlog", "--console=false"]));
        assert!(serve(&["roadlog", "--console=true"]));
        assert!(Cli::try_parse_from(["roadlog", "--console=maybe"]).is_err());
    }

    #[test]
    fn the_workbooks_signing_key_is_the_operators_when_long_enough() {
        let serve = |args: &[&str]| match Cli::try_parse_from(args) {
            Ok(Cli { command: None, serve }) => Ok(serve.xlsx_signing_key),
            Ok(other) => panic!("not the server: {other:?}"),
            Err(error) => Err(error.to_string()),
        };
        assert_eq!(serve(&["roadlog"]), Ok(None), "generated and kept in the database");
        assert_eq!(
            serve(&["roadlog", "--xlsx-signing-key", "0123456789abcdef"]),
            Ok(Some("0123456789abcdef".to_string()))
        );
        let short = serve(&["roadlog", "--xlsx-signing-key", "short"]).unwrap_err();
        assert!(short.contains("at least 16 bytes"), "{short}");
    }

    #[test]
    fn production_refuses_sqlite_unless_allowed() {
        let mut args = DatabaseArgs::new(Environment::Production, Some("sqlite://x.db".into()));
        assert!(
            args.check()
                .unwrap_err()
                .to_string()
                .contains("--allow-sqlite-in-production")
        );
        args.allow_sqlite_in_production = true;
        assert!(args.check().is_ok());
        let postgres = DatabaseArgs::new(Environment::Production, Some("postgres://h/db".into()));
        assert!(postgres.check().is_ok());
    }
}
