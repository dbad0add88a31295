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

use proc_macro2::{Group, Spacing, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Path, Token};

/// Runs `f` over the macro input; a parse error becomes a `compile_error!`.
///
/// A leading `crate = path,` (as serde's and tracing's `crate` attribute)
/// names the `elide` crate for the expansion: `info!(crate = ::my::elide, ..)`
/// for a renamed dependency or a facade crate that re-exports elide's
/// macros. The expansion then refers to `path` wherever it would say
/// `::elide`.
pub(crate) fn expand(
    input: TokenStream,
    f: impl FnOnce(ParseStream) -> syn::Result<TokenStream>,
) -> TokenStream {
    let parse = |input: ParseStream| {
        // The front door's `$crate`, then the site's own, which wins.
        let front = parse_crate(input)?;
        let written = parse_crate(input)?;
        Ok((f(input)?, front, written))
    };
    match parse.parse2(input) {
        Ok((t, _, Some(path))) => rename_crate(t, &quote::quote!(#path), Locate::AsWritten),
        Ok((t, Some(path), None)) => rename_crate(t, &quote::quote!(#path), Locate::AtSite),
        Ok((t, None, None)) => t,
        Err(e) => e.to_compile_error(),
    }
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
    let out = f(attr, item);
    match krate {
        Some(path) => rename_crate(out, &quote::quote!(#path), Locate::AsWritten),
        None => in_calling_crate(out),
    }
}

/// The expansion of a macro that `elide` re-exports as it is (an attribute,
/// a check macro): `::elide` becomes the name the calling crate's manifest
/// gives a renamed `elide` dependency, if it renamed it. An expansion that
/// a `crate = path` already renamed names no `::elide` any more.
pub(crate) fn in_calling_crate(tokens: TokenStream) -> TokenStream {
    match crate::manifest::renamed_elide() {
        Some(name) => {
            let name = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
            rename_crate(tokens, &quote::quote!(::#name), Locate::AtSite)
        }
        None => tokens,
    }
}

/// `crate = path,` at the start of the input, if present.
pub(crate) fn parse_crate(input: ParseStream) -> syn::Result<Option<Path>> {
    if !(input.peek(Token![crate]) && input.peek2(Token![=])) {
        return Ok(None);
    }
    input.parse::<Token![crate]>()?;
    input.parse::<Token![=]>()?;
    let path: Path = input.parse()?;
    if !input.is_empty() {
        input.parse::<Token![,]>()?;
    }
    Ok(Some(path))
}

/// Rust's keywords (strict, reserved and the 2018 ones): none is a path
/// segment but those in [`PATH_KEYWORDS`].
const KEYWORDS: [&str; 51] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

/// The keywords that are path segments (`self::elide` continues a path).
const PATH_KEYWORDS: [&str; 4] = ["self", "Self", "super", "crate"];

/// Where a diagnostic about the renamed path points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Locate {
    /// At the path as the user wrote it (`crate = path`): an unresolved
    /// path is the user's mistake.
    AsWritten,
    /// At the `::elide` the path replaces, which the expansion spans at the
    /// tokens it is about (`$crate`, or a name from the manifest, resolve
    /// as before: only the location changes). A path spanned elsewhere
    /// would stretch the span of the call it starts (a field value's type
    /// check) over the whole macro call.
    AtSite,
}

/// Replaces every absolute `::elide` path start in `tokens` by `krate`.
///
/// The expansions name the facade only as `::elide::..`; user tokens that
/// spell `::elide` themselves resolve the same way through `krate`.
pub(crate) fn rename_crate(
    tokens: TokenStream,
    krate: &TokenStream,
    locate: Locate,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut rest = &trees[..];
    let mut prev: Option<&TokenTree> = None;
    while let Some(first) = rest.first() {
        if let Some(after) = elide_root(prev, rest) {
            match locate {
                Locate::AsWritten => out.extend(krate.clone()),
                Locate::AtSite => out.extend(krate.clone().into_iter().map(|mut t| {
                    t.set_span(t.span().located_at(first.span()));
                    t
                })),
            }
            // What follows continues the renamed path (`::elide::elide`
            // renames once), as it did the original.
            prev = rest.get(2);
            rest = after;
            continue;
        }
        out.push(match first {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rename_crate(g.stream(), krate, locate));
                ng.set_span(g.span());
                TokenTree::Group(ng)
            }
            t => t.clone(),
        });
        prev = Some(first);
        rest = &rest[1..];
    }
    out.into_iter().collect()
}

/// The tokens after `: : elide` at the start of `t`, if it starts a path
/// there: `prev`, the token before, is not a path segment the path would
/// continue (`a::elide`, `self::elide` are not renamed). After a keyword
/// (`if ::elide::..`, `as ::elide::..`) or a group it does start one: no
/// path continues a `(..)`, `[..]` or `{..}`, and the expansions put paths
/// after blocks (`{ .. } ::elide::f()`).
fn elide_root<'t>(prev: Option<&TokenTree>, t: &'t [TokenTree]) -> Option<&'t [TokenTree]> {
    if let Some(TokenTree::Ident(id)) = prev {
        let id = id.to_string();
        if !KEYWORDS.contains(&id.as_str()) || PATH_KEYWORDS.contains(&id.as_str()) {
            return None;
        }
    }
    match t {
        [TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(id), after @ ..]
            if a.as_char() == ':'
                && a.spacing() == Spacing::Joint
                && b.as_char() == ':'
                && id == "elide" =>
        {
            Some(after)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn renamed(tokens: TokenStream) -> String {
        rename_crate(tokens, &quote!(::my::facade), Locate::AsWritten).to_string()
    }

    /// `crate = path` renames every `::elide` path start, inside groups
    /// too, and nothing else.
    #[test]
    fn only_absolute_elide_paths_are_renamed() {
        assert_eq!(
            renamed(quote!(::elide::emit(x, { ::elide::Level::Info }))),
            quote!(::my::facade::emit(x, { ::my::facade::Level::Info })).to_string()
        );
        // After a block or a keyword a path starts afresh.
        for (given, expected) in [
            (
                quote!({ let _ = 1; } ::elide::x),
                quote!({ let _ = 1; } ::my::facade::x),
            ),
            (
                quote!(if ::elide::X <= y {}),
                quote!(if ::my::facade::X <= y {}),
            ),
            (quote!(x as ::elide::T), quote!(x as ::my::facade::T)),
        ] {
            assert_eq!(renamed(given), expected.to_string());
        }
        // Continuations of another path, and near misses, stay.
        for kept in [
            quote!(a::elide::x),
            quote!(self::elide::x),
            quote!(super::elide::x),
            quote!(::elider::x),
            quote!(:elide),
            quote!(elide::x),
        ] {
            assert_eq!(renamed(kept.clone()), kept.to_string());
        }
        // A path continues after the renamed root; the next path starts
        // afresh.
        assert_eq!(
            renamed(quote!(::elide::elide::x)),
            quote!(::my::facade::elide::x).to_string()
        );
        assert_eq!(
            renamed(quote!(::elide::a; ::elide::b)),
            quote!(::my::facade::a; ::my::facade::b).to_string()
        );
    }

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
        for kept in [quote!(crate, "msg"), quote!(target: "t", "msg"), quote!()] {
            assert_eq!(crate_of(kept.clone()), (None, kept.to_string()));
        }
        // Two paths without a comma between them: an error, not a guess.
        let parse = |input: ParseStream| parse_crate(input);
        assert!(parse.parse2(quote!(crate = a b)).is_err());
    }

    /// The whole expansion: a renamed site refers to the given path.
    #[test]
    fn expand_renames_what_the_site_generates() {
        let out = expand(quote!(crate = ::my::facade, x), |input| {
            let x: syn::Ident = input.parse()?;
            Ok(quote!(::elide::f(#x)))
        });
        assert_eq!(out.to_string(), quote!(::my::facade::f(x)).to_string());
        let err = expand(quote!(crate = ::my::facade, 1), |input| {
            let x: syn::Ident = input.parse()?;
            Ok(quote!(#x))
        });
        assert!(err.to_string().contains("compile_error"), "{err}");
    }
}
