//! The GraphQL contract as the generator sees it: every type of the SDL in document order, with
//! the role the generator gives each object type and the way each field is produced.

/// A parsed and checked SDL document.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// The query root type.
    pub query: String,
    /// The mutation root type, if any.
    pub mutation: Option<String>,
    /// Every type definition, in the order of the document.
    pub types: Vec<TypeDef>,
}

impl Schema {
    /// The object types no field leads to from the roots (the reference's `Address`, which it
    /// declares and no field returns): async-graphql leaves them out of the schema unless they are
    /// registered, and the SDL is what is served.
    pub fn unreachable_objects(&self) -> Vec<String> {
        let objects: std::collections::BTreeMap<&str, &Object> = self
            .types
            .iter()
            .filter_map(|t| match t {
                TypeDef::Object(o) => Some((o.name.as_str(), o)),
                _ => None,
            })
            .collect();
        let mut reached = std::collections::BTreeSet::new();
        let mut next: Vec<&str> = std::iter::once(self.query.as_str())
            .chain(self.mutation.as_deref())
            .collect();
        while let Some(name) = next.pop() {
            if !reached.insert(name) {
                continue;
            }
            if let Some(object) = objects.get(name) {
                next.extend(object.fields.iter().filter_map(|f| match f.ty.named() {
                    (named, Kind::Object) => Some(named),
                    _ => None,
                }));
            }
        }
        self.types
            .iter()
            .filter_map(|t| match t {
                TypeDef::Object(o) if !reached.contains(o.name.as_str()) => Some(o.name.clone()),
                _ => None,
            })
            .collect()
    }
}

/// One type definition of the SDL.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeDef {
    Scalar(Scalar),
    Object(Object),
    Input(Input),
    Enum(Enum),
}

impl TypeDef {
    /// The GraphQL name.
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Scalar(s) => &s.name,
            TypeDef::Object(o) => &o.name,
            TypeDef::Input(i) => &i.name,
            TypeDef::Enum(e) => &e.name,
        }
    }
}

/// A custom scalar: implemented by hand, its description supplied from the SDL.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    pub name: String,
    pub description: Option<String>,
    /// The URL of its `@specifiedBy` directive: the specification of its format.
    pub specified_by: Option<String>,
}

/// How the generator treats an object type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// A root operation type or a mutation namespace: every field is resolved by a trait.
    Service,
    /// A type with an `id` field: plain fields are data, the others resolved by a trait that
    /// receives the parent object.
    Entity,
    /// A type without `id` (connections, edges, outputs): all fields are plain data.
    Value,
}

/// How one field of an object type gets its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Resolution {
    /// A struct field.
    Data,
    /// A method of the type's resolver trait.
    Resolver,
    /// A mutation namespace: the field answers the namespace's unit value.
    Namespace,
}

/// An object type.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub name: String,
    pub description: Option<String>,
    pub role: Role,
    pub fields: Vec<Field>,
}

impl Object {
    /// The fields resolved by the type's trait.
    pub fn resolved(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.resolution == Resolution::Resolver)
    }

    /// Whether the type has a resolver trait (and so a member of the `Resolvers` registry).
    pub fn has_trait(&self) -> bool {
        self.role != Role::Value && self.resolved().next().is_some()
    }
}

/// A field of an object type.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub description: Option<String>,
    pub ty: TypeRef,
    pub arguments: Vec<InputValue>,
    pub resolution: Resolution,
}

/// An argument, or a field of an input type.
#[derive(Debug, Clone, PartialEq)]
pub struct InputValue {
    pub name: String,
    pub description: Option<String>,
    pub ty: TypeRef,
    pub default: Option<Value>,
}

/// An input object type.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub name: String,
    pub description: Option<String>,
    pub fields: Vec<InputValue>,
}

/// An enum type.
#[derive(Debug, Clone, PartialEq)]
pub struct Enum {
    pub name: String,
    pub description: Option<String>,
    pub values: Vec<EnumValue>,
}

/// A value of an enum type.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumValue {
    pub name: String,
    pub description: Option<String>,
}

/// A type reference, nullability kept exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRef {
    pub base: Base,
    pub nullable: bool,
}

/// The base of a type reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Base {
    /// A named type, and what kind of type that name is.
    Named(String, Kind),
    /// A list of another type reference.
    List(Box<TypeRef>),
}

/// What a named type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Int`, `Float`, `String`, `Boolean` or `ID`.
    BuiltinScalar,
    /// A custom scalar of the SDL.
    Scalar,
    Object,
    Input,
    Enum,
}

impl TypeRef {
    /// The named type at the bottom of lists.
    pub fn named(&self) -> (&str, Kind) {
        match &self.base {
            Base::Named(name, kind) => (name, *kind),
            Base::List(inner) => inner.named(),
        }
    }
}

/// A constant value (argument and input-field defaults).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Boolean(bool),
    /// A number, as written.
    Number(String),
    String(String),
    List(Vec<Value>),
    Enum(String),
}
