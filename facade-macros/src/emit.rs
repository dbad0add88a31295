//! Writing an expansion as text with the user's tokens spliced in.
//!
//! Every token a procedural macro hands back crosses the compiler's bridge
//! one by one, and in a dev build (where this crate is unoptimised) that
//! costs thousands of instructions a token; `quote!` pays it for each. Text
//! the compiler parses itself crosses once, as one string. So the common
//! sites write their fixed parts as text and splice in only what must keep
//! its own span: the user's expressions, and the idents an error should
//! point at. Parsed text is spanned at the macro call, as `quote!`'s
//! tokens are.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// An expansion being written: finished tokens, then text not yet parsed.
/// Each piece of text handed to [`text`](Emit::text) must be balanced in
/// its delimiters; open groups with [`group`](Emit::group).
#[derive(Default)]
pub(crate) struct Emit {
    out: TokenStream,
    text: String,
}

impl Emit {
    pub(crate) fn new() -> Emit {
        Emit::default()
    }

    /// Appends source text (balanced delimiters).
    pub(crate) fn text(&mut self, s: &str) -> &mut Emit {
        self.text.push_str(s);
        self.text.push(' ');
        self
    }

    /// Appends tokens as they are (their spans kept).
    pub(crate) fn tokens(&mut self, tokens: TokenStream) -> &mut Emit {
        self.flush();
        self.out.extend(tokens);
        self
    }

    /// Appends token trees as they are.
    pub(crate) fn trees(&mut self, trees: impl IntoIterator<Item = TokenTree>) -> &mut Emit {
        self.flush();
        self.out.extend(trees);
        self
    }

    /// Appends one token tree.
    pub(crate) fn tree(&mut self, tree: impl Into<TokenTree>) -> &mut Emit {
        self.trees([tree.into()])
    }

    /// Appends a group delimited by `delimiter` around what `inner` writes.
    pub(crate) fn group(
        &mut self,
        delimiter: Delimiter,
        inner: impl FnOnce(&mut Emit),
    ) -> &mut Emit {
        let mut e = Emit::new();
        inner(&mut e);
        self.tree(Group::new(delimiter, e.finish()))
    }

    /// The path of `elide` for this expansion ([`crate::expand::ELIDE`]):
    /// text when it is `::elide`, else the tokens it was given (`$crate`
    /// has no spelling in text).
    pub(crate) fn elide(&mut self) -> &mut Emit {
        match crate::expand::crate_path() {
            Some(path) => self.tokens(path),
            None => self.text("::elide"),
        }
    }

    pub(crate) fn finish(mut self) -> TokenStream {
        self.flush();
        self.out
    }

    fn flush(&mut self) {
        if !self.text.is_empty() {
            const VALID: &str = "elide-macros writes balanced, valid tokens";
            // Straight to the compiler's lexer: `proc_macro2`'s own parse
            // lexes the text once more, unoptimised, to check it first.
            let tokens: TokenStream = if proc_macro::is_available() {
                self.text
                    .parse::<proc_macro::TokenStream>()
                    .expect(VALID)
                    .into()
            } else {
                self.text.parse().expect(VALID)
            };
            self.out.extend(tokens);
            self.text.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// Text and spliced tokens come out in the order written, groups
    /// around what their closure wrote.
    #[test]
    fn text_and_tokens_come_out_in_order() {
        let mut e = Emit::new();
        e.text("f").group(Delimiter::Parenthesis, |e| {
            e.tokens(quote!(a + b)).text(", [1, 2]");
        });
        e.text(";")
            .tree(proc_macro2::Ident::new("x", proc_macro2::Span::call_site()));
        assert_eq!(
            e.finish().to_string(),
            quote!(f(a + b, [1, 2]); x).to_string()
        );
        assert!(Emit::new().finish().is_empty());
    }
}
