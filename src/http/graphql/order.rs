//! The keys of an answer in the order of the query (GraphQL §7.1: "the same order in which they
//! appear in the request", the order CollectFields gives, §6.3.2).
//!
//! async-graphql 7 runs a query's sibling fields concurrently and stores each as it completes
//! (async-graphql issue #612), so a field that waits on the database comes after the ones that
//! did not. This puts each object of `data` back in the order of its selection set, fragments
//! expanded in place, the sub-selections of fields sharing a response key merged, fields skipped
//! by `@skip`/`@include` left out. The schema has no interfaces or unions, so every fragment a
//! valid document spreads applies. An object already in order is only read, not rebuilt.

use async_graphql::Value;
use async_graphql::parser::types::{
    Directive, DocumentOperations, ExecutableDocument, FragmentDefinition, Selection, SelectionSet,
};
use async_graphql::{Name, Positioned, Variables};
use std::collections::HashMap;

/// Nesting beyond which keys are left as they are: validation allows far less
/// (`graphql::MAX_DEPTH`); this bound only keeps a bug from recursing without end.
const MAX_DEPTH: usize = 256;

/// Puts the keys of `data` in the order of the operation's selections.
pub(super) fn reorder(data: &mut Value, document: &ExecutableDocument, operation: Option<&str>, variables: &Variables) {
    let selected = match (&document.operations, operation) {
        (DocumentOperations::Single(op), _) => Some(op),
        (DocumentOperations::Multiple(ops), Some(name)) => ops.get(name),
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => ops.values().next(),
        _ => None,
    };
    let Some(operation) = selected else { return };
    let context = Context {
        fragments: &document.fragments,
        variables,
    };
    let keys = context.keys(&[&operation.node.selection_set.node], 0);
    apply(data, &keys);
}

struct Context<'a> {
    fragments: &'a HashMap<Name, Positioned<FragmentDefinition>>,
    variables: &'a Variables,
}

/// A response key and the selection sets of the fields that share it.
type Grouped<'a> = Vec<(&'a str, Vec<&'a SelectionSet>)>;

/// The response keys of merged selection sets in order, each with the keys of its own
/// sub-selections (none for a leaf). Built once for the whole operation, the size of the
/// query: the objects of a list share one (a page of fifty missions, each with its
/// activities, collected the activities' keys fifty times when each object collected its own).
#[derive(Default)]
struct Keys<'a>(Vec<(&'a str, Keys<'a>)>);

/// Puts each object of `value` (an object, or a list of them, nested at any depth) in the
/// order of `keys`, then its fields' values in the order of their own selections.
///
/// No key is hashed: an object's keys are compared with the selection's by walking both in
/// order (they are a subsequence of it once in order: a field may be missing, never repeated).
/// Hashing every key of every object to look it up showed in the profile of a worker's month
/// (bench/README.md, "Figures behind code choices").
fn apply(value: &mut Value, keys: &Keys<'_>) {
    match value {
        Value::List(items) => {
            for item in items {
                apply(item, keys);
            }
        }
        Value::Object(fields) => {
            let mut selected = keys.0.iter();
            let in_order = fields.keys().all(|key| selected.any(|(k, _)| *k == key.as_str()));
            if !in_order {
                // Sorted in place (a stable sort: a key that is not selected, which should not
                // happen, keeps its place at the end). The map keeps each key's hash, so
                // nothing is hashed again or allocated.
                let rank = |key: &str| keys.0.iter().position(|(k, _)| *k == key).unwrap_or(usize::MAX);
                fields.sort_by(|a, _, b, _| rank(a.as_str()).cmp(&rank(b.as_str())));
            }
            let mut selected = keys.0.iter();
            for (key, field) in fields.iter_mut() {
                let Some((_, sub_keys)) = selected.find(|(k, _)| *k == key.as_str()) else {
                    break;
                };
                if !sub_keys.0.is_empty() {
                    apply(field, sub_keys);
                }
            }
        }
        _ => {}
    }
}

impl<'a> Context<'a> {
    /// The keys of these merged selection sets and, recursively, of their fields' selections.
    /// The depth is the document's, which validation bounded before execution.
    fn keys(&self, sets: &[&'a SelectionSet], depth: usize) -> Keys<'a> {
        let mut grouped = Grouped::new();
        for set in sets {
            self.collect(set, &mut grouped, 0);
        }
        Keys(
            grouped
                .into_iter()
                .map(|(key, sub_sets)| {
                    let sub_keys = if sub_sets.is_empty() || depth > MAX_DEPTH {
                        Keys::default()
                    } else {
                        self.keys(&sub_sets, depth + 1)
                    };
                    (key, sub_keys)
                })
                .collect(),
        )
    }

    /// CollectFields: the response keys of a selection set in order, fragments in place.
    fn collect(&self, set: &'a SelectionSet, grouped: &mut Grouped<'a>, depth: usize) {
        // Valid documents have no fragment cycles; the bound only keeps a bug from looping.
        if depth > 64 {
            return;
        }
        for selection in &set.items {
            match &selection.node {
                Selection::Field(field) => {
                    let field = &field.node;
                    if !self.included(&field.directives) {
                        continue;
                    }
                    let key = field.response_key().node.as_str();
                    let position = match grouped.iter().position(|(k, _)| *k == key) {
                        Some(position) => position,
                        None => {
                            grouped.push((key, Vec::new()));
                            grouped.len() - 1
                        }
                    };
                    if !field.selection_set.node.items.is_empty() {
                        grouped[position].1.push(&field.selection_set.node);
                    }
                }
                Selection::FragmentSpread(spread) => {
                    if !self.included(&spread.node.directives) {
                        continue;
                    }
                    if let Some(fragment) = self.fragments.get(&spread.node.fragment_name.node) {
                        self.collect(&fragment.node.selection_set.node, grouped, depth + 1);
                    }
                }
                Selection::InlineFragment(inline) => {
                    if self.included(&inline.node.directives) {
                        self.collect(&inline.node.selection_set.node, grouped, depth + 1);
                    }
                }
            }
        }
    }

    /// `@skip(if:)` and `@include(if:)`, with literal or variable conditions.
    fn included(&self, directives: &[Positioned<Directive>]) -> bool {
        directives.iter().all(|directive| {
            let condition = directive
                .node
                .get_argument("if")
                .and_then(|value| value.node.clone().into_const_with(|name| self.variable(&name)).ok());
            match (directive.node.name.node.as_str(), condition) {
                ("skip", Some(Value::Boolean(skip))) => !skip,
                ("include", Some(Value::Boolean(include))) => include,
                _ => true,
            }
        })
    }

    fn variable(&self, name: &Name) -> Result<Value, ()> {
        self.variables.get(name).cloned().ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use async_graphql::{Value, Variables};
    use serde_json::json;

    fn keys(value: &Value) -> Vec<String> {
        match value {
            Value::Object(fields) => fields.keys().map(|k| k.to_string()).collect(),
            _ => Vec::new(),
        }
    }

    fn reordered(query: &str, data: serde_json::Value, variables: serde_json::Value) -> Value {
        let document = async_graphql::parser::parse_query(query).unwrap();
        let mut data = Value::from_json(data).unwrap();
        super::reorder(&mut data, &document, None, &Variables::from_json(variables));
        data
    }

    #[test]
    fn objects_follow_their_selection_sets() {
        let data = reordered(
            "{ me { zz: lastName ...names items { b a } } top }
             fragment names on User { firstName ... on User { id } }",
            json!({ "top": 1, "me": { "items": [{ "a": 1, "b": 2 }, { "a": 3, "b": 4 }], "id": 7, "firstName": "J", "zz": "M" } }),
            json!({}),
        );
        assert_eq!(keys(&data), ["me", "top"]);
        let Value::Object(root) = &data else { panic!() };
        assert_eq!(keys(&root["me"]), ["zz", "firstName", "id", "items"]);
        let Value::Object(me) = &root["me"] else { panic!() };
        let Value::List(items) = &me["items"] else { panic!() };
        assert!(items.iter().all(|item| keys(item) == ["b", "a"]));
    }

    #[test]
    fn objects_of_a_list_in_different_orders_and_with_keys_missing() {
        let data = reordered(
            "{ page { items { id name activities { start end } } } }",
            json!({ "page": { "items": [
                { "name": "a", "id": 1, "activities": [{ "end": 2, "start": 1 }, { "start": 3, "end": 4 }] },
                { "id": 2, "activities": [{ "end": 6, "start": 5 }] },
                { "activities": [], "name": "c", "id": 3, "extra": true }
            ] } }),
            json!({}),
        );
        let Value::Object(root) = &data else { panic!() };
        let Value::Object(page) = &root["page"] else { panic!() };
        let Value::List(items) = &page["items"] else { panic!() };
        let orders: Vec<Vec<String>> = items.iter().map(keys).collect();
        assert_eq!(
            orders,
            [
                vec!["id", "name", "activities"],
                vec!["id", "activities"],
                vec!["id", "name", "activities", "extra"]
            ]
        );
        for item in items {
            let Value::Object(item) = item else { panic!() };
            let Value::List(activities) = &item["activities"] else {
                panic!()
            };
            assert!(activities.iter().all(|activity| keys(activity) == ["start", "end"]));
        }
    }

    #[test]
    fn merged_fields_and_skipped_occurrences_follow_collect_fields() {
        let data = reordered(
            "query($no: Boolean!) { a @skip(if: true) b @include(if: $no) c me { y } a me { x y z } }",
            json!({ "me": { "z": 3, "x": 1, "y": 2 }, "a": 1, "c": 2 }),
            json!({ "no": false }),
        );
        assert_eq!(keys(&data), ["c", "me", "a"]);
        let Value::Object(root) = &data else { panic!() };
        assert_eq!(keys(&root["me"]), ["y", "x", "z"]);
    }
}
