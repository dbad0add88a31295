//! Running a call site's parser and turning its error into `compile_error!`;
//! the `crate = path` argument that names `elide` under another path.

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
        let krate = parse_crate(input)?;
        Ok((f(input)?, krate))
    };
    match parse.parse2(input) {
        Ok((t, None)) => t,
        Ok((t, Some(path))) => rename_crate(t, &quote::quote!(#path)),
        Err(e) => e.to_compile_error(),
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

/// Replaces every absolute `::elide` path start in `tokens` by `krate`.
///
/// The expansions name the facade only as `::elide::..`; user tokens that
/// spell `::elide` themselves resolve the same way through `krate`.
pub(crate) fn rename_crate(tokens: TokenStream, krate: &TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut rest = &trees[..];
    let mut prev: Option<&TokenTree> = None;
    while let Some(first) = rest.first() {
        if let Some(after) = elide_root(prev, rest) {
            out.extend(krate.clone());
            // What follows continues the renamed path (`::elide::elide`
            // renames once), as it did the original.
            prev = rest.get(2);
            rest = after;
            continue;
        }
        out.push(match first {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rename_crate(g.stream(), krate));
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
/// there (`prev`, the token before, is not an identifier or a group that
/// the path would continue: `a::elide` and `f()::elide` are not renamed).
fn elide_root<'t>(prev: Option<&TokenTree>, t: &'t [TokenTree]) -> Option<&'t [TokenTree]> {
    if matches!(prev, Some(TokenTree::Ident(_) | TokenTree::Group(_))) {
        return None;
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
        rename_crate(tokens, &quote!(::my::facade)).to_string()
    }

    /// `crate = path` renames every `::elide` path start, inside groups
    /// too, and nothing else.
    #[test]
    fn only_absolute_elide_paths_are_renamed() {
        assert_eq!(
            renamed(quote!(::elide::emit(x, { ::elide::Level::Info }))),
            quote!(::my::facade::emit(x, { ::my::facade::Level::Info })).to_string()
        );
        // Continuations of another path, and near misses, stay.
        for kept in [
            quote!(a::elide::x),
            quote!(f()::elide),
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
