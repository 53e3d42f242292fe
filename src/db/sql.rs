//! Statements written once for both databases.
//!
//! Most SQL reads the same on SQLite and PostgreSQL and is a plain `&'static str` next to the
//! code that runs it. A statement that takes a list of ids cannot: the list is bound as one
//! JSON-array parameter (never one parameter per id, whose count both databases cap), and SQLite
//! reads it with `json_each` where PostgreSQL needs `json_array_elements_text`. Such a statement
//! is a [`PerBackend`] pair, spelled at compile time by [`per_backend!`](crate::per_backend), so
//! no SQL is formatted while serving and the suite can prepare every statement on both
//! databases.

/// One statement in its SQLite and PostgreSQL spellings.
#[derive(Debug, Clone, Copy)]
pub struct PerBackend {
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

/// A part of statements in both spellings (not a statement: not registered, never run alone),
/// inserted by [`per_backend!`](crate::per_backend) as `{FRAGMENT}`.
pub type Fragment = PerBackend;

/// The `user_id` column of a query's rows as one text, the ids joined with commas (no row gives
/// null): one value where a row per id would be a hand-over each on SQLite. Read back with
/// [`joined_integers`](super::joined_integers).
pub const JOINED_USER_IDS: Fragment = PerBackend {
    sqlite: "group_concat(user_id)",
    postgres: "string_agg(CAST(user_id AS TEXT), ',')",
};

/// A statement of the service, registered by [`statements!`](crate::statements) so that the
/// suite can prepare every one of them on both databases.
#[derive(Debug)]
pub struct Registered {
    /// `module::path::NAME`.
    pub name: &'static str,
    /// The source file that defines it.
    pub file: &'static str,
    pub statement: PerBackend,
}

inventory::collect!(Registered);

/// Every registered statement.
pub fn registered() -> impl Iterator<Item = &'static Registered> {
    inventory::iter::<Registered>.into_iter()
}

/// Turns a statement of either kind into its two spellings, at compile time.
#[doc(hidden)]
pub struct Spell<T>(pub T);

impl Spell<&'static str> {
    pub const fn both(self) -> PerBackend {
        PerBackend {
            sqlite: self.0,
            postgres: self.0,
        }
    }
}

impl Spell<PerBackend> {
    pub const fn both(self) -> PerBackend {
        self.0
    }
}

/// Defines statement constants (`&str` or [`PerBackend`]) and registers each one.
/// Fragments that are not statements on their own stay outside.
#[macro_export]
macro_rules! statements {
    ($($(#[$doc:meta])* $vis:vis const $name:ident: $ty:ty = $value:expr;)+) => {
        $(
            $(#[$doc])*
            $vis const $name: $ty = $value;
            ::inventory::submit! {
                $crate::db::sql::Registered {
                    name: concat!(module_path!(), "::", stringify!($name)),
                    file: file!(),
                    statement: $crate::db::sql::Spell($name).both(),
                }
            }
        )+
    };
}

/// Builds a [`PerBackend`] statement from parts: string constants or literals, and
/// `[column in N]`, which reads "`column` is one of the ids of the JSON array bound as `$N`".
/// A part `{FRAGMENT}` inserts another `PerBackend` (a shared condition).
///
/// ```ignore
/// pub const FIND_MANY: PerBackend = per_backend!(SELECT, " WHERE ", ["m.id" in 1]);
/// ```
#[macro_export]
macro_rules! per_backend {
    ($($part:tt),+ $(,)?) => {
        $crate::db::sql::PerBackend {
            sqlite: ::const_format::concatcp!($($crate::per_backend!(@sqlite $part)),+),
            postgres: ::const_format::concatcp!($($crate::per_backend!(@postgres $part)),+),
        }
    };
    (@sqlite [$column:literal in $param:literal]) => {
        ::const_format::concatcp!($column, " IN (SELECT value FROM json_each($", stringify!($param), "))")
    };
    // `= ANY(ARRAY(…))`, not `IN (SELECT …)`: PostgreSQL plans the latter as a hash join over
    // a scan of the whole table (it cannot see the list's size in a generic plan), the former as
    // one index lookup per id (`bench/README.md`, "Id lists on PostgreSQL", has the figures).
    (@postgres [$column:literal in $param:literal]) => {
        ::const_format::concatcp!(
            $column,
            " = ANY(ARRAY(SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(CAST($",
            stringify!($param),
            " AS TEXT) AS json))))"
        )
    };
    (@sqlite {$fragment:expr}) => { $fragment.sqlite };
    (@postgres {$fragment:expr}) => { $fragment.postgres };
    (@$backend:ident $part:expr) => { $part };
}

#[cfg(test)]
mod tests {
    use super::PerBackend;

    const CONDITION: PerBackend = per_backend!(["x.b" in 2]);
    const STATEMENT: PerBackend = per_backend!("SELECT 1 FROM x WHERE ", ["x.a" in 1], " AND ", { CONDITION });

    #[test]
    fn spells_the_id_list_for_each_database() {
        assert_eq!(
            STATEMENT.sqlite,
            "SELECT 1 FROM x WHERE x.a IN (SELECT value FROM json_each($1)) AND x.b IN (SELECT value FROM json_each($2))"
        );
        assert_eq!(
            STATEMENT.postgres,
            "SELECT 1 FROM x WHERE x.a = ANY(ARRAY(SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(CAST($1 AS TEXT) AS json)))) \
             AND x.b = ANY(ARRAY(SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(CAST($2 AS TEXT) AS json))))"
        );
    }
}
