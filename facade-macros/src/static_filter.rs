//! Build-time filters from the environment: `ELIDE_STATIC_LEVEL`,
//! `ELIDE_RELEASE_STATIC_LEVEL`, `ELIDE_STATIC_CHECKS`,
//! `ELIDE_STATIC_TELEMETRY`.
//!
//! Syntax (env_logger's): comma-separated directives, each `value` (the
//! default) or `path=value`, or a bare `path` (its most verbose value:
//! `trace`, or `on`). A path is a crate or module path (`my_app::db`) or a
//! site's literal target; the longest directive that covers a namespace on a
//! `::` boundary decides. Whitespace around directives is ignored; an unset
//! or empty variable is no filter.

/// The variables, in the order the macros crate's build script declares them.
pub(crate) const LEVEL_VAR: &str = "ELIDE_STATIC_LEVEL";
/// Release builds' level filter; `ELIDE_STATIC_LEVEL` when unset.
pub(crate) const RELEASE_LEVEL_VAR: &str = "ELIDE_RELEASE_STATIC_LEVEL";
/// Which crates and modules keep `check!`, `#[checked]` and `debug_mode!`.
pub(crate) const CHECKS_VAR: &str = "ELIDE_STATIC_CHECKS";
/// Which crates and modules keep `telemetry!` and `counter!`.
pub(crate) const TELEMETRY_VAR: &str = "ELIDE_STATIC_TELEMETRY";

/// A parsed filter: a default and per-path rules.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Filter<T> {
    /// The value for namespaces no rule covers (`None`: not restricted).
    pub(crate) default: Option<T>,
    /// `(path, value)` in the order written; a later duplicate wins.
    pub(crate) rules: Vec<(String, T)>,
}

/// How one kind of filter reads its values.
pub(crate) struct Values<T> {
    /// The value of a bare path (`my_app` alone).
    pub(crate) bare: T,
    /// Parses a value.
    pub(crate) parse: fn(&str) -> Option<T>,
    /// What the value may be, for the error message.
    pub(crate) expected: &'static str,
}

impl<T: Copy> Filter<T> {
    /// Parses `text`; an error names the variable, its value and the bad
    /// directive.
    pub(crate) fn parse(var: &str, text: &str, values: &Values<T>) -> Result<Filter<T>, String> {
        let mut filter = Filter {
            default: None,
            rules: Vec::new(),
        };
        for directive in text.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            let bad = |why: String| format!("{var}={text:?}: bad directive `{directive}`: {why}");
            match directive.split_once('=') {
                Some((path, value)) => {
                    let (path, value) = (path.trim(), value.trim());
                    if !is_path(path) {
                        return Err(bad(format!(
                            "`{path}` is not a crate or module path (like `my_app::db`)"
                        )));
                    }
                    let v = (values.parse)(value).ok_or_else(|| {
                        bad(format!(
                            "unknown value `{value}` (expected {})",
                            values.expected
                        ))
                    })?;
                    filter.rules.push((path.to_owned(), v));
                }
                None => match (values.parse)(directive) {
                    Some(v) => filter.default = Some(v),
                    None if is_path(directive) => {
                        filter.rules.push((directive.to_owned(), values.bare))
                    }
                    None => {
                        return Err(bad(format!(
                            "neither a value ({}) nor a crate or module path",
                            values.expected
                        )))
                    }
                },
            }
        }
        Ok(filter)
    }

    /// The value for `namespace`: the longest covering rule, else the
    /// default.
    pub(crate) fn lookup(&self, namespace: &str) -> Option<T> {
        let mut best: Option<(usize, T)> = None;
        for (path, v) in &self.rules {
            if covers(path, namespace) && best.map_or(true, |(len, _)| path.len() >= len) {
                best = Some((path.len(), *v));
            }
        }
        best.map(|(_, v)| v).or(self.default)
    }
}

/// Reads and parses a variable; `Ok(None)` when unset or empty.
pub(crate) fn read<T: Copy>(var: &str, values: &Values<T>) -> Result<Option<Filter<T>>, String> {
    match std::env::var(var) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => Filter::parse(var, &text, values).map(Some),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(raw)) => {
            Err(format!("{var}={raw:?}: the value is not valid UTF-8"))
        }
    }
}

/// Level values: `off`, `error`, ..., `trace`.
pub(crate) const LEVELS: Values<u8> = Values {
    bare: crate::level::TRACE,
    parse: crate::level::parse_threshold,
    expected: "off, error, warn, info, debug or trace",
};

/// On/off values for checks and telemetry.
pub(crate) const SWITCH: Values<bool> = Values {
    bare: true,
    parse: parse_switch,
    expected: "on or off",
};

fn parse_switch(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// Whether `path` covers `namespace`: equal, or a prefix ending at `::`.
/// The rule `elide`'s `static_limit` applies at compile time (through its
/// `namespace::covers_at`); a copy, because a proc-macro crate cannot
/// depend on `elide` and this one decides literal targets while expanding.
pub(crate) fn covers(path: &str, namespace: &str) -> bool {
    namespace
        .strip_prefix(path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
}

/// `ident(::ident)*`, or a target such as `radical.asyncflow` (letters,
/// digits, `_`, `.`, `-` between the `::`).
fn is_path(text: &str) -> bool {
    !text.is_empty()
        && text.split("::").all(|seg| {
            !seg.is_empty()
                && seg
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(text: &str) -> Result<Filter<u8>, String> {
        Filter::parse(LEVEL_VAR, text, &LEVELS)
    }

    #[test]
    fn longest_path_on_a_module_boundary_wins() {
        let f = levels("info, my_app::db=trace ,noisy_dep=off,my_app=warn").unwrap();
        assert_eq!(f.lookup("my_app::db::pool"), Some(5));
        assert_eq!(f.lookup("my_app::db"), Some(5));
        assert_eq!(f.lookup("my_app::dbx"), Some(2));
        assert_eq!(f.lookup("my_app"), Some(2));
        assert_eq!(f.lookup("noisy_dep::x"), Some(0));
        assert_eq!(f.lookup("noisy_depot"), Some(3));
    }

    #[test]
    fn bare_path_is_its_most_verbose_value_and_no_default_is_none() {
        let f = levels("my_app").unwrap();
        assert_eq!(f.lookup("my_app::x"), Some(5));
        assert_eq!(f.lookup("other"), None);
        let c = Filter::parse(CHECKS_VAR, "off,dep=on,x", &SWITCH).unwrap();
        assert_eq!(c.lookup("dep::a"), Some(true));
        assert_eq!(c.lookup("x"), Some(true));
        assert_eq!(c.lookup("app"), Some(false));
    }

    #[test]
    fn errors_name_the_variable_and_the_bad_directive() {
        let e = levels("info,dep=verbose").unwrap_err();
        assert!(
            e.starts_with("ELIDE_STATIC_LEVEL=\"info,dep=verbose\""),
            "{e}"
        );
        assert!(
            e.contains("`dep=verbose`") && e.contains("`verbose`"),
            "{e}"
        );
        let e = levels("info,a b").unwrap_err();
        assert!(e.contains("`a b`"), "{e}");
        let e = levels("=info").unwrap_err();
        assert!(e.contains("`=info`"), "{e}");
        let e = Filter::parse(CHECKS_VAR, "dep=maybe", &SWITCH).unwrap_err();
        assert!(e.contains("on or off"), "{e}");
    }

    /// A filter variable that is unset or blank is no filter; one that is
    /// set is parsed, and a bad one is an error, not ignored.
    #[test]
    fn the_variable_is_read_unset_blank_or_parsed() {
        const VAR: &str = "ELIDE_MACROS_TEST_FILTER_READ";
        std::env::remove_var(VAR);
        assert!(read(VAR, &LEVELS).unwrap().is_none());
        std::env::set_var(VAR, " \t");
        assert!(read(VAR, &LEVELS).unwrap().is_none());
        std::env::set_var(VAR, "warn,dep=off");
        let f = read(VAR, &LEVELS).unwrap().expect("a filter");
        assert_eq!((f.lookup("app"), f.lookup("dep::x")), (Some(2), Some(0)));
        std::env::set_var(VAR, "info,dep=verbose");
        assert!(read(VAR, &LEVELS).unwrap_err().contains("`verbose`"));
        std::env::remove_var(VAR);
    }
}
