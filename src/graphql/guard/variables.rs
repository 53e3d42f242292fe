//! Coercion of the request's variables against the operation's declarations (GraphQL §6.1.2):
//! a required variable that is missing or null, a value of the wrong type, an Int outside 32
//! bits, an unknown input field, a NUL character: each refuses the request before anything runs,
//! with graphql-js's wording. The executor would only find them when a resolver reads its
//! argument, after earlier fields of a mutation already wrote.

use async_graphql::parser::types::{BaseType, OperationDefinition, Type};
use async_graphql::{Positioned, Variables};
use async_graphql_value::ConstValue;

use super::model::{Named, SchemaModel};
use super::{Refusal, position};

/// Checks every variable the operation declares.
pub fn coerce(
    model: &SchemaModel,
    operation: &Positioned<OperationDefinition>,
    variables: &Variables,
) -> Result<(), Vec<Refusal>> {
    let mut refusals = Vec::new();
    for definition in &operation.node.variable_definitions {
        let name = definition.node.name.node.as_str();
        let ty = &definition.node.var_type.node;
        let at = position(definition.pos);
        match variables.get(name) {
            None if definition.node.default_value.is_none() && !ty.nullable => refusals.push(Refusal::at(
                format!("Variable \"${name}\" of required type \"{ty}\" was not provided."),
                at,
            )),
            None => {}
            Some(ConstValue::Null) if !ty.nullable => refusals.push(Refusal::at(
                format!("Variable \"${name}\" of non-null type \"{ty}\" must not be null."),
                at,
            )),
            Some(value) => {
                if has_nul_const(value) {
                    refusals.push(
                        Refusal::at(
                            format!("Variable \"${name}\": string values must not contain the NUL character (U+0000)."),
                            at,
                        )
                        .with_code("INVALID_INPUTS"),
                    );
                } else if let Err(reason) = check(model, ty, value) {
                    refusals.push(Refusal::at(
                        format!("Variable \"${name}\" got invalid value {}; {reason}", show(value)),
                        at,
                    ));
                }
            }
        }
    }
    if refusals.is_empty() { Ok(()) } else { Err(refusals) }
}

/// Whether a constant value holds a NUL character anywhere (keys included).
pub(super) fn has_nul_const(value: &ConstValue) -> bool {
    match value {
        ConstValue::String(s) => s.contains('\0'),
        ConstValue::List(items) => items.iter().any(has_nul_const),
        ConstValue::Object(fields) => fields.iter().any(|(k, v)| k.contains('\0') || has_nul_const(v)),
        _ => false,
    }
}

/// A value as graphql-js prints it in messages (JSON).
fn show(value: &ConstValue) -> String {
    value
        .clone()
        .into_json()
        .map(|v| v.to_string())
        .unwrap_or_else(|_| value.to_string())
}

/// Whether `value` coerces to `ty`; the reason when it does not.
pub(super) fn check(model: &SchemaModel, ty: &Type, value: &ConstValue) -> Result<(), String> {
    if matches!(value, ConstValue::Null) {
        return if ty.nullable {
            Ok(())
        } else {
            Err(format!("Expected non-nullable type \"{ty}\" not to be null."))
        };
    }
    match &ty.base {
        BaseType::List(inner) => match value {
            ConstValue::List(items) if items.len() > super::Limits::DEFAULT.list_items => Err(format!(
                "Lists hold at most {} items; this one has {}.",
                super::Limits::DEFAULT.list_items,
                items.len()
            )),
            ConstValue::List(items) => {
                for (index, item) in items.iter().enumerate() {
                    check(model, inner, item).map_err(|reason| format!("at index {index}: {reason}"))?;
                }
                Ok(())
            }
            // A single value stands for a list of one (input coercion of lists).
            single => check(model, inner, single),
        },
        BaseType::Named(name) => named(model, name.as_str(), value),
    }
}

fn named(model: &SchemaModel, name: &str, value: &ConstValue) -> Result<(), String> {
    match name {
        "Int" => match value {
            ConstValue::Number(n) => match n.as_i64() {
                Some(i) if i32::try_from(i).is_ok() => Ok(()),
                Some(_) => Err(format!("Int cannot represent non 32-bit signed integer value: {n}")),
                None if n.as_u64().is_some() => {
                    Err(format!("Int cannot represent non 32-bit signed integer value: {n}"))
                }
                None => Err(format!("Int cannot represent non-integer value: {n}")),
            },
            other => Err(format!("Int cannot represent non-integer value: {}", show(other))),
        },
        "Float" => match value {
            ConstValue::Number(_) => Ok(()),
            other => Err(format!("Float cannot represent non numeric value: {}", show(other))),
        },
        "String" => match value {
            ConstValue::String(_) => Ok(()),
            other => Err(format!("String cannot represent a non string value: {}", show(other))),
        },
        "Boolean" => match value {
            ConstValue::Boolean(_) => Ok(()),
            other => Err(format!("Boolean cannot represent a non boolean value: {}", show(other))),
        },
        "ID" => match value {
            ConstValue::String(_) => Ok(()),
            ConstValue::Number(n) if n.is_i64() || n.is_u64() => Ok(()),
            other => Err(format!("ID cannot represent value: {}", show(other))),
        },
        _ => match model.types.get(name) {
            Some(Named::Scalar) => crate::graphql::scalars::validate(name, value),
            Some(Named::Enum(values)) => match value {
                ConstValue::String(s) if values.contains(s.as_str()) => Ok(()),
                ConstValue::Enum(s) if values.contains(s.as_str()) => Ok(()),
                other => Err(format!("Value {} does not exist in \"{name}\" enum.", show(other))),
            },
            Some(Named::InputObject(fields)) => {
                let ConstValue::Object(given) = value else {
                    return Err(format!("Expected type \"{name}\" to be an object."));
                };
                for key in given.keys() {
                    if !fields.iter().any(|(f, _)| f == key.as_str()) {
                        return Err(format!("Field \"{key}\" is not defined by type \"{name}\"."));
                    }
                }
                for (field, definition) in fields {
                    match given.get(field.as_str()) {
                        None if !definition.ty.nullable && definition.default.is_none() => {
                            return Err(format!(
                                "Field \"{field}\" of required type \"{}\" was not provided.",
                                definition.ty
                            ));
                        }
                        None => {}
                        Some(inner) => {
                            check(model, &definition.ty, inner).map_err(|reason| format!("at \"{field}\": {reason}"))?
                        }
                    }
                }
                Ok(())
            }
            // Output types cannot be variable types: the executor's validation says so.
            Some(Named::Object(_)) | None => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDL: &str = "schema { query: Q }
        enum Color { RED GREEN }
        input Point { x: Int! y: Int = 0 label: String }
        type Q { a(n: Int, c: Color, p: Point, l: [Int!]): Int }";

    fn run(query: &str, variables: serde_json::Value) -> Result<(), Vec<Refusal>> {
        let model = SchemaModel::from_sdl(SDL);
        let document = async_graphql::parser::parse_query(query).unwrap();
        let operation = match &document.operations {
            async_graphql::parser::types::DocumentOperations::Single(op) => op,
            _ => unreachable!(),
        };
        coerce(&model, operation, &Variables::from_json(variables))
    }

    #[test]
    fn required_variables_must_be_given_and_not_null() {
        let missing = run("query($n: Int!) { a(n: $n) }", serde_json::json!({})).unwrap_err();
        assert_eq!(
            missing[0].message,
            "Variable \"$n\" of required type \"Int!\" was not provided."
        );
        assert_eq!(missing[0].locations[0].line, 1);
        let null = run("query($n: Int!) { a(n: $n) }", serde_json::json!({ "n": null })).unwrap_err();
        assert_eq!(
            null[0].message,
            "Variable \"$n\" of non-null type \"Int!\" must not be null."
        );
        assert!(run("query($n: Int! = 3) { a(n: $n) }", serde_json::json!({})).is_ok());
        assert!(run("query($n: Int) { a(n: $n) }", serde_json::json!({})).is_ok());
    }

    #[test]
    fn ints_are_32_bits() {
        let refused = run(
            "query($n: Int) { a(n: $n) }",
            serde_json::json!({ "n": 3_000_000_000i64 }),
        )
        .unwrap_err();
        assert_eq!(
            refused[0].message,
            "Variable \"$n\" got invalid value 3000000000; Int cannot represent non 32-bit signed integer value: 3000000000"
        );
        assert!(run("query($n: Int) { a(n: $n) }", serde_json::json!({ "n": 1.5 })).is_err());
        assert!(run("query($n: Int) { a(n: $n) }", serde_json::json!({ "n": "1" })).is_err());
        assert!(run("query($n: Int) { a(n: $n) }", serde_json::json!({ "n": -2147483648 })).is_ok());
    }

    #[test]
    fn enums_input_objects_and_lists() {
        assert!(run("query($c: Color) { a(c: $c) }", serde_json::json!({ "c": "RED" })).is_ok());
        assert!(run("query($c: Color) { a(c: $c) }", serde_json::json!({ "c": "BLUE" })).is_err());
        assert!(run("query($p: Point) { a(p: $p) }", serde_json::json!({ "p": { "x": 1 } })).is_ok());
        let unknown = run(
            "query($p: Point) { a(p: $p) }",
            serde_json::json!({ "p": { "x": 1, "z": 2 } }),
        )
        .unwrap_err();
        assert!(
            unknown[0]
                .message
                .ends_with("Field \"z\" is not defined by type \"Point\"."),
            "{unknown:?}"
        );
        assert!(run("query($p: Point) { a(p: $p) }", serde_json::json!({ "p": { "y": 1 } })).is_err());
        assert!(run("query($l: [Int!]) { a(l: $l) }", serde_json::json!({ "l": [1, 2] })).is_ok());
        assert!(
            run("query($l: [Int!]) { a(l: $l) }", serde_json::json!({ "l": 1 })).is_ok(),
            "one value is a list of one"
        );
        let long: Vec<i64> = (0..1001).collect();
        let refused = run("query($l: [Int!]) { a(l: $l) }", serde_json::json!({ "l": long })).unwrap_err();
        assert!(
            refused[0]
                .message
                .ends_with("Lists hold at most 1000 items; this one has 1001."),
            "{refused:?}"
        );
        let inner_null = run("query($l: [Int!]) { a(l: $l) }", serde_json::json!({ "l": [1, null] })).unwrap_err();
        assert!(inner_null[0].message.contains("at index 1"), "{inner_null:?}");
    }

    #[test]
    fn nul_characters_are_invalid_inputs() {
        let refused = run(
            "query($p: Point) { a(p: $p) }",
            serde_json::json!({ "p": { "x": 1, "label": "a\u{0}b" } }),
        )
        .unwrap_err();
        assert_eq!(refused[0].code, Some("INVALID_INPUTS"));
    }
}
