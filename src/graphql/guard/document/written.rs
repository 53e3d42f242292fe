//! What a document writes, in every operation and fragment: fields, aliases, directives and
//! fragment spreads counted against their limits, and the checks the executor's validation
//! leaves out (arguments of meta-fields, `@include`/`@skip` arguments, NUL characters).

use std::collections::HashMap;

use async_graphql::Positioned;
use async_graphql::parser::types::{Directive, Selection, SelectionSet};
use async_graphql_value::Value;

use super::Walk;
use crate::graphql::guard::{Refusal, position};

pub(super) fn nul(pos: async_graphql::Pos) -> Refusal {
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
    pub(super) fn written(&mut self, set: &'a SelectionSet, variables: &HashMap<String, String>) {
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
    pub(super) fn directives(&mut self, directives: &[Positioned<Directive>], variables: &HashMap<String, String>) {
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

    pub(super) fn check_counts(&mut self) {
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
}
