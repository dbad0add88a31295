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
    outer.is_empty()
        || inner == outer
        || (inner.len() > outer.len()
            && inner.starts_with(outer)
            && inner.as_bytes()[outer.len()] == b'_')
}

/// The most specific rule in `rules` covering `prefix`.
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
