//! `enabled!(level)` / `enabled!(target: "..", level)`: whether a site at
//! this level would emit, through its own cached interest.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Token};

use crate::args;
use crate::callsite::callsite;
use crate::expand::expand;
use crate::fields;
use crate::gate::{self, Presence};
use crate::log_site::fixed_level;

/// `[target: ..,] level [,]`.
struct EnabledArgs {
    target: Option<Expr>,
    level: Expr,
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

/// Expands `enabled!`.
pub(crate) fn enabled(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let a: EnabledArgs = input.parse()?;
        let target = fields::target_tokens(&a.target);
        Ok(match fixed_level(&a.level) {
            Some(level) => {
                let cs = callsite("Log", level.name, &target, &quote!(""));
                let n = level.number_tokens();
                let live = quote! {{
                    #cs
                    ::elide::__private::enabled(&__ELIDE_CS, #n)
                }};
                let dead = quote! {{ let _: &'static str = #target; false }};
                Presence::for_level(level, &a.target)?.select(live, dead)
            }
            None => {
                let cs = callsite("Log", "Trace", &target, &quote!(""));
                let static_max = gate::static_max_tokens(&a.target)?;
                let level = &a.level;
                quote! {{
                    let __elide_lvl: u8 = ::elide::Level::as_u8(#level);
                    #cs
                    __elide_lvl <= #static_max
                        && ::elide::__private::enabled(&__ELIDE_CS, __elide_lvl)
                }}
            }
        })
    })
}
