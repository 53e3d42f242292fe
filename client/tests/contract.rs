//! The package is self-contained and faithful to the workspace: its copies of the contract equal
//! the workspace's files, the reviewable snapshot of the generated client equals what the build
//! generated, and the embedded contract is what the build read. (Not in the published package:
//! it needs the workspace around this folder.)

use std::path::{Path, PathBuf};

const REFRESH: &str = "ROADLOG_REGENERATE=1 cargo build";

fn here(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn contract_copies_equal_the_workspace_files() {
    for (copy, original) in [
        ("contract/roadlog.graphql", "../schema/roadlog.graphql"),
        ("contract/roadlog.yaml", "../openapi/roadlog.yaml"),
    ] {
        assert!(
            read(&here(copy)) == read(&here(original)),
            "client/{copy} differs from {}: run `{REFRESH}` and commit client/contract/",
            original.trim_start_matches("../")
        );
    }
}

#[test]
fn generated_snapshot_is_fresh() {
    let built = read(&Path::new(env!("OUT_DIR")).join("rest_client.rs"));
    let committed = read(&here("generated/rest_client.rs"));
    assert!(
        built == committed,
        "client/generated/rest_client.rs is stale: the contract changed since it was generated. Run `{REFRESH}` and commit client/generated/."
    );
}

#[test]
fn embedded_contract_is_the_workspace_contract() {
    assert_eq!(roadlog_client::SDL, read(&here("../schema/roadlog.graphql")));
    assert_eq!(roadlog_client::OPENAPI, read(&here("../openapi/roadlog.yaml")));
}
