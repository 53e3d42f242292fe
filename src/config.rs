//! Command line and settings: every setting is a flag or an environment variable.

use clap::{Parser, Subcommand, ValueEnum};

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
#[command(name = "roadlog", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Run the HTTP server (the default).
    Serve,
    /// Apply the database migrations and exit.
    Migrate,
    /// OAuth clients of this environment.
    Client {
        #[command(subcommand)]
        command: ClientCommand,
    },
    /// Tachograph driver-card (C1B) files.
    C1b {
        #[command(subcommand)]
        command: C1bCommand,
    },
}

/// `roadlog client …`
#[derive(Subcommand, Debug, Clone)]
pub enum ClientCommand {
    /// Register a client; prints its client_id and client_secret once, as JSON.
    Create {
        /// The application's name, shown to users on the consent page.
        #[arg(long)]
        name: String,
        /// An exact redirect URI (absolute, without fragment); repeat for several.
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
    },
    /// List the clients (never their secrets), as JSON.
    List,
    /// Revoke a client and every token it holds.
    Revoke {
        /// The client_id.
        id: String,
    },
}

/// `roadlog c1b …`
#[derive(Subcommand, Debug, Clone)]
pub enum C1bCommand {
    /// Decode a driver-card file to JSON (EFs, identification, days and activity changes,
    /// vehicles, places, signature check per EF); exits non-zero on any structural violation.
    Inspect {
        /// The .C1B / .DDD file.
        file: std::path::PathBuf,
        /// The root public key (144-byte EC_PK.bin, as served at /api/tachograph/root-public-key)
        /// to verify the signatures with.
        #[arg(long)]
        root_key: Option<std::path::PathBuf>,
    },
}

/// Settings shared by every command.
#[derive(clap::Args, Debug, Clone)]
pub struct Settings {
    /// `sandbox` (the default: test data, integrator tools) or `production`.
    #[arg(long, env = "ROADLOG_ENV", value_enum, default_value = "sandbox", global = true)]
    pub environment: Environment,
    /// `sqlite://…` or `postgres://…`. Default: a SQLite file under ./data/ named after the environment.
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,
    /// Address and port to listen on.
    #[arg(long, env = "ROADLOG_BIND", default_value = "127.0.0.1:8080", global = true)]
    pub bind: std::net::SocketAddr,
    /// The public base URL of this environment (used in links and OAuth metadata).
    /// Default: `http://<bind>`.
    #[arg(long, env = "ROADLOG_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,
    /// Lifetime of OAuth access tokens, in seconds. Default: no expiry, as integrations of the
    /// reference service expect.
    #[arg(long, env = "ROADLOG_OAUTH_TOKEN_LIFETIME", global = true)]
    pub oauth_token_lifetime: Option<i64>,
    /// SMTP relay for outgoing e-mail, `smtp://host[:port]` (no TLS, no authentication: a local
    /// relay). Default: e-mails are only logged (recipient and subject).
    #[arg(long, env = "ROADLOG_SMTP_URL", global = true)]
    pub smtp_url: Option<String>,
    /// Sender address of outgoing e-mail.
    #[arg(long, env = "ROADLOG_MAIL_FROM", default_value = "roadlog@localhost", global = true)]
    pub mail_from: String,
}

impl Settings {
    pub fn database_url(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://data/roadlog-{}.db?mode=rwc", self.environment.as_str()))
    }

    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.bind))
            .trim_end_matches('/')
            .to_string()
    }
}
