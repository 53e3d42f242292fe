//! The REST contract as the generator sees it: the operations of the OpenAPI document with their
//! parameters, bodies and documented responses, the named schemas, and the security schemes.

/// A parsed and checked OpenAPI document.
#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    pub operations: Vec<Operation>,
    /// `components/schemas`, in document order.
    pub schemas: Vec<NamedSchema>,
    /// `components/securitySchemes` that some operation requires (no anonymous alternative).
    pub required_schemes: Vec<SecurityScheme>,
}

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
    Patch,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Patch => "PATCH",
        }
    }
}

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub id: String,
    pub method: Method,
    pub path: String,
    /// The summary, or else the description.
    pub summary: String,
    pub query: Vec<Parameter>,
    pub body: Option<RequestBody>,
    /// Documented responses, by status.
    pub responses: Vec<Response>,
    /// The security scheme the operation requires, checked before the request is validated.
    pub security: Option<String>,
    /// `x-roadlog-invalid-request-status`: the documented status of a request that fails validation.
    pub invalid_request_status: Option<u16>,
    /// `x-roadlog-as-sent`: parameters and form fields reach the handler as sent (every
    /// occurrence, required-ness and enum values unchecked); the handler reports them.
    pub as_sent: bool,
}

/// A query parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
    pub schema: Schema,
}

/// How a request body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEncoding {
    /// `application/json`.
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `multipart/form-data`, of an inline object schema: exactly one file part (a
    /// `format: binary` property, whose `maxLength` is `max_file_size`, in bytes) and text fields.
    Multipart { max_file_size: u64 },
}

/// A request body.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestBody {
    pub encoding: BodyEncoding,
    pub required: bool,
    pub schema: Schema,
}

/// A documented response.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub description: String,
    pub content: Option<Content>,
    pub headers: Vec<Header>,
}

/// The body of a response: its media type and schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    pub media_type: String,
    pub schema: Schema,
    /// Binary bodies only (`x-roadlog-streamed`): sent as they are produced, with no
    /// `Content-Length`; the handler hands over a stream of chunks.
    pub streamed: bool,
}

/// A documented response header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
    pub schema: Schema,
}

/// A schema of `components/schemas`.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedSchema {
    pub name: String,
    pub schema: Schema,
}

/// The subset of JSON Schema the generator compiles.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub kind: SchemaKind,
    pub description: Option<String>,
    /// A short name of the value, used in messages (`title`).
    pub title: Option<String>,
    pub nullable: bool,
    pub default: Option<serde_json::Value>,
}

/// The type of a schema.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaKind {
    /// `$ref: '#/components/schemas/<name>'`.
    Ref(String),
    Boolean,
    Integer(IntegerFormat),
    Number,
    String(StringFormat),
    /// A string with `enum` values.
    Enum(Vec<String>),
    Array {
        items: Box<Schema>,
        min_items: Option<usize>,
        max_items: Option<usize>,
    },
    Object {
        properties: Vec<Property>,
        /// `additionalProperties` with a schema: a map.
        additional: Option<Box<Schema>>,
        /// `additionalProperties: false`: a member the object does not define is a problem of
        /// the request ("Unknown field."), where by default it is ignored.
        closed: bool,
    },
}

/// The format of an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerFormat {
    Int32,
    Int64,
}

/// The format of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringFormat {
    Plain,
    /// `YYYY-MM-DD`.
    Date,
    /// Raw bytes (`format: binary`).
    Binary,
}

/// A property of an object schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub required: bool,
    pub schema: Schema,
}

/// A security scheme an operation requires.
#[derive(Debug, Clone, PartialEq)]
pub struct SecurityScheme {
    pub name: String,
    pub description: Option<String>,
    pub kind: SecurityKind,
    /// The body schema (a `$ref` name) of the 401 every operation requiring it documents.
    pub unauthorized_body: String,
}

/// The kinds of security scheme the generator checks itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecurityKind {
    /// `type: http, scheme: bearer`: `Authorization: Bearer <token>`.
    Bearer,
}
