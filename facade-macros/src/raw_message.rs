//! The record a log site builds on its cold path, from its message
//! format and its arguments: each argument bound once and offered raw
//! through deref specialisation (copyable kinds by value, the rest
//! borrowed through the placeholder's formatting trait), the format as data
//! when every placeholder is a plain `{}` or `{:?}`, else a per-site
//! decoder. The site instantiates `format_args!` at most once (none for a
//! data format), and one shared function builds and dispatches the record.

use crate::emit::Emit;
use crate::expand::ELIDE;
use proc_macro2::{Delimiter, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, LitStr, Token};

/// Most arguments a raw message carries (the record header keeps a byte).
const MAX_RAW_ARGS: usize = 32;

/// Where a site's record goes, which decides the shared function that
/// dispatches it.
#[derive(Clone, Copy)]
pub(crate) enum Dest<'a> {
    /// A common site's: the facade's `log_site!` template hands
    /// `record!` the site's `static __ELIDE_CS` and level, and the
    /// `_at` functions find the route from the `static`.
    Site,
    /// A site whose cold closure gets `__elide_route` and `__elide_meta`,
    /// at this level.
    Closure(&'a TokenStream),
}

/// The record half of a site whose cold closure gets the route and the
/// metadata: an invocation of the facade's `__private::record!` template
/// (see `templates.rs` there), which builds the record from `level`, the
/// message and the fields (`kv`: the template's `key = value` items) and
/// dispatches it. Only the decisions are made here; the boilerplate around
/// them is the template's, expanded by the compiler without a round trip
/// through this macro. (A common site's record is written into its
/// `log_site!` call, see [`write_record`].)
pub(crate) fn dispatch_record(
    level: &TokenStream,
    format: Option<&LitStr>,
    rest: &TokenStream,
    kv: &TokenStream,
) -> TokenStream {
    let mut e = Emit::new();
    e.elide()
        .text("::__private::record!")
        .group(Delimiter::Parenthesis, |e| {
            write_record(e, format, rest, kv, Dest::Closure(level))
        });
    e.finish()
}

/// Writes the arguments of a `record!` call: its mode and shared function
/// (`raw dispatch_message_at`, ..), for a [`Dest::Closure`] the
/// destination and level, the fields, the arguments each after its
/// capture method, and the message's format.
pub(crate) fn write_record(
    e: &mut Emit,
    format: Option<&LitStr>,
    rest: &TokenStream,
    kv: &TokenStream,
    dest: Dest<'_>,
) {
    // `mode f`: the `_at` function for a common site.
    let head = |e: &mut Emit, mode: &str, f: &str| {
        match dest {
            Dest::Site => e.text(&format!("{mode} {f}_at")),
            Dest::Closure(level) => e
                .text(&format!("{mode} {f} (__elide_route, __elide_meta)"))
                .group(Delimiter::Parenthesis, |e| {
                    e.tokens(level.clone());
                }),
        };
        if kv.is_empty() {
            e.text("[]");
        } else {
            e.group(Delimiter::Bracket, |e| {
                e.tokens(kv.clone());
            });
        }
    };
    // No arguments: the message is a `&'static str` already
    // (`Arguments::as_str`), which sinks copy as a pointer. Anything the
    // parser below does not take (argument-taken widths, `{:p}`, errors
    // `format_args!` must report) keeps the rendered path too.
    let Some((lit, message)) = format.and_then(|lit| {
        Message::parse(lit, rest)
            .filter(|m| !m.args.is_empty())
            .map(|m| (lit, m))
    }) else {
        head(e, "plain", "dispatch_text");
        e.group(Delimiter::Parenthesis, |e| match format {
            Some(lit) => {
                e.tokens(lit.to_token_stream()).tokens(rest.clone());
            }
            None => {
                e.text("\"\"");
            }
        });
        return;
    };
    let pieces = message.pieces();
    // A common site's format is known here: one with pieces goes to the
    // function that builds its record without asking the format's kind.
    match (&pieces, dest) {
        (None, Dest::Site) => head(e, "raw", "dispatch_decoded"),
        _ => head(e, "raw", "dispatch_message"),
    }
    // Each argument with its capture method, spanned at the argument: a
    // type without its placeholder's trait is reported with a label there
    // (the capture's bound is the site's type check; see
    // `__private::record!`).
    e.group(Delimiter::Bracket, |e| {
        for (expr, t) in message.args.iter().zip(&message.traits) {
            // Spanned where the argument starts (an implicit capture's
            // ident is spanned at the format string).
            let at = expr.first().map_or_else(Span::call_site, TokenTree::span);
            e.tree(Ident::new(t.method(), at))
                .trees(expr.iter().cloned())
                .tree(Punct::new(',', Spacing::Alone));
        }
    });
    match pieces {
        Some(pieces) => {
            e.text(&format!("pieces [{pieces}]"));
        }
        None => {
            let positional = message.positional_literal(lit.span());
            let idx = 0..message.args.len();
            e.text("decode [] (__elide_decode)").tokens(quote! {
                // A function item, not a closure: no per-site
                // `FnOnce::call_once` shim.
                fn __elide_decode(
                    __elide_args: &[#ELIDE::__private::RawArg<'_>],
                    __elide_out: &mut dyn ::core::ops::FnMut(::core::fmt::Arguments<'_>),
                ) {
                    __elide_out(::core::format_args!(#positional, #(__elide_args[#idx]),*))
                }
            });
        }
    }
}

/// The formatting trait a placeholder uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trait {
    Display,
    Debug,
    LowerHex,
    UpperHex,
    Octal,
    Binary,
    LowerExp,
    UpperExp,
}

impl Trait {
    /// From the placeholder's spec (after the `:`): its last character is
    /// the type when it is one (a fill character is always followed by an
    /// alignment, so it is never last).
    fn of_spec(spec: &str) -> Trait {
        match spec.chars().last() {
            Some('?') => Trait::Debug,
            Some('x') => Trait::LowerHex,
            Some('X') => Trait::UpperHex,
            Some('o') => Trait::Octal,
            Some('b') => Trait::Binary,
            Some('e') => Trait::LowerExp,
            Some('E') => Trait::UpperExp,
            _ => Trait::Display,
        }
    }

    /// The capture method for this trait (see the facade's `record/raw.rs`).
    fn method(self) -> &'static str {
        match self {
            Trait::Display => "elide_display",
            Trait::Debug => "elide_debug",
            Trait::LowerHex => "elide_lower_hex",
            Trait::UpperHex => "elide_upper_hex",
            Trait::Octal => "elide_octal",
            Trait::Binary => "elide_binary",
            Trait::LowerExp => "elide_lower_exp",
            Trait::UpperExp => "elide_upper_exp",
        }
    }
}

/// One part of a format string.
#[derive(Debug, PartialEq)]
enum Segment {
    /// Literal text, escapes resolved.
    Lit(String),
    /// A placeholder: the index of its argument and its spec.
    Arg(usize, String),
}

/// A message whose every placeholder names its argument by position, name
/// or implicit capture, with no argument-taken width or precision and no
/// `{:p}` (an address, which a copy would change).
struct Message {
    segments: Vec<Segment>,
    /// Every argument's tokens, in evaluation order: positional, named
    /// (their values), then implicitly captured variables. Kept as trees:
    /// a stream of the compiler's would cost a bridge call to build and
    /// one to read.
    args: Vec<Vec<TokenTree>>,
    /// The trait each argument is formatted with.
    traits: Vec<Trait>,
}

/// How a placeholder names its argument.
enum ArgRef {
    Next,
    Index(usize),
    Name(String),
}

impl Message {
    fn parse(lit: &LitStr, rest: &TokenStream) -> Option<Message> {
        let rest = strip_leading_comma(rest)?;
        let mut args: Vec<Vec<TokenTree>> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        if let Some(plain) = split_positional(&rest) {
            args = plain;
        } else {
            let list = Punctuated::<Expr, Token![,]>::parse_terminated
                .parse2(rest.into_iter().collect())
                .ok()?;
            for expr in list {
                match expr {
                    Expr::Assign(a) => match &*a.left {
                        Expr::Path(p) if p.path.get_ident().is_some() => {
                            names.push(p.path.get_ident()?.to_string());
                            args.push(a.right.to_token_stream().into_iter().collect());
                        }
                        _ => return None,
                    },
                    // A positional argument after a named one: an error
                    // `format_args!` reports.
                    _ if !names.is_empty() => return None,
                    e => args.push(e.to_token_stream().into_iter().collect()),
                }
            }
        }
        let positional = args.len() - names.len();
        let explicit = args.len();
        let mut next = 0;
        let mut segments = Vec::new();
        for part in parse_parts(&literal_value(lit))? {
            let (arg, spec) = match part {
                Part::Lit(text) => {
                    segments.push(Segment::Lit(text));
                    continue;
                }
                Part::Placeholder(arg, spec) => (arg, spec),
            };
            let index = match arg {
                ArgRef::Next => {
                    next += 1;
                    next - 1
                }
                ArgRef::Index(i) => i,
                ArgRef::Name(name) => match names.iter().position(|n| *n == name) {
                    Some(k) => positional + k,
                    // An implicit capture: the variable of that name,
                    // resolved where the format string is written; one
                    // argument however often it appears.
                    None => match args[explicit..].iter().position(|e| is_ident(e, &name)) {
                        Some(k) => explicit + k,
                        None => {
                            let ident = Ident::new(&name, lit.span());
                            args.push(vec![TokenTree::Ident(ident)]);
                            args.len() - 1
                        }
                    },
                },
            };
            if index >= args.len() {
                return None;
            }
            segments.push(Segment::Arg(index, spec));
        }
        if args.len() > MAX_RAW_ARGS {
            return None;
        }
        // Every argument used (else `format_args!` reports it), and with
        // one trait only.
        let mut traits: Vec<Option<Trait>> = vec![None; args.len()];
        for s in &segments {
            if let Segment::Arg(i, spec) = s {
                let t = Trait::of_spec(spec);
                match traits[*i] {
                    Some(u) if u != t => return None,
                    _ => traits[*i] = Some(t),
                }
            }
        }
        let traits = traits.into_iter().collect::<Option<Vec<_>>>()?;
        Some(Message {
            segments,
            args,
            traits,
        })
    }

    /// The format as data, when every placeholder is `{}` or `{:?}`: the
    /// pieces as text, `Lit("task "), Display(0u8), ..`.
    fn pieces(&self) -> Option<String> {
        let pieces = self
            .segments
            .iter()
            .map(|s| match s {
                // `{:?}` of a `str` is a string literal of the same value.
                Segment::Lit(text) => Some(format!("Lit({text:?})")),
                Segment::Arg(i, spec) => {
                    let i = u8::try_from(*i).ok()?;
                    match spec.as_str() {
                        "" => Some(format!("Display({i}u8)")),
                        "?" => Some(format!("Debug({i}u8)")),
                        _ => None,
                    }
                }
            })
            .collect::<Option<Vec<_>>>()?;
        Some(pieces.join(", "))
    }

    /// The format string with every placeholder naming its argument by
    /// index, for a decoder that gets the arguments as a list.
    fn positional_literal(&self, span: Span) -> LitStr {
        let mut out = String::new();
        for s in &self.segments {
            match s {
                Segment::Lit(text) => out.push_str(&text.replace('{', "{{").replace('}', "}}")),
                Segment::Arg(i, spec) if spec.is_empty() => out.push_str(&format!("{{{i}}}")),
                Segment::Arg(i, spec) => out.push_str(&format!("{{{i}:{spec}}}")),
            }
        }
        LitStr::new(&out, span)
    }
}

/// A part of a format string as written.
enum Part {
    Lit(String),
    Placeholder(ArgRef, String),
}

/// Splits `fmt` into literal text (escapes resolved) and placeholders (how
/// each names its argument, and its spec); `None` for anything the raw path
/// does not take: an argument-taken width or precision, `{:p}`, a stray
/// brace.
fn parse_parts(fmt: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '}' => return None,
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        c => inner.push(c),
                    }
                }
                let (arg, spec) = match inner.split_once(':') {
                    Some((a, s)) => (a, s.to_string()),
                    None => (inner.as_str(), String::new()),
                };
                if spec.contains(['$', '*', '{']) || spec.ends_with('p') {
                    return None;
                }
                let arg = arg.trim();
                let arg = if arg.is_empty() {
                    ArgRef::Next
                } else if arg.chars().all(|c| c.is_ascii_digit()) {
                    ArgRef::Index(arg.parse().ok()?)
                } else if arg.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && arg.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && arg != "_"
                {
                    ArgRef::Name(arg.to_string())
                } else {
                    return None;
                };
                if !text.is_empty() {
                    parts.push(Part::Lit(std::mem::take(&mut text)));
                }
                parts.push(Part::Placeholder(arg, spec));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        parts.push(Part::Lit(text));
    }
    Some(parts)
}

/// The arguments split at their top-level commas, when each is plainly
/// one expression: no `=`, `<` or `|` outside a group (a named argument,
/// `f::<A, B>()` or `|a, b| a` would hide a comma or need the parser) nor
/// a punctuation no expression has between its operands (`;`, `#`, ..), no
/// two operands in a row (`x y`, `x as u8`, `if c { .. }`), no operator
/// at an end but a prefix `& * - !` or a trailing `?`. Such a list is each
/// argument as written; anything else goes through `syn` (and its errors
/// through `format_args!`), whose expression parser costs an unoptimised
/// macro far more than this scan.
fn split_positional(rest: &[TokenTree]) -> Option<Vec<Vec<TokenTree>>> {
    use proc_macro2::TokenTree as T;
    let mut args = Vec::new();
    let mut arg = Vec::new();
    let mut last: Option<&T> = None;
    let close = |last: Option<&T>| match last {
        None => false,
        Some(T::Punct(p)) => p.as_char() == '?',
        Some(_) => true,
    };
    for tree in rest {
        match (tree, last) {
            (T::Punct(p), _) if p.as_char() == ',' => {
                if !close(last) {
                    return None;
                }
                args.push(std::mem::take(&mut arg));
                last = None;
                continue;
            }
            (T::Punct(p), _)
                if matches!(p.as_char(), '=' | '<' | '|' | ';' | '#' | '@' | '$' | '~') =>
            {
                return None
            }
            (T::Punct(p), None) if !matches!(p.as_char(), '&' | '*' | '-' | '!') => return None,
            (T::Ident(_) | T::Literal(_), Some(T::Ident(_) | T::Literal(_) | T::Group(_))) => {
                return None
            }
            _ => {}
        }
        arg.push(tree.clone());
        last = Some(tree);
    }
    if last.is_some() {
        if !close(last) {
            return None;
        }
        args.push(arg);
    }
    Some(args)
}

/// A string literal's value: its text between the quotes when it has no
/// escape (read without `syn`'s unescaping, which an unoptimised macro
/// pays for by the character), else `LitStr::value`.
fn literal_value(lit: &LitStr) -> String {
    let repr = lit.token().to_string();
    match repr.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(text) if !text.contains('\\') => text.to_owned(),
        _ => lit.value(),
    }
}

/// Whether an argument is exactly the identifier `name`.
fn is_ident(arg: &[TokenTree], name: &str) -> bool {
    matches!(arg, [TokenTree::Ident(i)] if i == name)
}

/// `, a, b` -> `a, b` as trees (read once); an empty rest stays empty;
/// anything else is `None`.
fn strip_leading_comma(rest: &TokenStream) -> Option<Vec<TokenTree>> {
    let mut trees: Vec<TokenTree> = rest.clone().into_iter().collect();
    match trees.first() {
        None => Some(trees),
        Some(TokenTree::Punct(p)) if p.as_char() == ',' => {
            trees.remove(0);
            Some(trees)
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An argument's tokens as text.
    fn text(arg: &[TokenTree]) -> String {
        arg.iter().cloned().collect::<TokenStream>().to_string()
    }

    fn parse(fmt: &str, rest: TokenStream) -> Option<Message> {
        Message::parse(&LitStr::new(fmt, Span::call_site()), &rest)
    }

    #[test]
    fn plain_placeholders_become_data() {
        let m = parse("task {} done in {:?} us", quote!(, id, us)).unwrap();
        assert_eq!(m.args.len(), 2);
        assert_eq!(m.traits, [Trait::Display, Trait::Debug]);
        assert_eq!(
            m.segments,
            [
                Segment::Lit("task ".into()),
                Segment::Arg(0, String::new()),
                Segment::Lit(" done in ".into()),
                Segment::Arg(1, "?".into()),
                Segment::Lit(" us".into()),
            ]
        );
        assert_eq!(
            m.pieces().as_deref(),
            Some(r#"Lit("task "), Display(0u8), Lit(" done in "), Debug(1u8), Lit(" us")"#)
        );
    }

    /// The pieces' text is Rust: each literal piece reads back as the
    /// same string, whatever it holds (quotes, backslashes, a newline,
    /// U+2028, escaped braces).
    #[test]
    fn literal_pieces_read_back_as_the_same_text() {
        let m = parse("q\"{}\\ \n\u{2028}{{x}} {:?}", quote!(, a, b)).unwrap();
        let text = m.pieces().unwrap();
        let tokens: TokenStream = text.parse().unwrap();
        let lits: Vec<String> = tokens
            .into_iter()
            .filter_map(|t| match t {
                TokenTree::Group(g) => syn::parse2::<LitStr>(g.stream()).ok(),
                _ => None,
            })
            .map(|l| l.value())
            .collect();
        assert_eq!(lits, ["q\"", "\\ \n\u{2028}{x} "]);
    }

    /// A literal's value is its text when it has no escape, and what
    /// `syn` unescapes otherwise (escapes, raw strings).
    #[test]
    fn literal_values_are_read_with_and_without_escapes() {
        for (lit, value) in [
            (quote!("task {} #1"), "task {} #1"),
            (quote!("tab\t{}\u{2028}\"q\""), "tab\t{}\u{2028}\"q\""),
            (quote!(r"C:\dir {}"), "C:\\dir {}"),
            (quote!(r#"say "hi" {}"#), "say \"hi\" {}"),
            (quote!(""), ""),
        ] {
            let lit: LitStr = syn::parse2(lit).unwrap();
            assert_eq!(literal_value(&lit), value);
        }
    }

    #[test]
    fn plain_argument_lists_are_split_without_the_expression_parser() {
        let split = |ts: TokenStream| {
            let trees: Vec<TokenTree> = ts.into_iter().collect();
            split_positional(&trees).map(|v| v.iter().map(|a| text(a)).collect::<Vec<_>>())
        };
        assert_eq!(
            split(quote!(id, &task.name, -x, f(a, b)?, v[i].len(), !done,)),
            Some(vec![
                "id".into(),
                "& task . name".into(),
                "- x".into(),
                "f (a , b) ?".into(),
                "v [i] . len ()".into(),
                "! done".into(),
            ])
        );
        // Left to `syn`: a named argument, commas the scan cannot place,
        // two operands in a row, an operator at an end, an empty argument.
        for ts in [
            quote!(x = 1),
            quote!(f::<A, B>()),
            quote!(|a, b| a),
            quote!(x y),
            quote!(x as u8),
            quote!(a+),
            quote!(+a),
            quote!(a,, b),
            quote!(a == b),
            quote!(a; b),
        ] {
            assert_eq!(split(ts.clone()), None, "{ts}");
        }
        // Either way the message is the same.
        let m = parse("{} {}", quote!(, a as u8, x)).unwrap();
        assert_eq!(m.args.len(), 2);
        assert_eq!(text(&m.args[0]), "a as u8");
    }

    #[test]
    fn captures_and_named_arguments_are_taken() {
        let m = parse("{} {x} {{{y}}} {y}", quote!(, a, x = 1)).unwrap();
        // a, x's value, then the captured `y` once.
        assert_eq!(m.args.len(), 3);
        assert!(is_ident(&m.args[2], "y"));
        assert_eq!(
            m.positional_literal(Span::call_site()).value(),
            "{0} {1} {{{2}}} {2}"
        );
        let m = parse("{0:>8.3} {0:e}", quote!(, v));
        assert!(m.is_none(), "one argument, two traits");
        let m = parse("{:>8.3} {:#x} {:E}", quote!(, a, b, c)).unwrap();
        assert_eq!(m.traits, [Trait::Display, Trait::LowerHex, Trait::UpperExp]);
        assert!(m.pieces().is_none(), "specs need a decoder");
        assert_eq!(
            m.positional_literal(Span::call_site()).value(),
            "{0:>8.3} {1:#x} {2:E}"
        );
    }

    #[test]
    fn what_format_args_must_judge_keeps_the_rendered_path() {
        assert!(parse("{:1$}", quote!(, a, b)).is_none());
        assert!(parse("{:.*}", quote!(, a, b)).is_none());
        assert!(parse("{:p}", quote!(, a)).is_none());
        assert!(parse("{} {}", quote!(, a)).is_none(), "missing argument");
        assert!(parse("{}", quote!(, a, b)).is_none(), "unused argument");
        for fmt in ["{x}", "{x} {}"] {
            assert!(
                parse(fmt, quote!(, x = 1, a)).is_none(),
                "positional after named: {fmt}"
            );
        }
        assert!(parse("}", quote!()).is_none());
        assert!(parse("{", quote!()).is_none());
        assert_eq!(parse("no args", quote!()).map(|m| m.args.len()), Some(0));
    }

    #[test]
    fn names_that_are_not_identifiers_are_left_to_format_args() {
        // `format_args!` reports these; the parser must decline, not panic
        // making an identifier of them.
        for fmt in ["{1a}", "{a-b}", "{_}", "{a b}", "{-}"] {
            assert!(parse(fmt, quote!()).is_none(), "{fmt}");
        }
        let m = parse("{_v} {v_1}", quote!()).unwrap();
        assert_eq!(m.args.len(), 2, "`_v` and `v_1` are captured");
    }

    #[test]
    fn each_spec_selects_its_trait() {
        let m = parse(
            "{:?} {:x} {:X} {:o} {:b} {:e} {:E} {:>4}",
            quote!(, a, b, c, d, e, f, g, h),
        )
        .unwrap();
        use Trait::*;
        let all = [
            Debug, LowerHex, UpperHex, Octal, Binary, LowerExp, UpperExp, Display,
        ];
        assert_eq!(m.traits, all);
    }
}
