//! The static gate as the expansions and `describe()` see it: level numbers
//! and the interest byte the generated code names, the limits the cargo
//! features set (declared on `elide` only: the expansions test them in
//! `if const { .. }`, so `elide-macros` has no features), the compile-time
//! matcher for build-time filters with rules below a crate
//! (`ELIDE_STATIC_LEVEL="info,my_app::db=trace"`), and the gate of this
//! build for [`describe`](crate::describe).

use std::fmt;

use crate::record::level::{Level, LevelFilter};
use crate::site::namespace;

/// `LevelFilter::Off as u8`: the threshold below every level.
pub const LEVEL_OFF: u8 = LevelFilter::Off as u8;
/// `Level::Error as u8`.
pub const LEVEL_ERROR: u8 = Level::Error as u8;
/// `Level::Warn as u8`.
pub const LEVEL_WARN: u8 = Level::Warn as u8;
/// `Level::Info as u8`.
pub const LEVEL_INFO: u8 = Level::Info as u8;
/// `Level::Debug as u8`.
pub const LEVEL_DEBUG: u8 = Level::Debug as u8;
/// `Level::Trace as u8`.
pub const LEVEL_TRACE: u8 = Level::Trace as u8;
/// The interest byte of a check, `debug_mode!` or telemetry site that is
/// on (`true as u8`); such a site runs when `INTEREST_ON <= interest`.
pub const INTEREST_ON: u8 = 1;
/// The interest byte of a check or telemetry site that is off.
pub const INTEREST_OFF: u8 = 0;

/// Most restrictive of the level features in `flags` (`(set, level)`), or
/// `None` when none is set.
const fn most_restrictive(flags: [(bool, u8); 6]) -> Option<u8> {
    let (mut min, mut i) = (None, 0);
    while i < flags.len() {
        if flags[i].0 {
            min = match min {
                Some(m) if m <= flags[i].1 => Some(m),
                _ => Some(flags[i].1),
            };
        }
        i += 1;
    }
    min
}

/// The most restrictive `max_level_*` feature set, if any.
const MAX_FEATURE: Option<u8> = most_restrictive([
    (cfg!(feature = "max_level_off"), LEVEL_OFF),
    (cfg!(feature = "max_level_error"), LEVEL_ERROR),
    (cfg!(feature = "max_level_warn"), LEVEL_WARN),
    (cfg!(feature = "max_level_info"), LEVEL_INFO),
    (cfg!(feature = "max_level_debug"), LEVEL_DEBUG),
    (cfg!(feature = "max_level_trace"), LEVEL_TRACE),
]);

/// The most restrictive `release_max_level_*` feature set, if any.
const RELEASE_FEATURE: Option<u8> = most_restrictive([
    (cfg!(feature = "release_max_level_off"), LEVEL_OFF),
    (cfg!(feature = "release_max_level_error"), LEVEL_ERROR),
    (cfg!(feature = "release_max_level_warn"), LEVEL_WARN),
    (cfg!(feature = "release_max_level_info"), LEVEL_INFO),
    (cfg!(feature = "release_max_level_debug"), LEVEL_DEBUG),
    (cfg!(feature = "release_max_level_trace"), LEVEL_TRACE),
]);

/// The level limit of each kind of build: `[debug, release]`. In a build
/// without `debug_assertions` a `release_max_level_*` feature decides over
/// `max_level_*` (as in `log`); without one, `max_level_*`; neither: trace.
const fn level_limits(max: Option<u8>, release: Option<u8>) -> [u8; 2] {
    let debug = match max {
        Some(l) => l,
        None => LEVEL_TRACE,
    };
    [
        debug,
        match release {
            Some(l) => l,
            None => debug,
        },
    ]
}

/// The level limits the cargo features set, `[debug builds, release
/// builds]`; a site at level `L` exists when `L <= FEATURE_LEVEL[i]` (and the
/// build-time filters agree), `i` chosen by the calling crate's
/// `cfg!(debug_assertions)`.
pub const FEATURE_LEVEL: [u8; 2] = level_limits(MAX_FEATURE, RELEASE_FEATURE);

/// Whether the features keep a site at `level` in a kind of build (`0`
/// debug, `1` release).
const fn level_on(level: u8, build: usize) -> bool {
    level <= FEATURE_LEVEL[build]
}

/// One `bool` per kind of site and kind of build, named by the expansions
/// (`gate::INFO::DEBUG`): a site's `if` tests a path to a constant, which
/// the compiler evaluates once per crate and folds at any opt-level. A site
/// whose features decide alone hands the facade's `gate!` template the
/// kind's name and the template writes the condition, which is cheaper for
/// the compiler than the procedural macro spelling it out at every site.
pub mod gate {
    use super::{
        level_on, FEATURE_CHECKS, FEATURE_TELEMETRY, INTEREST_ON, LEVEL_DEBUG, LEVEL_ERROR,
        LEVEL_INFO, LEVEL_TRACE, LEVEL_WARN,
    };
    macro_rules! kinds {
        ($($kind:ident: $debug:expr, $release:expr;)*) => {$(
            #[allow(non_snake_case)]
            #[doc = concat!("`", stringify!($kind), "` sites: whether each kind of build keeps them.")]
            pub mod $kind {
                /// Kept in builds with `debug_assertions`.
                pub const DEBUG: bool = $debug;
                /// Kept in builds without `debug_assertions`.
                pub const RELEASE: bool = $release;
            }
        )*};
    }
    kinds! {
        ERROR: super::level_on(super::LEVEL_ERROR, 0), super::level_on(super::LEVEL_ERROR, 1);
        WARN: super::level_on(super::LEVEL_WARN, 0), super::level_on(super::LEVEL_WARN, 1);
        INFO: super::level_on(super::LEVEL_INFO, 0), super::level_on(super::LEVEL_INFO, 1);
        DEBUG: super::level_on(super::LEVEL_DEBUG, 0), super::level_on(super::LEVEL_DEBUG, 1);
        TRACE: super::level_on(super::LEVEL_TRACE, 0), super::level_on(super::LEVEL_TRACE, 1);
        CHECKS: super::FEATURE_CHECKS[0] == super::INTEREST_ON,
            super::FEATURE_CHECKS[1] == super::INTEREST_ON;
        TELEMETRY: super::FEATURE_TELEMETRY[0] == super::INTEREST_ON,
            super::FEATURE_TELEMETRY[1] == super::INTEREST_ON;
    }
}

/// An on/off switch of the features as interest bytes, `[debug, release]`:
/// `off` removes the sites everywhere, `release_off` from release builds.
const fn switch(off: bool, release_off: bool) -> [u8; 2] {
    const fn byte(off: bool) -> u8 {
        if off {
            INTEREST_OFF
        } else {
            INTEREST_ON
        }
    }
    [byte(off), byte(off || release_off)]
}

/// Checks (`check!`, `#[checked]`, `debug_mode!`) kept by the features,
/// `[debug, release]`: a site exists when `INTEREST_ON <= FEATURE_CHECKS[i]`.
pub const FEATURE_CHECKS: [u8; 2] = switch(
    cfg!(feature = "checks_off"),
    cfg!(feature = "release_checks_off"),
);

/// Telemetry and counters kept by the features, as [`FEATURE_CHECKS`].
pub const FEATURE_TELEMETRY: [u8; 2] = switch(
    cfg!(feature = "telemetry_off"),
    cfg!(feature = "release_telemetry_off"),
);

/// Whether rule `name` covers `path` (equal, or a prefix ending at a `::`)
/// and beats the best rule so far (of length `best`): longer wins, and the
/// later of equals (as written).
const fn better(name: &str, path: &str, best: Option<usize>) -> bool {
    namespace::covers_at(name, path, "::")
        && match best {
            Some(len) => name.len() >= len,
            None => true,
        }
}

/// The static limit of a site in module `path`: the value of the longest
/// rule covering it, else `fallback`. Evaluated at compile time by
/// expansions whose crate has rules below it (`my_app::db=trace`):
/// `if const { LEVEL_DEBUG <= static_limit(module_path!(), ..) } { site }`
/// (levels), or with [`INTEREST_ON`] and [`INTEREST_OFF`] for checks and
/// telemetry.
pub const fn static_limit(path: &str, rules: &[(&str, u8)], fallback: u8) -> u8 {
    let (mut best, mut value, mut i) = (None, fallback, 0);
    while i < rules.len() {
        if better(rules[i].0, path, best) {
            best = Some(rules[i].0.len());
            value = rules[i].1;
        }
        i += 1;
    }
    value
}

/// One build-time filter as `elide-macros` parsed it: the variable's text,
/// its default and its rules.
type Table<T> = (
    Option<&'static str>,
    Option<T>,
    &'static [(&'static str, T)],
);

/// The whole static gate: feature level limits (debug, release), feature
/// switches (checks debug/release, telemetry debug/release), then the four
/// filters that `elide_macros::__static_gate!()` reports.
type Gate = (
    [u8; 2],
    [bool; 4],
    Table<u8>,
    Table<u8>,
    Table<bool>,
    Table<bool>,
);

/// The four filters: level, release level, checks, telemetry.
type Filters = (Table<u8>, Table<u8>, Table<bool>, Table<bool>);

/// The gate of the build that compiled `elide` (the same features and
/// variables the call sites of this build saw): the features from here, the
/// filters as `elide-macros` parsed them.
const GATE: Gate = {
    const FILTERS: Filters = elide_macros::__static_gate!();
    (
        FEATURE_LEVEL,
        [
            FEATURE_CHECKS[0] == INTEREST_ON,
            FEATURE_CHECKS[1] == INTEREST_ON,
            FEATURE_TELEMETRY[0] == INTEREST_ON,
            FEATURE_TELEMETRY[1] == INTEREST_ON,
        ],
        FILTERS.0,
        FILTERS.1,
        FILTERS.2,
        FILTERS.3,
    )
};

/// The most verbose level whose log sites the cargo features leave compiled
/// in: `max_level_*`, or in a build without debug assertions
/// `release_max_level_*` when one is set (as `log`'s constant of the same
/// name, which code written for `log` reads; the debug assertions are
/// those `elide` was built with). An upper bound: `ELIDE_STATIC_LEVEL` may
/// remove more per crate or module, which
/// [`Description::static_level`](crate::Description::static_level) reports.
///
/// ```
/// use elide::{Level, STATIC_MAX_LEVEL};
/// if Level::Debug <= STATIC_MAX_LEVEL {
///     elide::debug!("debug sites are compiled in");
/// }
/// ```
pub const STATIC_MAX_LEVEL: LevelFilter = LevelFilter::from_u8(if cfg!(debug_assertions) {
    FEATURE_LEVEL[0]
} else {
    FEATURE_LEVEL[1]
});

/// The filter's value for `namespace`, with the directive that decided.
fn lookup<T: Copy>(table: &Table<T>, namespace: &str) -> Option<(T, String)>
where
    Show<T>: fmt::Display,
{
    let (_, default, rules) = table;
    let mut best: Option<usize> = None;
    let mut found = None;
    for (name, v) in rules.iter() {
        if better(name, namespace, best) {
            best = Some(name.len());
            found = Some((*v, format!("{name}={}", Show(*v))));
        }
    }
    found.or_else(|| default.map(|d| (d, format!("default {}", Show(d)))))
}

/// Prints a filter value as it is written.
struct Show<T>(T);

impl fmt::Display for Show<u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(LevelFilter::from_u8(self.0).as_str())
    }
}

impl fmt::Display for Show<bool> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0 { "on" } else { "off" })
    }
}

/// The static gate for one kind of build (debug or release).
#[derive(Clone, Debug)]
struct BuildGate {
    level: LevelFilter,
    checks: bool,
    telemetry: bool,
    why: Vec<String>,
}

/// Which static gate is in force for a namespace, in debug and in release
/// builds: what the cargo features and the `ELIDE_STATIC_*` variables of
/// this build leave compiled in.
#[derive(Clone, Debug)]
pub(crate) struct StaticGate {
    debug: BuildGate,
    release: BuildGate,
}

impl StaticGate {
    /// The gate for sites whose target (or module path) is `namespace`.
    pub(crate) fn of(namespace: &str) -> StaticGate {
        StaticGate::from_gate(&GATE, namespace)
    }

    /// [`of`](Self::of) for any reported gate (tests give their own).
    fn from_gate(gate: &Gate, namespace: &str) -> StaticGate {
        let (features, switches, level_t, release_t, checks_t, telemetry_t) = gate;
        // Release builds read ELIDE_RELEASE_STATIC_LEVEL, else ELIDE_STATIC_LEVEL.
        let (release_t, release_var) = if release_t.0.is_some() {
            (release_t, "ELIDE_RELEASE_STATIC_LEVEL")
        } else {
            (level_t, "ELIDE_STATIC_LEVEL")
        };
        let build = |feature: u8, levels: &Table<u8>, var: &str, checks: bool, tele: bool| {
            let mut why = vec![format!("features: {}", Show(feature))];
            let mut lvl = feature;
            if let Some((v, d)) = lookup(levels, namespace) {
                why.push(format!("{var}: {d}"));
                lvl = lvl.min(v);
            }
            let mut switch =
                |on: bool, table: &Table<bool>, var: &str| match lookup(table, namespace) {
                    Some((v, d)) => {
                        why.push(format!("{var}: {d}"));
                        on && v
                    }
                    None => on,
                };
            let checks = switch(checks, checks_t, "ELIDE_STATIC_CHECKS");
            let telemetry = switch(tele, telemetry_t, "ELIDE_STATIC_TELEMETRY");
            BuildGate {
                level: LevelFilter::from_u8(lvl),
                checks,
                telemetry,
                why,
            }
        };
        StaticGate {
            debug: build(
                features[0],
                level_t,
                "ELIDE_STATIC_LEVEL",
                switches[0],
                switches[2],
            ),
            release: build(
                features[1],
                release_t,
                release_var,
                switches[1],
                switches[3],
            ),
        }
    }

    /// The gate of the kind of build this is.
    fn current(&self) -> &BuildGate {
        if cfg!(debug_assertions) {
            &self.debug
        } else {
            &self.release
        }
    }

    /// The most verbose level whose sites are compiled in, in this build.
    pub(crate) fn level(&self) -> LevelFilter {
        self.current().level
    }

    /// Whether check sites are compiled in, in this build.
    pub(crate) fn checks(&self) -> bool {
        self.current().checks
    }

    /// Whether telemetry and counter sites are compiled in, in this build.
    pub(crate) fn telemetry(&self) -> bool {
        self.current().telemetry
    }
}

impl fmt::Display for StaticGate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        for (kind, g) in [("debug", &self.debug), ("release", &self.release)] {
            writeln!(
                f,
                "  static gate, {kind} builds{}: log sites up to {}, checks {}, telemetry {} ({})",
                if kind == this { " (this one)" } else { "" },
                g.level.as_str(),
                Show(g.checks),
                Show(g.telemetry),
                g.why.join("; ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The level numbers `elide-macros` compares while it expands (it
    /// cannot depend on this crate) are these: `Off` below every level,
    /// then each level one above the last.
    #[test]
    fn constants_are_the_level_numbers_and_the_on_byte() {
        assert_eq!(
            [
                LEVEL_OFF,
                LEVEL_ERROR,
                LEVEL_WARN,
                LEVEL_INFO,
                LEVEL_DEBUG,
                LEVEL_TRACE
            ],
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(INTEREST_ON, true as u8);
        assert_eq!(INTEREST_OFF, false as u8);
    }

    #[test]
    fn release_feature_decides_in_release_builds_like_log() {
        // Every pair where the release feature is less restrictive than the
        // plain one: the release feature decides.
        for max in LEVEL_OFF..LEVEL_TRACE {
            for release in max + 1..=LEVEL_TRACE {
                assert_eq!(
                    level_limits(Some(max), Some(release)),
                    [max, release],
                    "{max} x {release}"
                );
            }
        }
        // More restrictive: it decides too.
        assert_eq!(
            level_limits(Some(LEVEL_TRACE), Some(LEVEL_WARN)),
            [LEVEL_TRACE, LEVEL_WARN]
        );
        // Only one of the two set, or neither.
        assert_eq!(level_limits(Some(LEVEL_INFO), None), [LEVEL_INFO; 2]);
        assert_eq!(
            level_limits(None, Some(LEVEL_ERROR)),
            [LEVEL_TRACE, LEVEL_ERROR]
        );
        assert_eq!(level_limits(None, None), [LEVEL_TRACE; 2]);
    }

    /// Of several level features, the most restrictive set one decides;
    /// none set decides nothing.
    #[test]
    fn the_most_restrictive_feature_set_decides() {
        let unset = [
            (false, 0),
            (false, 1),
            (false, 2),
            (false, 3),
            (false, 4),
            (false, 5),
        ];
        assert_eq!(most_restrictive(unset), None);
        let mut flags = unset;
        flags[3].0 = true;
        flags[5].0 = true;
        assert_eq!(most_restrictive(flags), Some(3));
        flags[1].0 = true;
        assert_eq!(most_restrictive(flags), Some(1));
    }

    /// `checks_off` removes checks from every build, `release_checks_off`
    /// from release builds only (the same for telemetry).
    #[test]
    fn a_release_switch_only_adds_to_the_plain_one() {
        assert_eq!(switch(false, false), [INTEREST_ON, INTEREST_ON]);
        assert_eq!(switch(false, true), [INTEREST_ON, INTEREST_OFF]);
        assert_eq!(switch(true, false), [INTEREST_OFF, INTEREST_OFF]);
        assert_eq!(switch(true, true), [INTEREST_OFF, INTEREST_OFF]);
    }

    #[test]
    fn longest_rule_on_a_module_boundary_decides() {
        let rules = [
            ("app", 0),
            ("app::db", 5),
            ("app::db", 2),
            ("app::db::pool", 4),
        ];
        assert_eq!(static_limit("app", &rules, 3), 0);
        assert_eq!(static_limit("app::dbx", &rules, 3), 0);
        // Later of equal rules wins, as in the filter.
        assert_eq!(static_limit("app::db::x", &rules, 3), 2);
        assert_eq!(static_limit("app::db::pool::y", &rules, 3), 4);
        assert_eq!(static_limit("other", &rules, 3), 3);
        assert_eq!(static_limit("appx", &rules, 3), 3);
        assert_eq!(static_limit("app:", &[("app", 1)], 3), 3);
        assert_eq!(static_limit("app:x", &[("app", 1)], 3), 3);
        assert_eq!(static_limit("xyz", &[("abc", 1)], 3), 3);
        assert_eq!(static_limit("abc", &[("abc", 1)], 3), 1);
        const C: u8 = static_limit("dep::a", &[("dep", LEVEL_OFF)], LEVEL_INFO);
        assert_eq!(C, LEVEL_OFF);
    }

    const NO_LEVELS: Table<u8> = (None, None, &[]);
    const NO_SWITCHES: Table<bool> = (None, None, &[]);

    /// Features and filters combine per build kind, the most restrictive
    /// winning; release builds read the release filter when it is set, else
    /// the plain one; `describe()` says which directive decided.
    #[test]
    fn features_and_filters_combine_per_build_kind() {
        let levels: Table<u8> = (
            Some("info,app::db=trace"),
            Some(LEVEL_INFO),
            &[("app::db", LEVEL_TRACE)],
        );
        let checks: Table<bool> = (Some("app::db=off"), None, &[("app::db", false)]);
        let telemetry: Table<bool> = (Some("app::quiet=off"), None, &[("app::quiet", false)]);
        // Features: debug builds keep trace, release builds warn; checks on
        // in both; telemetry on in debug, off in release.
        let gate: Gate = (
            [LEVEL_TRACE, LEVEL_WARN],
            [true, true, true, false],
            levels,
            NO_LEVELS,
            checks,
            telemetry,
        );
        let db = StaticGate::from_gate(&gate, "app::db::pool");
        assert_eq!(db.debug.level, LevelFilter::Trace);
        assert_eq!(
            db.release.level,
            LevelFilter::Warn,
            "the feature is stricter"
        );
        assert!(!db.debug.checks && !db.release.checks);
        assert!(db.debug.telemetry && !db.release.telemetry);
        // This test build has debug assertions: the accessors read `debug`.
        assert_eq!(db.level(), LevelFilter::Trace);
        assert!(!db.checks());
        assert!(db.telemetry());

        let web = StaticGate::from_gate(&gate, "app::web");
        assert_eq!(web.debug.level, LevelFilter::Info, "the filter's default");
        assert!(web.checks());
        let quiet = StaticGate::from_gate(&gate, "app::quiet");
        assert!(!quiet.telemetry());

        let text = db.to_string();
        assert!(
            text.contains(
                "debug builds (this one): log sites up to trace, checks off, telemetry on"
            ),
            "{text}"
        );
        assert!(
            text.contains("release builds: log sites up to warn, checks off, telemetry off"),
            "{text}"
        );
        assert!(text.contains("features: trace; ELIDE_STATIC_LEVEL: app::db=trace; ELIDE_STATIC_CHECKS: app::db=off"), "{text}");
        assert!(
            web.to_string().contains("ELIDE_STATIC_LEVEL: default info"),
            "{web}"
        );

        // A release filter replaces the plain one in release builds only.
        let release: Table<u8> = (Some("error"), Some(LEVEL_ERROR), &[]);
        let gate = (
            [LEVEL_TRACE, LEVEL_TRACE],
            [true; 4],
            levels,
            release,
            NO_SWITCHES,
            NO_SWITCHES,
        );
        let web = StaticGate::from_gate(&gate, "app::web");
        assert_eq!(web.debug.level, LevelFilter::Info);
        assert_eq!(web.release.level, LevelFilter::Error);
        assert!(
            web.to_string()
                .contains("ELIDE_RELEASE_STATIC_LEVEL: default error"),
            "{web}"
        );
        assert!(web.debug.checks && web.release.telemetry);
    }
}
