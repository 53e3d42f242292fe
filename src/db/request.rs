//! One connection per request: the statements a GraphQL request runs through its [`Db`] (its
//! caller, its resolvers, its loaders) share one pooled connection, taken at the first statement
//! and given back when the request ends. The request's `Db` is a value ([`Db::for_request`]),
//! placed in the request's data and handed to what runs for it; a `Db` made otherwise runs each
//! statement on a connection of the pool.
//!
//! Why: a statement run on the pool takes a connection and gives it back, and sqlx pings every
//! connection it gets back before it can be taken again — a second round trip per statement (on
//! SQLite a second message to the connection's thread). A recap or a missions page runs five to
//! fifteen statements; with the request's own connection it pays one acquisition and one ping.
//!
//! The statements of one request take turns on its connection (a request's resolvers may run
//! concurrently): a lock per statement, never held between statements. A request that also
//! takes connections of its own (`db.pool.acquire()`, a write transaction) may hold its shared
//! connection meanwhile, so the requests holding one are counted ([`Gate`]): they never hold
//! every connection of the pool, and such a second acquisition always finds one in time.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use sqlx::Either;
use sqlx::any::{AnyQueryResult, AnyRow};
use sqlx::pool::PoolConnection;
use sqlx::{Any, Error, Execute, Executor};
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};

use super::Db;

/// The connection of one request, taken at its first statement.
#[derive(Debug)]
pub(super) struct Shared {
    gate: Arc<Semaphore>,
    slot: Mutex<Slot>,
}

#[derive(Debug, Default)]
struct Slot {
    /// Dropped after the connection, so the next request waits until it is back in the pool.
    connection: Option<PoolConnection<Any>>,
    permit: Option<OwnedSemaphorePermit>,
}

/// How many requests may hold a connection of their own at once: the pool's size less a margin
/// for the connections they and the rest of the service take besides.
#[derive(Debug, Clone)]
pub struct Gate(Arc<Semaphore>);

impl Gate {
    /// For a pool of `pool_size` connections: at most `pool_size - 2` of them held by requests.
    pub fn for_pool(pool_size: u32) -> Gate {
        Gate(Arc::new(Semaphore::new(pool_size.saturating_sub(2).max(1) as usize)))
    }
}

impl Db {
    /// This database for one request: the statements run through the returned `Db` (and its
    /// clones) share one connection, taken at the first of them and given back when the last
    /// clone is dropped.
    pub fn for_request(&self) -> Db {
        let shared = Shared {
            gate: self.request_gate.0.clone(),
            slot: Mutex::new(Slot::default()),
        };
        Db {
            request: Some(Arc::new(shared)),
            ..self.clone()
        }
    }
}

impl Shared {
    /// The connection, taken from the pool the first time (after a place at the gate).
    async fn lock(
        &self,
        pool: &sqlx::AnyPool,
    ) -> Result<tokio::sync::MappedMutexGuard<'_, PoolConnection<Any>>, Error> {
        let mut slot = self.slot.lock().await;
        if slot.connection.is_none() {
            if slot.permit.is_none() {
                slot.permit = Some(self.gate.clone().acquire_owned().await.map_err(|_| Error::PoolClosed)?);
            }
            slot.connection = Some(pool.acquire().await?);
        }
        tokio::sync::MutexGuard::try_map(slot, |slot| slot.connection.as_mut()).map_err(|_| Error::PoolClosed)
    }
}

impl<'c> Executor<'c> for &'c Db {
    type Database = Any;

    fn fetch_many<'e, 'q: 'e, E>(self, query: E) -> BoxStream<'e, Result<Either<AnyQueryResult, AnyRow>, Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let Some(shared) = &self.request else {
            return self.pool.fetch_many(query);
        };
        // Collected under the lock, so that no other statement of the request waits on a stream
        // its caller has not finished reading.
        futures::stream::once(async move {
            let steps: Vec<_> = match shared.lock(&self.pool).await {
                Ok(mut conn) => (&mut **conn).fetch_many(query).collect().await,
                Err(error) => vec![Err(error)],
            };
            futures::stream::iter(steps)
        })
        .flatten()
        .boxed()
    }

    fn fetch_all<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<Vec<AnyRow>, Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let Some(shared) = &self.request else {
            return self.pool.fetch_all(query);
        };
        Box::pin(async move {
            let mut conn = shared.lock(&self.pool).await?;
            (&mut **conn).fetch(query).try_collect().await
        })
    }

    fn fetch_optional<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<Option<AnyRow>, Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let Some(shared) = &self.request else {
            return self.pool.fetch_optional(query);
        };
        Box::pin(async move {
            let mut conn = shared.lock(&self.pool).await?;
            (&mut **conn).fetch_optional(query).await
        })
    }

    fn execute<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<AnyQueryResult, Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let Some(shared) = &self.request else {
            return self.pool.execute(query);
        };
        Box::pin(async move {
            let mut conn = shared.lock(&self.pool).await?;
            (&mut **conn).execute(query).await
        })
    }

    fn prepare_with<'e>(
        self,
        sql: sqlx::SqlStr,
        parameters: &'e [sqlx::any::AnyTypeInfo],
    ) -> BoxFuture<'e, Result<sqlx::any::AnyStatement, Error>>
    where
        'c: 'e,
    {
        self.pool.prepare_with(sql, parameters)
    }

    fn describe<'e>(self, sql: sqlx::SqlStr) -> BoxFuture<'e, Result<sqlx::Describe<Any>, Error>>
    where
        'c: 'e,
    {
        self.pool.describe(sql)
    }
}
