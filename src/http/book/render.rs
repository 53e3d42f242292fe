//! A book page's Markdown as HTML, as mdBook renders it: the same Markdown extensions, headings
//! with mdBook's ids (so `page.md#heading` links land), and links between pages rewritten to
//! where this server serves them. A link to a part of the book this server does not serve keeps
//! its text and loses its target, so that no link on a page leads nowhere.

use std::collections::HashMap;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// The HTML of one page's Markdown (its includes already expanded).
pub fn html(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut events: Vec<Event> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    // Where the heading being read starts in `events`, and its text so far.
    let mut heading: Option<(usize, String)> = None;
    // For each open link or image: whether its tags are kept.
    let mut kept: Vec<bool> = Vec::new();
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                heading = Some((events.len(), String::new()));
                events.push(event);
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, text)) = heading.take() {
                    let id = unique_id(&mut ids, heading_id(&text));
                    if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[start] {
                        slot.get_or_insert(CowStr::from(id));
                    }
                }
                events.push(event);
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => match target(&dest_url) {
                Some(dest_url) => {
                    kept.push(true);
                    events.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url: dest_url.into(),
                        title,
                        id,
                    }));
                }
                None => kept.push(false),
            },
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => match target(&dest_url) {
                Some(dest_url) => {
                    kept.push(true);
                    events.push(Event::Start(Tag::Image {
                        link_type,
                        dest_url: dest_url.into(),
                        title,
                        id,
                    }));
                }
                None => kept.push(false),
            },
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if kept.pop().unwrap_or(true) {
                    events.push(event);
                }
            }
            Event::Text(ref text) | Event::Code(ref text) => {
                if let Some((_, heading)) = heading.as_mut() {
                    heading.push_str(text);
                }
                events.push(event);
            }
            other => events.push(other),
        }
    }
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut out, events.into_iter());
    out
}

/// Where a link of a page in `docs/src/clients/` points on this server: another origin, an
/// anchor of the page and a path of the server as written; a page of the book served here as
/// `/docs/PAGE`; `None` for any other file of the book or the repository.
fn target(dest: &str) -> Option<String> {
    if dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with('#') || dest.starts_with('/') {
        return Some(dest.to_string());
    }
    let (file, anchor) = match dest.split_once('#') {
        Some((file, anchor)) => (file, Some(anchor)),
        None => (dest, None),
    };
    let slug = super::served_slug(&book_path(file)?)?;
    Some(match anchor {
        Some(anchor) => format!("/docs/{slug}#{anchor}"),
        None => format!("/docs/{slug}"),
    })
}

/// A link's file, relative to `docs/src/clients/`, as a path relative to `docs/src/`; `None`
/// when it leaves the book.
fn book_path(file: &str) -> Option<String> {
    let mut parts = vec!["clients"];
    for part in file.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// mdBook's id of a heading (`normalize_id`): letters, digits, `_` and `-` kept and lowercased,
/// whitespace turned into `-`, everything else dropped.
fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// The id itself the first time, then `id-1`, `id-2`…, as mdBook numbers repeated headings.
fn unique_id(seen: &mut HashMap<String, usize>, id: String) -> String {
    let count = seen.entry(id.clone()).or_insert(0);
    let unique = if *count == 0 { id } else { format!("{id}-{count}") };
    *count += 1;
    unique
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_lead_to_pages_served_or_lose_their_target() {
        let page = html(
            "[teams](teams.md), [vehicles](company-settings.md#vehicles), [same](../clients/sdk.md), \
             [ops](../operators/commands.md), [gone](nowhere.md), [file](../../../Cargo.toml), \
             [out](https://example.org/a?b=1&c=2), [here](#a-heading), [root](/schema.graphql)",
        );
        for expected in [
            "<a href=\"/docs/teams\">teams</a>",
            "<a href=\"/docs/company-settings#vehicles\">vehicles</a>",
            "<a href=\"/docs/sdk\">same</a>",
            ", ops, gone, file, ",
            "<a href=\"https://example.org/a?b=1&amp;c=2\">out</a>",
            "<a href=\"#a-heading\">here</a>",
            "<a href=\"/schema.graphql\">root</a>",
        ] {
            assert!(page.contains(expected), "{expected} in {page}");
        }
    }

    #[test]
    fn headings_get_mdbooks_ids_and_text_is_escaped() {
        let page = html("# A heading, with `code`\n\n## Twice\n\n## Twice\n\nA `<b>` & <i>fine</i>\n");
        assert!(page.contains("<h1 id=\"a-heading-with-code\">"), "{page}");
        assert!(page.contains("<h2 id=\"twice\">Twice</h2>"), "{page}");
        assert!(page.contains("<h2 id=\"twice-1\">Twice</h2>"), "{page}");
        assert!(page.contains("<code>&lt;b&gt;</code> &amp;"), "{page}");
    }

    #[test]
    fn tables_and_code_blocks_render() {
        let page = html("| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\ncurl -s 'x' <y>\n```\n");
        assert!(page.contains("<table>"), "{page}");
        assert!(
            page.contains("<pre><code class=\"language-sh\">curl -s 'x' &lt;y&gt;\n</code></pre>"),
            "{page}"
        );
    }
}
