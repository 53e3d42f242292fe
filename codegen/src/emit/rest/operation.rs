//! An operation's generated request struct (with `from_parts`, which reads and validates it) and
//! response enum (with `into_response`, which renders it).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::request::{flat_field, request_body};
use super::responses::response_variant;
use super::types::Types;
use super::{OperationCode, lines, request_ident, response_ident};
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

pub(super) fn operation(types: &mut Types, op: &Operation) -> Result<OperationCode, Error> {
    let op_name = camel(&op.id).to_string();
    let request = request_ident(op);
    let response = response_ident(op);
    let strict = !op.as_sent;

    // The request: query parameters, body, headers, client address.
    let mut fields = Vec::new();
    let mut reads: Vec<(Ident, TokenStream, bool)> = Vec::new();
    for p in &op.query {
        let field = snake(&p.name);
        let wire = &p.name;
        let doc_text = p.description.clone().unwrap_or_else(|| format!("`{wire}`"));
        let hint = format!("{op_name}{}", camel(&p.name));
        let (ty, read, can_fail) = flat_field(types, &hint, wire, p.required, &p.schema, strict, quote!(query))?;
        let doc_text = if strict {
            doc_text
        } else {
            format!("{doc_text} (every occurrence, as sent)")
        };
        let doc_text = lines(&doc_text);
        fields.push(quote! {
            #doc_text
            pub #field: #ty,
        });
        reads.push((field, read, can_fail));
    }
    if let Some(body) = &op.body {
        let (ty, read, can_fail) = match body.encoding {
            BodyEncoding::Multipart { .. } => super::multipart::request_body(types, op, body)?,
            _ => request_body(types, op, body)?,
        };
        let doc_text = match body.encoding {
            BodyEncoding::Json => "The `application/json` body.",
            BodyEncoding::Form => "The `application/x-www-form-urlencoded` body.",
            BodyEncoding::Multipart { .. } => "The `multipart/form-data` body.",
        };
        let doc_text = lines(doc_text);
        fields.push(quote! {
            #doc_text
            pub body: #ty,
        });
        reads.push((format_ident!("body"), read, can_fail));
    }
    let fallible = reads.iter().any(|(_, _, can_fail)| *can_fail);
    let multipart = super::multipart::step(types, op)?;
    // A multipart body arrives split into parts (`rt::multipart`, in the route).
    let body_type = if multipart.is_some() {
        quote!(&rt::MultipartForm)
    } else {
        quote!(&[u8])
    };
    if fallible && op.invalid_request_status.is_none() {
        return Err(Error::new(format!(
            "`{}`: its parameters or body can fail validation: name the documented status that answers an invalid request with x-roadlog-invalid-request-status",
            op.id
        )));
    }
    let names: Vec<&Ident> = reads.iter().map(|(f, _, _)| f).collect();
    let request_doc = lines(&format!(
        "The request of `{}` (`{} {}`), parsed and validated.",
        op.id,
        op.method.as_str(),
        op.path
    ));
    let fallible_reads = reads.iter().map(|(field, read, can_fail)| {
        if *can_fail {
            quote!(let #field = #read;)
        } else {
            quote!(let #field = Some(#read);)
        }
    });
    let plain_reads = reads.iter().map(|(field, read, _)| quote!(let #field = #read;));
    let from_parts = if fallible {
        quote! {
            /// Parses and validates the query and body of a request: every problem is reported.
            pub fn from_parts(query: &[(String, String)], headers: warp::http::HeaderMap, client_ip: Option<std::net::IpAddr>, body: #body_type) -> Result<Self, RequestError> {
                let _ = (&query, &body);
                let mut problems: Vec<Problem> = Vec::new();
                #(#fallible_reads)*
                if !problems.is_empty() {
                    return Err(RequestError::new(problems));
                }
                let (#(Some(#names),)*) = (#(#names,)*) else {
                    return Err(RequestError::new(problems));
                };
                Ok(Self { #(#names,)* headers, client_ip })
            }
        }
    } else {
        quote! {
            /// Reads the query and body of a request (nothing in them can be invalid).
            pub fn from_parts(query: &[(String, String)], headers: warp::http::HeaderMap, client_ip: Option<std::net::IpAddr>, body: #body_type) -> Self {
                let _ = (query, body);
                #(#plain_reads)*
                Self { #(#names,)* headers, client_ip }
            }
        }
    };

    // The response: one variant per documented status.
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    for r in &op.responses {
        let (variant_tokens, arm) = response_variant(types, op, &op_name, &response, r)?;
        variants.push(variant_tokens);
        arms.push(arm);
    }
    let response_doc = lines(&format!(
        "The documented answers of `{}`, one variant per status.",
        op.id
    ));

    Ok(OperationCode {
        items: quote! {
            #request_doc
            #[derive(Debug)]
            pub struct #request {
                #(#fields)*
                /// The request headers.
                pub headers: warp::http::HeaderMap,
                /// The client's address: the peer, or the address a trusted proxy forwarded.
                pub client_ip: Option<std::net::IpAddr>,
            }

            impl #request {
                #from_parts
            }

            #response_doc
            #[derive(Debug)]
            pub enum #response {
                #(#variants)*
            }

            impl #response {
                /// The HTTP response: status, documented headers, body.
                pub fn into_response(self) -> warp::reply::Response {
                    match self {
                        #(#arms)*
                    }
                }
            }

            impl warp::Reply for #response {
                fn into_response(self) -> warp::reply::Response {
                    #response::into_response(self)
                }
            }
        },
        request,
        response,
        fallible,
        multipart,
    })
}
