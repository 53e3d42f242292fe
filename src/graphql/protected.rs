//! The software vendors' schema (`POST /protected`): the code generated from
//! `schema/protected.graphql`, whose types shared with the public schema (`Company`,
//! `Employment`, …) are the public schema's own, resolved by the same code; the vendors'
//! resolvers are in `resolvers::vendors`.

use std::sync::{Arc, LazyLock};

use super::{Executors, contract, guard};
use crate::app::App;

/// Types, resolver traits and async-graphql wrappers generated from the vendors' SDL by `build.rs`.
#[allow(clippy::all, missing_docs, unused_imports)]
pub mod contract_protected {
    include!(concat!(env!("OUT_DIR"), "/protected_server.rs"));
}

/// The published vendors' contract, as served and as the code was generated from.
pub const SDL: &str = include_str!("../../schema/protected.graphql");

/// The vendors' schema as the request guard sees it.
pub static GUARD_MODEL: LazyLock<guard::SchemaModel> = LazyLock::new(|| guard::SchemaModel::from_sdl(SDL));

/// The executable vendors' schema.
pub type ProtectedSchema = contract_protected::ContractSchema;

/// The executable vendors' schema, with the limits of the public one and no extension. The
/// shared types resolve through the public schema's resolvers, which it holds in its data as well.
pub fn build_schema(app: Arc<App>) -> ProtectedSchema {
    contract_protected::schema_builder(contract_protected::Resolvers::from_impl(app.clone()))
        .data(contract::Resolvers::from_impl(app))
        .limit_depth(super::MAX_DEPTH)
        .limit_complexity(super::MAX_COMPLEXITY)
        .limit_recursive_depth(guard::Limits::DEFAULT.nesting)
        .limit_directives(guard::Limits::DEFAULT.directives)
        .finish()
}

/// The vendors' endpoint's schemas: a vendor acts as no user account, so its mutations need no
/// active-account check and run on the same schema as its queries.
pub fn build_executors(app: Arc<App>) -> Executors<ProtectedSchema> {
    let schema = build_schema(app);
    Executors {
        queries: schema.clone(),
        mutations: schema,
    }
}
