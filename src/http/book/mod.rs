//! The book's pages for API clients (`docs/src/clients/`), embedded at compile time and served
//! at `/docs/PAGE` as HTML, so that the pages a server shows are those of its own version. The
//! list below is the "For API clients" part of `docs/src/SUMMARY.md`, in its order and with its
//! titles (a test compares them); mdBook's `{{#include}}` directives are expanded from the
//! embedded files of `INCLUDES`. The server renders them once, when they are first asked for
//! (`http::published`).

mod render;

use askama::Template;

/// The book's summary, embedded for the test that compares it with `PAGES`.
#[cfg(test)]
const SUMMARY: &str = include_str!("../../../docs/src/SUMMARY.md");

/// One page of the book, as written.
pub struct Source {
    /// The page's file name without `.md`: its path is `/docs/{slug}`.
    pub slug: &'static str,
    /// Its title in the book's summary.
    pub title: &'static str,
    /// `/docs/{slug}`.
    pub path: &'static str,
    markdown: &'static str,
}

macro_rules! page {
    ($slug:literal, $title:literal) => {
        Source {
            slug: $slug,
            title: $title,
            path: concat!("/docs/", $slug),
            markdown: include_str!(concat!("../../../docs/src/clients/", $slug, ".md")),
        }
    };
}

/// The pages served, in the summary's order.
pub const PAGES: [Source; 16] = [
    page!("api", "The API and its contract"),
    page!("graphql-over-http", "GraphQL over HTTP"),
    page!("oauth", "OAuth 2.0 for third-party applications"),
    page!("sandbox", "Sandbox on day one"),
    page!("console", "The API console"),
    page!("account-pages", "Account pages and invitations"),
    page!("own-account", "The user's own account, and leaving a company"),
    page!("second-factor", "A second factor for the login"),
    page!("mails", "The e-mails the service sends"),
    page!("c1b-export", "C1B tachograph export"),
    page!("activity-reports", "Excel activity reports"),
    page!("teams", "Teams"),
    page!("company-settings", "Company settings and vehicles"),
    page!("dashboard", "An admin's dashboard and the registry fields"),
    page!("reference-api", "More of the reference API"),
    page!("sdk", "Client SDK and examples"),
];

/// The files the pages include, by the path their directive names (relative to
/// `docs/src/clients/`).
const INCLUDES: [(&str, &str); 1] = [(
    "../../../examples/typescript/codegen.yml",
    include_str!("../../../examples/typescript/codegen.yml"),
)];

/// A page with the frame of the `/docs` pages around it.
#[derive(Template)]
#[template(path = "docs/page.html")]
struct Framed<'a> {
    title: &'a str,
    html: &'a str,
    /// The pages before and after in the book: (path, title).
    previous: Option<(&'a str, &'a str)>,
    next: Option<(&'a str, &'a str)>,
}

/// Every page as an HTML document: (path, document).
pub fn documents() -> Vec<(&'static str, String)> {
    let neighbour = |i: Option<usize>| i.and_then(|i| PAGES.get(i)).map(|p| (p.path, p.title));
    PAGES
        .iter()
        .enumerate()
        .map(|(i, page)| {
            let html = render::html(&expand_includes(page.slug, page.markdown));
            let framed = Framed {
                title: page.title,
                html: &html,
                previous: neighbour(i.checked_sub(1)),
                next: neighbour(Some(i + 1)),
            };
            let document = framed.render().unwrap_or_else(|error| {
                tracing::error!(%error, page = page.slug, "a book page could not be rendered");
                "This page could not be shown.".to_string()
            });
            (page.path, document)
        })
        .collect()
}

/// The slug of the page a file of the book is served as (`clients/teams.md` → `teams`), given
/// its path relative to `docs/src/`.
fn served_slug(book_path: &str) -> Option<&'static str> {
    let slug = book_path.strip_prefix("clients/")?.strip_suffix(".md")?;
    PAGES.iter().find(|page| page.slug == slug).map(|page| page.slug)
}

/// `{{#include PATH}}` replaced by the embedded file it names. A directive naming a file that is
/// not embedded is dropped (and logged): a page never shows the raw directive.
fn expand_includes(slug: &str, markdown: &str) -> String {
    const OPEN: &str = "{{#include ";
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find("}}") else {
            rest = "";
            break;
        };
        let path = after[..end].trim();
        match INCLUDES.iter().find(|(name, _)| *name == path) {
            Some((_, text)) => out.push_str(text),
            None => tracing::error!(page = slug, path, "the book page includes a file that is not embedded"),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries of the summary's "For API clients" part: (title, path).
    fn summary_clients() -> Vec<(String, String)> {
        let part = SUMMARY
            .split("\n# ")
            .find(|part| part.starts_with("For API clients"))
            .expect("the summary has a part for API clients");
        part.lines()
            .filter_map(|line| line.trim().strip_prefix("- ["))
            .map(|entry| {
                let (title, rest) = entry.split_once("](").unwrap();
                (title.to_string(), rest.trim_end_matches(')').to_string())
            })
            .collect()
    }

    #[test]
    fn the_pages_are_the_summarys_part_for_api_clients() {
        let served: Vec<(String, String)> = PAGES
            .iter()
            .map(|page| (page.title.to_string(), format!("clients/{}.md", page.slug)))
            .collect();
        assert_eq!(served, summary_clients(), "update PAGES from docs/src/SUMMARY.md");
    }

    #[test]
    fn every_include_is_embedded_and_expanded() {
        for page in &PAGES {
            let expanded = expand_includes(page.slug, page.markdown);
            assert!(!expanded.contains("{{#"), "{}: a directive is left", page.slug);
            for line in page.markdown.lines().filter(|l| l.contains("{{#include ")) {
                let path = line
                    .split("{{#include ")
                    .nth(1)
                    .unwrap()
                    .split("}}")
                    .next()
                    .unwrap()
                    .trim();
                assert!(
                    INCLUDES.iter().any(|(name, _)| *name == path),
                    "{}: {path} is not in INCLUDES",
                    page.slug
                );
            }
        }
        let api = expand_includes("api", PAGES[0].markdown);
        assert!(api.contains(INCLUDES[0].1), "api.md includes the codegen configuration");
        assert_eq!(expand_includes("x", "a {{#include nowhere.md}} b"), "a  b");
    }

    #[test]
    fn files_of_the_book_map_to_the_pages_served() {
        assert_eq!(served_slug("clients/teams.md"), Some("teams"));
        assert_eq!(served_slug("clients/nowhere.md"), None);
        assert_eq!(served_slug("operators/commands.md"), None);
    }
}
