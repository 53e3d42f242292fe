//! A documented answer of an operation: its variant of the response enum (body and headers as
//! fields) and its arm of `into_response` (status, media type, headers).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::types::Types;
use super::{lines, variant};
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

/// A variant of a response enum, and its arm of `into_response`.
pub(super) fn response_variant(
    types: &mut Types,
    op: &Operation,
    op_name: &str,
    response: &Ident,
    r: &Response,
) -> Result<(TokenStream, TokenStream), Error> {
    let status = proc_macro2::Literal::u16_unsuffixed(r.status);
    let name = variant(r.status);
    let text = lines(&format!("{status}: {}", r.description.trim()));
    let at = |what: &str| Error::new(format!("`{}`: response {}: {what}", op.id, r.status));

    // The body.
    let mut body_ty = None;
    let mut render = quote!(rt::empty(#status));
    let mut has_length = false;
    if let Some(content) = &r.content {
        let media = content.media_type.as_str();
        let resolved = types.resolve(&content.schema).clone();
        let is_json = media == "application/json" || media.ends_with("+json");
        if is_json {
            let ty = types.rust_type(
                &format!("{op_name}{}Body", camel(&format!("{}", name))),
                &content.schema,
            )?;
            let content_type = format!("{media}; charset=utf-8");
            render = quote!(rt::json(#status, #content_type, &body));
            body_ty = Some(ty);
        } else if content.streamed {
            // The parser accepts streaming on binary bodies only.
            render = quote!(rt::stream(#status, #media, body));
            body_ty = Some(quote!(rt::ByteStream));
        } else if resolved.kind == SchemaKind::String(StringFormat::Binary) {
            render = quote!(rt::bytes(#status, #media, body));
            body_ty = Some(quote!(bytes::Bytes));
        } else if media.starts_with("text/") && resolved.kind == SchemaKind::String(StringFormat::Plain) {
            let content_type = format!("{media}; charset=utf-8");
            render = quote!(rt::bytes(#status, #content_type, bytes::Bytes::from(body)));
            body_ty = Some(quote!(String));
        } else {
            return Err(at(&format!(
                "`{media}` bodies must be JSON, text (`text/*`, a string) or binary (`format: binary`)"
            )));
        }
    }

    // The headers: constant ones set here, computed ones from the body, the others fields.
    let mut fields = Vec::new();
    let mut sets = Vec::new();
    for h in &r.headers {
        let lower = h.name.to_ascii_lowercase();
        let schema = types.resolve(&h.schema).clone();
        let several = matches!(&schema.kind, SchemaKind::Enum(values) if values.len() > 1);
        if lower == "content-type" && !several {
            // OpenAPI: ignored; the media type says it. A list of types is a field: the answer
            // sets one of them over the media type.
            continue;
        }
        if lower == "content-length" {
            if body_ty.is_none() {
                return Err(at("Content-Length without a body"));
            }
            has_length = true;
            continue;
        }
        if let SchemaKind::Enum(values) = &schema.kind
            && let [value] = values.as_slice()
        {
            sets.push(quote!(rt::set_header(&mut response, #lower, #value);));
            continue;
        }
        let field = snake(&h.name);
        let doc_text = lines(&format!(
            "The `{}` header. {}",
            h.name,
            h.description.clone().unwrap_or_default()
        ));
        let (ty, set) = match &schema.kind {
            SchemaKind::String(StringFormat::Plain) | SchemaKind::Enum(_) => {
                (quote!(String), quote!(rt::set_header(&mut response, #lower, &value);))
            }
            SchemaKind::Integer(_) => (
                quote!(i64),
                quote!(rt::set_header(&mut response, #lower, &value.to_string());),
            ),
            SchemaKind::Array { items, .. }
                if matches!(types.resolve(items).kind, SchemaKind::String(StringFormat::Plain)) =>
            {
                fields.push((field.clone(), quote!(#doc_text #field: Vec<String>,)));
                sets.push(quote! {
                    for value in #field {
                        rt::append_header(&mut response, #lower, &value);
                    }
                });
                continue;
            }
            _ => {
                return Err(at(&format!(
                    "header `{}` must be a string, an integer or a list of strings",
                    h.name
                )));
            }
        };
        if h.required {
            fields.push((field.clone(), quote!(#doc_text #field: #ty,)));
            sets.push(quote!({ let value = #field; #set }));
        } else {
            fields.push((field.clone(), quote!(#doc_text #field: Option<#ty>,)));
            sets.push(quote!(if let Some(value) = #field { #set }));
        }
    }
    if has_length {
        // Counted before the body moves into the response.
        sets.insert(
            0,
            quote!(rt::set_header(&mut response, "content-length", &length.to_string());),
        );
    }
    let field_names: Vec<&Ident> = fields.iter().map(|(f, _)| f).collect();
    let fields: Vec<&TokenStream> = fields.iter().map(|(_, t)| t).collect();
    let length = has_length.then(|| quote!(let length = body.len();));
    let binding = if sets.is_empty() {
        quote!(let response)
    } else {
        quote!(let mut response)
    };
    let build = quote! {
        #length
        #binding = #render;
        #(#sets)*
        response
    };
    Ok(match (&body_ty, fields.is_empty()) {
        (None, true) => (quote!(#text #name,), quote!(#response::#name => { #build })),
        (Some(ty), true) => (quote!(#text #name(#ty),), quote!(#response::#name(body) => { #build })),
        (None, false) => (
            quote!(#text #name { #(#fields)* },),
            quote!(#response::#name { #(#field_names),* } => { #build }),
        ),
        (Some(ty), false) => (
            quote!(#text #name { #[doc = "The body."] body: #ty, #(#fields)* },),
            quote!(#response::#name { body, #(#field_names),* } => { #build }),
        ),
    })
}
