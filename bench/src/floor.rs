//! The floor of the benchmark: the same web framework and GraphQL executor as Roadlog (warp and
//! async-graphql at the versions of the workspace's one lock file), with no middleware and no
//! guard. `{ hello }` and a 50-item list of `{ id name }` served from memory are the best any
//! GraphQL request can do on this stack; Roadlog's cases are measured as ratios of these.
//!
//! Given a database URL, the floor also answers the benchmark's `missions50` request itself —
//! `{ me { missions(first: 50) { edges { node { id name } } } } }` with a bearer token — with
//! the least a database-backed answer can do: sqlx's native driver for that database (no `Any`),
//! a pool of Roadlog's size, the token's SHA-256 looked up and the 50 rows read by one index
//! range, both on one connection. What that costs against the in-memory list is the price of
//! the database on this stack, which no code above it can win back; it bounds every read case.
//!
//! `shaped` answers, from memory, pages shaped as Roadlog's richer read cases answer theirs: the
//! same fields, nesting and item counts (a month's missions with their activities, expenditures,
//! comments, validations and vehicle; a company's missions with each activity's worker). What
//! these cost against the 50-item list is what the executor alone charges for such an answer,
//! before any database: a ceiling on those cases' ratios that no code under the executor can
//! lift.
//!
//! `--dressed` serves the same routes the way Roadlog serves its own: through Roadlog's listener
//! (connection cap, header-read timeout), its middleware (request id, tracing span and access
//! line, metrics, security headers, panic catching, body deadline), its CORS policy and its
//! compression negotiation, with Roadlog's log settings. What `{ hello }` loses there against
//! the bare floor is what those features, which the operator's and the hardening issues ask
//! for, cost any request before its route; `{ __typename }` is measured against it too.
//!
//! `--dressed=listener` puts on Roadlog's listener only, `--dressed=observe` the listener and the
//! middleware: the two steps in between, to see which part costs what.
//!
//! Usage: `roadlog-floor 127.0.0.1:PORT [sqlite://FILE | postgres://…] [--dressed[=listener|=observe]]`; answers
//! `POST /api/graphql` and `GET /health`. With a database, its two tables (`floor_tokens`,
//! `floor_items`) are made and filled at start-up if absent; the token is [`TOKEN`].

use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_graphql::{Context, EmptyMutation, EmptySubscription, Object, Schema, SimpleObject};
use sha2::{Digest, Sha256};
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use warp::Filter;

use shaped::{MissionPage, shaped_page};

#[path = "floor/shaped.rs"]
mod shaped;

/// The allocator Roadlog runs on, so that the ratios compare code on the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bearer token the database floor accepts (it owns [`HISTORY`] items).
const TOKEN: &str = "floor-token";
/// Items of the token's owner: as many as the benchmark's veteran has missions.
const HISTORY: i64 = 5_000;

/// One item, shaped as the missions page's nodes are.
#[derive(SimpleObject)]
struct Item {
    id: i64,
    name: String,
}

#[derive(SimpleObject)]
struct Edge {
    node: Item,
}

#[derive(SimpleObject)]
struct Page {
    edges: Vec<Edge>,
}

/// The caller, as the database found them from their token, with the request's connection.
struct Me {
    user_id: i64,
    connection: tokio::sync::Mutex<Connection>,
}

/// One pooled connection, held for the whole request as Roadlog holds one.
enum Connection {
    Sqlite(PoolConnection<sqlx::Sqlite>),
    Postgres(PoolConnection<sqlx::Postgres>),
}

#[Object]
impl Me {
    /// The caller's latest `first` items (at most 200), newest first: one index range.
    async fn missions(&self, #[graphql(default = 50)] first: i32) -> async_graphql::Result<Page> {
        let limit = i64::from(first.clamp(0, 200));
        let rows: Vec<(i64, String)> = match &mut *self.connection.lock().await {
            Connection::Sqlite(conn) => {
                sqlx::query_as(PAGE)
                    .bind(self.user_id)
                    .bind(limit)
                    .fetch_all(&mut **conn)
                    .await?
            }
            Connection::Postgres(conn) => {
                sqlx::query_as(PAGE)
                    .bind(self.user_id)
                    .bind(limit)
                    .fetch_all(&mut **conn)
                    .await?
            }
        };
        Ok(Page {
            edges: rows
                .into_iter()
                .map(|(id, name)| Edge {
                    node: Item { id, name },
                })
                .collect(),
        })
    }
}

const PAGE: &str = "SELECT id, name FROM floor_items WHERE user_id = $1 ORDER BY id DESC LIMIT $2";
const CALLER: &str = "SELECT user_id FROM floor_tokens WHERE token_hash = $1";

enum Database {
    None,
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// The request's bearer token, if any.
struct Bearer(Option<String>);

fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

struct Query;

#[Object]
impl Query {
    async fn hello(&self) -> &'static str {
        "world"
    }

    /// `count` items (at most 1,000), built per request as a resolver would read them.
    async fn list(&self, #[graphql(default = 50)] count: i32) -> Vec<Item> {
        (0..i64::from(count.clamp(0, 1000)))
            .map(|id| Item {
                id,
                name: format!("Mission {id}"),
            })
            .collect()
    }

    /// A page of missions shaped as Roadlog's richer read cases answer (see the module's doc).
    async fn shaped(
        &self,
        #[graphql(default = 50)] first: i32,
        #[graphql(default = 0)] activities: i32,
        #[graphql(default = 0)] expenditures: i32,
        #[graphql(default = 0)] comments: i32,
        #[graphql(default = 0)] validations: i32,
    ) -> MissionPage {
        shaped_page(first, activities, expenditures, comments, validations)
    }

    /// The token's owner, or null without a valid token.
    async fn me(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Me>> {
        let Some(token) = &ctx.data::<Bearer>()?.0 else {
            return Ok(None);
        };
        let hash = hash(token);
        let (user, connection) = match ctx.data::<Database>()? {
            Database::Sqlite(pool) => {
                let mut conn = pool.acquire().await?;
                let user: Option<(i64,)> = sqlx::query_as(CALLER).bind(&hash).fetch_optional(&mut *conn).await?;
                (user, Connection::Sqlite(conn))
            }
            Database::Postgres(pool) => {
                let mut conn = pool.acquire().await?;
                let user: Option<(i64,)> = sqlx::query_as(CALLER).bind(&hash).fetch_optional(&mut *conn).await?;
                (user, Connection::Postgres(conn))
            }
            Database::None => return Err("no database".into()),
        };
        Ok(user.map(|(user_id,)| Me {
            user_id,
            connection: tokio::sync::Mutex::new(connection),
        }))
    }
}

/// Connects with Roadlog's pool sizes and SQLite settings (WAL, `synchronous=NORMAL`, no ping
/// before acquiring), and makes and fills the tables on first use.
async fn connect(url: &str) -> anyhow::Result<Database> {
    let db = if url.starts_with("sqlite:") {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        Database::Sqlite(pool)
    } else {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .test_before_acquire(false)
            .connect(url)
            .await?;
        Database::Postgres(pool)
    };
    let statements = [
        "CREATE TABLE IF NOT EXISTS floor_tokens (token_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS floor_items (user_id BIGINT NOT NULL, id BIGINT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (user_id, id))",
    ];
    let seeded: (i64,) = match &db {
        Database::Sqlite(pool) => {
            for statement in statements {
                sqlx::query(statement).execute(pool).await?;
            }
            sqlx::query_as("SELECT COUNT(*) FROM floor_tokens")
                .fetch_one(pool)
                .await?
        }
        Database::Postgres(pool) => {
            for statement in statements {
                sqlx::query(statement).execute(pool).await?;
            }
            sqlx::query_as("SELECT COUNT(*) FROM floor_tokens")
                .fetch_one(pool)
                .await?
        }
        Database::None => (0,),
    };
    if seeded.0 == 0 {
        // Three owners, so the owner's range is one part of the table; one statement each.
        let fill = "INSERT INTO floor_items (user_id, id, name) \
                    SELECT u.user_id, s.n, 'Mission ' || s.n \
                    FROM (SELECT 1 AS user_id UNION ALL SELECT 2 UNION ALL SELECT 3) u, \
                         (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < $1) SELECT n FROM r) s";
        let token = "INSERT INTO floor_tokens (token_hash, user_id) VALUES ($1, 1)";
        match &db {
            Database::Sqlite(pool) => {
                sqlx::query(fill).bind(HISTORY).execute(pool).await?;
                sqlx::query(token).bind(hash(TOKEN)).execute(pool).await?;
            }
            Database::Postgres(pool) => {
                sqlx::query(fill).bind(HISTORY).execute(pool).await?;
                sqlx::query(token).bind(hash(TOKEN)).execute(pool).await?;
                // As Roadlog's database after its seeding (`seed`): statistics, pages marked
                // all-visible.
                sqlx::raw_sql("VACUUM ANALYZE floor_items, floor_tokens")
                    .execute(pool)
                    .await?;
            }
            Database::None => {}
        }
    }
    Ok(db)
}

/// How much of Roadlog's serving the floor puts on (`--dressed[=…]`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dress {
    /// Roadlog's listener only, around warp's service.
    Listener,
    /// The listener and the middleware (`middleware::around`), logging as Roadlog does.
    Observe,
    /// Everything Roadlog puts around its routes: listener, middleware, CORS, compression.
    Full,
}

/// Serves `routes` as Roadlog serves its own (see the module's `--dressed`), with the defaults
/// of `roadlog serve` and no trusted proxy or CORS origin; `dress` says how much of it.
async fn serve_dressed<F>(routes: F, addr: SocketAddr, dress: Dress) -> anyhow::Result<()>
where
    F: Filter + Clone + Send + Sync + 'static,
    F::Extract: warp::Reply,
{
    use roadlog::config::defaults;
    use roadlog::http::listener::{self, ConnectionLimits, ListenerState};
    use roadlog::http::{compression, cors, middleware};
    let _logs = roadlog::telemetry::logging::init(roadlog::telemetry::logging::LogFormat::Human);
    // Roadlog's middleware with the defaults, around services of different types.
    macro_rules! observe {
        ($service:expr) => {
            middleware::around(
                $service,
                Arc::new(roadlog::telemetry::Metrics::new()),
                Duration::from_secs(defaults::BODY_TIMEOUT_SECS),
                Arc::new(Vec::new()),
            )
        };
    }
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let limits = ConnectionLimits::new(
        defaults::MAX_CONNECTIONS,
        Duration::from_secs(defaults::HEADER_READ_TIMEOUT_SECS),
    );
    let state = ListenerState {
        open: tokio::sync::watch::channel(0).0,
        accepting: tokio::sync::watch::channel(false).0,
    };
    // Each dress is a service of its own type: one `serve` call per dress, until killed.
    macro_rules! serve {
        ($service:expr) => {
            listener::serve(
                listener,
                $service,
                limits,
                std::future::pending(),
                Duration::from_secs(1),
                state,
            )
            .await
        };
    }
    match dress {
        Dress::Listener => serve!(warp::service(routes)),
        Dress::Observe => serve!(observe!(warp::service(routes))),
        Dress::Full => {
            let cors = cors::Cors::new(warp::service(routes), cors::CorsPolicy::new(&[]));
            serve!(compression::compress(observe!(cors)))
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (flags, mut args): (Vec<String>, Vec<String>) = std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let mut dress = None;
    for flag in &flags {
        dress = Some(match flag.as_str() {
            "--dressed" => Dress::Full,
            "--dressed=observe" => Dress::Observe,
            "--dressed=listener" => Dress::Listener,
            unknown => anyhow::bail!("unknown flag {unknown}"),
        });
    }
    args.reverse();
    let addr: SocketAddr = args
        .pop()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| "127.0.0.1:8090".parse().expect("a valid default address"));
    let db = match args.pop() {
        Some(url) => connect(&url).await?,
        None => Database::None,
    };
    let schema = Schema::build(Query, EmptyMutation, EmptySubscription).data(db).finish();
    let graphql = warp::post()
        .and(warp::path!("api" / "graphql"))
        .and(warp::header::optional::<String>("authorization"))
        .and(warp::body::json())
        .then(move |authorization: Option<String>, request: async_graphql::Request| {
            let schema = schema.clone();
            let bearer = Bearer(authorization.and_then(|a| a.strip_prefix("Bearer ").map(str::to_string)));
            async move { warp::reply::json(&schema.execute(request.data(bearer)).await) }
        });
    let health = warp::get().and(warp::path("health")).map(|| "ok");
    if let Some(dress) = dress {
        return serve_dressed(graphql.or(health), addr, dress).await;
    }
    warp::serve(graphql.or(health)).run(addr).await;
    Ok(())
}
