//! Registers, for cynic's derives, the GraphQL schema that `roadlog-client` was built from: its
//! build script hands the path over as `DEP_ROADLOG_CLIENT_SDL` (cynic looks for a derive's
//! schema in the output of the compiling crate's own build script).

fn main() {
    let sdl =
        std::env::var("DEP_ROADLOG_CLIENT_SDL").expect("roadlog-client's build script sets DEP_ROADLOG_CLIENT_SDL");
    cynic_codegen::register_schema("roadlog")
        .from_sdl_file(&sdl)
        .and_then(|schema| schema.as_default())
        .unwrap_or_else(|e| panic!("cannot register the schema of roadlog-client ({sdl}): {e}"));
}
