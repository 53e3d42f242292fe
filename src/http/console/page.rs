//! The console's HTML page: the environment's banner, the access-token field, the element
//! GraphiQL renders into, and the embedded files it loads; no inline script or style, so the
//! Content-Security-Policy allows this origin's files only.

use crate::config::Environment;

use super::assets::{self, ASSETS};

/// What the page may load: scripts, styles and requests from this origin only; images and fonts
/// also from `data:` URLs (GraphiQL's style sheet embeds its fonts and icons). Inline styles are
/// allowed because GraphiQL's dialogs insert `<style>` elements (scroll locking); inline scripts,
/// `eval`, frames, plugins, forms and every other origin are refused.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; \
     connect-src 'self'; manifest-src 'none'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The page, for the environment the server runs in.
pub fn render(environment: Environment, graphql_path: &str) -> String {
    let (label, note) = match environment {
        Environment::Sandbox => ("SANDBOX", "test data"),
        Environment::Production => ("PRODUCTION", "real data, every mutation changes it"),
    };
    let env = environment.as_str();
    let mut styles = String::new();
    let mut scripts = String::new();
    for asset in ASSETS.iter() {
        if asset.content_type.starts_with("text/css") {
            styles.push_str(&format!("<link rel=\"stylesheet\" href=\"{}\">\n", asset.url()));
        } else if asset.content_type.starts_with("text/javascript") {
            scripts.push_str(&format!("<script defer src=\"{}\"></script>\n", asset.url()));
        }
    }
    let licences = assets::named("THIRD_PARTY_LICENSES.txt").url();
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Roadlog API console · {label}</title>
<link rel="icon" href="data:,">
{styles}{scripts}</head>
<body>
<header class="roadlog-banner roadlog-{env}">
<strong class="roadlog-environment" data-environment="{env}">{label}</strong>
<span class="roadlog-title">Roadlog API console: {note}</span>
<form class="roadlog-token" id="roadlog-token-form" autocomplete="off"><label for="roadlog-token">Access token</label>
<input id="roadlog-token" type="password" autocomplete="off" spellcheck="false" placeholder="sent as Authorization: Bearer …"></form>
<nav class="roadlog-links"><a href="/docs">docs</a> <a href="/schema.graphql">schema.graphql</a> <a href="/openapi.yaml">openapi.yaml</a> <a href="{licences}">licences</a></nav>
</header>
<div id="graphiql" data-endpoint="{graphql_path}" data-environment="{env}">Loading the console…</div>
<noscript>The console needs JavaScript. The API itself answers at POST {graphql_path}.</noscript>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_page_names_its_environment_and_links_only_this_origin() {
        let page = render(Environment::Production, "/api/graphql");
        assert!(page.contains(">PRODUCTION<"));
        assert!(!page.contains("SANDBOX"));
        assert!(render(Environment::Sandbox, "/api/graphql").contains(">SANDBOX<"));
        let other_origins: Vec<&str> = page.split(['"', '\'']).filter(|s| s.contains("://")).collect();
        assert!(
            other_origins.is_empty(),
            "the page names another origin: {other_origins:?}"
        );
        assert!(!page.contains("<script>"), "no inline script");
        assert!(!page.contains("<style"), "no inline style");
        assert!(
            page.contains("<a href=\"/docs\">docs</a>"),
            "the nav leads to the documentation"
        );
    }
}
