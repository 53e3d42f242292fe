//! [`Api`] → the REST server code: the schemas as Rust types (`types`), per operation a typed
//! request (parsed and validated by generated code) and a typed response (one variant per
//! documented status), the `RestApi` handler trait, and the warp routes that parse, validate,
//! call the handler and render its answer.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{camel, pretty, snake};
use crate::Error;
use crate::model::rest::*;

/// Largest body of an operation that takes one: 10 MiB, as the reference service.
const BODY_LIMIT: u64 = 10 * 1024 * 1024;
/// Largest body read (and ignored) by an operation that takes none.
const NO_BODY_LIMIT: u64 = 64 * 1024;

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
            #first #(.or(#rest).unify())*.boxed()
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
         is validated. `Err` is answered as the operation's documented 401. {}",
        scheme.description.as_deref().unwrap_or("")
    ));
    quote! {
        #type_doc
        type #ty: Send + 'static;
        #method_doc
        async fn #method(&self, operation: #operations, token: Option<&str>) -> Result<Self::#ty, types::#error>;
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

fn operation(types: &mut Types, op: &Operation) -> Result<OperationCode, Error> {
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
        let (ty, read, can_fail) = request_body(types, op, body)?;
        let doc_text = match body.encoding {
            BodyEncoding::Json => "The `application/json` body.",
            BodyEncoding::Form => "The `application/x-www-form-urlencoded` body.",
        };
        let doc_text = lines(doc_text);
        fields.push(quote! {
            #doc_text
            pub body: #ty,
        });
        reads.push((format_ident!("body"), read, can_fail));
    }
    let fallible = reads.iter().any(|(_, _, can_fail)| *can_fail);
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
            pub fn from_parts(query: &[(String, String)], headers: warp::http::HeaderMap, client_ip: Option<std::net::IpAddr>, body: &[u8]) -> Result<Self, RequestError> {
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
            pub fn from_parts(query: &[(String, String)], headers: warp::http::HeaderMap, client_ip: Option<std::net::IpAddr>, body: &[u8]) -> Self {
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
    })
}

/// A query parameter or form field: its Rust type, the expression that reads it from `pairs`
/// (an `Option` when fallible: `None` once a problem is recorded), and whether it can fail.
fn flat_field(
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

fn opt_usize(n: Option<usize>) -> TokenStream {
    match n {
        Some(n) => {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    }
}

/// The word for the items of an array in messages: the items' `title`, or "item".
fn noun(items: &Schema) -> String {
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
fn request_body(
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

/// A variant of a response enum, and its arm of `into_response`.
fn response_variant(
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
        if lower == "content-type" {
            // OpenAPI: ignored; the media type says it.
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

fn route(i: usize, op: &Operation, code: &OperationCode) -> Result<TokenStream, Error> {
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
    let limit = proc_macro2::Literal::u64_unsuffixed(if op.body.is_some() { BODY_LIMIT } else { NO_BODY_LIMIT });
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
            let #principal = match api.#hook(#operations::#operation, rt::bearer_token(&headers).as_deref()).await {
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
            });
    })
}

fn constant_header(h: &Header) -> bool {
    matches!(&h.schema.kind, SchemaKind::Enum(values) if values.len() == 1)
}

/// The Rust expression of a schema default.
fn default_value(
    types: &mut Types,
    hint: &str,
    schema: &Schema,
    value: &serde_json::Value,
) -> Result<TokenStream, Error> {
    let resolved = types.resolve(schema).clone();
    let bad = || Error::new(format!("`{hint}`: default {value} does not fit its schema"));
    Ok(match (&resolved.kind, value) {
        (SchemaKind::Boolean, serde_json::Value::Bool(b)) => quote!(#b),
        (SchemaKind::Integer(IntegerFormat::Int64), serde_json::Value::Number(n)) => {
            let n = n.as_i64().ok_or_else(bad)?;
            quote!(#n)
        }
        (SchemaKind::Integer(IntegerFormat::Int32), serde_json::Value::Number(n)) => {
            let n = n.as_i64().and_then(|n| i32::try_from(n).ok()).ok_or_else(bad)?;
            quote!(#n)
        }
        (SchemaKind::Number, serde_json::Value::Number(n)) => {
            let n = n.as_f64().ok_or_else(bad)?;
            quote!(#n)
        }
        (SchemaKind::String(StringFormat::Plain), serde_json::Value::String(s)) => quote!(#s.to_string()),
        (SchemaKind::Enum(values), serde_json::Value::String(s)) if values.contains(s) => {
            let ty = types.rust_type(hint, schema)?;
            let v = enum_variant(s);
            quote!(#ty::#v)
        }
        _ => return Err(bad()),
    })
}

fn enum_variant(value: &str) -> Ident {
    let name = camel(value).to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || name.starts_with("r#") {
        format_ident!("V{}", name.trim_start_matches("r#"))
    } else {
        camel(value)
    }
}

/// The schemas as Rust types: the named ones, and the inline ones named after where they appear.
struct Types {
    /// Items of `mod types`.
    items: Vec<TokenStream>,
    /// Items emitted beside the operations (as-sent forms).
    extra: Vec<TokenStream>,
    /// Every named type and its schema (components, and inline objects and enums).
    named: BTreeMap<String, Schema>,
    /// Types defined so far.
    defined: BTreeSet<String>,
    /// Object types read from JSON bodies, and from forms.
    json_parsers: BTreeSet<String>,
    form_parsers: BTreeSet<String>,
}

impl Types {
    fn new(api: &Api) -> Self {
        Types {
            items: Vec::new(),
            extra: Vec::new(),
            named: api.schemas.iter().map(|s| (s.name.clone(), s.schema.clone())).collect(),
            defined: BTreeSet::new(),
            json_parsers: BTreeSet::new(),
            form_parsers: BTreeSet::new(),
        }
    }

    /// The schema behind a `$ref`, or the schema itself.
    fn resolve<'s>(&'s self, schema: &'s Schema) -> &'s Schema {
        match &schema.kind {
            SchemaKind::Ref(name) => self.named.get(name).unwrap_or(schema),
            _ => schema,
        }
    }

    /// The name of the object type a schema is (a `$ref` to one, or an inline one named `hint`).
    fn object_name(&self, hint: &str, schema: &Schema) -> Option<String> {
        match &schema.kind {
            SchemaKind::Ref(name) => match &self.named.get(name)?.kind {
                SchemaKind::Object { additional: None, .. } => Some(name.clone()),
                _ => None,
            },
            SchemaKind::Object { additional: None, .. } => Some(hint.to_string()),
            _ => None,
        }
    }

    /// The Rust type of a schema as a field of a type (`types::` paths are written from inside
    /// `mod types` and from outside alike, through `types::`).
    fn rust_type(&mut self, hint: &str, schema: &Schema) -> Result<TokenStream, Error> {
        let base = match &schema.kind {
            SchemaKind::Ref(name) => {
                let ident = format_ident!("{name}");
                quote!(types::#ident)
            }
            SchemaKind::Boolean => quote!(bool),
            SchemaKind::Integer(IntegerFormat::Int64) => quote!(i64),
            SchemaKind::Integer(IntegerFormat::Int32) => quote!(i32),
            SchemaKind::Number => quote!(f64),
            SchemaKind::String(StringFormat::Plain) => quote!(String),
            SchemaKind::String(StringFormat::Date) => quote!(chrono::NaiveDate),
            SchemaKind::String(StringFormat::Binary) => quote!(bytes::Bytes),
            SchemaKind::Array { items, .. } => {
                let item = self.rust_type(&format!("{hint}Item"), items)?;
                quote!(Vec<#item>)
            }
            SchemaKind::Object {
                properties,
                additional: Some(value),
            } if properties.is_empty() => {
                let value = self.rust_type(&format!("{hint}Value"), value)?;
                quote!(std::collections::BTreeMap<String, #value>)
            }
            SchemaKind::Enum(_) | SchemaKind::Object { .. } => {
                if !self.defined.contains(hint) {
                    self.named.insert(
                        hint.to_string(),
                        Schema {
                            nullable: false,
                            default: None,
                            ..schema.clone()
                        },
                    );
                    self.define(hint, schema)?;
                }
                let ident = format_ident!("{hint}");
                quote!(types::#ident)
            }
        };
        Ok(base)
    }

    /// Defines a named type (struct, enum or alias) in `mod types`.
    fn define(&mut self, name: &str, schema: &Schema) -> Result<(), Error> {
        if !self.defined.insert(name.to_string()) {
            return Err(Error::new(format!("two schemas are named `{name}`")));
        }
        let ident = format_ident!("{name}");
        let docs = lines_of(&schema.description);
        match &schema.kind {
            SchemaKind::Enum(values) => {
                let variants: Vec<Ident> = values.iter().map(|v| enum_variant(v)).collect();
                let distinct: BTreeSet<String> = variants.iter().map(|v| v.to_string()).collect();
                if distinct.len() != variants.len() {
                    return Err(Error::new(format!("`{name}`: two enum values have the same Rust name")));
                }
                self.items.push(quote! {
                    #docs
                    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
                    pub enum #ident {
                        #(#[serde(rename = #values)] #variants,)*
                    }
                    impl #ident {
                        /// The documented values, as sent.
                        pub const VALUES: &'static [&'static str] = &[#(#values),*];
                        /// The value as sent.
                        pub fn as_str(self) -> &'static str {
                            match self { #(Self::#variants => #values,)* }
                        }
                        /// The variant of a value as sent.
                        pub fn from_wire(text: &str) -> Option<Self> {
                            match text { #(#values => Some(Self::#variants),)* _ => None }
                        }
                    }
                    impl std::fmt::Display for #ident {
                        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                            f.write_str(self.as_str())
                        }
                    }
                });
            }
            SchemaKind::Object {
                properties,
                additional: None,
            } => {
                let mut fields = Vec::new();
                for p in properties {
                    let hint = format!("{name}{}", camel(&p.name));
                    let ty = self.rust_type(&hint, &p.schema)?;
                    let resolved = self.resolve(&p.schema).clone();
                    let field = snake(&p.name);
                    let wire = &p.name;
                    let docs = lines_of(&p.schema.description.clone().or(resolved.description.clone()));
                    let rename = (field.to_string().trim_start_matches("r#") != wire.as_str())
                        .then(|| quote!(#[serde(rename = #wire)]));
                    let nullable = p.schema.nullable;
                    let (ty, skip) = match (p.required, p.schema.default.is_some()) {
                        (true, _) if nullable => (quote!(Option<#ty>), quote!()),
                        (true, _) | (false, true) => (ty, quote!()),
                        (false, false) if nullable => (quote!(Option<#ty>), quote!()),
                        (false, false) => (
                            quote!(Option<#ty>),
                            quote!(#[serde(skip_serializing_if = "Option::is_none")]),
                        ),
                    };
                    fields.push(quote! {
                        #docs
                        #rename
                        #skip
                        pub #field: #ty,
                    });
                }
                self.items.push(quote! {
                    #docs
                    #[derive(Debug, Clone, PartialEq, serde::Serialize)]
                    pub struct #ident {
                        #(#fields)*
                    }
                });
            }
            _ => {
                let ty = self.rust_type(&format!("{name}Inner"), schema)?;
                self.items.push(quote! {
                    #docs
                    pub type #ident = #ty;
                });
            }
        }
        Ok(())
    }

    /// The parsers of the types read from request bodies (and of the types inside them).
    fn parsers(&mut self) -> Result<(), Error> {
        let mut done = BTreeSet::new();
        while let Some(name) = self.json_parsers.iter().find(|n| !done.contains(*n)).cloned() {
            done.insert(name.clone());
            let item = self.json_parser(&name)?;
            self.items.push(item);
        }
        for name in self.form_parsers.clone() {
            let item = self.form_parser(&name)?;
            self.items.push(item);
        }
        Ok(())
    }

    fn properties(&self, name: &str) -> Result<Vec<Property>, Error> {
        match self.named.get(name).map(|s| &s.kind) {
            Some(SchemaKind::Object {
                properties,
                additional: None,
            }) => Ok(properties.clone()),
            _ => Err(Error::new(format!("`{name}` is not an object schema"))),
        }
    }

    /// `from_json` and `from_json_value` of an object type.
    fn json_parser(&mut self, name: &str) -> Result<TokenStream, Error> {
        let ident = format_ident!("{name}");
        let mut fields = Vec::new();
        for p in self.properties(name)? {
            let hint = format!("{name}{}", camel(&p.name));
            let wire = &p.name;
            let field = snake(wire);
            let read = self.json_value(&hint, &p.schema, quote!(value), quote!(&rt::join(at, #wire)))?;
            let absent = match (&p.schema.default, p.required) {
                (_, true) => quote!({
                    rt::problem(problems, rt::join(at, #wire), ProblemKind::Missing);
                    None
                }),
                (Some(default), false) => {
                    let default = default_value(self, &hint, &p.schema, default)?;
                    quote!(Some(#default))
                }
                (None, false) => quote!(Some(None)),
            };
            let wrap = if !p.required && p.schema.default.is_none() || p.required && p.schema.nullable {
                quote!(.map(Some))
            } else {
                quote!()
            };
            fields.push((
                field.clone(),
                quote! {
                    let #field = match rt::member(object, #wire) {
                        Some(value) => #read #wrap,
                        None => #absent,
                    };
                },
            ));
        }
        let reads = fields.iter().map(|(_, r)| r);
        let names: Vec<&Ident> = fields.iter().map(|(f, _)| f).collect();
        let from_json_doc = lines(&format!(
            "Reads a `{name}` from a JSON document: every problem is reported, per field (`json` for the document as a whole)."
        ));
        Ok(quote! {
            impl #ident {
                #from_json_doc
                pub fn from_json(body: &[u8]) -> Result<Self, RequestError> {
                    let value = rt::json_document(body)?;
                    let mut problems: Vec<Problem> = Vec::new();
                    match Self::from_json_value(&value, "", &mut problems) {
                        Some(parsed) if problems.is_empty() => Ok(parsed),
                        _ => Err(RequestError::new(problems)),
                    }
                }

                /// Reads the type from a JSON value at `at` (a field path, empty at the top),
                /// recording every problem; `None` when there is one.
                pub fn from_json_value(value: &serde_json::Value, at: &str, problems: &mut Vec<Problem>) -> Option<Self> {
                    let object = rt::json_object(value, at, problems)?;
                    #(#reads)*
                    let (#(Some(#names),)*) = (#(#names,)*) else {
                        return None;
                    };
                    Some(Self { #(#names,)* })
                }
            }
        })
    }

    /// The expression reading a JSON value of a schema: an `Option`, `None` once a problem is
    /// recorded at `field`.
    fn json_value(
        &mut self,
        hint: &str,
        schema: &Schema,
        value: TokenStream,
        field: TokenStream,
    ) -> Result<TokenStream, Error> {
        if let Some((expected, parse)) = self.json_scalar(hint, schema)? {
            return Ok(quote!(rt::json_scalar(#value, #field, problems, #expected, #parse)));
        }
        let resolved = self.resolve(schema).clone();
        match &resolved.kind {
            SchemaKind::Array {
                items,
                min_items,
                max_items,
            } => {
                let (min, max) = (opt_usize(*min_items), opt_usize(*max_items));
                let noun = noun(items);
                let item_hint = format!("{hint}Item");
                if let Some((expected, parse)) = self.json_scalar(&item_hint, items)? {
                    return Ok(quote!(rt::json_list(#value, #field, problems, #min, #max, #noun, #expected, #parse)));
                }
                let Some(name) = self.object_name(&item_hint, items) else {
                    return Err(Error::new(format!(
                        "`{hint}`: arrays of arrays or maps are not supported in request bodies"
                    )));
                };
                let ty = self.rust_type(&item_hint, items)?;
                self.json_parsers.insert(name);
                Ok(quote!(rt::json_object_list(#value, #field, problems, #min, #max, #noun, #ty::from_json_value)))
            }
            SchemaKind::Object { additional: None, .. } => {
                let ty = self.rust_type(hint, schema)?;
                let name = self.object_name(hint, schema).expect("an object");
                self.json_parsers.insert(name);
                Ok(quote!(#ty::from_json_value(#value, #field, problems)))
            }
            _ => Err(Error::new(format!(
                "`{hint}`: maps and binary strings are not supported in request bodies"
            ))),
        }
    }

    /// A JSON scalar: the `Expected` of its messages and its parser, a
    /// `fn(&serde_json::Value) -> Option<T>`; `None` for arrays and objects.
    fn json_scalar(&mut self, hint: &str, schema: &Schema) -> Result<Option<(TokenStream, TokenStream)>, Error> {
        let resolved = self.resolve(schema).clone();
        Ok(Some(match &resolved.kind {
            SchemaKind::Boolean => (quote!(Expected::Boolean), quote!(|v: &serde_json::Value| v.as_bool())),
            SchemaKind::Integer(IntegerFormat::Int64) => {
                (quote!(Expected::Integer), quote!(|v: &serde_json::Value| v.as_i64()))
            }
            SchemaKind::Integer(IntegerFormat::Int32) => (
                quote!(Expected::Integer),
                quote!(|v: &serde_json::Value| v.as_i64().and_then(|n| i32::try_from(n).ok())),
            ),
            SchemaKind::Number => (quote!(Expected::Number), quote!(|v: &serde_json::Value| v.as_f64())),
            SchemaKind::String(StringFormat::Plain) => (
                quote!(Expected::String),
                quote!(|v: &serde_json::Value| v.as_str().map(str::to_string)),
            ),
            SchemaKind::String(StringFormat::Date) => (quote!(Expected::Date), quote!(rt::json_date)),
            SchemaKind::Enum(_) => {
                let ty = self.rust_type(hint, schema)?;
                (
                    quote!(Expected::OneOf(#ty::VALUES)),
                    quote!(|v: &serde_json::Value| v.as_str().and_then(#ty::from_wire)),
                )
            }
            _ => return Ok(None),
        }))
    }

    /// `from_form` and `from_pairs` of a flat object type.
    fn form_parser(&mut self, name: &str) -> Result<TokenStream, Error> {
        let ident = format_ident!("{name}");
        let mut reads = Vec::new();
        let mut names = Vec::new();
        for p in self.properties(name)? {
            let hint = format!("{name}{}", camel(&p.name));
            let (_, read, _) = flat_field(self, &hint, &p.name, p.required, &p.schema, true, quote!(pairs))?;
            let field = snake(&p.name);
            let is_array = matches!(self.resolve(&p.schema).kind, SchemaKind::Array { .. });
            let read = if is_array && !p.required && p.schema.default.is_none() {
                quote!(#read.map(|v| (!v.is_empty()).then_some(v)))
            } else {
                read
            };
            reads.push(quote!(let #field = #read;));
            names.push(field);
        }
        let from_form_doc = lines(&format!(
            "Reads a `{name}` from an `application/x-www-form-urlencoded` body: the media type, each field's type, required fields, and fields sent more than once are checked."
        ));
        Ok(quote! {
            impl #ident {
                #from_form_doc
                pub fn from_form(content_type: Option<&str>, body: &[u8]) -> Result<Self, RequestError> {
                    let pairs = rt::form_pairs(content_type, body)?;
                    Self::from_pairs(&pairs)
                }

                /// Reads the type from the decoded pairs of a form (every problem is reported).
                pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self, RequestError> {
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
        })
    }
}

/// The code every generated REST module starts with: the validation errors, the trait error
/// bodies implement, and the helpers the generated parsers and renderers call (`rt`).
fn runtime() -> TokenStream {
    quote! {
        use std::sync::Arc;
        use warp::Filter;

        /// One thing wrong with a request, as the generated validation found it.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Problem {
            /// The query parameter or body field at fault (nested fields joined with `.`), or
            /// `json` / `form` for the body as a whole.
            pub field: String,
            pub kind: ProblemKind,
        }

        /// What is wrong.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum ProblemKind {
            /// A required parameter or field is absent (or `null`).
            Missing,
            /// A parameter or form field that takes one value was sent more than once.
            Repeated,
            /// The value is not of the documented type, or not one of the documented values.
            Invalid(Expected),
            /// The value is not a list of the documented item type.
            InvalidList(Expected),
            /// Fewer items than `minItems`; `noun` is the items' `title`.
            TooFewItems { min: usize, noun: &'static str },
            /// More items than `maxItems`.
            TooManyItems { max: usize, noun: &'static str },
            /// The body is not JSON.
            InvalidJson(String),
            /// The body is not of the documented media type.
            MediaType(&'static str),
        }

        /// A documented type or set of values.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Expected {
            Integer,
            Number,
            Boolean,
            String,
            /// `YYYY-MM-DD`.
            Date,
            Object,
            /// One of these values.
            OneOf(&'static [&'static str]),
        }

        impl Expected {
            fn plural(self) -> &'static str {
                match self {
                    Expected::Integer => "integers",
                    Expected::Number => "numbers",
                    Expected::Boolean => "booleans",
                    Expected::String | Expected::OneOf(_) => "strings",
                    Expected::Date => "dates (YYYY-MM-DD)",
                    Expected::Object => "objects",
                }
            }
        }

        impl Problem {
            /// What is wrong, in a sentence (the field is not named).
            pub fn message(&self) -> String {
                match &self.kind {
                    ProblemKind::Missing => "Missing data for required field.".to_string(),
                    ProblemKind::Repeated => "Must be sent once, not repeated.".to_string(),
                    ProblemKind::Invalid(Expected::Integer) => "Not a valid integer.".to_string(),
                    ProblemKind::Invalid(Expected::Number) => "Not a valid number.".to_string(),
                    ProblemKind::Invalid(Expected::Boolean) => "Not a valid boolean.".to_string(),
                    ProblemKind::Invalid(Expected::String) => "Not a valid string.".to_string(),
                    ProblemKind::Invalid(Expected::Date) => "Not a valid date: use YYYY-MM-DD.".to_string(),
                    ProblemKind::Invalid(Expected::Object) if self.field == "json" => {
                        "The body must be a JSON object.".to_string()
                    }
                    ProblemKind::Invalid(Expected::Object) => "Must be an object.".to_string(),
                    ProblemKind::Invalid(Expected::OneOf(values)) => format!("Must be one of: {}.", values.join(", ")),
                    ProblemKind::InvalidList(item) => format!("Must be a list of {}.", item.plural()),
                    ProblemKind::TooFewItems { min: 1, noun } => format!("Must contain at least one {noun}."),
                    ProblemKind::TooFewItems { min, noun } => format!("Must contain at least {min} {noun}s."),
                    ProblemKind::TooManyItems { max, noun } => format!("Must contain at most {max} {noun}s."),
                    ProblemKind::InvalidJson(reason) => format!("Invalid JSON: {reason}"),
                    ProblemKind::MediaType(media) => format!("Send the body as {media}."),
                }
            }
        }

        impl std::fmt::Display for Problem {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}: {}", self.field, self.message())
            }
        }

        /// Everything wrong with a request that failed validation (never empty).
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct RequestError {
            pub problems: Vec<Problem>,
        }

        impl RequestError {
            /// The error of these problems.
            pub fn new(problems: Vec<Problem>) -> Self {
                RequestError { problems }
            }

            /// Field → messages.
            pub fn details(&self) -> std::collections::BTreeMap<String, Vec<String>> {
                let mut details: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
                for problem in &self.problems {
                    details.entry(problem.field.clone()).or_default().push(problem.message());
                }
                details
            }
        }

        impl std::fmt::Display for RequestError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                for (i, problem) in self.problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{problem}")?;
                }
                Ok(())
            }
        }

        impl std::error::Error for RequestError {}

        /// How an error body of the contract reports a request that failed validation. Every
        /// schema that some operation names with `x-roadlog-invalid-request-status` implements it
        /// (by hand: the wording is the API's), or the service does not compile.
        pub trait FromRequestError {
            fn from_request_error(error: RequestError) -> Self;
        }

        /// The helpers of the generated parsers and renderers.
        #[allow(dead_code)]
        pub mod rt {
            use super::{Expected, Problem, ProblemKind, RequestError};

            pub fn problem(problems: &mut Vec<Problem>, field: String, kind: ProblemKind) {
                problems.push(Problem { field, kind });
            }

            /// A field path: `name` under `parent` (empty at the top).
            pub fn join(parent: &str, name: &str) -> String {
                if parent.is_empty() { name.to_string() } else { format!("{parent}.{name}") }
            }

            /// The decoded pairs of a query string or form, in order, repeats kept.
            pub fn pairs(text: &[u8]) -> Vec<(String, String)> {
                url::form_urlencoded::parse(text).into_owned().collect()
            }

            /// The pairs of an `application/x-www-form-urlencoded` body (the media type is checked).
            pub fn form_pairs(content_type: Option<&str>, body: &[u8]) -> Result<Vec<(String, String)>, RequestError> {
                const FORM: &str = "application/x-www-form-urlencoded";
                let media = content_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
                if media != FORM {
                    return Err(RequestError::new(vec![Problem { field: "form".to_string(), kind: ProblemKind::MediaType(FORM) }]));
                }
                Ok(pairs(body))
            }

            fn values<'a>(pairs: &'a [(String, String)], name: &str) -> Vec<&'a str> {
                pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
            }

            /// A field sent at most once: `Some(None)` when absent, `None` once a problem is recorded.
            pub fn flat_optional<T>(pairs: &[(String, String)], name: &str, problems: &mut Vec<Problem>, parse: impl Fn(&str) -> Result<T, ProblemKind>) -> Option<Option<T>> {
                match values(pairs, name).as_slice() {
                    [] => Some(None),
                    [one] => match parse(one) {
                        Ok(value) => Some(Some(value)),
                        Err(kind) => {
                            problem(problems, name.to_string(), kind);
                            None
                        }
                    },
                    _ => {
                        problem(problems, name.to_string(), ProblemKind::Repeated);
                        None
                    }
                }
            }

            /// A field sent exactly once.
            pub fn flat_required<T>(pairs: &[(String, String)], name: &str, problems: &mut Vec<Problem>, parse: impl Fn(&str) -> Result<T, ProblemKind>) -> Option<T> {
                match flat_optional(pairs, name, problems, parse) {
                    Some(Some(value)) => Some(value),
                    Some(None) => {
                        problem(problems, name.to_string(), ProblemKind::Missing);
                        None
                    }
                    None => None,
                }
            }

            /// Every occurrence of a field, in order.
            pub fn flat_all<T>(pairs: &[(String, String)], name: &str, min: Option<usize>, max: Option<usize>, noun: &'static str, problems: &mut Vec<Problem>, parse: impl Fn(&str) -> Result<T, ProblemKind>) -> Option<Vec<T>> {
                let values = values(pairs, name);
                if let Some(max) = max.filter(|max| values.len() > *max) {
                    problem(problems, name.to_string(), ProblemKind::TooManyItems { max, noun });
                    return None;
                }
                let mut parsed = Vec::with_capacity(values.len());
                for value in values {
                    match parse(value) {
                        Ok(value) => parsed.push(value),
                        Err(kind) => {
                            problem(problems, name.to_string(), kind);
                            return None;
                        }
                    }
                }
                if let Some(min) = min.filter(|min| parsed.len() < *min) {
                    problem(problems, name.to_string(), ProblemKind::TooFewItems { min, noun });
                    return None;
                }
                Some(parsed)
            }

            pub fn text_string(text: &str) -> Result<String, ProblemKind> {
                Ok(text.to_string())
            }

            pub fn text_bool(text: &str) -> Result<bool, ProblemKind> {
                match text {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(ProblemKind::Invalid(Expected::Boolean)),
                }
            }

            pub fn text_i64(text: &str) -> Result<i64, ProblemKind> {
                text.parse().map_err(|_| ProblemKind::Invalid(Expected::Integer))
            }

            pub fn text_i32(text: &str) -> Result<i32, ProblemKind> {
                text.parse().map_err(|_| ProblemKind::Invalid(Expected::Integer))
            }

            pub fn text_f64(text: &str) -> Result<f64, ProblemKind> {
                text.parse::<f64>().ok().filter(|n| n.is_finite()).ok_or(ProblemKind::Invalid(Expected::Number))
            }

            pub fn text_date(text: &str) -> Result<chrono::NaiveDate, ProblemKind> {
                match chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
                    Ok(date) if text.len() == 10 => Ok(date),
                    _ => Err(ProblemKind::Invalid(Expected::Date)),
                }
            }

            /// A JSON document (the problem is reported as `json`).
            pub fn json_document(body: &[u8]) -> Result<serde_json::Value, RequestError> {
                serde_json::from_slice(body).map_err(|e| RequestError::new(vec![Problem { field: "json".to_string(), kind: ProblemKind::InvalidJson(e.to_string()) }]))
            }

            /// The members of a JSON object.
            pub fn json_object<'a>(value: &'a serde_json::Value, at: &str, problems: &mut Vec<Problem>) -> Option<&'a serde_json::Map<String, serde_json::Value>> {
                match value {
                    serde_json::Value::Object(object) => Some(object),
                    _ => {
                        let field = if at.is_empty() { "json".to_string() } else { at.to_string() };
                        problem(problems, field, ProblemKind::Invalid(Expected::Object));
                        None
                    }
                }
            }

            /// A member, `None` when absent or `null`.
            pub fn member<'a>(object: &'a serde_json::Map<String, serde_json::Value>, name: &str) -> Option<&'a serde_json::Value> {
                object.get(name).filter(|v| !v.is_null())
            }

            pub fn json_scalar<T>(value: &serde_json::Value, field: &str, problems: &mut Vec<Problem>, expected: Expected, parse: impl Fn(&serde_json::Value) -> Option<T>) -> Option<T> {
                let parsed = parse(value);
                if parsed.is_none() {
                    problem(problems, field.to_string(), ProblemKind::Invalid(expected));
                }
                parsed
            }

            pub fn json_date(value: &serde_json::Value) -> Option<chrono::NaiveDate> {
                value.as_str().and_then(|text| text_date(text).ok())
            }

            fn json_items<'a>(value: &'a serde_json::Value, field: &str, problems: &mut Vec<Problem>, max: Option<usize>, noun: &'static str, expected: Expected) -> Option<&'a Vec<serde_json::Value>> {
                let serde_json::Value::Array(items) = value else {
                    problem(problems, field.to_string(), ProblemKind::InvalidList(expected));
                    return None;
                };
                if let Some(max) = max.filter(|max| items.len() > *max) {
                    problem(problems, field.to_string(), ProblemKind::TooManyItems { max, noun });
                    return None;
                }
                Some(items)
            }

            fn check_min<T>(items: Vec<T>, field: &str, problems: &mut Vec<Problem>, min: Option<usize>, noun: &'static str) -> Option<Vec<T>> {
                if let Some(min) = min.filter(|min| items.len() < *min) {
                    problem(problems, field.to_string(), ProblemKind::TooFewItems { min, noun });
                    return None;
                }
                Some(items)
            }

            /// A list of scalars: an item of another type is reported on the list.
            pub fn json_list<T>(value: &serde_json::Value, field: &str, problems: &mut Vec<Problem>, min: Option<usize>, max: Option<usize>, noun: &'static str, expected: Expected, parse: impl Fn(&serde_json::Value) -> Option<T>) -> Option<Vec<T>> {
                let items = json_items(value, field, problems, max, noun, expected)?;
                let Some(parsed) = items.iter().map(parse).collect::<Option<Vec<T>>>() else {
                    problem(problems, field.to_string(), ProblemKind::InvalidList(expected));
                    return None;
                };
                check_min(parsed, field, problems, min, noun)
            }

            /// A list of objects: problems are reported per item (`field.index.member`).
            pub fn json_object_list<T>(value: &serde_json::Value, field: &str, problems: &mut Vec<Problem>, min: Option<usize>, max: Option<usize>, noun: &'static str, parse: impl Fn(&serde_json::Value, &str, &mut Vec<Problem>) -> Option<T>) -> Option<Vec<T>> {
                let items = json_items(value, field, problems, max, noun, Expected::Object)?;
                let mut parsed = Vec::with_capacity(items.len());
                let mut failed = false;
                for (i, item) in items.iter().enumerate() {
                    match parse(item, &join(field, &i.to_string()), problems) {
                        Some(item) => parsed.push(item),
                        None => failed = true,
                    }
                }
                if failed {
                    return None;
                }
                check_min(parsed, field, problems, min, noun)
            }

            /// The token of `Authorization: Bearer <token>` (scheme case-insensitive, blanks trimmed).
            pub fn bearer_token(headers: &warp::http::HeaderMap) -> Option<String> {
                let value = headers.get(warp::http::header::AUTHORIZATION)?.to_str().ok()?;
                let (scheme, rest) = value.trim().split_once(' ')?;
                let token = rest.trim();
                (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_string())
            }

            fn with_status(body: bytes::Bytes, status: u16, content_type: Option<&'static str>) -> warp::reply::Response {
                let mut response = warp::reply::Response::new(body.into());
                *response.status_mut() = warp::http::StatusCode::from_u16(status).unwrap_or(warp::http::StatusCode::INTERNAL_SERVER_ERROR);
                if let Some(content_type) = content_type {
                    response.headers_mut().insert(warp::http::header::CONTENT_TYPE, warp::http::HeaderValue::from_static(content_type));
                }
                response
            }

            /// A response without a body.
            pub fn empty(status: u16) -> warp::reply::Response {
                with_status(Default::default(), status, None)
            }

            /// A JSON response.
            pub fn json<T: serde::Serialize>(status: u16, content_type: &'static str, body: &T) -> warp::reply::Response {
                with_status(serde_json::to_vec(body).unwrap_or_default().into(), status, Some(content_type))
            }

            /// A text or binary response.
            pub fn bytes(status: u16, content_type: &'static str, body: bytes::Bytes) -> warp::reply::Response {
                with_status(body, status, Some(content_type))
            }

            /// Sets a header (a value that is not a valid header value is left out).
            pub fn set_header(response: &mut warp::reply::Response, name: &'static str, value: &str) {
                if let Ok(value) = warp::http::HeaderValue::from_str(value) {
                    response.headers_mut().insert(name, value);
                }
            }

            /// Adds a header, keeping the others of the same name (`Set-Cookie`).
            pub fn append_header(response: &mut warp::reply::Response, name: &'static str, value: &str) {
                if let Ok(value) = warp::http::HeaderValue::from_str(value) {
                    response.headers_mut().append(name, value);
                }
            }
        }

        /// The parts of a request the generated parsers read: the query pairs, the headers, the
        /// client's address.
        fn request_parts() -> impl Filter<Extract = (Vec<(String, String)>, warp::http::HeaderMap, Option<std::net::IpAddr>), Error = std::convert::Infallible> + Clone {
            warp::query::raw()
                .or(warp::any().map(String::new))
                .unify()
                .map(|query: String| rt::pairs(query.as_bytes()))
                .and(warp::header::headers_cloned())
                .and(warp::ext::optional::<crate::http::middleware::ClientIp>().map(|ip: Option<crate::http::middleware::ClientIp>| ip.map(|ip| ip.0)))
        }
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
