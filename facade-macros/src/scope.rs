//! `scope!([target: ..,] "name" [, fields])` and `#[timed(..)]`: timed
//! scopes, a `<name>_start`/`<name>_stop` telemetry pair.
//!
//! Live `scope!`, as an expression of type `Option<ScopeGuard>`:
//! ```text
//! static __ELIDE_CS: Callsite = ..;        // kind Telemetry, "<name>_start"
//! static __ELIDE_STOP: Metadata = ..;      // "<name>_stop"
//! scope_guard(if ON <= __ELIDE_CS.interest() {      // the one load
//!     open_scope(&__ELIDE_CS, ON, &__ELIDE_STOP, |f| f(&[fields]))   // cold
//! } else { None })
//! ```
//! Statically off, it is `NoScope` (a unit struct without drop glue), so
//! nothing is left at any opt-level.
//!
//! Every form ends in a must-use call (`scope_guard`, or `scope_bind` where
//! `cfg` picks the type) or is the must-use `NoScope`, so a `scope!(..);`
//! whose guard is dropped at once warns (`unused_must_use`): the `Option`
//! alone would hide the guard's own `#[must_use]`. `#[timed]` on a function puts the same
//! guard first in its body; on an `async fn` the body becomes a future
//! (`timed(scope, async move { body }).await`) whose scope is current while
//! it is polled.

use crate::expand::ELIDE;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream, Parser};
use syn::{Expr, Ident, ItemFn, LitStr, ReturnType, Token};

use crate::args::{self, Field};
use crate::callsite::{callsite, telemetry_metadata};
use crate::expand::expand;
use crate::fields;
use crate::gate::Presence;
use crate::impl_trait::mentions_impl_trait;
use crate::level;

/// `[target: ..,] "name" [, fields]`.
struct ScopeArgs {
    target: Option<Expr>,
    name: LitStr,
    fields: Vec<Field>,
}

impl Parse for ScopeArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let target = args::parse_target(input)?;
        let (name, fields) =
            args::parse_name_and_fields(input, "scope", "scope!(\"task.exec\", uid = ..)")?;
        Ok(ScopeArgs {
            target,
            name,
            fields,
        })
    }
}

/// `#[timed]` arguments: `[target: ..,] [name = "..",] [fields]`.
fn parse_timed(input: ParseStream, default_name: &Ident) -> syn::Result<ScopeArgs> {
    let target = args::parse_target(input)?;
    let mut name = LitStr::new(&default_name.to_string(), default_name.span());
    if input.peek(Ident) && input.peek2(Token![=]) && input.peek3(LitStr) {
        let fork = input.fork();
        let key: Ident = fork.parse()?;
        if key == "name" {
            input.parse::<Ident>()?;
            input.parse::<Token![=]>()?;
            name = input.parse()?;
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
    }
    let (fields, _) = args::parse_fields(input, false)?;
    if !input.is_empty() {
        return Err(input.error(
            "expected `#[timed]`, `#[timed(name = \"..\")]` or `#[timed(name = \"..\", key = value, ..)]`",
        ));
    }
    Ok(ScopeArgs {
        target,
        name,
        fields,
    })
}

/// The pieces of a scope site.
struct Parts {
    /// An expression of type `Option<Scope>`: the site's gate and cold path.
    open: TokenStream,
    /// Statements that only type-check the arguments (for dead branches).
    typecheck: TokenStream,
    presence: Presence,
}

fn parts(a: &ScopeArgs) -> syn::Result<Parts> {
    let target = fields::target_tokens(&a.target);
    let name = a.name.value();
    let (start, stop) = (format!("{name}_start"), format!("{name}_stop"));
    let cs = callsite("Telemetry", level::INFO.name, &target, &quote!(#start));
    let stop_meta = telemetry_metadata(&target, &stop);
    let call = fields::call_with_fields(&a.fields, quote!(__elide_f));
    let on = level::interest_on();
    let open = quote! {{
        #cs
        static __ELIDE_STOP: #ELIDE::__private::Metadata = #stop_meta;
        if #on <= #ELIDE::__private::Callsite::interest(&__ELIDE_CS) {
            #ELIDE::__private::open_scope(
                &__ELIDE_CS,
                #on,
                &__ELIDE_STOP,
                |__elide_f: &mut dyn ::core::ops::FnMut(&[#ELIDE::Field<'_>])| #call,
            )
        } else {
            ::core::option::Option::None
        }
    }};
    let checks = fields::fields_typecheck(&a.fields);
    let typecheck = quote! {
        if false {
            let _: &'static str = #target;
            #checks
        }
    };
    Ok(Parts {
        open,
        typecheck,
        presence: Presence::telemetry(&a.target)?,
    })
}

/// Expands `scope!`.
pub(crate) fn scope(input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let a: ScopeArgs = input.parse()?;
        let p = parts(&a)?;
        let (open, typecheck) = (&p.open, &p.typecheck);
        let live = quote!(#ELIDE::__private::scope_guard(#open));
        let dead = quote!({ #typecheck #ELIDE::__private::NoScope });
        Ok(match p.presence.known() {
            Some((true, true)) => live,
            Some((false, false)) => dead,
            // Different types in debug and release builds: chosen by `cfg`
            // on statements, which the user crate evaluates.
            Some((debug, _)) => {
                let (l, d) = if debug {
                    (quote!(debug_assertions), quote!(not(debug_assertions)))
                } else {
                    (quote!(not(debug_assertions)), quote!(debug_assertions))
                };
                quote! {{
                    #[cfg(#l)]
                    let __elide_scope = #live;
                    #[cfg(#d)]
                    let __elide_scope = #dead;
                    #ELIDE::__private::scope_bind(__elide_scope)
                }}
            }
            // Decided by `module_path!()`: one type for both, the dead side
            // a constant `None`.
            None => {
                let c = p.presence.condition();
                quote! {
                    #ELIDE::__private::scope_guard(
                        if #c { #open } else { #typecheck ::core::option::Option::None }
                    )
                }
            }
        })
    })
}

/// Expands `#[timed(..)]`. On an error the function is still emitted, so
/// the error is the only one reported.
pub(crate) fn timed(attr: TokenStream, item: TokenStream) -> TokenStream {
    match timed_fn(attr, item.clone()) {
        Ok(t) => t,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out
        }
    }
}

fn timed_fn(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f: ItemFn = syn::parse2(item).map_err(|_| {
        syn::Error::new(
            Span::call_site(),
            "`#[elide::timed]` applies to functions and methods with a body",
        )
    })?;
    if let Some(c) = &f.sig.constness {
        return Err(syn::Error::new(
            c.span,
            "`#[elide::timed]` cannot be used on a `const fn`: a scope reads the clock",
        ));
    }
    let stmts = &f.block.stmts;
    let (a, stmts) = if crate::instrument::is_instrument_style(&attr) {
        // `#[instrument]`'s arguments: a scope records no arguments (so
        // `skip`/`skip_all` change nothing) and `level` is `ret`'s.
        let mut i = crate::instrument::parse_args.parse2(attr)?;
        let a = ScopeArgs {
            target: crate::instrument::target_expr(&i),
            name: i
                .name
                .clone()
                .unwrap_or_else(|| LitStr::new(&f.sig.ident.to_string(), f.sig.ident.span())),
            fields: std::mem::take(&mut i.fields),
        };
        let level = i.level.unwrap_or(level::INFO);
        let body = crate::instrument::result_events(&f, &i, level, quote!(#(#stmts)*));
        (a, body)
    } else {
        let a = (|input: ParseStream| parse_timed(input, &f.sig.ident)).parse2(attr)?;
        (a, quote!(#(#stmts)*))
    };
    let p = parts(&a)?;
    let (open, typecheck) = (&p.open, &p.typecheck);
    let live = |open: &TokenStream| {
        if f.sig.asyncness.is_some() {
            let run = match &f.sig.output {
                ReturnType::Type(_, ty) if !mentions_impl_trait(ty) => {
                    quote!(#ELIDE::__private::timed_as::<#ty, _>)
                }
                ReturnType::Default => quote!(#ELIDE::__private::timed_as::<(), _>),
                ReturnType::Type(..) => quote!(#ELIDE::__private::timed),
            };
            quote! {{
                let __elide_scope = #open;
                #run(__elide_scope, async move { #stmts }).await
            }}
        } else {
            quote! {{
                let __elide_scope = #ELIDE::__private::scope_guard(#open);
                #stmts
            }}
        }
    };
    let dead = quote! {{
        #typecheck
        #stmts
    }};
    Ok(match p.presence.known() {
        Some((true, true)) => crate::checked::with_body(&f, live(open)),
        Some((false, false)) => crate::checked::with_body(&f, dead),
        Some((debug, _)) => {
            let (on, off) = if debug {
                (quote!(debug_assertions), quote!(not(debug_assertions)))
            } else {
                (quote!(not(debug_assertions)), quote!(debug_assertions))
            };
            let (live, dead) = (
                crate::checked::with_body(&f, live(open)),
                crate::checked::with_body(&f, dead),
            );
            quote!(#[cfg(#on)] #live #[cfg(#off)] #dead)
        }
        // Decided at compile time by a constant: the body once (two copies
        // could differ in type under `impl Trait`), with no scope where
        // the constant says the site is off.
        None => {
            let c = p.presence.condition();
            let none = quote!(::core::option::Option::None);
            let open = quote!(if #c { #open } else { #typecheck #none });
            crate::checked::with_body(&f, live(&open))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed_args(tokens: TokenStream) -> (String, Vec<String>) {
        let f = Ident::new("work", Span::call_site());
        let a = (|input: ParseStream| parse_timed(input, &f))
            .parse2(tokens)
            .unwrap();
        (
            a.name.value(),
            a.fields.into_iter().map(|f| f.name).collect(),
        )
    }

    /// `#[timed]` takes `name = "literal"` as the scope's name; any other
    /// key, `name` with a value that is not a literal, and literal keys
    /// are fields.
    #[test]
    fn only_a_literal_name_names_the_scope() {
        assert_eq!(timed_args(quote!()), ("work".into(), vec![]));
        assert_eq!(
            timed_args(quote!(name = "calc", n)),
            ("calc".into(), vec!["n".into()])
        );
        assert_eq!(
            timed_args(quote!(name = label)),
            ("work".into(), vec!["name".into()])
        );
        assert_eq!(
            timed_args(quote!("content-type" = "json", id = "x")),
            ("work".into(), vec!["content-type".into(), "id".into()])
        );
    }
}
