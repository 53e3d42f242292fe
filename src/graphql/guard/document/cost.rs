//! The cost walk of the selected operation: cost (fields), credential fields and depth of a
//! selection set with every fragment spread expanded (each fragment once, see `fragments`), and
//! the literal arguments it meets checked against their argument types.

use async_graphql::Positioned;
use async_graphql::parser::types::{Selection, SelectionSet};

use super::Walk;
use crate::graphql::guard::{Refusal, model, position, variables};

/// Totals of a selection set with its fragments expanded.
#[derive(Clone, Copy, Default)]
pub(super) struct Expanded {
    pub(super) cost: usize,
    pub(super) credentials: usize,
    pub(super) depth: usize,
}

impl<'a> Walk<'a> {
    /// Cost, credential fields and depth of a selection set on `parent`, every spread expanded
    /// (each fragment computed once).
    pub(super) fn expand(&mut self, set: &'a SelectionSet, parent: &str) -> Expanded {
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
        definition: &model::Field,
    ) {
        for (name, value) in &field.node.arguments {
            let Some(argument) = definition.args.get(name.node.as_str()) else {
                continue;
            };
            // Values holding variables are checked through the variables' coercion.
            let Some(constant) = value.node.clone().into_const() else {
                continue;
            };
            if let Err(reason) = variables::check(self.model, &argument.ty, &constant) {
                self.refusals.push(Refusal::at(
                    format!("Argument \"{}\" has invalid value {}: {reason}", name.node, value.node),
                    position(value.pos),
                ));
            }
        }
    }
}
