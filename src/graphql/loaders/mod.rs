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
