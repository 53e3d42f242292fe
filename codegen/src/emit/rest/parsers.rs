//! The parsers of the types read from request bodies: `from_json` / `from_json_value` of JSON
//! objects and `from_form` / `from_pairs` of forms, every problem reported per field.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::lines;
use super::request::{flat_field, noun, opt_usize};
use super::types::{Types, default_value};
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

impl Types {
    /// The parsers of the types read from request bodies (and of the types inside them).
    pub(super) fn parsers(&mut self) -> Result<(), Error> {
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
        Ok(self.object(name)?.0)
    }

    /// An object schema's properties, and whether it is closed (`additionalProperties: false`).
    fn object(&self, name: &str) -> Result<(Vec<Property>, bool), Error> {
        match self.named.get(name).map(|s| &s.kind) {
            Some(SchemaKind::Object {
                properties,
                additional: None,
                closed,
            }) => Ok((properties.clone(), *closed)),
            _ => Err(Error::new(format!("`{name}` is not an object schema"))),
        }
    }

    /// `from_json` and `from_json_value` of an object type.
    fn json_parser(&mut self, name: &str) -> Result<TokenStream, Error> {
        let ident = format_ident!("{name}");
        let mut fields = Vec::new();
        let (properties, closed) = self.object(name)?;
        // A closed object reports each member it does not define (the reference's "Unknown
        // field."), so that a misspelt optional field is not silently ignored.
        let unknown = if closed {
            let known: Vec<&str> = properties.iter().map(|p| p.name.as_str()).collect();
            quote! {
                for key in object.keys().filter(|k| ![#(#known),*].contains(&k.as_str())) {
                    rt::problem(problems, rt::join(at, key), ProblemKind::Unknown);
                }
            }
        } else {
            quote!()
        };
        for p in properties {
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
                    #unknown
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
