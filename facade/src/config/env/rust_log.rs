//! `RUST_LOG`, the `env_logger` directive string, as the last environment
//! fallback for a namespace's level: `info,my_app::db=trace,hyper=off`.
//!
//! Directives are comma-separated: `level` sets the level of every
//! namespace, `path=level` the level of `path` and everything below it
//! (matched like any namespace: `my_app::db` covers `my_app::db::pool`),
//! and a bare `path` means `path=trace`. The most specific directive wins.
//! `env_logger`'s `/regex` message filter is not supported: it is ignored
//! with a warning, as are directives that do not parse.

use crate::record::level::LevelFilter;
use crate::site::namespace::{covers, env_prefix};

use super::parse::parse_level;

/// A parsed `RUST_LOG`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Directives {
    /// The bare-level directive (the last one given).
    pub(crate) default: Option<LevelFilter>,
    /// `(namespace prefix, level)`, in the order given.
    pub(crate) rules: Vec<(String, LevelFilter)>,
    /// Directives that were ignored, with why.
    pub(crate) ignored: Vec<(String, String)>,
}

impl Directives {
    /// Parses a `RUST_LOG` value. Never fails: what cannot be used goes to
    /// `ignored`.
    pub(crate) fn parse(text: &str) -> Directives {
        let mut d = Directives::default();
        let spec = match text.split_once('/') {
            Some((spec, filter)) => {
                let why = "message filters (`/regex`) are not supported";
                d.ignored.push((format!("/{filter}"), why.to_owned()));
                spec
            }
            None => text,
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some((name, level)) => match (name.trim(), parse_level(level.trim())) {
                    ("", _) => d
                        .ignored
                        .push((part.to_owned(), "no module path before `=`".to_owned())),
                    (name, Ok(l)) => d.rules.push((env_prefix(name), l)),
                    (_, Err(reason)) => d.ignored.push((part.to_owned(), reason)),
                },
                None => match parse_level(part) {
                    Ok(l) => d.default = Some(l),
                    // A bare module path: everything it logs.
                    Err(_) if is_path(part) => d.rules.push((env_prefix(part), LevelFilter::Trace)),
                    Err(reason) => d.ignored.push((part.to_owned(), reason)),
                },
            }
        }
        d
    }

    /// The level `RUST_LOG` gives a namespace prefix, if any directive
    /// covers it: the longest covering rule, else the bare level.
    pub(crate) fn level_of(&self, prefix: &str) -> Option<LevelFilter> {
        self.rules
            .iter()
            .filter(|(p, _)| covers(p, prefix))
            .max_by_key(|(p, _)| p.len())
            .map(|(_, l)| *l)
            .or(self.default)
    }

    /// The most verbose level any directive sets.
    pub(crate) fn max_level(&self) -> Option<LevelFilter> {
        self.rules.iter().map(|(_, l)| *l).chain(self.default).max()
    }
}

/// A module path as `env_logger` takes it: identifiers and `::`.
fn is_path(s: &str) -> bool {
    s.split("::").all(|seg| {
        !seg.is_empty()
            && seg
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_logger_directives_set_levels_most_specific_first() {
        let d = Directives::parse("info, my_app::db=trace ,hyper=off,tokio");
        assert_eq!(d.level_of("MY_APP"), Some(LevelFilter::Info));
        assert_eq!(d.level_of("MY_APP_DB_POOL"), Some(LevelFilter::Trace));
        assert_eq!(d.level_of("HYPER_PROTO"), Some(LevelFilter::Off));
        assert_eq!(d.level_of("TOKIO"), Some(LevelFilter::Trace));
        assert_eq!(d.max_level(), Some(LevelFilter::Trace));
        assert!(d.ignored.is_empty());
    }

    #[test]
    fn a_bare_path_may_hold_underscores_dashes_and_dots() {
        // Crate names with `-`, targets with `.`: all bare paths, each `=trace`.
        let d = Directives::parse("my_app,my-crate,svc.v2");
        assert_eq!(d.level_of("MY_APP"), Some(LevelFilter::Trace));
        assert_eq!(
            d.level_of(&env_prefix("my-crate")),
            Some(LevelFilter::Trace)
        );
        assert_eq!(d.level_of(&env_prefix("svc.v2")), Some(LevelFilter::Trace));
        assert_eq!(d.rules.len(), 3, "{d:?}");
        let d = Directives::parse("a b,x:y");
        assert!(d.rules.is_empty(), "{d:?}");
        assert_eq!(d.ignored.len(), 2, "{d:?}");
    }

    #[test]
    fn without_a_bare_level_uncovered_namespaces_are_left_to_the_default() {
        let d = Directives::parse("hyper=warn");
        assert_eq!(d.level_of("HYPER"), Some(LevelFilter::Warn));
        assert_eq!(d.level_of("HYPERX"), None);
        assert_eq!(d.level_of("MY_APP"), None);
    }

    #[test]
    fn bad_directives_are_ignored_and_named() {
        let d = Directives::parse("info,db=verbose,=debug,a b,x/foo.*");
        assert_eq!(d.default, Some(LevelFilter::Info));
        let names: Vec<_> = d.ignored.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["/foo.*", "db=verbose", "=debug", "a b"]);
        assert_eq!(d.level_of("DB"), Some(LevelFilter::Info));
    }
}
