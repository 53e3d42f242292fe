//! The memo of fragment expansions: each fragment is expanded once and its totals reused, which
//! keeps the cost walk linear in the size of the document; a fragment met again while it is being
//! expanded is a cycle, refused instead of followed.

use async_graphql::Positioned;
use async_graphql::parser::types::FragmentDefinition;

use super::Walk;
use super::cost::Expanded;
use crate::graphql::guard::{Refusal, position};

/// Where the expansion of a fragment stands.
pub(super) enum Memo {
    InProgress,
    Done(Expanded),
}

impl<'a> Walk<'a> {
    /// The totals of the fragment `name`, spread at `at`: expanded on first use, then reused.
    pub(super) fn fragment(
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
