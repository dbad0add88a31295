//! `#[elide::checked(requires(..), ensures(..))]`: pre- and postconditions
//! on a function, run only in debug mode.
//!
//! Live expansion, in the function's own body (signature untouched):
//! ```text
//! static __ELIDE_CS: Callsite = ..;          // one per function, kind Check
//! let __elide_on = 1 <= __ELIDE_CS.interest() // the hot path's one load
//!     && checked_enter(&__ELIDE_CS, || { preconditions });   // cold
//! let __elide_ret: Ret = body(|| { original body });  // only with ensures
//! if __elide_on { checked_exit(|| { postconditions }) }       // cold
//! __elide_ret
//! ```
//! Wrapping the body in a closure (an `async` block for `async fn`) makes
//! `return`, `?` and macros that expand to them (`bail!`) leave the body but
//! not the function, so every exit passes the postconditions. Without
//! `ensures` the body is left as written.

use crate::expand::ELIDE;
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{AttrStyle, Expr, ItemFn, ReturnType, Token, Type};

use crate::args;
use crate::gate::Presence;
use crate::impl_trait::mentions_impl_trait;
use crate::source_text::{self, Source};

const USAGE: &str = "expected `requires(cond, \"message\")` or `ensures(|ret| cond, \"message\")`";

/// Entry point: on an error, the function is still emitted unchanged next
/// to the `compile_error!`, so the error is the only one the user sees.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand_fn(attr, item.clone()) {
        Ok(t) => t,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Requires,
    Ensures,
}

/// One `requires(..)` or `ensures(..)`.
struct Clause {
    side: Side,
    /// The condition (for `ensures`, the closure).
    cond: Expr,
    /// The condition as written (for `ensures`, the closure's body).
    text: String,
    /// `format_args!(..)` for the message.
    message: TokenStream,
    span: Span,
}

fn parse_clauses(attr: TokenStream) -> syn::Result<Vec<Clause>> {
    let mut clauses = Vec::new();
    let mut tokens = attr.into_iter().peekable();
    while let Some(tt) = tokens.next() {
        let TokenTree::Ident(name) = &tt else {
            return Err(syn::Error::new(tt.span(), USAGE));
        };
        let side = match name.to_string().as_str() {
            "requires" => Side::Requires,
            "ensures" => Side::Ensures,
            other => {
                return Err(syn::Error::new(
                    name.span(),
                    format!("unknown clause `{other}`: {USAGE}"),
                ))
            }
        };
        let group = match tokens.next() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g,
            _ => {
                return Err(syn::Error::new(
                    name.span(),
                    match side {
                        Side::Requires => "expected `requires(cond, \"message\")`",
                        Side::Ensures => "expected `ensures(|ret| cond, \"message\")`",
                    },
                ))
            }
        };
        clauses.push(parse_clause(side, &group)?);
        match tokens.next() {
            None => {}
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => {}
            Some(other) => {
                return Err(syn::Error::new(
                    other.span(),
                    "expected `,` between clauses",
                ))
            }
        }
    }
    if clauses.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            format!("`#[elide::checked]` needs at least one clause: {USAGE}"),
        ));
    }
    Ok(clauses)
}

fn parse_clause(side: Side, group: &Group) -> syn::Result<Clause> {
    let source = Source::of_group(group);
    let parser = |input: ParseStream| -> syn::Result<Clause> {
        if input.is_empty() {
            return Err(syn::Error::new(
                group.span(),
                match side {
                    Side::Requires => "expected a condition: `requires(cond, \"message\")`",
                    Side::Ensures => "expected a closure: `ensures(|ret| cond, \"message\")`",
                },
            ));
        }
        let start = input.cursor();
        let (cond, first, count) = source_text::parse_counted(input, start, |i| i.parse::<Expr>())?;
        let span = cond.span();
        let text = match side {
            Side::Requires => source_text::text_or_tokens(source.as_ref(), first, count, &cond),
            Side::Ensures => {
                let body = match &cond {
                    Expr::Closure(c) if c.inputs.len() == 1 => &c.body,
                    _ => {
                        return Err(syn::Error::new(
                            span,
                            "`ensures` takes a closure over a reference to the return value: `ensures(|ret| *ret > 0, \"message\")`",
                        ))
                    }
                };
                // The body is the closure's last tokens.
                let n = body.to_token_stream().into_iter().count();
                source_text::text_or_tokens(source.as_ref(), first + count - n, n, body)
            }
        };
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() && !crate::args::peek_str(input) {
            return Err(input
                .error("expected the message as a format string literal, e.g. `\"x = {}\", x`"));
        }
        let (format, rest) = args::parse_format(input)?;
        let message = match format {
            Some(lit) => quote!(::core::format_args!(#lit #rest)),
            None => quote!(::core::format_args!("")),
        };
        Ok(Clause {
            side,
            cond,
            text,
            message,
            span,
        })
    };
    parser.parse2(group.stream())
}

fn parse_fn(item: TokenStream) -> syn::Result<ItemFn> {
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(f)) => Ok(f),
        Ok(syn::Item::Verbatim(v)) if v.to_string().contains("fn") => Err(syn::Error::new(
            Span::call_site(),
            "`#[elide::checked]` needs a function body; put it on the implementation, not on a declaration",
        )),
        _ => Err(syn::Error::new(
            Span::call_site(),
            "`#[elide::checked]` applies to functions and methods",
        )),
    }
}

fn expand_fn(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f = parse_fn(item)?;
    let clauses = parse_clauses(attr)?;
    if let Some(c) = &f.sig.constness {
        return Err(syn::Error::new(
            c.span,
            "`#[elide::checked]` cannot be used on a `const fn`: checks read the run-time debug mode",
        ));
    }
    let has_ensures = clauses.iter().any(|c| c.side == Side::Ensures);
    if has_ensures {
        if let ReturnType::Type(_, ty) = &f.sig.output {
            if matches!(**ty, Type::Never(_)) {
                return Err(syn::Error::new(
                    ty.span(),
                    "`ensures` needs a return value, but this function never returns",
                ));
            }
        }
    }
    // The return type as a `let` annotation, unless it cannot be written
    // there (`impl Trait`): then it is inferred from the body.
    let ret_ty: Option<TokenStream> = match &f.sig.output {
        ReturnType::Default => Some(quote!(())),
        ReturnType::Type(_, ty) if mentions_impl_trait(ty) => None,
        ReturnType::Type(_, ty) => Some(ty.to_token_stream()),
    };
    let p = Presence::checks(&None)?;
    let live = live_body(&f, &clauses, ret_ty.as_ref(), None);
    let dead = dead_body(&f, &clauses, ret_ty.as_ref());
    Ok(match p.known() {
        Some((true, true)) => with_body(&f, live),
        Some((false, false)) => with_body(&f, dead),
        // Twins selected by the user crate's `debug_assertions`.
        Some((debug, _)) => {
            let (on, off) = if debug {
                (quote!(debug_assertions), quote!(not(debug_assertions)))
            } else {
                (quote!(not(debug_assertions)), quote!(debug_assertions))
            };
            let (live, dead) = (with_body(&f, live), with_body(&f, dead));
            quote!(#[cfg(#on)] #live #[cfg(#off)] #dead)
        }
        // Decided at compile time by the features' constants (and the
        // module path): one function whose body is chosen by a constant.
        // Under `impl Trait` the two bodies' values could differ in type
        // (each closure is a type of its own): then the body is written
        // once, and the constant gates the checks inside it.
        None if ret_ty.is_none() => {
            let c = p.condition();
            with_body(&f, live_body(&f, &clauses, ret_ty.as_ref(), Some(&c)))
        }
        None => {
            let c = p.condition();
            with_body(&f, quote!(if #c { #live } else { #dead }))
        }
    })
}

/// The function with a new body, attributes, visibility and signature kept.
pub(crate) fn with_body(f: &ItemFn, body: TokenStream) -> TokenStream {
    let outer = f
        .attrs
        .iter()
        .filter(|a| matches!(a.style, AttrStyle::Outer));
    let inner = f
        .attrs
        .iter()
        .filter(|a| !matches!(a.style, AttrStyle::Outer));
    let (vis, sig) = (&f.vis, &f.sig);
    quote! {
        #(#outer)*
        #vis #sig {
            #(#inner)*
            #body
        }
    }
}

/// The body with the checks, as a block; with `exists`, a constant `bool`
/// expression, the checks run only where it holds.
fn live_body(
    f: &ItemFn,
    clauses: &[Clause],
    ret_ty: Option<&TokenStream>,
    exists: Option<&TokenStream>,
) -> TokenStream {
    let name = f.sig.ident.to_string();
    let pre = clauses
        .iter()
        .filter(|c| c.side == Side::Requires)
        .map(|c| condition(c, &name));
    let post: Vec<_> = clauses
        .iter()
        .filter(|c| c.side == Side::Ensures)
        .map(|c| condition(c, &name))
        .collect();
    let cs = crate::callsite::callsite(
        "Check",
        crate::level::ERROR.name,
        &quote!(::core::module_path!()),
        &quote!(#name),
    );
    let on = crate::level::interest_on();
    let exists = exists.map(|c| quote!(#c &&));
    let enter = quote! {
        #exists #on <= #ELIDE::__private::Callsite::interest(&__ELIDE_CS)
            && #ELIDE::__private::checked_enter(&__ELIDE_CS, || { #(#pre)* })
    };
    let stmts = &f.block.stmts;
    let body = if post.is_empty() {
        quote! {
            #cs
            if #enter {}
            #(#stmts)*
        }
    } else {
        let block = &f.block;
        let annot = ret_ty.map(|t| quote!(: #t));
        let run = if f.sig.asyncness.is_some() {
            let turbofish = ret_ty.map(|t| quote!(::<#t, _>));
            quote!(#ELIDE::__private::async_body #turbofish (async #block).await)
        } else {
            quote!(#ELIDE::__private::body(|| #block))
        };
        quote! {
            #cs
            let __elide_on: bool = #enter;
            let __elide_ret #annot = #run;
            if __elide_on {
                #ELIDE::__private::checked_exit(|| { #(#post)* });
            }
            __elide_ret
        }
    };
    quote!({ #body })
}

/// One condition's check and failure report. Spanned at the condition, so
/// the panic location (through `#[track_caller]`) and type errors point at
/// it.
fn condition(c: &Clause, fn_name: &str) -> TokenStream {
    let cond = &c.cond;
    let (value, what) = match c.side {
        Side::Requires => (quote!(#cond), format!("precondition of `{fn_name}` failed")),
        Side::Ensures => (
            quote!(#ELIDE::__private::ensures(&__elide_ret, #cond)),
            format!("postcondition of `{fn_name}` failed"),
        ),
    };
    let text = &c.text;
    let meta = crate::callsite::metadata(
        "Check",
        crate::level::ERROR.name,
        &quote!(::core::module_path!()),
        &quote!(#text),
        c.span,
    );
    let message = &c.message;
    let elide = crate::expand::elide_at(c.span);
    quote_spanned! {c.span=>
        {
            let __elide_ok: bool = #value;
            if !__elide_ok {
                static __ELIDE_META: #elide::__private::Metadata = #meta;
                #elide::__private::fail(
                    &__ELIDE_META,
                    #what,
                    "",
                    |__elide_f: &mut dyn ::core::ops::FnMut(::core::fmt::Arguments<'_>)| __elide_f(#message),
                );
            }
        }
    }
}

/// The statically disabled body, as a block: as written, with the
/// conditions only type-checked in a dead branch.
fn dead_body(f: &ItemFn, clauses: &[Clause], ret_ty: Option<&TokenStream>) -> TokenStream {
    let checks = clauses.iter().map(|c| {
        let cond = &c.cond;
        let message = &c.message;
        let typecheck = match (c.side, ret_ty) {
            (Side::Requires, _) => quote_spanned!(c.span=> let _: bool = #cond;),
            (Side::Ensures, Some(t)) => {
                let elide = crate::expand::elide_at(c.span);
                quote_spanned!(c.span=> #elide::__private::type_check_ensures::<#t, _>(#cond);)
            }
            // `impl Trait` cannot be named here; the closure goes unchecked.
            (Side::Ensures, None) => quote!(),
        };
        quote! {
            #typecheck
            let _ = #message;
        }
    });
    let stmts = &f.block.stmts;
    quote! {{
        if false {
            #(#checks)*
        }
        #(#stmts)*
    }}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clauses(tokens: TokenStream) -> Result<Vec<(bool, String)>, String> {
        parse_clauses(tokens)
            .map(|cs| {
                cs.into_iter()
                    .map(|c| (c.side == Side::Ensures, c.text))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    /// Clauses are `requires(..)` and `ensures(..)` in parentheses, one
    /// comma between them; other brackets or separators are errors that
    /// say what is expected.
    #[test]
    fn clauses_take_parentheses_and_commas_only() {
        let ok = clauses(quote!(requires(n > 0), ensures(|r| *r < 5, "big"),)).unwrap();
        assert_eq!(ok.len(), 2);
        assert!(!ok[0].0 && ok[1].0, "requires, then ensures");
        let e = clauses(quote!(requires[n > 0])).unwrap_err();
        assert!(e.contains("expected `requires(cond"), "{e}");
        let e = clauses(quote!(ensures{ |r| true })).unwrap_err();
        assert!(e.contains("expected `ensures(|ret|"), "{e}");
        let e = clauses(quote!(requires(a); ensures(|r| true))).unwrap_err();
        assert!(e.contains("expected `,` between clauses"), "{e}");
        let e = clauses(quote!(requires(a) ensures(|r| true))).unwrap_err();
        assert!(e.contains("expected `,` between clauses"), "{e}");
    }

    /// With checks compiled out, the body runs as written and the clauses
    /// stay behind `if false`, still type-checked: conditions as `bool`,
    /// `ensures` closures against the return type, messages as arguments.
    #[test]
    fn a_compiled_out_function_keeps_its_body_and_type_checks_its_clauses() {
        let f = parse_fn(quote!(
            fn next(n: u32) -> u32 {
                n + 1
            }
        ))
        .unwrap();
        let cs = parse_clauses(quote!(requires(n > 0, "n = {}", n), ensures(|r| *r > 1))).unwrap();
        let dead = dead_body(&f, &cs, Some(&quote!(u32))).to_string();
        assert!(dead.starts_with("{ if false {"), "{dead}");
        for needed in [
            "let _ : bool = n > 0",
            "format_args ! (\"n = {}\" , n)",
            "type_check_ensures :: < u32 , _ > (| r | * r > 1)",
        ] {
            assert!(dead.contains(needed), "{needed} in {dead}");
        }
        assert!(dead.ends_with("} n + 1 }"), "{dead}");
    }

    /// `#[checked]` on a declaration without a body says so; on anything
    /// else that is not a function, that it applies to functions.
    #[test]
    fn only_functions_with_bodies_are_taken() {
        let error = |tokens| match parse_fn(tokens) {
            Ok(_) => String::from("accepted"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            error(quote!(
                fn f() {}
            )),
            "accepted"
        );
        let e = error(quote!(
            fn f();
        ));
        assert!(e.contains("needs a function body"), "{e}");
        for other in [
            quote!(
                static X: u8;
            ),
            quote!(
                struct S;
            ),
        ] {
            let e = error(other);
            assert!(e.contains("applies to functions"), "{e}");
        }
    }
}
