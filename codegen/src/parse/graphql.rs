//! SDL text → [`Schema`], with async-graphql-parser. Everything the emitters cannot express is
//! refused here, with a message that says why.

use std::collections::{BTreeMap, BTreeSet};

use async_graphql_parser::Positioned;
use async_graphql_parser::types::{
    BaseType, ConstDirective, FieldDefinition, InputValueDefinition, Type, TypeKind, TypeSystemDefinition,
};
use async_graphql_value::ConstValue;

use crate::Error;
use crate::model::graphql::*;

/// Parses and checks an SDL document.
pub fn parse(sdl: &str) -> Result<Schema, Error> {
    let doc = async_graphql_parser::parse_schema(sdl).map_err(|e| Error::new(format!("syntax error: {e}")))?;
    let mut query = None;
    let mut mutation = None;
    let mut kinds: BTreeMap<String, Kind> = ["Int", "Float", "String", "Boolean", "ID"]
        .into_iter()
        .map(|n| (n.to_string(), Kind::BuiltinScalar))
        .collect();
    let mut definitions = Vec::new();
    let mut resolver_declared = false;
    for def in &doc.definitions {
        match def {
            TypeSystemDefinition::Schema(schema) => {
                let schema = &schema.node;
                query = Some(
                    schema
                        .query
                        .as_ref()
                        .ok_or_else(|| Error::new("the schema block has no query type"))?
                        .node
                        .to_string(),
                );
                mutation = schema.mutation.as_ref().map(|m| m.node.to_string());
                if schema.subscription.is_some() {
                    return Err(Error::new("subscriptions are not supported by the generator"));
                }
            }
            TypeSystemDefinition::Type(ty) => {
                let ty = &ty.node;
                let name = ty.name.node.as_str();
                if ty.extend {
                    return Err(Error::new(format!(
                        "type extensions are not supported (`extend type {name}`)"
                    )));
                }
                let allowed = ty.directives.is_empty()
                    || (matches!(ty.kind, TypeKind::Scalar)
                        && ty.directives.iter().all(|d| d.node.name.node == "specifiedBy"));
                if !allowed {
                    return Err(Error::new(format!(
                        "directives are not supported (on `{name}`), except `@specifiedBy` on a scalar"
                    )));
                }
                let kind = match &ty.kind {
                    TypeKind::Scalar => Kind::Scalar,
                    TypeKind::Object(obj) => {
                        if !obj.implements.is_empty() {
                            return Err(Error::new(format!(
                                "`{name}` implements an interface: interfaces are not supported"
                            )));
                        }
                        Kind::Object
                    }
                    TypeKind::InputObject(_) => Kind::Input,
                    TypeKind::Enum(_) => Kind::Enum,
                    TypeKind::Interface(_) | TypeKind::Union(_) => {
                        return Err(Error::new(format!("`{name}`: interfaces and unions are not supported")));
                    }
                };
                kinds.insert(name.to_string(), kind);
                definitions.push(ty);
            }
            TypeSystemDefinition::Directive(d) => {
                let d = &d.node;
                // `repeatable` is not looked at: the parser reports every directive as repeatable.
                let only_fields = d.locations.len() == 1
                    && d.locations[0].node == async_graphql_parser::types::DirectiveLocation::FieldDefinition;
                if d.name.node != RESOLVER || !only_fields || !d.arguments.is_empty() {
                    return Err(Error::new(format!(
                        "custom directive `@{}` is not supported (only `directive @{RESOLVER} on FIELD_DEFINITION`, without arguments)",
                        d.name.node
                    )));
                }
                resolver_declared = true;
            }
        }
    }
    let query = query.ok_or_else(|| Error::new("a `schema { query: … }` block is required"))?;

    // Mutation namespaces: objects returned by argument-less fields of the mutation root.
    let mut namespaces = BTreeSet::new();
    if let Some(mutation) = &mutation {
        let root = definitions
            .iter()
            .find(|d| d.name.node.as_str() == mutation && matches!(d.kind, TypeKind::Object(_)))
            .ok_or_else(|| Error::new("the mutation root type is not defined"))?;
        for field in object_fields(&root.kind) {
            let target = named(&field.node.ty.node);
            if kinds.get(target) == Some(&Kind::Object) && field.node.arguments.is_empty() {
                namespaces.insert(target.to_string());
            }
        }
    }

    let resolve = |owner: &str, ty: &Type| type_ref(owner, ty, &kinds);
    let mut types = Vec::new();
    for def in definitions {
        let name = def.name.node.to_string();
        let description = describe(&def.description);
        types.push(match &def.kind {
            TypeKind::Scalar => TypeDef::Scalar(Scalar {
                specified_by: specified_by(&name, &def.directives)?,
                name,
                description,
            }),
            TypeKind::Enum(e) => TypeDef::Enum(Enum {
                name,
                description,
                values: e
                    .values
                    .iter()
                    .map(|v| EnumValue {
                        name: v.node.value.node.to_string(),
                        description: v.node.description.as_ref().map(|d| d.node.clone()),
                    })
                    .collect(),
            }),
            TypeKind::InputObject(input) => TypeDef::Input(Input {
                fields: input
                    .fields
                    .iter()
                    .map(|f| input_value(&name, &f.node, &resolve))
                    .collect::<Result<_, _>>()?,
                name,
                description,
            }),
            TypeKind::Object(obj) => {
                if obj.fields.is_empty() {
                    return Err(Error::new(format!("object type `{name}` has no fields")));
                }
                let role = if name == query || mutation.as_deref() == Some(name.as_str()) || namespaces.contains(&name)
                {
                    Role::Service
                } else if obj.fields.iter().any(|f| f.node.name.node == "id") {
                    Role::Entity
                } else {
                    Role::Value
                };
                let mut fields = Vec::new();
                for f in &obj.fields {
                    let f: &FieldDefinition = &f.node;
                    let ty = resolve(&name, &f.ty.node)?;
                    let target_is_object = ty.named().1 == Kind::Object;
                    let marked = marked_resolver(&name, f, resolver_declared)?;
                    let resolution = match role {
                        Role::Service | Role::Entity if marked && (role == Role::Service || !f.arguments.is_empty() || target_is_object) => {
                            return Err(Error::new(format!(
                                "`{name}.{}` is resolved by its trait already (a root or namespace field, or one with arguments or an object type): drop `@{RESOLVER}`",
                                f.name.node
                            )));
                        }
                        Role::Service if f.arguments.is_empty() && namespaces.contains(named(&f.ty.node)) => {
                            Resolution::Namespace
                        }
                        Role::Service => Resolution::Resolver,
                        Role::Entity if marked || !f.arguments.is_empty() || target_is_object => Resolution::Resolver,
                        Role::Entity => Resolution::Data,
                        Role::Value if marked => {
                            return Err(Error::new(format!(
                                "`{name}.{}` is marked `@{RESOLVER}` but `{name}` has no `id`: every field of such a type is plain data",
                                f.name.node
                            )));
                        }
                        Role::Value if !f.arguments.is_empty() => {
                            return Err(Error::new(format!(
                                "`{name}.{}` takes arguments but `{name}` has no `id`: give it an `id` or drop the arguments",
                                f.name.node
                            )));
                        }
                        Role::Value => Resolution::Data,
                    };
                    fields.push(Field {
                        name: f.name.node.to_string(),
                        description: describe(&f.description),
                        ty,
                        arguments: f
                            .arguments
                            .iter()
                            .map(|a| input_value(&name, &a.node, &resolve))
                            .collect::<Result<_, _>>()?,
                        resolution,
                    });
                }
                TypeDef::Object(Object {
                    name,
                    description,
                    role,
                    fields,
                })
            }
            TypeKind::Interface(_) | TypeKind::Union(_) => unreachable!("refused above"),
        });
    }
    Ok(Schema { query, mutation, types })
}

/// The one field directive the generator knows: `@resolver` makes an argument-less scalar field
/// of a type with an `id` (which would be plain data, read with its object) a method of the
/// type's resolver trait, computed only when selected. It says how Roadlog computes the field,
/// nothing to clients (the served schema does not carry it).
pub const RESOLVER: &str = "resolver";

/// Whether a field carries `@resolver`; any other directive, or `@resolver` with arguments or
/// without its declaration, is refused.
fn marked_resolver(owner: &str, field: &FieldDefinition, declared: bool) -> Result<bool, Error> {
    let mut marked = false;
    for directive in &field.directives {
        let directive = &directive.node;
        if directive.name.node != RESOLVER || !directive.arguments.is_empty() || marked {
            return Err(Error::new(format!(
                "`{owner}.{}`: directive `@{}` is not supported on fields (only `@{RESOLVER}`, once, without arguments)",
                field.name.node, directive.name.node
            )));
        }
        if !declared {
            return Err(Error::new(format!(
                "`{owner}.{}` uses `@{RESOLVER}`: declare it with `directive @{RESOLVER} on FIELD_DEFINITION`",
                field.name.node
            )));
        }
        marked = true;
    }
    Ok(marked)
}

/// The URL of a scalar's `@specifiedBy(url: "…")`, at most one, with its one string argument.
fn specified_by(name: &str, directives: &[Positioned<ConstDirective>]) -> Result<Option<String>, Error> {
    match directives {
        [] => Ok(None),
        [directive] => match directive.node.arguments.as_slice() {
            [(argument, value)] if argument.node == "url" => match &value.node {
                ConstValue::String(url) if !url.is_empty() => Ok(Some(url.clone())),
                _ => Err(Error::new(format!(
                    "`@specifiedBy` of `{name}`: `url` must be a non-empty string"
                ))),
            },
            _ => Err(Error::new(format!(
                "`@specifiedBy` of `{name}` takes exactly one argument, `url`"
            ))),
        },
        _ => Err(Error::new(format!("`{name}` has more than one `@specifiedBy`"))),
    }
}

fn describe(d: &Option<Positioned<String>>) -> Option<String> {
    d.as_ref().map(|d| d.node.clone())
}

fn object_fields(kind: &TypeKind) -> &[Positioned<FieldDefinition>] {
    match kind {
        TypeKind::Object(obj) => &obj.fields,
        _ => &[],
    }
}

fn named(ty: &Type) -> &str {
    match &ty.base {
        BaseType::Named(name) => name.as_str(),
        BaseType::List(inner) => named(inner),
    }
}

fn type_ref(owner: &str, ty: &Type, kinds: &BTreeMap<String, Kind>) -> Result<TypeRef, Error> {
    let base = match &ty.base {
        BaseType::Named(name) => {
            let kind = kinds
                .get(name.as_str())
                .ok_or_else(|| Error::new(format!("`{owner}` refers to undefined type `{name}`")))?;
            Base::Named(name.to_string(), *kind)
        }
        BaseType::List(inner) => Base::List(Box::new(type_ref(owner, inner, kinds)?)),
    };
    Ok(TypeRef {
        base,
        nullable: ty.nullable,
    })
}

fn input_value(
    owner: &str,
    v: &InputValueDefinition,
    resolve: &impl Fn(&str, &Type) -> Result<TypeRef, Error>,
) -> Result<InputValue, Error> {
    Ok(InputValue {
        name: v.name.node.to_string(),
        description: describe(&v.description),
        ty: resolve(owner, &v.ty.node)?,
        default: v.default_value.as_ref().map(|d| value(&d.node)).transpose()?,
    })
}

fn value(v: &ConstValue) -> Result<Value, Error> {
    Ok(match v {
        ConstValue::Null => Value::Null,
        ConstValue::Boolean(b) => Value::Boolean(*b),
        ConstValue::Number(n) => Value::Number(n.to_string()),
        ConstValue::String(s) => Value::String(s.clone()),
        ConstValue::List(items) => Value::List(items.iter().map(value).collect::<Result<_, _>>()?),
        ConstValue::Enum(e) => Value::Enum(e.to_string()),
        other => return Err(Error::new(format!("default value `{other}` is not supported"))),
    })
}
