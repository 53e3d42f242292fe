//! Snapshot tests of the generator: its output for small fixture contracts (`fixtures/`), what it
//! understands of the real contract (`schema/`, `openapi/`), the messages of the contracts it
//! refuses, and the agreement of its output with the committed `generated/` files.
//!
//! Review a change with `cargo insta review` (or `INSTA_UPDATE=always cargo test -p roadlog-codegen`
//! and `git diff`); the snapshots live in `tests/snapshots/`.

use std::fmt::Write as _;

use roadlog_codegen::model::graphql::{Resolution, Schema, TypeDef};
use roadlog_codegen::model::rest::{Api, Schema as JsonSchema, SchemaKind};

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn rest_model(text: &str) -> Api {
    let spec = roadlog_codegen::openapi_document(text).unwrap();
    roadlog_codegen::parse::openapi::parse(&spec).unwrap()
}

#[test]
fn graphql_server_of_the_fixture() {
    let code = roadlog_codegen::graphql_server(include_str!("fixtures/small.graphql")).unwrap();
    insta::assert_snapshot!(code);
}

/// A schema sharing types with another: the shared ones are re-exported from the other's
/// module, only its own get code and a registry.
#[test]
fn graphql_server_sharing_types_with_the_fixture() {
    let code = roadlog_codegen::graphql_server_sharing(
        include_str!("fixtures/small_shared.graphql"),
        include_str!("fixtures/small.graphql"),
        "crate::small",
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

/// A shared type that drifted from the other schema is refused, by name.
#[test]
fn shared_types_must_be_identical() {
    let drifted = include_str!("fixtures/small_shared.graphql").replace("  name: String!\n", "  name: String\n");
    let error =
        roadlog_codegen::graphql_server_sharing(&drifted, include_str!("fixtures/small.graphql"), "crate::small")
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`Person` differs from its definition in the shared schema: a shared type must be identical in both"
    );
}

#[test]
fn rest_server_of_the_fixture() {
    let code = roadlog_codegen::rest_server(include_str!("fixtures/small.yaml")).unwrap();
    insta::assert_snapshot!(code);
}

/// One line per type and field: what the generator made of an SDL.
fn graphql_summary(schema: &Schema) -> String {
    let mut out = format!("query: {}, mutation: {:?}\n", schema.query, schema.mutation);
    for def in &schema.types {
        match def {
            TypeDef::Scalar(s) => match &s.specified_by {
                Some(url) => writeln!(out, "scalar {} specified by {url}", s.name).unwrap(),
                None => writeln!(out, "scalar {}", s.name).unwrap(),
            },
            TypeDef::Enum(e) => writeln!(
                out,
                "enum {}: {}",
                e.name,
                e.values.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(" ")
            )
            .unwrap(),
            TypeDef::Input(i) => {
                writeln!(out, "input {}", i.name).unwrap();
                for f in &i.fields {
                    writeln!(
                        out,
                        "  {}{}",
                        f.name,
                        if f.default.is_some() { " (default)" } else { "" }
                    )
                    .unwrap();
                }
            }
            TypeDef::Object(o) => {
                writeln!(
                    out,
                    "object {} ({:?}{})",
                    o.name,
                    o.role,
                    if o.has_trait() { ", trait" } else { "" }
                )
                .unwrap();
                for f in &o.fields {
                    let how = match f.resolution {
                        Resolution::Data => "data",
                        Resolution::Resolver => "resolver",
                        Resolution::Namespace => "namespace",
                    };
                    let args: Vec<&str> = f.arguments.iter().map(|a| a.name.as_str()).collect();
                    writeln!(out, "  {}({}) {how}", f.name, args.join(", ")).unwrap();
                }
            }
        }
    }
    out
}

fn schema_text(schema: &JsonSchema) -> String {
    match &schema.kind {
        SchemaKind::Ref(name) => name.clone(),
        SchemaKind::Array {
            items,
            min_items,
            max_items,
        } => {
            format!(
                "[{}]{{{}..{}}}",
                schema_text(items),
                min_items.unwrap_or(0),
                max_items.map(|m| m.to_string()).unwrap_or_default()
            )
        }
        SchemaKind::Enum(values) => format!("enum({})", values.join("|")),
        SchemaKind::Object { properties, .. } => {
            let props: Vec<String> = properties
                .iter()
                .map(|p| {
                    format!(
                        "{}{}: {}",
                        p.name,
                        if p.required { "" } else { "?" },
                        schema_text(&p.schema)
                    )
                })
                .collect();
            format!("{{{}}}", props.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// One block per operation: what the generator made of an OpenAPI document.
fn rest_summary(api: &Api) -> String {
    let mut out = String::new();
    for s in &api.required_schemes {
        writeln!(
            out,
            "security {} {:?}, 401 body {}",
            s.name, s.kind, s.unauthorized_body
        )
        .unwrap();
    }
    for op in &api.operations {
        writeln!(out, "{} {} {}", op.method.as_str(), op.path, op.id).unwrap();
        if let Some(s) = &op.security {
            writeln!(out, "  requires {s}").unwrap();
        }
        if let Some(s) = op.invalid_request_status {
            writeln!(out, "  invalid request: {s}").unwrap();
        }
        if op.as_sent {
            writeln!(out, "  as sent").unwrap();
        }
        for p in &op.query {
            writeln!(
                out,
                "  query {}{}: {}",
                p.name,
                if p.required { "" } else { "?" },
                schema_text(&p.schema)
            )
            .unwrap();
        }
        if let Some(b) = &op.body {
            writeln!(out, "  body {:?}: {}", b.encoding, schema_text(&b.schema)).unwrap();
        }
        for r in &op.responses {
            let body = r
                .content
                .as_ref()
                .map(|c| {
                    format!(
                        " {} {}{}",
                        c.media_type,
                        schema_text(&c.schema),
                        if c.streamed { " streamed" } else { "" }
                    )
                })
                .unwrap_or_default();
            let headers: Vec<&str> = r.headers.iter().map(|h| h.name.as_str()).collect();
            writeln!(out, "  {}{body} [{}]", r.status, headers.join(", ")).unwrap();
        }
    }
    out
}

#[test]
fn model_of_the_real_sdl() {
    let schema = roadlog_codegen::parse::graphql::parse(&repo_file("schema/roadlog.graphql")).unwrap();
    insta::assert_snapshot!(graphql_summary(&schema));
}

#[test]
fn model_of_the_vendors_sdl() {
    let schema = roadlog_codegen::parse::graphql::parse(&repo_file("schema/protected.graphql")).unwrap();
    insta::assert_snapshot!(graphql_summary(&schema));
}

#[test]
fn model_of_the_real_openapi_document() {
    insta::assert_snapshot!(rest_summary(&rest_model(&repo_file("openapi/roadlog.yaml"))));
}

#[test]
fn models_of_the_fixtures() {
    let schema = roadlog_codegen::parse::graphql::parse(include_str!("fixtures/small.graphql")).unwrap();
    insta::assert_snapshot!(format!(
        "{}\n{}",
        graphql_summary(&schema),
        rest_summary(&rest_model(include_str!("fixtures/small.yaml")))
    ));
}

/// The real contract compiles to exactly the committed `generated/` files (the service's own
/// test checks the same from its `OUT_DIR`).
#[test]
fn real_contract_compiles_to_the_committed_snapshot() {
    let generated = roadlog_codegen::generate(
        "schema/roadlog.graphql",
        &repo_file("schema/roadlog.graphql"),
        "openapi/roadlog.yaml",
        &repo_file("openapi/roadlog.yaml"),
    )
    .unwrap();
    let protected = roadlog_codegen::generate_sharing(
        "schema/protected.graphql",
        &repo_file("schema/protected.graphql"),
        &repo_file("schema/roadlog.graphql"),
        "crate::graphql::contract",
    )
    .unwrap();
    for (name, code) in [
        ("graphql_server.rs", &generated.graphql_server),
        ("rest_server.rs", &generated.rest_server),
        ("protected_server.rs", &protected),
    ] {
        assert!(
            *code == repo_file(&format!("generated/{name}")),
            "generated/{name} differs from the generator's output: run `ROADLOG_REGENERATE=1 cargo build`"
        );
    }
}

const MINIMAL_PATHS: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n";

/// Contracts the generator refuses, and what it says.
#[test]
fn refused_contracts_say_why() {
    let sdl_cases = [
        "type Query { a: Int }",
        "schema { query: Query subscription: Query } type Query { a: Int }",
        "schema { query: Query } interface Node { id: ID! } type Query implements Node { id: ID! }",
        "schema { query: Query } type Query { a: Missing }",
        "schema { query: Query } type Query { a: Int } type Value { b(x: Int): Int }",
        "schema { query: Query } type Query { a: Int } directive @cached on FIELD_DEFINITION",
        "schema { query: Query } type Query @key { a: Int }",
        "schema { query: Query } type Query { a: Int } scalar S @specifiedBy(url: 1)",
        "schema { query: Query } type Query { a: Int } scalar S @specifiedBy(url: \"a\") @specifiedBy(url: \"b\")",
        "schema { query: Query } type Query { a: Int } scalar S @specifiedBy(url: \"a\", other: 1)",
        "schema { query: Query } type Query { a: Int } scalar S @other",
        "schema { query: Query } type Query { a: Int } type T { id: Int b: Int @resolver }",
        "schema { query: Query } directive @resolver on FIELD_DEFINITION type Query { a: Int } type V { b: Int @resolver }",
        "schema { query: Query } directive @resolver on FIELD_DEFINITION type Query { a: Int } type T { id: Int b(x: Int): Int @resolver }",
        "schema { query: Query } directive @resolver on FIELD_DEFINITION type Query { a: Int @resolver }",
        "schema { query: Query } directive @resolver on FIELD_DEFINITION type Query { a: Int } type T { id: Int b: Int @cached }",
        "schema { query: Query } directive @resolver(why: String) on FIELD_DEFINITION type Query { a: Int }",
        "schema { query: Query } directive @resolver on OBJECT type Query { a: Int }",
        "schema { query: Query } type Query { aB(x: Int): Int a: QueryA } type QueryA { id: Int b(x: Int): Int }",
        "schema { query: Query } type Query { a(x: Int): QueryAArgs } type QueryAArgs { b: Int }",
    ];
    let rest_cases = [
        "  /a:\n    get:\n      responses: {'200': {description: ok}}\n",
        "  /a/{id}:\n    get:\n      operationId: a\n      responses: {'200': {description: ok}}\n",
        "  /a:\n    get:\n      operationId: a\n      parameters: [{name: q, in: query, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n",
        "  /a:\n    get:\n      operationId: a\n      x-roadlog-invalid-request-status: 400\n      parameters: [{name: q, in: query, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n",
        "  /a:\n    post:\n      operationId: a\n      requestBody: {content: {text/csv: {schema: {type: string}}}}\n      responses: {'200': {description: ok}}\n",
        "  /a:\n    get:\n      operationId: a\n      security: [{basic: []}]\n      responses: {'200': {description: ok}}\ncomponents:\n  securitySchemes:\n    basic: {type: http, scheme: basic}\n",
        "  /a:\n    get:\n      operationId: a\n      security: [{bearer: []}]\n      responses: {'200': {description: ok}}\ncomponents:\n  securitySchemes:\n    bearer: {type: http, scheme: bearer}\n",
        "  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: ok, content: {image/png: {schema: {type: string}}}}}\n",
        "  /a:\n    get:\n      operationId: a\n      x-roadlog-as-sent: yes please\n      responses: {'200': {description: ok}}\n",
        "  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: ok, content: {application/json: {schema: {oneOf: [{type: string}, {type: integer}]}}}}}\n",
        "  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: ok, x-roadlog-streamed: true, content: {application/json: {schema: {type: string}}}}}\n",
        "  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: ok, x-roadlog-streamed: true, headers: {Content-Length: {schema: {type: integer}}}, content: {application/zip: {schema: {type: string, format: binary}}}}}\n",
        "  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: ok, x-roadlog-streaming: true}}\n",
        "  /a:\n    post:\n      operationId: a\n      x-roadlog-invalid-request-status: 400\n      requestBody: {required: true, content: {multipart/form-data: {schema: {type: object, properties: {f: {type: string, format: binary}}}}}}\n      responses: {'200': {description: ok}, '400': {description: no}}\n",
        "  /a:\n    post:\n      operationId: a\n      x-roadlog-invalid-request-status: 400\n      requestBody: {required: true, content: {multipart/form-data: {schema: {type: object, properties: {f: {type: string, format: binary, maxLength: 9}, g: {type: string, format: binary, maxLength: 9}}}}}}\n      responses: {'200': {description: ok}, '400': {description: no}}\n",
        "  /a:\n    post:\n      operationId: a\n      requestBody: {required: true, content: {multipart/form-data: {schema: {$ref: '#/components/schemas/F'}}}}\n      responses: {'200': {description: ok}}\n",
    ];
    let mut out = String::new();
    for sdl in sdl_cases {
        let error = roadlog_codegen::graphql_server(sdl).expect_err(sdl);
        writeln!(out, "{sdl}\n  → {error}").unwrap();
    }
    for paths in rest_cases {
        let error = roadlog_codegen::rest_server(&format!("{MINIMAL_PATHS}{paths}")).expect_err(paths);
        writeln!(out, "{}\n  → {error}", paths.trim_end()).unwrap();
    }
    insta::assert_snapshot!(out);
}

/// The JSON form of the OpenAPI document: the same data (read back through both parsers), the
/// keys in the order of the file, status codes as strings; what JSON cannot hold is refused.
#[test]
fn openapi_json_is_the_yaml_document_in_order() {
    let yaml = repo_file("openapi/roadlog.yaml");
    let json = roadlog_codegen::openapi_json(&yaml).unwrap();
    let from_json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let from_yaml: serde_json::Value = serde_norway::from_str(&yaml).unwrap();
    assert_eq!(from_json, from_yaml);
    let top: Vec<&str> = json
        .lines()
        .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
        .map(|l| l.trim().split('"').nth(1).unwrap())
        .collect();
    assert_eq!(top, ["openapi", "info", "servers", "tags", "paths", "components"]);
    assert!(json.contains("\"200\": {"), "status codes are string keys");
    let small = roadlog_codegen::openapi_json("b: 1\na: {z: 2, y: [3, true]}\n404: x\n").unwrap();
    assert_eq!(
        small,
        "{\n  \"b\": 1,\n  \"a\": {\n    \"z\": 2,\n    \"y\": [\n      3,\n      true\n    ]\n  },\n  \"404\": \"x\"\n}\n"
    );
    for refused in ["a: !custom 1\n", "? [1, 2]\n: x\n", "a: .inf\n"] {
        assert!(roadlog_codegen::openapi_json(refused).is_err(), "{refused:?}");
    }
}
