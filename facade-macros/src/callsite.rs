//! The tokens of a site's `static Callsite` and its `Metadata`.

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
        static __ELIDE_CS: ::elide::__private::Callsite = ::elide::__private::Callsite::new(#meta);
    }
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
