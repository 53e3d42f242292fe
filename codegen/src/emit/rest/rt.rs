//! The generated `rt` module: the helpers the generated parsers and renderers call, in four
//! pieces joined in their order in the generated file: query strings and forms, JSON bodies,
//! headers and responses, and multipart bodies (`multipart`'s).

use proc_macro2::TokenStream;
use quote::quote;

/// `mod rt` of the generated file.
pub(super) fn rt() -> TokenStream {
    let flat = flat();
    let json = json();
    let http = http();
    let multipart = super::multipart::rt();
    quote! {
        /// The helpers of the generated parsers and renderers.
        #[allow(dead_code)]
        pub mod rt {
            use super::{Expected, Problem, ProblemKind, RequestError};

            #flat

            #json

            #http

            #multipart
        }
    }
}

/// Problems and field paths, and the readers of query strings and forms: the pairs, a field sent
/// once or every time, and the text scalars.
fn flat() -> TokenStream {
    quote! {
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
    }
}

/// The readers of JSON bodies: the document, objects and members, scalars and lists.
fn json() -> TokenStream {
    quote! {
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
    }
}

/// The bearer token of a request, and the responses and headers the generated renderers write.
fn http() -> TokenStream {
    quote! {
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

        /// The body of a streamed response (`x-roadlog-streamed`): chunks as the handler produces
        /// them. A chunk that is an error ends the response early: the connection is cut, so the
        /// client sees a failed transfer rather than a body that looks complete.
        pub struct ByteStream(
            pub std::pin::Pin<
                Box<dyn futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + Sync>,
            >,
        );

        impl ByteStream {
            /// The chunks of `stream`.
            pub fn new(
                stream: impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + Sync + 'static,
            ) -> Self {
                ByteStream(Box::pin(stream))
            }
        }

        impl std::fmt::Debug for ByteStream {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("ByteStream")
            }
        }

        /// A streamed binary response: chunked, no `Content-Length`.
        pub fn stream(status: u16, content_type: &'static str, body: ByteStream) -> warp::reply::Response {
            let mut response = warp::Reply::into_response(warp::reply::stream(body.0));
            *response.status_mut() = warp::http::StatusCode::from_u16(status).unwrap_or(warp::http::StatusCode::INTERNAL_SERVER_ERROR);
            response.headers_mut().insert(warp::http::header::CONTENT_TYPE, warp::http::HeaderValue::from_static(content_type));
            response
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
}
