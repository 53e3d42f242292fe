//! The commands of the `sh` blocks, checked against what exists: a script of the repository
//! exists and is executable; `roadlog`'s subcommands and flags are the ones its `--help` lists
//! (the built binary, asked); a cargo command names packages, test targets and test filters that
//! exist; any other program is on the list of outside tools the documentation may use.

use std::collections::{BTreeSet, HashMap};
use std::os::unix::fs::PermissionsExt;
use std::sync::{Mutex, OnceLock};

use super::root;

/// Programs from outside the repository that a page may show.
const OUTSIDE_TOOLS: &[&str] = &["curl", "docker", "git", "mdbook"];

/// Cargo's subcommands that a page may show.
const CARGO_SUBCOMMANDS: &[&str] = &[
    "build", "run", "test", "package", "install", "fuzz", "insta", "clippy", "fmt",
];

/// Cargo options that take a value (the next word).
const CARGO_VALUED: &[&str] = &[
    "-p",
    "--package",
    "--test",
    "--bin",
    "--features",
    "--profile",
    "-j",
    "--version",
    "--root",
];

/// The problems of one `sh` block.
pub fn problems(block: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for command in simple_commands(&block.replace("\\\n", " ")) {
        let words: Vec<&str> = command
            .iter()
            .map(|w| w.as_str())
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        let Some((program, args)) = words.split_first() else {
            continue;
        };
        match *program {
            "cargo" => problems.extend(cargo(args)),
            "roadlog" => problems.extend(roadlog(args)),
            "cd" => {
                if !args.first().is_some_and(|dir| root().join(dir).is_dir()) {
                    problems.push(format!("`cd {}`: no such folder", args.join(" ")));
                }
            }
            script if script.contains('/') => {
                let path = root().join(script);
                let executable = path
                    .metadata()
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
                if !executable {
                    problems.push(format!("`{script}` is no executable file of the repository"));
                }
            }
            tool if OUTSIDE_TOOLS.contains(&tool) => {}
            other => problems.push(format!(
                "`{other}` is neither a script of the repository nor a listed outside tool (OUTSIDE_TOOLS)"
            )),
        }
    }
    problems
}

/// Shell words, grouped by simple command (split at `&&`, `||`, `|` and `;`), comments and
/// quotes removed.
fn simple_commands(text: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    for line in text.lines() {
        let mut word: Option<String> = None;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '#' if word.is_none() => break,
                ' ' | '\t' => {
                    if let Some(w) = word.take() {
                        commands.last_mut().unwrap().push(w);
                    }
                }
                '&' | '|' | ';' => {
                    if let Some(w) = word.take() {
                        commands.last_mut().unwrap().push(w);
                    }
                    if chars.peek() == Some(&c) {
                        chars.next();
                    }
                    commands.push(Vec::new());
                }
                '\'' | '"' => {
                    let w = word.get_or_insert_with(String::new);
                    for q in chars.by_ref() {
                        if q == c {
                            break;
                        }
                        w.push(q);
                    }
                }
                '\\' => {
                    if let Some(next) = chars.next() {
                        word.get_or_insert_with(String::new).push(next);
                    }
                }
                _ => word.get_or_insert_with(String::new).push(c),
            }
        }
        if let Some(w) = word.take() {
            commands.last_mut().unwrap().push(w);
        }
        commands.push(Vec::new());
    }
    // `[--json]` on a page means "optional": the brackets are not part of the word.
    commands
        .into_iter()
        .map(|c| {
            c.into_iter()
                .map(|w| w.trim_matches(['[', ']']).to_string())
                .filter(|w| !w.is_empty())
                .collect()
        })
        .filter(|c: &Vec<String>| !c.is_empty())
        .collect()
}

fn cargo(args: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let args: Vec<&str> = args.iter().copied().skip_while(|a| a.starts_with('+')).collect();
    let Some((sub, rest)) = args.split_first() else {
        return vec!["`cargo` without a subcommand".into()];
    };
    if !CARGO_SUBCOMMANDS.contains(sub) {
        return vec![format!(
            "`cargo {sub}` is not a cargo subcommand the pages may show (CARGO_SUBCOMMANDS)"
        )];
    }
    let (own, after) = match rest.iter().position(|a| *a == "--") {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    if *sub == "install" {
        return problems;
    }
    if *sub == "fuzz" {
        if let ["run", target, ..] = own
            && !root().join("fuzz/fuzz_targets").join(format!("{target}.rs")).is_file()
        {
            problems.push(format!("`cargo fuzz run {target}`: no fuzz target {target}"));
        }
        return problems;
    }
    let (mut package, mut test) = (None, None);
    for (at, word) in own.iter().enumerate() {
        if CARGO_VALUED.contains(word) {
            let value = own.get(at + 1).copied().unwrap_or("");
            match *word {
                "-p" | "--package" => package = Some(value),
                "--test" => test = Some(value),
                _ => {}
            }
        }
    }
    // Cargo resolves features per selection: a narrower build than the suite's compiles the
    // service and most of its dependencies a second time.
    if matches!(*sub, "test" | "build" | "clippy") && package.is_none() && !own.contains(&"--workspace") {
        problems.push(format!(
            "`cargo {sub}` without `--workspace`: it builds the service again, with other features than the suite's"
        ));
    }
    let workspace = workspace();
    if let Some(package) = package
        && !workspace.packages.contains(package)
    {
        problems.push(format!("`cargo {sub} -p {package}`: no such package in the workspace"));
    }
    if let Some(test) = test
        && !workspace.tests.contains(test)
    {
        problems.push(format!("`cargo {sub} --test {test}`: no such test target"));
    }
    match (*sub, test, package) {
        ("test", Some("api"), _) => {
            for filter in after.iter().filter(|a| !a.starts_with('-')) {
                if !test_names().iter().any(|name| name.contains(filter)) {
                    problems.push(format!("`{filter}` names no test of tests/api"));
                }
            }
        }
        ("run", None, None | Some("roadlog")) => problems.extend(roadlog(after)),
        _ => {}
    }
    problems
}

/// `roadlog ARGS`: each word that is not a flag walks down the subcommands while the command it
/// reached has some, and each flag must be listed by the `--help` of the command it follows.
fn roadlog(args: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut help = help(&path);
    for arg in args {
        if let Some(flag) = arg.strip_prefix("--") {
            let flag = flag.split('=').next().unwrap();
            if !help.flags.contains(flag) && flag != "help" && flag != "version" {
                problems.push(format!("`roadlog {}` has no option `--{flag}`", path.join(" ")));
            }
        } else if !arg.starts_with('-') && !help.subcommands.is_empty() {
            if help.subcommands.contains(*arg) {
                path.push(arg.to_string());
                help = self::help(&path);
            } else {
                problems.push(format!(
                    "`roadlog {}` has no subcommand or argument `{arg}`",
                    path.join(" ")
                ));
            }
        }
    }
    problems
}

/// What `roadlog PATH --help` lists.
#[derive(Clone)]
struct Help {
    subcommands: BTreeSet<String>,
    flags: BTreeSet<String>,
}

fn help(path: &[String]) -> Help {
    static CACHE: OnceLock<Mutex<HashMap<Vec<String>, Help>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(help) = cache.lock().unwrap().get(path) {
        return help.clone();
    }
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_roadlog"))
        .args(path)
        .arg("--help")
        .output()
        .expect("the roadlog binary runs");
    assert!(output.status.success(), "roadlog {} --help: {output:?}", path.join(" "));
    let text = String::from_utf8(output.stdout).unwrap();
    let subcommands = text
        .split("Commands:\n")
        .nth(1)
        .map(|section| {
            section
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .filter_map(|line| line.split_whitespace().next())
                .filter(|name| *name != "help")
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let flags = text
        .split("--")
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
        })
        .filter(|flag| !flag.is_empty())
        .collect();
    let help = Help { subcommands, flags };
    cache.lock().unwrap().insert(path.to_vec(), help.clone());
    help
}

/// The workspace's packages and test targets, from the manifests.
struct Workspace {
    packages: BTreeSet<String>,
    tests: BTreeSet<String>,
}

fn workspace() -> Workspace {
    let manifest = |dir: &str| std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
    let root_manifest = manifest(".");
    let members = root_manifest
        .split("members = [")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    let mut workspace = Workspace {
        packages: BTreeSet::new(),
        tests: BTreeSet::new(),
    };
    for member in members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
    {
        let text = manifest(member);
        // Each `[package]` and `[[test]]` table's `name`.
        for (header, table) in text.split("\n[").skip(1).filter_map(|t| t.split_once('\n')) {
            let name = table
                .lines()
                .find_map(|line| line.strip_prefix("name = "))
                .map(|name| name.trim_matches('"').to_string());
            match (header.trim_end_matches(']'), name) {
                ("package", Some(name)) => {
                    workspace.packages.insert(name);
                }
                ("[test", Some(name)) => {
                    workspace.tests.insert(name);
                }
                _ => {}
            }
        }
        if let Ok(entries) = std::fs::read_dir(root().join(member).join("tests")) {
            for entry in entries {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "rs") {
                    workspace
                        .tests
                        .insert(path.file_stem().unwrap().to_string_lossy().into_owned());
                }
            }
        }
    }
    workspace
}

/// The names of the tests of tests/api, as its harness lists and filters them.
fn test_names() -> Vec<String> {
    inventory::iter::<crate::support::harness::Case>
        .into_iter()
        .map(|case| {
            let module = case.module.split_once("::").map(|(_, rest)| rest).unwrap_or("");
            format!("{module}::{}", case.name)
        })
        .collect()
}
