//! The source text of a condition, as the user wrote it, for check failures.
//!
//! `stringify!` on tokens that went through a proc macro prints them with its
//! own spacing (`v [0] > - 1`, `| x | x * 2`). Joining spans to read the text
//! directly is nightly-only, but `Span::source_text` is stable. So the text of
//! an enclosing span (the whole macro call, or a parenthesised group) is
//! walked token by token: each token must follow the previous one with only
//! whitespace or comments between, which pins down where every top-level
//! token starts and ends in the original text. If anything does not line up
//! (tokens produced by another macro, for instance), callers fall back to the
//! token printer.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use syn::buffer::Cursor;
use syn::parse::ParseStream;

/// The original text of a token stream, top-level token by top-level token.
/// Each token keeps its text exactly (literals included); the whitespace and
/// comments between tokens become one space, so a condition written over
/// several lines reads as one.
pub(crate) struct Source {
    /// Per top-level token: whether trivia precedes it, and its text.
    tokens: Vec<(bool, String)>,
}

impl Source {
    /// The text of a function-like macro's input, read from the macro call
    /// (`path!(..)`: the input starts after the delimiter that follows `!`).
    pub(crate) fn of_call(input: &TokenStream) -> Option<Source> {
        let text = Span::call_site().source_text()?;
        let mut pos = skip_trivia(&text, text.find('!')? + 1);
        if !matches!(text[pos..].chars().next()?, '(' | '[' | '{') {
            return None;
        }
        pos += 1;
        Source::build(input, &text, pos)
    }

    /// The text inside a delimited group.
    pub(crate) fn of_group(g: &Group) -> Option<Source> {
        let text = g.span().source_text()?;
        if !matches!(text.chars().next()?, '(' | '[' | '{') {
            return None;
        }
        Source::build(&g.stream(), &text, 1)
    }

    fn build(tokens: &TokenStream, text: &str, mut pos: usize) -> Option<Source> {
        let mut out = Vec::new();
        for tt in tokens.clone() {
            let start = skip_trivia(text, pos);
            let gap = start > pos;
            let mut rendered = String::new();
            pos = walk_tree(&tt, text, start, &mut rendered)?;
            out.push((gap, rendered));
        }
        Some(Source { tokens: out })
    }

    /// The text of `count` top-level tokens starting at token `first`.
    pub(crate) fn slice(&self, first: usize, count: usize) -> Option<String> {
        let parts = self.tokens.get(first..first.checked_add(count)?)?;
        let mut out = String::new();
        for (i, (gap, text)) in parts.iter().enumerate() {
            if *gap && i > 0 {
                out.push(' ');
            }
            out.push_str(text);
        }
        (!out.is_empty()).then_some(out)
    }
}

/// Position in a parse: how many top-level tokens precede the cursor.
pub(crate) fn index(start: Cursor, now: Cursor) -> usize {
    let mut c = start;
    let mut n = 0;
    while c < now {
        match c.token_tree() {
            Some((_, next)) => c = next,
            None => break,
        }
        n += 1;
    }
    n
}

/// Parses one item and reports the top-level token range it covered,
/// counted from `start`.
pub(crate) fn parse_counted<T>(
    input: ParseStream,
    start: Cursor,
    parse: impl FnOnce(ParseStream) -> syn::Result<T>,
) -> syn::Result<(T, usize, usize)> {
    let first = index(start, input.cursor());
    let value = parse(input)?;
    let count = index(start, input.cursor()) - first;
    Ok((value, first, count))
}

/// The text for an item found with [`parse_counted`], or its token rendering.
pub(crate) fn text_or_tokens(
    source: Option<&Source>,
    first: usize,
    count: usize,
    tokens: &dyn quote::ToTokens,
) -> String {
    source
        .and_then(|s| s.slice(first, count))
        .unwrap_or_else(|| tokens.to_token_stream().to_string())
}

/// Matches one token tree against `text` from `pos`, appending its text
/// (with trivia inside it normalised) to `out`; returns the end offset.
fn walk_tree(tt: &TokenTree, text: &str, pos: usize, out: &mut String) -> Option<usize> {
    match tt {
        TokenTree::Group(g) => {
            let (open, close) = match g.delimiter() {
                Delimiter::Parenthesis => ("(", ")"),
                Delimiter::Bracket => ("[", "]"),
                Delimiter::Brace => ("{", "}"),
                // Invisible groups come from macro substitution: the text
                // is elsewhere.
                Delimiter::None => return None,
            };
            let mut pos = expect(text, pos, open, out)?;
            for inner in g.stream() {
                pos = space(text, pos, out);
                pos = walk_tree(&inner, text, pos, out)?;
            }
            pos = space(text, pos, out);
            expect(text, pos, close, out)
        }
        other => expect(text, pos, &other.to_string(), out),
    }
}

/// Requires `token` at the cursor and appends it.
fn expect(text: &str, pos: usize, token: &str, out: &mut String) -> Option<usize> {
    if !text[pos..].starts_with(token) {
        return None;
    }
    out.push_str(token);
    Some(pos + token.len())
}

/// Skips trivia, writing one space for it if there was any.
fn space(text: &str, pos: usize, out: &mut String) -> usize {
    let next = skip_trivia(text, pos);
    if next > pos {
        out.push(' ');
    }
    next
}

/// Skips whitespace, `// ..` and `/* .. */` comments.
fn skip_trivia(text: &str, mut pos: usize) -> usize {
    loop {
        let rest = &text[pos..];
        let trimmed = rest.trim_start();
        pos += rest.len() - trimmed.len();
        if trimmed.starts_with("//") {
            pos += trimmed.find('\n').unwrap_or(trimmed.len());
        } else if let Some(body) = trimmed.strip_prefix("/*") {
            pos += 2 + body.find("*/").map_or(body.len(), |i| i + 2);
        } else {
            return pos;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The condition text a failed check shows leaves out whitespace and
    /// comments between tokens: each is skipped to the next token.
    #[test]
    fn trivia_is_skipped_up_to_the_next_token() {
        for (text, rest) in [
            ("x", "x"),
            ("  \n x", "x"),
            ("// why\n  x", "x"),
            ("/* a */ /* b */x", "x"),
            ("/* a */\n// b\n\tx > 0", "x > 0"),
            ("// no end", ""),
            ("/* no end", ""),
            ("", ""),
        ] {
            assert_eq!(&text[skip_trivia(text, 0)..], rest, "{text:?}");
        }
        assert_eq!(skip_trivia("a /* c */ b", 1), "a /* c */ ".len());
    }
}
