//! Log sites: `error!` .. `trace!` (level fixed by the macro) and `log!`
//! (level given, fixed when it names a `Level` variant, else at run time).

use crate::expand::ELIDE;
use proc_macro2::{Delimiter, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, LitStr, Token};

use crate::args::{self, Field, Sampling};
use crate::callsite::{callsite, guarded};
use crate::emit::Emit;
use crate::expand::expand;
use crate::fields;
use crate::gate::{self, Presence};
use crate::level::Level;

/// Everything after the level of a log site:
/// `[target: ..,] [fields,] [sampling,] ["format", args..]`.
pub(crate) struct LogArgs {
    target: Option<Expr>,
    /// tracing's `name: ".."`: the record's event name.
    name: Option<syn::LitStr>,
    /// tracing's `parent: ..`: only type-checked.
    parent: Option<Expr>,
    fields: Vec<Field>,
    sampling: Sampling,
    format: Option<LitStr>,
    format_args: TokenStream,
}

impl Parse for LogArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let prelude = args::parse_prelude(input)?;
        let (mut fields, sampling) = args::parse_fields(input, true)?;
        let (mut format, mut format_args) = args::parse_format(input)?;
        if format.is_none() {
            if let Some((lit, rest)) = args::message_field(&mut fields) {
                (format, format_args) = (Some(lit), rest);
            }
        }
        Ok(LogArgs {
            target: prelude.target,
            name: prelude.name,
            parent: prelude.parent,
            fields,
            sampling,
            format,
            format_args,
        })
    }
}

impl LogArgs {
    /// The cold closure's body of a site whose closure gets the route and
    /// metadata: builds the record (with the message's raw view where the
    /// format string allows one) and dispatches it.
    fn dispatch(&self, level: &TokenStream) -> TokenStream {
        let record = crate::raw_message::dispatch_record(
            level,
            self.format.as_ref(),
            &self.format_args,
            &fields::kv_template(&self.fields),
        );
        match &self.parent {
            Some(parent) => quote!({ let _ = &(#parent); #record }),
            None => record,
        }
    }

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

/// The level a `Level::Info`, `elide::Level::Info`, `Level::INFO` or `Info`
/// path names, read while expanding so the static gate can see it.
pub(crate) fn fixed_level(e: &Expr) -> Option<Level> {
    let Expr::Path(p) = e else { return None };
    if p.qself.is_some() {
        return None;
    }
    Level::from_variant(&p.path.segments.last()?.ident.to_string())
}

/// Wraps a site whose level was read from a path: the expansion also names
/// that path, in a constant that checks it is the `elide::Level` the macro
/// read. So the user's `use` counts as used, and a path that does not
/// resolve (`NoSuchType::Warn`) or names another type fails to compile.
/// A constant item generates no code.
pub(crate) fn with_level_path(level: Level, path: &Expr, site: TokenStream) -> TokenStream {
    let n = level.number_tokens();
    quote! {{
        const _: () = ::core::assert!(
            #ELIDE::Level::as_u8(#path) == #n,
            "the level path names another level than the macro read",
        );
        #site
    }}
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
            Some(level) => Ok(with_level_path(level, &a.level, log_site(level, &a.args)?)),
            None => log_dynamic(&a.level, &a.args),
        }
    })
}

/// Where a site's `Callsite` comes from: its own `static` (a constant
/// target), or, for a run-time target, the shared one looked up on every
/// hit whose level some namespace allows; any other hit costs one load and
/// a compare, and evaluates neither the target nor the rest.
enum SiteDecl {
    Static(TokenStream),
    Runtime {
        needed: TokenStream,
        target: TokenStream,
    },
}

impl SiteDecl {
    /// `call` (which names `__ELIDE_CS` or `__elide_cs`) with its site.
    fn around(&self, call: TokenStream) -> TokenStream {
        match self {
            SiteDecl::Static(decl) => quote! { #decl #call },
            SiteDecl::Runtime { needed, target } => quote! {
                if !#ELIDE::__private::above_every_level(#needed) {
                    let __elide_cs: &'static #ELIDE::__private::Callsite =
                        #ELIDE::__private::runtime_site(#target);
                    #call
                }
            },
        }
    }
}

/// The site's [`SiteDecl`], an expression of type `&'static Callsite` and
/// one of type `&'static Metadata` (for a `static`, a field projection: a
/// constant).
fn site_decl(
    level: &str,
    needed: &TokenStream,
    a: &LogArgs,
) -> (SiteDecl, TokenStream, TokenStream) {
    let target = fields::target_tokens(&a.target);
    if fields::is_runtime_target(&a.target) {
        let decl = SiteDecl::Runtime {
            needed: needed.clone(),
            target,
        };
        (decl, quote!(__elide_cs), quote!(&__elide_cs.meta))
    } else {
        (
            SiteDecl::Static(callsite("Log", level, &target, &{
                let name = a.name.as_ref().map_or(String::new(), |n| n.value());
                quote!(#name)
            })),
            quote!(&__ELIDE_CS),
            quote!(&__ELIDE_CS.meta),
        )
    }
}

fn log_site(level: Level, a: &LogArgs) -> syn::Result<TokenStream> {
    let common = a.sampling.is_none()
        && !fields::is_runtime_target(&a.target)
        && a.name.is_none()
        && a.parent.is_none();
    let presence = Presence::for_level(level, &a.target)?;
    if let (true, Some(kind)) = (common, presence.features_kind()) {
        // The common site: one call of the facade's `log_site!` template,
        // written mostly as text (see `emit`), which writes the gate, the
        // `static`, the hot check and the cold closure, whose record's
        // dispatch finds the route again from the `static`.
        let mut e = Emit::new();
        e.elide()
            .text("::__private::log_site!")
            .group(Delimiter::Parenthesis, |e| {
                e.text(kind)
                    .text(level.name)
                    .text(crate::level::number_name(level.number));
                match &a.target {
                    Some(t) => e.text("log_at").group(Delimiter::Parenthesis, |e| {
                        e.tokens(t.to_token_stream());
                    }),
                    None => e.text("log_in_module"),
                };
                crate::raw_message::write_record(
                    e,
                    a.format.as_ref(),
                    &a.format_args,
                    &fields::kv_template(&a.fields),
                    crate::raw_message::Dest::Site,
                );
            });
        return Ok(e.finish());
    }
    // Any other site (sampled, a run-time target or a build-time filter's
    // condition): its closure gets the route and the metadata.
    let record = a.dispatch(&level.variant());
    let needed = level.number_tokens();
    let (cs, cs_ref, meta_ref) = site_decl(level.name, &needed, a);
    let body = quote!(|__elide_meta, __elide_route| { #record });
    let call = cs.around(sampled(a, &cs_ref, &meta_ref, &needed, body));
    let live = quote! {{ #call }};
    Ok(presence.select(live, || log_dead(a)))
}

/// A log site whose level is only known at run time: both gates compare
/// against the value.
fn log_dynamic(level: &Expr, a: &LogArgs) -> syn::Result<TokenStream> {
    let (cs, cs_ref, meta_ref) = site_decl("Trace", &quote!(__elide_lvl), a);
    let static_max = gate::static_max_tokens(&a.target)?;
    let record = a.dispatch(&quote!(__elide_level));
    let body = quote!(|__elide_meta, __elide_route| { #record });
    let call = cs.around(sampled(a, &cs_ref, &meta_ref, &quote!(__elide_lvl), body));
    let dead = log_dead(a);
    Ok(quote! {{
        let __elide_level: #ELIDE::Level = #level;
        let __elide_lvl: u8 = #ELIDE::Level::as_u8(__elide_level);
        if __elide_lvl <= #static_max {
            #call
        } else {
            #dead
        }
    }})
}

/// A dead branch that type-checks everything the site would evaluate.
fn log_dead(a: &LogArgs) -> TokenStream {
    let target = fields::target_tokens(&a.target);
    let message = a.message();
    let target_type = fields::target_type(&a.target);
    let typecheck = fields::fields_typecheck(&a.fields);
    let sampling = sampling_typecheck(&a.sampling);
    let parent = a.parent.iter();
    quote! {
        if false {
            let _: #target_type = #target;
            #(let _ = &(#parent);)*
            #typecheck
            #sampling
            let _ = #message;
        }
    }
}

/// The guarded emit of a log site, inside its sampling filter if it has one.
///
/// A hit can pass the filter while its site is still unresolved and then
/// turn out disabled; the filter then gets its slot back, so `once` on a
/// site that was first hit while off still fires once it is on.
fn sampled(
    a: &LogArgs,
    cs: &TokenStream,
    meta: &TokenStream,
    needed: &TokenStream,
    body: TokenStream,
) -> TokenStream {
    let s = &a.sampling;
    let filter = if let Some(n) = &s.sample {
        Some((
            quote! {
                ::std::thread_local! {
                    static __ELIDE_HITS: ::core::cell::Cell<u32> = const { ::core::cell::Cell::new(0) };
                }
            },
            quote!(#ELIDE::__private::sample_nth(&__ELIDE_HITS, #n)),
            quote!(#ELIDE::__private::sample_undo(&__ELIDE_HITS)),
        ))
    } else if let Some(n) = &s.first {
        Some((
            quote!(
                static __ELIDE_SEEN: #ELIDE::__private::First = #ELIDE::__private::First::new();
            ),
            quote!(__ELIDE_SEEN.admit(#n)),
            quote!(__ELIDE_SEEN.undo()),
        ))
    } else {
        s.every.as_ref().map(|d| {
            (
                quote!(
                    static __ELIDE_NEXT: #ELIDE::__private::Every =
                        #ELIDE::__private::Every::new();
                ),
                quote!(__ELIDE_NEXT.admit(#d)),
                quote!(__ELIDE_NEXT.undo()),
            )
        })
    };
    guarded(cs, meta, needed, filter, body)
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

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// The branch a statically removed site leaves behind still names
    /// every expression the site would evaluate (target, fields, sampling
    /// options, format arguments), each where the compiler checks its type,
    /// inside `if false`: removed sites keep type-checking.
    #[test]
    fn a_removed_site_still_type_checks_all_it_would_evaluate() {
        let a: LogArgs = syn::parse2(quote!(
            target: TARGET, sample = n_sample, ?dbg, %shown, plain = value,
            "m {}", arg
        ))
        .unwrap();
        let dead = log_dead(&a).to_string();
        assert!(dead.starts_with("if false"), "{dead}");
        for needed in [
            "= TARGET",
            "let _ : u32 = n_sample",
            "type_check_debug (& (dbg))",
            "type_check_display (& (shown))",
            "field_value (& (value))",
            "arg",
        ] {
            assert!(dead.contains(needed), "{needed} in {dead}");
        }
        let a: LogArgs = syn::parse2(quote!(first = n_first, "m")).unwrap();
        assert!(log_dead(&a).to_string().contains("let _ : u32 = n_first"));
        let a: LogArgs = syn::parse2(quote!(every = period, "m")).unwrap();
        let dead = log_dead(&a).to_string();
        assert!(
            dead.contains("let _ : :: core :: time :: Duration = period"),
            "{dead}"
        );
    }

    /// A common site is one call of the facade's `log_site!` template: the
    /// features' kind, the level and its number, the target, the record's
    /// mode and shared function, the fields, each argument after its
    /// capture method, and the format's pieces (a format only its decoder
    /// renders: `dispatch_decoded_at`). A message without
    /// arguments is handed over plain; a sampled site keeps a closure of its
    /// own, which gets the route.
    #[test]
    fn a_common_site_is_one_call_of_the_log_site_template() {
        let site = |input: TokenStream| {
            let a: LogArgs = syn::parse2(input).unwrap();
            log_site(crate::level::INFO, &a).unwrap().to_string()
        };
        assert_eq!(
            site(quote!("task {} step {:?}", id, k.0)),
            quote!(
                ::elide::__private::log_site!(INFO Info LEVEL_INFO log_in_module
                raw dispatch_message_at []
                [elide_display id, elide_debug k.0,]
                pieces [Lit("task "), Display(0u8), Lit(" step "), Debug(1u8)])
            )
            .to_string()
        );
        assert_eq!(
            site(quote!(target: "net", n = 1, "up")),
            quote!(
                ::elide::__private::log_site!(INFO Info LEVEL_INFO log_at ("net")
                plain dispatch_text_at
                ["n" = ::elide::__private::field(&(1))] ("up"))
            )
            .to_string()
        );
        // A format only its decoder renders goes to the function that
        // asks the format for it; the one with pieces never asks.
        let decoded = site(quote!("took {:>8.3} s", secs));
        assert!(
            decoded.contains("raw dispatch_decoded_at []")
                && decoded.contains("decode [] (__elide_decode)"),
            "{decoded}"
        );
        let sampled = site(quote!(sample = 10, "m {}", x));
        assert!(!sampled.contains("log_site !"), "{sampled}");
        assert!(
            sampled.contains("raw dispatch_message (__elide_route , __elide_meta)"),
            "{sampled}"
        );
    }

    /// A level written as a path (any spelling) is known while expanding;
    /// an expression is not.
    #[test]
    fn fixed_levels_are_read_from_paths_only() {
        for (e, l) in [
            (quote!(Level::Info), Some("Info")),
            (quote!(#ELIDE::Level::WARN), Some("Warn")),
            (quote!(Debug), Some("Debug")),
            (quote!(level), None),
            (quote!(<T as X>::Info), None),
            (quote!(pick(Level::Info)), None),
        ] {
            let e: Expr = syn::parse2(e).unwrap();
            assert_eq!(fixed_level(&e).map(|l| l.name), l);
        }
    }
}
