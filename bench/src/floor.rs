//! The floor of the benchmark: the same web framework and GraphQL executor as Roadlog (warp and
//! async-graphql at the versions of the workspace's one lock file), with no database, no
//! middleware and no guard. `{ hello }` and a 50-item list of `{ id name }` served from memory are
//! the best any GraphQL request can do on this stack; Roadlog's cases are measured as ratios of
//! these.
//!
//! Usage: `roadlog-floor 127.0.0.1:PORT`; answers `POST /api/graphql` and `GET /health`.

use std::net::SocketAddr;

use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema, SimpleObject};
use warp::Filter;

/// One item of the in-memory list, shaped as the missions page's nodes are.
#[derive(SimpleObject)]
struct Item {
    id: i32,
    name: String,
}

struct Query;

#[Object]
impl Query {
    async fn hello(&self) -> &'static str {
        "world"
    }

    /// `count` items (at most 1,000), built per request as a resolver would read them.
    async fn list(&self, #[graphql(default = 50)] count: i32) -> Vec<Item> {
        (0..count.clamp(0, 1000))
            .map(|id| Item {
                id,
                name: format!("Mission {id}"),
            })
            .collect()
    }
}

#[tokio::main]
async fn main() {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| "127.0.0.1:8090".parse().expect("a valid default address"));
    let schema = Schema::new(Query, EmptyMutation, EmptySubscription);
    let graphql = warp::post()
        .and(warp::path!("api" / "graphql"))
        .and(warp::body::json())
        .then(move |request: async_graphql::Request| {
            let schema = schema.clone();
            async move { warp::reply::json(&schema.execute(request).await) }
        });
    let health = warp::get().and(warp::path("health")).map(|| "ok");
    warp::serve(graphql.or(health)).run(addr).await;
}
