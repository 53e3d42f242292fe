//! Parsed documents kept for the requests that send the same text again.
//!
//! Clients send a handful of fixed documents over and over (an app's screens, a payroll
//! export's queries), and parsing is the largest cost of a small request, growing with the
//! text; a kept document costs a lookup and the copy the executor takes (bench/README.md,
//! "Figures behind code choices"). A parse depends on the text only, so one process-wide store
//! serves every request and schema.
//!
//! Bounded, as any state a client can grow: documents of at most [`LARGEST`] bytes are kept,
//! [`BUDGET`] in all (each counted as its text plus [`ENTRY`] bytes, so that many tiny
//! documents count too), the least recently used dropped first. A parsed document takes some
//! twenty times its text (a node, a name and a position per token), so the budget holds a few
//! megabytes at most, and some seventy documents of 3 KB. A client sending a
//! new document at each request only makes each of its requests insert one (and evict others):
//! nothing grows, and a document that does not parse is never kept.

use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

use async_graphql::parser::types::ExecutableDocument;
use lru::LruCache;

/// Longest document kept, in bytes: larger ones are parsed at each request.
pub const LARGEST: usize = 16 * 1024;

/// What the documents kept may weigh in all.
pub const BUDGET: usize = 256 * 1024;

/// What a document weighs besides its text: the entry, the document's own nodes.
pub const ENTRY: usize = 512;

fn weight(query: &str) -> usize {
    query.len() + ENTRY
}

struct Kept {
    documents: LruCache<Box<str>, Arc<ExecutableDocument>>,
    /// The weight of `documents`.
    weight: usize,
}

static KEPT: LazyLock<Mutex<Kept>> = LazyLock::new(|| {
    Mutex::new(Kept {
        // Bounded by weight, below (no document weighs less than `ENTRY`).
        documents: LruCache::unbounded(),
        weight: 0,
    })
});

/// A poisoned lock only means a panic elsewhere while it was held: the map is still whole (each
/// change below is one call of `LruCache`'s).
fn kept() -> MutexGuard<'static, Kept> {
    KEPT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The document `query` parses to: the one kept for the same text, or a new parse (kept when
/// it succeeds and is small enough). The caller has scanned `query` first: the parser recurses,
/// and only the scan bounds its depth.
pub fn parse(query: &str) -> Result<Arc<ExecutableDocument>, async_graphql::parser::Error> {
    if let Some(document) = kept().documents.get(query).cloned() {
        return Ok(document);
    }
    let document = Arc::new(async_graphql::parser::parse_query(query)?);
    if query.len() <= LARGEST {
        keep(query, document.clone());
    }
    Ok(document)
}

fn keep(query: &str, document: Arc<ExecutableDocument>) {
    let mut kept = kept();
    // Two requests may have parsed the same new text at once: the second replaces the first.
    if kept.documents.put(query.into(), document).is_none() {
        kept.weight += weight(query);
    }
    while kept.weight > BUDGET {
        let Some((evicted, _)) = kept.documents.pop_lru() else {
            break;
        };
        kept.weight -= weight(&evicted);
    }
}

/// The weight kept now (tests).
#[cfg(test)]
fn kept_weight() -> usize {
    kept().weight
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_document_is_the_parse_of_its_text() {
        let query = "query Kept($id: Int!) { company(id: $id) { id name } me { id } }";
        let first = parse(query).unwrap();
        let again = parse(query).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the second parse is the kept one");
        assert_eq!(
            format!("{again:?}"),
            format!("{:?}", async_graphql::parser::parse_query(query).unwrap())
        );
        assert!(parse("{ me { id }").is_err(), "a syntax error is an error every time");
        assert!(parse("{ me { id }").is_err());
    }

    #[test]
    fn the_text_kept_stays_within_the_budget() {
        // Distinct documents of ~8 KiB each, four times the budget: the oldest are dropped.
        let filler = "a ".repeat(4 * 1024);
        for i in 0..(4 * BUDGET / (8 * 1024)) {
            let query = format!("query Q{i} {{ __typename }} # {filler}");
            parse(&query).unwrap();
            assert!(kept_weight() <= BUDGET, "{} kept", kept_weight());
        }
        // A document over the size kept is parsed, not kept.
        let large = format!("{{ __typename }} # {}", "b".repeat(LARGEST));
        parse(&large).unwrap();
        assert!(kept().documents.peek(large.as_str()).is_none());
    }
}
