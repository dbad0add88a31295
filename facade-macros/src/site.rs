//! Code generation for each kind of call site.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{ParseStream, Parser};
use syn::{Expr, LitStr, Token};

use crate::args::{self, LogArgs};
use crate::gate::Presence;
use crate::source_text::{self, Source};

/// Runs a parser and turns a parse error into a `compile_error!`.
fn expand(
    input: TokenStream,
    f: impl FnOnce(ParseStream) -> syn::Result<TokenStream>,
) -> TokenStream {
    match f.parse2(input) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

/// `static __ELIDE_CS: Callsite = ...;` for a site.
pub fn callsite(kind: &str, level: &str, target: &TokenStream, name: &TokenStream) -> TokenStream {
    let meta = metadata(kind, level, target, name, Span::call_site());
    quote! {
        static __ELIDE_CS: ::elide::__private::Callsite = ::elide::__private::Callsite::new(#meta);
    }
}

/// `Metadata::new(..)` for a site; `file!()`/`line!()` resolve at `span`.
pub fn metadata(
    kind: &str,
    level: &str,
    target: &TokenStream,
    name: &TokenStream,
    span: Span,
) -> TokenStream {
    let kind = syn::Ident::new(kind, span);
    let level = syn::Ident::new(level, span);
    quote_spanned! {span=>
        ::elide::__private::Metadata::new(
            ::elide::__private::Kind::#kind,
            ::elide::Level::#level,
            #target,
            ::core::module_path!(),
            ::core::file!(),
            ::core::line!(),
            #name,
        )
    }
}

/// The emit call for a log site, inside its sampling filter if it has one.
///
/// A hit can pass the filter while its site is still unresolved and then
/// turn out disabled; the cold path then gives the filter its slot back, so
/// `once` on a site that was first hit while off still fires once it is on.
fn sampled(a: &LogArgs, needed: TokenStream, body: TokenStream) -> TokenStream {
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
fn sampling_typecheck(a: &LogArgs) -> TokenStream {
    let s = &a.sampling;
    let mut out = TokenStream::new();
    for n in s.sample.iter().chain(&s.first) {
        out.extend(quote!(let _: u32 = #n;));
    }
    if let Some(d) = &s.every {
        out.extend(quote!(let _: ::core::time::Duration = #d;));
    }
    out
}

/// A log site with a level known at expansion time.
pub fn log_fixed(level: u8, level_name: &str, input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let a: LogArgs = input.parse()?;
        Ok(log_site(level, level_name, &a))
    })
}

fn log_site(level: u8, level_name: &str, a: &LogArgs) -> TokenStream {
    let target = args::target_tokens(&a.target);
    let message = a.message();
    let fields = args::fields_tokens(&a.fields);
    let cs = callsite("Log", level_name, &target, &quote!(""));
    let level_ident = syn::Ident::new(level_name, Span::call_site());
    let body = quote! {
        |__elide_meta| {
            ::elide::__private::dispatch(&::elide::Record::new(
                __elide_meta, ::elide::Level::#level_ident, #message, #fields,
            ))
        }
    };
    let call = sampled(a, quote!(#level), body);
    let live = quote! {{
        #cs
        if #level <= ::elide::__private::Callsite::interest(&__ELIDE_CS) {
            #call
        }
    }};
    let dead = log_dead(a);
    Presence::for_level(level).select(live, dead)
}

/// A dead branch that type-checks everything the site would evaluate.
fn log_dead(a: &LogArgs) -> TokenStream {
    let target = args::target_tokens(&a.target);
    let message = a.message();
    let fields = args::fields_typecheck(&a.fields);
    let sampling = sampling_typecheck(a);
    quote! {
        if false {
            let _: &'static str = #target;
            #fields
            #sampling
            let _ = #message;
        }
    }
}

/// Maps `Level::Info`, `elide::Level::Info` or `Info` to a fixed level.
fn fixed_level(e: &Expr) -> Option<(u8, &'static str)> {
    let Expr::Path(p) = e else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    Some(match last.as_str() {
        "Error" => (1, "Error"),
        "Warn" => (2, "Warn"),
        "Info" => (3, "Info"),
        "Debug" => (4, "Debug"),
        "Trace" => (5, "Trace"),
        _ => return None,
    })
}

/// `log!(level, ...)` and `log!(target: "..", level, ...)`.
pub fn log_any(input: TokenStream) -> TokenStream {
    expand(input, |input| {
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
        let mut a: LogArgs = input.parse()?;
        if a.target.is_some() && target.is_some() {
            return Err(syn::Error::new(Span::call_site(), "`target:` given twice"));
        }
        a.target = a.target.or(target);
        if let Some((n, name)) = fixed_level(&level) {
            return Ok(log_site(n, name, &a));
        }
        Ok(log_dynamic(&level, &a))
    })
}

/// A log site whose level is only known at run time: both gates compare
/// against the value.
fn log_dynamic(level: &Expr, a: &LogArgs) -> TokenStream {
    let target = args::target_tokens(&a.target);
    let message = a.message();
    let fields = args::fields_tokens(&a.fields);
    let cs = callsite("Log", "Trace", &target, &quote!(""));
    let static_max = Presence::static_max_tokens();
    let body = quote! {
        |__elide_meta| {
            ::elide::__private::dispatch(&::elide::Record::new(
                __elide_meta, __elide_level, #message, #fields,
            ))
        }
    };
    let call = sampled(a, quote!(__elide_lvl), body);
    let dead = log_dead(a);
    quote! {{
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
    }}
}

/// `enabled!(level)` / `enabled!(target: "..", level)`.
pub fn enabled(input: TokenStream) -> TokenStream {
    expand(input, |input| {
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
        let target = args::target_tokens(&target);
        Ok(match fixed_level(&level) {
            Some((n, name)) => {
                let cs = callsite("Log", name, &target, &quote!(""));
                let live = quote! {{
                    #cs
                    ::elide::__private::enabled(&__ELIDE_CS, #n)
                }};
                let dead = quote! {{ let _: &'static str = #target; false }};
                Presence::for_level(n).select(live, dead)
            }
            None => {
                let cs = callsite("Log", "Trace", &target, &quote!(""));
                let static_max = Presence::static_max_tokens();
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

/// Which comparison a check makes.
#[derive(Clone, Copy)]
pub enum CheckKind {
    True,
    Eq,
    Ne,
}

/// `check!(cond [, "fmt", args..])`, `check_eq!(a, b [, ..])`, `check_ne!`.
pub fn check(input: TokenStream, kind: CheckKind) -> TokenStream {
    let source = Source::of_call(&input);
    expand(input, |input| {
        let start = input.cursor();
        let target = args::parse_target(input)?;
        let operands = match kind {
            CheckKind::True => 1,
            _ => 2,
        };
        let mut exprs = Vec::new();
        let mut texts = Vec::new();
        for _ in 0..operands {
            if input.is_empty() {
                return Err(syn::Error::new(
                    input.span(),
                    match kind {
                        CheckKind::True => "expected a condition: `check!(cond)`",
                        CheckKind::Eq => "expected two operands: `check_eq!(left, right)`",
                        CheckKind::Ne => "expected two operands: `check_ne!(left, right)`",
                    },
                ));
            }
            let (e, first, count) =
                source_text::parse_counted(input, start, |i| i.parse::<Expr>())?;
            texts.push(source_text::text_or_tokens(
                source.as_ref(),
                first,
                count,
                &e,
            ));
            exprs.push(e);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        if !input.is_empty() && !input.peek(LitStr) {
            return Err(input.error(
                "expected the message as a format string literal: `check!(cond, \"x = {}\", x)`",
            ));
        }
        let (format, rest) = args::parse_format(input)?;
        let message = match &format {
            Some(lit) => quote!(::core::format_args!(#lit #rest)),
            None => quote!(::core::format_args!("")),
        };
        let target = args::target_tokens(&target);
        let (text, verdict) = match kind {
            CheckKind::True => {
                let c = &exprs[0];
                (
                    texts[0].clone(),
                    quote! {{
                        let __elide_ok: bool = #c;
                        if __elide_ok {
                            ::core::option::Option::None
                        } else {
                            ::core::option::Option::Some(::std::string::String::new())
                        }
                    }},
                )
            }
            CheckKind::Eq | CheckKind::Ne => {
                let (l, r) = (&exprs[0], &exprs[1]);
                let (op, f) = match kind {
                    CheckKind::Eq => ("==", quote!(check_eq_details)),
                    _ => ("!=", quote!(check_ne_details)),
                };
                (
                    format!("{} {op} {}", texts[0], texts[1]),
                    quote! {
                        match (&(#l), &(#r)) {
                            (__elide_l, __elide_r) => ::elide::__private::#f(__elide_l, __elide_r),
                        }
                    },
                )
            }
        };
        let cs = callsite("Check", "Error", &target, &quote!(#text));
        let live = quote! {{
            #cs
            if 1u8 <= ::elide::__private::Callsite::interest(&__ELIDE_CS) {
                ::elide::__private::check(
                    &__ELIDE_CS,
                    || #verdict,
                    |__elide_f: &mut dyn ::core::ops::FnMut(::core::fmt::Arguments<'_>)| __elide_f(#message),
                );
            }
        }};
        let dead = quote! {
            if false {
                let _: &'static str = #target;
                let _ = #verdict;
                let _ = #message;
            }
        };
        Ok(Presence::checks().select(live, dead))
    })
}

/// `debug_mode!()` / `debug_mode!(target: "..")`: whether checks run for the
/// calling module (or the target), through a per-site cache.
pub fn debug_mode(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let target = args::parse_target(input)?;
        if !input.is_empty() {
            return Err(input.error(
                "`debug_mode!` takes nothing or a `target:`: `debug_mode!()`, `debug_mode!(target: \"my_app::db\")`",
            ));
        }
        let target = args::target_tokens(&target);
        let cs = callsite("Check", "Error", &target, &quote!(""));
        let live = quote! {{
            #cs
            ::elide::__private::enabled(&__ELIDE_CS, 1u8)
        }};
        let dead = quote! {{
            let _: &'static str = #target;
            false
        }};
        Ok(Presence::checks().select(live, dead))
    })
}

/// `telemetry!([target: ..,] "event" [, key = value]*)`.
pub fn telemetry(input: TokenStream) -> TokenStream {
    expand(input, |input| {
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
        let target = args::target_tokens(&target);
        let cs = callsite("Telemetry", "Info", &target, &quote!(#event));
        let record_fields = args::fields_tokens(&fields);
        let live = quote! {{
            #cs
            if 1u8 <= ::elide::__private::Callsite::interest(&__ELIDE_CS) {
                ::elide::__private::emit(&__ELIDE_CS, 1u8, |__elide_meta| {
                    ::elide::__private::dispatch(&::elide::Record::new(
                        __elide_meta, ::elide::Level::Info, ::core::format_args!("{}", #event), #record_fields,
                    ))
                });
            }
        }};
        let typecheck = args::fields_typecheck(&fields);
        let dead = quote! {
            if false {
                let _: &'static str = #target;
                #typecheck
            }
        };
        Ok(Presence::telemetry().select(live, dead))
    })
}

/// `counter!("name")` / `counter!("name", n)`.
pub fn counter(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let name: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the counter name as a string literal: `counter!(\"tasks.started\")`",
            )
        })?;
        let n: Expr = if input.is_empty() {
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
        let live = quote! {{
            #[::elide::__private::linkme::distributed_slice(::elide::__private::COUNTERS)]
            #[linkme(crate = ::elide::__private::linkme)]
            static __ELIDE_COUNTER: ::elide::__private::Counter = ::elide::__private::Counter::new(
                #name, ::core::module_path!(), ::core::file!(), ::core::line!(),
            );
            __ELIDE_COUNTER.add(#n);
        }};
        let dead = quote! {
            if false {
                let _: u64 = #n;
            }
        };
        Ok(Presence::telemetry().select(live, dead))
    })
}
