//! The book (`docs/`) and the front door (`README.md`) say only what exists. mdBook builds a
//! page whatever its links point to, so this reads every page as mdBook reads it
//! (pulldown-cmark, `{{#include}}` expanded) and fails on a relative link to a missing file, on
//! an anchor that names no heading of its page (mdBook's heading ids), on a page that
//! `SUMMARY.md` does not list, and on a command of a `sh` block that does not exist (see
//! `commands`).

mod commands;

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The book's pages, relative to the root.
const BOOK: &str = "docs/src";

/// What a page holds, once read.
#[derive(Default)]
pub struct Page {
    /// Relative to the root: `docs/src/clients/api.md`.
    pub path: PathBuf,
    /// Link destinations, with the line they are on.
    pub links: Vec<(usize, String)>,
    /// Heading ids, as mdBook makes them.
    pub ids: BTreeSet<String>,
    /// The text of each `sh` block, with the line it starts on.
    pub shell: Vec<(usize, String)>,
}

/// mdBook's id of a heading (`normalize_id`): letters, digits, `_` and `-` kept and lowercased,
/// whitespace turned into `-`, everything else dropped.
pub fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// `{{#include path}}` replaced by the file it names (relative to the page), as mdBook does
/// before it renders.
fn expand_includes(page: &Path, text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{#include ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "{{#include ".len()..];
        let end = after.find("}}").expect("an {{#include}} is closed");
        let target = root().join(page).parent().unwrap().join(after[..end].trim());
        out.push_str(&std::fs::read_to_string(&target).unwrap_or_else(|e| panic!("{}: {e}", target.display())));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Reads a page's links, heading ids and `sh` blocks.
pub fn read(path: &Path, text: &str) -> Page {
    let text = expand_includes(path, text);
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let options = Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
    let mut page = Page {
        path: path.to_path_buf(),
        ..Page::default()
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<String> = None;
    let mut shell: Option<(usize, String)> = None;
    for (event, range) in Parser::new_ext(&text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let id = heading_id(&heading.take().unwrap_or_default());
                // A second heading of the same id gets `-1`, a third `-2`, as mdBook numbers them.
                let seen = counts.entry(id.clone()).or_insert(0);
                page.ids
                    .insert(if *seen == 0 { id.clone() } else { format!("{id}-{seen}") });
                *seen += 1;
            }
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
                page.links.push((line_of(range.start), dest_url.to_string()));
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if &*lang == "sh" => {
                shell = Some((line_of(range.start), String::new()));
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(block) = shell.take() {
                    page.shell.push(block);
                }
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some(heading) = heading.as_mut() {
                    heading.push_str(&text);
                }
                if let Some((_, block)) = shell.as_mut() {
                    block.push_str(&text);
                }
            }
            _ => {}
        }
    }
    page
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The problems of one page's links: `pages` holds every page already read (by path), and
/// others are read on demand.
pub fn link_problems(page: &Page, pages: &mut HashMap<PathBuf, Page>) -> Vec<String> {
    let mut problems = Vec::new();
    let in_book = page.path.starts_with(BOOK);
    for (line, link) in &page.links {
        let at = format!("{}:{line}: `{link}`", page.path.display());
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = link.split_once('#').unwrap_or((link.as_str(), ""));
        if file.is_empty() {
            if !page.ids.contains(anchor) {
                problems.push(format!(
                    "{at}: no heading `{anchor}` in this page (its ids: {:?})",
                    page.ids
                ));
            }
            continue;
        }
        let target = normalize(&page.path.parent().unwrap().join(file));
        if target.starts_with("..") || !root().join(&target).exists() {
            problems.push(format!("{at}: no file {}", target.display()));
            continue;
        }
        // The book's HTML holds only the book: a link out of docs/src is broken there.
        if in_book && !target.starts_with(BOOK) {
            problems.push(format!(
                "{at}: {} is outside the book (write the path as code)",
                target.display()
            ));
            continue;
        }
        if anchor.is_empty() {
            continue;
        }
        if target.extension().is_none_or(|e| e != "md") {
            problems.push(format!("{at}: an anchor into a file that is not a page"));
            continue;
        }
        let target_page = pages.entry(target.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(root().join(&target)).unwrap();
            read(&target, &text)
        });
        if !target_page.ids.contains(anchor) {
            problems.push(format!(
                "{at}: no heading `{anchor}` in {} (its ids: {:?})",
                target.display(),
                target_page.ids
            ));
        }
    }
    problems
}

/// The pages of the book that `SUMMARY.md` does not list.
pub fn unlisted(summary: &Page, book: &[PathBuf]) -> Vec<String> {
    let listed: BTreeSet<PathBuf> = summary
        .links
        .iter()
        .map(|(_, link)| normalize(&Path::new(BOOK).join(link.split('#').next().unwrap())))
        .collect();
    book.iter()
        .filter(|page| page.file_name().is_some_and(|n| n != "SUMMARY.md") && !listed.contains(*page))
        .map(|page| format!("{} is not listed in {BOOK}/SUMMARY.md", page.display()))
        .collect()
}

/// The book's Markdown files, relative to the root.
fn book_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root().join(BOOK)];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path.strip_prefix(root()).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

/// Every page checked here: the front door, the benchmark's page and the book.
fn all_pages() -> HashMap<PathBuf, Page> {
    let mut paths = vec![PathBuf::from("README.md"), PathBuf::from("bench/README.md")];
    paths.extend(book_files());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(root().join(&path)).unwrap();
            let page = read(&path, &text);
            (path, page)
        })
        .collect()
}

fn report(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

tests! {
    fn every_relative_link_and_anchor_resolves() {
        let mut pages = all_pages();
        let mut paths: Vec<PathBuf> = pages.keys().cloned().collect();
        paths.sort();
        let mut problems = Vec::new();
        for path in paths {
            let page = pages.remove(&path).unwrap();
            problems.extend(link_problems(&page, &mut pages));
            pages.insert(path, page);
        }
        // bench/README.md is also read inside the book's benchmark page, where its relative
        // links would resolve from another folder: it keeps paths as code, not links.
        let bench = &pages[Path::new("bench/README.md")];
        for (line, link) in &bench.links {
            if !link.contains("://") {
                problems.push(format!("bench/README.md:{line}: `{link}`: the book includes this file, write the path as code"));
            }
        }
        report("broken links", problems);
    }

    fn summary_lists_every_page() {
        let pages = all_pages();
        let summary = &pages[&Path::new(BOOK).join("SUMMARY.md")];
        report("pages missing from the summary", unlisted(summary, &book_files()));
    }

    fn every_shell_command_exists() {
        let pages = all_pages();
        let mut paths: Vec<&PathBuf> = pages.keys().collect();
        paths.sort();
        let mut problems = Vec::new();
        for path in paths {
            for (line, block) in &pages[path].shell {
                let at = format!("{}:{line}", path.display());
                problems.extend(commands::problems(block).into_iter().map(|p| format!("{at}: {p}")));
            }
        }
        report("commands that do not exist", problems);
    }

    fn the_checks_catch_what_they_are_for() {
        // A page of the book with a broken link, a wrong anchor and a command that does not
        // exist: each is reported.
        let path = Path::new(BOOK).join("clients/broken.md");
        let text = "# Broken\n\n## A heading, with `code`\n\n[gone](gone.md), [wrong anchor](api.md#no-such-heading), \
                    [here](#a-heading-with-code), [out](../../../Cargo.toml), [fine](api.md#custom-scalars)\n\n\
                    ```sh\nroadlog client shred --all\ncargo test --workspace --test api -- no_test_has_this_name\n\
                    bench/walk\ncargo test --test api -- book\n```\n";
        let page = read(&path, text);
        assert!(page.ids.contains("a-heading-with-code"), "{:?}", page.ids);
        let mut pages = HashMap::new();
        let problems = link_problems(&page, &mut pages);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].contains("no file docs/src/clients/gone.md"), "{problems:#?}");
        assert!(problems[1].contains("no heading `no-such-heading`"), "{problems:#?}");
        assert!(problems[2].contains("outside the book"), "{problems:#?}");
        let commands = commands::problems(&page.shell[0].1);
        assert_eq!(commands.len(), 5, "{commands:#?}");
        assert!(commands[0].contains("`roadlog client` has no subcommand or argument `shred`"), "{commands:#?}");
        assert!(commands[1].contains("`--all`"), "{commands:#?}");
        assert!(commands[2].contains("no_test_has_this_name"), "{commands:#?}");
        assert!(commands[3].contains("bench/walk"), "{commands:#?}");
        assert!(commands[4].contains("without `--workspace`"), "{commands:#?}");
        // A page left out of the summary.
        let summary = read(&Path::new(BOOK).join("SUMMARY.md"), "# Summary\n\n- [API](clients/api.md)\n");
        let missing = unlisted(&summary, &[Path::new(BOOK).join("clients/api.md"), path.clone()]);
        assert_eq!(missing, [format!("{} is not listed in {BOOK}/SUMMARY.md", path.display())]);
        // Headings as mdBook numbers them.
        assert_eq!(heading_id("Sandbox on day one"), "sandbox-on-day-one");
        assert_eq!(heading_id("A read: a worker's page of missions"), "a-read-a-workers-page-of-missions");
    }
}
