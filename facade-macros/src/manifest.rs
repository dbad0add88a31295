//! The name the calling crate gives `elide`, read from its `Cargo.toml`,
//! for the attribute macros (`#[timed]`, `#[checked]`).
//!
//! The function-like macros learn the path from `elide`'s `macro_rules!`
//! front doors (`$crate`); an attribute cannot be a `macro_rules!`, so it
//! looks for a dependency with `package = "elide"` in the manifest of the
//! crate being compiled (`CARGO_MANIFEST_DIR`), and, for `workspace = true`,
//! in the workspace's `[workspace.dependencies]`. Read once per manifest
//! per compiler process. A re-export through another crate is not visible
//! there: such sites give `crate = path`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The package whose renames are looked for.
const PACKAGE: &str = "elide";

/// The crate name (`log`, `my_log` for `my-log`) under which the crate
/// being compiled depends on `elide`, when it renamed the dependency.
pub(crate) fn renamed_elide() -> Option<String> {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, Option<String>>>> = OnceLock::new();
    let mut seen = SEEN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    seen.entry(dir.clone())
        .or_insert_with(|| lookup(&dir))
        .clone()
}

fn lookup(dir: &Path) -> Option<String> {
    let own = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let deps = dependencies(&own);
    let name = match deps.iter().find(|d| d.package.as_deref() == Some(PACKAGE)) {
        Some(d) => d.name.clone(),
        None => {
            // `log = { workspace = true }`: the rename is the workspace's.
            let inherited: Vec<&Dep> = deps.iter().filter(|d| d.workspace).collect();
            if inherited.is_empty() {
                return None;
            }
            let root = workspace_manifest(dir)?;
            dependencies(&root)
                .into_iter()
                .find(|w| {
                    w.package.as_deref() == Some(PACKAGE)
                        && inherited.iter().any(|d| d.name == w.name)
                })?
                .name
        }
    };
    Some(name.replace('-', "_"))
}

/// The text of the nearest manifest at or above `dir` with a `[workspace]`.
fn workspace_manifest(dir: &Path) -> Option<String> {
    dir.ancestors().find_map(|d| {
        let text = std::fs::read_to_string(d.join("Cargo.toml")).ok()?;
        text.lines()
            .any(|l| header(l).is_some_and(|h| h == ["workspace"]))
            .then_some(text)
    })
}

/// One dependency entry, as far as the rename is concerned.
#[derive(Debug, Default, PartialEq)]
struct Dep {
    name: String,
    package: Option<String>,
    workspace: bool,
}

/// The dependency tables a key is read in: a table of dependencies
/// (`[dependencies]`, `[dev-dependencies]`, `[target.'cfg(..)'.dependencies]`,
/// `[workspace.dependencies]`), or one dependency's own table
/// (`[dependencies.log]`).
enum Table {
    Other,
    List,
    One(String),
}

fn is_dependencies(segment: &str) -> bool {
    matches!(
        segment,
        "dependencies" | "dev-dependencies" | "build-dependencies"
    )
}

fn table(segments: &[String]) -> Table {
    let list = |s: &[String]| match s {
        [d] => is_dependencies(d),
        [w, d] => w == "workspace" && d == "dependencies",
        [t, _, d] => t == "target" && is_dependencies(d),
        _ => false,
    };
    match segments.split_last() {
        Some(_) if list(segments) => Table::List,
        Some((name, parent)) if list(parent) => Table::One(name.clone()),
        _ => Table::Other,
    }
}

/// Every dependency entry of a manifest that says `package` or `workspace`.
fn dependencies(text: &str) -> Vec<Dep> {
    let mut deps: Vec<Dep> = Vec::new();
    let mut at = Table::Other;
    let mut set = |name: &str, key: &str, value: &str| {
        let i = match deps.iter().position(|d| d.name == name) {
            Some(i) => i,
            None => {
                deps.push(Dep {
                    name: name.to_owned(),
                    ..Dep::default()
                });
                deps.len() - 1
            }
        };
        match key {
            "package" => deps[i].package = Some(unquote(value).to_owned()),
            "workspace" => deps[i].workspace = value == "true",
            _ => {}
        }
    };
    for line in text.lines() {
        let line = strip_comment(line).trim();
        if let Some(h) = header(line) {
            at = table(&h);
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match &at {
            Table::Other => {}
            Table::One(name) => set(name, unquote(key), value),
            Table::List => match key.split_once('.') {
                // `log.package = "elide"`
                Some((name, sub)) => set(unquote(name.trim()), unquote(sub.trim()), value),
                // `log = { package = "elide", path = ".." }`
                None => {
                    let Some(inline) = value.strip_prefix('{') else {
                        continue;
                    };
                    for pair in inline.trim_end_matches('}').split(',') {
                        if let Some((k, v)) = pair.split_once('=') {
                            set(unquote(key), unquote(k.trim()), v.trim());
                        }
                    }
                }
            },
        }
    }
    deps
}

/// The dotted segments of a `[table]` header line (not `[[array]]`).
fn header(line: &str) -> Option<Vec<String>> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    if inner.starts_with('[') {
        return None;
    }
    Some(
        inner
            .split('.')
            .map(|s| unquote(s.trim()).to_owned())
            .collect(),
    )
}

fn unquote(s: &str) -> &str {
    s.trim_matches(|c| c == '"' || c == '\'')
}

/// The line up to a `#` that is not inside a string.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => return &line[..i],
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamed(manifest: &str) -> Option<String> {
        dependencies(manifest)
            .into_iter()
            .find(|d| d.package.as_deref() == Some(PACKAGE))
            .map(|d| d.name)
    }

    /// Every way a manifest can rename a dependency is read; other
    /// packages, comments and other tables are not.
    #[test]
    fn a_rename_is_found_in_every_manifest_form() {
        for (manifest, name) in [
            (
                "[dependencies]\nlog = { package = \"elide\", path = \"../facade\" }",
                "log",
            ),
            (
                "[dev-dependencies]\nmy-log = { version = \"0.1\", package = 'elide' } # x",
                "my-log",
            ),
            ("[dependencies.tracing]\npackage = \"elide\"\n", "tracing"),
            ("[dependencies]\nlog.package = \"elide\"", "log"),
            (
                "[target.'cfg(unix)'.dependencies]\nlog = { package = \"elide\" }",
                "log",
            ),
            (
                "[workspace.dependencies]\nlog = { package = \"elide\" }",
                "log",
            ),
        ] {
            assert_eq!(renamed(manifest).as_deref(), Some(name), "{manifest}");
        }
        for manifest in [
            "[dependencies]\nelide = \"0.1\"\nlog = \"0.4\"",
            "[dependencies]\nlog = { package = \"elider\" }",
            "[package]\npackage = \"elide\"",
            "[dependencies]\n# log = { package = \"elide\" }",
            "[features]\nlog = { package = \"elide\" }",
            "[workspace.package]\nlog = { package = \"elide\" }",
            "[foo.dependencies]\nlog = { package = \"elide\" }",
            "[target.'cfg(unix)'.features]\nlog = { package = \"elide\" }",
            "[target.x.y]\nlog = { package = \"elide\" }",
        ] {
            assert_eq!(renamed(manifest), None, "{manifest}");
        }
    }

    /// `workspace = true` is noted, so the workspace's table is read.
    #[test]
    fn an_inherited_dependency_is_noted() {
        let deps = dependencies("[dependencies]\nlog = { workspace = true }\nx.workspace = true");
        assert!(deps.iter().all(|d| d.workspace && d.package.is_none()));
        assert_eq!(deps.len(), 2);
    }

    /// A `#` inside a string is not a comment.
    #[test]
    fn comments_end_outside_strings() {
        assert_eq!(strip_comment("a = \"#x\" # c"), "a = \"#x\" ");
        assert_eq!(strip_comment("a = '#' "), "a = '#' ");
        assert_eq!(strip_comment("a = \"ab#c\" # d"), "a = \"ab#c\" ");
        assert_eq!(strip_comment("a = \"it's\" # d"), "a = \"it's\" ");
    }

    /// A member's `log = { workspace = true }` finds the rename in the
    /// nearest manifest above it that has a `[workspace]` (real files).
    #[test]
    fn an_inherited_rename_is_read_from_the_workspace_manifest() {
        let root =
            std::env::temp_dir().join(format!("elide-macros-manifest-{}", std::process::id()));
        let member = root.join("member");
        std::fs::create_dir_all(&member).unwrap();
        let write = |dir: &Path, text: &str| std::fs::write(dir.join("Cargo.toml"), text).unwrap();
        write(
            &root,
            "[workspace]\nmembers = [\"member\"]\n\n[workspace.dependencies]\n\
             my-log = { package = \"elide\", path = \"../facade\" }\nother = \"1\"\n",
        );
        write(
            &member,
            "[package]\nname = \"member\"\n\n[dependencies]\nmy-log = { workspace = true }\n",
        );
        let found = lookup(&member);
        // Inherited under another name than the workspace's rename: none.
        write(&member, "[dependencies]\nother = { workspace = true }\n");
        let other = lookup(&member);
        // No workspace above: none.
        std::fs::remove_file(root.join("Cargo.toml")).unwrap();
        write(&member, "[dependencies]\nmy-log = { workspace = true }\n");
        let orphan = lookup(&member);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(found.as_deref(), Some("my_log"));
        assert_eq!(other, None);
        assert_eq!(orphan, None);
    }
}
