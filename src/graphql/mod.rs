//! The GraphQL API: the code generated from `schema/roadlog.graphql`, its custom scalars, the
//! hand-written resolvers, and the schema assembled with its limits.

mod active;
pub mod convert;
pub mod convert_args;
pub mod convert_regulation;
pub mod convert_workdays;
pub mod guard;
pub mod loaders;
pub mod protected;
mod request_data;
mod resolvers;
pub mod scalars;

pub use active::Refusals;
pub use request_data::{ClientAddress, RequestData, bearer, caller, hashing};

/// Types, resolver traits and async-graphql wrappers generated from the SDL by `build.rs`.
#[allow(clippy::all, missing_docs, unused_imports)]
pub mod contract {
    include!(concat!(env!("OUT_DIR"), "/graphql_server.rs"));
}

use std::sync::{Arc, LazyLock};

use crate::app::App;

/// The published contract, as served and as the code was generated from.
pub const SDL: &str = include_str!("../../schema/roadlog.graphql");

/// The schema as the request guard sees it.
pub static GUARD_MODEL: LazyLock<guard::SchemaModel> = LazyLock::new(|| guard::SchemaModel::from_sdl(SDL));

/// Deepest selection nesting accepted: deeper documents are refused before execution (400).
pub const MAX_DEPTH: usize = guard::Limits::DEFAULT.selection_depth;
/// Largest query complexity (one per field) accepted before execution.
pub const MAX_COMPLEXITY: usize = guard::Limits::DEFAULT.cost;

/// The executable schema: generated roots, our resolvers and the limits, with no extension.
/// async-graphql routes every field of every object through the extensions when a schema has
/// any (a boxed future, a context and a resolve record per field, list items included): about a
/// tenth of the allocations of a 50-mission page. Queries never need one, so they run on this.
pub fn build_schema(app: Arc<App>) -> contract::ContractSchema {
    builder(app).finish()
}

fn builder(
    app: Arc<App>,
) -> async_graphql::SchemaBuilder<contract::Queries, contract::Mutations, async_graphql::EmptySubscription> {
    contract::schema_builder(contract::Resolvers::from_impl(app))
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(guard::Limits::DEFAULT.nesting)
        .limit_directives(guard::Limits::DEFAULT.directives)
}

/// The schemas an endpoint runs operations on: one for queries, one for mutations.
#[derive(Clone)]
pub struct Executors<E> {
    pub queries: E,
    /// In production, the schema with the active-account check on each mutation field
    /// (`active`); in the sandbox, which lets accounts act before their address is confirmed,
    /// the queries' schema.
    pub mutations: E,
}

impl<E> Executors<E> {
    /// The schema that runs an operation.
    pub fn for_operation(&self, is_mutation: bool) -> &E {
        if is_mutation { &self.mutations } else { &self.queries }
    }
}

/// The public endpoint's schemas.
pub fn build_executors(app: Arc<App>) -> Executors<contract::ContractSchema> {
    let production = app.environment == crate::config::Environment::Production;
    let db = app.db.clone();
    let queries = build_schema(app.clone());
    let mutations = if production {
        builder(app).extension(active::ActiveAccount { db }).finish()
    } else {
        queries.clone()
    };
    Executors { queries, mutations }
}
