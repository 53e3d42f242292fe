//! [`Schema`] → the async-graphql server code: one Rust type per GraphQL type, one resolver trait
//! per type with resolved fields, one arguments struct per resolved field that takes arguments
//! (which its resolver receives whole), the async-graphql wrappers with the exact SDL names, and
//! the registry of trait implementations.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{camel, doc, pretty, snake};
use crate::Error;
use crate::model::graphql::*;

mod args;

pub use args::args_name;
use args::{args_structs, check_args_names};

/// Where hand-written custom scalars live; the generated code refers to them by this path, so a
/// scalar declared in the SDL without an implementation is a compile error.
const SCALARS_MODULE: &str = "crate::graphql::scalars";

/// The server code of a schema, formatted.
pub fn emit(schema: &Schema) -> Result<String, Error> {
    pretty(tokens(schema)?)
}

/// The server code of a schema, as tokens.
pub fn tokens(schema: &Schema) -> Result<TokenStream, Error> {
    tokens_sharing(schema, None)
}

/// Types a schema takes from another one already generated: its model and the Rust path of
/// its generated module.
#[derive(Clone, Copy)]
pub struct Shared<'a> {
    pub schema: &'a Schema,
    pub module: &'a str,
}

/// The server code of a schema that shares types with another one (the vendors' `/protected`
/// schema shares `Company`, `Employment`, … with the public one): a type defined in both must
/// be identical there, and is re-exported from the other's module instead of generated again,
/// so that one Rust type and one set of resolvers serve both schemas. The schema built from
/// this code needs the other schema's `Resolvers` in its data too.
pub fn emit_sharing(schema: &Schema, shared: Shared<'_>) -> Result<String, Error> {
    pretty(tokens_sharing(schema, Some(shared))?)
}

fn tokens_sharing(schema: &Schema, shared: Option<Shared<'_>>) -> Result<TokenStream, Error> {
    check_args_names(schema)?;
    let mut items = vec![prelude()];
    let mut own = Vec::new();
    for def in &schema.types {
        let theirs = shared.and_then(|s| s.schema.types.iter().find(|t| t.name() == def.name()).map(|t| (s, t)));
        if let Some((shared, theirs)) = theirs {
            if theirs != def {
                return Err(Error::new(format!(
                    "`{}` differs from its definition in the shared schema: a shared type must be identical in both",
                    def.name()
                )));
            }
            // A scalar is referred to by its hand-written path; its description impl exists once.
            if !matches!(def, TypeDef::Scalar(_)) {
                let path: syn::Path = syn::parse_str(shared.module)
                    .map_err(|e| Error::new(format!("`{}` is not a Rust path: {e}", shared.module)))?;
                let ident = format_ident!("{}", def.name());
                items.push(quote!(pub use #path::#ident;));
            }
            continue;
        }
        own.push(def.clone());
        items.push(match def {
            TypeDef::Scalar(s) => scalar_description(s),
            TypeDef::Enum(e) => enumeration(e),
            TypeDef::Input(i) => input(i)?,
            TypeDef::Object(o) => object(o)?,
        });
    }
    let unreachable = schema.unreachable_objects();
    items.push(registry(
        &Schema {
            types: own,
            ..schema.clone()
        },
        &unreachable,
    ));
    Ok(quote!(#(#items)*))
}

fn prelude() -> TokenStream {
    quote! {
        use std::sync::Arc;
        use async_graphql::{Context, ComplexObject, Enum, InputObject, Object, SimpleObject};

        /// Records an error on a nullable field and answers `null`, as GraphQL asks: the rest of the
        /// response is still returned. async-graphql alone would drop the field instead.
        fn null_on_error<T>(ctx: &Context<'_>, result: async_graphql::Result<Option<T>>) -> async_graphql::Result<Option<T>> {
            match result {
                Ok(value) => Ok(value),
                Err(error) => {
                    ctx.add_error(ctx.set_error_path(error.into_server_error(ctx.item.pos)));
                    Ok(None)
                }
            }
        }
    }
}

fn scalars_path(name: &str) -> TokenStream {
    let name = format_ident!("{name}");
    let path: syn::Path = syn::parse_str(SCALARS_MODULE).expect("a path");
    quote!(#path::#name)
}

/// The Rust type of a GraphQL type reference, nullability kept exactly.
fn rust_type(ty: &TypeRef) -> TokenStream {
    let base = match &ty.base {
        Base::Named(name, kind) => match (name.as_str(), kind) {
            ("Int", _) => quote!(i32),
            ("Float", _) => quote!(f64),
            ("String", _) => quote!(String),
            ("Boolean", _) => quote!(bool),
            ("ID", _) => quote!(async_graphql::ID),
            (other, Kind::Scalar) => scalars_path(other),
            (other, _) => {
                let other = format_ident!("{other}");
                quote!(#other)
            }
        },
        Base::List(inner) => {
            let inner = rust_type(inner);
            quote!(Vec<#inner>)
        }
    };
    if ty.nullable { quote!(Option<#base>) } else { base }
}

/// The Rust expression of a default, for `#[graphql(default_with = …)]` (a string of Rust).
fn default_expr(ty: &TypeRef, value: &Value) -> Result<String, Error> {
    let inner = match value {
        Value::Null => return Ok("None".into()),
        Value::Boolean(b) => b.to_string(),
        Value::Number(n) => n.clone(),
        Value::String(s) => format!("{s:?}.to_string()"),
        Value::List(items) => {
            let Base::List(item_ty) = &ty.base else {
                return Err(Error::new("a list default on a non-list argument"));
            };
            let items: Result<Vec<String>, Error> = items.iter().map(|v| default_expr(item_ty, v)).collect();
            format!("vec![{}]", items?.join(", "))
        }
        Value::Enum(e) => format!("{}::{}", ty.named().0, camel(e)),
    };
    Ok(if ty.nullable { format!("Some({inner})") } else { inner })
}

/// The description of a hand-written scalar comes from the SDL, so that it cannot drift: the
/// scalar declares `use_type_description` and this impl supplies the text.
fn scalar_description(scalar: &Scalar) -> TokenStream {
    let path = scalars_path(&scalar.name);
    let text = scalar.description.clone().unwrap_or_default();
    quote! {
        impl async_graphql::Description for #path {
            fn description() -> &'static str { #text }
        }
    }
}

fn enumeration(e: &Enum) -> TokenStream {
    let name = &e.name;
    let ident = format_ident!("{name}");
    let docs = doc(&e.description);
    let values = e.values.iter().map(|v| {
        let docs = doc(&v.description);
        let wire = &v.name;
        let variant = camel(wire);
        quote! {
            #docs
            #[graphql(name = #wire)]
            #variant,
        }
    });
    quote! {
        #docs
        #[derive(Enum, Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[graphql(name = #name, rename_items = "SCREAMING_SNAKE_CASE")]
        pub enum #ident {
            #(#values)*
        }
    }
}

fn input(i: &Input) -> Result<TokenStream, Error> {
    let name = &i.name;
    let ident = format_ident!("{name}");
    let docs = doc(&i.description);
    let mut fields = Vec::new();
    for f in &i.fields {
        let docs = doc(&f.description);
        let wire = &f.name;
        let attr = match &f.default {
            Some(default) => {
                let expr = default_expr(&f.ty, default)?;
                quote!(#[graphql(name = #wire, default_with = #expr)])
            }
            None => quote!(#[graphql(name = #wire)]),
        };
        let field = snake(wire);
        let ty = rust_type(&f.ty);
        fields.push(quote! {
            #docs
            #attr
            pub #field: #ty,
        });
    }
    Ok(quote! {
        #docs
        #[derive(InputObject, Clone, Debug)]
        #[graphql(name = #name)]
        pub struct #ident {
            #(#fields)*
        }
    })
}

fn trait_ident(name: &str) -> proc_macro2::Ident {
    format_ident!("{name}Resolver")
}

/// A plain-data struct field.
fn data_field(f: &Field) -> TokenStream {
    let docs = doc(&f.description);
    let wire = &f.name;
    let field = snake(wire);
    let ty = rust_type(&f.ty);
    quote! {
        #docs
        #[graphql(name = #wire)]
        pub #field: #ty,
    }
}

fn object(o: &Object) -> Result<TokenStream, Error> {
    let name = &o.name;
    let ident = format_ident!("{name}");
    let docs = doc(&o.description);
    Ok(match o.role {
        Role::Value => {
            let fields = o.fields.iter().map(data_field);
            quote! {
                #docs
                #[derive(SimpleObject, Clone, Debug)]
                #[graphql(name = #name)]
                pub struct #ident {
                    #(#fields)*
                }
            }
        }
        Role::Entity => {
            let resolved: Vec<&Field> = o.resolved().collect();
            let fields = o
                .fields
                .iter()
                .filter(|f| f.resolution == Resolution::Data)
                .map(data_field);
            let attr = if resolved.is_empty() {
                quote!(#[graphql(name = #name)])
            } else {
                quote!(#[graphql(name = #name, complex)])
            };
            let mut code = quote! {
                #docs
                #[derive(SimpleObject, Clone, Debug)]
                #attr
                pub struct #ident {
                    #(#fields)*
                }
            };
            if !resolved.is_empty() {
                code.extend(resolver_trait(name, &resolved, true));
                let methods = resolved
                    .iter()
                    .map(|f| wrapper_method(name, f, true))
                    .collect::<Result<Vec<_>, _>>()?;
                code.extend(quote! {
                    #[ComplexObject]
                    impl #ident {
                        #(#methods)*
                    }
                });
            }
            code
        }
        Role::Service => {
            let resolved: Vec<&Field> = o.resolved().collect();
            let mut code = quote! {
                #docs
                #[derive(Clone, Copy, Debug, Default)]
                pub struct #ident;
            };
            if !resolved.is_empty() {
                code.extend(resolver_trait(name, &resolved, false));
            }
            let mut methods = Vec::new();
            for f in &o.fields {
                if f.resolution == Resolution::Namespace {
                    let docs = doc(&f.description);
                    let wire = &f.name;
                    let field = snake(wire);
                    let target = format_ident!("{}", f.ty.named().0);
                    let value = if f.ty.nullable {
                        quote!(Some(#target))
                    } else {
                        quote!(#target)
                    };
                    let ty = rust_type(&f.ty);
                    methods.push(quote! {
                        #docs
                        #[graphql(name = #wire)]
                        async fn #field(&self) -> #ty { #value }
                    });
                } else {
                    methods.push(wrapper_method(name, f, false)?);
                }
            }
            code.extend(quote! {
                #docs
                #[Object(name = #name)]
                impl #ident {
                    #(#methods)*
                }
            });
            code
        }
    })
}

fn resolver_trait(name: &str, fields: &[&Field], with_parent: bool) -> TokenStream {
    let trait_doc = format!("Resolvers of the fields of `{name}` that are not plain data.");
    let trait_name = trait_ident(name);
    let parent_ty = format_ident!("{name}");
    let parent = with_parent.then(|| quote!(, parent: &#parent_ty));
    let methods = fields.iter().map(|f| {
        let docs = doc(&f.description);
        let method = snake(&f.name);
        let args = (!f.arguments.is_empty()).then(|| {
            let ty = format_ident!("{}", args_name(name, f));
            quote!(, args: #ty)
        });
        let ret = rust_type(&f.ty);
        quote! {
            #docs
            async fn #method(&self, ctx: &Context<'_> #parent #args) -> async_graphql::Result<#ret>;
        }
    });
    let structs = args_structs(name, fields);
    quote! {
        #structs
        #[doc = #trait_doc]
        #[async_trait::async_trait]
        pub trait #trait_name: Send + Sync + 'static {
            #(#methods)*
        }
    }
}

fn wrapper_method(name: &str, f: &Field, with_parent: bool) -> Result<TokenStream, Error> {
    let docs = doc(&f.description);
    let wire = &f.name;
    let method = snake(wire);
    let mut params = Vec::new();
    let mut call = vec![quote!(ctx)];
    if with_parent {
        call.push(quote!(self));
    }
    let mut fields = Vec::new();
    for a in &f.arguments {
        let arg_name = &a.name;
        let mut attr = quote!(name = #arg_name);
        if let Some(d) = &a.description {
            attr.extend(quote!(, desc = #d));
        }
        if let Some(default) = &a.default {
            let expr = default_expr(&a.ty, default)?;
            attr.extend(quote!(, default_with = #expr));
        }
        let arg = snake(arg_name);
        let ty = rust_type(&a.ty);
        params.push(quote!(, #[graphql(#attr)] #arg: #ty));
        fields.push(arg);
    }
    // async-graphql reads the arguments one by one (their names, descriptions and defaults stay
    // those of the SDL); the resolver gets them as one struct.
    if !fields.is_empty() {
        let args = format_ident!("{}", args_name(name, f));
        call.push(quote!(#args { #(#fields),* }));
    }
    let ret = rust_type(&f.ty);
    let registry_field = snake(name);
    let resolver = quote!(ctx.data_unchecked::<Resolvers>().#registry_field.#method(#(#call),*).await);
    let body = if f.ty.nullable {
        quote!(null_on_error(ctx, #resolver))
    } else {
        resolver
    };
    Ok(quote! {
        #docs
        #[graphql(name = #wire)]
        async fn #method(&self, ctx: &Context<'_> #(#params)*) -> async_graphql::Result<#ret> { #body }
    })
}

fn registry(schema: &Schema, unreachable: &[String]) -> TokenStream {
    let unreachable: Vec<_> = unreachable.iter().map(|name| format_ident!("{name}")).collect();
    let mut with_traits: Vec<&Object> = schema
        .types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Object(o) if o.has_trait() => Some(o),
            _ => None,
        })
        .collect();
    with_traits.sort_by(|a, b| a.name.cmp(&b.name));
    let members: Vec<_> = with_traits.iter().map(|o| snake(&o.name)).collect();
    let traits: Vec<_> = with_traits.iter().map(|o| trait_ident(&o.name)).collect();
    let query = format_ident!("{}", schema.query);
    let mutation = match &schema.mutation {
        Some(m) => {
            let m = format_ident!("{m}");
            quote!(#m)
        }
        None => quote!(async_graphql::EmptyMutation),
    };
    quote! {
        /// The implementations of every resolver trait, placed in the schema's data.
        #[derive(Clone)]
        pub struct Resolvers {
            #(pub #members: Arc<dyn #traits>,)*
        }
        /// Every resolver trait of the schema: one type implementing them all serves the whole API.
        pub trait AllResolvers: #(#traits)+* {}
        impl<T: #(#traits)+*> AllResolvers for T {}
        impl Resolvers {
            /// Uses one implementation for every trait.
            pub fn from_impl<T: AllResolvers>(implementation: Arc<T>) -> Self {
                Self {
                    #(#members: implementation.clone(),)*
                }
            }
        }
        /// The schema type of the contract.
        pub type ContractSchema = async_graphql::Schema<#query, #mutation, async_graphql::EmptySubscription>;
        /// Starts a schema builder with the generated roots, the object types no field returns (registered so that the served schema is the SDL), and the resolvers in its data.
        pub fn schema_builder(resolvers: Resolvers) -> async_graphql::SchemaBuilder<#query, #mutation, async_graphql::EmptySubscription> {
            async_graphql::Schema::build(#query, #mutation, async_graphql::EmptySubscription)
                #(.register_output_type::<#unreachable>())*
                .data(resolvers)
        }
    }
}
