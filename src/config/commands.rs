//! The commands of `roadlog` and their subcommands: what each one does and takes. The options
//! shared by several commands (the database, the server's settings) live in the parent module.

use std::path::PathBuf;

use clap::Subcommand;

use super::{DatabaseArgs, Settings};

#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Run the HTTP server (the default).
    Serve(Settings),
    /// Apply the database migrations and exit.
    Migrate(DatabaseArgs),
    /// Print the effective settings of `serve` and where each comes from (flag, environment,
    /// default); secrets in URLs are masked.
    Config(Settings),
    /// OAuth clients of this environment.
    Client {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        command: ClientCommand,
    },
    /// The sandbox's outgoing e-mail (invitations, notifications), for integrators and tests.
    Outbox {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        command: OutboxCommand,
    },
    /// Regulatory alerts (the working-time checks).
    Regulation {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        command: RegulationCommand,
    },
    /// User accounts: those whose stored time zone is unknown.
    Users {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        command: UsersCommand,
    },
    /// Missions: their automatic validation.
    Missions {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        command: MissionsCommand,
    },
    /// Sandbox helpers: demo data for integrators.
    Sandbox {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(subcommand)]
        command: SandboxCommand,
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
        /// An exact redirect URI (absolute, without fragment); repeat for several. In
        /// production, `http://` is accepted only for loopback hosts.
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
    },
    /// List the clients (never their secrets).
    List {
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a client and every token it holds.
    Revoke {
        /// The client_id.
        id: String,
    },
    /// API keys of a client, for the software-vendor endpoint `/protected`.
    #[command(subcommand, name = "api-key")]
    ApiKey(ApiKeyCommand),
    /// Set how long the employment tokens issued to a client work: each token issued or
    /// rotated from now on expires that many seconds later (`none`: no expiry, the default).
    #[command(name = "employment-token-lifetime")]
    EmploymentTokenLifetime {
        /// The client_id.
        id: String,
        /// Seconds (greater than 0), or `none`.
        lifetime: String,
    },
}

/// `roadlog client api-key …`
#[derive(Subcommand, Debug, Clone)]
pub enum ApiKeyCommand {
    /// Create a key for a client; prints it once, as JSON (`roadlog_live_…` in production,
    /// `roadlog_test_…` in the sandbox).
    Create {
        /// The client_id.
        #[arg(long)]
        client: String,
    },
    /// List the keys (never the keys themselves: their first characters, creation, last use).
    List {
        /// Only the keys of this client_id.
        #[arg(long)]
        client: Option<String>,
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key, by the id `create` and `list` show; effective at once.
    Revoke {
        /// The key's id.
        id: i64,
    },
}

/// `roadlog outbox …`
#[derive(Subcommand, Debug, Clone)]
pub enum OutboxCommand {
    /// Every e-mail of the sandbox, newest first (refused in production: real mail holds secrets).
    List {
        /// Only the messages sent to this address.
        #[arg(long)]
        to: Option<String>,
        /// One JSON document instead of text.
        #[arg(long)]
        json: bool,
        /// Most messages shown.
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
}

/// `roadlog regulation …`
#[derive(Subcommand, Debug, Clone)]
pub enum RegulationCommand {
    /// Recompute the alerts of every worker of a company over a period, from the validated
    /// missions as they are now (the workers' and the admins' computations, a transaction per 16
    /// workers); running it again gives the same alerts.
    Rebuild {
        /// The company's id.
        #[arg(long)]
        company: i64,
        /// First day (YYYY-MM-DD); the day before and whole weeks are recomputed too.
        #[arg(long)]
        from: chrono::NaiveDate,
        /// Last day (YYYY-MM-DD), at most 366 days after --from.
        #[arg(long)]
        to: chrono::NaiveDate,
        /// One JSON document instead of a sentence.
        #[arg(long)]
        json: bool,
    },
}

/// `roadlog users …`
#[derive(Subcommand, Debug, Clone)]
pub enum UsersCommand {
    /// List the accounts whose stored time zone is not an IANA name (stored before names were
    /// checked, or written by hand): their days are cut in Europe/Paris until it is corrected.
    UnknownZones {
        /// One JSON document instead of lines.
        #[arg(long)]
        json: bool,
    },
}

/// `roadlog missions …`
#[derive(Subcommand, Debug, Clone)]
pub enum MissionsCommand {
    /// Run the automatic validation once, as the server does every period: the workers' time
    /// waiting for one business day (the worker's side) or two (the admins' side) is validated,
    /// with its regulatory computations; safe beside running servers (rows are claimed).
    AutoValidate {
        /// The time the delays are counted back from, instead of now (RFC 3339, e.g.
        /// `2026-03-02T10:00:00Z`): validates what will be due then (a catch-up, a test). The
        /// validations are dated now.
        #[arg(long)]
        now: Option<chrono::DateTime<chrono::FixedOffset>>,
        /// One JSON document instead of a sentence.
        #[arg(long)]
        json: bool,
    },
}

/// `roadlog sandbox …`
#[derive(Subcommand, Debug, Clone)]
pub enum SandboxCommand {
    /// Fill a sandbox company with demo data: six demo workers (e-mails on the reserved
    /// `demo.roadlog.invalid` domain, no mail sent, a random password each, printed once) and the
    /// 30 days before today of missions, activities, locations, expenditures, comments, vehicles
    /// and validations (by the workers and by the company's longest-standing admin), with days
    /// that break each working-time rule. One transaction: on failure nothing is written. A
    /// company is seeded once; refused in production.
    Seed {
        /// The company's id.
        #[arg(long)]
        company: i64,
        /// One JSON document (passwords included) instead of a summary.
        #[arg(long)]
        json: bool,
    },
}

/// `roadlog c1b …`
#[derive(Subcommand, Debug, Clone)]
pub enum C1bCommand {
    /// Decode a driver-card file to JSON (EFs, identification, days and activity changes,
    /// vehicles, places, signature check per EF); exits non-zero on any structural violation.
    Inspect {
        /// The .C1B / .DDD file.
        file: PathBuf,
        /// The root public key (144-byte EC_PK.bin, as served at /api/tachograph/root-public-key)
        /// to verify the signatures with.
        #[arg(long)]
        root_key: Option<PathBuf>,
    },
}
