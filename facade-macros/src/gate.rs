//! The static gate: which sites exist in the build at all.
//!
//! `elide` forwards its cargo features to this crate, so the decision is made
//! while the macro expands. A site above the static level becomes a dead
//! `if false { .. }` that only type-checks its arguments: no code is generated
//! at any opt-level. When the `release_*` level differs from the plain one,
//! the site expands to both forms selected by `cfg!(debug_assertions)` of the
//! crate using the macro.

use proc_macro2::TokenStream;
use quote::quote;

/// Highest enabled level number from the plain `max_level_*` features
/// (0 = off .. 5 = trace); the most restrictive feature wins.
fn max_level() -> u8 {
    if cfg!(feature = "max_level_off") {
        0
    } else if cfg!(feature = "max_level_error") {
        1
    } else if cfg!(feature = "max_level_warn") {
        2
    } else if cfg!(feature = "max_level_info") {
        3
    } else if cfg!(feature = "max_level_debug") {
        4
    } else {
        5
    }
}

fn release_max_level() -> u8 {
    let release = if cfg!(feature = "release_max_level_off") {
        0
    } else if cfg!(feature = "release_max_level_error") {
        1
    } else if cfg!(feature = "release_max_level_warn") {
        2
    } else if cfg!(feature = "release_max_level_info") {
        3
    } else if cfg!(feature = "release_max_level_debug") {
        4
    } else {
        5
    };
    release.min(max_level())
}

/// Whether a site of this kind/level exists in debug and in release builds.
#[derive(Clone, Copy)]
pub struct Presence {
    pub debug: bool,
    pub release: bool,
}

impl Presence {
    pub fn for_level(level: u8) -> Presence {
        Presence {
            debug: level <= max_level(),
            release: level <= release_max_level(),
        }
    }

    pub fn checks() -> Presence {
        let debug = !cfg!(feature = "checks_off");
        Presence {
            debug,
            release: debug && !cfg!(feature = "release_checks_off"),
        }
    }

    pub fn telemetry() -> Presence {
        let debug = !cfg!(feature = "telemetry_off");
        Presence {
            debug,
            release: debug && !cfg!(feature = "release_telemetry_off"),
        }
    }

    /// The static level used for a run-time level (`log!(lvl, ..)`): the
    /// site compares against it.
    pub fn static_max_tokens() -> TokenStream {
        let d = max_level();
        let r = release_max_level();
        if d == r {
            quote!(#d)
        } else {
            quote!(if ::core::cfg!(debug_assertions) { #d } else { #r })
        }
    }

    /// Chooses between the live and the dead expansion.
    pub fn select(self, live: TokenStream, dead: TokenStream) -> TokenStream {
        match (self.debug, self.release) {
            (true, true) => live,
            (false, false) => dead,
            (true, false) => quote!(if ::core::cfg!(debug_assertions) { #live } else { #dead }),
            (false, true) => quote!(if ::core::cfg!(debug_assertions) { #dead } else { #live }),
        }
    }
}
