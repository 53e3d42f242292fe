//! The warp route of an operation: path (with and without `/api`), method, body limit, the
//! security hook, the split of a multipart body, request validation, the handler call and its
//! answer.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{OperationCode, scheme_method, scheme_operations_ident, variant};
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

/// Largest body of an operation that takes one: 10 MiB, as the reference service.
const BODY_LIMIT: u64 = 10 * 1024 * 1024;
/// Largest body read (and ignored) by an operation that takes none.
const NO_BODY_LIMIT: u64 = 64 * 1024;

pub(super) fn route(i: usize, op: &Operation, code: &OperationCode) -> Result<TokenStream, Error> {
    let segments: Vec<&str> = op.path.trim_start_matches('/').split('/').collect();
    let bare: Vec<&str> = if segments.first() == Some(&"api") {
        segments[1..].to_vec()
    } else {
        segments.clone()
    };
    let prefixed: Vec<&str> = std::iter::once("api").chain(bare.iter().copied()).collect();
    let path_filter = |segs: &[&str]| quote!(warp::any() #(.and(warp::path(#segs)))* .and(warp::path::end()));
    let with_api = path_filter(&prefixed);
    let without_api = path_filter(&bare);
    let method = format_ident!("{}", op.method.as_str().to_ascii_lowercase());
    let limit = match (&code.multipart, &op.body) {
        (Some(multipart), _) => multipart.body_limit(),
        (None, Some(_)) => BODY_LIMIT,
        (None, None) => NO_BODY_LIMIT,
    };
    let limit = proc_macro2::Literal::u64_unsuffixed(limit);
    let api_i = format_ident!("api_{i}");
    let route_i = format_ident!("route_{i}");
    let handler = snake(&op.id);
    let (request, response) = (&code.request, &code.response);

    let mut steps = Vec::new();
    let mut args = Vec::new();
    if let Some(scheme) = &op.security {
        let hook = scheme_method(scheme);
        let principal = snake(scheme);
        let operations = scheme_operations_ident(scheme);
        let operation = camel(&op.id);
        steps.push(quote! {
            let #principal = match api.#hook(#operations::#operation, rt::bearer_token(&headers).as_deref(), &headers).await {
                Ok(principal) => principal,
                Err(error) => return #response::Unauthorized(error).into_response(),
            };
        });
        args.push(principal);
    }
    if code.fallible {
        let status = op.invalid_request_status.expect("checked with the request");
        let answer = op
            .responses
            .iter()
            .find(|r| r.status == status)
            .expect("checked by the parser");
        let body = match &answer.content {
            Some(Content {
                schema:
                    Schema {
                        kind: SchemaKind::Ref(name),
                        ..
                    },
                ..
            }) if answer.headers.iter().all(constant_header) => format_ident!("{name}"),
            _ => {
                return Err(Error::new(format!(
                    "`{}`: the invalid-request answer ({status}) must have a named schema body and no header to fill",
                    op.id
                )));
            }
        };
        let name = variant(status);
        if let Some(multipart) = &code.multipart {
            steps.push(multipart.tokens(quote! {
                #response::#name(<types::#body as FromRequestError>::from_request_error(error)).into_response()
            }));
        }
        steps.push(quote! {
            let request = match #request::from_parts(&query, headers, client_ip, &body) {
                Ok(request) => request,
                Err(error) => {
                    return #response::#name(<types::#body as FromRequestError>::from_request_error(error)).into_response();
                }
            };
        });
    } else {
        steps.push(quote! {
            let request = #request::from_parts(&query, headers, client_ip, &body);
        });
    }
    Ok(quote! {
        let #api_i = api.clone();
        let #route_i = (#with_api).or(#without_api).unify()
            .and(warp::#method())
            .and(request_parts())
            .and(crate::http::body::deadline())
            .and(warp::body::stream())
            .then(move |query: Vec<(String, String)>, headers: warp::http::HeaderMap, client_ip: Option<std::net::IpAddr>, deadline, body| {
                let api = #api_i.clone();
                async move {
                    let body = match crate::http::body::read_limited(body, #limit, deadline).await {
                        Ok(body) => body,
                        Err(error) => return error.into_response(),
                    };
                    #(#steps)*
                    api.#handler(#(#args,)* request).await.into_response()
                }
            })
            .boxed();
    })
}

fn constant_header(h: &Header) -> bool {
    matches!(&h.schema.kind, SchemaKind::Enum(values) if values.len() == 1)
}
