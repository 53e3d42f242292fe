//! The walk of a parsed document: what it writes (fields, aliases, directives, fragment spreads),
//! what it costs once every fragment spread is expanded, and the checks the executor's
//! validation leaves out (arguments of meta-fields, directive arguments, NUL characters).
//!
//! Why the cost is computed here: the executor's complexity visitor expands every spread where
//! it stands, so 30 fragments that each spread the previous one twice cost it 2^30 visits before
//! it refuses the document. Here each fragment's cost is computed once and reused, which makes
//! the walk linear in the size of the document, and a fragment cycle is found instead of
//! followed.
//!
//! This module is the entry point: what is written is walked first, then the selected operation
//! is expanded. `written` counts and checks what the document writes, `cost` expands a selection
//! set into its cost, credential fields and depth, `fragments` memoizes each fragment's expansion.

mod cost;
mod fragments;
mod written;

use std::collections::HashMap;

use async_graphql::Positioned;
use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, OperationDefinition};

use super::variables::has_nul_const;

use super::model::SchemaModel;
use super::{Limits, Refusal, position};
use fragments::Memo;
use written::nul;

/// What the walk found.
pub struct Walked<'a> {
    /// The operation the request selects, when it exists (otherwise the executor says so).
    pub operation: Option<&'a Positioned<OperationDefinition>>,
    pub credential_fields: usize,
}

/// The state of one walk: the counts of what is written, the refusals so far, the fragment memo.
struct Walk<'a> {
    model: &'a SchemaModel,
    limits: &'a Limits,
    document: &'a ExecutableDocument,
    fields: usize,
    aliases: usize,
    directives: usize,
    spreads: usize,
    refusals: Vec<Refusal>,
    memo: HashMap<&'a str, Memo>,
}

pub fn walk<'a>(
    model: &SchemaModel,
    limits: &Limits,
    document: &'a ExecutableDocument,
    operation_name: Option<&str>,
) -> Result<Walked<'a>, Vec<Refusal>> {
    let mut walk = Walk {
        model,
        limits,
        document,
        fields: 0,
        aliases: 0,
        directives: 0,
        spreads: 0,
        refusals: Vec::new(),
        memo: HashMap::new(),
    };
    // What is written, in every operation and fragment.
    for (_, operation) in document.operations.iter() {
        walk.directives(&operation.node.directives, &variable_types(operation));
        for definition in &operation.node.variable_definitions {
            walk.directives(&definition.node.directives, &HashMap::new());
            if let Some(default) = &definition.node.default_value
                && has_nul_const(&default.node)
            {
                walk.refusals.push(nul(default.pos));
            }
        }
        walk.written(&operation.node.selection_set.node, &variable_types(operation));
    }
    for fragment in document.fragments.values() {
        walk.directives(&fragment.node.directives, &HashMap::new());
        walk.written(&fragment.node.selection_set.node, &HashMap::new());
    }
    walk.check_counts();
    if !walk.refusals.is_empty() {
        return Err(walk.refusals);
    }
    // What the selected operation costs, fragments expanded.
    let operation = select(document, operation_name);
    let mut credential_fields = 0;
    if let Some(operation) = operation
        && let Some(root) = model.root(operation.node.ty)
    {
        let expanded = walk.expand(&operation.node.selection_set.node, root);
        if !walk.refusals.is_empty() {
            return Err(walk.refusals);
        }
        if expanded.depth > limits.selection_depth {
            return Err(vec![Refusal::at(
                format!(
                    "The operation nests selections {} levels deep; the limit is {}.",
                    expanded.depth, limits.selection_depth
                ),
                position(operation.pos),
            )]);
        }
        if expanded.cost > limits.cost {
            return Err(vec![Refusal::at(
                format!(
                    "The operation selects more than {} fields once its fragments are expanded (the limit).",
                    limits.cost
                ),
                position(operation.pos),
            )]);
        }
        credential_fields = expanded.credentials;
    }
    Ok(Walked {
        operation,
        credential_fields,
    })
}

/// The operation a request runs: the named one, or the only one.
fn select<'a>(document: &'a ExecutableDocument, name: Option<&str>) -> Option<&'a Positioned<OperationDefinition>> {
    match (&document.operations, name) {
        (DocumentOperations::Single(operation), _) => Some(operation),
        (DocumentOperations::Multiple(operations), Some(name)) => operations.get(name),
        (DocumentOperations::Multiple(operations), None) if operations.len() == 1 => operations.values().next(),
        _ => None,
    }
}

/// The declared type of each variable of an operation, for the checks of directive arguments.
fn variable_types(operation: &Positioned<OperationDefinition>) -> HashMap<String, String> {
    operation
        .node
        .variable_definitions
        .iter()
        .map(|d| (d.node.name.node.to_string(), d.node.var_type.node.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDL: &str = "schema { query: Q mutation: M }
        type Q { me: U users(first: Int): [U!]! }
        type U { id: Int name: String friends: [U!]! }
        type M { auth: A }
        type A { login(email: String!, password: String!): String other(x: Int): Int }";

    fn run(query: &str) -> Result<(usize, usize), Vec<Refusal>> {
        let model = SchemaModel::from_sdl(SDL);
        let limits = Limits::default();
        let document = async_graphql::parser::parse_query(query).unwrap();
        let walked = walk(&model, &limits, &document, None)?;
        Ok((walked.credential_fields, 0))
    }

    #[test]
    fn a_doubling_fragment_chain_is_refused_at_once() {
        let mut query = String::from("query { ...F30 }\nfragment F0 on Q { me { id } }\n");
        for i in 1..=30 {
            query.push_str(&format!("fragment F{i} on Q {{ ...F{} ...F{} }}\n", i - 1, i - 1));
        }
        let started = std::time::Instant::now();
        let refused = run(&query).unwrap_err();
        assert!(refused[0].message.contains("more than 5000 fields"), "{refused:?}");
        // Linear: far from the 2^30 visits of a naive expansion.
        assert!(started.elapsed().as_secs() < 5);
    }

    #[test]
    fn fragment_cycles_are_found_not_followed() {
        let refused = run("{ ...A } fragment A on Q { ...B } fragment B on Q { ...A }").unwrap_err();
        assert!(
            refused.iter().any(|r| r.message.contains("within itself")),
            "{refused:?}"
        );
    }

    #[test]
    fn credential_fields_are_counted_through_fragments_and_aliases() {
        let query = "mutation { auth { a: login(email: \"x\", password: \"y\") ...L } }
                     fragment L on A { b: login(email: \"x\", password: \"y\") c: login(email: \"x\", password: \"y\") other }";
        assert_eq!(run(query).unwrap().0, 3);
        assert_eq!(run("{ me { name } }").unwrap().0, 0);
    }

    #[test]
    fn meta_fields_and_directives_are_checked() {
        let refused = run("{ __typename(x: 1) }").unwrap_err();
        assert_eq!(refused[0].message, "Unknown argument \"x\" on field \"__typename\".");
        let refused = run("{ me @include(if: [[true]]) { id } }").unwrap_err();
        assert!(refused[0].message.contains("Boolean! expected"), "{refused:?}");
        let refused = run("query($v: [Int]) { me @skip(if: $v) { id } }").unwrap_err();
        assert!(
            refused[0].message.contains("expecting type \"Boolean!\""),
            "{refused:?}"
        );
        let refused = run("{ me @skip { id } }").unwrap_err();
        assert!(refused[0].message.contains("is required"), "{refused:?}");
        assert!(run("query($v: Boolean!) { me @skip(if: $v) { id } }").is_ok());
    }

    #[test]
    fn nul_characters_are_refused_with_invalid_inputs() {
        let refused = run("mutation { auth { login(email: \"a\\u0000b\", password: \"p\") } }").unwrap_err();
        assert_eq!(refused[0].code, Some("INVALID_INPUTS"));
    }

    #[test]
    fn counts_are_bounded() {
        let aliases: String = (0..201).map(|i| format!("a{i}: __typename ")).collect();
        let refused = run(&format!("{{ {aliases} }}")).unwrap_err();
        assert_eq!(refused[0].message, "The document has 201 aliases; the limit is 200.");
    }
}

#[cfg(test)]
mod on_the_contract {
    use super::*;

    #[test]
    fn deep_selections_through_the_schema_cycles_are_refused() {
        let mut inner = String::from("id");
        for _ in 0..10 {
            inner = format!("company {{ employments {{ user {{ {inner} }} }} }}");
        }
        let query = format!("{{ me {{ currentEmployments {{ {inner} }} }} }}");
        let document = async_graphql::parser::parse_query(&query).unwrap();
        let refused = walk(&crate::graphql::GUARD_MODEL, &Limits::DEFAULT, &document, None).err();
        let message = refused.map(|r| r[0].message.clone()).unwrap_or_default();
        assert!(message.contains("levels deep"), "{message}");
    }
}
