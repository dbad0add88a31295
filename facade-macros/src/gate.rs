//! The static gate: which sites exist in the build at all.
//!
//! Two sources decide it, and the most restrictive wins for each kind of
//! build:
//! - cargo features, declared on `elide` only. Like `log`, a build without
//!   `debug_assertions` uses the `release_max_level_*` feature when one is
//!   set, otherwise `max_level_*`; `release_checks_off` and
//!   `release_telemetry_off` only add to `checks_off`/`telemetry_off`.
//!   `elide` turns them into constants (`FEATURE_LEVEL`, `FEATURE_CHECKS`,
//!   `FEATURE_TELEMETRY`, `[debug, release]`), which the site tests in
//!   `if const { .. }`: this crate has no features;
//! - the build-time filters in [`crate::static_filter`], per crate, module
//!   path or literal target, read here while the macro expands.
//!
//! A site that a filter turns off becomes a dead `if false { .. }` that only
//! type-checks its arguments. Any other site is
//! `if const { <exists> } { live } else { dead }`, where `<exists>` compares
//! the site's level with the feature constant of the calling crate's kind of
//! build (`cfg!(debug_assertions)`), and, when a filter has rules below the
//! calling crate (`my_app::db=trace`), with
//! `static_limit(module_path!(), rules, ..)`. Both are evaluated at compile
//! time, so the branch not taken leaves no code at any opt-level.

use crate::expand::ELIDE;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, ExprLit, Lit};

use crate::level::{self, Level, TRACE};
use crate::static_filter::{self as filter, Filter, Values};

/// A kind of build, as `elide`'s constants name it.
#[derive(Clone, Copy)]
enum Build {
    Debug,
    Release,
}

/// `::elide::__private::gates::INFO::DEBUG`: whether the features keep a
/// site of this kind (a level's name, `CHECKS`, `TELEMETRY`) in this kind
/// of build. A path to a constant, not a `const { .. }` block: the compiler
/// evaluates it once per crate, where a block would be a body of its own at
/// every site.
fn feature_on(kind: &str, build: Build) -> TokenStream {
    let build = match build {
        Build::Debug => "DEBUG",
        Build::Release => "RELEASE",
    };
    let (kind, build) = (
        syn::Ident::new(kind, Span::call_site()),
        syn::Ident::new(build, Span::call_site()),
    );
    quote!(#ELIDE::__private::gates::#kind::#build)
}

/// A site's existence in one kind of build: the filter's verdict (decided
/// here, or over `module_path!()` in a `const` block) and the features'
/// constant, which only `elide` knows.
fn with_features(filter: Verdict, kind: &str, build: Build) -> Verdict {
    match filter {
        Verdict::Known(false) => Verdict::Known(false),
        Verdict::Known(true) => Verdict::Features(kind.to_string()),
        Verdict::Const(c) => {
            let features = feature_on(kind, build);
            Verdict::Const(quote!((#features && const { #c })))
        }
        features @ Verdict::Features(_) => features,
    }
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
}

impl<T: Copy> Ceiling<T> {
    /// Whether a site with this limit exists: decided now when every rule
    /// agrees, else `needed <= static_limit(module_path!(), rules, ..)`.
    fn verdict(
        &self,
        exists: impl Fn(T) -> bool,
        needed: impl FnOnce() -> TokenStream,
        name: impl Fn(T) -> TokenStream,
    ) -> Verdict {
        let fallback = exists(self.fallback);
        if self.rules.iter().all(|(_, v)| exists(*v) == fallback) {
            return Verdict::Known(fallback);
        }
        let (needed, limit) = (needed(), self.limit_tokens(name));
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
            #ELIDE::__private::static_limit(::core::module_path!(), &[#(#rules),*], #fallback)
        }
    }
}

/// Whether a site exists in one kind of build.
enum Verdict {
    /// Decided while expanding.
    Known(bool),
    /// The features' constant of this kind of site (`INFO`, `CHECKS`, ..)
    /// alone: no filter rule says otherwise.
    Features(String),
    /// A constant `bool` expression over `module_path!()`.
    Const(TokenStream),
}

impl Verdict {
    fn tokens(&self, build: Build) -> TokenStream {
        match self {
            Verdict::Known(b) => quote!(#b),
            Verdict::Features(kind) => feature_on(kind, build),
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

/// The filters' level limits of a namespace: (debug builds, release
/// builds).
fn level_ceilings(ns: &Namespace) -> syn::Result<(Ceiling<u8>, Ceiling<u8>)> {
    let debug_filter = read(filter::LEVEL_VAR, &filter::LEVELS)?;
    let release_filter = match read(filter::RELEASE_LEVEL_VAR, &filter::LEVELS)? {
        Some(f) => Some(f),
        None => debug_filter.clone(),
    };
    Ok((
        Ceiling::new(debug_filter.as_ref(), TRACE, ns),
        Ceiling::new(release_filter.as_ref(), TRACE, ns),
    ))
}

/// An on/off gate (checks, telemetry): one filter and the features' switch
/// (`CHECKS` or `TELEMETRY`).
fn switch(target: &Option<Expr>, var: &str, kind: &str) -> syn::Result<Presence> {
    let ns = Namespace::of(target);
    let c = Ceiling::new(read(var, &filter::SWITCH)?.as_ref(), true, &ns);
    let verdict = |build: Build| {
        let filter = c.verdict(|v| v, level::interest_on, level::switch_tokens);
        with_features(filter, kind, build)
    };
    Ok(Presence {
        debug: verdict(Build::Debug),
        release: verdict(Build::Release),
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
        let kind = level.name.to_ascii_uppercase();
        let verdict = |c: Ceiling<u8>, build: Build| {
            let filter = c.verdict(
                |v| level.number <= v,
                || level.number_tokens(),
                level::number_tokens,
            );
            with_features(filter, &kind, build)
        };
        Ok(Presence {
            debug: verdict(d, Build::Debug),
            release: verdict(r, Build::Release),
        })
    }

    /// `check!`, `check_eq!`, `#[checked]`, `debug_mode!`.
    pub(crate) fn checks(target: &Option<Expr>) -> syn::Result<Presence> {
        switch(target, filter::CHECKS_VAR, "CHECKS")
    }

    /// `telemetry!` and `counter!`.
    pub(crate) fn telemetry(target: &Option<Expr>) -> syn::Result<Presence> {
        switch(target, filter::TELEMETRY_VAR, "TELEMETRY")
    }

    /// Both answers, when they are known while expanding.
    pub(crate) fn known(&self) -> Option<(bool, bool)> {
        match (&self.debug, &self.release) {
            (Verdict::Known(d), Verdict::Known(r)) => Some((*d, *r)),
            _ => None,
        }
    }

    /// Whether the site exists in this build, as an `if` condition whose
    /// every operand is a constant (`cfg!` is a literal), so the compiler
    /// drops the branch not taken at any opt-level.
    pub(crate) fn condition(&self) -> TokenStream {
        let (d, r) = (
            self.debug.tokens(Build::Debug),
            self.release.tokens(Build::Release),
        );
        quote! {
            ((::core::cfg!(debug_assertions) && #d)
                || (::core::cfg!(not(debug_assertions)) && #r))
        }
    }

    /// Chooses between the live and the dead expansion of a site that has
    /// no value (`()`). `dead` is built only when it is emitted: when a
    /// filter turns the site off. Otherwise the constant chooses between
    /// `live` and nothing; `live` type-checks the arguments itself.
    pub(crate) fn select(
        self,
        live: TokenStream,
        dead: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        self.choose(live, dead, || quote!({}))
    }

    /// [`select`](Self::select) for a site with a value (`enabled!`,
    /// `debug_mode!`): `dead` is also the value where the constant says
    /// the site is off.
    pub(crate) fn select_valued(
        self,
        live: TokenStream,
        dead: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        let dead = dead();
        self.choose(live, || dead.clone(), || dead.clone())
    }

    fn choose(
        self,
        live: TokenStream,
        dead: impl FnOnce() -> TokenStream,
        off: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        match (self.known(), self.features_kind()) {
            // A filter removed the site from both builds.
            (Some((false, false)), _) => dead(),
            // The common case, the features alone: the facade's `gate!`
            // template writes the condition, so this macro hands back a
            // few tokens instead of it.
            (_, Some(kind)) => {
                let (kind, off) = (syn::Ident::new(kind, Span::call_site()), off());
                quote!(#ELIDE::__private::gate!(#kind { #live } { #off }))
            }
            _ => {
                let (c, off) = (self.condition(), off());
                quote!(if #c { #live } else { #off })
            }
        }
    }

    /// The kind (`INFO`, `CHECKS`, ..) whose features' constants alone
    /// decide whether the site exists, when no filter rule covers it. (Both
    /// builds' verdicts name the same kind: one site, one kind.)
    pub(crate) fn features_kind(&self) -> Option<&str> {
        match (&self.debug, &self.release) {
            (Verdict::Features(kind), Verdict::Features(_)) => Some(kind),
            _ => None,
        }
    }
}

/// The static limit for a level known only at run time (`log!(lvl, ..)`):
/// a constant `u8` the site compares against, the lower of the filters' and
/// the features' limit for the calling crate's kind of build.
pub(crate) fn static_max_tokens(target: &Option<Expr>) -> syn::Result<TokenStream> {
    let (d, r) = level_ceilings(&Namespace::of(target))?;
    let lower = |c: Ceiling<u8>, build: Build| {
        let i = proc_macro2::Literal::usize_unsuffixed(build as usize);
        let (filter, features) = (
            c.limit_tokens(level::number_tokens),
            quote!(#ELIDE::__private::FEATURE_LEVEL[#i]),
        );
        quote!({
            let (__elide_a, __elide_b): (u8, u8) = (#filter, #features);
            if __elide_a < __elide_b { __elide_a } else { __elide_b }
        })
    };
    let (dt, rt) = (lower(d, Build::Debug), lower(r, Build::Release));
    Ok(quote!(const { if ::core::cfg!(debug_assertions) #dt else #rt }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A site that the features alone decide (no build-time filter here)
    /// hands the facade's `gate!` template the name of its kind: the
    /// condition is the template's, not spelled out at every site; checks
    /// and telemetry the same way, with their own kind.
    #[test]
    fn a_features_only_site_names_its_kind_to_the_gate_template() {
        let cases = [
            (Presence::for_level(crate::level::INFO, &None), "INFO"),
            (Presence::checks(&None), "CHECKS"),
            (Presence::telemetry(&None), "TELEMETRY"),
        ];
        for (presence, kind) in cases {
            let site = presence.unwrap().select(quote!(live()), || quote!(dead()));
            let text = site.to_string();
            assert!(
                text.contains(&format!(
                    "__private :: gate ! ({kind} {{ live () }} {{ {{ }} }})"
                )),
                "{text}"
            );
            assert!(
                !text.contains("debug_assertions") && !text.contains("dead"),
                "{text}"
            );
        }
    }

    /// A site that a build-time filter removes from both kinds of build is
    /// its dead twin alone, with no condition and no live code; one that a
    /// filter removes from one kind only keeps the spelled-out condition.
    #[test]
    fn a_site_a_filter_removes_everywhere_is_its_dead_twin() {
        let off = Presence {
            debug: Verdict::Known(false),
            release: Verdict::Known(false),
        };
        let site = off.select(quote!(live()), || quote!(dead()));
        assert_eq!(site.to_string(), "dead ()");
        let release_only = Presence {
            debug: Verdict::Features("INFO".into()),
            release: Verdict::Known(false),
        };
        let site = release_only
            .select(quote!(live()), || quote!(dead()))
            .to_string();
        assert!(
            site.contains("debug_assertions") && site.contains("live ()"),
            "{site}"
        );
        assert!(!site.contains("gate !"), "{site}");
    }

    /// `log!(lvl, ..)` compares its run-time level against one constant
    /// when both profiles have the same limit, and against the profile's
    /// own limit when they differ (here a release-only filter). The only
    /// test that sets this variable, so no other test sees it.
    #[test]
    fn a_run_time_level_site_compares_against_each_profiles_limit() {
        let same = static_max_tokens(&None).unwrap().to_string();
        for needed in [
            "debug_assertions",
            "LEVEL_TRACE",
            "FEATURE_LEVEL [0]",
            "FEATURE_LEVEL [1]",
        ] {
            assert!(same.contains(needed), "{needed} in {same}");
        }
        assert!(!same.contains("LEVEL_WARN"), "{same}");
        std::env::set_var(filter::RELEASE_LEVEL_VAR, "warn");
        let differ = static_max_tokens(&None).map(|t| t.to_string());
        std::env::remove_var(filter::RELEASE_LEVEL_VAR);
        let differ = differ.unwrap();
        for needed in ["debug_assertions", "LEVEL_TRACE", "LEVEL_WARN"] {
            assert!(differ.contains(needed), "{needed} in {differ}");
        }
    }
}
