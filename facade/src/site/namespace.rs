//! Namespaces: how a site's target maps to configuration keys.
//!
//! A namespace is written the way the code spells it (`radical_asyncflow::engine`,
//! `radical.asyncflow`, `my-app`) and normalised to the environment prefix
//! form: upper case, with `::`, `.` and `-` turned into `_`
//! (`RADICAL_ASYNCFLOW_ENGINE`). API calls such as
//! [`set_level_for`](crate::set_level_for) use the same normalisation, so
//! `set_level_for("radical.asyncflow", ..)` and `RADICAL_ASYNCFLOW_LOG_LVL`
//! cover exactly the same sites.

/// The environment-prefix form of a namespace.
///
/// ```
/// assert_eq!(elide::env_prefix("radical_asyncflow::engine"), "RADICAL_ASYNCFLOW_ENGINE");
/// assert_eq!(elide::env_prefix("radical.asyncflow"), "RADICAL_ASYNCFLOW");
/// assert_eq!(elide::env_prefix("my-app"), "MY_APP");
/// ```
pub fn env_prefix(namespace: &str) -> String {
    let mut out = String::with_capacity(namespace.len());
    let mut chars = namespace.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ':' => {
                if chars.peek() == Some(&':') {
                    chars.next();
                }
                out.push('_');
            }
            '.' | '-' => out.push('_'),
            c => out.extend(c.to_uppercase()),
        }
    }
    out
}

/// Whether the normalised namespace `outer` contains `inner`: equal, or a
/// prefix ending at a `_` boundary (`RADICAL` covers `RADICAL_ASYNCFLOW`,
/// not `RADICALX`). The empty namespace covers everything.
pub(crate) fn covers(outer: &str, inner: &str) -> bool {
    outer.is_empty() || covers_at(outer, inner, "_")
}

/// Whether `outer` is `inner` or a prefix of it that ends where `sep`
/// follows: the one rule behind "a namespace and everything below it", for
/// normalised namespaces (`_`) and, at compile time, module paths (`::`).
pub(crate) const fn covers_at(outer: &str, inner: &str, sep: &str) -> bool {
    let (o, i, s) = (outer.as_bytes(), inner.as_bytes(), sep.as_bytes());
    if o.len() > i.len() {
        return false;
    }
    let mut k = 0;
    while k < o.len() {
        if o[k] != i[k] {
            return false;
        }
        k += 1;
    }
    if o.len() == i.len() {
        return true;
    }
    if i.len() < o.len() + s.len() {
        return false;
    }
    let mut k = 0;
    while k < s.len() {
        if i[o.len() + k] != s[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// The most specific rule in `rules` covering `prefix`.
/// A root namespace: the application's (`init_ns`), or the program's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Root {
    /// As given (`radical.asyncflow`).
    pub(crate) name: String,
    /// Its prefix form (`RADICAL_ASYNCFLOW`).
    pub(crate) prefix: String,
}

impl Root {
    pub(crate) fn new(name: &str) -> Root {
        let name = name.trim();
        Root {
            name: name.to_owned(),
            prefix: env_prefix(name),
        }
    }
}

/// The application root namespace `init_ns` set: its one owner. Kept here,
/// below the configuration, because the layouts spell names from it too;
/// the configuration reads it through [`root`].
static ROOT: std::sync::RwLock<Option<std::sync::Arc<Root>>> = std::sync::RwLock::new(None);

/// Sets the application root namespace. The caller (`init_ns`) then
/// rewrites the sites, whose settings depend on it.
pub(crate) fn set_root(name: &str) {
    *ROOT.write().unwrap_or_else(|e| e.into_inner()) = Some(std::sync::Arc::new(Root::new(name)));
}

/// The application root namespace, if `init_ns` set one.
pub(crate) fn root() -> Option<std::sync::Arc<Root>> {
    ROOT.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Calls `f` with the root namespace (as written, prefix form), if set.
pub(crate) fn with_root<R>(f: impl FnOnce(Option<(&str, &str)>) -> R) -> R {
    let root = ROOT.read().unwrap_or_else(|e| e.into_inner());
    f(root
        .as_deref()
        .map(|r| (r.name.as_str(), r.prefix.as_str())))
}

/// The rest of `namespace` after the part whose prefix form is `prefix`
/// (`radical_asyncflow::engine` under `RADICAL_ASYNCFLOW` -> `::engine`),
/// or `None` if `prefix` does not cover it. Compares as [`env_prefix`]
/// would, without allocating.
pub(crate) fn strip_prefix<'a>(namespace: &'a str, prefix: &str) -> Option<&'a str> {
    if prefix.is_empty() {
        return None;
    }
    let mut want = prefix.chars();
    let mut pending = want.next();
    let mut chars = namespace.char_indices().peekable();
    while let Some(expect) = pending {
        let (_, c) = chars.next()?;
        match c {
            ':' => {
                if chars.peek().map(|&(_, c)| c) == Some(':') {
                    chars.next();
                }
                if expect != '_' {
                    return None;
                }
                pending = want.next();
            }
            '.' | '-' => {
                if expect != '_' {
                    return None;
                }
                pending = want.next();
            }
            c => {
                for u in c.to_uppercase() {
                    if pending != Some(u) {
                        return None;
                    }
                    pending = want.next();
                }
            }
        }
    }
    let rest = match chars.peek() {
        Some(&(i, _)) => &namespace[i..],
        None => "",
    };
    // A boundary: the whole namespace, or a separator next.
    (rest.is_empty() || rest.starts_with([':', '.', '-', '_'])).then_some(rest)
}

#[cfg(test)]
pub(crate) fn most_specific<'a, T>(rules: &'a [(String, T)], prefix: &str) -> Option<&'a T> {
    most_specific_rule(rules, prefix).map(|(_, v)| v)
}

/// The most specific rule in `rules` covering `prefix`, with its namespace.
pub(crate) fn most_specific_rule<'a, T>(
    rules: &'a [(String, T)],
    prefix: &str,
) -> Option<&'a (String, T)> {
    rules
        .iter()
        .filter(|(ns, _)| covers(ns, prefix))
        .max_by_key(|(ns, _)| ns.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_normalisation() {
        assert_eq!(env_prefix("a::b::c"), "A_B_C");
        assert_eq!(
            env_prefix("radical.asyncflow.engine"),
            "RADICAL_ASYNCFLOW_ENGINE"
        );
        assert_eq!(env_prefix(""), "");
    }

    #[test]
    fn covering_respects_boundaries() {
        assert!(covers("RADICAL", "RADICAL_ASYNCFLOW"));
        assert!(covers("RADICAL_ASYNCFLOW", "RADICAL_ASYNCFLOW"));
        assert!(!covers("RADICAL_ASYNC", "RADICAL_ASYNCFLOW"));
        assert!(!covers("RADICAL_ASYNCFLOW_X", "RADICAL_ASYNCFLOW"));
        assert!(covers("", "ANYTHING"));
    }

    #[test]
    fn stripping_a_root_prefix() {
        let p = "RADICAL_ASYNCFLOW";
        assert_eq!(
            strip_prefix("radical_asyncflow::engine", p),
            Some("::engine")
        );
        assert_eq!(strip_prefix("radical.asyncflow.engine", p), Some(".engine"));
        assert_eq!(strip_prefix("radical_asyncflow", p), Some(""));
        assert_eq!(strip_prefix("radical_asyncflowx", p), None);
        assert_eq!(strip_prefix("radical", p), None);
        assert_eq!(strip_prefix("my_app::x", p), None);
        assert_eq!(strip_prefix("anything", ""), None);
        // Separators inside the prefix: `::`, `:`, `.` and `-` all read as `_`.
        assert_eq!(
            strip_prefix("radical::asyncflow::engine", p),
            Some("::engine")
        );
        assert_eq!(strip_prefix("radical-asyncflow.x", p), Some(".x"));
        assert_eq!(strip_prefix("radical:asyncflow", p), Some(""));
        // ... but only where the prefix has a `_`.
        assert_eq!(strip_prefix("radicalx::y", "RADICALX_Y"), Some(""));
        assert_eq!(strip_prefix("radic::al", "RADICAL"), None);
        assert_eq!(strip_prefix("radic.al", "RADICAL"), None);
    }

    #[test]
    fn most_specific_wins() {
        let rules = vec![
            ("A".to_string(), 1),
            ("A_B".to_string(), 2),
            ("C".to_string(), 3),
        ];
        assert_eq!(most_specific(&rules, "A_B_C"), Some(&2));
        assert_eq!(most_specific(&rules, "A_X"), Some(&1));
        assert_eq!(most_specific(&rules, "D"), None);
    }
}
