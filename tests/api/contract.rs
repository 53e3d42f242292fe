//! The published contract and the code agree: the generated snapshot is fresh, the schema the
//! server serves is exactly `schema/roadlog.graphql`, every REST operation of the OpenAPI file is
//! routed (with and without `/api`), and the migrations of both backends stay in lock-step.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use async_graphql::parser::types::{BaseType, Type, TypeKind, TypeSystemDefinition};
use reqwest::StatusCode;

use crate::support::{Backend, TestApp};

const REFRESH: &str = "ROADLOG_REGENERATE=1 cargo build";

tests! {
fn generated_snapshot_is_fresh() {
    for name in ["graphql_server.rs", "rest_server.rs"] {
        let built = std::fs::read_to_string(Path::new(env!("OUT_DIR")).join(name)).unwrap();
        let committed = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("generated").join(name))
            .unwrap_or_default();
        assert!(
            built == committed,
            "generated/{name} is stale: the contract changed since it was generated. Run `{REFRESH}` and commit generated/."
        );
    }
}
}

fn type_string(ty: &Type) -> String {
    let base = match &ty.base {
        BaseType::Named(name) => name.to_string(),
        BaseType::List(inner) => format!("[{}]", type_string(inner)),
    };
    if ty.nullable { base } else { format!("{base}!") }
}

/// Every fact of an SDL document, one line each: types, fields, arguments (type, default),
/// enum values, input fields, and their descriptions; the `@specifiedBy` URL of each scalar.
fn facts(sdl: &str) -> BTreeSet<String> {
    let doc = async_graphql::parser::parse_schema(sdl).expect("SDL parses");
    let desc = |d: &Option<async_graphql::Positioned<String>>| {
        d.as_ref().map(|d| d.node.trim().to_string()).unwrap_or_default()
    };
    let mut facts = BTreeSet::new();
    for def in doc.definitions {
        match def {
            TypeSystemDefinition::Schema(s) => {
                let s = s.node;
                facts.insert(format!(
                    "schema query={:?} mutation={:?}",
                    s.query.map(|q| q.node.to_string()),
                    s.mutation.map(|m| m.node.to_string())
                ));
            }
            TypeSystemDefinition::Directive(_) => {}
            TypeSystemDefinition::Type(t) => {
                let t = t.node;
                let name = t.name.node.to_string();
                if ["Int", "Float", "String", "Boolean", "ID"].contains(&name.as_str()) {
                    continue;
                }
                facts.insert(format!("type {name} description={:?}", desc(&t.description)));
                match t.kind {
                    TypeKind::Scalar => {
                        let specified_by: Vec<String> = t
                            .directives
                            .iter()
                            .filter(|d| d.node.name.node == "specifiedBy")
                            .flat_map(|d| d.node.arguments.iter().map(|(n, v)| format!("{}: {}", n.node, v.node)))
                            .collect();
                        facts.insert(format!("scalar {name} specifiedBy={specified_by:?}"));
                    }
                    TypeKind::Object(o) => {
                        for f in o.fields {
                            let f = f.node;
                            facts.insert(format!(
                                "{name}.{}: {} description={:?}",
                                f.name.node,
                                type_string(&f.ty.node),
                                desc(&f.description)
                            ));
                            for a in f.arguments {
                                let a = a.node;
                                facts.insert(format!(
                                    "{name}.{}({}: {} = {:?}) description={:?}",
                                    f.name.node,
                                    a.name.node,
                                    type_string(&a.ty.node),
                                    a.default_value.map(|d| d.node.to_string()),
                                    desc(&a.description)
                                ));
                            }
                        }
                    }
                    TypeKind::InputObject(i) => {
                        for f in i.fields {
                            let f = f.node;
                            facts.insert(format!(
                                "input {name}.{}: {} = {:?} description={:?}",
                                f.name.node,
                                type_string(&f.ty.node),
                                f.default_value.map(|d| d.node.to_string()),
                                desc(&f.description)
                            ));
                        }
                    }
                    TypeKind::Enum(e) => {
                        for v in e.values {
                            facts.insert(format!(
                                "enum {name}.{} description={:?}",
                                v.node.value.node,
                                desc(&v.node.description)
                            ));
                        }
                    }
                    TypeKind::Interface(_) | TypeKind::Union(_) => {
                        facts.insert(format!("unsupported {name}"));
                    }
                }
            }
        }
    }
    facts
}

tests! {
async fn served_schema_is_the_published_sdl() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let served = roadlog::graphql::build_schema(app.server.app.clone())
        .sdl_with_options(async_graphql::SDLExportOptions::new().include_specified_by());
    let published =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/roadlog.graphql")).unwrap();
    let (served, published) = (facts(&served), facts(&published));
    let missing: Vec<_> = published.difference(&served).collect();
    let extra: Vec<_> = served.difference(&published).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the served schema differs from schema/roadlog.graphql\nonly in the file:\n{missing:#?}\nonly served:\n{extra:#?}"
    );
    app.cleanup().await;
}
}

tests! {
async fn served_vendors_schema_is_the_published_sdl() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let served = roadlog::graphql::protected::build_schema(app.server.app.clone())
        .sdl_with_options(async_graphql::SDLExportOptions::new().include_specified_by());
    let published =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/protected.graphql")).unwrap();
    let (served, published) = (facts(&served), facts(&published));
    let missing: Vec<_> = published.difference(&served).collect();
    let extra: Vec<_> = served.difference(&published).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the served vendors' schema differs from schema/protected.graphql\nonly in the file:\n{missing:#?}\nonly served:\n{extra:#?}"
    );
    app.cleanup().await;
}
}

tests! {
async fn every_rest_operation_is_routed_with_and_without_the_api_prefix() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    // The statuses each operation documents, from the OpenAPI document the server publishes.
    let contract: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(env!("OUT_DIR")).join("openapi.json")).unwrap()).unwrap();
    for (operation, method, path) in roadlog::http::contract::ROUTES {
        let documented: BTreeSet<String> = contract["paths"][path][method.to_lowercase()]["responses"]
            .as_object()
            .unwrap_or_else(|| panic!("{operation}: no responses documented for {method} {path}"))
            .keys()
            .cloned()
            .collect();
        let bare = path.strip_prefix("/api").unwrap_or(path);
        for url in [app.url(bare), app.url(&format!("/api{bare}"))] {
            let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
            // A bare request (no body, no credentials): the operation answers one of its
            // documented statuses, never an undocumented one, a 404 or a 405.
            let response = app.client.request(method, &url).send().await.unwrap();
            let status = response.status().as_u16().to_string();
            assert!(
                documented.contains(&status),
                "{operation} at {url} answered {status}, documented: {documented:?}"
            );
        }
    }
    let response = app.client.get(app.url("/no/such/route")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error_code"], "NOT_FOUND");
    app.cleanup().await;
}
}

on_both_backends! {
    async fn health_through_the_generated_rest_client(app) {
        let client = roadlog_client::rest::Client::new(&app.url(""));
        let health = client.health().send().await.expect("health answers 200").into_inner();
        assert_eq!(health.status, roadlog_client::rest::types::HealthStatus::Ok);
        assert_eq!(health.environment, roadlog_client::rest::types::HealthEnvironment::Sandbox);
    }
}

tests! {
fn migrations_stay_in_lock_step_and_portable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/db/migrations");
    let list = |backend: &str| -> BTreeSet<String> {
        std::fs::read_dir(root.join(backend))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    };
    assert_eq!(
        list("sqlite"),
        list("postgres"),
        "both backends need the same migrations, same names"
    );
    for backend in ["sqlite", "postgres"] {
        for name in list(backend) {
            let sql = std::fs::read_to_string(root.join(backend).join(&name))
                .unwrap()
                .to_uppercase();
            // sqlx's Any driver cannot decode these column types on one backend or the other.
            for forbidden in [" BOOLEAN", " TIMESTAMP", " UUID", " JSONB", " DATETIME", " NUMERIC"] {
                assert!(
                    !sql.contains(forbidden),
                    "{backend}/{name} uses{forbidden}: use INTEGER/BIGINT/TEXT"
                );
            }
        }
    }
}
}

tests! {
async fn a_database_serves_one_environment_only() {
    let dir = crate::support::cleanup::new_dir();
    let url = format!("sqlite://{}/db.sqlite?mode=rwc", dir.display());
    let settings = |environment| {
        let mut args = roadlog::config::DatabaseArgs::new(environment, Some(url.clone()));
        args.allow_sqlite_in_production = true;
        args
    };
    let db = roadlog::server::open_database(&settings(roadlog::config::Environment::Sandbox))
        .await
        .unwrap();
    db.pool.close().await;
    let error = roadlog::server::open_database(&settings(roadlog::config::Environment::Production))
        .await
        .unwrap_err();
    // The whole chain names the database and the reason.
    let message = format!("{error:#}");
    assert!(message.contains("db.sqlite") && message.contains("holds sandbox data"), "{message}");
    let _ = std::fs::remove_dir_all(dir);
}
}

/// Rust files under `dir` (recursively), as (path, text).
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files
}

tests! {
    fn layers_only_point_down() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        // What each layer must not name: the layers above it, and the transports' crates.
        let rules: &[(&str, &[&str])] = &[
            ("domain", &["crate::app", "crate::graphql", "crate::http", "crate::oauth", "crate::routes", "crate::server", "async_graphql", "warp::", "hyper::"]),
            ("db", &["crate::app", "crate::domain", "crate::graphql", "crate::http", "crate::oauth", "crate::routes", "crate::mail"]),
            ("mail", &["crate::app", "crate::domain", "crate::graphql", "crate::http", "crate::oauth", "crate::routes"]),
            ("graphql", &["crate::http", "crate::oauth", "crate::routes", "crate::server"]),
            ("http", &["crate::oauth", "crate::routes", "crate::server"]),
            ("oauth", &["crate::routes", "crate::server"]),
        ];
        let mut offences = Vec::new();
        for (layer, forbidden) in rules {
            for (path, text) in sources(&src.join(layer)) {
                for (number, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    for name in *forbidden {
                        if code.contains(name) {
                            offences.push(format!("{path}:{}: {layer} names {name}", number + 1));
                        }
                    }
                }
            }
        }
        assert!(offences.is_empty(), "layers point down only:\n{}", offences.join("\n"));
    }
}

/// Every SQL statement written as a literal next to the code that runs it
/// (`sqlx::query("…")`, `query_as`, `query_scalar`), read from the sources.
fn literal_statements() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut statements = Vec::new();
    for (path, text) in sources(&src) {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("sqlx::query") {
            rest = &rest[at + "sqlx::query".len()..];
            let call = rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
            let call = match call.strip_prefix("::<") {
                // Skip the turbofish, nested generics included.
                Some(generic) => {
                    let mut depth = 1;
                    let end = generic
                        .char_indices()
                        .find(|(_, c)| {
                            match c {
                                '<' => depth += 1,
                                '>' => depth -= 1,
                                _ => {}
                            }
                            depth == 0
                        })
                        .map(|(i, _)| i + 1)
                        .unwrap_or(0);
                    &generic[end..]
                }
                None => call,
            };
            let Some(args) = call.strip_prefix('(') else { continue };
            let args = args.trim_start();
            let Some(literal) = args.strip_prefix('"') else {
                continue;
            };
            let mut sql = String::new();
            let mut chars = literal.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('\n') => {
                            // A line continuation: the next line's leading spaces are dropped.
                            let rest: String = chars.clone().collect();
                            let trimmed = rest.trim_start();
                            chars = literal[literal.len() - trimmed.len()..].chars();
                            sql.push(' ');
                        }
                        Some('n') => sql.push('\n'),
                        Some('"') => sql.push('"'),
                        Some(other) => sql.push(other),
                        None => {}
                    },
                    other => sql.push(other),
                }
            }
            statements.push((path.clone(), sql));
        }
    }
    statements
}

for_both_backends! {
    async fn every_sql_statement_prepares(backend) {
        let app = TestApp::spawn(backend).await;
        let statements = literal_statements();
        assert!(statements.len() > 100, "the statements were found: {}", statements.len());
        let mut conn = app.server.db.pool.acquire().await.unwrap();
        let mut failures = Vec::new();
        for (path, sql) in &statements {
            // Connection settings of SQLite only (the statements run on that branch only).
            if backend == Backend::Postgres && sql.starts_with("PRAGMA ") {
                continue;
            }
            if let Err(error) = sqlx::Executor::prepare(&mut *conn, sqlx::SqlSafeStr::into_sql_str(sqlx::AssertSqlSafe(sql.clone()))).await {
                failures.push(format!("{path}: {error}\n    {sql}"));
            }
        }
        // The statements composed from parts (shared column lists, id lists spelled for each
        // database) are constants registered by `statements!`.
        let registered: Vec<_> = roadlog::db::sql::registered().collect();
        for statement in &registered {
            let sql = app.server.db.sql(statement.statement);
            if let Err(error) = sqlx::Executor::prepare(&mut *conn, sqlx::SqlSafeStr::into_sql_str(sql)).await {
                failures.push(format!("{}: {error}\n    {sql}", statement.name));
            }
        }
        assert!(failures.is_empty(), "{} statements do not prepare:\n{}", failures.len(), failures.join("\n"));
        println!(
            "{backend:?}: {} literal and {} composed statements prepared",
            statements.len(),
            registered.len()
        );
        drop(conn);
        app.cleanup().await;
    }
}

tests! {
    // No SQL is formatted while serving: composed statements are constants, and every public
    // one is registered, so the test above prepares it.
    fn composed_statements_are_registered_constants() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let registered: HashSet<(String, String)> = roadlog::db::sql::registered()
            .map(|r| (r.file.to_string(), r.name.rsplit("::").next().unwrap().to_string()))
            .collect();
        let mut offences = Vec::new();
        for (path, text) in sources(&src) {
            let file = Path::new(&path)
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap()
                .display()
                .to_string();
            if text.contains("AssertSqlSafe") {
                offences.push(format!("{file}: formats SQL at run time (AssertSqlSafe)"));
            }
            for line in text.lines() {
                let line = line.trim();
                let Some(rest) = line.strip_prefix("pub const ") else { continue };
                let Some((name, ty)) = rest.split_once(':') else { continue };
                let composed = ty.trim_start().starts_with("PerBackend")
                    || (ty.trim_start().starts_with("&str") && line.contains("concatcp!"));
                if composed && !registered.contains(&(file.clone(), name.trim().to_string())) {
                    offences.push(format!("{file}: {name} is a statement outside `statements!`"));
                }
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
        assert!(registered.len() >= 30, "statements are registered: {}", registered.len());
    }
}

tests! {
fn every_scalar_is_typed_for_typescript() {
    // graphql-codegen's `strictScalars` fails on a scalar its map leaves out, but only in CI's
    // examples step, long after the tests: a scalar added to the schema fails here first.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sdl = std::fs::read_to_string(root.join("schema/roadlog.graphql")).unwrap();
    let codegen = std::fs::read_to_string(root.join("examples/typescript/codegen.yml")).unwrap();
    let mapped: BTreeSet<&str> = codegen
        .lines()
        .filter_map(|line| line.strip_prefix("        ")?.split_once(':').map(|(name, _)| name))
        .filter(|name| !name.starts_with(' '))
        .collect();
    let missing: Vec<&str> = sdl
        .lines()
        .filter_map(|line| line.strip_prefix("scalar ")?.split_whitespace().next())
        .filter(|name| !mapped.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "examples/typescript/codegen.yml maps no TypeScript type for {missing:?}: add it to `scalars` (the book shows that file)"
    );
}
}
