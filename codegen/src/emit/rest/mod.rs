//! [`Api`] → the REST server code: the schemas as Rust types (`types`), per operation a typed
//! request (parsed and validated by generated code) and a typed response (one variant per
//! documented status), the `RestApi` handler trait, and the warp routes that parse, validate,
//! call the handler and render its answer.
//!
//! This module assembles the generated file and writes the handler trait and the security hooks;
//! the parts live beside it: `types` (schemas as Rust types) and `parsers` (their JSON and form
//! parsers), `operation` (an operation's request and response types), `request` (how query
//! parameters, forms and bodies are read), `responses` (a documented answer as a variant and its
//! rendering), `multipart` (multipart bodies), `route` (an operation's warp route), and `runtime`
//! and `rt` (the code every generated module starts with).

mod multipart;
mod operation;
mod parsers;
mod request;
mod responses;
mod route;
mod rt;
mod runtime;
mod types;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{camel, pretty, snake};
use crate::Error;
use crate::model::rest::*;
use operation::operation;
use route::route;
use runtime::runtime;
use types::Types;

/// The server code of an API, formatted.
pub fn emit(api: &Api) -> Result<String, Error> {
    pretty(tokens(api)?)
}

/// The server code of an API, as tokens.
pub fn tokens(api: &Api) -> Result<TokenStream, Error> {
    let mut types = Types::new(api);
    for s in &api.schemas {
        types.define(&s.name, &s.schema)?;
    }
    let mut operations = Vec::new();
    for op in &api.operations {
        operations.push(operation(&mut types, op)?);
    }
    types.parsers()?;
    let type_items = &types.items;
    let scheme_items = api.required_schemes.iter().map(|s| scheme_operations(api, s));
    let trait_items = api
        .required_schemes
        .iter()
        .map(security_hook)
        .chain(api.operations.iter().map(trait_method))
        .collect::<Vec<_>>();
    let op_items = operations.iter().map(|o| &o.items);
    let extra_items = &types.extra;
    let routes_list = api.operations.iter().map(|op| {
        let (id, method, path) = (&op.id, op.method.as_str(), &op.path);
        quote!((#id, #method, #path),)
    });
    let routes = api
        .operations
        .iter()
        .enumerate()
        .map(|(i, op)| route(i, op, &operations[i]))
        .collect::<Result<Vec<_>, _>>()?;
    // Each route is boxed, and so is each step of the chain that joins them: unboxed, every `or`
    // nests the routes before it in its type, and rustc's trait selection on the whole grows
    // exponentially with the number of routes (twenty took it over twenty minutes).
    let names: Vec<Ident> = (0..api.operations.len()).map(|i| format_ident!("route_{i}")).collect();
    let first = &names[0];
    let rest = &names[1..];
    let runtime = runtime();
    Ok(quote! {
        #runtime

        /// The schemas of `openapi/roadlog.yaml` (`components/schemas`, and the inline ones named
        /// after where they appear), as the handlers read and write them.
        pub mod types {
            #[allow(unused_imports)]
            use super::{rt, types, Expected, Problem, ProblemKind, RequestError};
            #(#type_items)*
        }

        #(#scheme_items)*

        #(#extra_items)*

        #(#op_items)*

        /// The REST operations of `openapi/roadlog.yaml`, one method each: the request is parsed and
        /// validated before the method is called, and the answer is one of the documented ones.
        #[async_trait::async_trait]
        pub trait RestApi: Send + Sync + 'static {
            #(#trait_items)*
        }

        /// Every operation: `(operationId, method, path)`.
        pub const ROUTES: &[(&str, &str, &str)] = &[
            #(#routes_list)*
        ];

        /// The warp routes of every operation. Paths under `/api/` are also served without the
        /// prefix, and unprefixed paths also with it, as the reference service's two host names do.
        pub fn routes<A: RestApi>(api: Arc<A>) -> warp::filters::BoxedFilter<(warp::reply::Response,)> {
            #(#routes)*
            #first #(.or(#rest).unify().boxed())*
        }
    })
}

/// What the emitter knows of one operation once its types exist.
struct OperationCode {
    items: TokenStream,
    request: Ident,
    response: Ident,
    /// Whether parsing can fail (then `from_parts` answers a `Result`).
    fallible: bool,
    /// The split of a multipart body into parts, before `from_parts`.
    multipart: Option<multipart::Step>,
}

fn request_ident(op: &Operation) -> Ident {
    format_ident!("{}Request", camel(&op.id))
}

fn response_ident(op: &Operation) -> Ident {
    format_ident!("{}Response", camel(&op.id))
}

/// The variant name of a status: its canonical reason in camel case (`404` → `NotFound`).
fn variant(status: u16) -> Ident {
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Status");
    camel(&reason.to_ascii_lowercase())
}

fn scheme_type(scheme: &str) -> Ident {
    camel(scheme)
}

fn scheme_method(scheme: &str) -> Ident {
    format_ident!("authenticate_{}", heck::ToSnakeCase::to_snake_case(scheme))
}

fn scheme_operations_ident(scheme: &str) -> Ident {
    format_ident!("{}Operation", camel(scheme))
}

/// The operations that require a scheme, so that its hook knows which one it authenticates for.
fn scheme_operations(api: &Api, scheme: &SecurityScheme) -> TokenStream {
    let ident = scheme_operations_ident(&scheme.name);
    let text = lines(&format!("The operations that require `{}`.", scheme.name));
    let variants = api
        .operations
        .iter()
        .filter(|op| op.security.as_deref() == Some(scheme.name.as_str()))
        .map(|op| {
            let variant = camel(&op.id);
            let text = lines(&format!("`{}` (`{} {}`).", op.id, op.method.as_str(), op.path));
            quote!(#text #variant,)
        });
    quote! {
        #text
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum #ident {
            #(#variants)*
        }
    }
}

fn security_hook(scheme: &SecurityScheme) -> TokenStream {
    let ty = scheme_type(&scheme.name);
    let method = scheme_method(&scheme.name);
    let operations = scheme_operations_ident(&scheme.name);
    let error = format_ident!("{}", scheme.unauthorized_body);
    let name = &scheme.name;
    let what = match scheme.kind {
        SecurityKind::Bearer => "HTTP bearer: the token of `Authorization: Bearer <token>`, `None` when absent",
    };
    let type_doc = lines(&format!(
        "The caller of an operation that requires `{name}`, as [`RestApi::{method}`] found it: \
         the handler receives it before the request."
    ));
    let method_doc = lines(&format!(
        "Authenticates a request of an operation that requires `{name}` ({what}), before the request \
         is validated; `headers` are the request's, for credentials sent beside it. `Err` is answered as \
         the operation's documented 401. {}",
        scheme.description.as_deref().unwrap_or("")
    ));
    quote! {
        #type_doc
        type #ty: Send + 'static;
        #method_doc
        async fn #method(&self, operation: #operations, token: Option<&str>, headers: &warp::http::HeaderMap) -> Result<Self::#ty, types::#error>;
    }
}

fn trait_method(op: &Operation) -> TokenStream {
    let text = lines(&format!("`{} {}`: {}", op.method.as_str(), op.path, op.summary));
    let method = snake(&op.id);
    let request = request_ident(op);
    let response = response_ident(op);
    let principal = op.security.as_ref().map(|s| {
        let arg = snake(s);
        let ty = scheme_type(s);
        quote!(#arg: Self::#ty,)
    });
    quote! {
        #text
        async fn #method(&self, #principal request: #request) -> #response;
    }
}

/// Doc attributes, one per line, so that prettyplease writes them as `///` comments.
fn lines(text: &str) -> TokenStream {
    let lines = text.trim_end().lines().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#[doc = #line])
    });
    quote!(#(#lines)*)
}

fn lines_of(text: &Option<String>) -> TokenStream {
    text.as_deref().map(lines).unwrap_or_default()
}
