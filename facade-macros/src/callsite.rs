//! The tokens of a site's `static Callsite` and its `Metadata`.

use crate::expand::ELIDE;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// `static __ELIDE_CS: Callsite = ...;` for a site.
pub(crate) fn callsite(
    kind: &str,
    level: &str,
    target: &TokenStream,
    name: &TokenStream,
) -> TokenStream {
    let meta = metadata(kind, level, target, name, Span::call_site());
    quote! {
        static __ELIDE_CS: #ELIDE::__private::Callsite = #ELIDE::__private::Callsite::new(#meta);
    }
}

/// The `Metadata` of a telemetry event (at Info) named `name`, as a
/// scope's or a span's `<name>_start` and `<name>_stop`.
pub(crate) fn telemetry_metadata(target: &TokenStream, name: &str) -> TokenStream {
    metadata(
        "Telemetry",
        crate::level::INFO.name,
        target,
        &quote!(#name),
        Span::call_site(),
    )
}

/// `Metadata::new(..)` for a site; `file!()`/`line!()` resolve at `span`.
pub(crate) fn metadata(
    kind: &str,
    level: &str,
    target: &TokenStream,
    name: &TokenStream,
    span: Span,
) -> TokenStream {
    let kind = syn::Ident::new(kind, span);
    let level = syn::Ident::new(level, span);
    let elide = crate::expand::elide_at(span);
    quote_spanned! {span=>
        #elide::__private::Metadata::new(
            #elide::__private::Kind::#kind,
            #elide::Level::#level,
            #target,
            ::core::module_path!(),
            ::core::file!(),
            ::core::line!(),
            #name,
        )
    }
}

/// The guarded cold path of a site (`cs`: its `&'static Callsite`, `meta`:
/// its `&'static Metadata`, both expressions):
/// the hot check (one load of the site's interest, a compare and a branch),
/// then, on a hit, `filter` (a sampling filter) if there is one, the
/// route (the installed sinks, or only this thread's test captures; a site
/// resolves on its first hit there), and the site's `body`: a closure
/// taking the site's metadata and route, `#[cold]` and never inlined, so the hot loop
/// keeps only the load, compare and branch. Nothing here is generic, so a
/// site instantiates no copy of a shared function. `undo` gives the filter
/// its slot back when a hit passed it but the site turned out disabled.
pub(crate) fn guarded(
    cs: &TokenStream,
    meta: &TokenStream,
    needed: &TokenStream,
    filter: Option<(TokenStream, TokenStream, TokenStream)>,
    body: TokenStream,
) -> TokenStream {
    // Attributes on a closure are allowed in a tuple element (not in a
    // `let`); called on the temporary, so an `FnMut` closure needs no `mut`
    // binding. The metadata of a `static` site is a field projection: a
    // constant, no call.
    let run = quote! {
        ((#[cold] #[inline(never)] #body,).0)(#meta, __elide_route);
    };
    match filter {
        None => quote! {
            if let ::core::option::Option::Some(__elide_route) =
                #ELIDE::__private::route(#cs, #needed)
            {
                #run
            }
        },
        Some((setup, pass, undo)) => quote! {
            if #needed <= #ELIDE::__private::Callsite::interest(#cs) {
                #setup
                if #pass {
                    match #ELIDE::__private::admit(#cs, #needed) {
                        ::core::option::Option::Some(__elide_route) => {
                            #run
                        }
                        ::core::option::Option::None => {
                            #undo;
                        }
                    }
                }
            }
        },
    }
}
