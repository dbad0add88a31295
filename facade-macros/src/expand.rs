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
    let mut i = 0;
    while i < trees.len() {
        if is_elide_root(&trees, i) {
            out.extend(krate.clone());
            i += 3;
            continue;
        }
        out.push(match &trees[i] {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rename_crate(g.stream(), krate));
                ng.set_span(g.span());
                TokenTree::Group(ng)
            }
            t => t.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// `: : elide` at `i`, as a path start (not after an identifier).
fn is_elide_root(t: &[TokenTree], i: usize) -> bool {
    let colon = |j: usize, spacing: Option<Spacing>| match t.get(j) {
        Some(TokenTree::Punct(p)) => {
            p.as_char() == ':' && spacing.map_or(true, |s| p.spacing() == s)
        }
        _ => false,
    };
    let after_path = i > 0 && matches!(t[i - 1], TokenTree::Ident(_) | TokenTree::Group(_));
    !after_path
        && colon(i, Some(Spacing::Joint))
        && colon(i + 1, None)
        && matches!(t.get(i + 2), Some(TokenTree::Ident(id)) if id == "elide")
}
