//! The harness of the one integration-test binary: every test registers itself (with
//! `inventory`), states what it needs from the machine, and runs through `libtest-mimic`, which
//! prints and filters like the standard harness.
//!
//! Why not the standard harness: it cannot skip at run time, so a test without PostgreSQL or
//! without a browser used to return early and be counted as passed. Here such a test is
//! reported as ignored, by name, with the reason in the summary; setting `TEST_DATABASE_URL`
//! or `ROADLOG_REQUIRE_BROWSER=1` (as CI does) makes it run, and fail if the machine lacks it.
//! Temporary databases and folders are removed when the run ends, failed tests included.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

/// A test's future.
pub type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// What a test needs besides the built binaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Nothing: runs everywhere.
    Nothing,
    /// A PostgreSQL server (`TEST_DATABASE_URL`, or one on 127.0.0.1:5432).
    Postgres,
    /// Chromium and chromedriver from Debian's packages.
    Browser,
    /// Runs only when asked (`-- --ignored NAME`): stress tests and benchmarks.
    OnDemand,
}

/// How a test runs.
pub enum Body {
    Sync(fn()),
    Async(fn() -> BoxFuture),
}

/// One registered test.
pub struct Case {
    /// `module_path!()` of the test's module.
    pub module: &'static str,
    /// The test's name inside its module.
    pub name: &'static str,
    pub needs: Needs,
    pub body: Body,
}

inventory::collect!(Case);

impl Case {
    /// `accounts::sign_up::sqlite` for `api::accounts` and `sign_up::sqlite`.
    fn full_name(&self) -> String {
        let module = self.module.split_once("::").map(|(_, rest)| rest).unwrap_or("");
        if module.is_empty() {
            self.name.to_string()
        } else {
            format!("{module}::{}", self.name)
        }
    }
}

/// Why a test cannot run on this machine, if it cannot.
fn missing(needs: Needs) -> Option<&'static str> {
    match needs {
        Needs::Nothing => None,
        Needs::Postgres => super::app::postgres_url()
            .is_none()
            .then_some("no PostgreSQL server (set TEST_DATABASE_URL or run one on 127.0.0.1:5432)"),
        Needs::Browser => {
            let required = std::env::var_os("ROADLOG_REQUIRE_BROWSER").is_some();
            (!required && !super::browser::installed())
                .then_some("no chromium and chromedriver (apt-get install chromium chromium-driver)")
        }
        Needs::OnDemand => Some("on demand only: run with `-- --ignored NAME`"),
    }
}

/// Runs an async test body on its own runtime, as `#[tokio::test(flavor = "multi_thread")]`.
pub fn block_on(future: BoxFuture) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a test runtime")
        .block_on(future);
}

/// The binary's `main`.
pub fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    super::cleanup::sweep_stale();
    let mut skipped: Vec<(String, &'static str)> = Vec::new();
    let mut trials = Vec::new();
    let mut cases: Vec<&Case> = inventory::iter::<Case>.into_iter().collect();
    cases.sort_by_key(|c| c.full_name());
    for case in cases {
        let name = case.full_name();
        let reason = missing(case.needs);
        if let Some(reason) = reason
            && case.needs != Needs::OnDemand
            && arguments.is_filtered_out_or_not(&name)
        {
            skipped.push((name.clone(), reason));
        }
        let trial = match case.body {
            Body::Sync(run) => Trial::test(name, move || {
                run();
                Ok(())
            }),
            Body::Async(run) => Trial::test(name, move || {
                block_on(run());
                Ok(())
            }),
        };
        trials.push(trial.with_ignored_flag(reason.is_some()));
    }
    let conclusion = libtest_mimic::run(&arguments, trials);
    super::cleanup::remove_all();
    if !skipped.is_empty() && !arguments.ignored && !arguments.include_ignored {
        println!("skipped {} tests that this machine cannot run:", skipped.len());
        let mut reasons: Vec<&str> = skipped.iter().map(|(_, r)| *r).collect();
        reasons.dedup();
        for reason in reasons {
            let names: Vec<&str> = skipped
                .iter()
                .filter(|(_, r)| *r == reason)
                .map(|(n, _)| n.as_str())
                .collect();
            println!("  {} skipped: {reason}", names.len());
            for name in names {
                println!("    {name}");
            }
        }
    }
    conclusion.exit_code()
}

/// `filtered_out` is private to libtest-mimic: the same rule for the summary (a name counts as
/// skipped only when the run's filter selects it).
trait FilterRule {
    fn is_filtered_out_or_not(&self, name: &str) -> bool;
}

impl FilterRule for Arguments {
    fn is_filtered_out_or_not(&self, name: &str) -> bool {
        let selected = match &self.filter {
            None => true,
            Some(filter) if self.exact => name == filter,
            Some(filter) => name.contains(filter.as_str()),
        };
        selected && !self.skip.iter().any(|s| name.contains(s.as_str()))
    }
}

/// Registers tests that run once on SQLite and once on PostgreSQL, each on a fresh server:
/// `name::sqlite` and `name::postgres`. The server and its database are removed afterwards,
/// also when the test fails.
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($app:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn run($app: &$crate::support::TestApp) $body

            fn boxed(app: &$crate::support::TestApp) -> ::std::pin::Pin<Box<dyn ::std::future::Future<Output = ()> + Send + '_>> {
                Box::pin(run(app))
            }

            fn sqlite() -> $crate::support::harness::BoxFuture {
                Box::pin($crate::support::with_app($crate::support::Backend::Sqlite, boxed))
            }

            fn postgres() -> $crate::support::harness::BoxFuture {
                Box::pin($crate::support::with_app($crate::support::Backend::Postgres, boxed))
            }

            ::inventory::submit! {
                $crate::support::harness::Case {
                    module: module_path!(),
                    name: "sqlite",
                    needs: $crate::support::harness::Needs::Nothing,
                    body: $crate::support::harness::Body::Async(sqlite),
                }
            }

            ::inventory::submit! {
                $crate::support::harness::Case {
                    module: module_path!(),
                    name: "postgres",
                    needs: $crate::support::harness::Needs::Postgres,
                    body: $crate::support::harness::Body::Async(postgres),
                }
            }
        }
    )*};
}

/// Registers plain tests: `fn name() { … }` or `async fn name() { … }`, optionally preceded by
/// `#[needs(Postgres)]`, `#[needs(Browser)]` or `#[needs(OnDemand)]`.
#[macro_export]
macro_rules! tests {
    () => {};
    ($(#[needs($need:ident)])? async fn $name:ident() $body:block $($rest:tt)*) => {
        async fn $name() $body

        ::inventory::submit! {
            $crate::support::harness::Case {
                module: module_path!(),
                name: stringify!($name),
                needs: $crate::tests!(@needs $($need)?),
                body: $crate::support::harness::Body::Async(|| Box::pin($name())),
            }
        }

        $crate::tests! { $($rest)* }
    };
    ($(#[needs($need:ident)])? fn $name:ident() $body:block $($rest:tt)*) => {
        fn $name() $body

        ::inventory::submit! {
            $crate::support::harness::Case {
                module: module_path!(),
                name: stringify!($name),
                needs: $crate::tests!(@needs $($need)?),
                body: $crate::support::harness::Body::Sync($name),
            }
        }

        $crate::tests! { $($rest)* }
    };
    (@needs) => { $crate::support::harness::Needs::Nothing };
    (@needs $need:ident) => { $crate::support::harness::Needs::$need };
}

/// Registers tests that run once per database but build their own server (custom settings,
/// seeded data): the body receives the backend. What they leave behind is removed at the end
/// of the run.
#[macro_export]
macro_rules! for_both_backends {
    ($(async fn $name:ident($backend:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn run($backend: $crate::support::Backend) $body

            fn sqlite() -> $crate::support::harness::BoxFuture {
                Box::pin(run($crate::support::Backend::Sqlite))
            }

            fn postgres() -> $crate::support::harness::BoxFuture {
                Box::pin(run($crate::support::Backend::Postgres))
            }

            ::inventory::submit! {
                $crate::support::harness::Case {
                    module: module_path!(),
                    name: "sqlite",
                    needs: $crate::support::harness::Needs::Nothing,
                    body: $crate::support::harness::Body::Async(sqlite),
                }
            }

            ::inventory::submit! {
                $crate::support::harness::Case {
                    module: module_path!(),
                    name: "postgres",
                    needs: $crate::support::harness::Needs::Postgres,
                    body: $crate::support::harness::Body::Async(postgres),
                }
            }
        }
    )*};
}
