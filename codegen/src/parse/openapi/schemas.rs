//! OpenAPI schemas → [`Schema`]: `$ref`s to `components/schemas` stay named, the types the
//! generator can express are converted, the others refused with the place and the reason.

use openapiv3::{AdditionalProperties, ReferenceOr, VariantOrUnknownOrEmpty};

use crate::Error;
use crate::model::rest::*;

pub(super) fn schema_of(schema: &ReferenceOr<openapiv3::Schema>, at: &str) -> Result<Schema, Error> {
    match schema {
        ReferenceOr::Reference { reference } => reference_schema(reference, at),
        ReferenceOr::Item(s) => convert(s, at),
    }
}

fn boxed_schema_of(schema: &ReferenceOr<Box<openapiv3::Schema>>, at: &str) -> Result<Schema, Error> {
    match schema {
        ReferenceOr::Reference { reference } => reference_schema(reference, at),
        ReferenceOr::Item(s) => convert(s, at),
    }
}

fn reference_schema(reference: &str, at: &str) -> Result<Schema, Error> {
    let name = reference
        .strip_prefix("#/components/schemas/")
        .ok_or_else(|| Error::new(format!("{at}: `{reference}` is not a $ref to components/schemas")))?;
    Ok(Schema {
        kind: SchemaKind::Ref(name.to_string()),
        description: None,
        title: None,
        nullable: false,
        default: None,
    })
}

pub(super) fn convert(schema: &openapiv3::Schema, at: &str) -> Result<Schema, Error> {
    use openapiv3::{SchemaKind as K, Type};
    let data = &schema.schema_data;
    let unsupported = |what: &str| Err(Error::new(format!("{at}: {what} is not supported")));
    let kind = match &schema.schema_kind {
        K::Type(Type::Boolean(_)) => SchemaKind::Boolean,
        K::Type(Type::Number(_)) => SchemaKind::Number,
        K::Type(Type::Integer(i)) => {
            if !i.enumeration.is_empty() {
                return unsupported("an integer enum");
            }
            SchemaKind::Integer(match &i.format {
                VariantOrUnknownOrEmpty::Item(openapiv3::IntegerFormat::Int32) => IntegerFormat::Int32,
                VariantOrUnknownOrEmpty::Item(openapiv3::IntegerFormat::Int64) | VariantOrUnknownOrEmpty::Empty => {
                    IntegerFormat::Int64
                }
                VariantOrUnknownOrEmpty::Unknown(f) => return unsupported(&format!("integer format `{f}`")),
            })
        }
        K::Type(Type::String(s)) => {
            if !s.enumeration.is_empty() {
                let values: Option<Vec<String>> = s.enumeration.iter().cloned().collect();
                let Some(values) = values else {
                    return unsupported("a null enum value");
                };
                SchemaKind::Enum(values)
            } else {
                SchemaKind::String(match &s.format {
                    VariantOrUnknownOrEmpty::Empty => StringFormat::Plain,
                    VariantOrUnknownOrEmpty::Item(openapiv3::StringFormat::Date) => StringFormat::Date,
                    VariantOrUnknownOrEmpty::Item(openapiv3::StringFormat::Binary) => StringFormat::Binary,
                    VariantOrUnknownOrEmpty::Item(other) => return unsupported(&format!("string format `{other:?}`")),
                    // Formats that are only documentation (e.g. `uri`, `email`) are plain strings.
                    VariantOrUnknownOrEmpty::Unknown(_) => StringFormat::Plain,
                })
            }
        }
        K::Type(Type::Array(a)) => {
            let items = a
                .items
                .as_ref()
                .ok_or_else(|| Error::new(format!("{at}: an array without `items`")))?;
            SchemaKind::Array {
                items: Box::new(boxed_schema_of(items, &format!("{at} items"))?),
                min_items: a.min_items,
                max_items: a.max_items,
            }
        }
        K::Type(Type::Object(o)) => {
            let mut properties = Vec::new();
            for (name, property) in &o.properties {
                properties.push(Property {
                    name: name.clone(),
                    required: o.required.contains(name),
                    schema: boxed_schema_of(property, &format!("{at}.{name}"))?,
                });
            }
            if let Some(missing) = o.required.iter().find(|r| !o.properties.contains_key(*r)) {
                return Err(Error::new(format!(
                    "{at}: required property `{missing}` is not defined"
                )));
            }
            let closed = matches!(o.additional_properties, Some(AdditionalProperties::Any(false)));
            let additional = match &o.additional_properties {
                None | Some(AdditionalProperties::Any(_)) => None,
                Some(AdditionalProperties::Schema(s)) => {
                    if !properties.is_empty() {
                        return unsupported("an object with both properties and additionalProperties");
                    }
                    Some(Box::new(schema_of(s, &format!("{at} additionalProperties"))?))
                }
            };
            SchemaKind::Object {
                properties,
                additional,
                closed,
            }
        }
        K::OneOf { .. } | K::AllOf { .. } | K::AnyOf { .. } | K::Not { .. } => {
            return unsupported("oneOf/allOf/anyOf/not");
        }
        K::Any(_) => return unsupported("a schema without `type`"),
    };
    Ok(Schema {
        kind,
        description: data.description.clone(),
        title: data.title.clone(),
        nullable: data.nullable,
        default: data.default.clone(),
    })
}
