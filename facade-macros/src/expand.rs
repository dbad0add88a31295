//! Running a call site's parser and turning its error into `compile_error!`;
//! the path that names `elide` in the expansion.
//!
//! Most function-like macros are called through `elide`'s `macro_rules!`
//! front doors, which put `crate = $crate,` first: `$crate` names elide
//! however the calling crate imported it (renamed, re-exported). A second
//! `crate = path,`, written at the site, overrides it. The attributes and
//! the check macros (which need the call's own span for the condition's
//! text) read the name from the calling crate's manifest
//! ([`crate::manifest`]) unless they start with `crate = path`.

use std::cell::RefCell;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::{Path, Token};

/// Where a diagnostic about the crate's path points.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Locate {
    /// At the path as the user wrote it (`crate = path`): an unresolved
    /// path is the user's mistake.
    AsWritten,
    /// Where the expansion puts it ([`elide_at`]): `$crate` from a front
    /// door, or the name from the manifest, resolves as it is; only its
    /// location moves. Spanned elsewhere, it would stretch the span of the
    /// call it starts (a field value's type check) over the whole macro
    /// call.
    AtSite,
}

thread_local! {
    /// The path of `elide` for the expansion being built, when it is not
    /// `::elide`.
    static KRATE: RefCell<Option<(TokenStream, Locate)>> = const { RefCell::new(None) };
}

/// `#ELIDE` in a `quote!`: the path of the `elide` crate for the expansion
/// being built (`::elide` unless a front door, `crate = path` or the
/// manifest says otherwise). Written straight into the expansion, so no
/// pass over the finished tokens is needed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Elide;

/// See [`Elide`].
pub(crate) const ELIDE: Elide = Elide;

impl ToTokens for Elide {
    fn to_tokens(&self, out: &mut TokenStream) {
        match crate_path() {
            Some(path) => out.extend(path),
            None => out.extend(quote!(::elide)),
        }
    }
}

/// The path of `elide` for the expansion being built, when it is not
/// `::elide` (for [`crate::emit::Emit::elide`]).
pub(crate) fn crate_path() -> Option<TokenStream> {
    KRATE.with(|k| k.borrow().as_ref().map(|(path, _)| path.clone()))
}

/// The path of `elide` located at `span`, for tokens a `quote_spanned!`
/// places there (a type error or `#[track_caller]` location then points at
/// `span`); a path the user wrote keeps its own location.
pub(crate) fn elide_at(span: Span) -> TokenStream {
    KRATE.with(|k| match &*k.borrow() {
        Some((path, Locate::AtSite)) => path
            .clone()
            .into_iter()
            .map(|mut t| {
                t.set_span(t.span().located_at(span));
                t
            })
            .collect(),
        Some((path, Locate::AsWritten)) => path.clone(),
        None => quote_spanned!(span=> ::elide),
    })
}

/// Runs `f` with `krate` (if any) as the path `#ELIDE` writes.
fn with_crate<R>(krate: Option<(TokenStream, Locate)>, f: impl FnOnce() -> R) -> R {
    let Some(krate) = krate else {
        return f();
    };
    let before = KRATE.with(|k| k.replace(Some(krate)));
    let out = f();
    KRATE.with(|k| *k.borrow_mut() = before);
    out
}

/// Runs `f` over the macro input; a parse error becomes a `compile_error!`.
///
/// A leading `crate = path,` (as serde's and tracing's `crate` attribute)
/// names the `elide` crate for the expansion: `info!(crate = ::my::elide, ..)`
/// for a renamed dependency or a facade crate that re-exports elide's
/// macros. The front doors put `crate = $crate,` first; a second one,
/// written at the site, wins.
pub(crate) fn expand(
    input: TokenStream,
    f: impl FnOnce(ParseStream) -> syn::Result<TokenStream>,
) -> TokenStream {
    let parse = |input: ParseStream| {
        let front = parse_crate(input)?;
        let written = parse_crate(input)?;
        let krate = match (front, written) {
            (_, Some(path)) => Some((path.to_token_stream(), Locate::AsWritten)),
            (Some(path), None) => Some((path.to_token_stream(), Locate::AtSite)),
            (None, None) => None,
        };
        with_crate(krate, || f(input))
    };
    parse.parse2(input).unwrap_or_else(|e| e.to_compile_error())
}

/// Runs an attribute macro: a leading `crate = path,` in its arguments, or
/// else the calling crate's name for a renamed `elide` dependency, names
/// the crate in the expansion. A malformed `crate =` is reported and the
/// item is emitted unchanged.
pub(crate) fn attribute(
    attr: TokenStream,
    item: TokenStream,
    f: impl FnOnce(TokenStream, TokenStream) -> TokenStream,
) -> TokenStream {
    let split = |input: ParseStream| Ok((parse_crate(input)?, input.parse::<TokenStream>()?));
    let (krate, attr) = match split.parse2(attr) {
        Ok(split) => split,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    match krate {
        Some(path) => with_crate(Some((path.to_token_stream(), Locate::AsWritten)), || {
            f(attr, item)
        }),
        None => in_calling_crate(|| f(attr, item)),
    }
}

/// Runs the expansion of a macro that `elide` re-exports as it is (an
/// attribute, a check macro) with the name the calling crate's manifest
/// gives a renamed `elide` dependency, if it renamed it; a `crate = path`
/// at the site still wins.
pub(crate) fn in_calling_crate(f: impl FnOnce() -> TokenStream) -> TokenStream {
    let krate = crate::manifest::renamed_elide().map(|name| {
        let name = proc_macro2::Ident::new(&name, Span::call_site());
        (quote!(::#name), Locate::AtSite)
    });
    with_crate(krate, f)
}

/// `crate = path,` at the start of the input, if present.
pub(crate) fn parse_crate(input: ParseStream) -> syn::Result<Option<Path>> {
    if !(input.peek(Token![crate]) && input.peek2(Token![=])) {
        return Ok(None);
    }
    input.parse::<Token![crate]>()?;
    input.parse::<Token![=]>()?;
    // A front door's `$crate` (or any one name) is taken as it is: a
    // `Path`'s parser costs an unoptimised macro more than its use.
    let lone = input.cursor().ident().is_some_and(|(_, next)| {
        next.eof() || next.punct().is_some_and(|(p, _)| p.as_char() == ',')
    });
    let path: Path = if lone {
        input.step(|cursor| {
            let (ident, next) = cursor
                .ident()
                .ok_or_else(|| cursor.error("expected a path"))?;
            Ok((Path::from(ident), next))
        })?
    } else {
        input.parse()?
    };
    if !input.is_empty() {
        input.parse::<Token![,]>()?;
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn crate_of(input: TokenStream) -> (Option<String>, String) {
        let parse = |input: ParseStream| {
            let krate = parse_crate(input)?;
            let rest: TokenStream = input.parse()?;
            Ok((krate.map(|p| quote!(#p).to_string()), rest.to_string()))
        };
        parse.parse2(input).unwrap()
    }

    /// A leading `crate = path,` is taken off the input; anything else,
    /// `crate` alone included, is left for the call site's parser.
    #[test]
    fn a_leading_crate_argument_is_taken_off() {
        assert_eq!(
            crate_of(quote!(crate = ::my::facade, "msg {}", x)),
            (
                Some(quote!(::my::facade).to_string()),
                quote!("msg {}", x).to_string()
            )
        );
        assert_eq!(
            crate_of(quote!(crate = my::facade)),
            (Some(quote!(my::facade).to_string()), String::new())
        );
        // One name (a front door's `$crate`, a renamed dependency), with
        // and without more input after it.
        assert_eq!(
            crate_of(quote!(crate = renamed, "m")),
            (Some("renamed".into()), quote!("m").to_string())
        );
        assert_eq!(
            crate_of(quote!(crate = renamed)),
            (Some("renamed".into()), String::new())
        );
        for kept in [quote!(crate, "msg"), quote!(target: "t", "msg"), quote!()] {
            assert_eq!(crate_of(kept.clone()), (None, kept.to_string()));
        }
        // Two paths without a comma between them: an error, not a guess.
        let parse = |input: ParseStream| parse_crate(input);
        assert!(parse.parse2(quote!(crate = a b)).is_err());
    }

    /// The whole expansion: a renamed site refers to the given path, a
    /// front door's path gives way to one written at the site, and the
    /// path is `::elide` again afterwards.
    #[test]
    fn expand_writes_the_crate_path_the_site_names() {
        let site = |input: TokenStream| {
            expand(input, |input| {
                let x: syn::Ident = input.parse()?;
                Ok(quote!(#ELIDE::f(#x)))
            })
            .to_string()
        };
        assert_eq!(
            site(quote!(crate = ::my::facade, x)),
            quote!(::my::facade::f(x)).to_string()
        );
        assert_eq!(
            site(quote!(crate = ::front, crate = ::written, x)),
            quote!(::written::f(x)).to_string()
        );
        assert_eq!(site(quote!(x)), quote!(::elide::f(x)).to_string());
        let err = site(quote!(crate = ::my::facade, 1));
        assert!(err.contains("compile_error"), "{err}");
        assert_eq!(quote!(#ELIDE).to_string(), quote!(::elide).to_string());
    }
}
