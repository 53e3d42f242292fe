//! OpenAPI document → [`Api`]. `$ref`s to `components` are resolved (schemas stay named, as
//! [`SchemaKind::Ref`]); what the server generator cannot express is refused, with the reason.
//!
//! Two vendor extensions of operations steer the generated validation (documented at the top of
//! `openapi/roadlog.yaml`): `x-roadlog-invalid-request-status` and `x-roadlog-as-sent`; one of
//! responses, `x-roadlog-streamed`, makes a binary body a stream.
//!
//! This module walks the document and cross-checks the result; the schemas are converted in
//! `schemas`, an operation in `operations`, its security requirement in `security`.

mod operations;
mod schemas;
mod security;

use openapiv3::{OpenAPI, ReferenceOr};

use crate::Error;
use crate::model::rest::*;
use operations::operation;
use schemas::convert;

/// The vendor extension naming the status of a request that fails validation.
pub const INVALID_REQUEST_STATUS: &str = "x-roadlog-invalid-request-status";
/// The vendor extension that hands parameters and form fields to the handler as sent.
pub const AS_SENT: &str = "x-roadlog-as-sent";
/// The vendor extension of a response whose binary body is streamed as it is produced.
pub const STREAMED: &str = "x-roadlog-streamed";

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
            operations.push(operation(
                spec,
                &components,
                path,
                item,
                method,
                op,
                &mut required_schemes,
            )?);
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
        SchemaKind::Object {
            properties, additional, ..
        } => {
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
