//! The namespace cascade (radical.utils `get_env_ns`) and the resolution of
//! one key over a snapshot: pure functions, no process environment.

use std::ffi::{OsStr, OsString};
use std::fmt;

use super::{EnvSnapshot, Origin};
use crate::site::namespace::covers;

/// The variables to try for `key` in namespace `prefix`, most specific first.
///
/// The site's own cascade comes first (`A_B_C_KEY`, `A_B_KEY`, `A_KEY`). If
/// an application root is set and does not already cover the site, the
/// root's cascade follows (`R_S_KEY`, `R_KEY`), so a site in crate `my_app`
/// of an app rooted at `radical.asyncflow` obeys `RADICAL_ASYNCFLOW_LOG_LVL`
/// while `MY_APP_LOG_LVL` still beats it. Names are never repeated.
pub(crate) fn cascade(prefix: &str, root: Option<&str>, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    push_cascade(&mut out, prefix, key);
    if let Some(root) = root.filter(|r| !covers(r, prefix)) {
        push_cascade(&mut out, root, key);
    }
    out
}

/// `P_KEY` for every `_`-bounded head `P` of `prefix`, longest first. Heads
/// that are empty or end in `_` (from `a::_b`) name no namespace and are skipped.
fn push_cascade(out: &mut Vec<String>, prefix: &str, key: &str) {
    let underscores = prefix.rmatch_indices('_').map(|(i, _)| i);
    for end in [prefix.len()].into_iter().chain(underscores) {
        let head = &prefix[..end];
        if head.is_empty() || head.ends_with('_') {
            continue;
        }
        let name = format!("{head}_{key}");
        if !out.contains(&name) {
            out.push(name);
        }
    }
}

/// The process-wide fallback variable of `key`. Always RADICAL's
/// (radical.utils' `DefaultConfig`), whatever the namespace: a non-RADICAL
/// root already has its own catch-all in `<ROOT>_<KEY>`.
pub(crate) fn default_var(key: &str) -> String {
    format!("RADICAL_DEFAULT_{key}")
}

/// A value that was present but could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejected {
    /// The variable.
    pub(crate) var: String,
    /// Its raw value.
    pub(crate) raw: OsString,
    /// Why it was rejected.
    pub(crate) reason: String,
}

/// The outcome of resolving one key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Decided<T> {
    /// The effective value.
    pub(crate) value: T,
    /// Who decided it.
    pub(crate) origin: Origin,
    /// Every variable looked at, in order.
    pub(crate) searched: Vec<String>,
    /// Values that were set but rejected (each becomes one warning).
    pub(crate) rejected: Vec<Rejected>,
}

/// A warning about a rejected value, naming the fallback that was used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Warning {
    pub(crate) var: String,
    pub(crate) raw: OsString,
    /// The entries of the value that are ignored (`the target /x`), when
    /// the rest of it still applies; `None`: the whole value is ignored.
    pub(crate) part: Option<String>,
    pub(crate) reason: String,
    pub(crate) fallback: String,
}

impl Warning {
    /// A warning that the whole value `raw` of `var` is ignored.
    pub(crate) fn new(
        var: &str,
        raw: &OsStr,
        reason: impl Into<String>,
        fallback: impl Into<String>,
    ) -> Warning {
        Warning {
            var: var.to_owned(),
            raw: raw.to_owned(),
            part: None,
            reason: reason.into(),
            fallback: fallback.into(),
        }
    }
}

/// Longest echo of a value, a reason or a fallback in a warning, in bytes.
pub(crate) const ECHO_MAX: usize = 160;

/// `text` cut to its first `ECHO_MAX` bytes (at a character boundary),
/// saying how long it was, so a huge value still gives a readable warning.
pub(crate) fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    clip_to(text, ECHO_MAX)
}

/// `text` cut to its first `max` bytes, saying how long it was.
fn clip_to(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len()).into()
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `{:?}` escapes control characters and shows invalid UTF-8 as escapes.
        let raw = format!("{:?}", self.raw.to_string_lossy());
        f.write_str("elide: ignoring ")?;
        if let Some(part) = &self.part {
            write!(f, "{} of ", clip_to(part, 4 * ECHO_MAX))?;
        }
        write!(
            f,
            "{}={}: {}; using {}",
            clip(&self.var),
            clip(&raw),
            // A reason may list a few clipped values (`LOG_TGT` targets).
            clip_to(&self.reason, 4 * ECHO_MAX),
            clip(&self.fallback)
        )
    }
}

impl<T> Decided<T> {
    /// A value decided without looking at the environment.
    pub(crate) fn new(value: T, origin: Origin) -> Decided<T> {
        let (searched, rejected) = (Vec::new(), Vec::new());
        Decided {
            value,
            origin,
            searched,
            rejected,
        }
    }
}

impl<T: fmt::Display> Decided<T> {
    /// The same decision with the value as text.
    pub(crate) fn into_text(self) -> Decided<String> {
        Decided {
            value: self.value.to_string(),
            origin: self.origin,
            searched: self.searched,
            rejected: self.rejected,
        }
    }

    /// One warning per rejected value, naming the value actually used.
    pub(crate) fn warnings(&self) -> Vec<Warning> {
        let fallback = match &self.origin {
            Origin::Default => format!("{} (the built-in default)", self.value),
            o => format!("{} (from {o})", self.value),
        };
        self.rejected
            .iter()
            .map(|r| Warning::new(&r.var, &r.raw, r.reason.as_str(), fallback.as_str()))
            .collect()
    }
}

/// Resolves one key.
///
/// `chains` are tried in order (for `LOG_LVL`: its cascade, then the legacy
/// `VERBOSE` cascade). In each, the first variable that exists decides the
/// chain, even if empty. An empty value passes to the next chain; a value
/// that does not parse is rejected and skips the remaining chains (RADICAL
/// consults `VERBOSE` only when `LOG_LVL` is unset or empty). Then
/// `default_var` (if any), then `builtin`.
pub(crate) fn resolve<T>(
    snap: &EnvSnapshot,
    chains: &[Vec<String>],
    default_var: Option<&str>,
    parse: impl Fn(&str) -> Result<T, String>,
    builtin: T,
) -> Decided<T> {
    let mut parsed = None;
    let found = find(snap, chains, default_var, &mut |s| {
        parse(s).map(|v| parsed = Some(v))
    });
    let (value, origin) = match (parsed, found.origin) {
        (Some(v), origin @ Origin::Env(_)) => (v, origin),
        _ => (builtin, Origin::Default),
    };
    Decided {
        value,
        origin,
        searched: found.searched,
        rejected: found.rejected,
    }
}

/// The search behind [`resolve`], not generic (one copy in the binary
/// whatever the value types): `parse` is told each candidate value and
/// keeps the one it accepts; the origin is the variable whose value it
/// was told last.
fn find(
    snap: &EnvSnapshot,
    chains: &[Vec<String>],
    default_var: Option<&str>,
    parse: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Decided<()> {
    let mut searched: Vec<String> = chains.iter().flatten().cloned().collect();
    searched.extend(default_var.map(str::to_owned));
    for var in &searched {
        snap.look_at(var);
    }
    let mut rejected = Vec::new();
    let mut try_var = |var: &str| -> Outcome {
        let Some(raw) = snap.get(var) else {
            return Outcome::Absent;
        };
        let reason = match raw.to_str() {
            // Empty or only whitespace: "not set", as in RADICAL.
            Some(s) if s.trim().is_empty() => return Outcome::Empty,
            Some(s) => match parse(s) {
                Ok(()) => return Outcome::Value,
                Err(reason) => reason,
            },
            None => "not valid UTF-8".to_owned(),
        };
        rejected.push(Rejected {
            var: var.to_owned(),
            raw: raw.to_owned(),
            reason,
        });
        Outcome::Rejected
    };
    let mut decided = None;
    'chains: for chain in chains {
        for var in chain {
            match try_var(var) {
                Outcome::Absent => continue,
                Outcome::Empty => continue 'chains,
                Outcome::Value => decided = Some(var.clone()),
                Outcome::Rejected => {}
            }
            break 'chains;
        }
    }
    if let (None, Some(default_var)) = (&decided, default_var) {
        if let Outcome::Value = try_var(default_var) {
            decided = Some(default_var.to_owned());
        }
    }
    Decided {
        value: (),
        origin: decided.map_or(Origin::Default, Origin::Env),
        searched,
        rejected,
    }
}

enum Outcome {
    Absent,
    Empty,
    Value,
    Rejected,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::env::parse::{parse_flag, parse_level};
    use crate::record::level::LevelFilter;

    fn snap(vars: &[(&str, &str)]) -> EnvSnapshot {
        EnvSnapshot::from_vars(vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))))
    }

    fn level(s: &EnvSnapshot, prefix: &str) -> Decided<LevelFilter> {
        resolve(
            s,
            &[
                cascade(prefix, None, "LOG_LVL"),
                cascade(prefix, None, "VERBOSE"),
            ],
            Some(&default_var("LOG_LVL")),
            parse_level,
            LevelFilter::Error,
        )
    }

    fn debug(s: &EnvSnapshot, prefix: &str, root: Option<&str>) -> Decided<bool> {
        resolve(
            s,
            &[cascade(prefix, root, "DEBUG")],
            Some(&default_var("DEBUG")),
            parse_flag,
            false,
        )
    }

    #[test]
    fn cascade_is_most_specific_first() {
        assert_eq!(
            cascade("RADICAL_ASYNCFLOW_ENGINE", None, "LOG_LVL"),
            [
                "RADICAL_ASYNCFLOW_ENGINE_LOG_LVL",
                "RADICAL_ASYNCFLOW_LOG_LVL",
                "RADICAL_LOG_LVL"
            ]
        );
        assert_eq!(cascade("APP", None, "DEBUG"), ["APP_DEBUG"]);
        assert!(cascade("", None, "DEBUG").is_empty());
        // Doubled or edge underscores name no namespace.
        assert_eq!(
            cascade("MY_APP__PRIVATE", None, "DEBUG"),
            ["MY_APP__PRIVATE_DEBUG", "MY_APP_DEBUG", "MY_DEBUG"]
        );
        assert_eq!(cascade("_X", None, "DEBUG"), ["_X_DEBUG"]);
    }

    #[test]
    fn cascade_with_root() {
        // Covered by the root: unchanged.
        assert_eq!(
            cascade(
                "RADICAL_ASYNCFLOW_ENGINE",
                Some("RADICAL_ASYNCFLOW"),
                "LOG_LVL"
            ),
            cascade("RADICAL_ASYNCFLOW_ENGINE", None, "LOG_LVL")
        );
        // Not covered: own cascade, then the root's.
        assert_eq!(
            cascade("MY_APP_DB", Some("RADICAL_ASYNCFLOW"), "LOG_LVL"),
            [
                "MY_APP_DB_LOG_LVL",
                "MY_APP_LOG_LVL",
                "MY_LOG_LVL",
                "RADICAL_ASYNCFLOW_LOG_LVL",
                "RADICAL_LOG_LVL"
            ]
        );
        // A sibling RADICAL package keeps its own variables first.
        assert_eq!(
            cascade("RADICAL_UTILS", Some("RADICAL_ASYNCFLOW"), "DEBUG"),
            [
                "RADICAL_UTILS_DEBUG",
                "RADICAL_DEBUG",
                "RADICAL_ASYNCFLOW_DEBUG"
            ]
        );
        assert_eq!(
            cascade("", Some("RADICAL_ASYNCFLOW"), "DEBUG"),
            ["RADICAL_ASYNCFLOW_DEBUG", "RADICAL_DEBUG"]
        );
    }

    #[test]
    fn more_specific_variable_wins() {
        let s = snap(&[
            ("RADICAL_ASYNCFLOW_LOG_LVL", "info"),
            ("RADICAL_LOG_LVL", "debug"),
        ]);
        let d = level(&s, "RADICAL_ASYNCFLOW_ENGINE");
        assert_eq!(d.value, LevelFilter::Info);
        assert_eq!(d.origin, Origin::Env("RADICAL_ASYNCFLOW_LOG_LVL".into()));
        assert_eq!(level(&s, "RADICAL_PILOT").value, LevelFilter::Debug);
        assert_eq!(level(&s, "OTHER").value, LevelFilter::Error);
        assert!(d.rejected.is_empty());
    }

    #[test]
    fn empty_shadows_and_goes_to_default() {
        let s = snap(&[
            ("RADICAL_ASYNCFLOW_LOG_LVL", ""),
            ("RADICAL_LOG_LVL", "debug"),
            ("RADICAL_DEFAULT_LOG_LVL", "warn"),
        ]);
        let d = level(&s, "RADICAL_ASYNCFLOW");
        assert_eq!(d.value, LevelFilter::Warn);
        assert_eq!(d.origin, Origin::Env("RADICAL_DEFAULT_LOG_LVL".into()));
        // Whitespace only counts as empty, too.
        let s = snap(&[
            ("RADICAL_ASYNCFLOW_LOG_LVL", " \t"),
            ("RADICAL_LOG_LVL", "debug"),
        ]);
        let d = level(&s, "RADICAL_ASYNCFLOW");
        assert_eq!((d.value, d.origin), (LevelFilter::Error, Origin::Default));
        assert!(d.rejected.is_empty());
    }

    #[test]
    fn default_variable_then_builtin() {
        let s = snap(&[("RADICAL_DEFAULT_LOG_LVL", "INFO")]);
        assert_eq!(level(&s, "RADICAL_ASYNCFLOW").value, LevelFilter::Info);
        assert_eq!(level(&s, "MY_APP").value, LevelFilter::Info);
        let s = snap(&[("RADICAL_DEFAULT_LOG_LVL", "")]);
        assert_eq!(level(&s, "MY_APP").origin, Origin::Default);
        // No bare `LOG_LVL` fallback.
        let s = snap(&[("LOG_LVL", "trace"), ("DEBUG", "1")]);
        assert_eq!(level(&s, "RADICAL").value, LevelFilter::Error);
        assert!(!debug(&s, "RADICAL", None).value);
    }

    #[test]
    fn verbose_only_when_log_lvl_unset_or_empty() {
        let s = snap(&[("RADICAL_VERBOSE", "debug")]);
        let d = level(&s, "RADICAL_ASYNCFLOW");
        assert_eq!(
            (d.value, d.origin),
            (LevelFilter::Debug, Origin::Env("RADICAL_VERBOSE".into()))
        );
        let s = snap(&[
            ("RADICAL_LOG_LVL", ""),
            ("RADICAL_ASYNCFLOW_VERBOSE", "trace"),
        ]);
        assert_eq!(level(&s, "RADICAL_ASYNCFLOW").value, LevelFilter::Trace);
        // A less specific LOG_LVL still beats a more specific VERBOSE.
        let s = snap(&[
            ("RADICAL_LOG_LVL", "info"),
            ("RADICAL_ASYNCFLOW_VERBOSE", "trace"),
        ]);
        assert_eq!(level(&s, "RADICAL_ASYNCFLOW").value, LevelFilter::Info);
        // A bad LOG_LVL goes to the default, not to VERBOSE.
        let s = snap(&[("RADICAL_LOG_LVL", "loud"), ("RADICAL_VERBOSE", "trace")]);
        let d = level(&s, "RADICAL_ASYNCFLOW");
        assert_eq!(
            (d.value, d.origin.clone()),
            (LevelFilter::Error, Origin::Default)
        );
        assert_eq!(d.rejected.len(), 1);
    }

    #[test]
    fn rejected_values_warn_with_the_fallback() {
        let s = snap(&[
            ("RADICAL_LOG_LVL", "verbose"),
            ("RADICAL_DEFAULT_LOG_LVL", "warning"),
        ]);
        let d = level(&s, "RADICAL_ASYNCFLOW");
        assert_eq!(d.value, LevelFilter::Warn);
        let w = d.warnings();
        assert_eq!(w.len(), 1);
        let text = w[0].to_string();
        for part in [
            "RADICAL_LOG_LVL",
            "\"verbose\"",
            "warn (from RADICAL_DEFAULT_LOG_LVL)",
        ] {
            assert!(text.contains(part), "{text}");
        }
        // A bad default falls back to the built-in one, and both are reported.
        let s = snap(&[("RADICAL_LOG_LVL", "-1"), ("RADICAL_DEFAULT_LOG_LVL", "70")]);
        let d = level(&s, "RADICAL");
        assert_eq!(
            (d.value, d.origin.clone()),
            (LevelFilter::Error, Origin::Default)
        );
        let vars: Vec<_> = d.warnings().into_iter().map(|w| w.var).collect();
        assert_eq!(vars, ["RADICAL_LOG_LVL", "RADICAL_DEFAULT_LOG_LVL"]);
        assert!(d.warnings()[0]
            .to_string()
            .contains("error (the built-in default)"));
    }

    #[test]
    fn non_utf8_is_rejected_not_lost() {
        use std::os::unix::ffi::OsStringExt;
        let s = EnvSnapshot::from_vars([
            (
                "RADICAL_ASYNCFLOW_DEBUG".to_string(),
                OsString::from_vec(b"o\xffn".to_vec()),
            ),
            ("RADICAL_DEBUG".to_string(), OsString::from("1")),
        ]);
        let d = debug(&s, "RADICAL_ASYNCFLOW", None);
        // The bad variable exists, so it shadows RADICAL_DEBUG; it is reported.
        assert!(!d.value);
        assert_eq!(d.origin, Origin::Default);
        let w = d.warnings();
        assert_eq!(w.len(), 1);
        assert!(w[0].to_string().contains("not valid UTF-8"), "{}", w[0]);
        assert!(w[0].to_string().contains("o\u{fffd}n"), "{}", w[0]);
    }

    #[test]
    fn debug_precedence_from_the_field() {
        let on = |vars: &[(&str, &str)]| debug(&snap(vars), "RADICAL_ASYNCFLOW_ENGINE", None).value;
        assert!(on(&[("RADICAL_ASYNCFLOW_DEBUG", "1")]));
        assert!(on(&[("RADICAL_DEBUG", "yes")]));
        assert!(!on(&[
            ("RADICAL_ASYNCFLOW_DEBUG", "0"),
            ("RADICAL_DEBUG", "1")
        ]));
        assert!(!on(&[]));
        assert!(on(&[("RADICAL_DEFAULT_DEBUG", "on")]));
        assert!(!on(&[
            ("RADICAL_DEBUG", "maybe"),
            ("RADICAL_DEFAULT_DEBUG", "")
        ]));
    }

    #[test]
    fn root_makes_foreign_sites_controllable() {
        let s = snap(&[("RADICAL_ASYNCFLOW_DEBUG", "1")]);
        assert!(debug(&s, "MY_APP", Some("RADICAL_ASYNCFLOW")).value);
        assert!(!debug(&s, "MY_APP", None).value);
        let s = snap(&[("RADICAL_ASYNCFLOW_DEBUG", "1"), ("MY_APP_DEBUG", "0")]);
        assert!(!debug(&s, "MY_APP_DB", Some("RADICAL_ASYNCFLOW")).value);
    }

    #[test]
    fn a_long_value_is_cut_at_a_character_boundary() {
        assert_eq!(clip_to("abc", 3), "abc");
        // `é` is two bytes: a cut after 2 bytes would split it.
        assert_eq!(clip_to("aé", 2), "a... (3 bytes)");
        assert_eq!(clip_to("aébc", 3), "aé... (5 bytes)");
        assert_eq!(clip_to("€€", 4), "€... (6 bytes)");
    }
}
