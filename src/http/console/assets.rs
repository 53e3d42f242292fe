//! The console's files, embedded in the binary: GraphiQL and React as vendored from npm
//! (`assets/console/vendor/`, see its README) and the console's own script and style sheet.
//!
//! Each file is served under a fingerprinted name, `NAME.FINGERPRINT.EXT` (the first 16 hex
//! digits of its SHA-256), cached for a year as immutable, and under its plain name with
//! `Cache-Control: no-cache`; both carry a strong `ETag` (the fingerprint) and answer
//! `If-None-Match` with 304.

use std::sync::LazyLock;

use sha2::{Digest, Sha256};

/// One embedded file.
pub struct Asset {
    /// The plain name, e.g. `graphiql.min.js`.
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
    /// The first 16 hex digits of the SHA-256 of `bytes`.
    pub fingerprint: String,
    /// `name` with the fingerprint before the extension: `graphiql.min.0123456789abcdef.js`.
    pub fingerprinted: String,
}

impl Asset {
    fn new(name: &'static str, content_type: &'static str, bytes: &'static [u8]) -> Asset {
        let fingerprint = hex(&Sha256::digest(bytes)[..8]);
        let fingerprinted = match name.rsplit_once('.') {
            Some((stem, ext)) => format!("{stem}.{fingerprint}.{ext}"),
            None => format!("{name}.{fingerprint}"),
        };
        Asset {
            name,
            content_type,
            bytes,
            fingerprint,
            fingerprinted,
        }
    }

    /// The strong entity tag of this file.
    pub fn etag(&self) -> String {
        format!("\"{}\"", self.fingerprint)
    }

    /// The path the page links to.
    pub fn url(&self) -> String {
        format!("{}/assets/{}", super::PATH, self.fingerprinted)
    }
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

macro_rules! vendored {
    ($name:literal, $type:expr) => {
        Asset::new(
            $name,
            $type,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/console/vendor/", $name)),
        )
    };
}

/// Every file served under `/console/assets/`, in the order the page loads them.
pub static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    vec![
        vendored!("graphiql.min.css", CSS),
        Asset::new(
            "console.css",
            CSS,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/console/console.css")),
        ),
        vendored!("react.production.min.js", JS),
        vendored!("react-dom.production.min.js", JS),
        vendored!("graphiql.min.js", JS),
        Asset::new(
            "console.js",
            JS,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/console/console.js")),
        ),
        vendored!("THIRD_PARTY_LICENSES.txt", TEXT),
    ]
});

/// The file a path under `/console/assets/` names, and whether it named it by its fingerprinted
/// name.
pub fn find(name: &str) -> Option<(&'static Asset, bool)> {
    ASSETS.iter().find_map(|asset| {
        if asset.fingerprinted == name {
            Some((asset, true))
        } else if asset.name == name {
            Some((asset, false))
        } else {
            None
        }
    })
}

/// Lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The embedded file called `name`.
pub fn named(name: &str) -> &'static Asset {
    ASSETS
        .iter()
        .find(|asset| asset.name == name)
        .unwrap_or_else(|| panic!("no embedded console file {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendored files are the ones `tools/console/refresh` wrote: each matches its line of
    /// `SHA256SUMS`, and every line names an embedded file or one of the refresh's records.
    #[test]
    fn console_vendored_files_match_their_checksums() {
        let sums = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/console/vendor/SHA256SUMS"));
        let mut listed = Vec::new();
        for line in sums.lines().filter(|l| !l.trim().is_empty()) {
            let (sum, name) = line
                .split_once("  ")
                .expect("sha256sum's format: HASH, two spaces, NAME");
            let bytes = match ASSETS.iter().find(|a| a.name == name) {
                Some(asset) => asset.bytes.to_vec(),
                None => {
                    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("assets/console/vendor")
                        .join(name);
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                }
            };
            assert_eq!(hex(&Sha256::digest(&bytes)), sum, "{name} differs from SHA256SUMS");
            listed.push(name.to_string());
        }
        for asset in ASSETS.iter().filter(|a| !a.name.starts_with("console.")) {
            assert!(
                listed.iter().any(|n| n == asset.name),
                "{} is not in SHA256SUMS",
                asset.name
            );
        }
    }

    #[test]
    fn console_assets_are_found_by_either_name() {
        let js = named("graphiql.min.js");
        assert!(js.fingerprinted.starts_with("graphiql.min.") && js.fingerprinted.ends_with(".js"));
        assert_eq!(js.fingerprint.len(), 16);
        assert!(matches!(find(&js.fingerprinted), Some((a, true)) if a.name == js.name));
        assert!(matches!(find("graphiql.min.js"), Some((_, false))));
        assert!(find("graphiql.min.0000000000000000.js").is_none());
        assert!(find("../Cargo.toml").is_none());
    }
}
