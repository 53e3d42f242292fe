//! Code generation from the published contract, by the `roadlog-codegen` crate (`codegen/`).
//!
//! `schema/roadlog.graphql` and `openapi/roadlog.yaml` are the source of truth. This build script
//! reads them (and the software vendors' `schema/protected.graphql`, whose code re-exports the
//! types it shares with the main SDL), has `roadlog-codegen` compile them (a typed model of both, emitters written with
//! `quote!`), writes `graphql_server.rs` and `rest_server.rs` to `OUT_DIR`, writes the OpenAPI
//! document as JSON (`openapi.json`, served at `/openapi.json`), and registers the SDL for the
//! cynic derives of the tests (which use the `roadlog-client` crate's schema module; cynic looks
//! for the schema in the output of the compiling package's build script). With
//! `ROADLOG_REGENERATE=1` the generated files are also copied into `generated/`, the reviewable
//! snapshot; a test fails when that snapshot is stale. A contract the generator cannot express
//! fails the build with a message that says why. The client of API users is built by its own
//! crate (`client/`), from the same files.

use std::path::{Path, PathBuf};

use build_print::info;

const SDL_PATH: &str = "schema/roadlog.graphql";
const OPENAPI_PATH: &str = "openapi/roadlog.yaml";
const PROTECTED_SDL_PATH: &str = "schema/protected.graphql";
/// Where the code of the main SDL is included: the vendors' schema re-exports its shared types.
const CONTRACT_MODULE: &str = "crate::graphql::contract";

fn main() {
    println!("cargo::rerun-if-changed={SDL_PATH}");
    println!("cargo::rerun-if-changed={OPENAPI_PATH}");
    println!("cargo::rerun-if-changed={PROTECTED_SDL_PATH}");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=ROADLOG_REGENERATE");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let sdl = read(SDL_PATH);
    let openapi = read(OPENAPI_PATH);
    let generated =
        roadlog_codegen::generate(SDL_PATH, &sdl, OPENAPI_PATH, &openapi).unwrap_or_else(|e| fail(&e.to_string()));
    let protected =
        roadlog_codegen::generate_sharing(PROTECTED_SDL_PATH, &read(PROTECTED_SDL_PATH), &sdl, CONTRACT_MODULE)
            .unwrap_or_else(|e| fail(&e.to_string()));
    if let Err(e) = roadlog_codegen::register_cynic_schema("roadlog", SDL_PATH) {
        fail(&e.to_string());
    }

    // The document as JSON, served at `/openapi.json` (not part of the reviewed snapshot: it is
    // the same document, in another syntax).
    let json = roadlog_codegen::openapi_json(&openapi).unwrap_or_else(|e| fail(&format!("{OPENAPI_PATH}: {e}")));
    write(&out_dir.join("openapi.json"), &json);

    let files = [
        ("graphql_server.rs", &generated.graphql_server),
        ("rest_server.rs", &generated.rest_server),
        ("protected_server.rs", &protected),
    ];
    let regenerate = std::env::var("ROADLOG_REGENERATE").is_ok_and(|v| v == "1");
    for (name, code) in files {
        write(&out_dir.join(name), code);
        if regenerate {
            write(&Path::new("generated").join(name), code);
        }
    }
    if regenerate {
        info!("generated/ refreshed from {SDL_PATH}, {PROTECTED_SDL_PATH} and {OPENAPI_PATH}");
    }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")))
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("cannot create {dir:?}: {e}")));
    }
    std::fs::write(path, text).unwrap_or_else(|e| fail(&format!("cannot write {path:?}: {e}")));
}

/// Fails the build loudly: the message is shown by build-print and the panic stops cargo.
fn fail(message: &str) -> ! {
    build_print::error!("{message}");
    panic!("contract code generation failed: {message}");
}
