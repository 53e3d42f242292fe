//! Which operation of a document runs, and what an executed operation did, in a few words for the software vendors' audit trail: its
//! type and root fields, with the fields under a mutation namespace (`mutation
//! activities.logActivity`, `query me, company`). Never arguments or variables.

use async_graphql::Positioned;
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, OperationDefinition, OperationType, Selection,
};

/// The operation `name` (or the only one) of the document.
fn selected<'d>(document: &'d ExecutableDocument, name: Option<&str>) -> Option<&'d Positioned<OperationDefinition>> {
    match (&document.operations, name) {
        (DocumentOperations::Single(op), _) => Some(op),
        (DocumentOperations::Multiple(ops), Some(name)) => ops.get(name),
        (DocumentOperations::Multiple(ops), None) => ops.values().next(),
    }
}

/// Whether the operation `name` (or the only one) of the document is a mutation.
pub fn is_mutation(document: &ExecutableDocument, name: Option<&str>) -> bool {
    selected(document, name).is_some_and(|op| op.node.ty == OperationType::Mutation)
}

/// The label of the operation `name` (or the only one) of the document.
pub fn operation(document: &ExecutableDocument, name: Option<&str>) -> String {
    let Some(operation) = selected(document, name) else {
        return "unknown".to_string();
    };
    let kind = match operation.node.ty {
        OperationType::Query => "query",
        OperationType::Mutation => "mutation",
        OperationType::Subscription => "subscription",
    };
    // Mutation namespaces are the argument-less fields of the mutation root (the contract's
    // rule, see the code generator): their fields say what was done.
    let mutation = operation.node.ty == OperationType::Mutation;
    let mut fields = Vec::new();
    for item in &operation.node.selection_set.node.items {
        match &item.node {
            Selection::Field(field) => {
                let name = field.node.name.node.as_str();
                let nested = mutation && field.node.arguments.is_empty();
                let children: Vec<&str> = field
                    .node
                    .selection_set
                    .node
                    .items
                    .iter()
                    .filter_map(|child| match &child.node {
                        Selection::Field(child) if nested => Some(child.node.name.node.as_str()),
                        _ => None,
                    })
                    .collect();
                if children.is_empty() || name == "__typename" {
                    fields.push(name.to_string());
                } else {
                    fields.extend(children.iter().map(|child| format!("{name}.{child}")));
                }
            }
            Selection::FragmentSpread(_) | Selection::InlineFragment(_) => fields.push("…".to_string()),
        }
    }
    format!("{kind} {}", fields.join(", "))
}

#[cfg(test)]
mod tests {
    fn label(query: &str, name: Option<&str>) -> String {
        super::operation(&async_graphql::parser::parse_query(query).unwrap(), name)
    }

    #[test]
    fn operations_are_named_by_their_root_fields() {
        assert_eq!(label("{ me { id } company(id: 1) { id } }", None), "query me, company");
        assert_eq!(
            label(
                "mutation { activities { logActivity(type: \"drive\") { id } endMission(missionId: 1) { id } } }",
                None
            ),
            "mutation activities.logActivity, activities.endMission"
        );
        assert_eq!(
            label(
                "query A { me { id } } mutation B { rotateEmploymentToken(clientId: 1, employmentId: 2) { accessToken } }",
                Some("B")
            ),
            "mutation rotateEmploymentToken"
        );
    }
}
