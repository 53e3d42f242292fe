//! The `roadlog` command: `serve` (the default) and `migrate`.

use clap::Parser;
use roadlog::config::{C1bCommand, Cli, Command};
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
