//! The walk of a parsed document: what it writes (fields, aliases, directives, fragment spreads),
//! what it costs once every fragment spread is expanded, and the checks the executor's
//! validation leaves out (arguments of meta-fields, directive arguments, NUL characters).
//!
//! Why the cost is computed here: the executor's complexity visitor expands every spread where
//! it stands, so 30 fragments that each spread the previous one twice cost it 2^30 visits before
//! it refuses the document. Here each fragment's cost is computed once and reused, which makes
//! the walk linear in the size of the document, and a fragment cycle is found instead of
//! followed.

use std::collections::HashMap;

use async_graphql::Positioned;
use async_graphql::parser::types::{
    Directive, DocumentOperations, ExecutableDocument, FragmentDefinition, OperationDefinition, Selection, SelectionSet,
};
use async_graphql_value::Value;

use super::variables::has_nul_const;

use super::model::SchemaModel;
use super::{Limits, Refusal, position};

/// What the walk found.
pub struct Walked<'a> {
    /// The operation the request selects, when it exists (otherwise the executor says so).
    pub operation: Option<&'a Positioned<OperationDefinition>>,
    pub credential_fields: usize,
}

/// Totals of a selection set with its fragments expanded.
#[derive(Clone, Copy, Default)]
struct Expanded {
    cost: usize,
    credentials: usize,
    depth: usize,
}

enum Memo {
    InProgress,
    Done(Expanded),
}

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

fn nul(pos: async_graphql::Pos) -> Refusal {
    Refusal::at(
        "String values must not contain the NUL character (U+0000).",
        position(pos),
    )
    .with_code("INVALID_INPUTS")
}

fn has_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::List(items) => items.iter().any(has_nul),
        Value::Object(fields) => fields.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}

impl<'a> Walk<'a> {
    /// Counts what a selection set writes and checks its arguments and directives.
    fn written(&mut self, set: &'a SelectionSet, variables: &HashMap<String, String>) {
        for selection in &set.items {
            match &selection.node {
                Selection::Field(field) => {
                    let f = &field.node;
                    self.fields += 1;
                    if f.alias.is_some() {
                        self.aliases += 1;
                    }
                    for (_, value) in &f.arguments {
                        if has_nul(&value.node) {
                            self.refusals.push(nul(value.pos));
                        }
                    }
                    self.meta_field_arguments(field);
                    self.directives(&f.directives, variables);
                    self.written(&f.selection_set.node, variables);
                }
                Selection::FragmentSpread(spread) => {
                    self.spreads += 1;
                    self.directives(&spread.node.directives, variables);
                }
                Selection::InlineFragment(inline) => {
                    self.directives(&inline.node.directives, variables);
                    self.written(&inline.node.selection_set.node, variables);
                }
            }
        }
    }

    /// `__typename` and `__schema` take no argument, `__type` only `name`: the executor's
    /// validation does not check meta-fields.
    fn meta_field_arguments(&mut self, field: &Positioned<async_graphql::parser::types::Field>) {
        let name = field.node.name.node.as_str();
        let allowed: &[&str] = match name {
            "__typename" | "__schema" => &[],
            "__type" => &["name"],
            _ => return,
        };
        for (argument, _) in &field.node.arguments {
            if !allowed.contains(&argument.node.as_str()) {
                self.refusals.push(Refusal::at(
                    format!("Unknown argument \"{}\" on field \"{name}\".", argument.node),
                    position(argument.pos),
                ));
            }
        }
    }

    /// `@include` and `@skip` take exactly `if: Boolean!`, a literal or a Boolean variable;
    /// other directives are the executor's to refuse.
    fn directives(&mut self, directives: &[Positioned<Directive>], variables: &HashMap<String, String>) {
        for directive in directives {
            self.directives += 1;
            let name = directive.node.name.node.as_str();
            if !matches!(name, "include" | "skip") {
                continue;
            }
            let mut has_if = false;
            for (argument, value) in &directive.node.arguments {
                if argument.node.as_str() != "if" {
                    self.refusals.push(Refusal::at(
                        format!("Unknown argument \"{}\" on directive \"@{name}\".", argument.node),
                        position(argument.pos),
                    ));
                    continue;
                }
                has_if = true;
                match &value.node {
                    Value::Boolean(_) => {}
                    Value::Variable(variable) => {
                        let declared = variables.get(variable.as_str()).map(String::as_str);
                        if !matches!(declared, Some("Boolean") | Some("Boolean!") | None) {
                            self.refusals.push(Refusal::at(
                                format!(
                                    "Variable \"${variable}\" of type \"{}\" used in position expecting type \"Boolean!\".",
                                    declared.unwrap_or_default()
                                ),
                                position(value.pos),
                            ));
                        }
                    }
                    other => self.refusals.push(Refusal::at(
                        format!(
                            "Argument \"if\" of directive \"@{name}\" has invalid value {other}: Boolean! expected."
                        ),
                        position(value.pos),
                    )),
                }
            }
            if !has_if {
                self.refusals.push(Refusal::at(
                    format!("Directive \"@{name}\" argument \"if\" of type \"Boolean!\" is required, but it was not provided."),
                    position(directive.pos),
                ));
            }
        }
    }

    fn check_counts(&mut self) {
        let limits = self.limits;
        for (count, limit, what) in [
            (self.fields, limits.fields, "fields"),
            (self.aliases, limits.aliases, "aliases"),
            (self.directives, limits.directives, "directives"),
            (self.spreads, limits.fragment_spreads, "fragment spreads"),
        ] {
            if count > limit {
                self.refusals.push(Refusal::new(format!(
                    "The document has {count} {what}; the limit is {limit}."
                )));
            }
        }
    }

    /// Cost, credential fields and depth of a selection set on `parent`, every spread expanded
    /// (each fragment computed once).
    fn expand(&mut self, set: &'a SelectionSet, parent: &str) -> Expanded {
        let mut total = Expanded::default();
        for selection in &set.items {
            let part = match &selection.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    let definition = self.model.field(parent, name);
                    if let Some(definition) = definition {
                        self.literal_arguments(field, definition);
                    }
                    // An unknown field (the executor refuses it) is still measured, below an
                    // unknown type: depth and cost are properties of the text.
                    let result = definition.map(|d| d.result.clone()).unwrap_or_default();
                    let below = if field.node.selection_set.node.items.is_empty() {
                        Expanded::default()
                    } else {
                        self.expand(&field.node.selection_set.node, &result)
                    };
                    Expanded {
                        cost: below.cost.saturating_add(1),
                        credentials: below.credentials + usize::from(definition.is_some_and(|d| d.checks_credentials)),
                        depth: below.depth + 1,
                    }
                }
                Selection::InlineFragment(inline) => {
                    let on = inline
                        .node
                        .type_condition
                        .as_ref()
                        .map(|c| c.node.on.node.to_string())
                        .unwrap_or_else(|| parent.to_string());
                    self.expand(&inline.node.selection_set.node, &on)
                }
                Selection::FragmentSpread(spread) => {
                    let name = spread.node.fragment_name.node.as_str();
                    match self.document.fragments.get(name) {
                        Some(fragment) => self.fragment(name, fragment, spread.pos),
                        // Unknown fragments are the executor's to report.
                        None => Expanded::default(),
                    }
                }
            };
            total.cost = total.cost.saturating_add(part.cost);
            total.credentials = total.credentials.saturating_add(part.credentials);
            total.depth = total.depth.max(part.depth);
            if total.cost > self.limits.cost {
                // Enough to refuse: no need to look further.
                break;
            }
        }
        total
    }

    /// Literal argument values coerce to their argument's type (an Int within 32 bits, …): the
    /// executor's validation lets an out-of-range Int through to the resolver.
    fn literal_arguments(
        &mut self,
        field: &Positioned<async_graphql::parser::types::Field>,
        definition: &super::model::Field,
    ) {
        for (name, value) in &field.node.arguments {
            let Some(argument) = definition.args.get(name.node.as_str()) else {
                continue;
            };
            // Values holding variables are checked through the variables' coercion.
            let Some(constant) = value.node.clone().into_const() else {
                continue;
            };
            if let Err(reason) = super::variables::check(self.model, &argument.ty, &constant) {
                self.refusals.push(Refusal::at(
                    format!("Argument \"{}\" has invalid value {}: {reason}", name.node, value.node),
                    position(value.pos),
                ));
            }
        }
    }

    fn fragment(
        &mut self,
        name: &'a str,
        fragment: &'a Positioned<FragmentDefinition>,
        at: async_graphql::Pos,
    ) -> Expanded {
        match self.memo.get(name) {
            Some(Memo::Done(expanded)) => return *expanded,
            Some(Memo::InProgress) => {
                self.refusals.push(Refusal::at(
                    format!("Cannot spread fragment \"{name}\" within itself."),
                    position(at),
                ));
                return Expanded::default();
            }
            None => {}
        }
        self.memo.insert(name, Memo::InProgress);
        let on = named_condition(fragment);
        let expanded = self.expand(&fragment.node.selection_set.node, &on);
        self.memo.insert(name, Memo::Done(expanded));
        expanded
    }
}

fn named_condition(fragment: &Positioned<FragmentDefinition>) -> String {
    fragment.node.type_condition.node.on.node.to_string()
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
