//! What the guard needs to know of the schema, read once from the published SDL: the root
//! types, each object's fields (their arguments and result type), enums, input objects and
//! scalars. The executor has its own registry; this model lets the guard check a request
//! before the executor sees it.

use std::collections::{HashMap, HashSet};

use async_graphql::parser::types::{BaseType, Type, TypeKind, TypeSystemDefinition};
use async_graphql_value::ConstValue;

/// One argument or input field.
#[derive(Debug, Clone)]
pub struct InputValue {
    pub ty: Type,
    pub default: Option<ConstValue>,
}

/// One field of an object type.
#[derive(Debug, Clone)]
pub struct Field {
    pub args: HashMap<String, InputValue>,
    /// The named type at the bottom of the result type (`[Mission!]!` → `Mission`).
    pub result: String,
    /// Whether calling it checks a password (an argument named like one): such fields cost a
    /// slow hash and are limited to one per HTTP request.
    pub checks_credentials: bool,
}

/// The kinds of named types the guard distinguishes.
#[derive(Debug, Clone)]
pub enum Named {
    Scalar,
    Enum(HashSet<String>),
    Object(HashMap<String, Field>),
    InputObject(Vec<(String, InputValue)>),
}

/// The schema as the guard sees it.
#[derive(Debug)]
pub struct SchemaModel {
    pub query: String,
    pub mutation: Option<String>,
    pub types: HashMap<String, Named>,
}

/// The bottom named type of a type reference.
pub fn named(ty: &Type) -> &str {
    match &ty.base {
        BaseType::Named(name) => name.as_str(),
        BaseType::List(inner) => named(inner),
    }
}

impl SchemaModel {
    /// Reads an SDL document; panics on an invalid one (the SDL is ours and tested).
    pub fn from_sdl(sdl: &str) -> SchemaModel {
        let document = async_graphql::parser::parse_schema(sdl).expect("the published SDL parses");
        let mut model = SchemaModel {
            query: "Query".into(),
            mutation: None,
            types: HashMap::new(),
        };
        for scalar in ["Int", "Float", "String", "Boolean", "ID"] {
            model.types.insert(scalar.into(), Named::Scalar);
        }
        for definition in document.definitions {
            match definition {
                TypeSystemDefinition::Schema(schema) => {
                    let schema = schema.node;
                    if let Some(query) = schema.query {
                        model.query = query.node.to_string();
                    }
                    model.mutation = schema.mutation.map(|m| m.node.to_string());
                }
                TypeSystemDefinition::Type(definition) => {
                    let definition = definition.node;
                    let kind = match definition.kind {
                        TypeKind::Scalar => Named::Scalar,
                        TypeKind::Enum(e) => {
                            Named::Enum(e.values.into_iter().map(|v| v.node.value.node.to_string()).collect())
                        }
                        TypeKind::Object(object) => Named::Object(
                            object
                                .fields
                                .into_iter()
                                .map(|field| {
                                    let field = field.node;
                                    let args: HashMap<String, InputValue> = field
                                        .arguments
                                        .into_iter()
                                        .map(|a| {
                                            (
                                                a.node.name.node.to_string(),
                                                input_value(a.node.ty.node, a.node.default_value),
                                            )
                                        })
                                        .collect();
                                    let checks_credentials =
                                        args.keys().any(|a| a.to_ascii_lowercase().contains("password"));
                                    let field_def = Field {
                                        args,
                                        result: named(&field.ty.node).to_string(),
                                        checks_credentials,
                                    };
                                    (field.name.node.to_string(), field_def)
                                })
                                .collect(),
                        ),
                        TypeKind::InputObject(input) => Named::InputObject(
                            input
                                .fields
                                .into_iter()
                                .map(|f| {
                                    (
                                        f.node.name.node.to_string(),
                                        input_value(f.node.ty.node, f.node.default_value),
                                    )
                                })
                                .collect(),
                        ),
                        // The generator refuses interfaces and unions: nothing of them to model.
                        TypeKind::Interface(_) | TypeKind::Union(_) => continue,
                    };
                    model.types.insert(definition.name.node.to_string(), kind);
                }
                TypeSystemDefinition::Directive(_) => {}
            }
        }
        model
    }

    /// The root type of an operation.
    pub fn root(&self, ty: async_graphql::parser::types::OperationType) -> Option<&str> {
        use async_graphql::parser::types::OperationType;
        match ty {
            OperationType::Query => Some(self.query.as_str()),
            OperationType::Mutation => self.mutation.as_deref(),
            OperationType::Subscription => None,
        }
    }

    /// A field of an object type.
    pub fn field(&self, object: &str, name: &str) -> Option<&Field> {
        match self.types.get(object) {
            Some(Named::Object(fields)) => fields.get(name),
            _ => None,
        }
    }
}

fn input_value(ty: Type, default: Option<async_graphql::Positioned<ConstValue>>) -> InputValue {
    InputValue {
        ty,
        default: default.map(|d| d.node),
    }
}
