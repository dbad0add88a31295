//! The record a log site builds on its cold path, with the message's raw
//! view when the format string allows one: each argument bound once, offered
//! raw through autoref specialisation (copyable kinds are captured, others
//! make the site render as before), and a per-site decoder that runs the
//! same `format_args!` over the raw arguments.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, LitStr, Token};

/// Most arguments a raw message carries (the record header keeps a byte).
const MAX_RAW_ARGS: usize = 32;

/// `dispatch(&Record::new(meta, level, message, fields)[.with_raw(..)])`.
pub(crate) fn dispatch_record(
    level: &TokenStream,
    format: Option<&LitStr>,
    rest: &TokenStream,
    fields: &TokenStream,
) -> TokenStream {
    let plain = |message: TokenStream| {
        quote! {
            ::elide::__private::dispatch_to(__elide_route, &::elide::Record::new(
                __elide_meta, #level, #message, #fields,
            ))
        }
    };
    let Some(lit) = format else {
        return plain(quote!(::core::format_args!("")));
    };
    // No arguments: the message is a `&'static str` already
    // (`Arguments::as_str`), which sinks copy as a pointer.
    let Some(args) = raw_args(lit, rest).filter(|a| !a.is_empty()) else {
        return plain(quote!(::core::format_args!(#lit #rest)));
    };
    let names: Vec<_> = (0..args.len())
        .map(|i| format_ident!("__elide_a{}", i))
        .collect();
    let idx = 0..args.len();
    let somes = names
        .iter()
        .map(|n| quote!(::core::option::Option::Some(#n)));
    let offers = names
        .iter()
        .map(|n| quote!((&::elide::__private::RawWrap(#n)).elide_raw()));
    quote! {
        match (#(&(#args),)*) {
            (#(#names,)*) => {
                #[allow(unused_imports)]
                use ::elide::__private::{RawCapture as _, RawFallback as _};
                let __elide_raw = match (#(#offers,)*) {
                    (#(#somes,)*) => ::core::option::Option::Some([#(#names),*]),
                    #[allow(unreachable_patterns)]
                    _ => ::core::option::Option::None,
                };
                // A function item, not a closure coerced to a pointer: no
                // per-site `FnOnce::call_once` shim.
                fn __elide_decode(
                    __elide_args: &[::elide::__private::RawArg<'_>],
                    __elide_out: &mut dyn ::core::ops::FnMut(::core::fmt::Arguments<'_>),
                ) {
                    __elide_out(::core::format_args!(#lit, #(__elide_args[#idx]),*))
                }
                let __elide_decode: ::elide::__private::RawDecode = __elide_decode;
                ::elide::__private::dispatch_to(__elide_route, &::elide::Record::new(
                    __elide_meta, #level, ::core::format_args!(#lit, #(#names),*), #fields,
                ).with_raw(match &__elide_raw {
                    ::core::option::Option::Some(__elide_a) => ::core::option::Option::Some(
                        ::elide::__private::RawMessage::new(__elide_decode, __elide_a),
                    ),
                    ::core::option::Option::None => ::core::option::Option::None,
                }))
            }
        }
    }
}

/// The positional arguments after the format string, if the site can have
/// a raw view: no named arguments, no implicit captures (`{name}`), no
/// width or precision taken from an argument (`{:1$}`, `{:.*}`), no `{:p}`
/// (it prints an address, which a copy would change), at most
/// `MAX_RAW_ARGS`.
fn raw_args(lit: &LitStr, rest: &TokenStream) -> Option<Vec<Expr>> {
    if !placeholders_allow_raw(&lit.value()) {
        return None;
    }
    let args = Punctuated::<Expr, Token![,]>::parse_terminated
        .parse2(strip_leading_comma(rest)?)
        .ok()?;
    let args: Vec<Expr> = args.into_iter().collect();
    if args.len() > MAX_RAW_ARGS || args.iter().any(|a| matches!(a, Expr::Assign(_))) {
        return None;
    }
    Some(args)
}

/// `, a, b` -> `a, b`; an empty rest stays empty; anything else is `None`.
fn strip_leading_comma(rest: &TokenStream) -> Option<TokenStream> {
    let mut tokens = rest.clone().into_iter();
    match tokens.next() {
        None => Some(TokenStream::new()),
        Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ',' => Some(tokens.collect()),
        Some(_) => None,
    }
}

/// Whether every `{..}` of the format string refers to its argument by
/// position only, with no argument-taken width or precision and no `p`.
fn placeholders_allow_raw(fmt: &str) -> bool {
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '{' => {
                let mut inner = String::new();
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    inner.push(c);
                }
                let (arg, spec) = inner.split_once(':').unwrap_or((&inner, ""));
                let arg = arg.trim();
                if !arg.chars().all(|c| c.is_ascii_digit())
                    || spec.contains(['$', '*'])
                    || spec.ends_with('p')
                {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positional_placeholders_allow_a_raw_view() {
        assert!(placeholders_allow_raw("task {} done in {} us"));
        assert!(placeholders_allow_raw(
            "{0} {1:>8.3} {:#x} {{literal}} {:?}"
        ));
        assert!(!placeholders_allow_raw("hello {name}"));
        assert!(!placeholders_allow_raw("{:1$}"));
        assert!(!placeholders_allow_raw("{:.*}"));
        assert!(!placeholders_allow_raw("{:p}"));
    }

    #[test]
    fn named_arguments_keep_the_rendered_path() {
        let lit: LitStr = syn::parse_quote!("{} {x}");
        let rest: TokenStream = quote!(, a, x = 1);
        assert!(raw_args(&lit, &rest).is_none());
        let lit: LitStr = syn::parse_quote!("{} {}");
        assert_eq!(
            raw_args(&lit, &quote!(, a, b + 1)).map(|a| a.len()),
            Some(2)
        );
        assert_eq!(raw_args(&lit, &quote!()).map(|a| a.len()), Some(0));
    }
}
