//! `counter!("name")` / `counter!("name", n)`: an unlocked add on this
//! thread's shard of the site, through a per-site thread-local pointer.
//! Compiled in with telemetry (same static gate).

use crate::expand::ELIDE;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, LitStr, Token};

use crate::expand::expand;
use crate::gate::Presence;

/// `"name" [, amount [,]]`.
struct CounterArgs {
    name: LitStr,
    amount: Expr,
}

impl Parse for CounterArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the counter name as a string literal: `counter!(\"tasks.started\")`",
            )
        })?;
        let amount: Expr = if input.is_empty() {
            syn::parse_quote!(1u64)
        } else {
            input.parse::<Token![,]>()?;
            let e = input.parse()?;
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
            if !input.is_empty() {
                return Err(input.error("`counter!` takes a name and an optional amount"));
            }
            e
        };
        Ok(CounterArgs { name, amount })
    }
}

/// Expands `counter!`.
pub(crate) fn counter(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let CounterArgs { name, amount: n } = input.parse()?;
        let live = quote! {{
            static __ELIDE_COUNTER: #ELIDE::__private::Counter = #ELIDE::__private::Counter::new(
                #name, ::core::module_path!(), ::core::file!(), ::core::line!(),
            );
            ::std::thread_local! {
                static __ELIDE_SHARD: #ELIDE::__private::ShardCell =
                    const { ::core::cell::Cell::new(::core::ptr::null()) };
            }
            #ELIDE::__private::Counter::add(&__ELIDE_COUNTER, &__ELIDE_SHARD, #n);
        }};
        let dead = quote! {
            if false {
                let _: u64 = #n;
            }
        };
        Ok(Presence::telemetry(&None)?.select(live, || dead))
    })
}
