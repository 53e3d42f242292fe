//! OpenAPI document → [`Api`]. `$ref`s to `components` are resolved (schemas stay named, as
//! [`SchemaKind::Ref`]); what the server generator cannot express is refused, with the reason.
//!
//! Two vendor extensions of operations steer the generated validation (documented at the top of
//! `openapi/roadlog.yaml`): `x-roadlog-invalid-request-status` and `x-roadlog-as-sent`.

use openapiv3::{
    AdditionalProperties, OpenAPI, ParameterSchemaOrContent, ReferenceOr, SecurityScheme as OaScheme, StatusCode,
    VariantOrUnknownOrEmpty,
};

use crate::Error;
use crate::model::rest::*;

/// The vendor extension naming the status of a request that fails validation.
pub const INVALID_REQUEST_STATUS: &str = "x-roadlog-invalid-request-status";
/// The vendor extension that hands parameters and form fields to the handler as sent.
pub const AS_SENT: &str = "x-roadlog-as-sent";

/// Parses and checks an OpenAPI 3.0 document.
pub fn parse(spec: &OpenAPI) -> Result<Api, Error> {
    if !spec.openapi.starts_with("3.0.") {
        return Err(Error::new(format!(
            "OpenAPI {} is not supported: keep the file at 3.0.x",
            spec.openapi
        )));
    }
    let components = spec.components.clone().unwrap_or_default();
    let mut schemas = Vec::new();
    for (name, schema) in &components.schemas {
        let schema = match schema {
            ReferenceOr::Item(s) => s,
            ReferenceOr::Reference { .. } => {
                return Err(Error::new(format!("components schema `{name}` is a $ref: inline it")));
            }
        };
        schemas.push(NamedSchema {
            name: name.clone(),
            schema: convert(schema, &format!("schema `{name}`"))?,
        });
    }

    let mut operations = Vec::new();
    let mut required_schemes: Vec<SecurityScheme> = Vec::new();
    for (path, item) in spec.paths.iter() {
        let ReferenceOr::Item(item) = item else {
            return Err(Error::new(format!("path item `{path}` is a $ref: inline it")));
        };
        if !path.starts_with('/') {
            return Err(Error::new(format!("path `{path}` does not start with `/`")));
        }
        if path.contains('{') {
            return Err(Error::new(format!(
                "`{path}`: path templates are not supported by the server generator"
            )));
        }
        for (method, op) in item.iter() {
            let method = match method {
                "get" => Method::Get,
                "post" => Method::Post,
                "put" => Method::Put,
                "delete" => Method::Delete,
                "patch" => Method::Patch,
                other => return Err(Error::new(format!("method `{other}` of `{path}` is not supported"))),
            };
            let id = op
                .operation_id
                .clone()
                .ok_or_else(|| Error::new(format!("`{} {path}` has no operationId", method.as_str())))?;
            let at = |what: &str| format!("`{id}`: {what}");

            let mut query = Vec::new();
            for p in item.parameters.iter().chain(op.parameters.iter()) {
                let p = resolve(p, &components.parameters, "parameters").map_err(|e| Error::new(at(&e)))?;
                match p {
                    openapiv3::Parameter::Query { parameter_data, .. } => {
                        let ParameterSchemaOrContent::Schema(schema) = &parameter_data.format else {
                            return Err(Error::new(at("parameters with `content` are not supported")));
                        };
                        let schema = schema_of(schema, &at(&format!("parameter `{}`", parameter_data.name)))?;
                        query.retain(|q: &Parameter| q.name != parameter_data.name);
                        query.push(Parameter {
                            name: parameter_data.name.clone(),
                            description: parameter_data.description.clone(),
                            required: parameter_data.required,
                            schema,
                        });
                    }
                    openapiv3::Parameter::Header { .. } => {}
                    _ => return Err(Error::new(at("only query and header parameters are supported"))),
                }
            }

            let body = match &op.request_body {
                None => None,
                Some(body) => {
                    let body =
                        resolve(body, &components.request_bodies, "requestBodies").map_err(|e| Error::new(at(&e)))?;
                    if body.content.len() != 1 {
                        return Err(Error::new(at("a request body must have exactly one media type")));
                    }
                    let (media, content) = body.content.first().expect("one media type");
                    let encoding = match media.as_str() {
                        "application/json" => BodyEncoding::Json,
                        "application/x-www-form-urlencoded" => BodyEncoding::Form,
                        other => {
                            return Err(Error::new(at(&format!(
                                "request bodies of type `{other}` are not supported"
                            ))));
                        }
                    };
                    let schema = content
                        .schema
                        .as_ref()
                        .ok_or_else(|| Error::new(at("the request body has no schema")))?;
                    Some(RequestBody {
                        encoding,
                        required: body.required,
                        schema: schema_of(schema, &at("request body"))?,
                    })
                }
            };

            let mut responses = Vec::new();
            if op.responses.default.is_some() {
                return Err(Error::new(at(
                    "`default` responses are not supported: document each status",
                )));
            }
            for (status, response) in &op.responses.responses {
                let StatusCode::Code(status) = status else {
                    return Err(Error::new(at(&format!("status ranges ({status}) are not supported"))));
                };
                let status = *status;
                let response = resolve(response, &components.responses, "responses").map_err(|e| Error::new(at(&e)))?;
                let at_status = |what: &str| at(&format!("response {status}: {what}"));
                if http::StatusCode::from_u16(status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .is_none()
                {
                    return Err(Error::new(at_status("not a standard HTTP status")));
                }
                let content = match response.content.len() {
                    0 => None,
                    1 => {
                        let (media, content) = response.content.first().expect("one media type");
                        let schema = content
                            .schema
                            .as_ref()
                            .ok_or_else(|| Error::new(at_status("the body has no schema")))?;
                        Some(Content {
                            media_type: media.clone(),
                            schema: schema_of(schema, &at_status("body"))?,
                        })
                    }
                    _ => return Err(Error::new(at_status("a response must have at most one media type"))),
                };
                let mut headers = Vec::new();
                for (name, header) in &response.headers {
                    let header =
                        resolve(header, &components.headers, "headers").map_err(|e| Error::new(at_status(&e)))?;
                    let ParameterSchemaOrContent::Schema(schema) = &header.format else {
                        return Err(Error::new(at_status("headers with `content` are not supported")));
                    };
                    headers.push(Header {
                        name: name.clone(),
                        description: header.description.clone(),
                        required: header.required,
                        schema: schema_of(schema, &at_status(&format!("header `{name}`")))?,
                    });
                }
                responses.push(Response {
                    status,
                    description: response.description.clone(),
                    content,
                    headers,
                });
            }
            if responses.is_empty() {
                return Err(Error::new(at("no documented response")));
            }

            let security = required_scheme(&id, op.security.as_ref().or(spec.security.as_ref()))?;
            if let Some(name) = &security {
                let scheme = match components.security_schemes.get(name) {
                    Some(ReferenceOr::Item(s)) => s,
                    _ => {
                        return Err(Error::new(at(&format!(
                            "security scheme `{name}` is not defined inline"
                        ))));
                    }
                };
                let (kind, description) = match scheme {
                    OaScheme::HTTP {
                        scheme, description, ..
                    } if scheme.eq_ignore_ascii_case("bearer") => (SecurityKind::Bearer, description.clone()),
                    _ => {
                        return Err(Error::new(at(&format!(
                            "only HTTP bearer schemes can be required (`{name}`); allow anonymous requests (`- {{}}`) and let the handler read the credentials"
                        ))));
                    }
                };
                let unauthorized = responses
                    .iter()
                    .find(|r| r.status == 401)
                    .ok_or_else(|| Error::new(at(&format!("requires `{name}` but documents no 401"))))?;
                let body = match &unauthorized.content {
                    Some(Content {
                        schema:
                            Schema {
                                kind: SchemaKind::Ref(body),
                                ..
                            },
                        ..
                    }) if unauthorized.headers.is_empty() => body.clone(),
                    _ => {
                        return Err(Error::new(at(
                            "the 401 of a secured operation must have a named schema body and no header",
                        )));
                    }
                };
                match required_schemes.iter().find(|s| &s.name == name) {
                    Some(known) if known.unauthorized_body != body => {
                        return Err(Error::new(at(&format!(
                            "its 401 body `{body}` differs from `{}`, the 401 body of the other operations requiring `{name}`",
                            known.unauthorized_body
                        ))));
                    }
                    Some(_) => {}
                    None => required_schemes.push(SecurityScheme {
                        name: name.clone(),
                        description,
                        kind,
                        unauthorized_body: body,
                    }),
                }
            }

            let invalid_request_status = match op.extensions.get(INVALID_REQUEST_STATUS) {
                None => None,
                Some(value) => {
                    let status = value
                        .as_u64()
                        .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
                        .and_then(|s| u16::try_from(s).ok())
                        .ok_or_else(|| Error::new(at(&format!("{INVALID_REQUEST_STATUS} must be a status code"))))?;
                    Some(status)
                }
            };
            let as_sent = match op.extensions.get(AS_SENT) {
                None => false,
                Some(serde_json::Value::Bool(b)) => *b,
                Some(_) => return Err(Error::new(at(&format!("{AS_SENT} must be true or false")))),
            };
            if let Some(unknown) = op
                .extensions
                .keys()
                .find(|k| k.starts_with("x-roadlog-") && *k != INVALID_REQUEST_STATUS && *k != AS_SENT)
            {
                return Err(Error::new(at(&format!("unknown vendor extension `{unknown}`"))));
            }

            let summary = op
                .summary
                .clone()
                .or_else(|| op.description.clone())
                .unwrap_or_default();
            operations.push(Operation {
                id,
                method,
                path: path.clone(),
                summary,
                query,
                body,
                responses,
                security,
                invalid_request_status,
                as_sent,
            });
        }
    }
    if operations.is_empty() {
        return Err(Error::new("the OpenAPI file defines no operation"));
    }
    let api = Api {
        operations,
        schemas,
        required_schemes,
    };
    check(&api)?;
    Ok(api)
}

/// The scheme an operation requires, if every alternative of its security needs the same one
/// scheme; `None` when an anonymous alternative (`{}`) exists.
fn required_scheme(id: &str, security: Option<&Vec<openapiv3::SecurityRequirement>>) -> Result<Option<String>, Error> {
    let Some(requirements) = security else {
        return Ok(None);
    };
    if requirements.is_empty() || requirements.iter().any(|r| r.is_empty()) {
        return Ok(None);
    }
    match requirements.as_slice() {
        [one] if one.len() == 1 => Ok(one.keys().next().cloned()),
        _ => Err(Error::new(format!(
            "`{id}`: only one required security scheme, or an anonymous alternative, is supported"
        ))),
    }
}

/// The item behind a `$ref` to `components/<section>`.
fn resolve<'a, T>(
    item: &'a ReferenceOr<T>,
    section: &'a indexmap::IndexMap<String, ReferenceOr<T>>,
    name: &str,
) -> Result<&'a T, String> {
    match item {
        ReferenceOr::Item(item) => Ok(item),
        ReferenceOr::Reference { reference } => {
            let prefix = format!("#/components/{name}/");
            let key = reference
                .strip_prefix(&prefix)
                .ok_or_else(|| format!("`{reference}` is not a $ref to components/{name}"))?;
            match section.get(key) {
                Some(ReferenceOr::Item(item)) => Ok(item),
                Some(ReferenceOr::Reference { .. }) => Err(format!("`{reference}` is a $ref to a $ref")),
                None => Err(format!("`{reference}` is not defined")),
            }
        }
    }
}

fn schema_of(schema: &ReferenceOr<openapiv3::Schema>, at: &str) -> Result<Schema, Error> {
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

fn convert(schema: &openapiv3::Schema, at: &str) -> Result<Schema, Error> {
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
            let additional = match &o.additional_properties {
                None | Some(AdditionalProperties::Any(_)) => None,
                Some(AdditionalProperties::Schema(s)) => {
                    if !properties.is_empty() {
                        return unsupported("an object with both properties and additionalProperties");
                    }
                    Some(Box::new(schema_of(s, &format!("{at} additionalProperties"))?))
                }
            };
            SchemaKind::Object { properties, additional }
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

/// Cross-checks of the whole document.
fn check(api: &Api) -> Result<(), Error> {
    let known = |name: &str| api.schemas.iter().any(|s| s.name == name);
    for op in &api.operations {
        let mut refs = Vec::new();
        for p in &op.query {
            refs_of(&p.schema, &mut refs);
        }
        if let Some(body) = &op.body {
            refs_of(&body.schema, &mut refs);
        }
        for r in &op.responses {
            if let Some(c) = &r.content {
                refs_of(&c.schema, &mut refs);
            }
        }
        if let Some(missing) = refs.iter().find(|r| !known(r)) {
            return Err(Error::new(format!(
                "`{}` refers to undefined schema `{missing}`",
                op.id
            )));
        }
        if let Some(status) = op.invalid_request_status
            && !op.responses.iter().any(|r| r.status == status)
        {
            return Err(Error::new(format!(
                "`{}`: {INVALID_REQUEST_STATUS} is {status}, which is not a documented response",
                op.id
            )));
        }
    }
    for s in &api.schemas {
        let mut refs = Vec::new();
        refs_of(&s.schema, &mut refs);
        if let Some(missing) = refs.iter().find(|r| !known(r)) {
            return Err(Error::new(format!(
                "schema `{}` refers to undefined schema `{missing}`",
                s.name
            )));
        }
    }
    Ok(())
}

fn refs_of(schema: &Schema, out: &mut Vec<String>) {
    match &schema.kind {
        SchemaKind::Ref(name) => out.push(name.clone()),
        SchemaKind::Array { items, .. } => refs_of(items, out),
        SchemaKind::Object { properties, additional } => {
            for p in properties {
                refs_of(&p.schema, out);
            }
            if let Some(a) = additional {
                refs_of(a, out);
            }
        }
        _ => {}
    }
}
