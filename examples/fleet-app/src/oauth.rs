//! The OAuth 2.0 authorization code flow of a native application (RFC 6749 §4.1, RFC 8252):
//! PKCE with S256 (RFC 7636), a random `state` checked on return, the redirect received by a
//! listener on the loopback interface, the code exchanged at the token endpoint with the client's
//! credentials (HTTP Basic) and the PKCE verifier. The protocol is the `oauth2` crate's; the
//! requests go through the application's reqwest client.

use std::convert::Infallible;
use std::io::BufRead;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet, EndpointSet, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, TokenResponse, TokenUrl,
};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The path of the redirect URI on the listener.
const CALLBACK_PATH: &str = "/callback";

/// Asks for the client's credentials on standard input, after saying how to get them.
pub fn ask_credentials(redirect_uri: &str) -> anyhow::Result<(String, String)> {
    println!(
        "no client credentials given: register this redirect URI \
         (roadlog client create --name \"Fleet app\" --redirect-uri {redirect_uri}),"
    );
    println!("then type the client id and the client secret, one a line:");
    let mut lines = std::io::stdin().lock().lines();
    let mut next = |what: &str| -> anyhow::Result<String> {
        let line = lines
            .next()
            .ok_or_else(|| anyhow!("standard input ended before the {what}"))??;
        let line = line.trim().to_string();
        if line.is_empty() {
            bail!("empty {what}");
        }
        Ok(line)
    };
    Ok((next("client id")?, next("client secret")?))
}

/// The local listener the browser is sent back to.
pub struct Listener {
    listener: TcpListener,
    address: SocketAddr,
}

/// The query parameters of the redirect, every occurrence.
pub struct Callback(Vec<(String, String)>);

impl Callback {
    /// The one value of a parameter; absent and repeated parameters are both refused.
    fn one(&self, name: &str) -> anyhow::Result<Option<&str>> {
        let mut values = self
            .0
            .iter()
            .filter(|(key, _)| key == name)
            .map(|(_, value)| value.as_str());
        match (values.next(), values.next()) {
            (first, None) => Ok(first),
            _ => bail!("the redirect carries `{name}` more than once"),
        }
    }
}

impl Listener {
    /// Listens on a loopback address (a redirect listener elsewhere would take codes from the
    /// network).
    pub async fn bind(address: SocketAddr) -> anyhow::Result<Listener> {
        if !address.ip().is_loopback() {
            bail!("--listen must be a loopback address (127.0.0.1 or [::1]), not {address}");
        }
        let listener = TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        let address = listener.local_addr().context("the listener has no address")?;
        Ok(Listener { listener, address })
    }

    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://{}{CALLBACK_PATH}", self.address)
    }

    /// Serves the browser until it comes back to the redirect URI, or the time is up. Other paths
    /// (a browser's `/favicon.ico`) get a 404.
    pub async fn wait(self, timeout: Duration) -> anyhow::Result<Callback> {
        let (sender, mut received) = mpsc::channel::<Vec<(String, String)>>(1);
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = &mut deadline => bail!("timed out after {} s", timeout.as_secs()),
                Some(query) = received.recv() => return Ok(Callback(query)),
                accepted = self.listener.accept() => {
                    let (stream, _) = accepted.context("the redirect listener failed")?;
                    let sender = sender.clone();
                    // The connection finishes its answer on its own task, after `wait` returns.
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |request| {
                            let sender = sender.clone();
                            async move { Ok::<_, Infallible>(answer(&request, &sender)) }
                        });
                        let connection = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service);
                        if let Err(error) = connection.await {
                            eprintln!("fleet-app: redirect listener connection: {error}");
                        }
                    });
                }
            }
        }
    }
}

/// The page the browser gets back; a request to the redirect path is handed to `wait`.
fn answer<B>(
    request: &hyper::Request<B>,
    sender: &mpsc::Sender<Vec<(String, String)>>,
) -> hyper::Response<Full<Bytes>> {
    let page = |status: u16, text: &str| {
        hyper::Response::builder()
            .status(status)
            .header(http::header::CONTENT_TYPE, "text/html; charset=utf-8")
            .header(http::header::CACHE_CONTROL, "no-store")
            .body(Full::new(Bytes::from(format!(
                "<!doctype html><meta charset=\"utf-8\"><title>fleet-app</title><p>{text}</p>"
            ))))
            .expect("a well-formed response")
    };
    if request.method() != http::Method::GET || request.uri().path() != CALLBACK_PATH {
        return page(404, "Not found.");
    }
    let query = url::form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes())
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect();
    // Only the first redirect counts; a full channel means one was already received.
    let _ = sender.try_send(query);
    page(200, "fleet-app received the answer of Roadlog. You can close this tab.")
}

/// The OAuth client of the application: Roadlog's endpoints, its credentials, the redirect URI.
pub struct Flow {
    client: BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>,
}

/// What the application keeps between sending the browser away and its return.
pub struct Pending {
    state: CsrfToken,
    verifier: PkceCodeVerifier,
}

impl Flow {
    pub fn new(server: &str, client_id: &str, client_secret: &str, redirect_uri: &str) -> anyhow::Result<Flow> {
        let client = BasicClient::new(ClientId::new(client_id.to_string()))
            .set_client_secret(ClientSecret::new(client_secret.to_string()))
            .set_auth_uri(AuthUrl::new(format!("{server}/oauth/authorize")).context("authorization URL")?)
            .set_token_uri(TokenUrl::new(format!("{server}/api/oauth/token")).context("token URL")?)
            .set_redirect_uri(RedirectUrl::new(redirect_uri.to_string()).context("redirect URI")?);
        Ok(Flow { client })
    }

    /// The URL to send the user's browser to, with a fresh state and PKCE challenge.
    pub fn start(&self) -> (url::Url, Pending) {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state) = self
            .client
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .url();
        (url, Pending { state, verifier })
    }

    /// Checks the redirect (same `state`, no `error`) and exchanges its code for an access token.
    pub async fn finish(&self, http: &reqwest::Client, pending: Pending, callback: Callback) -> anyhow::Result<String> {
        // The state ties the redirect to the request this application made (RFC 6749 §10.12).
        if callback.one("state")? != Some(pending.state.secret().as_str()) {
            bail!("the redirect's state is not the one sent: refused");
        }
        if let Some(error) = callback.one("error")? {
            let description = callback.one("error_description")?.unwrap_or("");
            bail!("the authorization server answered {error}: {description}");
        }
        let code = callback
            .one("code")?
            .ok_or_else(|| anyhow!("the redirect carries no code"))?;
        let client = |request: oauth2::HttpRequest| {
            let http = http.clone();
            async move { send(&http, request).await }
        };
        let token = self
            .client
            .exchange_code(AuthorizationCode::new(code.to_string()))
            .set_pkce_verifier(pending.verifier)
            .request_async(&client)
            .await
            .map_err(|error| anyhow!("token request: {}", describe(&error)))?;
        Ok(token.access_token().secret().clone())
    }
}

/// One request of the `oauth2` crate through reqwest.
async fn send(http: &reqwest::Client, request: oauth2::HttpRequest) -> Result<oauth2::HttpResponse, std::io::Error> {
    let request = reqwest::Request::try_from(request).map_err(std::io::Error::other)?;
    let response = http.execute(request).await.map_err(std::io::Error::other)?;
    let mut answer = http::Response::builder().status(response.status());
    for (name, value) in response.headers() {
        answer = answer.header(name, value);
    }
    let body = response.bytes().await.map_err(std::io::Error::other)?;
    answer.body(body.to_vec()).map_err(std::io::Error::other)
}

/// The token endpoint's error, with its OAuth `error` and description when it gave one.
fn describe<RE: std::error::Error + 'static, T: oauth2::ErrorResponse + 'static>(
    error: &oauth2::RequestTokenError<RE, T>,
) -> String {
    match error {
        oauth2::RequestTokenError::ServerResponse(response) => response.to_string(),
        other => {
            let mut text = other.to_string();
            let mut source = std::error::Error::source(other);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            text
        }
    }
}
