//! Parsing shared by the call-site macros: `target:`, key-values, sampling
//! options, the format string and its arguments.

use proc_macro2::{Span, TokenStream};
use syn::parse::ParseStream;
use syn::{Expr, Ident, LitStr, Token};

/// How a field value is recorded.
pub(crate) enum Sigil {
    /// `key = expr`: through `ToValue`, keeping the kind.
    Plain,
    /// `key = %expr`: through `Display`.
    Display,
    /// `key = ?expr`: through `Debug`.
    Debug,
}

/// `key = value` at a call site.
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) sigil: Sigil,
    pub(crate) value: Expr,
}

/// Sampling options of a log site.
#[derive(Default)]
pub(crate) struct Sampling {
    pub(crate) sample: Option<Expr>,
    pub(crate) first: Option<Expr>,
    pub(crate) every: Option<Expr>,
}

impl Sampling {
    /// Whether the site samples at all.
    pub(crate) fn is_none(&self) -> bool {
        self.sample.is_none() && self.first.is_none() && self.every.is_none()
    }
}

/// Parses `target: expr,` if present.
pub(crate) fn parse_target(input: ParseStream) -> syn::Result<Option<Expr>> {
    if input.peek(Ident) && input.peek2(Token![:]) && !input.peek2(Token![::]) {
        let ident: Ident = input.fork().parse()?;
        if ident == "target" {
            input.parse::<Ident>()?;
            input.parse::<Token![:]>()?;
            let e: Expr = input.parse()?;
            finish_item(input)?;
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// tracing's `name:` and `parent:` before an event's fields, with
/// `target:`, in any order.
#[derive(Default)]
pub(crate) struct Prelude {
    pub(crate) target: Option<Expr>,
    /// `name: "..."`: the record's event name (its metadata's name).
    pub(crate) name: Option<LitStr>,
    /// `parent: expr`: type-checked; the parent of an event is the span
    /// current where it is emitted.
    pub(crate) parent: Option<Expr>,
}

/// Parses `target:`, `name:` and `parent:` (each at most once, any order).
pub(crate) fn parse_prelude(input: ParseStream) -> syn::Result<Prelude> {
    let mut p = Prelude::default();
    loop {
        if !(input.peek(Ident) && input.peek2(Token![:]) && !input.peek2(Token![::])) {
            return Ok(p);
        }
        let ident: Ident = input.fork().parse()?;
        let given_twice = || syn::Error::new(ident.span(), format!("`{ident}:` given twice"));
        if is_log_capture(input) {
            // `name:? = v`, `parent:err`: log's capture on a field of that name.
            return Ok(p);
        }
        match ident.to_string().as_str() {
            "target" if p.target.is_none() => p.target = parse_target(input)?,
            "name" if p.name.is_none() => {
                input.parse::<Ident>()?;
                input.parse::<Token![:]>()?;
                p.name =
                    Some(input.parse().map_err(|e| {
                        syn::Error::new(e.span(), "`name:` takes a string literal")
                    })?);
                finish_item(input)?;
            }
            "parent" if p.parent.is_none() => {
                input.parse::<Ident>()?;
                input.parse::<Token![:]>()?;
                p.parent = Some(input.parse()?);
                finish_item(input)?;
            }
            "target" | "name" | "parent" => return Err(given_twice()),
            _ => return Ok(p),
        }
    }
}

/// Whether `ident:` starts log's capture syntax (`k:?`, `k:%`, `k:debug`,
/// `k:display`, `k:err`) rather than a `name:`/`parent:` argument.
fn is_log_capture(input: ParseStream) -> bool {
    let fork = input.fork();
    let _ = fork.parse::<Ident>();
    let _ = fork.parse::<Token![:]>();
    if fork.peek(Token![?]) || fork.peek(Token![%]) {
        return true;
    }
    let Ok(m) = fork.parse::<Ident>() else {
        return false;
    };
    matches!(m.to_string().as_str(), "debug" | "display" | "err")
        && (fork.is_empty() || fork.peek(Token![=]) || fork.peek(Token![,]) || fork.peek(Token![;]))
}

/// After an item: end of input or a comma.
fn finish_item(input: ParseStream) -> syn::Result<()> {
    if input.is_empty() {
        return Ok(());
    }
    input.parse::<Token![,]>().map(|_| ())
}

/// After a field: end of input, a comma, or `log`'s `;` that ends the
/// key-values (`info!(a = 1, b = 2; "msg {}", x)`). Returns true after `;`.
fn finish_field(input: ParseStream) -> syn::Result<bool> {
    if input.is_empty() {
        return Ok(false);
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        return Ok(true);
    }
    input
        .parse::<Token![,]>()
        .map(|_| false)
        .map_err(|e| syn::Error::new(e.span(), "expected `,` or `;` after a field"))
}

/// A dotted field name: `uid`, `task.uid`, `self.addr` (keywords allowed,
/// as in `tracing`). Returns the name and the tokens of the same path as an
/// expression, for the shorthand forms.
fn parse_name(input: ParseStream) -> syn::Result<(String, Span, TokenStream)> {
    let first: Ident = input.call(syn::ext::IdentExt::parse_any)?;
    let span = first.span();
    let mut name = first.to_string().trim_start_matches("r#").to_owned();
    let mut path = quote::quote!(#first);
    while input.peek(Token![.]) {
        let dot: Token![.] = input.parse()?;
        let next: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        name.push('.');
        name.push_str(next.to_string().trim_start_matches("r#"));
        path.extend(quote::quote!(#dot #next));
    }
    Ok((name, span, path))
}

/// `%` or `?` before a value, if present.
fn parse_sigil(input: ParseStream) -> syn::Result<Sigil> {
    Ok(if input.peek(Token![%]) {
        input.parse::<Token![%]>()?;
        Sigil::Display
    } else if input.peek(Token![?]) {
        input.parse::<Token![?]>()?;
        Sigil::Debug
    } else {
        Sigil::Plain
    })
}

/// `log`'s capture modifier after a key: `key:? = v`, `key:% = v`,
/// `key:debug`, `key:display`, `key:err` (through `Display`).
fn parse_capture(input: ParseStream, name: &str) -> syn::Result<Option<Sigil>> {
    if !input.peek(Token![:]) || input.peek(Token![::]) {
        return Ok(None);
    }
    input.parse::<Token![:]>()?;
    if input.peek(Token![?]) || input.peek(Token![%]) {
        return parse_sigil(input).map(Some);
    }
    let m: Ident = input.parse()?;
    match m.to_string().as_str() {
        "debug" => Ok(Some(Sigil::Debug)),
        "display" | "err" => Ok(Some(Sigil::Display)),
        other => Err(syn::Error::new(
            m.span(),
            format!("unsupported capture `{name}:{other}`; use `:?`, `:%`, `:debug`, `:display` or `:err`"),
        )),
    }
}

/// Whether the input starts a string-literal key: `"content-type" = v`.
fn peek_literal_key(input: ParseStream) -> bool {
    peek_str(input) && input.peek2(Token![=]) && !input.peek2(Token![==])
}

/// Whether the input starts with a string literal (`"..."`, `r"..."`,
/// `r#"..."#`): `input.peek(LitStr)` without its cost, which in an
/// unoptimised macro is the literal's whole value parsed at every peek.
pub(crate) fn peek_str(input: ParseStream) -> bool {
    input.cursor().literal().is_some_and(|(lit, _)| {
        let text = lit.to_string();
        text.starts_with('"') || text.starts_with("r\"") || text.starts_with("r#")
    })
}

/// A span's or a scope's `"name" [, fields]`: the name as a string
/// literal, then fields only (`what` is "span" or "scope", `example` a
/// correct call for the error).
pub(crate) fn parse_name_and_fields(
    input: ParseStream,
    what: &str,
    example: &str,
) -> syn::Result<(LitStr, Vec<Field>)> {
    let name: LitStr = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected the {what} name as a string literal: `{example}`"),
        )
    })?;
    if !input.is_empty() {
        input.parse::<Token![,]>()?;
    }
    let (fields, _) = parse_fields(input, false)?;
    if !input.is_empty() {
        return Err(input.error(format!(
            "{what}s take fields only (`key = value`), no format string"
        )));
    }
    Ok((name, fields))
}

/// Parses key-value fields until a string literal (the message) or the end.
/// With `allow_sampling`, `sample = N`, `first = N`, `every = D` and `once`
/// are options instead of fields. `log`'s `;` ends the fields.
pub(crate) fn parse_fields(
    input: ParseStream,
    allow_sampling: bool,
) -> syn::Result<(Vec<Field>, Sampling)> {
    let mut fields = Vec::new();
    let mut sampling = Sampling::default();
    while !input.is_empty()
        && (!peek_str(input) || peek_literal_key(input))
        && !peek_message_macro(input)
    {
        if input.peek(syn::token::Brace) {
            // tracing's braced fields: `{ a = 1, b = ?c }`.
            let inner;
            syn::braced!(inner in input);
            let (more, _) = parse_fields(&inner, false)?;
            if !inner.is_empty() {
                return Err(inner.error("expected only fields inside `{ .. }`"));
            }
            fields.extend(more);
            if finish_field(input)? {
                break;
            }
            continue;
        }
        if input.peek(syn::Lit) && !peek_literal_key(input) {
            let lit: syn::Lit = input.parse()?;
            return Err(syn::Error::new_spanned(
                lit,
                "expected a format string literal (\"...\") or a field `key = value`",
            ));
        }
        if peek_literal_key(input) {
            // `"content-type" = value`: a key that is not an identifier.
            let key: LitStr = input.parse()?;
            input.parse::<Token![=]>()?;
            let sigil = parse_sigil(input)?;
            let value = parse_value(input, &key.value())?;
            fields.push(Field {
                name: key.value(),
                sigil,
                value,
            });
            if finish_field(input)? {
                break;
            }
            continue;
        }
        if input.peek(Token![%]) || input.peek(Token![?]) {
            // `%x` / `?a.b`: shorthand for `x = %x` / `a.b = ?a.b`.
            let sigil = parse_sigil(input)?;
            let (name, _, path) = parse_name(input)?;
            fields.push(Field {
                name,
                sigil,
                value: syn::parse2(path)?,
            });
            if finish_field(input)? {
                break;
            }
            continue;
        }
        let lookahead = input.lookahead1();
        if !lookahead.peek(Ident) && !input.peek(Token![self]) {
            return Err(syn::Error::new(
                input.span(),
                "expected a field `key = value`, `key = %value`, `key = ?value`, or a format string literal",
            ));
        }
        let (name, span, path) = parse_name(input)?;
        let capture = parse_capture(input, &name)?;
        if allow_sampling && name == "once" && capture.is_none() && !input.peek(Token![=]) {
            set_once(
                &mut sampling.first,
                syn::parse_quote_spanned!(span=> 1u32),
                span,
                "once",
            )?;
            if finish_field(input)? {
                break;
            }
            continue;
        }
        if !input.peek(Token![=]) {
            // `x`, `a.b`, `x:?`: shorthand for `x = x`, `a.b = a.b`, `x = ?x`.
            fields.push(Field {
                name,
                sigil: capture.unwrap_or(Sigil::Plain),
                value: syn::parse2(path)?,
            });
            if finish_field(input)? {
                break;
            }
            continue;
        }
        input.parse::<Token![=]>()?;
        let sigil = match capture {
            Some(s) => s,
            None => parse_sigil(input)?,
        };
        let value = parse_value(input, &name)?;
        let option = match name.as_str() {
            "sample" if allow_sampling => Some(&mut sampling.sample),
            "first" if allow_sampling => Some(&mut sampling.first),
            "every" if allow_sampling => Some(&mut sampling.every),
            _ => None,
        };
        match option {
            Some(slot) => {
                if !matches!(sigil, Sigil::Plain) {
                    return Err(syn::Error::new(
                        span,
                        format!("`{name}` takes a plain value"),
                    ));
                }
                check_positive(&value, &name)?;
                set_once(slot, value, span, &name)?;
            }
            None => fields.push(Field { name, sigil, value }),
        }
        if finish_field(input)? {
            break;
        }
    }
    if sampling.first.is_some() && (sampling.sample.is_some() || sampling.every.is_some())
        || sampling.sample.is_some() && sampling.every.is_some()
    {
        return Err(syn::Error::new(
            input.span(),
            "use one sampling option per site: `sample = N`, `first = N`, `once` or `every = D`",
        ));
    }
    Ok((fields, sampling))
}

/// The value after `key =`.
fn parse_value(input: ParseStream, name: &str) -> syn::Result<Expr> {
    if input.is_empty() || input.peek(Token![,]) || input.peek(Token![;]) {
        return Err(syn::Error::new(
            input.span(),
            format!("expected a value after `{name} =`"),
        ));
    }
    input.parse()
}

fn set_once(slot: &mut Option<Expr>, value: Expr, span: Span, name: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(syn::Error::new(span, format!("`{name}` given twice")));
    }
    *slot = Some(value);
    Ok(())
}

/// `sample = 0` / `first = 0` pass no hit (a zero computed at run time turns
/// the site off, see `elide::__private::sample_nth`): a literal zero can only
/// be a mistake, so it is rejected at compile time.
fn check_positive(value: &Expr, name: &str) -> syn::Result<()> {
    if let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(i),
        ..
    }) = value
    {
        if i.base10_parse::<u64>().map(|v| v == 0).unwrap_or(false) {
            return Err(syn::Error::new_spanned(
                value,
                format!("`{name}` must be at least 1"),
            ));
        }
    }
    Ok(())
}

/// The format string and everything after it. The format string may be
/// `concat!(..)` or `stringify!(..)` of literals, read here into the
/// literal it stands for.
pub(crate) fn parse_format(input: ParseStream) -> syn::Result<(Option<LitStr>, TokenStream)> {
    if input.is_empty() {
        return Ok((None, TokenStream::new()));
    }
    let lit = if peek_message_macro(input) {
        let span = input.span();
        LitStr::new(&message_macro(input)?, span)
    } else {
        input.parse()?
    };
    let rest: TokenStream = input.parse()?;
    Ok((Some(lit), rest))
}

/// Whether the input starts `concat!(..)` or `stringify!(..)`.
fn peek_message_macro(input: ParseStream) -> bool {
    input.peek(Ident)
        && input.peek2(Token![!])
        && input
            .fork()
            .parse::<Ident>()
            .is_ok_and(|i| i == "concat" || i == "stringify")
}

/// The text of `concat!(..)` (of literals, and of these two macros) or
/// `stringify!(..)`.
fn message_macro(input: ParseStream) -> syn::Result<String> {
    let name: Ident = input.parse()?;
    input.parse::<Token![!]>()?;
    let inner;
    syn::parenthesized!(inner in input);
    if name == "stringify" {
        let tokens: TokenStream = inner.parse()?;
        return Ok(tokens.to_string());
    }
    let mut text = String::new();
    while !inner.is_empty() {
        if peek_message_macro(&inner) {
            text.push_str(&message_macro(&inner)?);
        } else {
            let lit = inner.parse::<syn::Lit>().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "a message `concat!` takes string, char, number and bool literals, \
                     and `concat!`/`stringify!` of them",
                )
            })?;
            match lit {
                syn::Lit::Str(s) => text.push_str(&s.value()),
                syn::Lit::Char(c) => text.push(c.value()),
                syn::Lit::Int(i) => text.push_str(i.base10_digits()),
                syn::Lit::Float(f) => text.push_str(f.base10_digits()),
                syn::Lit::Bool(b) => text.push_str(if b.value { "true" } else { "false" }),
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "a message `concat!` takes string, char, number and bool literals",
                    ))
                }
            }
        }
        if !inner.is_empty() {
            inner.parse::<Token![,]>()?;
        }
    }
    Ok(text)
}

/// tracing's `message = value` field, when there is no format string: the
/// message, as the `tracing` bridge reads it. Returns the format string and
/// arguments that print it.
pub(crate) fn message_field(fields: &mut Vec<Field>) -> Option<(LitStr, TokenStream)> {
    let at = fields.iter().position(|f| f.name == "message")?;
    let f = fields.remove(at);
    let v = &f.value;
    let span = Span::call_site();
    Some(match f.sigil {
        Sigil::Debug => (LitStr::new("{:?}", span), quote::quote!(, #v)),
        Sigil::Plain | Sigil::Display => (LitStr::new("{}", span), quote::quote!(, #v)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{quote, ToTokens};
    use syn::parse::Parser;

    fn target_of(tokens: TokenStream) -> Option<String> {
        let parse = |input: ParseStream| {
            let t = parse_target(input)?;
            let _: TokenStream = input.parse()?;
            Ok(t)
        };
        parse
            .parse2(tokens)
            .unwrap()
            .map(|e| e.to_token_stream().to_string())
    }

    /// `target: expr,` is taken off; a leading path (`::elide::Level::Warn`,
    /// `Level::Info`) or another key is not a target and not an error.
    #[test]
    fn a_leading_target_is_taken_and_nothing_else() {
        assert_eq!(
            target_of(quote!(target: "net", "msg")),
            Some("\"net\"".into())
        );
        assert_eq!(target_of(quote!(target: T)), Some("T".into()));
        for not_a_target in [
            quote!(::elide::Level::Warn, "msg"),
            quote!(Level::Info, "msg"),
            quote!(targets: 1),
            quote!(x = 1, "msg"),
        ] {
            assert_eq!(target_of(not_a_target), None);
        }
    }

    fn names(tokens: TokenStream, allow_sampling: bool) -> (Vec<String>, bool) {
        let parse = |input: ParseStream| parse_fields(input, allow_sampling);
        let (fields, sampling) = parse.parse2(tokens).unwrap();
        (
            fields.into_iter().map(|f| f.name).collect(),
            sampling.is_none(),
        )
    }

    /// `sample`, `first`, `every` and `once` are sampling options at log
    /// sites only; elsewhere (telemetry events, scopes) they are fields.
    #[test]
    fn sampling_keys_are_fields_where_sites_do_not_sample() {
        for key in [quote!(sample = 3), quote!(first = 2), quote!(every = d)] {
            let tokens = quote!(#key, a = 1);
            assert_eq!(names(tokens.clone(), true), (vec!["a".to_owned()], false));
            let (fields, none) = names(tokens, false);
            assert_eq!(fields.len(), 2, "{fields:?}");
            assert!(none);
        }
        assert_eq!(
            names(quote!(once, a = 1), true),
            (vec!["a".to_owned()], false)
        );
        assert_eq!(names(quote!(once), false), (vec!["once".to_owned()], true));
    }

    /// Every kind of string literal starts the message (fields stop
    /// there), and nothing else does: a byte string, a number, a name.
    #[test]
    fn string_literals_of_every_kind_are_recognised() {
        let peek = |tokens: TokenStream| {
            let parse = |input: ParseStream| {
                let p = peek_str(input);
                let _: TokenStream = input.parse()?;
                Ok(p)
            };
            parse.parse2(tokens).unwrap()
        };
        for s in [
            quote!("a {}"),
            quote!(r"a\b"),
            quote!(r#"say "hi""#),
            quote!(""),
        ] {
            assert!(peek(s.clone()), "{s}");
            let fields = |input: ParseStream| {
                let (f, _) = parse_fields(input, true)?;
                let _: TokenStream = input.parse()?;
                Ok(f.len())
            };
            assert_eq!(fields.parse2(quote!(a = 1, #s)).unwrap(), 1, "{s}");
        }
        for other in [quote!(b"a"), quote!(1), quote!(x), quote!(c"a"), quote!()] {
            assert!(!peek(other.clone()), "{other}");
        }
    }
}
