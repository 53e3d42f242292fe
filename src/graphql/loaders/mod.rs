//! Per-request data loaders: what a response mentions many times (users, companies, the rows
//! below a list of missions) is read in one query per batch, not one per object.

pub mod missions;
pub mod regulation;
pub mod users;

use async_graphql::dataloader::{DataLoader, HashMapCache};

/// How long a loader gathers keys before it queries. The resolvers of a list's items ask within
/// this window even in unoptimised builds, so a list makes one query per kind of object.
pub const BATCH_WINDOW: std::time::Duration = std::time::Duration::from_millis(2);

/// The loaders cache what they load for the request, which also lets list resolvers feed them
/// ahead of time (see [`missions::prefetch_missions`]).
pub type CachedLoader<T> = DataLoader<T, HashMapCache>;

/// Spawns a loader's batch as part of the request: inside its span (logged and counted as the
/// request's), its company scope (an employment token's) and on its connection, which a bare
/// `tokio::spawn` would all drop.
pub fn spawn<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    use tracing::Instrument;
    crate::domain::auth::scope::spawn(crate::db::request::carry(future.in_current_span()))
}
