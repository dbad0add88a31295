//! `__static_gate!()`: the build-time filters of this build as data, for
//! `elide::describe` (which cannot read them any other way without parsing
//! the variables a second time).
//!
//! Expands to a tuple `(level, release_level, checks, telemetry)`, each
//! filter `(Option<&str>, Option<T>, &[(&str, T)])`: the variable's text,
//! its default and its rules (`T` is `u8` for levels, `bool` for on/off).
//! The cargo features are `elide`'s own: it knows them without help.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};

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
    quote!((#level, #release, #checks, #telemetry))
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
