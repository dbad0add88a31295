//! The tokens of a site's `target` and key-value fields: live (for the
//! record) and dead (type-checked only).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Expr;

use crate::args::{Field, Sigil};

/// The target expression, defaulting to the module path.
pub(crate) fn target_tokens(target: &Option<Expr>) -> TokenStream {
    match target {
        Some(t) => t.to_token_stream(),
        None => quote!(::core::module_path!()),
    }
}

/// `&[("k", value), ...]` for the record.
pub(crate) fn fields_tokens(fields: &[Field]) -> TokenStream {
    let items = fields.iter().map(|f| {
        let name = &f.name;
        let v = &f.value;
        match f.sigil {
            Sigil::Plain => {
                quote_spanned!(v.span()=> (#name, ::elide::__private::ToValue::to_value(&(#v))))
            }
            Sigil::Display => quote!((#name, ::elide::Value::Display(&(#v)))),
            Sigil::Debug => quote!((#name, ::elide::Value::Debug(&(#v)))),
        }
    });
    quote!(&[#(#items),*])
}

/// Statements that type-check the fields without evaluating them at run
/// time (used inside dead branches).
pub(crate) fn fields_typecheck(fields: &[Field]) -> TokenStream {
    let items = fields.iter().map(|f| {
        let v = &f.value;
        match f.sigil {
            Sigil::Plain => {
                quote_spanned!(v.span()=> let _ = ::elide::__private::ToValue::to_value(&(#v));)
            }
            Sigil::Display => quote!(let _ = ::elide::__private::type_check_display(&(#v));),
            Sigil::Debug => quote!(let _ = ::elide::__private::type_check_debug(&(#v));),
        }
    });
    quote!(#(#items)*)
}
