//! `telemetry!([target: ..,] "event" [, key = value]*)`: an event, built
//! only when telemetry is on for the namespace and a sink wants it.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, LitStr, Token};

use crate::args::{self, Field};
use crate::callsite::{callsite, guarded};
use crate::expand::expand;
use crate::fields;
use crate::gate::Presence;
use crate::level;

/// `[target: ..,] "event" [, fields]`.
struct TelemetryArgs {
    target: Option<Expr>,
    event: LitStr,
    fields: Vec<Field>,
}

impl Parse for TelemetryArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        let event: LitStr = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "expected the event name as a string literal: `telemetry!(\"task.start\", uid = ..)`")
        })?;
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
        let (fields, _) = args::parse_fields(input, false)?;
        if !input.is_empty() {
            return Err(
                input.error("telemetry events take fields only (`key = value`), no format string")
            );
        }
        Ok(TelemetryArgs {
            target,
            event,
            fields,
        })
    }
}

/// Expands `telemetry!`.
pub(crate) fn telemetry(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let a: TelemetryArgs = input.parse()?;
        fields::require_static_target(&a.target, "telemetry!")?;
        let target = fields::target_tokens(&a.target);
        let event = &a.event;
        let cs = callsite("Telemetry", level::INFO.name, &target, &quote!(#event));
        let record = fields::event_dispatch_tokens(&a.fields);
        let on = level::interest_on();
        let body = quote!(|__elide_meta, __elide_route| { #record });
        let call = guarded(
            &quote!(&__ELIDE_CS),
            &quote!(&__ELIDE_CS.meta),
            &on,
            None,
            body,
        );
        let live = quote! {{
            #cs
            #call
        }};
        let typecheck = fields::fields_typecheck(&a.fields);
        let dead = quote! {
            if false {
                let _: &'static str = #target;
                #typecheck
            }
        };
        Ok(Presence::telemetry(&a.target)?.select(live, || dead))
    })
}
