//! The page at `/docs`: where the contracts are, and the format of each custom scalar, written
//! from the SDL's own descriptions (so the page cannot drift from the schema). The enum-like
//! scalars' `@specifiedBy` URLs point here (`/docs#ActivityTypeEnum`), and the OAuth metadata
//! names it as `service_documentation`. It also lists the book's pages for API clients, served
//! beside it (`http::book`).

use askama::Template;
use async_graphql::parser::types::{TypeKind, TypeSystemDefinition};
use async_graphql::{Positioned, Value};

#[derive(Template)]
#[template(path = "docs/index.html")]
struct Page {
    pages: &'static [super::book::Source],
    scalars: Vec<ScalarDoc>,
}

struct ScalarDoc {
    name: String,
    paragraphs: Vec<Vec<Span>>,
    /// The `@specifiedBy` URL when it is another document (a standard), not this page.
    standard: Option<String>,
}

/// A run of text, shown as code when the description wrote it between backquotes.
struct Span {
    code: bool,
    text: String,
}

/// The page, rendered from an SDL document.
pub fn render(sdl: &str) -> String {
    let page = Page {
        pages: &super::book::PAGES,
        scalars: scalars(sdl),
    };
    page.render().unwrap_or_else(|error| {
        tracing::error!(%error, "the documentation page could not be rendered");
        "This page could not be shown.".to_string()
    })
}

fn scalars(sdl: &str) -> Vec<ScalarDoc> {
    let Ok(document) = async_graphql::parser::parse_schema(sdl) else {
        return Vec::new();
    };
    document
        .definitions
        .into_iter()
        .filter_map(|definition| match definition {
            TypeSystemDefinition::Type(ty) if matches!(ty.node.kind, TypeKind::Scalar) => Some(ty.node),
            _ => None,
        })
        .map(|ty| {
            let description = ty.description.map(|d| d.node).unwrap_or_default();
            ScalarDoc {
                name: ty.name.node.to_string(),
                paragraphs: description
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(spans)
                    .collect(),
                standard: specified_by(&ty.directives).filter(|url| !url.starts_with('/')),
            }
        })
        .collect()
}

fn specified_by(directives: &[Positioned<async_graphql::parser::types::ConstDirective>]) -> Option<String> {
    directives
        .iter()
        .find(|d| d.node.name.node == "specifiedBy")
        .and_then(|d| d.node.get_argument("url"))
        .and_then(|url| match &url.node {
            Value::String(url) => Some(url.clone()),
            _ => None,
        })
}

/// Splits a line at its backquotes: odd runs are code.
fn spans(line: &str) -> Vec<Span> {
    line.split('`')
        .enumerate()
        .filter(|(_, text)| !text.is_empty())
        .map(|(i, text)| Span {
            code: i % 2 == 1,
            text: text.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn scalars_are_described_from_the_sdl_and_escaped() {
        let sdl = "\"\"\"\nA `<b>` kind: `a` or `b`.\nSecond line.\n\"\"\"\nscalar Kind @specifiedBy(url: \"/docs#Kind\")\n\"\"\"\nA day.\n\"\"\"\nscalar Day @specifiedBy(url: \"https://www.rfc-editor.org/rfc/rfc3339#section-5.6\")\ntype Query { a: Int }";
        let page = super::render(sdl);
        assert!(page.contains("<h3 id=\"Kind\"><code>Kind</code></h3>"), "{page}");
        assert!(
            page.contains("<p>A <code>&#60;b&#62;</code> kind: <code>a</code> or <code>b</code>.</p>"),
            "{page}"
        );
        assert!(page.contains("<p>Second line.</p>"), "{page}");
        assert!(
            page.contains("href=\"https://www.rfc-editor.org/rfc/rfc3339#section-5.6\""),
            "{page}"
        );
        assert!(
            !page.contains("href=\"/docs#Kind\""),
            "no link from the page to itself: {page}"
        );
        assert!(
            page.contains("<li><a href=\"/docs/activity-reports\">Excel activity reports</a></li>"),
            "the book's pages are listed: {page}"
        );
    }
}
