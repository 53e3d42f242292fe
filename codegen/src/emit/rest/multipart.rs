//! `multipart/form-data` request bodies: the generated form type of an operation (its one file
//! part and its text fields) and the `rt` helpers that read such a body.
//!
//! The body is bounded before any part is parsed: the route reads at most the file's `maxLength`
//! plus [`OVERHEAD`] bytes (a larger body is a 413 before anything else happens), then
//! `rt::multipart` splits it into parts with `multer`, the file part bounded by its `maxLength`
//! and every other part by `MULTIPART_TEXT_LIMIT`, so that no part grows past its limit in memory.
//! The fields are then read from the parts like the fields of a form (missing, repeated,
//! mistyped or unknown ones are problems of the request).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::lines;
use super::request::flat_field;
use super::types::Types;
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

/// What a multipart body may carry beside its file: headers, boundaries and text fields.
pub(super) const OVERHEAD: u64 = 64 * 1024;

/// The form type of a multipart body, and the expression of `from_parts` that reads it from
/// `body: &rt::MultipartForm`, which can fail.
pub(super) fn request_body(
    types: &mut Types,
    op: &Operation,
    body: &RequestBody,
) -> Result<(TokenStream, TokenStream, bool), Error> {
    let BodyEncoding::Multipart { max_file_size } = body.encoding else {
        unreachable!("called for multipart bodies only");
    };
    if !body.required {
        return Err(Error::new(format!(
            "`{}`: optional multipart bodies are not supported",
            op.id
        )));
    }
    let schema = types.resolve(&body.schema).clone();
    let SchemaKind::Object { properties, .. } = &schema.kind else {
        return Err(Error::new(format!(
            "`{}`: a multipart body must be an object schema",
            op.id
        )));
    };
    let form = form_ident(op);
    let mut fields = Vec::new();
    let mut reads: Vec<(Ident, TokenStream)> = Vec::new();
    for p in properties {
        let field = snake(&p.name);
        let wire = &p.name;
        let description = p.schema.description.clone().unwrap_or_default();
        if matches!(p.schema.kind, SchemaKind::String(StringFormat::Binary)) {
            let (ty, read) = if p.required {
                (
                    quote!(rt::FilePart),
                    quote!(rt::multipart_file(form, #wire, &mut problems).and_then(|file| {
                        if file.is_none() {
                            rt::problem(&mut problems, #wire.to_string(), ProblemKind::Missing);
                        }
                        file
                    })),
                )
            } else {
                (
                    quote!(Option<rt::FilePart>),
                    quote!(rt::multipart_file(form, #wire, &mut problems)),
                )
            };
            let text = lines(&format!(
                "`{wire}`: the file part (at most {max_file_size} bytes). {description}"
            ));
            fields.push(quote!(#text pub #field: #ty,));
            reads.push((field, read));
        } else {
            let hint = format!("{}{}", camel(&op.id), camel(wire));
            let (ty, read, _) = flat_field(types, &hint, wire, p.required, &p.schema, true, quote!(&form.texts))?;
            let text = lines(&format!("`{wire}`: a text field. {description}"));
            fields.push(quote!(#text pub #field: #ty,));
            reads.push((field, read));
        }
    }
    let names: Vec<&Ident> = reads.iter().map(|(f, _)| f).collect();
    let reads = reads.iter().map(|(field, read)| quote!(let #field = #read;));
    let doc_text = lines(&format!("The `multipart/form-data` body of `{}`.", op.id));
    let max = proc_macro2::Literal::u64_unsuffixed(max_file_size);
    types.extra.push(quote! {
        #doc_text
        #[derive(Debug, Clone, PartialEq)]
        pub struct #form {
            #(#fields)*
        }
        impl #form {
            /// The largest file part, in bytes (its `maxLength`).
            pub const MAX_FILE_SIZE: u64 = #max;

            /// Reads the fields from the parts of the body.
            pub fn from_form(form: &rt::MultipartForm) -> Result<Self, RequestError> {
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
    });
    Ok((
        quote!(#form),
        quote!(match #form::from_form(body) {
            Ok(form) => Some(form),
            Err(error) => {
                problems.extend(error.problems);
                None
            }
        }),
        true,
    ))
}

/// The form type of an operation's multipart body.
pub(super) fn form_ident(op: &Operation) -> Ident {
    format_ident!("{}Multipart", camel(&op.id))
}

/// What the route of an operation with a multipart body needs to split it into parts.
pub(super) struct Step {
    file: String,
    max_file_size: u64,
    fields: Vec<String>,
    closed: bool,
}

/// The split of an operation's body, if it is a multipart form.
pub(super) fn step(types: &Types, op: &Operation) -> Result<Option<Step>, Error> {
    let Some(body) = &op.body else {
        return Ok(None);
    };
    let BodyEncoding::Multipart { max_file_size } = body.encoding else {
        return Ok(None);
    };
    let schema = types.resolve(&body.schema).clone();
    let SchemaKind::Object { properties, closed, .. } = &schema.kind else {
        return Err(Error::new(format!(
            "`{}`: a multipart body must be an object schema",
            op.id
        )));
    };
    let file = properties
        .iter()
        .find(|p| matches!(p.schema.kind, SchemaKind::String(StringFormat::Binary)))
        .map(|p| p.name.clone())
        .ok_or_else(|| Error::new(format!("`{}`: a multipart body has one file part", op.id)))?;
    Ok(Some(Step {
        file,
        max_file_size,
        fields: properties.iter().map(|p| p.name.clone()).collect(),
        closed: *closed,
    }))
}

impl Step {
    /// The largest body the route reads.
    pub(super) fn body_limit(&self) -> u64 {
        self.max_file_size.saturating_add(OVERHEAD)
    }

    /// The statement of the route that splits the body read into parts: a part over its limit
    /// is answered 413 like a body over its own, an ill-formed body with `invalid` (the
    /// operation's invalid-request answer, an expression of `error: RequestError`).
    pub(super) fn tokens(&self, invalid: TokenStream) -> TokenStream {
        let (file, fields, closed) = (&self.file, &self.fields, self.closed);
        let max = proc_macro2::Literal::u64_unsuffixed(self.max_file_size);
        quote! {
            let body = match rt::multipart(&headers, body, #file, #max, &[#(#fields),*], #closed).await {
                Ok(form) => form,
                Err(rt::MultipartError::TooLarge { limit }) => {
                    return crate::http::body::BodyError::TooLarge { limit }.into_response();
                }
                Err(rt::MultipartError::Invalid(error)) => return #invalid,
            };
        }
    }
}

/// The `rt` helpers of multipart bodies.
pub(super) fn rt() -> TokenStream {
    quote! {
        /// A file part of a multipart body.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct FilePart {
            /// The file name the client gave (`filename`), if any.
            pub file_name: Option<String>,
            /// The part's `Content-Type`, if any.
            pub content_type: Option<String>,
            pub bytes: bytes::Bytes,
        }

        /// The parts of a multipart body, each within its limit: the file parts by field name,
        /// the text fields as pairs (in order, repeats kept).
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct MultipartForm {
            pub files: Vec<(String, FilePart)>,
            pub texts: Vec<(String, String)>,
        }

        /// Why a multipart body was refused before its fields were read.
        #[derive(Debug)]
        pub enum MultipartError {
            /// A part is larger than its limit, in bytes.
            TooLarge { limit: u64 },
            /// Not a multipart body, an ill-formed one, or parts the form does not define.
            Invalid(RequestError),
        }

        /// The largest text part of a multipart body, in bytes.
        pub const MULTIPART_TEXT_LIMIT: u64 = 64 * 1024;

        fn multipart_problem(kind: ProblemKind) -> MultipartError {
            MultipartError::Invalid(RequestError::new(vec![Problem { field: "form".to_string(), kind }]))
        }

        fn multer_error(error: multer::Error) -> MultipartError {
            match error {
                multer::Error::FieldSizeExceeded { limit, .. } | multer::Error::StreamSizeExceeded { limit } => {
                    MultipartError::TooLarge { limit }
                }
                other => multipart_problem(ProblemKind::InvalidMultipart(other.to_string())),
            }
        }

        /// Splits a `multipart/form-data` body (already read, within the route's limit) into its
        /// parts: the part named `file` of at most `max_file` bytes, the others of at most
        /// [`MULTIPART_TEXT_LIMIT`] and UTF-8. A part that is none of `fields` is a problem
        /// ("Unknown field.") when the form is `closed`, skipped otherwise.
        pub async fn multipart(headers: &warp::http::HeaderMap, body: bytes::Bytes, file: &str, max_file: u64, fields: &[&str], closed: bool) -> Result<MultipartForm, MultipartError> {
            const MULTIPART: &str = "multipart/form-data";
            let content_type = headers.get(warp::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
            let media = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            let boundary = match multer::parse_boundary(content_type) {
                Ok(boundary) if media == MULTIPART => boundary,
                _ => return Err(multipart_problem(ProblemKind::MediaType(MULTIPART))),
            };
            let limits = multer::SizeLimit::new().per_field(MULTIPART_TEXT_LIMIT).for_field(file, max_file);
            let stream = futures::stream::once(async move { Ok::<bytes::Bytes, std::convert::Infallible>(body) });
            let mut reader = multer::Multipart::with_constraints(stream, boundary, multer::Constraints::new().size_limit(limits));
            let mut form = MultipartForm::default();
            let mut problems = Vec::new();
            while let Some(part) = reader.next_field().await.map_err(multer_error)? {
                let Some(name) = part.name().map(str::to_string) else {
                    return Err(multipart_problem(ProblemKind::InvalidMultipart("a part has no name".to_string())));
                };
                if name == file {
                    let file_name = part.file_name().map(str::to_string);
                    let content_type = part.content_type().map(|m| m.to_string());
                    let bytes = part.bytes().await.map_err(multer_error)?;
                    form.files.push((name, FilePart { file_name, content_type, bytes }));
                } else if !fields.contains(&name.as_str()) {
                    if closed {
                        problem(&mut problems, name, ProblemKind::Unknown);
                    }
                } else {
                    let bytes = part.bytes().await.map_err(multer_error)?;
                    match String::from_utf8(bytes.to_vec()) {
                        Ok(text) => form.texts.push((name, text)),
                        Err(_) => problem(&mut problems, name, ProblemKind::Invalid(Expected::String)),
                    }
                }
            }
            if !problems.is_empty() {
                return Err(MultipartError::Invalid(RequestError::new(problems)));
            }
            Ok(form)
        }

        /// The file part `name`: `Some(None)` when absent, `None` once a problem is recorded
        /// (sent more than once).
        pub fn multipart_file(form: &MultipartForm, name: &str, problems: &mut Vec<Problem>) -> Option<Option<FilePart>> {
            let mut files = form.files.iter().filter(|(n, _)| n == name).map(|(_, f)| f);
            match (files.next(), files.next()) {
                (None, _) => Some(None),
                (Some(file), None) => Some(Some(file.clone())),
                (Some(_), Some(_)) => {
                    problem(problems, name.to_string(), ProblemKind::Repeated);
                    None
                }
            }
        }
    }
}
