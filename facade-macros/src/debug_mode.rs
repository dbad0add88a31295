//! `debug_mode!()` / `debug_mode!(target: "..")`: whether checks run for the
//! calling module (or the target), through a per-site cache.

use crate::expand::ELIDE;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::Expr;

use crate::args;
use crate::callsite::callsite;
use crate::expand::expand;
use crate::fields;
use crate::gate::Presence;
use crate::level;

/// Nothing, or `target: ..`.
struct DebugModeArgs {
    target: Option<Expr>,
}

impl Parse for DebugModeArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        if !input.is_empty() {
            return Err(input.error(
                "`debug_mode!` takes nothing or a `target:`: `debug_mode!()`, `debug_mode!(target: \"my_app::db\")`",
            ));
        }
        Ok(DebugModeArgs { target })
    }
}

/// Expands `debug_mode!`.
pub(crate) fn debug_mode(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let a: DebugModeArgs = input.parse()?;
        fields::require_static_target(&a.target, "debug_mode!")?;
        let target = fields::target_tokens(&a.target);
        let cs = callsite("Check", level::ERROR.name, &target, &quote!(""));
        let on = level::interest_on();
        let live = quote! {{
            #cs
            #ELIDE::__private::enabled(&__ELIDE_CS, #on)
        }};
        let dead = quote! {{
            let _: &'static str = #target;
            false
        }};
        Ok(Presence::checks(&a.target)?.select_valued(live, || dead))
    })
}
