//! The `roadlog` command: `serve` (the default) and `migrate`.

use clap::Parser;
use roadlog::config::{Cli, Command};
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
    }
}
