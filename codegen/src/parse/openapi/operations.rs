//! An operation of the document → [`Operation`]: its method and id, query parameters, request
//! body, documented responses and vendor extensions (its security requirement is `security`'s).

use openapiv3::{OpenAPI, ParameterSchemaOrContent, ReferenceOr, StatusCode};

use super::schemas::schema_of;
use super::security::security;
use super::{AS_SENT, INVALID_REQUEST_STATUS, STREAMED};
use crate::Error;
use crate::model::rest::*;

/// The operation `method` of the path item `item` at `path`. A security scheme it requires that
/// no operation required before is added to `required_schemes`.
pub(super) fn operation(
    spec: &OpenAPI,
    components: &openapiv3::Components,
    path: &str,
    item: &openapiv3::PathItem,
    method: &str,
    op: &openapiv3::Operation,
    required_schemes: &mut Vec<SecurityScheme>,
) -> Result<Operation, Error> {
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
    let query = query(components, item, op, &at)?;
    let body = request_body(components, op, &at)?;
    let responses = responses(components, op, &at)?;
    let security = security(
        &id,
        op.security.as_ref().or(spec.security.as_ref()),
        components,
        &responses,
        required_schemes,
        &at,
    )?;
    let (invalid_request_status, as_sent) = extensions(op, &at)?;

    let summary = op
        .summary
        .clone()
        .or_else(|| op.description.clone())
        .unwrap_or_default();
    Ok(Operation {
        id,
        method,
        path: path.to_string(),
        summary,
        query,
        body,
        responses,
        security,
        invalid_request_status,
        as_sent,
    })
}

/// The query parameters of an operation (those of its path item, then its own: a later one
/// replaces an earlier one of the same name). Header parameters are the handler's to read.
fn query(
    components: &openapiv3::Components,
    item: &openapiv3::PathItem,
    op: &openapiv3::Operation,
    at: &impl Fn(&str) -> String,
) -> Result<Vec<Parameter>, Error> {
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
    Ok(query)
}

/// The request body of an operation: JSON, a form or a multipart form, of one schema.
fn request_body(
    components: &openapiv3::Components,
    op: &openapiv3::Operation,
    at: &impl Fn(&str) -> String,
) -> Result<Option<RequestBody>, Error> {
    Ok(match &op.request_body {
        None => None,
        Some(body) => {
            let body = resolve(body, &components.request_bodies, "requestBodies").map_err(|e| Error::new(at(&e)))?;
            if body.content.len() != 1 {
                return Err(Error::new(at("a request body must have exactly one media type")));
            }
            let (media, content) = body.content.first().expect("one media type");
            let encoding = match media.as_str() {
                "application/json" => BodyEncoding::Json,
                "application/x-www-form-urlencoded" => BodyEncoding::Form,
                "multipart/form-data" => BodyEncoding::Multipart {
                    max_file_size: multipart_file_size(content.schema.as_ref(), at)?,
                },
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
    })
}

/// The largest file of a multipart body: its schema is an inline object with exactly one file
/// property (`type: string, format: binary`) whose `maxLength` bounds it, so that the body's
/// size is known before it is read.
fn multipart_file_size(
    schema: Option<&ReferenceOr<openapiv3::Schema>>,
    at: &impl Fn(&str) -> String,
) -> Result<u64, Error> {
    use openapiv3::{SchemaKind as K, StringFormat, Type, VariantOrUnknownOrEmpty};
    let refuse = |what: &str| Err(Error::new(at(&format!("multipart body: {what}"))));
    let Some(ReferenceOr::Item(schema)) = schema else {
        return refuse("the schema must be an inline object");
    };
    let K::Type(Type::Object(object)) = &schema.schema_kind else {
        return refuse("the schema must be an inline object");
    };
    let files: Vec<(&String, Option<usize>)> = object
        .properties
        .iter()
        .filter_map(|(name, property)| match property {
            ReferenceOr::Item(p) => match &p.schema_kind {
                K::Type(Type::String(s)) if matches!(s.format, VariantOrUnknownOrEmpty::Item(StringFormat::Binary)) => {
                    Some((name, s.max_length))
                }
                _ => None,
            },
            ReferenceOr::Reference { .. } => None,
        })
        .collect();
    match files.as_slice() {
        [(_, Some(max))] if *max > 0 => Ok(*max as u64),
        [(name, _)] => refuse(&format!(
            "the file `{name}` needs a `maxLength` (its largest size, in bytes)"
        )),
        _ => refuse("exactly one property must be a file (`type: string, format: binary`)"),
    }
}

/// The documented responses of an operation: one per status (no `default`, no ranges), each
/// with at most one media type and its headers.
fn responses(
    components: &openapiv3::Components,
    op: &openapiv3::Operation,
    at: &impl Fn(&str) -> String,
) -> Result<Vec<Response>, Error> {
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
                    streamed: false,
                })
            }
            _ => return Err(Error::new(at_status("a response must have at most one media type"))),
        };
        let streamed = match response.extensions.get(STREAMED) {
            None => false,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(_) => return Err(Error::new(at_status(&format!("{STREAMED} must be true or false")))),
        };
        if let Some(unknown) = response
            .extensions
            .keys()
            .find(|k| k.starts_with("x-roadlog-") && *k != STREAMED)
        {
            return Err(Error::new(at_status(&format!("unknown vendor extension `{unknown}`"))));
        }
        let content = match content {
            Some(mut content) if streamed => {
                let binary = matches!(&content.schema.kind, SchemaKind::String(StringFormat::Binary));
                if !binary {
                    return Err(Error::new(at_status(&format!(
                        "{STREAMED}: only a binary body (`format: binary`) can be streamed"
                    ))));
                }
                if response
                    .headers
                    .keys()
                    .any(|h| h.eq_ignore_ascii_case("content-length"))
                {
                    return Err(Error::new(at_status(&format!(
                        "{STREAMED}: a streamed body has no Content-Length"
                    ))));
                }
                content.streamed = true;
                Some(content)
            }
            None if streamed => return Err(Error::new(at_status(&format!("{STREAMED} without a body")))),
            content => content,
        };
        let mut headers = Vec::new();
        for (name, header) in &response.headers {
            let header = resolve(header, &components.headers, "headers").map_err(|e| Error::new(at_status(&e)))?;
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
    Ok(responses)
}

/// The vendor extensions of an operation: the status of an invalid request, and whether its
/// parameters and form fields are handed over as sent. Unknown `x-roadlog-` extensions are refused.
fn extensions(op: &openapiv3::Operation, at: &impl Fn(&str) -> String) -> Result<(Option<u16>, bool), Error> {
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
    Ok((invalid_request_status, as_sent))
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
