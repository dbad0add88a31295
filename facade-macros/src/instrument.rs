//! `#[instrument(..)]`: a function in a span, as `tracing`'s attribute;
//! and the arguments `#[timed]` shares with it.
//!
//! Arguments: `skip(a, b)`, `skip_all`, `fields(key = value, ..)` (with
//! `%`/`?`), `err` / `err(Display)` / `err(Debug)`, `ret` / `ret(Debug)` /
//! `ret(Display)`, `level = "debug"` (or a path: `Level::DEBUG`),
//! `name = ".."`, `target = ".."`. Every argument not skipped, `self`
//! included, is a field recorded through `Debug` (`x = ?x`), unless
//! `fields(..)` declares its name; arguments bound by a pattern other than
//! a name are left out.
//!
//! The body becomes:
//! ```text
//! let __elide_span = <span site>;                    // see `span.rs`
//! let __elide_entered = __elide_span.enter();        // sync
//! <body>                                             // or, with `err`/`ret`:
//! let __elide_ret: R = body(move || { <body> });     // every exit passes here
//! if let Err(e) = &__elide_ret { error!(error = %e) }
//! event!(level, "return" = ?__elide_ret);
//! __elide_ret
//! ```
//! An `async fn` runs its body in `instrumented(span, async move { .. }).await`:
//! the span is entered while the future is polled.

use crate::expand::ELIDE;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Token};

use crate::args::{self, Field, Sigil};
use crate::impl_trait::mentions_impl_trait;
use crate::level::{self, Level};
use crate::span::{site_tokens, SpanSite};

/// How `err` or `ret` writes the value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mode {
    Display,
    Debug,
}

/// `#[instrument]`'s arguments.
pub(crate) struct InstrumentArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) target: Option<LitStr>,
    pub(crate) level: Option<Level>,
    pub(crate) skip: Vec<Ident>,
    pub(crate) skip_all: bool,
    pub(crate) fields: Vec<Field>,
    pub(crate) err: Option<Mode>,
    pub(crate) ret: Option<Mode>,
}

/// The argument names `#[instrument]` takes, which tell `#[timed]` that it
/// is given `#[instrument]`'s arguments.
const WORDS: [&str; 8] = [
    "skip", "skip_all", "fields", "err", "ret", "level", "target", "name",
];

/// Whether attribute arguments are `#[instrument]`'s (a word of [`WORDS`]
/// alone, called, or `level =`/`target =`), not `#[timed]`'s own
/// `[target: ..,] [name = "..",] fields` (where `name = ".."` also fits).
pub(crate) fn is_instrument_style(attr: &TokenStream) -> bool {
    let tokens: Vec<proc_macro2::TokenTree> = attr.clone().into_iter().collect();
    let mut at_item = true;
    for (i, t) in tokens.iter().enumerate() {
        if let proc_macro2::TokenTree::Ident(id) = t {
            let word = id.to_string();
            let next = tokens.get(i + 1);
            let ends = next.is_none()
                || matches!(next, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ',');
            let called = matches!(next, Some(proc_macro2::TokenTree::Group(g))
                if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
            let assigned =
                matches!(next, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '=');
            if at_item
                && WORDS.contains(&word.as_str())
                && ((ends && matches!(word.as_str(), "skip_all" | "err" | "ret"))
                    || (called && matches!(word.as_str(), "skip" | "fields" | "err" | "ret"))
                    || (assigned && matches!(word.as_str(), "level" | "target")))
            {
                return true;
            }
        }
        at_item = matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',');
    }
    false
}

/// `(Display)` / `(Debug)` after `err` or `ret`, else `default` (as in
/// `tracing`: `err` through `Display`, `ret` through `Debug`).
fn parse_mode(input: ParseStream, default: Mode) -> syn::Result<Mode> {
    if !input.peek(syn::token::Paren) {
        return Ok(default);
    }
    let inner;
    syn::parenthesized!(inner in input);
    let word: Ident = inner.parse()?;
    match word.to_string().as_str() {
        "Display" => Ok(Mode::Display),
        "Debug" => Ok(Mode::Debug),
        _ => Err(syn::Error::new(
            word.span(),
            "expected `Display` or `Debug`, as in `err(Debug)`",
        )),
    }
}

fn parse_level(input: ParseStream) -> syn::Result<Level> {
    if crate::args::peek_str(input) {
        let lit: LitStr = input.parse()?;
        let text = lit.value();
        let mut chars = text.trim().chars();
        let variant: String = match chars.next() {
            Some(c) => c
                .to_uppercase()
                .chain(chars.flat_map(char::to_lowercase))
                .collect(),
            None => String::new(),
        };
        return Level::from_variant(&variant).ok_or_else(|| {
            syn::Error::new(
                lit.span(),
                format!(
                    "unknown level {text:?}: expected one of \"error\", \"warn\", \"info\", \"debug\", \"trace\""
                ),
            )
        });
    }
    let e: Expr = input.parse()?;
    crate::log_site::fixed_level(&e).ok_or_else(|| {
        syn::Error::new_spanned(
            e,
            "expected a level: `level = \"debug\"` or `level = Level::DEBUG`",
        )
    })
}

/// Parses `#[instrument]`'s arguments (also `#[timed]`'s, in this style).
pub(crate) fn parse_args(input: ParseStream) -> syn::Result<InstrumentArgs> {
    let mut a = InstrumentArgs {
        name: None,
        target: None,
        level: None,
        skip: Vec::new(),
        skip_all: false,
        fields: Vec::new(),
        err: None,
        ret: None,
    };
    while !input.is_empty() {
        let word: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        match word.to_string().as_str() {
            "skip_all" => a.skip_all = true,
            "skip" => {
                let inner;
                syn::parenthesized!(inner in input);
                let names: Punctuated<Ident, Token![,]> =
                    inner.parse_terminated(syn::ext::IdentExt::parse_any, Token![,])?;
                a.skip.extend(names);
            }
            "fields" => {
                let inner;
                syn::parenthesized!(inner in input);
                let (fields, _) = args::parse_fields(&inner, false)?;
                if !inner.is_empty() {
                    return Err(inner.error("`fields(..)` takes `key = value` items only"));
                }
                a.fields.extend(fields);
            }
            "err" => a.err = Some(parse_mode(input, Mode::Display)?),
            "ret" => a.ret = Some(parse_mode(input, Mode::Debug)?),
            "level" => {
                input.parse::<Token![=]>()?;
                a.level = Some(parse_level(input)?);
            }
            "name" => {
                input.parse::<Token![=]>()?;
                a.name = Some(input.parse()?);
            }
            "target" => {
                input.parse::<Token![=]>()?;
                a.target = Some(input.parse()?);
            }
            "parent" | "follows_from" => {
                return Err(syn::Error::new(
                    word.span(),
                    format!(
                    "`{word}` is not supported: a span's parent is the span entered where it opens"
                ),
                ))
            }
            _ => return Err(syn::Error::new(
                word.span(),
                "expected `skip(..)`, `skip_all`, `fields(..)`, `err`, `ret`, `level = \"..\"`, \
                     `name = \"..\"` or `target = \"..\"`",
            )),
        }
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(a)
}

/// `target: "..."` as the log and span sites take it.
pub(crate) fn target_expr(a: &InstrumentArgs) -> Option<Expr> {
    a.target.as_ref().map(|t| {
        Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit: syn::Lit::Str(t.clone()),
        })
    })
}

/// The function's arguments as fields (`x = ?x`), unless skipped.
fn arg_fields(f: &ItemFn, a: &InstrumentArgs) -> Vec<Field> {
    if a.skip_all {
        return Vec::new();
    }
    // An argument named like a declared field is the field's (as in
    // `tracing`): one key each.
    let skipped =
        |name: &str| a.skip.iter().any(|s| s == name) || a.fields.iter().any(|f| f.name == name);
    f.sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Receiver(_) => Some("self".to_string()),
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) => Some(p.ident.to_string()),
                _ => None,
            },
        })
        .filter(|name| !skipped(name))
        .map(|name| Field {
            value: syn::parse_str(&name).expect("an identifier is an expression"),
            name,
            sigil: Sigil::Debug,
        })
        .collect()
}

/// The body with `err`/`ret` events after it, or as written without them.
/// The events go to the function's namespace (or `target`), `ret` at
/// `level`, `err` at error.
pub(crate) fn result_events(
    f: &ItemFn,
    a: &InstrumentArgs,
    level: Level,
    body: TokenStream,
) -> TokenStream {
    if a.err.is_none() && a.ret.is_none() {
        return body;
    }
    let target = a.target.as_ref().map(|t| quote!(target: #t,));
    let sigil = |m: Mode| match m {
        Mode::Display => quote!(%),
        Mode::Debug => quote!(?),
    };
    let err = a.err.map(|m| {
        let s = sigil(m);
        quote! {
            if let ::core::result::Result::Err(__elide_e) = &__elide_ret {
                #ELIDE::error!(#target error = #s __elide_e);
            }
        }
    });
    // With `err` too, the function returns a `Result` and `ret` logs its
    // `Ok` value (as `tracing` does).
    let ret = a.ret.map(|m| {
        let s = sigil(m);
        let l = level.variant();
        match a.err {
            Some(_) => quote! {
                if let ::core::result::Result::Ok(__elide_v) = &__elide_ret {
                    #ELIDE::event!(#target #l, "return" = #s __elide_v);
                }
            },
            None => quote! {
                #ELIDE::event!(#target #l, "return" = #s __elide_ret);
            },
        }
    });
    let ty = match &f.sig.output {
        ReturnType::Type(_, ty) if !mentions_impl_trait(ty) => Some(quote!(#ty)),
        ReturnType::Default => Some(quote!(())),
        ReturnType::Type(..) => None,
    };
    let run = if f.sig.asyncness.is_some() {
        let pin = ty
            .as_ref()
            .map(|ty| quote!(#ELIDE::__private::async_body::<#ty, _>));
        quote!(#pin(async move { #body }).await)
    } else {
        let pin = ty
            .as_ref()
            .map(|ty| quote!(#ELIDE::__private::body::<#ty, _>));
        let pin = pin.unwrap_or_else(|| quote!(#ELIDE::__private::body));
        quote!(#pin(move || { #body }))
    };
    quote! {
        let __elide_ret = #run;
        #err
        #ret
        __elide_ret
    }
}

/// Expands `#[instrument(..)]`. On an error the function is still
/// emitted, so the error is the only one reported.
pub(crate) fn instrument(attr: TokenStream, item: TokenStream) -> TokenStream {
    match instrument_fn(attr, item.clone()) {
        Ok(t) => t,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out
        }
    }
}

fn instrument_fn(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f: ItemFn = syn::parse2(item).map_err(|_| {
        syn::Error::new(
            Span::call_site(),
            "`#[instrument]` applies to functions and methods with a body",
        )
    })?;
    if let Some(c) = &f.sig.constness {
        return Err(syn::Error::new(
            c.span,
            "`#[instrument]` cannot be used on a `const fn`",
        ));
    }
    let mut a = parse_args.parse2(attr)?;
    let level = a.level.unwrap_or(level::INFO);
    let mut fields = arg_fields(&f, &a);
    fields.append(&mut a.fields);
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| LitStr::new(&f.sig.ident.to_string(), f.sig.ident.span()));
    let site = site_tokens(&SpanSite {
        target: target_expr(&a),
        level,
        name,
        fields,
    })?;
    let stmts = &f.block.stmts;
    let inner = result_events(&f, &a, level, quote!(#(#stmts)*));
    let body = if f.sig.asyncness.is_some() {
        quote! {{
            let __elide_span = #site;
            #ELIDE::__private::instrumented(__elide_span, async move { #inner }).await
        }}
    } else {
        quote! {{
            let __elide_span = #site;
            let __elide_entered = __elide_span.enter();
            #inner
        }}
    };
    Ok(crate::checked::with_body(&f, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `#[timed]` reads `#[instrument]`'s words as such, and its own forms
    /// (`name = ".."` and fields, including fields called like a word but
    /// given a value) as before.
    #[test]
    fn instrument_style_is_told_from_timed_style() {
        for yes in [
            quote!(skip(self)),
            quote!(skip_all),
            quote!(err),
            quote!(name = "x", ret(Debug)),
            quote!(level = "debug"),
            quote!(fields(id = %self.id)),
            quote!(target = "t"),
        ] {
            assert!(is_instrument_style(&yes), "{yes}");
        }
        for no in [
            quote!(),
            quote!(name = "x", uid = %uid),
            quote!(target: "t", name = "x"),
            quote!(err = 3),
            quote!(n, m),
        ] {
            assert!(!is_instrument_style(&no), "{no}");
        }
    }

    /// Every argument parses; a mistyped level or an unknown word says
    /// what is expected.
    #[test]
    fn every_argument_parses() {
        let a = parse_args
            .parse2(quote!(
                skip(self, b), fields(id = %self.id, n = 1), err(Debug), ret,
                level = "DEBUG", name = "run", target = "app::x"
            ))
            .unwrap();
        assert_eq!(a.skip.len(), 2);
        assert_eq!(a.fields.len(), 2);
        assert_eq!((a.err, a.ret), (Some(Mode::Debug), Some(Mode::Debug)));
        assert_eq!(a.level, Some(level::DEBUG));
        assert_eq!(a.name.unwrap().value(), "run");
        let e = parse_args.parse2(quote!(level = "verbose")).err().unwrap();
        assert!(e.to_string().contains("unknown level"), "{e}");
        let e = parse_args.parse2(quote!(frobnicate)).err().unwrap();
        assert!(e.to_string().contains("expected `skip(..)`"), "{e}");
        let e = parse_args.parse2(quote!(parent = None)).err().unwrap();
        assert!(e.to_string().contains("not supported"), "{e}");
    }
}
