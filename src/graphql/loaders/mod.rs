//! Per-request data loaders: what a response mentions many times (users, companies, the rows
//! below a list of missions) is read in one query per batch, not one per object.

pub mod missions;
pub mod regulation;
pub mod users;

use std::sync::OnceLock;

use async_graphql::dataloader::{DataLoader, HashMapCache, Loader};

use crate::db::Db;
use crate::domain::auth::Actor;
use crate::errors::AppError;
use crate::graphql::RequestData;

/// How long a loader gathers keys before it queries. The resolvers of a list's items ask within
/// this window even in unoptimised builds, so a list makes one query per kind of object.
pub const BATCH_WINDOW: std::time::Duration = std::time::Duration::from_millis(2);

/// The loaders cache what they load for the request, which also lets list resolvers feed them
/// ahead of time (see [`missions::prefetch_missions`]).
pub type CachedLoader<T> = DataLoader<T, HashMapCache>;

/// Spawns a loader's batch as part of the request: inside its span (logged and counted as the
/// request's), which a bare `tokio::spawn` would drop. Its statements run on the request's
/// connection through the loader's own `Db`, the request's.
pub fn spawn<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    use tracing::Instrument;
    tokio::spawn(future.in_current_span())
}

/// A loader of [`Loaders`]: where the request keeps it, and how it is made.
pub trait Lazy: Loader<i64> + Sized {
    fn slot(loaders: &Loaders) -> &OnceLock<CachedLoader<Self>>;
    fn make(db: &Db, actor: Option<Actor>) -> Self;
}

/// Declares the request's loaders: one field each, made on first use.
macro_rules! loaders {
    ($($field:ident: $loader:ty = |$db:ident, $actor:ident| $make:expr;)*) => {
        /// The loaders of one request, each made when a resolver first asks for it: most
        /// operations need one or two of the ten, or none (a request made all ten, each with
        /// its allocations and its place in the request's data, before anything ran).
        pub struct Loaders {
            db: Db,
            /// Who the request acts as (none when anonymous): what the loaders that decide
            /// what may be read go by.
            actor: Option<Actor>,
            $($field: OnceLock<CachedLoader<$loader>>,)*
        }

        impl Loaders {
            /// The loaders of a request made by `actor` (none when anonymous).
            pub fn new(db: &Db, actor: Option<Actor>) -> Loaders {
                Loaders {
                    db: db.clone(),
                    actor,
                    $($field: OnceLock::new(),)*
                }
            }
        }

        $(
            impl Lazy for $loader {
                fn slot(loaders: &Loaders) -> &OnceLock<CachedLoader<Self>> {
                    &loaders.$field
                }

                #[allow(unused_variables)]
                fn make($db: &Db, $actor: Option<Actor>) -> Self {
                    $make
                }
            }
        )*
    };
}

loaders! {
    users: users::UserLoader = |db, actor| users::UserLoader { db: db.clone(), actor };
    activities: missions::ActivitiesByMission = |db, actor| missions::ActivitiesByMission(db.clone());
    versions: missions::VersionsByActivity = |db, actor| missions::VersionsByActivity(db.clone());
    expenditures: missions::ExpendituresByMission = |db, actor| missions::ExpendituresByMission(db.clone());
    comments: missions::CommentsByMission = |db, actor| missions::CommentsByMission(db.clone());
    locations: missions::LocationsByMission = |db, actor| missions::LocationsByMission(db.clone());
    validations: missions::ValidationsByMission = |db, actor| missions::ValidationsByMission(db.clone());
    vehicles: missions::VehiclesById = |db, actor| missions::VehiclesById(db.clone());
    companies: missions::CompaniesById = |db, actor| missions::CompaniesById(db.clone());
    missions: missions::MissionsById = |db, actor| missions::MissionsById { db: db.clone(), actor };
}

impl Loaders {
    /// The request's loader of `L`, made now if no resolver asked for it before.
    pub fn get<L: Lazy>(&self) -> &CachedLoader<L> {
        L::slot(self).get_or_init(|| {
            DataLoader::with_cache(L::make(&self.db, self.actor), spawn, HashMapCache::default()).delay(BATCH_WINDOW)
        })
    }
}

/// Loads through a loader of the request.
pub async fn load<L, V>(ctx: &async_graphql::Context<'_>, key: i64) -> Result<Option<V>, AppError>
where
    L: Lazy + Loader<i64, Value = V, Error = async_graphql::Error>,
    V: Clone + Send + Sync + 'static,
{
    match RequestData::of(ctx) {
        Some(data) => data
            .loaders
            .get::<L>()
            .load_one(key)
            .await
            .map_err(|e| AppError::internal(e.message)),
        None => Err(AppError::internal("the request's loaders are missing")),
    }
}
