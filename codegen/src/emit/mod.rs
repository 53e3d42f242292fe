//! The emitters: Rust tokens built with `quote!`, formatted with prettyplease.

pub mod graphql;
pub mod rest;

use proc_macro2::{Ident, Span, TokenStream};

use crate::Error;

/// Formats generated tokens the way a person would write them, so that `generated/` is reviewable.
pub fn pretty(tokens: TokenStream) -> Result<String, Error> {
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| Error::new(format!("the generated code does not parse: {e}")))?;
    Ok(prettyplease::unparse(&file))
}

/// The Rust spelling (snake case) of a GraphQL or OpenAPI name, keywords written raw.
pub fn snake(name: &str) -> Ident {
    word(&heck::ToSnakeCase::to_snake_case(name))
}

/// The Rust spelling of a type or variant name (upper camel case).
pub fn camel(name: &str) -> Ident {
    word(&heck::ToUpperCamelCase::to_upper_camel_case(name))
}

fn word(text: &str) -> Ident {
    match text {
        // Keywords that cannot even be raw identifiers.
        "self" | "super" | "crate" | "Self" | "_" => Ident::new(&format!("{text}_"), Span::call_site()),
        "type" | "match" | "ref" | "mod" | "fn" | "impl" | "use" | "where" | "loop" | "move" | "static" | "struct"
        | "trait" | "enum" | "async" | "await" | "dyn" | "box" | "in" | "for" | "if" | "else" | "let" | "mut"
        | "pub" | "return" | "true" | "false" | "const" | "extern" | "unsafe" | "while" | "break" | "continue"
        | "as" | "yield" | "macro" | "gen" | "try" | "abstract" | "become" | "do" | "final" | "override" | "priv"
        | "typeof" | "unsized" | "virtual" => Ident::new_raw(text, Span::call_site()),
        _ => Ident::new(text, Span::call_site()),
    }
}

/// `#[doc = …]` attributes of an optional description.
pub fn doc(description: &Option<String>) -> TokenStream {
    match description {
        Some(text) => quote::quote!(#[doc = #text]),
        None => TokenStream::new(),
    }
}
