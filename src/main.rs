//! The `roadlog` command: `serve` (the default), `migrate`, `config`, `client …` (and
//! `client api-key …`), `outbox list`,
//! `regulation rebuild`, `missions auto-validate`, `sandbox seed`, `c1b inspect`.
//! Results go to standard output, logs and errors to standard error; a failure exits non-zero
//! with one line that names what failed.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use roadlog::config::{
    ApiKeyCommand, C1bCommand, Cli, ClientCommand, Command, DatabaseArgs, Environment, MissionsCommand, OutboxCommand,
    RegulationCommand, SandboxCommand, Settings, UsersCommand, describe_database,
};

/// The allocator: mimalloc rather than the C library's. A request allocates and frees thousands
/// of small blocks (`bench/README.md`: what it changes).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("roadlog: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let command = cli.command.unwrap_or(Command::Serve(cli.serve));
    let outcome = runtime.block_on(async {
        match command {
            Command::Serve(settings) => {
                let _logs = roadlog::telemetry::logging::init(settings.database.log_format);
                roadlog::server::run(&settings).await
            }
            Command::Migrate(database) => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                let db = roadlog::server::open_database(&database).await?;
                tracing::info!(backend = ?db.backend, "migrations applied");
                Ok(())
            }
            Command::Config(settings) => {
                let sub = matches
                    .subcommand_matches("config")
                    .expect("the config command was given");
                print_config(&settings, sub)
            }
            Command::Client { database, command } => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                client(&database, command).await
            }
            Command::Outbox { database, command } => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                outbox(&database, command).await
            }
            Command::Regulation { database, command } => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                regulation(&database, command).await
            }
            Command::Users { database, command } => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                users(&database, command).await
            }
            Command::Missions { database, command } => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                missions(&database, command).await
            }
            Command::Sandbox { database, command } => {
                let _logs = roadlog::telemetry::logging::init(database.log_format);
                sandbox(&database, command).await
            }
            Command::C1b {
                command: C1bCommand::Inspect { file, root_key },
            } => inspect(&file, root_key.as_deref()),
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // `{:#}` prints the whole chain: "cannot listen on 127.0.0.1:8080: Address in use".
            eprintln!("roadlog: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// `roadlog config`: each setting of `serve`, its value and where it comes from.
fn print_config(settings: &Settings, matches: &clap::ArgMatches) -> anyhow::Result<()> {
    let command = Cli::command();
    let config = command.find_subcommand("config").expect("the config command exists");
    let mut rows = Vec::new();
    for arg in config.get_arguments() {
        let id = arg.get_id().as_str();
        if matches!(id, "help" | "version") {
            continue;
        }
        let value = matches
            .get_raw(id)
            .map(|values| {
                values
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .map(|v| mask_secrets(id, &v))
            .unwrap_or_else(|| "(not set)".to_string());
        let source = match matches.value_source(id) {
            Some(clap::parser::ValueSource::CommandLine) => "flag".to_string(),
            Some(clap::parser::ValueSource::EnvVariable) => arg
                .get_env()
                .map(|e| format!("environment ({})", e.to_string_lossy()))
                .unwrap_or_else(|| "environment".to_string()),
            _ => "default".to_string(),
        };
        rows.push((format!("--{}", arg.get_long().unwrap_or(id)), value, source));
    }
    let database = describe_database(&settings.database.database_url()?);
    rows.push(("(database in use)".into(), database, "derived".into()));
    rows.push(("(public URL in use)".into(), settings.public_url(), "derived".into()));
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let value_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).min(60);
    for (name, value, source) in rows {
        println!("{name:width$}  {value:value_width$}  {source}");
    }
    Ok(())
}

/// Secrets are never printed: URLs lose their password, keys their value.
fn mask_secrets(id: &str, value: &str) -> String {
    if id.contains("key") {
        return "(set, hidden)".to_string();
    }
    if !id.ends_with("url") {
        return value.to_string();
    }
    match url::Url::parse(value) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("****"));
            parsed.to_string()
        }
        _ => value.to_string(),
    }
}

/// `roadlog c1b inspect`: the report as JSON on standard output; a structural violation is
/// reported on standard error with exit status 1.
fn inspect(file: &std::path::Path, root_key: Option<&std::path::Path>) -> anyhow::Result<()> {
    use anyhow::Context;
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let root = root_key
        .map(|path| std::fs::read(path).with_context(|| format!("cannot read {}", path.display())))
        .transpose()?;
    match roadlog::domain::export::c1b::inspect(&bytes, root.as_deref()) {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(())
        }
        Err(violation) => anyhow::bail!("{}: {violation}", file.display()),
    }
}

/// `roadlog client …`: the operator's registry of OAuth clients.
async fn client(database: &DatabaseArgs, command: ClientCommand) -> anyhow::Result<()> {
    let db = roadlog::server::open_database(database).await?;
    match command {
        ClientCommand::Create { name, redirect_uris } => {
            let created = roadlog::oauth::clients::create(&db, database.environment, &name, &redirect_uris)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            println!("{}", serde_json::to_string_pretty(&created)?);
        }
        ClientCommand::List { json } => {
            let clients = roadlog::oauth::clients::list(&db)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&clients)?);
            } else {
                println!("{:<10}  {:<8}  {:<30}  REDIRECT URIS", "CLIENT ID", "STATUS", "NAME");
                for client in clients {
                    let status = if client.revoked_at.is_some() {
                        "revoked"
                    } else {
                        "active"
                    };
                    println!(
                        "{:<10}  {:<8}  {:<30}  {}",
                        client.client_id,
                        status,
                        client.name,
                        client.redirect_uris.join(" ")
                    );
                }
            }
        }
        ClientCommand::Revoke { id } => {
            let revoked = roadlog::oauth::clients::revoke(&db, &id)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            if !revoked {
                anyhow::bail!("no active client {id}");
            }
            println!("client {id} revoked");
        }
        ClientCommand::ApiKey(command) => api_key(&db, database.environment, command).await?,
        ClientCommand::EmploymentTokenLifetime { id, lifetime } => {
            use roadlog::domain::vendors::employment_tokens;
            let seconds = employment_tokens::parse_lifetime(&lifetime).map_err(|e| anyhow::anyhow!(e.message))?;
            let set = employment_tokens::set_lifetime(&db, &id, seconds)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            if !set {
                anyhow::bail!("no active client {id}");
            }
            match seconds {
                Some(seconds) => {
                    println!("employment tokens of client {id} now expire {seconds} s after they are issued")
                }
                None => println!("employment tokens of client {id} no longer expire"),
            }
        }
    }
    Ok(())
}

/// `roadlog client api-key …`: the keys of the software-vendor endpoint.
async fn api_key(db: &roadlog::db::Db, environment: Environment, command: ApiKeyCommand) -> anyhow::Result<()> {
    use roadlog::domain::vendors::api_keys;
    match command {
        ApiKeyCommand::Create { client } => {
            let created = api_keys::create(db, environment, &client)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            println!("{}", serde_json::to_string_pretty(&created)?);
        }
        ApiKeyCommand::List { client, json } => {
            let keys = api_keys::list(db, client.as_deref())
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&keys)?);
            } else {
                println!(
                    "{:<6}  {:<10}  {:<8}  {:<20}  LAST USED",
                    "ID", "CLIENT ID", "STATUS", "STARTS WITH"
                );
                for key in keys {
                    let status = if key.revoked_at.is_some() { "revoked" } else { "active" };
                    let last_used = key.last_used_at.map_or_else(|| "never".to_string(), |t| t.to_string());
                    println!(
                        "{:<6}  {:<10}  {:<8}  {:<20}  {last_used}",
                        key.id, key.client_id, status, key.starts_with
                    );
                }
            }
        }
        ApiKeyCommand::Revoke { id } => {
            let revoked = api_keys::revoke(db, id).await.map_err(|e| anyhow::anyhow!(e.message))?;
            if !revoked {
                anyhow::bail!("no active API key {id}");
            }
            println!("API key {id} revoked");
        }
    }
    Ok(())
}

/// `roadlog outbox list`: the sandbox's e-mails, for the operator (and the tests).
async fn outbox(database: &DatabaseArgs, command: OutboxCommand) -> anyhow::Result<()> {
    let OutboxCommand::List { to, json, limit } = command;
    if database.environment != Environment::Sandbox {
        anyhow::bail!("the outbox is listed only in the sandbox: production mail holds real invitations");
    }
    let db = roadlog::server::open_database(database).await?;
    let to = to.map(|t| t.trim().to_lowercase());
    let entries = roadlog::mail::outbox::latest(&db, to.as_deref(), limit.clamp(1, 10_000))
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&entries)?);
    } else {
        for entry in entries {
            let sent = if entry.sent_at.is_some() { "sent" } else { "queued" };
            println!(
                "#{} {} to {}: {}\n{}\n",
                entry.id,
                sent,
                entry.to,
                entry.subject,
                entry.body.trim_end()
            );
        }
    }
    Ok(())
}

/// `roadlog regulation rebuild`: recomputes a company's alerts over a period.
async fn regulation(database: &DatabaseArgs, command: RegulationCommand) -> anyhow::Result<()> {
    let RegulationCommand::Rebuild {
        company,
        from,
        to,
        json,
    } = command;
    let db = roadlog::server::open_database(database).await?;
    let report = roadlog::domain::alerts::triggers::rebuild(&db, company, from, to)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "company {company}, {from} to {to}: {} workers recomputed, {} days computed, {} alerts",
            report.workers, report.computed_days, report.alerts
        );
    }
    Ok(())
}

/// `roadlog missions auto-validate`: one run of the automatic validation.
async fn missions(database: &DatabaseArgs, command: MissionsCommand) -> anyhow::Result<()> {
    let MissionsCommand::AutoValidate { now, json } = command;
    let db = roadlog::server::open_database(database).await?;
    let as_of = now.map(|t| t.timestamp()).unwrap_or_else(roadlog::db::now);
    let report = roadlog::domain::missions::auto_validation::job::run(&db, as_of)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} validated on the workers' side, {} on the admins', {} dropped, {} failed (kept for a later run)",
            report.worker_validations, report.admin_validations, report.dropped, report.failed
        );
    }
    Ok(())
}

/// `roadlog users unknown-zones`: the accounts whose stored time zone is unknown.
async fn users(database: &DatabaseArgs, command: UsersCommand) -> anyhow::Result<()> {
    let UsersCommand::UnknownZones { json } = command;
    let db = roadlog::server::open_database(database).await?;
    let found = roadlog::domain::users::zones::unknown(&db)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else if found.is_empty() {
        println!("every account's time zone is an IANA name");
    } else {
        for account in &found {
            println!(
                "user {}: {:?} (read as Europe/Paris)",
                account.user_id, account.timezone_name
            );
        }
    }
    Ok(())
}

/// `roadlog sandbox seed`: demo data for a sandbox company, and what was created.
async fn sandbox(database: &DatabaseArgs, command: SandboxCommand) -> anyhow::Result<()> {
    let SandboxCommand::Seed { company, json } = command;
    if database.environment != Environment::Sandbox {
        anyhow::bail!("demo data is seeded only in the sandbox: production holds real companies");
    }
    let db = roadlog::server::open_database(database).await?;
    let seeder = roadlog::domain::sandbox::Seeder::Operator;
    let report = roadlog::domain::sandbox::seed(&db, database.environment, company, seeder)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "company {company}, {} to {}: {} demo workers, {} missions, {} activities, {} expenditures, {} comments, {} vehicles, {} validations by the workers, {} by admin {}, {} alerts",
        report.first_day,
        report.last_day,
        report.workers.len(),
        report.missions,
        report.activities,
        report.expenditures,
        report.comments,
        report.vehicles,
        report.worker_validations,
        report.admin_validations,
        report.admin_id,
        report.alerts
    );
    println!("\ndemo workers (passwords are shown this once):");
    for worker in &report.workers {
        println!(
            "  {:<10} {:<45} {:<26} {} {}: {}",
            worker.id, worker.email, worker.password, worker.first_name, worker.last_name, worker.profile
        );
    }
    println!("\nrules broken on purpose:");
    for breach in &report.breaches {
        println!("  {} user {} on {}", breach.check.as_str(), breach.user_id, breach.day);
    }
    Ok(())
}
