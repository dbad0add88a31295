//! `enabled!(level)` / `enabled!(target: "..", level)`: whether a site at
//! this level would emit, through its own cached interest.

use crate::expand::ELIDE;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Token};

use crate::args;
use crate::callsite::callsite;
use crate::expand::expand;
use crate::fields;
use crate::gate::{self, Presence};
use crate::log_site::{fixed_level, with_level_path};

/// `[target: ..,] level [,]`.
struct EnabledArgs {
    target: Option<Expr>,
    level: Expr,
}

/// `event_enabled!`'s arguments: `tracing` lets field names follow the
/// level; elide's answer does not depend on fields, so they are parsed and
/// left out.
struct EventEnabledArgs(EnabledArgs);

impl Parse for EventEnabledArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        if input.is_empty() {
            return Err(input.error("expected a level, e.g. `event_enabled!(Level::DEBUG)`"));
        }
        let level: Expr = input.parse()?;
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
            args::parse_fields(input, false)?;
            if !input.is_empty() {
                return Err(input.error("`event_enabled!` takes a level and field names only"));
            }
        }
        Ok(EventEnabledArgs(EnabledArgs { target, level }))
    }
}

impl Parse for EnabledArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        if input.is_empty() {
            return Err(syn::Error::new(
                input.span(),
                "expected a level, e.g. `enabled!(Level::Debug)`",
            ));
        }
        let level: Expr = input.parse()?;
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
            if !input.is_empty() {
                return Err(input.error("`enabled!` takes only an optional `target:` and a level"));
            }
        }
        Ok(EnabledArgs { target, level })
    }
}

/// Expands `enabled!` and `log_enabled!`.
pub(crate) fn enabled(input: TokenStream) -> TokenStream {
    expand(input, |input| expand_enabled(input.parse()?))
}

/// Expands `event_enabled!`.
pub(crate) fn event_enabled(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let EventEnabledArgs(a) = input.parse()?;
        expand_enabled(a)
    })
}

fn expand_enabled(a: EnabledArgs) -> syn::Result<TokenStream> {
    let target = fields::target_tokens(&a.target);
    let runtime = fields::is_runtime_target(&a.target);
    // A constant target has its own `static` site; a run-time one is looked
    // up (see `elide::enabled_for`), and only when some namespace (or a
    // test capture on the thread) allows the level: else the answer is no
    // after one load and a compare, without evaluating the target.
    let check = |level: &str, n: &TokenStream| -> TokenStream {
        if runtime {
            quote! {
                (!#ELIDE::__private::above_every_level(#n)
                    && #ELIDE::__private::enabled(#ELIDE::__private::runtime_site(#target), #n))
            }
        } else {
            let cs = callsite("Log", level, &target, &quote!(""));
            quote! {{
                #cs
                #ELIDE::__private::enabled(&__ELIDE_CS, #n)
            }}
        }
    };
    Ok(match fixed_level(&a.level) {
        Some(level) => {
            let n = level.number_tokens();
            let live = check(level.name, &n);
            let target_type = fields::target_type(&a.target);
            let dead = quote! {{ let _: #target_type = #target; false }};
            let site = Presence::for_level(level, &a.target)?.select_valued(live, || dead);
            with_level_path(level, &a.level, site)
        }
        None => {
            let live = check("Trace", &quote!(__elide_lvl));
            let static_max = gate::static_max_tokens(&a.target)?;
            let level = &a.level;
            quote! {{
                let __elide_lvl: u8 = #ELIDE::Level::as_u8(#level);
                __elide_lvl <= #static_max && #live
            }}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;
    use syn::parse::Parser;

    fn parses<T: Parse>(tokens: TokenStream) -> Result<(), String> {
        (|input: ParseStream| input.parse::<T>())
            .parse2(tokens)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// A trailing comma is fine; anything after the level is an error
    /// that says what the macro takes (`event_enabled!` also takes field
    /// names, as `tracing`'s does).
    #[test]
    fn a_level_with_an_optional_comma_and_nothing_more() {
        assert!(parses::<EnabledArgs>(quote!(Level::Debug)).is_ok());
        assert!(parses::<EnabledArgs>(quote!(target: "t", Level::Debug,)).is_ok());
        let e = parses::<EnabledArgs>(quote!(Level::Debug, x)).unwrap_err();
        assert!(e.contains("takes only"), "{e}");
        assert!(parses::<EventEnabledArgs>(quote!(Level::DEBUG,)).is_ok());
        assert!(parses::<EventEnabledArgs>(quote!(Level::DEBUG, a, b)).is_ok());
        let e = parses::<EventEnabledArgs>(quote!(Level::DEBUG, a, "msg")).unwrap_err();
        assert!(e.contains("field names only"), "{e}");
        let e = parses::<EventEnabledArgs>(quote!()).unwrap_err();
        assert!(e.contains("expected a level"), "{e}");
    }
}
