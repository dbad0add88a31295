//! Whether a type mentions `impl Trait`: such a type cannot be written
//! where an attribute macro would repeat a function's return type (a `let`
//! annotation, a turbofish), so the expansion leaves it to inference.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::Type;

/// Whether `ty` mentions `impl`, at any depth (`impl Iterator`,
/// `Box<impl Fn()>`, `(impl Display, u8)`).
pub(crate) fn mentions_impl_trait(ty: &Type) -> bool {
    fn walk(ts: TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            TokenTree::Ident(i) => i == "impl",
            TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(ty.to_token_stream())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Type {
        syn::parse_str(text).unwrap()
    }

    #[test]
    fn impl_trait_is_found_at_any_depth_and_only_there() {
        for with in [
            "impl Iterator<Item = u32>",
            "Box<impl Fn()>",
            "(impl std::fmt::Display, u8)",
            "[(u8, impl Copy); 2]",
        ] {
            assert!(mentions_impl_trait(&ty(with)), "{with}");
        }
        for without in [
            "u32",
            "Vec<(u8, String)>",
            "Box<dyn Fn()>",
            "implement::Thing",
            "Simpl<u8>",
        ] {
            assert!(!mentions_impl_trait(&ty(without)), "{without}");
        }
    }
}
