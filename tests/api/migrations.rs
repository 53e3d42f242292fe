//! The two sets of migrations build the same database: both are applied to fresh databases, and
//! the schemas they leave are compared table by table (columns with their type family, whether
//! they take NULL, primary keys) and index by index (table, columns in order, uniqueness). The
//! file names alone could match while a column or an index went missing on one side.

use std::collections::BTreeMap;

use roadlog::config::{DatabaseArgs, Environment};
use sqlx::AnyPool;

use crate::support::{cleanup, postgres_database};

/// A column as both databases can describe it.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Column {
    family: &'static str,
    nullable: bool,
    primary_key: bool,
}

/// An index: its table, its columns in order (names, or `expr` for an expression; PostgreSQL's
/// `INCLUDE` columns after its key, as SQLite, which has no `INCLUDE`, puts them at the end of
/// the key to cover the same reads), uniqueness, and whether it is partial.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Index {
    table: String,
    key: Vec<String>,
    unique: bool,
    partial: bool,
}

#[derive(Debug, Default)]
struct Schema {
    tables: BTreeMap<String, BTreeMap<String, Column>>,
    indexes: BTreeMap<String, Index>,
}

/// The storage family of a declared type, after SQLite's affinity rules (section 3.1 of its
/// datatype documentation), which PostgreSQL's types are mapped onto.
fn family(declared: &str) -> &'static str {
    let t = declared.to_ascii_uppercase();
    if t.contains("INT") {
        "integer"
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
        "text"
    } else if t.contains("BLOB") || t == "BYTEA" || t.is_empty() {
        "blob"
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
        "real"
    } else {
        "numeric"
    }
}

async fn sqlite_schema(pool: &AnyPool) -> Schema {
    let mut schema = Schema::default();
    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for (table,) in tables {
        let columns: Vec<(String, String, i64, i64)> =
            sqlx::query_as("SELECT name, type, \"notnull\", pk FROM pragma_table_info($1)")
                .bind(&table)
                .fetch_all(pool)
                .await
                .unwrap();
        let columns = columns
            .into_iter()
            .map(|(name, declared, not_null, pk)| {
                let column = Column {
                    family: family(&declared),
                    nullable: not_null == 0 && pk == 0,
                    primary_key: pk > 0,
                };
                (name, column)
            })
            .collect();
        schema.tables.insert(table, columns);
    }
    // Indexes written in the migrations (not those SQLite makes for UNIQUE and PRIMARY KEY
    // constraints, whose PostgreSQL counterparts are left out the same way below).
    let indexes: Vec<(String, String, i64, i64)> = sqlx::query_as(
        "SELECT m.name, m.tbl_name, l.\"unique\", l.partial FROM sqlite_master m, pragma_index_list(m.tbl_name) l \
         WHERE m.type = 'index' AND l.name = m.name AND l.origin = 'c' AND m.tbl_name <> '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for (name, table, unique, partial) in indexes {
        let key: Vec<(i64, Option<String>)> =
            sqlx::query_as("SELECT seqno, name FROM pragma_index_info($1) ORDER BY seqno")
                .bind(&name)
                .fetch_all(pool)
                .await
                .unwrap();
        let key = key
            .into_iter()
            .map(|(_, c)| c.unwrap_or_else(|| "expr".into()))
            .collect();
        let index = Index {
            table,
            key,
            unique: unique == 1,
            partial: partial == 1,
        };
        schema.indexes.insert(name, index);
    }
    schema
}

async fn postgres_schema(pool: &AnyPool) -> Schema {
    let mut schema = Schema::default();
    let columns: Vec<(String, String, String, String, i64)> = sqlx::query_as(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.is_nullable::text,
                (EXISTS (SELECT 1 FROM information_schema.table_constraints tc
                         JOIN information_schema.key_column_usage k
                           ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema
                         WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = c.table_schema
                           AND tc.table_name = c.table_name AND k.column_name = c.column_name))::int::int8
         FROM information_schema.columns c JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name
         WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for (table, name, data_type, nullable, pk) in columns {
        let column = Column {
            family: family(&data_type),
            // A primary key's columns are NOT NULL on both; SQLite just does not say so.
            nullable: nullable == "YES" && pk == 0,
            primary_key: pk == 1,
        };
        schema.tables.entry(table).or_default().insert(name, column);
    }
    // The Any driver decodes neither arrays nor booleans: comma-joined columns and 0/1. An
    // `INCLUDE`d `id` is left out: every SQLite index ends with the row id, which `id` is.
    let indexes: Vec<(String, String, String, i64, i64)> = sqlx::query_as(
        "SELECT i.relname::text, t.relname::text,
                array_to_string(ARRAY(SELECT COALESCE(a.attname::text, 'expr')
                      FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                      LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum > 0
                      WHERE k.n <= x.indnkeyatts OR a.attname IS DISTINCT FROM 'id'
                      ORDER BY k.n), ','),
                x.indisunique::int::int8, (x.indpred IS NOT NULL)::int::int8
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         WHERE n.nspname = 'public' AND t.relname <> '_sqlx_migrations'
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for (name, table, key, unique, partial) in indexes {
        schema.indexes.insert(
            name,
            Index {
                table,
                key: key.split(',').map(str::to_string).collect(),
                unique: unique == 1,
                partial: partial == 1,
            },
        );
    }
    schema
}

async fn migrated(url: String) -> roadlog::db::Db {
    let mut args = DatabaseArgs::new(Environment::Sandbox, Some(url));
    args.allow_sqlite_in_production = true;
    roadlog::server::open_database(&args)
        .await
        .expect("the migrations apply")
}

tests! {
    #[needs(Postgres)]
    async fn both_migration_sets_build_the_same_tables_columns_and_indexes() {
        let dir = cleanup::new_dir();
        let sqlite = migrated(format!("sqlite://{}/schema.db?mode=rwc", dir.display())).await;
        let postgres = migrated(postgres_database().await).await;
        let (ours, theirs) = (sqlite_schema(&sqlite.pool).await, postgres_schema(&postgres.pool).await);
        sqlite.pool.close().await;
        postgres.pool.close().await;

        assert!(ours.tables.len() > 30, "SQLite's tables were read: {:?}", ours.tables.keys());
        assert!(ours.indexes.len() > 10, "SQLite's indexes were read: {:?}", ours.indexes.keys());
        let names = |s: &Schema| s.tables.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(&ours), names(&theirs), "the same tables");
        let mut differences = Vec::new();
        for (table, columns) in &ours.tables {
            let other = &theirs.tables[table];
            for (name, column) in columns {
                match other.get(name) {
                    Some(c) if c == column => {}
                    Some(c) => differences.push(format!("{table}.{name}: SQLite {column:?}, PostgreSQL {c:?}")),
                    None => differences.push(format!("{table}.{name}: only in SQLite")),
                }
            }
            for name in other.keys().filter(|n| !columns.contains_key(*n)) {
                differences.push(format!("{table}.{name}: only in PostgreSQL"));
            }
        }
        for (name, index) in &ours.indexes {
            match theirs.indexes.get(name) {
                Some(i) if i == index => {}
                Some(i) => differences.push(format!("index {name}: SQLite {index:?}, PostgreSQL {i:?}")),
                None => differences.push(format!("index {name}: only in SQLite")),
            }
        }
        for name in theirs.indexes.keys().filter(|n| !ours.indexes.contains_key(*n)) {
            differences.push(format!("index {name}: only in PostgreSQL"));
        }
        assert!(differences.is_empty(), "the migrations differ:\n{}", differences.join("\n"));
    }
}
