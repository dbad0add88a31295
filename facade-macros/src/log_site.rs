//! Log sites: `error!` .. `trace!` (level fixed by the macro) and `log!`
//! (level given, fixed when it names a `Level` variant, else at run time).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, LitStr, Token};

use crate::args::{self, Field, Sampling};
use crate::callsite::callsite;
use crate::expand::expand;
use crate::fields;
use crate::gate::{self, Presence};
use crate::level::Level;

/// Everything after the level of a log site:
/// `[target: ..,] [fields,] [sampling,] ["format", args..]`.
pub(crate) struct LogArgs {
    target: Option<Expr>,
    fields: Vec<Field>,
    sampling: Sampling,
    format: Option<LitStr>,
    format_args: TokenStream,
}

impl Parse for LogArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        let (fields, sampling) = args::parse_fields(input, true)?;
        let (format, format_args) = args::parse_format(input)?;
        Ok(LogArgs {
            target,
            fields,
            sampling,
            format,
            format_args,
        })
    }
}

impl LogArgs {
    /// `format_args!(...)` for the message (empty when there is none).
    fn message(&self) -> TokenStream {
        match &self.format {
            Some(lit) => {
                let rest = &self.format_args;
                quote!(::core::format_args!(#lit #rest))
            }
            None => quote!(::core::format_args!("")),
        }
    }
}

/// `log!`'s arguments: `[target: ..,] level, <LogArgs>`.
struct LogAnyArgs {
    level: Expr,
    args: LogArgs,
}

impl Parse for LogAnyArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        if input.is_empty() {
            return Err(syn::Error::new(
                input.span(),
                "expected a level first, e.g. `log!(Level::Info, \"message\")`",
            ));
        }
        let level: Expr = input.parse()?;
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
        let mut args: LogArgs = input.parse()?;
        if args.target.is_some() && target.is_some() {
            return Err(syn::Error::new(Span::call_site(), "`target:` given twice"));
        }
        args.target = args.target.or(target);
        Ok(LogAnyArgs { level, args })
    }
}

/// The level a `Level::Info`, `elide::Level::Info` or `Info` path names.
pub(crate) fn fixed_level(e: &Expr) -> Option<Level> {
    let Expr::Path(p) = e else { return None };
    Level::from_variant(&p.path.segments.last()?.ident.to_string())
}

/// `error!` .. `trace!`.
pub(crate) fn log_fixed(level: Level, input: TokenStream) -> TokenStream {
    expand(input, |input| log_site(level, &input.parse()?))
}

/// `log!(level, ...)` and `log!(target: "..", level, ...)`.
pub(crate) fn log_any(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let a: LogAnyArgs = input.parse()?;
        match fixed_level(&a.level) {
            Some(level) => log_site(level, &a.args),
            None => log_dynamic(&a.level, &a.args),
        }
    })
}

fn log_site(level: Level, a: &LogArgs) -> syn::Result<TokenStream> {
    let target = fields::target_tokens(&a.target);
    let message = a.message();
    let record_fields = fields::fields_tokens(&a.fields);
    let cs = callsite("Log", level.name, &target, &quote!(""));
    let variant = level.variant();
    let body = quote! {
        |__elide_meta| {
            ::elide::__private::dispatch(&::elide::Record::new(
                __elide_meta, #variant, #message, #record_fields,
            ))
        }
    };
    let needed = level.number_tokens();
    let call = sampled(a, &needed, body);
    let live = quote! {{
        #cs
        if #needed <= ::elide::__private::Callsite::interest(&__ELIDE_CS) {
            #call
        }
    }};
    Ok(Presence::for_level(level, &a.target)?.select(live, log_dead(a)))
}

/// A log site whose level is only known at run time: both gates compare
/// against the value.
fn log_dynamic(level: &Expr, a: &LogArgs) -> syn::Result<TokenStream> {
    let target = fields::target_tokens(&a.target);
    let message = a.message();
    let record_fields = fields::fields_tokens(&a.fields);
    let cs = callsite("Log", "Trace", &target, &quote!(""));
    let static_max = gate::static_max_tokens(&a.target)?;
    let body = quote! {
        |__elide_meta| {
            ::elide::__private::dispatch(&::elide::Record::new(
                __elide_meta, __elide_level, #message, #record_fields,
            ))
        }
    };
    let call = sampled(a, &quote!(__elide_lvl), body);
    let dead = log_dead(a);
    Ok(quote! {{
        let __elide_level: ::elide::Level = #level;
        let __elide_lvl: u8 = ::elide::Level::as_u8(__elide_level);
        if __elide_lvl <= #static_max {
            #cs
            if __elide_lvl <= ::elide::__private::Callsite::interest(&__ELIDE_CS) {
                #call
            }
        } else {
            #dead
        }
    }})
}

/// A dead branch that type-checks everything the site would evaluate.
fn log_dead(a: &LogArgs) -> TokenStream {
    let target = fields::target_tokens(&a.target);
    let message = a.message();
    let typecheck = fields::fields_typecheck(&a.fields);
    let sampling = sampling_typecheck(&a.sampling);
    quote! {
        if false {
            let _: &'static str = #target;
            #typecheck
            #sampling
            let _ = #message;
        }
    }
}

/// The emit call for a log site, inside its sampling filter if it has one.
///
/// A hit can pass the filter while its site is still unresolved and then
/// turn out disabled; the cold path then gives the filter its slot back, so
/// `once` on a site that was first hit while off still fires once it is on.
fn sampled(a: &LogArgs, needed: &TokenStream, body: TokenStream) -> TokenStream {
    let s = &a.sampling;
    if let Some(n) = &s.sample {
        quote! {
            ::std::thread_local! {
                static __ELIDE_HITS: ::core::cell::Cell<u32> = const { ::core::cell::Cell::new(0) };
            }
            if ::elide::__private::sample_nth(&__ELIDE_HITS, #n) {
                ::elide::__private::emit_sampled(
                    &__ELIDE_CS, #needed, || ::elide::__private::sample_undo(&__ELIDE_HITS), #body,
                );
            }
        }
    } else if let Some(n) = &s.first {
        quote! {
            static __ELIDE_SEEN: ::elide::__private::First = ::elide::__private::First::new();
            if __ELIDE_SEEN.admit(#n) {
                ::elide::__private::emit_sampled(&__ELIDE_CS, #needed, || __ELIDE_SEEN.undo(), #body);
            }
        }
    } else if let Some(d) = &s.every {
        quote! {
            static __ELIDE_NEXT: ::elide::__private::Every = ::elide::__private::Every::new();
            if __ELIDE_NEXT.admit(#d) {
                ::elide::__private::emit_sampled(&__ELIDE_CS, #needed, || __ELIDE_NEXT.undo(), #body);
            }
        }
    } else {
        quote!(::elide::__private::emit(&__ELIDE_CS, #needed, #body);)
    }
}

/// Type-checks sampling options inside a dead branch.
fn sampling_typecheck(s: &Sampling) -> TokenStream {
    let mut out = TokenStream::new();
    for n in s.sample.iter().chain(&s.first) {
        out.extend(quote!(let _: u32 = #n;));
    }
    if let Some(d) = &s.every {
        out.extend(quote!(let _: ::core::time::Duration = #d;));
    }
    out
}
