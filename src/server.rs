//! Starting and stopping the service: database, migrations, environment check, mail sender,
//! routes, listeners; each start-up failure names what failed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::app::App;
use crate::config::{DatabaseArgs, Settings, describe_database};
use crate::db::Db;
use crate::graphql::build_executors;
use crate::http::listener::{self, ConnectionLimits, ListenerState};
use crate::mail::sender::{MailEvent, Sender, Transport};
use crate::telemetry::Metrics;

/// Opens the database of the configured environment and brings its schema up to date; an error
/// names the database (never its password).
pub async fn open_database(args: &DatabaseArgs) -> anyhow::Result<Db> {
    args.check()?;
    let url = args.database_url()?;
    let shown = describe_database(&url);
    let db = Db::connect_with(&url, args.sqlite_synchronous)
        .await
        .with_context(|| format!("cannot open the database ({shown})"))?;
    db.migrate()
        .await
        .with_context(|| format!("cannot apply the migrations to the database ({shown})"))?;
    db.claim_environment(args.environment)
        .await
        .with_context(|| format!("the database ({shown}) cannot serve this environment"))?;
    // Accounts stored before zones were checked are read as Europe/Paris: said at every start.
    let unknown = crate::domain::users::zones::unknown(&db)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))
        .with_context(|| format!("cannot read the accounts' time zones ({shown})"))?;
    if !unknown.is_empty() {
        tracing::warn!(
            accounts = unknown.len(),
            "accounts hold an unknown time zone and are read as Europe/Paris: `roadlog users unknown-zones` lists them"
        );
    }
    Ok(db)
}

/// A server running in the background (tests, embedding).
pub struct RunningServer {
    pub addr: SocketAddr,
    /// Where `/metrics` is served when it is not on the public address.
    pub metrics_addr: Option<SocketAddr>,
    pub db: Db,
    pub metrics: Arc<Metrics>,
    /// The services behind the routes.
    pub app: Arc<App>,
    stop: watch::Sender<bool>,
    connections: watch::Receiver<usize>,
    accepting: watch::Receiver<bool>,
    mail_events: tokio::sync::broadcast::Sender<MailEvent>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl RunningServer {
    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Open client connections, as they change.
    pub fn connections(&self) -> watch::Receiver<usize> {
        self.connections.clone()
    }

    /// Whether the public listener accepts connections, as it changes.
    pub fn accepting(&self) -> watch::Receiver<bool> {
        self.accepting.clone()
    }

    /// Requests being answered, as they change.
    pub fn requests_in_flight(&self) -> watch::Receiver<usize> {
        self.metrics.in_flight_watch.subscribe()
    }

    /// Reports of the mail sender from now on.
    pub fn mail_events(&self) -> tokio::sync::broadcast::Receiver<MailEvent> {
        self.mail_events.subscribe()
    }

    /// Asks the server to stop: it refuses new connections at once, then drains.
    pub fn begin_stop(&self) {
        let _ = self.stop.send(true);
    }

    /// Stops accepting connections, lets requests in flight finish until the deadline, stops the
    /// mail sender (which releases what it claimed), and waits for all of it.
    pub async fn stop(mut self) {
        self.begin_stop();
        for task in self.tasks.drain(..) {
            let _ = task.await;
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Raises the soft limit of open files to the hard limit (where the system allows), and returns
/// the limit now in force: every connection holds a descriptor.
fn raise_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    Some(limit.rlim_cur)
}

/// The connection cap: the configured one, lowered so that connections, the database pool and
/// the process's own files fit within the file-descriptor limit.
fn connection_cap(configured: usize) -> usize {
    const RESERVED: u64 = 128;
    match raise_file_limit() {
        Some(files) if (configured as u64) + RESERVED > files => {
            let cap = files.saturating_sub(RESERVED).max(16) as usize;
            tracing::warn!(
                configured,
                cap,
                file_limit = files,
                "the connection cap is lowered to fit the open-files limit"
            );
            cap
        }
        _ => configured,
    }
}

/// Starts the server on an already bound listener and returns at once.
pub async fn start(settings: &Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let db = open_database(&settings.database).await?;
    let addr = listener.local_addr()?;
    let metrics_listener = match settings.metrics_bind {
        Some(bind) => Some(
            TcpListener::bind(bind)
                .await
                .with_context(|| format!("cannot listen on {bind} (--metrics-bind)"))?,
        ),
        None => None,
    };
    let metrics_addr = metrics_listener.as_ref().map(|l| l.local_addr()).transpose()?;
    let metrics = Arc::new(Metrics::new());
    let key_sealer = match &settings.key_encryption_key {
        Some(key) => crate::domain::export::sealing::Sealer::from_base64(key).context("ROADLOG_KEY_ENCRYPTION_KEY")?,
        None => crate::domain::export::sealing::Sealer::none(),
    };
    let sealed = crate::domain::export::keys_store::seal_stored_keys(&db, &key_sealer)
        .await
        .map_err(|_| anyhow::anyhow!("the stored signing keys cannot be read: they are encrypted and ROADLOG_KEY_ENCRYPTION_KEY is missing or wrong"))?;
    if sealed > 0 {
        tracing::info!(sealed, "signing keys stored in clear are now encrypted");
    }
    let secrets_open = crate::domain::users::totp::credential::sealed_secrets_open(&db, &key_sealer)
        .await
        .map_err(|error| anyhow::anyhow!("the second-factor secrets cannot be read: {error:?}"))?;
    anyhow::ensure!(
        secrets_open,
        "the second-factor (TOTP) secrets are encrypted and ROADLOG_KEY_ENCRYPTION_KEY is missing or wrong: \
         start with the key they were sealed with (logins with a second factor would fail)"
    );
    let csrf_key = crate::domain::auth::csrf_key::CsrfKey::load(&db)
        .await
        .map_err(|error| anyhow::anyhow!("the CSRF key cannot be read or stored: {error:?}"))?;
    let export_links = crate::domain::export::jobs::links::LinkKey::load(&db)
        .await
        .map_err(|error| anyhow::anyhow!("the export links' key cannot be read or stored: {error:?}"))?;
    let xlsx_signing_key = crate::domain::export::jobs::build::signing_key(&db, settings.xlsx_signing_key.as_deref())
        .await
        .map_err(|error| anyhow::anyhow!("the workbooks' signing key cannot be read or stored: {error:?}"))?;
    let app = Arc::new(App {
        db: db.clone(),
        environment: settings.environment(),
        // Without a configured public URL, the address actually bound (the port may be 0 in the settings).
        public_url: settings
            .public_url
            .clone()
            .map(|u| u.trim_end_matches('/').to_string())
            .unwrap_or_else(|| format!("http://{addr}")),
        oauth_token_lifetime: settings.oauth_token_lifetime,
        metrics: metrics.clone(),
        metrics_public: settings.metrics_bind.is_none(),
        body_timeout: Duration::from_secs(settings.body_timeout),
        client_limiter: crate::domain::auth::client_rate::ClientLimiter::new(settings.client_rate_limit),
        vendor_limiter: crate::domain::auth::client_rate::ClientLimiter::new(settings.vendor_rate_limit),
        trusted_proxies: settings.trusted_proxies.clone(),
        cors_origins: settings.cors_origins.clone(),
        key_sealer,
        csrf_key,
        export_links,
        xlsx_signing_key,
        console: settings.console,
        // This server does not reach INSEE's register: sign-ups go on without it, as the
        // reference's do when it fails.
        company_register: Arc::new(crate::domain::companies::register::Offline),
    });
    let transport = match &settings.smtp_url {
        Some(url) => Transport::Smtp(Box::new(
            crate::mail::smtp::Relay::parse(url, &settings.mail_from).map_err(|e| anyhow::anyhow!(e))?,
        )),
        None => Transport::Log,
    };
    let (stop, stopped) = watch::channel(false);
    let sender = Sender::new(db.clone(), transport);
    let mail_events = sender.events_sender();
    let mailer = sender.spawn(stopped.clone());
    let schema = build_executors(app.clone());
    let service = crate::routes::service(app.clone(), schema);
    let limits = ConnectionLimits::new(
        connection_cap(settings.max_connections),
        Duration::from_secs(settings.header_read_timeout),
    );
    let deadline = Duration::from_secs(settings.shutdown_timeout);
    let (open_tx, connections) = watch::channel(0usize);
    let (accepting_tx, accepting) = watch::channel(true);
    let mut tasks = Vec::new();
    if settings.card_key_pool > 0 {
        tasks.push(tokio::spawn(crate::domain::export::key_pool::keep_filled(
            db.clone(),
            app.key_sealer.clone(),
            settings.card_key_pool,
            stopped.clone(),
        )));
    }
    tasks.push(crate::domain::missions::auto_validation::job::spawn(
        db.clone(),
        Duration::from_secs(settings.auto_validation_period),
        stopped.clone(),
    ));
    if settings.export_workers > 0 {
        tasks.push(crate::domain::export::jobs::worker::spawn(
            db.clone(),
            settings.export_workers,
            app.xlsx_signing_key.clone(),
            stopped.clone(),
        ));
    }
    let until_stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    if let Some(metrics_listener) = metrics_listener {
        let service = crate::routes::metrics_service(app.clone());
        let stopped = stopped.clone();
        tasks.push(tokio::spawn(async move {
            listener::serve(
                metrics_listener,
                service,
                limits,
                until_stopped(stopped),
                deadline,
                ListenerState {
                    open: watch::channel(0).0,
                    accepting: watch::channel(false).0,
                },
            )
            .await;
        }));
    }
    {
        let metrics = metrics.clone();
        let mut open = connections.clone();
        tasks.push(tokio::spawn(async move {
            while open.changed().await.is_ok() {
                metrics.connections.set(*open.borrow() as i64);
            }
        }));
    }
    let stopped_public = stopped.clone();
    tasks.push(tokio::spawn(async move {
        let state = ListenerState {
            open: open_tx,
            accepting: accepting_tx,
        };
        listener::serve(
            listener,
            service,
            limits,
            until_stopped(stopped_public),
            deadline,
            state,
        )
        .await;
        // The sender is stopped once requests are done: they may have queued mail.
        let _ = mailer.await;
    }));
    Ok(RunningServer {
        addr,
        metrics_addr,
        db,
        metrics,
        app,
        stop,
        connections,
        accepting,
        mail_events,
        tasks,
    })
}

/// `roadlog serve`: runs until Ctrl-C or SIGTERM, then stops gracefully.
pub async fn run(settings: &Settings) -> anyhow::Result<()> {
    // Listen for the signals before anything else: a SIGTERM that arrives while the server
    // starts must stop it gracefully, not kill it.
    let stop_requested = shutdown_signal()?;
    settings.database.check()?;
    let database = describe_database(&settings.database.database_url()?);
    tracing::info!(
        environment = settings.environment().as_str(),
        %database,
        bind = %settings.bind,
        public_url = %settings.public_url(),
        "starting roadlog"
    );
    let listener = TcpListener::bind(settings.bind)
        .await
        .with_context(|| format!("cannot listen on {}", settings.bind))?;
    let server = start(settings, listener).await?;
    tracing::info!(
        address = %server.addr,
        metrics = %server.metrics_addr.map(|a| a.to_string()).unwrap_or_else(|| "/metrics".into()),
        "roadlog is serving: GraphQL at /api/graphql"
    );
    stop_requested.await;
    tracing::info!(
        deadline_secs = settings.shutdown_timeout,
        "stopping: finishing requests in flight"
    );
    server.stop().await;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves at the first Ctrl-C or SIGTERM; the handlers are installed when this is called.
fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot listen for SIGTERM")?;
    #[cfg(unix)]
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .context("cannot listen for SIGINT")?;
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = terminate.recv() => {},
            _ = interrupt.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    })
}
