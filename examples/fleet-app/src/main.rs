//! `fleet-app`: what a third-party fleet application does with Roadlog, written against the
//! published client SDK (`roadlog-client`) only.
//!
//! 1. OAuth 2.0 authorization code flow with PKCE (S256), with the `oauth2` crate: it listens for
//!    the redirect on a local address (127.0.0.1, any free port by default), prints the URL to
//!    open in a browser, checks the `state` that comes back and exchanges the code for a token;
//! 2. a typed GraphQL query with cynic (`me { … missions … adminedCompanies … }`);
//! 3. the C1B export of the companies the user administers, through the progenitor client, and
//!    an independent check of every file: its certificate chain from the root key the server
//!    publishes (`EC_PK.bin`) and the signature of each of its elementary files (`c1b.rs`).
//!
//! Every step that fails ends the program with a message and status 1.

mod c1b;
mod export;
mod me;
mod oauth;

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;

/// Signs in to Roadlog with OAuth 2.0, reads your profile and missions, downloads the C1B export
/// of the companies you administer and checks its signatures.
#[derive(Parser, Debug)]
#[command(name = "fleet-app", version)]
struct Args {
    /// The Roadlog server (its public URL).
    #[arg(long, env = "ROADLOG_URL", default_value = "http://127.0.0.1:8080")]
    server: url::Url,
    /// Where to listen for the OAuth redirect; the redirect URI is `http://ADDRESS/callback`
    /// and must be registered for the client exactly (port 0: any free port, registered after).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// The OAuth client id (`roadlog client create`); asked on standard input when absent.
    #[arg(long, env = "ROADLOG_CLIENT_ID")]
    client_id: Option<String>,
    /// The OAuth client secret; asked on standard input when absent.
    #[arg(long, env = "ROADLOG_CLIENT_SECRET", hide_env_values = true)]
    client_secret: Option<String>,
    /// How long to wait for the browser to come back, in seconds.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Also write the downloaded export (`fichiers_C1B.zip`) and root key (`EC_PK.bin`) here.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Args::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fleet-app: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let server = args.server.as_str().trim_end_matches('/').to_string();
    if !["http", "https"].contains(&args.server.scheme()) {
        bail!("--server must be an http(s) URL");
    }
    let listener = oauth::Listener::bind(args.listen).await?;
    println!("redirect URI: {}", listener.redirect_uri());
    let (client_id, client_secret) = match (args.client_id, args.client_secret) {
        (Some(id), Some(secret)) => (id, secret),
        (None, None) => oauth::ask_credentials(&listener.redirect_uri())?,
        _ => bail!("give both --client-id and --client-secret, or neither"),
    };

    // No redirects are followed: the token endpoint answers directly, and following one would let
    // a server send the client's credentials elsewhere.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .context("cannot build the HTTP client")?;
    let flow = oauth::Flow::new(&server, &client_id, &client_secret, &listener.redirect_uri())?;
    let (authorize_url, pending) = flow.start();
    println!("authorize URL: {authorize_url}");
    println!("open it in a browser, log in and allow fleet-app; waiting for the redirect…");
    let callback = listener
        .wait(Duration::from_secs(args.timeout))
        .await
        .context("no authorization came back")?;
    let token = flow
        .finish(&http, pending, callback)
        .await
        .context("the authorization failed")?;
    println!("access token received (OAuth 2.0 authorization code with PKCE S256, state checked)");

    compare_contract(&http, &server).await;
    let me = me::read(&http, &server, &token).await?;
    println!(
        "signed in as {} {} (user #{}), {} recent mission(s):",
        me.first_name,
        me.last_name,
        me.id,
        me.missions.len()
    );
    for mission in &me.missions {
        let received = chrono::DateTime::from_timestamp(mission.reception_time.0, 0)
            .map(|t| t.to_rfc3339())
            .unwrap_or_default();
        println!(
            "  mission #{} {:?} of company #{}, received {received}",
            mission.id, mission.name, mission.company_id
        );
    }
    if me.admined_companies.is_empty() {
        bail!("the user administers no company: the C1B export needs a company admin");
    }
    for company in &me.admined_companies {
        println!("administers company #{} {:?}", company.id, company.name);
    }
    let companies: Vec<i64> = me.admined_companies.iter().map(|c| i64::from(c.id)).collect();
    println!("exporting companies {companies:?} with digital signatures");

    let report = export::download_and_check(&server, &token, &companies, args.out.as_deref()).await?;
    println!(
        "root key {}: {} C1B file(s), each with a valid certificate chain and {} valid EF signatures in all",
        report.root_key_id, report.files, report.signatures
    );
    println!("fleet-app: every step passed");
    Ok(())
}

/// Whether the server speaks the contract this build of the SDK was generated from (a
/// difference is reported, not fatal: additions keep older clients working).
async fn compare_contract(http: &reqwest::Client, server: &str) {
    let served = async {
        let response = http
            .get(format!("{server}/schema.graphql"))
            .send()
            .await?
            .error_for_status()?;
        response.text().await
    };
    match served.await {
        Ok(sdl) if sdl == roadlog_client::SDL => println!("server schema: the one this client was built from"),
        Ok(_) => println!("server schema: differs from the one this client was built from"),
        Err(error) => println!("server schema: not readable ({error})"),
    }
}
