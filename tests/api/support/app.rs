//! The test application: the real server on a random port with a fresh database (a SQLite file,
//! or a new PostgreSQL database), and helpers that talk to it over HTTP.

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use reqwest::StatusCode;
use roadlog::config::{Environment, Settings};
use roadlog::server::RunningServer;
use serde_json::{Value, json};

use super::cleanup;

/// Which database a test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A SIREN no other call answers in this run of the tests: a SIREN is signed up once, and a test
/// may sign several companies up (on one database, or on a server restarted on it). They run
/// from 800000001 up, away from the SIRENs that tests write out.
pub fn new_siren() -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}", 800_000_000 + n)
}

/// A running server and a client for it.
pub struct TestApp {
    pub server: RunningServer,
    pub client: reqwest::Client,
    pub backend: Backend,
    /// The database the server uses (for command-line tests against the same data).
    pub database_url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    Dir(std::path::PathBuf),
    Database { admin_url: String, name: String },
}

/// The local PostgreSQL server of the development and CI machines.
const LOCAL_POSTGRES: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// The PostgreSQL server for tests: `TEST_DATABASE_URL` when set (then it must work), otherwise
/// the local server when one listens on 127.0.0.1:5432, otherwise none (PostgreSQL runs skipped).
pub fn postgres_url() -> Option<String> {
    if let Some(url) = std::env::var("TEST_DATABASE_URL").ok().filter(|u| !u.is_empty()) {
        return Some(url);
    }
    static LOCAL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let listening = *LOCAL.get_or_init(|| {
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 5432));
        std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(300)).is_ok()
    });
    listening.then(|| LOCAL_POSTGRES.to_string())
}

fn with_database(url: &str, name: &str) -> String {
    let mut parsed = url::Url::parse(url).expect("TEST_DATABASE_URL is a URL");
    parsed.set_path(&format!("/{name}"));
    parsed.to_string()
}

/// A fresh, empty database of `backend`, registered for removal. A test that asks for
/// PostgreSQL on a machine without it fails here: the harness reports such tests as ignored
/// before they start (`Needs::Postgres`), so this is reached only when one is run on purpose
/// (`--include-ignored`), and a test never passes without having run.
async fn new_database(backend: Backend) -> (String, Cleanup) {
    match backend {
        Backend::Sqlite => {
            let dir = cleanup::new_dir();
            (
                format!("sqlite://{}/roadlog.db?mode=rwc", dir.display()),
                Cleanup::Dir(dir),
            )
        }
        Backend::Postgres => {
            let admin_url =
                postgres_url().expect("this test needs PostgreSQL: set TEST_DATABASE_URL or run one on 127.0.0.1:5432");
            let name = cleanup::unique_name();
            sqlx::any::install_default_drivers();
            let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&admin_url)
                .await
                .expect("TEST_DATABASE_URL must be reachable");
            let create = sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"));
            sqlx::query(create).execute(&mut conn).await.unwrap();
            cleanup::register_database(&admin_url, &name);
            (with_database(&admin_url, &name), Cleanup::Database { admin_url, name })
        }
    }
}

/// The URL of a fresh, empty PostgreSQL database, removed when the run ends (a test that
/// needs PostgreSQL: `#[needs(Postgres)]`).
pub async fn postgres_database() -> String {
    new_database(Backend::Postgres).await.0
}

impl TestApp {
    /// The one integer a statement of the test answers (a count, usually), read on the
    /// server's pool.
    pub async fn scalar(&self, sql: &str) -> i64 {
        let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql.to_string()))
            .fetch_one(&self.server.db.pool)
            .await
            .unwrap();
        n
    }

    /// Starts a server on a fresh database of `backend`.
    pub async fn spawn(backend: Backend) -> TestApp {
        Self::spawn_in(backend, Environment::Sandbox).await
    }

    pub async fn spawn_in(backend: Backend, environment: Environment) -> TestApp {
        Self::spawn_with(backend, |settings| {
            settings.database.environment = environment;
            // A test that asks for SQLite in production knows what it asks for.
            settings.database.allow_sqlite_in_production = true;
        })
        .await
    }

    /// Starts a server whose settings `adjust` changes first.
    pub async fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Settings)) -> TestApp {
        let (database_url, cleanup) = new_database(backend).await;
        Self::start_on(backend, database_url, cleanup, adjust).await
    }

    /// Starts a server on a database that `seed` filled first (through the service's own
    /// library, before any server runs on it).
    pub async fn spawn_seeded<F, Fut>(backend: Backend, adjust: impl FnOnce(&mut Settings), seed: F) -> TestApp
    where
        F: FnOnce(roadlog::db::Db) -> Fut,
        Fut: Future<Output = ()>,
    {
        let (database_url, cleanup) = new_database(backend).await;
        let args = roadlog::config::DatabaseArgs::new(Environment::Sandbox, Some(database_url.clone()));
        let db = roadlog::server::open_database(&args).await.expect("the database opens");
        seed(db.clone()).await;
        db.pool.close().await;
        Self::start_on(backend, database_url, cleanup, adjust).await
    }

    async fn start_on(
        backend: Backend,
        database_url: String,
        cleanup: Cleanup,
        adjust: impl FnOnce(&mut Settings),
    ) -> TestApp {
        if std::env::var_os("RUST_LOG").is_some() {
            super::statements::install();
        }
        let mut settings = Settings::new(Environment::Sandbox, Some(database_url.clone()));
        settings.bind = "127.0.0.1:0".parse().unwrap();
        // No background key generation in tests (a core for ~15 s per server): the tests of the
        // pool turn it on.
        settings.card_key_pool = 0;
        adjust(&mut settings);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = roadlog::server::start(&settings, listener)
            .await
            .expect("server starts");
        TestApp {
            server,
            database_url,
            client: reqwest::Client::new(),
            backend,
            cleanup,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.url())
    }

    /// Stops the server and removes its database.
    pub async fn cleanup(self) {
        let TestApp { server, cleanup, .. } = self;
        server.db.pool.close().await;
        server.stop().await;
        match cleanup {
            Cleanup::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::Database { admin_url, name } => {
                cleanup::drop_database(&admin_url, &name).await;
                cleanup::forget_database(&name);
            }
        }
    }

    /// Sends a GraphQL request as JSON and returns the status and the parsed body.
    pub async fn graphql(&self, query: &str, variables: Value, token: Option<&str>) -> (StatusCode, Value) {
        let mut request = self
            .client
            .post(self.url("/api/graphql"))
            .json(&json!({ "query": query, "variables": variables }));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status();
        let body = response.json::<Value>().await.expect("JSON body");
        (status, body)
    }

    /// Signs a user up and returns `(access token, refresh token)`.
    pub async fn sign_up(&self, email: &str, password: &str) -> (String, String) {
        let (status, body) = self
            .graphql(
                "mutation($email: Email!, $password: String!) { signUp { user(email: $email, password: $password, firstName: \"Jeanne\", lastName: \"Martin\") { accessToken refreshToken } } }",
                json!({ "email": email, "password": password }),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let tokens = &body["data"]["signUp"]["user"];
        assert!(tokens.is_object(), "sign-up failed: {body}");
        (
            tokens["accessToken"].as_str().unwrap().to_string(),
            tokens["refreshToken"].as_str().unwrap().to_string(),
        )
    }
}

/// The error codes of a GraphQL answer, in order.
pub fn codes(body: &Value) -> Vec<String> {
    body["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| e["extensions"]["code"].as_str().unwrap_or("<none>").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `body` against a fresh server of `backend`, then removes the server and its database,
/// also when `body` panics (the panic is passed on, so the test still fails).
pub async fn with_app(
    backend: Backend,
    body: for<'a> fn(&'a TestApp) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'a>>,
) {
    let app = TestApp::spawn(backend).await;
    let outcome = AssertUnwindSafe(body(&app)).catch_unwind().await;
    app.cleanup().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// A signed-up user of a test.
#[derive(Clone, Debug)]
pub struct TestUser {
    pub id: i64,
    pub email: String,
    pub token: String,
}

impl TestApp {
    /// A user with a confirmed address (as if the confirmation link had been opened) and a
    /// login session, built through the service's library rather than `signUp`, so that no
    /// confirmation e-mail is queued: tests count and deliver only the mail they cause.
    /// `signUp` itself is tested in `accounts` and `account_pages`.
    pub async fn new_user(&self, email: &str) -> TestUser {
        use roadlog::domain::users::{accounts, sessions};
        let email = roadlog::graphql::scalars::normalize_email(email).expect("a valid e-mail");
        let password_hash = roadlog::domain::auth::password::hash(
            "long enough secret".into(),
            &roadlog::domain::auth::password::Hashing::queued(),
        )
        .await
        .unwrap();
        let db = &self.server.db;
        let mut tx = db.begin_write().await.unwrap();
        let account = accounts::HashedAccount {
            email: &email,
            password_hash: &password_hash,
            first_name: "Jeanne",
            last_name: "Martin",
            timezone_name: "Europe/Paris",
            chosen_by_owner: true,
        };
        let id = accounts::insert_hashed(&mut tx, &account).await.unwrap();
        tx.commit().await.unwrap();
        let tokens = sessions::open(db, self.server.app.environment, id).await.unwrap();
        TestUser {
            id,
            email,
            token: tokens.access_token,
        }
    }

    /// Runs an operation as `user`; the answer must be HTTP 200.
    pub async fn as_user(&self, user: &TestUser, query: &str, variables: Value) -> Value {
        let (status, body) = self.graphql(query, variables, Some(&user.token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    /// `signUp.company` as `admin`, with a SIREN of its own ([`new_siren`]); returns the company id.
    pub async fn new_company(&self, admin: &TestUser, name: &str) -> i64 {
        let body = self
            .as_user(
                admin,
                "mutation($n: String!, $s: String!) { signUp { company(usualName: $n, siren: $s) { company { id } } } }",
                json!({ "n": name, "s": new_siren() }),
            )
            .await;
        body["data"]["signUp"]["company"]["company"]["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("company created: {body}"))
    }

    /// `createEmployment` of `user_id` by `admin`; returns the body.
    pub async fn employ(&self, admin: &TestUser, company_id: i64, user_id: i64, extra: &str) -> Value {
        let query = format!(
            "mutation($c: Int!, $u: Int!) {{ employments {{ createEmployment(companyId: $c, userId: $u{extra}) {{ id validationStatus isPrimary status }} }} }}"
        );
        self.as_user(admin, &query, json!({ "c": company_id, "u": user_id }))
            .await
    }

    /// Employs `worker` in the company from today (UTC) and has them accept; returns the
    /// employment id.
    pub async fn hire(&self, admin: &TestUser, company_id: i64, worker: &TestUser) -> i64 {
        self.hire_with(admin, company_id, worker, "").await
    }

    /// [`hire`](Self::hire) from a week ago, for a test that logs time shortly before now: an
    /// employment from today (UTC) does not cover the hours before midnight, whatever the hour
    /// the suite runs at.
    pub async fn hire_a_week_ago(&self, admin: &TestUser, company_id: i64, worker: &TestUser) -> i64 {
        let start = chrono::Utc::now().date_naive() - chrono::Days::new(7);
        self.hire_with(admin, company_id, worker, &format!(", startDate: \"{start}\""))
            .await
    }

    async fn hire_with(&self, admin: &TestUser, company_id: i64, worker: &TestUser, extra: &str) -> i64 {
        let body = self.employ(admin, company_id, worker.id, extra).await;
        let id = body["data"]["employments"]["createEmployment"]["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("{body}"));
        let body = self
            .as_user(
                worker,
                "mutation($e: Int!) { employments { validateEmployment(employmentId: $e) { id } } }",
                json!({ "e": id }),
            )
            .await;
        assert!(body["errors"].is_null(), "{body}");
        id
    }
}
