//! Starting the service: database, migrations, environment check, routes, listener.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::config::Settings;
use crate::graphql::{Api, build_schema};
use crate::storage::Db;

/// Opens the database of the configured environment and brings its schema up to date.
pub async fn open_database(settings: &Settings) -> anyhow::Result<Db> {
    let db = Db::connect(&settings.database_url()).await?;
    db.migrate().await?;
    db.claim_environment(settings.environment).await?;
    Ok(db)
}

/// A server running in the background (tests, embedding).
pub struct RunningServer {
    pub addr: SocketAddr,
    pub db: Db,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting connections and waits for the server to finish.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts the server on an already bound listener and returns at once.
pub async fn start(settings: &Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let db = open_database(settings).await?;
    let addr = listener.local_addr()?;
    let api = Arc::new(Api {
        db: db.clone(),
        environment: settings.environment,
        // Without a configured public URL, the address actually bound (the port may be 0 in the settings).
        public_url: settings
            .public_url
            .clone()
            .map(|u| u.trim_end_matches('/').to_string())
            .unwrap_or_else(|| format!("http://{addr}")),
        oauth_token_lifetime: settings.oauth_token_lifetime,
    });
    let transport = match &settings.smtp_url {
        Some(url) => crate::mail::sender::Transport::Smtp(
            crate::mail::smtp::Relay::parse(url, &settings.mail_from).map_err(|e| anyhow::anyhow!(e))?,
        ),
        None => crate::mail::sender::Transport::Log,
    };
    let mailer = crate::mail::sender::spawn(db.clone(), transport);
    let schema = build_schema(api.clone());
    let routes = crate::http::routes(api, schema);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        warp::serve(routes)
            .incoming(listener)
            .graceful(async move {
                let _ = rx.await;
            })
            .run()
            .await;
        mailer.abort();
    });
    Ok(RunningServer {
        addr,
        db,
        shutdown: Some(tx),
        task,
    })
}

/// `roadlog serve`: runs until Ctrl-C or SIGTERM.
pub async fn run(settings: &Settings) -> anyhow::Result<()> {
    let listener = TcpListener::bind(settings.bind).await?;
    let server = start(settings, listener).await?;
    tracing::info!(
        address = %server.addr,
        environment = settings.environment.as_str(),
        public_url = %settings.public_url(),
        backend = ?server.db.backend,
        "roadlog is serving: GraphQL at /api/graphql"
    );
    shutdown_signal().await;
    tracing::info!("shutting down");
    server.stop().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}
