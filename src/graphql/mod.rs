//! The GraphQL API: the code generated from `schema/roadlog.graphql`, its custom scalars, the
//! hand-written resolvers, and the schema assembled with its limits.

mod active;
mod api;
pub mod convert;
pub mod convert_regulation;
pub mod convert_workdays;
mod exec_flag;
pub mod guard;
pub mod loaders;
pub mod protected;
mod request_data;
mod resolvers;
pub mod scalars;

pub use active::Refusals;
pub use api::{Api, ClientAddress, bearer, caller};
pub use exec_flag::ExecutionStarted;
pub use request_data::RequestData;

/// Types, resolver traits and async-graphql wrappers generated from the SDL by `build.rs`.
#[allow(clippy::all, missing_docs, unused_imports)]
pub mod contract {
    include!(concat!(env!("OUT_DIR"), "/graphql_server.rs"));
}

use std::sync::{Arc, LazyLock};

/// The published contract, as served and as the code was generated from.
pub const SDL: &str = include_str!("../../schema/roadlog.graphql");

/// The schema as the request guard sees it.
pub static GUARD_MODEL: LazyLock<guard::SchemaModel> = LazyLock::new(|| guard::SchemaModel::from_sdl(SDL));

/// Deepest selection nesting accepted: deeper documents are refused before execution (400).
pub const MAX_DEPTH: usize = guard::Limits::DEFAULT.selection_depth;
/// Largest query complexity (one per field) accepted before execution.
pub const MAX_COMPLEXITY: usize = guard::Limits::DEFAULT.cost;

/// The executable schema: generated roots, our resolvers, the limits and the execution marker.
pub fn build_schema(api: Arc<Api>) -> contract::ContractSchema {
    let production = api.environment == crate::config::Environment::Production;
    let db = api.db.clone();
    let builder = contract::schema_builder(contract::Resolvers::from_impl(api))
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(guard::Limits::DEFAULT.nesting)
        .limit_directives(guard::Limits::DEFAULT.directives)
        .extension(exec_flag::ExecutionFlag);
    // The sandbox lets accounts act before their address is confirmed (see `active`).
    if production {
        builder.extension(active::ActiveAccount { db }).finish()
    } else {
        builder.finish()
    }
}
