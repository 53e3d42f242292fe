//! The arguments structs of resolved fields: their names (`{Type}{Field}Args`), the check that
//! no two of them, and no type of the SDL, share one, and their code.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::rust_type;
use crate::Error;
use crate::emit::{camel, snake};
use crate::model::graphql::*;

/// The name of the arguments struct of a field: `{Type}{Field}Args`, the object type's name then
/// the field's name in upper camel case (`Activities.logActivity` → `ActivitiesLogActivityArgs`).
/// Two fields could still meet on one name (`AB.c` and `A.bC`), or a name could be a type of the
/// SDL: [`check_args_names`] refuses such a contract, so a generated name is never taken twice.
pub fn args_name(type_name: &str, field: &Field) -> String {
    format!("{type_name}{}Args", camel(&field.name))
}

/// Refuses a contract in which two arguments structs, or an arguments struct and a type of the
/// SDL, would have the same name.
pub(super) fn check_args_names(schema: &Schema) -> Result<(), Error> {
    let mut taken: std::collections::BTreeMap<String, String> = schema
        .types
        .iter()
        .map(|t| (t.name().to_string(), format!("the type `{}`", t.name())))
        .collect();
    for def in &schema.types {
        let TypeDef::Object(o) = def else { continue };
        for f in o.fields.iter().filter(|f| !f.arguments.is_empty()) {
            let name = args_name(&o.name, f);
            let owner = format!("the arguments of `{}.{}`", o.name, f.name);
            if let Some(other) = taken.insert(name.clone(), owner.clone()) {
                return Err(Error::new(format!(
                    "{owner} and {other} would both be the Rust type `{name}`: rename one of them"
                )));
            }
        }
    }
    Ok(())
}

/// A default in GraphQL syntax, for the documentation of an arguments struct's field.
fn graphql_literal(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Number(n) => n.clone(),
        Value::String(s) => serde_json::to_string(s).expect("a string serializes"),
        Value::List(items) => format!("[{}]", items.iter().map(graphql_literal).collect::<Vec<_>>().join(", ")),
        Value::Enum(e) => e.clone(),
    }
}

/// The arguments struct of a resolved field with arguments: one field per argument, with the
/// Rust type of the wrapper's parameter, documented with the argument's description and default.
/// Every argument type is a scalar (each custom one is `Clone + Debug`), an enum or an input
/// object (both derived `Clone, Debug` here), or a list or option of those, so the derive holds.
fn args_struct(type_name: &str, f: &Field) -> TokenStream {
    let ident = format_ident!("{}", args_name(type_name, f));
    let struct_doc = format!(
        "The arguments of `{type_name}.{}`, which its resolver receives whole. Named \
         `{{Type}}{{Field}}Args`; the generator refuses a contract in which such a name is taken twice.",
        f.name
    );
    let fields = f.arguments.iter().map(|a| {
        let mut lines: Vec<String> = a.description.iter().cloned().collect();
        if let Some(default) = &a.default {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(format!("Default: {}.", graphql_literal(default)));
        }
        let field = snake(&a.name);
        let ty = rust_type(&a.ty);
        quote! {
            #(#[doc = #lines])*
            pub #field: #ty,
        }
    });
    quote! {
        #[doc = #struct_doc]
        #[derive(Debug, Clone)]
        pub struct #ident {
            #(#fields)*
        }
    }
}

/// The arguments structs of the resolved fields that take arguments.
pub(super) fn args_structs(type_name: &str, fields: &[&Field]) -> TokenStream {
    let structs = fields
        .iter()
        .filter(|f| !f.arguments.is_empty())
        .map(|f| args_struct(type_name, f));
    quote!(#(#structs)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_documented_in_graphql_syntax() {
        let list = Value::List(vec![
            Value::String("a \"b\"".into()),
            Value::Null,
            Value::Enum("ROAD".into()),
            Value::Boolean(false),
            Value::Number("1.5".into()),
        ]);
        assert_eq!(graphql_literal(&list), r#"["a \"b\"", null, ROAD, false, 1.5]"#);
    }

    #[test]
    fn args_names_join_the_type_and_the_field() {
        let field = Field {
            name: "logActivity".into(),
            description: None,
            ty: TypeRef {
                base: Base::Named("Int".into(), Kind::BuiltinScalar),
                nullable: true,
            },
            arguments: Vec::new(),
            resolution: Resolution::Resolver,
        };
        assert_eq!(args_name("Activities", &field), "ActivitiesLogActivityArgs");
    }
}
