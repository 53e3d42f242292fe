//! The schemas as Rust types in the generated `mod types`: named schemas, inline objects and enums
//! named after where they appear, and the Rust expression of a schema default.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::lines_of;
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::rest::*;

/// The schemas as Rust types: the named ones, and the inline ones named after where they appear.
pub(super) struct Types {
    /// Items of `mod types`.
    pub(super) items: Vec<TokenStream>,
    /// Items emitted beside the operations (as-sent forms).
    pub(super) extra: Vec<TokenStream>,
    /// Every named type and its schema (components, and inline objects and enums).
    pub(super) named: BTreeMap<String, Schema>,
    /// Types defined so far.
    defined: BTreeSet<String>,
    /// Object types read from JSON bodies, and from forms.
    pub(super) json_parsers: BTreeSet<String>,
    pub(super) form_parsers: BTreeSet<String>,
}

impl Types {
    pub(super) fn new(api: &Api) -> Self {
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
    pub(super) fn resolve<'s>(&'s self, schema: &'s Schema) -> &'s Schema {
        match &schema.kind {
            SchemaKind::Ref(name) => self.named.get(name).unwrap_or(schema),
            _ => schema,
        }
    }

    /// The name of the object type a schema is (a `$ref` to one, or an inline one named `hint`).
    pub(super) fn object_name(&self, hint: &str, schema: &Schema) -> Option<String> {
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
    pub(super) fn rust_type(&mut self, hint: &str, schema: &Schema) -> Result<TokenStream, Error> {
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
                ..
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
    pub(super) fn define(&mut self, name: &str, schema: &Schema) -> Result<(), Error> {
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
                ..
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
}

/// The Rust expression of a schema default.
pub(super) fn default_value(
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
