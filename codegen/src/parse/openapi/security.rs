//! The security requirement of an operation: the one scheme it requires, if any, and the
//! schemes the generated code authenticates (HTTP bearer only, each with one 401 body).

use openapiv3::{ReferenceOr, SecurityScheme as OaScheme};

use crate::Error;
use crate::model::rest::*;

/// The scheme an operation requires (`None` when it can be called anonymously); a scheme no
/// operation required before is added to `required_schemes`, and its 401 body checked against
/// that of the others.
pub(super) fn security(
    id: &str,
    requirements: Option<&Vec<openapiv3::SecurityRequirement>>,
    components: &openapiv3::Components,
    responses: &[Response],
    required_schemes: &mut Vec<SecurityScheme>,
    at: &impl Fn(&str) -> String,
) -> Result<Option<String>, Error> {
    let security = required_scheme(id, requirements)?;
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
    Ok(security)
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
