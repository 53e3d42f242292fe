//! GraphQL documents built from the SDL itself, for tests that must cover every field and
//! mutation, including those added after the test was written: the selection of a type down to
//! a depth (every field whose arguments can be filled, scalar leaves, `__typename` on each
//! object), and the list of mutations with literal arguments chosen by name.

use std::collections::BTreeMap;

use async_graphql::parser::types::{BaseType, SchemaDefinition, Type, TypeKind, TypeSystemDefinition};
use serde_json::Value;

/// An argument or input field: its name, its type, whether it has a default.
#[derive(Clone, Debug)]
pub struct Input {
    pub name: String,
    pub ty: Type,
    pub has_default: bool,
}

impl Input {
    /// Whether a document must give it.
    pub fn required(&self) -> bool {
        !self.ty.nullable && !self.has_default
    }
}

/// A field of an object type.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub args: Vec<Input>,
    pub ty: Type,
}

#[derive(Clone, Debug)]
enum Definition {
    Scalar,
    Enum(Vec<String>),
    Object(Vec<Field>),
    InputObject(Vec<Input>),
    /// Interfaces and unions: not walked (the contract has none).
    Other,
}

/// The types of an SDL document.
pub struct Schema {
    types: BTreeMap<String, Definition>,
    query: String,
    mutation: Option<String>,
}

/// The literal of an argument of a field (`owner` type, field name, argument), or `None` to
/// leave the field out.
pub type Fill<'a> = dyn Fn(&str, &str, &Input) -> Option<String> + Sync + 'a;

/// The named type under lists and non-nulls.
pub fn named(ty: &Type) -> &str {
    match &ty.base {
        BaseType::Named(name) => name.as_str(),
        BaseType::List(inner) => named(inner),
    }
}

fn inputs(values: Vec<async_graphql::Positioned<async_graphql::parser::types::InputValueDefinition>>) -> Vec<Input> {
    values
        .into_iter()
        .map(|v| Input {
            name: v.node.name.node.to_string(),
            ty: v.node.ty.node,
            has_default: v.node.default_value.is_some(),
        })
        .collect()
}

impl Schema {
    pub fn parse(sdl: &str) -> Schema {
        let document = async_graphql::parser::parse_schema(sdl).expect("the SDL parses");
        let mut types = BTreeMap::new();
        let mut roots: Option<SchemaDefinition> = None;
        for definition in document.definitions {
            match definition {
                TypeSystemDefinition::Schema(s) => roots = Some(s.node),
                TypeSystemDefinition::Type(t) => {
                    let t = t.node;
                    let definition = match t.kind {
                        TypeKind::Scalar => Definition::Scalar,
                        TypeKind::Enum(e) => {
                            Definition::Enum(e.values.into_iter().map(|v| v.node.value.node.to_string()).collect())
                        }
                        TypeKind::Object(o) => Definition::Object(
                            o.fields
                                .into_iter()
                                .map(|f| Field {
                                    name: f.node.name.node.to_string(),
                                    args: inputs(f.node.arguments),
                                    ty: f.node.ty.node,
                                })
                                .collect(),
                        ),
                        TypeKind::InputObject(i) => Definition::InputObject(inputs(i.fields)),
                        _ => Definition::Other,
                    };
                    types.insert(t.name.node.to_string(), definition);
                }
                TypeSystemDefinition::Directive(_) => {}
            }
        }
        let roots = roots.expect("a schema definition");
        Schema {
            types,
            query: roots.query.expect("a query root").node.to_string(),
            mutation: roots.mutation.map(|m| m.node.to_string()),
        }
    }

    pub fn query_root(&self) -> &str {
        &self.query
    }

    /// The fields of an object type (none for other types).
    pub fn fields(&self, type_name: &str) -> &[Field] {
        match self.types.get(type_name) {
            Some(Definition::Object(fields)) => fields,
            _ => &[],
        }
    }

    pub fn is_object(&self, type_name: &str) -> bool {
        matches!(self.types.get(type_name), Some(Definition::Object(_)))
    }

    /// The field with its required arguments filled, or `None` when `fill` declines one.
    pub fn call(&self, owner: &str, field: &Field, fill: &Fill<'_>) -> Option<String> {
        let mut args = vec![];
        for arg in &field.args {
            if arg.required() {
                args.push(format!("{}: {}", arg.name, fill(owner, &field.name, arg)?));
            }
        }
        Some(if args.is_empty() {
            field.name.clone()
        } else {
            format!("{}({})", field.name, args.join(", "))
        })
    }

    /// The selection set of an object type: `__typename`, every scalar field, and the object
    /// fields down to `depth` more levels; fields whose required arguments `fill` declines are
    /// left out. `count` adds the fields selected.
    pub fn selection(&self, type_name: &str, depth: usize, fill: &Fill<'_>, count: &mut usize) -> String {
        let mut parts = vec!["__typename".to_string()];
        for field in self.fields(type_name) {
            let Some(call) = self.call(type_name, field, fill) else {
                continue;
            };
            let inner = named(&field.ty);
            if self.is_object(inner) {
                if depth == 0 {
                    continue;
                }
                let selection = self.selection(inner, depth - 1, fill, count);
                parts.push(format!("{call} {selection}"));
            } else {
                parts.push(call);
            }
            *count += 1;
        }
        format!("{{ {} }}", parts.join(" "))
    }

    /// Every mutation: `(path, document)`, the path of namespaces and the field, each document a
    /// single mutation with its required arguments filled by `fill` and the `__typename` of an
    /// object result. A root field without arguments whose type is an object is a namespace.
    pub fn mutations(&self, fill: &Fill<'_>) -> Vec<(String, String)> {
        let Some(root) = &self.mutation else {
            return vec![];
        };
        let mut documents = vec![];
        for field in self.fields(root) {
            let inner = named(&field.ty);
            if field.args.is_empty() && self.is_object(inner) {
                for leaf in self.fields(inner) {
                    if let Some(call) = self.call(inner, leaf, fill) {
                        let result = self.result(&leaf.ty);
                        documents.push((
                            format!("{}.{}", field.name, leaf.name),
                            format!("mutation {{ {} {{ {call}{result} }} }}", field.name),
                        ));
                    }
                }
            } else if let Some(call) = self.call(root, field, fill) {
                let result = self.result(&field.ty);
                documents.push((field.name.clone(), format!("mutation {{ {call}{result} }}")));
            }
        }
        documents
    }

    fn result(&self, ty: &Type) -> &'static str {
        if self.is_object(named(ty)) {
            " { __typename }"
        } else {
            ""
        }
    }

    /// A literal of the type: `scalar` for the named scalars, the first value of an enum, one
    /// item of a list, the required fields of an input object (`None` when `scalar` declines).
    pub fn literal(&self, ty: &Type, scalar: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        match &ty.base {
            BaseType::List(inner) => Some(format!("[{}]", self.literal(inner, scalar)?)),
            BaseType::Named(name) => match self.types.get(name.as_str()) {
                Some(Definition::Enum(values)) => values.first().cloned(),
                Some(Definition::InputObject(fields)) => {
                    let mut parts = vec![];
                    for field in fields.iter().filter(|f| f.required()) {
                        parts.push(format!("{}: {}", field.name, self.literal(&field.ty, scalar)?));
                    }
                    Some(format!("{{ {} }}", parts.join(", ")))
                }
                Some(Definition::Scalar) | None => scalar(name.as_str()),
                _ => None,
            },
        }
    }
}

/// Every `(__typename, id)` of the objects of an answer, and every string in it.
pub fn objects_and_strings(value: &Value, objects: &mut Vec<(String, i64)>, strings: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(t)), Some(id)) = (map.get("__typename"), map.get("id").and_then(Value::as_i64)) {
                objects.push((t.clone(), id));
            }
            for v in map.values() {
                objects_and_strings(v, objects, strings);
            }
        }
        Value::Array(items) => {
            for v in items {
                objects_and_strings(v, objects, strings);
            }
        }
        Value::String(s) => strings.push(s.clone()),
        _ => {}
    }
}
