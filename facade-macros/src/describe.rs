//! `__static_gate!()`: the static gate of this build as data, for
//! `elide::describe` (which cannot read the features or filters any other
//! way without parsing the variables a second time).
//!
//! Expands to a tuple `(features, switches, level, release_level, checks,
//! telemetry)`:
//! - `features: [u8; 2]`: the feature level limit for debug and for release
//!   builds (release precedence applied);
//! - `switches: [bool; 4]`: checks in debug, in release, telemetry in debug,
//!   in release builds, by features;
//! - each filter: `(Option<&str>, Option<T>, &[(&str, T)])`: the variable's
//!   text, its default and its rules (`T` is `u8` for levels, `bool` for
//!   on/off).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};

use crate::gate;
use crate::static_filter::{self as filter, Values};

fn table<T: Copy + ToTokens>(var: &str, values: &Values<T>) -> Result<TokenStream, String> {
    let text = std::env::var(var).ok().filter(|t| !t.trim().is_empty());
    let parsed = filter::read(var, values)?;
    let text = match text {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let (default, rules) = match parsed {
        Some(f) => (f.default, f.rules),
        None => (None, Vec::new()),
    };
    let default = match default {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let rules = rules.iter().map(|(p, v)| quote!((#p, #v)));
    Ok(quote!((#text, #default, &[#(#rules),*])))
}

/// Expands `__static_gate!()`.
pub(crate) fn static_gate(input: TokenStream) -> TokenStream {
    if !input.is_empty() {
        return syn::Error::new(Span::call_site(), "`__static_gate!()` takes no input")
            .to_compile_error();
    }
    let tables = (|| {
        Ok::<_, String>([
            table(filter::LEVEL_VAR, &filter::LEVELS)?,
            table(filter::RELEASE_LEVEL_VAR, &filter::LEVELS)?,
            table(filter::CHECKS_VAR, &filter::SWITCH)?,
            table(filter::TELEMETRY_VAR, &filter::SWITCH)?,
        ])
    })();
    let [level, release, checks, telemetry] = match tables {
        Ok(t) => t,
        Err(e) => return syn::Error::new(Span::call_site(), e).to_compile_error(),
    };
    let (max, release_max) = (gate::feature_max(), gate::feature_release_max());
    let (cd, cr) = gate::feature_checks();
    let (td, tr) = gate::feature_telemetry();
    quote! {
        ([#max, #release_max], [#cd, #cr, #td, #tr], #level, #release, #checks, #telemetry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A filter variable set to blanks reads as unset, in `describe` as in
    /// the gate (a variable of its own, so no other test sees it).
    #[test]
    fn a_blank_variable_is_described_as_unset() {
        const VAR: &str = "ELIDE_MACROS_TEST_BLANK_FILTER";
        std::env::set_var(VAR, "  ");
        let t = table(VAR, &filter::LEVELS).unwrap().to_string();
        assert!(t.starts_with("(:: core :: option :: Option :: None"), "{t}");
        std::env::set_var(VAR, "info");
        let t = table(VAR, &filter::LEVELS).unwrap().to_string();
        assert!(t.contains("Some (\"info\")"), "{t}");
        std::env::remove_var(VAR);
    }
}
