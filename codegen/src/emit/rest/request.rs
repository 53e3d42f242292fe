//! How the generated code reads a request: query parameters and form fields (as flat pairs),
//! the scalars in them, and the body (JSON, form, or a form as sent; the operation emits multipart
//! bodies with `multipart`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::lines;
use super::types::{Types, default_value};
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

/// A query parameter or form field: its Rust type, the expression that reads it from `pairs`
/// (an `Option` when fallible: `None` once a problem is recorded), and whether it can fail.
pub(super) fn flat_field(
    types: &mut Types,
    hint: &str,
    wire: &str,
    required: bool,
    schema: &Schema,
    strict: bool,
    pairs: TokenStream,
) -> Result<(TokenStream, TokenStream, bool), Error> {
    let resolved = types.resolve(schema).clone();
    if !strict {
        // As sent: every occurrence; strings and enums as text, other scalars parsed.
        let (item_ty, parse, can_fail) = match &resolved.kind {
            SchemaKind::Enum(_) | SchemaKind::String(StringFormat::Plain) => {
                (quote!(String), quote!(rt::text_string), false)
            }
            SchemaKind::Array { .. } => {
                return Err(Error::new(format!(
                    "`{wire}`: an as-sent array; declare the item type instead"
                )));
            }
            _ => {
                let (ty, parse) = text_scalar(types, hint, schema)?;
                (ty, parse, true)
            }
        };
        let read = if can_fail {
            quote!(rt::flat_all(#pairs, #wire, None, None, "item", &mut problems, #parse))
        } else {
            quote!(rt::flat_all(#pairs, #wire, None, None, "item", &mut Vec::new(), #parse).unwrap_or_default())
        };
        return Ok((quote!(Vec<#item_ty>), read, can_fail));
    }
    if let SchemaKind::Array {
        items,
        min_items,
        max_items,
    } = &resolved.kind
    {
        let (item_ty, parse) = text_scalar(types, hint, items)?;
        let noun = noun(items);
        let (min, max) = (opt_usize(*min_items), opt_usize(*max_items));
        let read = quote!(rt::flat_all(#pairs, #wire, #min, #max, #noun, &mut problems, #parse));
        return Ok((quote!(Vec<#item_ty>), read, true));
    }
    let (ty, parse) = text_scalar(types, hint, schema)?;
    Ok(match (required, &resolved.default) {
        (true, _) => (
            ty,
            quote!(rt::flat_required(#pairs, #wire, &mut problems, #parse)),
            true,
        ),
        (false, Some(default)) => {
            let default = default_value(types, hint, schema, default)?;
            (
                ty,
                quote!(rt::flat_optional(#pairs, #wire, &mut problems, #parse).map(|v| v.unwrap_or_else(|| #default))),
                true,
            )
        }
        (false, None) => (
            quote!(Option<#ty>),
            quote!(rt::flat_optional(#pairs, #wire, &mut problems, #parse)),
            true,
        ),
    })
}

pub(super) fn opt_usize(n: Option<usize>) -> TokenStream {
    match n {
        Some(n) => {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    }
}

/// The word for the items of an array in messages: the items' `title`, or "item".
pub(super) fn noun(items: &Schema) -> String {
    items.title.clone().unwrap_or_else(|| "item".to_string())
}

/// A scalar read from text (query, form): its Rust type and its parser, a
/// `fn(&str) -> Result<T, ProblemKind>`.
fn text_scalar(types: &mut Types, hint: &str, schema: &Schema) -> Result<(TokenStream, TokenStream), Error> {
    let resolved = types.resolve(schema).clone();
    Ok(match &resolved.kind {
        SchemaKind::Boolean => (quote!(bool), quote!(rt::text_bool)),
        SchemaKind::Integer(IntegerFormat::Int64) => (quote!(i64), quote!(rt::text_i64)),
        SchemaKind::Integer(IntegerFormat::Int32) => (quote!(i32), quote!(rt::text_i32)),
        SchemaKind::Number => (quote!(f64), quote!(rt::text_f64)),
        SchemaKind::String(StringFormat::Plain) => (quote!(String), quote!(rt::text_string)),
        SchemaKind::String(StringFormat::Date) => (quote!(chrono::NaiveDate), quote!(rt::text_date)),
        SchemaKind::Enum(_) => {
            let ty = types.rust_type(hint, schema)?;
            (
                ty.clone(),
                quote!(|text: &str| #ty::from_wire(text).ok_or(ProblemKind::Invalid(Expected::OneOf(#ty::VALUES)))),
            )
        }
        _ => {
            return Err(Error::new(format!(
                "`{hint}`: query parameters and form fields must be booleans, integers, numbers, strings, dates or enums (or arrays of them)"
            )));
        }
    })
}

/// The request body: its Rust type, the expression that reads it from `body`, and whether it
/// can fail.
pub(super) fn request_body(
    types: &mut Types,
    op: &Operation,
    body: &RequestBody,
) -> Result<(TokenStream, TokenStream, bool), Error> {
    let hint = format!("{}Body", camel(&op.id));
    match body.encoding {
        BodyEncoding::Json => {
            let ty = types.rust_type(&hint, &body.schema)?;
            let name = types
                .object_name(&hint, &body.schema)
                .ok_or_else(|| Error::new(format!("`{}`: a JSON request body must be an object schema", op.id)))?;
            types.json_parsers.insert(name);
            let parse = quote!(match #ty::from_json(body) {
                Ok(body) => Some(body),
                Err(error) => {
                    problems.extend(error.problems);
                    None
                }
            });
            if body.required {
                Ok((ty, parse, true))
            } else {
                Ok((
                    quote!(Option<#ty>),
                    quote!(if body.is_empty() { Some(None) } else { #parse.map(Some) }),
                    true,
                ))
            }
        }
        BodyEncoding::Form if op.as_sent => {
            // As sent: every field, every occurrence, no media type check.
            let form = format_ident!("{}Form", camel(&op.id));
            let schema = types.resolve(&body.schema).clone();
            let SchemaKind::Object { properties, .. } = &schema.kind else {
                return Err(Error::new(format!("`{}`: a form body must be an object schema", op.id)));
            };
            let mut fields = Vec::new();
            let mut reads: Vec<(Ident, TokenStream, bool)> = Vec::new();
            for p in properties {
                let hint = format!("{}{}", camel(&op.id), camel(&p.name));
                let (ty, read, fails) =
                    flat_field(types, &hint, &p.name, p.required, &p.schema, false, quote!(&pairs))?;
                let field = snake(&p.name);
                let text = lines(&format!(
                    "`{}` (every occurrence, as sent). {}",
                    p.name,
                    p.schema.description.clone().unwrap_or_default()
                ));
                fields.push(quote!(#text pub #field: #ty,));
                reads.push((field, read, fails));
            }
            let can_fail = reads.iter().any(|(_, _, f)| *f);
            let names: Vec<&Ident> = reads.iter().map(|(f, _, _)| f).collect();
            let doc_text = lines(&format!("The form of `{}`, as sent.", op.id));
            let body_fn = if can_fail {
                let reads = reads.iter().map(|(field, read, fails)| {
                    if *fails {
                        quote!(let #field = #read;)
                    } else {
                        quote!(let #field = Some(#read);)
                    }
                });
                quote! {
                    /// Reads the form from a body, whatever its media type.
                    pub fn from_body(body: &[u8]) -> Result<Self, RequestError> {
                        let pairs = rt::pairs(body);
                        let mut problems: Vec<Problem> = Vec::new();
                        #(#reads)*
                        if !problems.is_empty() {
                            return Err(RequestError::new(problems));
                        }
                        let (#(Some(#names),)*) = (#(#names,)*) else {
                            return Err(RequestError::new(problems));
                        };
                        Ok(Self { #(#names,)* })
                    }
                }
            } else {
                let reads = reads.iter().map(|(field, read, _)| quote!(let #field = #read;));
                quote! {
                    /// Reads the form from a body, whatever its media type (nothing in it can be invalid).
                    pub fn from_body(body: &[u8]) -> Self {
                        let pairs = rt::pairs(body);
                        #(#reads)*
                        Self { #(#names,)* }
                    }
                }
            };
            types.extra.push(quote! {
                #doc_text
                #[derive(Debug, Clone, Default, PartialEq)]
                pub struct #form {
                    #(#fields)*
                }
                impl #form {
                    #body_fn
                }
            });
            if can_fail {
                Ok((
                    quote!(#form),
                    quote!(match #form::from_body(body) {
                        Ok(form) => Some(form),
                        Err(error) => {
                            problems.extend(error.problems);
                            None
                        }
                    }),
                    true,
                ))
            } else {
                Ok((quote!(#form), quote!(#form::from_body(body)), false))
            }
        }
        BodyEncoding::Multipart { .. } => unreachable!("a multipart body is emitted by `multipart::request_body`"),
        BodyEncoding::Form => {
            let ty = types.rust_type(&hint, &body.schema)?;
            let name = types
                .object_name(&hint, &body.schema)
                .ok_or_else(|| Error::new(format!("`{}`: a form body must be an object schema", op.id)))?;
            types.form_parsers.insert(name);
            let parse = quote!(match #ty::from_form(content_type.as_deref(), body) {
                Ok(body) => Some(body),
                Err(error) => {
                    problems.extend(error.problems);
                    None
                }
            });
            let parse = quote!({
                let content_type = headers
                    .get(warp::http::header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                #parse
            });
            if !body.required {
                return Err(Error::new(format!(
                    "`{}`: optional form bodies are not supported",
                    op.id
                )));
            }
            Ok((ty, parse, true))
        }
    }
}
