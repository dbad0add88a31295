//! Running a call site's parser and turning its error into `compile_error!`.

use proc_macro2::TokenStream;
use syn::parse::{ParseStream, Parser};

/// Runs `f` over the macro input; a parse error becomes a `compile_error!`.
pub(crate) fn expand(
    input: TokenStream,
    f: impl FnOnce(ParseStream) -> syn::Result<TokenStream>,
) -> TokenStream {
    match f.parse2(input) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}
