//! The guard: every GraphQL request is measured and checked before the executor parses,
//! validates or runs any of it, so that no document can exhaust the stack, the CPU or the
//! password-hashing budget, and no badly typed variable reaches a resolver.
//!
//! In order: a linear scan of the text (size, tokens, nesting), the parse (now bounded; a text
//! parsed before is taken from [`parsed`], shared), a walk
//! of the document (fields, aliases, directives, fragment spreads, the cost with fragments
//! expanded and memoized, fragment cycles, arguments of meta-fields and directives, credential
//! fields, NUL characters), then the coercion of the variables against the schema (GraphQL
//! §6.1.2). A refusal is a request error: HTTP 400, no `data`, nothing executed.

mod document;
pub mod model;
pub mod parsed;
mod scan;
mod variables;

use async_graphql::Variables;
use async_graphql::parser::types::ExecutableDocument;

pub use model::SchemaModel;
pub use scan::Position;

/// The limits of one document; the book lists them (`docs/src/reference/limits.md`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Longest document, in bytes.
    pub document_bytes: usize,
    /// Most tokens (names, punctuation, values) in a document.
    pub tokens: usize,
    /// Deepest nesting of `{`, `[` and `(` together: selections, lists, input objects.
    pub nesting: usize,
    /// Deepest selection nesting (fields within fields).
    pub selection_depth: usize,
    /// Most fields written in the document.
    pub fields: usize,
    /// Most aliased fields.
    pub aliases: usize,
    /// Most directives.
    pub directives: usize,
    /// Most fragment spreads written in the document.
    pub fragment_spreads: usize,
    /// Largest cost: fields counted with every fragment spread expanded.
    pub cost: usize,
    /// Most fields that check a password, in one HTTP request (a batch included).
    pub credential_fields: usize,
    /// Most items in a list argument or list variable (id lists included).
    pub list_items: usize,
}

impl Limits {
    /// The limits the service applies.
    pub const DEFAULT: Limits = Limits {
        document_bytes: 100 * 1024,
        tokens: 20_000,
        nesting: 64,
        selection_depth: 15,
        fields: 2_000,
        aliases: 200,
        directives: 100,
        fragment_spreads: 500,
        cost: 5_000,
        credential_fields: 1,
        list_items: 1_000,
    };
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::DEFAULT
    }
}

/// Why a request is refused before execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub locations: Vec<Position>,
    /// An interface error code, where one applies (`INVALID_INPUTS` for a NUL character).
    pub code: Option<&'static str>,
}

impl Refusal {
    pub fn new(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            locations: Vec::new(),
            code: None,
        }
    }

    pub fn at(message: impl Into<String>, position: Position) -> Refusal {
        Refusal {
            locations: vec![position],
            ..Refusal::new(message)
        }
    }

    fn with_code(mut self, code: &'static str) -> Refusal {
        self.code = Some(code);
        self
    }

    /// The error as the GraphQL response shows it.
    pub fn to_json(&self) -> serde_json::Value {
        let mut error = serde_json::json!({ "message": self.message });
        if !self.locations.is_empty() {
            error["locations"] = self
                .locations
                .iter()
                .map(|p| serde_json::json!({ "line": p.line, "column": p.column }))
                .collect();
        }
        if let Some(code) = self.code {
            error["extensions"] = serde_json::json!({ "code": code });
        }
        error
    }
}

fn position(pos: async_graphql::Pos) -> Position {
    Position {
        line: pos.line,
        column: pos.column,
    }
}

/// A document that passed the guard.
pub struct Checked {
    /// Shared with the documents kept ([`parsed`]): the executor takes a copy.
    pub document: std::sync::Arc<ExecutableDocument>,
    /// Fields of the selected operation that check a password, fragments expanded.
    pub credential_fields: usize,
}

/// The linear scan alone, for code that must parse a document before the guard runs.
pub fn prescan(query: &str) -> Result<(), Refusal> {
    scan::scan(query, &Limits::DEFAULT).map(|_| ())
}

/// Checks one operation request.
pub fn check(
    model: &SchemaModel,
    limits: &Limits,
    query: &str,
    variables: &Variables,
    operation_name: Option<&str>,
) -> Result<Checked, Vec<Refusal>> {
    scan::scan(query, limits).map_err(|r| vec![r])?;
    let document = parsed::parse(query).map_err(|error| {
        let error = async_graphql::ServerError::from(error);
        vec![Refusal {
            message: error.message,
            locations: error.locations.into_iter().map(position).collect(),
            code: None,
        }]
    })?;
    let walked = document::walk(model, limits, &document, operation_name)?;
    if let Some(operation) = walked.operation {
        variables::coerce(model, operation, variables)?;
    }
    Ok(Checked {
        credential_fields: walked.credential_fields,
        document,
    })
}
