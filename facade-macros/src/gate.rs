//! The static gate: which sites exist in the build at all.
//!
//! Two sources decide it while the macro expands, and the most restrictive
//! wins for each kind of build:
//! - cargo features, which `elide` forwards to this crate. Like `log`, a
//!   build without `debug_assertions` uses the `release_max_level_*` feature
//!   when one is set, otherwise `max_level_*`; `release_checks_off` and
//!   `release_telemetry_off` only add to `checks_off`/`telemetry_off`;
//! - the build-time filters in [`crate::static_filter`], per crate, module
//!   path or literal target.
//!
//! A site that is off becomes a dead `if false { .. }` that only
//! type-checks its arguments, so no code is generated at any opt-level. When
//! the debug and release answers differ, the site expands to both, selected
//! by `cfg!(debug_assertions)` of the crate using the macro. When a filter
//! has rules below the calling crate (`my_app::db=trace`), the answer depends
//! on `module_path!()`, which only the compiler knows: the site then tests
//! `if const { LEVEL_DEBUG <= static_limit(module_path!(), rules, ..) }`,
//! evaluated at compile time, which also leaves no code for the dead branch.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, ExprLit, Lit};

use crate::level::{self, Level, TRACE};
use crate::static_filter::{self as filter, Filter, Values};

/// Most restrictive of the features in `flags` (`(enabled, level)`), or
/// `None` when none is set.
fn most_restrictive(flags: [(bool, u8); 6]) -> Option<u8> {
    flags.iter().filter(|(on, _)| *on).map(|(_, n)| *n).min()
}

/// The most restrictive `max_level_*` feature set, if any.
fn max_feature() -> Option<u8> {
    most_restrictive([
        (cfg!(feature = "max_level_off"), level::OFF),
        (cfg!(feature = "max_level_error"), level::ERROR.number),
        (cfg!(feature = "max_level_warn"), level::WARN.number),
        (cfg!(feature = "max_level_info"), level::INFO.number),
        (cfg!(feature = "max_level_debug"), level::DEBUG.number),
        (cfg!(feature = "max_level_trace"), TRACE),
    ])
}

/// The most restrictive `release_max_level_*` feature set, if any.
fn release_feature() -> Option<u8> {
    most_restrictive([
        (cfg!(feature = "release_max_level_off"), level::OFF),
        (
            cfg!(feature = "release_max_level_error"),
            level::ERROR.number,
        ),
        (cfg!(feature = "release_max_level_warn"), level::WARN.number),
        (cfg!(feature = "release_max_level_info"), level::INFO.number),
        (
            cfg!(feature = "release_max_level_debug"),
            level::DEBUG.number,
        ),
        (cfg!(feature = "release_max_level_trace"), TRACE),
    ])
}

/// The level limit of debug builds: the `max_level_*` feature (trace when
/// none is set).
pub(crate) fn feature_max() -> u8 {
    max_feature().unwrap_or(TRACE)
}

/// The level limit of release builds.
pub(crate) fn feature_release_max() -> u8 {
    release_limit(max_feature(), release_feature())
}

/// In a build without `debug_assertions`, a `release_max_level_*` feature
/// decides over `max_level_*` (as in `log`); without one, `max_level_*`.
fn release_limit(max: Option<u8>, release: Option<u8>) -> u8 {
    release.or(max).unwrap_or(TRACE)
}

/// Checks compiled in by the features: (debug builds, release builds).
pub(crate) fn feature_checks() -> (bool, bool) {
    let debug = !cfg!(feature = "checks_off");
    (debug, debug && !cfg!(feature = "release_checks_off"))
}

/// Telemetry (and counters) compiled in by the features.
pub(crate) fn feature_telemetry() -> (bool, bool) {
    let debug = !cfg!(feature = "telemetry_off");
    (debug, debug && !cfg!(feature = "release_telemetry_off"))
}

/// A site's namespace as far as the macro can see it.
enum Namespace {
    /// A string-literal `target:`.
    Literal(String),
    /// `module_path!()`, known to the compiler only.
    Module,
}

impl Namespace {
    fn of(target: &Option<Expr>) -> Namespace {
        match target {
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            })) => Namespace::Literal(s.value()),
            _ => Namespace::Module,
        }
    }
}

/// The static limit for one kind of build: `fallback`, unless one of
/// `rules` (module paths under the calling crate) covers `module_path!()`.
#[derive(Clone)]
struct Ceiling<T> {
    fallback: T,
    rules: Vec<(String, T)>,
}

impl<T: Copy> Ceiling<T> {
    /// The filter's answer for a namespace; `open` when it says nothing.
    fn new(filter: Option<&Filter<T>>, open: T, ns: &Namespace) -> Ceiling<T> {
        let Some(f) = filter else {
            return Ceiling {
                fallback: open,
                rules: Vec::new(),
            };
        };
        let krate = std::env::var("CARGO_CRATE_NAME").ok();
        match (ns, krate) {
            (Namespace::Literal(t), _) => Ceiling {
                fallback: f.lookup(t).unwrap_or(open),
                rules: Vec::new(),
            },
            // Every module path of the crate starts with its name: rules
            // for other crates cannot match, and only rules below the
            // crate need the compiler's module path.
            (Namespace::Module, Some(k)) => Ceiling {
                fallback: f.lookup(&k).unwrap_or(open),
                rules: f
                    .rules
                    .iter()
                    .filter(|(p, _)| {
                        p.strip_prefix(k.as_str())
                            .is_some_and(|r| r.starts_with("::"))
                    })
                    .cloned()
                    .collect(),
            },
            (Namespace::Module, None) => Ceiling {
                fallback: f.default.unwrap_or(open),
                rules: f.rules.clone(),
            },
        }
    }

    fn map<U: Copy>(&self, f: impl Fn(T) -> U) -> Ceiling<U> {
        Ceiling {
            fallback: f(self.fallback),
            rules: self.rules.iter().map(|(p, v)| (p.clone(), f(*v))).collect(),
        }
    }
}

impl<T: Copy> Ceiling<T> {
    /// Whether a site with this limit exists: decided now when every rule
    /// agrees, else `needed <= static_limit(module_path!(), rules, ..)`.
    fn verdict(
        &self,
        exists: impl Fn(T) -> bool,
        needed: TokenStream,
        name: impl Fn(T) -> TokenStream,
    ) -> Verdict {
        let fallback = exists(self.fallback);
        if self.rules.iter().all(|(_, v)| exists(*v) == fallback) {
            return Verdict::Known(fallback);
        }
        let limit = self.limit_tokens(name);
        Verdict::Const(quote!(#needed <= #limit))
    }

    /// The limit as a `u8` expression that is constant at compile time.
    fn limit_tokens(&self, name: impl Fn(T) -> TokenStream) -> TokenStream {
        let fallback = name(self.fallback);
        if self.rules.is_empty() {
            return fallback;
        }
        let rules = self.rules.iter().map(|(p, v)| {
            let v = name(*v);
            quote!((#p, #v))
        });
        quote! {
            ::elide::__private::static_limit(::core::module_path!(), &[#(#rules),*], #fallback)
        }
    }
}

/// Whether a site exists in one kind of build.
enum Verdict {
    /// Decided while expanding.
    Known(bool),
    /// A constant `bool` expression over `module_path!()`.
    Const(TokenStream),
}

impl Verdict {
    fn tokens(&self) -> TokenStream {
        match self {
            Verdict::Known(b) => quote!(#b),
            Verdict::Const(t) => t.clone(),
        }
    }
}

fn error(e: String) -> syn::Error {
    syn::Error::new(Span::call_site(), e)
}

fn read<T: Copy>(var: &str, values: &Values<T>) -> syn::Result<Option<Filter<T>>> {
    filter::read(var, values).map_err(error)
}

/// The level limits of a namespace: (debug builds, release builds).
fn level_ceilings(ns: &Namespace) -> syn::Result<(Ceiling<u8>, Ceiling<u8>)> {
    let debug_filter = read(filter::LEVEL_VAR, &filter::LEVELS)?;
    let release_filter = match read(filter::RELEASE_LEVEL_VAR, &filter::LEVELS)? {
        Some(f) => Some(f),
        None => debug_filter.clone(),
    };
    let (d, r) = (feature_max(), feature_release_max());
    Ok((
        Ceiling::new(debug_filter.as_ref(), TRACE, ns).map(|v| v.min(d)),
        Ceiling::new(release_filter.as_ref(), TRACE, ns).map(|v| v.min(r)),
    ))
}

/// An on/off gate (checks, telemetry): features and one filter.
fn switch(target: &Option<Expr>, var: &str, features: (bool, bool)) -> syn::Result<Presence> {
    let ns = Namespace::of(target);
    let c = Ceiling::new(read(var, &filter::SWITCH)?.as_ref(), true, &ns);
    let verdict = |feature: bool| {
        c.map(|v| v && feature)
            .verdict(|v| v, level::interest_on(), level::switch_tokens)
    };
    Ok(Presence {
        debug: verdict(features.0),
        release: verdict(features.1),
    })
}

/// Whether a site of this kind/level exists in debug and in release builds.
pub(crate) struct Presence {
    debug: Verdict,
    release: Verdict,
}

impl Presence {
    /// A log site (or `enabled!`) with a fixed level.
    pub(crate) fn for_level(level: Level, target: &Option<Expr>) -> syn::Result<Presence> {
        let (d, r) = level_ceilings(&Namespace::of(target))?;
        let verdict = |c: Ceiling<u8>| {
            c.verdict(
                |v| level.number <= v,
                level.number_tokens(),
                level::number_tokens,
            )
        };
        Ok(Presence {
            debug: verdict(d),
            release: verdict(r),
        })
    }

    /// `check!`, `check_eq!`, `#[checked]`, `debug_mode!`.
    pub(crate) fn checks(target: &Option<Expr>) -> syn::Result<Presence> {
        switch(target, filter::CHECKS_VAR, feature_checks())
    }

    /// `telemetry!` and `counter!`.
    pub(crate) fn telemetry(target: &Option<Expr>) -> syn::Result<Presence> {
        switch(target, filter::TELEMETRY_VAR, feature_telemetry())
    }

    /// Both answers, when they are known while expanding.
    pub(crate) fn known(&self) -> Option<(bool, bool)> {
        match (&self.debug, &self.release) {
            (Verdict::Known(d), Verdict::Known(r)) => Some((*d, *r)),
            _ => None,
        }
    }

    /// A constant `bool` expression: whether the site exists in this build.
    pub(crate) fn condition(&self) -> TokenStream {
        let (d, r) = (self.debug.tokens(), self.release.tokens());
        if d.to_string() == r.to_string() {
            return quote!(const { #d });
        }
        quote!(const { if ::core::cfg!(debug_assertions) { #d } else { #r } })
    }

    /// Chooses between the live and the dead expansion. `dead` is built
    /// only when it is emitted: most sites are live in both profiles.
    pub(crate) fn select(
        self,
        live: TokenStream,
        dead: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        let known = self.known();
        if known == Some((true, true)) {
            return live;
        }
        let dead = dead();
        match known {
            Some((false, false)) => dead,
            Some((true, false)) => {
                quote!(if ::core::cfg!(debug_assertions) { #live } else { #dead })
            }
            Some((false, true)) => {
                quote!(if ::core::cfg!(debug_assertions) { #dead } else { #live })
            }
            _ => {
                let c = self.condition();
                quote!(if #c { #live } else { #dead })
            }
        }
    }
}

/// The static limit for a level known only at run time (`log!(lvl, ..)`):
/// a constant `u8` the site compares against.
pub(crate) fn static_max_tokens(target: &Option<Expr>) -> syn::Result<TokenStream> {
    let (d, r) = level_ceilings(&Namespace::of(target))?;
    let (dt, rt) = (
        d.limit_tokens(level::number_tokens),
        r.limit_tokens(level::number_tokens),
    );
    let limit = if dt.to_string() == rt.to_string() {
        dt
    } else {
        quote!(if ::core::cfg!(debug_assertions) { #dt } else { #rt })
    };
    Ok(quote!(const { #limit }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_feature_decides_in_release_builds_like_log() {
        // Every pair where the release feature is less restrictive than the
        // plain one: the release feature decides (it used to lose).
        for max in level::OFF..TRACE {
            for release in max + 1..=TRACE {
                assert_eq!(
                    release_limit(Some(max), Some(release)),
                    release,
                    "{max} x {release}"
                );
            }
        }
        // More restrictive: it decides too.
        assert_eq!(release_limit(Some(TRACE), Some(level::WARN.number)), 2);
        // Only one of the two set, or neither.
        assert_eq!(release_limit(Some(level::INFO.number), None), 3);
        assert_eq!(release_limit(None, Some(level::ERROR.number)), 1);
        assert_eq!(release_limit(None, None), TRACE);
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

    /// `log!(lvl, ..)` compares its run-time level against one constant
    /// when both profiles have the same limit, and against the profile's
    /// own limit when they differ (here a release-only filter). The only
    /// test that sets this variable, so no other test sees it.
    #[test]
    fn a_run_time_level_site_compares_against_each_profiles_limit() {
        let same = static_max_tokens(&None).unwrap().to_string();
        assert_eq!(same, "const { :: elide :: __private :: LEVEL_TRACE }");
        std::env::set_var(filter::RELEASE_LEVEL_VAR, "warn");
        let differ = static_max_tokens(&None).map(|t| t.to_string());
        std::env::remove_var(filter::RELEASE_LEVEL_VAR);
        let differ = differ.unwrap();
        for needed in ["debug_assertions", "LEVEL_TRACE", "LEVEL_WARN"] {
            assert!(differ.contains(needed), "{needed} in {differ}");
        }
    }
}
