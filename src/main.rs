//! The `roadlog` command: `serve` (the default) and `migrate`.

use clap::Parser;
use roadlog::config::{C1bCommand, Cli, ClientCommand, Command};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .init();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => roadlog::server::run(&cli.settings).await,
        Command::Migrate => {
            let db = roadlog::server::open_database(&cli.settings).await?;
            tracing::info!(backend = ?db.backend, "migrations applied");
            Ok(())
        }
        Command::C1b {
            command: C1bCommand::Inspect { file, root_key },
        } => inspect(&file, root_key.as_deref()),
        Command::Client { command } => client(&cli.settings, command).await,
    }
}

/// `roadlog c1b inspect`: the report as JSON on standard output; a structural violation is
/// reported on standard error with exit status 1.
fn inspect(file: &std::path::Path, root_key: Option<&std::path::Path>) -> anyhow::Result<()> {
    let bytes = std::fs::read(file)?;
    let root = root_key.map(std::fs::read).transpose()?;
    match roadlog::export::c1b::inspect(&bytes, root.as_deref()) {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(())
        }
        Err(violation) => {
            eprintln!("{}: {violation}", file.display());
            std::process::exit(1);
        }
    }
}

/// `roadlog client …`: the operator's registry of OAuth clients.
async fn client(settings: &roadlog::config::Settings, command: ClientCommand) -> anyhow::Result<()> {
    let db = roadlog::server::open_database(settings).await?;
    let outcome = match command {
        ClientCommand::Create { name, redirect_uris } => roadlog::oauth::clients::create(&db, &name, &redirect_uris)
            .await
            .map(|created| serde_json::to_string_pretty(&created).unwrap_or_default()),
        ClientCommand::List => roadlog::oauth::clients::list(&db)
            .await
            .map(|clients| serde_json::to_string_pretty(&clients).unwrap_or_default()),
        ClientCommand::Revoke { id } => match roadlog::oauth::clients::revoke(&db, &id).await {
            Ok(true) => Ok(format!("client {id} revoked")),
            Ok(false) => {
                eprintln!("no active client {id}");
                std::process::exit(1);
            }
            Err(e) => Err(e),
        },
    };
    match outcome {
        Ok(text) => {
            println!("{text}");
            Ok(())
        }
        Err(error) => {
            eprintln!("{}", error.message);
            std::process::exit(2);
        }
    }
}
