//! The code every generated REST module starts with: the validation errors, the trait error
//! bodies implement, the helpers the generated parsers and renderers call (`rt`, in `super::rt`)
//! and the filter of a request's parts. The pieces are joined in their order in the generated file.

use proc_macro2::TokenStream;
use quote::quote;

/// The code every generated REST module starts with: the validation errors, the trait error
/// bodies implement, and the helpers the generated parsers and renderers call (`rt`).
pub(super) fn runtime() -> TokenStream {
    let validation = validation();
    let rt = super::rt::rt();
    let request_parts = request_parts();
    quote! {
        use std::sync::Arc;
        use warp::Filter;

        #validation

        #rt

        #request_parts
    }
}

/// What a request that failed validation is: `Problem`, `ProblemKind`, `Expected`, `RequestError`,
/// and the trait the contract's error bodies implement (`FromRequestError`).
fn validation() -> TokenStream {
    quote! {
        /// One thing wrong with a request, as the generated validation found it.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Problem {
            /// The query parameter or body field at fault (nested fields joined with `.`), or
            /// `json` / `form` for the body as a whole (`form` also for a multipart body).
            pub field: String,
            pub kind: ProblemKind,
        }

        /// What is wrong.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum ProblemKind {
            /// A required parameter or field is absent (or `null`).
            Missing,
            /// A body field the object does not define (`additionalProperties: false`).
            Unknown,
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
            /// The body is not a well-formed `multipart/form-data` body.
            InvalidMultipart(String),
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
                    ProblemKind::Unknown => "Unknown field.".to_string(),
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
                    ProblemKind::InvalidMultipart(reason) => format!("Not a valid multipart/form-data body: {reason}."),
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
    }
}

/// The warp filter of the parts of a request that the generated routes read.
fn request_parts() -> TokenStream {
    quote! {
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
