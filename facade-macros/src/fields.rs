//! The tokens of a site's `target` and key-value fields: live (for the
//! record) and dead (type-checked only).

use crate::expand::ELIDE;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Expr;

use crate::args::{Field, Sigil};

/// Whether a `target:` is a constant the site's `static` can hold: a string
/// literal, a macro call (`module_path!()`, `concat!(..)`) or a path in
/// upper case (a `const`, by Rust's naming convention). Any other expression
/// is a run-time target, looked up per hit.
pub(crate) fn is_runtime_target(target: &Option<Expr>) -> bool {
    match target {
        None | Some(Expr::Lit(_)) | Some(Expr::Macro(_)) => false,
        Some(Expr::Path(p)) => !p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.chars().any(|c| c.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }),
        Some(Expr::Group(g)) => is_runtime_target(&Some((*g.expr).clone())),
        Some(_) => true,
    }
}

/// The error for a run-time `target:` where the site needs a constant.
pub(crate) fn require_static_target(target: &Option<Expr>, what: &str) -> syn::Result<()> {
    match target {
        Some(t) if is_runtime_target(target) => Err(syn::Error::new_spanned(
            t,
            format!(
                "the `target:` of `{what}` must be a `&'static str` constant: a string literal, \
                 a `const` (an upper-case path) or `module_path!()`; this expression is only known \
                 at run time (run-time targets work with the log macros and `enabled!`)"
            ),
        )),
        _ => Ok(()),
    }
}

/// The type a dead branch checks the target against.
pub(crate) fn target_type(target: &Option<Expr>) -> TokenStream {
    if is_runtime_target(target) {
        quote!(&str)
    } else {
        quote!(&'static str)
    }
}

/// The target expression, defaulting to the module path.
pub(crate) fn target_tokens(target: &Option<Expr>) -> TokenStream {
    match target {
        Some(t) => t.to_token_stream(),
        None => quote!(::core::module_path!()),
    }
}

/// The expression that builds a telemetry event's record (from
/// `__elide_meta`, whose name is the message, `__elide_route` and the
/// fields) and dispatches it, through the facade's shared path: every kind
/// of site hands its fields over the same way (see [`kv_list`]).
pub(crate) fn event_dispatch_tokens(fields: &[Field]) -> TokenStream {
    let kv = kv_list(fields);
    quote!(#ELIDE::__private::dispatch_event(__elide_route, __elide_meta, #kv))
}

/// An expression that runs the `&mut dyn FnMut(&[Field])` named `f` on the
/// site's present fields (a scope's or a span's opening).
pub(crate) fn call_with_fields(fields: &[Field], f: TokenStream) -> TokenStream {
    let kv = kv_list(fields);
    quote!(#ELIDE::__private::with_present_fields(#kv, #f))
}

/// A site's fields as `&[(name, Option<Value>)]`, the one form every kind
/// of site hands to the facade, which leaves out the absent ones (a plain
/// `key = expr` field whose `Option` is `None`) in shared code: nothing
/// per site but the array.
pub(crate) fn kv_list(fields: &[Field]) -> TokenStream {
    let items = kv_items(fields);
    quote!(&[#(#items),*])
}

/// Each field as `(name, Option<Value>)` (see [`kv_values`]).
fn kv_items(fields: &[Field]) -> impl Iterator<Item = TokenStream> + '_ {
    fields.iter().zip(kv_values(fields)).map(|(f, value)| {
        let name = &f.name;
        quote!((#name, #value))
    })
}

/// Each field's `Option<Value>`: plain `key = expr` fields through
/// `FieldValue` (an `Option` that is `None` is absent), `%`/`?` fields
/// always present.
fn kv_values(fields: &[Field]) -> impl Iterator<Item = TokenStream> + '_ {
    fields.iter().map(|f| {
        let v = &f.value;
        match f.sigil {
            Sigil::Plain => {
                let elide = crate::expand::elide_at(v.span());
                quote_spanned!(v.span()=> #elide::__private::field(&(#v)))
            }
            Sigil::Display => quote!(#ELIDE::__private::display_field(&(#v))),
            Sigil::Debug => quote!(#ELIDE::__private::debug_field(&(#v))),
        }
    })
}

/// A site's fields as the items of the facade's `record!` template:
/// `"key" = value`, the value an `Option<Value>` expression (plain fields
/// through `FieldValue`, spanned at the value so a type error points there).
pub(crate) fn kv_template(fields: &[Field]) -> TokenStream {
    let items = kv_values(fields).zip(fields).map(|(value, f)| {
        let name = &f.name;
        quote!(#name = #value)
    });
    quote!(#(#items),*)
}

/// Statements that type-check the fields without evaluating them at run
/// time (used inside dead branches).
pub(crate) fn fields_typecheck(fields: &[Field]) -> TokenStream {
    let items = fields.iter().map(|f| {
        let v = &f.value;
        match f.sigil {
            Sigil::Plain => {
                let elide = crate::expand::elide_at(v.span());
                quote_spanned!(v.span()=> let _ = #elide::__private::FieldValue::field_value(&(#v));)
            }
            Sigil::Display => quote!(let _ = #ELIDE::__private::type_check_display(&(#v));),
            Sigil::Debug => quote!(let _ = #ELIDE::__private::type_check_debug(&(#v));),
        }
    });
    quote!(#(#items)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(text: &str) -> Option<Expr> {
        Some(syn::parse_str(text).unwrap())
    }

    /// A site keeps its target in its `static` when the target is a
    /// constant; anything else is looked up per hit, and sites that need a
    /// constant (telemetry, counters) say so at compile time.
    #[test]
    fn constant_targets_are_told_from_run_time_ones() {
        for constant in [
            r#""net::io""#,
            "module_path!()",
            "TARGET",
            "crate::names::DB_2",
            "A_B",
        ] {
            assert!(!is_runtime_target(&target(constant)), "{constant}");
            assert!(require_static_target(&target(constant), "counter!").is_ok());
        }
        assert!(!is_runtime_target(&None));
        for runtime in ["target", "self.name", "Target", "names::db", "_", "f()"] {
            assert!(is_runtime_target(&target(runtime)), "{runtime}");
            let e = require_static_target(&target(runtime), "counter!").unwrap_err();
            assert!(e.to_string().contains("`counter!`"), "{e}");
        }
    }
}
