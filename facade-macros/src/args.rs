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

/// After an item: end of input or a comma.
fn finish_item(input: ParseStream) -> syn::Result<()> {
    if input.is_empty() {
        return Ok(());
    }
    input.parse::<Token![,]>().map(|_| ())
}

/// A dotted field name: `uid` or `task.uid`.
fn parse_name(input: ParseStream) -> syn::Result<(String, Span)> {
    let first: Ident = input.call(syn::ext::IdentExt::parse_any)?;
    let span = first.span();
    let mut name = first.to_string().trim_start_matches("r#").to_owned();
    while input.peek(Token![.]) {
        input.parse::<Token![.]>()?;
        let next: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        name.push('.');
        name.push_str(next.to_string().trim_start_matches("r#"));
    }
    Ok((name, span))
}

/// Parses key-value fields until a string literal (the message) or the end.
/// With `allow_sampling`, `sample = N`, `first = N`, `every = D` and `once`
/// are options instead of fields.
pub(crate) fn parse_fields(
    input: ParseStream,
    allow_sampling: bool,
) -> syn::Result<(Vec<Field>, Sampling)> {
    let mut fields = Vec::new();
    let mut sampling = Sampling::default();
    while !input.is_empty() && !input.peek(LitStr) {
        if input.peek(syn::Lit) {
            let lit: syn::Lit = input.parse()?;
            return Err(syn::Error::new_spanned(
                lit,
                "expected a format string literal (\"...\") or a field `key = value`",
            ));
        }
        if input.peek(Token![%]) || input.peek(Token![?]) {
            // `%x` / `?x`: shorthand for `x = %x` / `x = ?x`.
            let sigil = if input.peek(Token![%]) {
                input.parse::<Token![%]>()?;
                Sigil::Display
            } else {
                input.parse::<Token![?]>()?;
                Sigil::Debug
            };
            let ident: Ident = input.parse()?;
            fields.push(Field {
                name: ident.to_string(),
                sigil,
                value: syn::parse_quote!(#ident),
            });
            finish_item(input)?;
            continue;
        }
        let lookahead = input.lookahead1();
        if !lookahead.peek(Ident) {
            return Err(syn::Error::new(
                input.span(),
                "expected a field `key = value`, `key = %value`, `key = ?value`, or a format string literal",
            ));
        }
        let (name, span) = parse_name(input)?;
        if allow_sampling && name == "once" && !input.peek(Token![=]) {
            set_once(
                &mut sampling.first,
                syn::parse_quote_spanned!(span=> 1u32),
                span,
                "once",
            )?;
            finish_item(input)?;
            continue;
        }
        if !input.peek(Token![=]) {
            if name.contains('.') {
                return Err(syn::Error::new(
                    span,
                    "a dotted field name needs a value: `a.b = value`",
                ));
            }
            // `x`: shorthand for `x = x`.
            let ident = Ident::new(&name, span);
            fields.push(Field {
                name,
                sigil: Sigil::Plain,
                value: syn::parse_quote!(#ident),
            });
            finish_item(input)?;
            continue;
        }
        input.parse::<Token![=]>()?;
        let sigil = if input.peek(Token![%]) {
            input.parse::<Token![%]>()?;
            Sigil::Display
        } else if input.peek(Token![?]) {
            input.parse::<Token![?]>()?;
            Sigil::Debug
        } else {
            Sigil::Plain
        };
        if input.is_empty() || input.peek(Token![,]) {
            return Err(syn::Error::new(
                input.span(),
                format!("expected a value after `{name} =`"),
            ));
        }
        let value: Expr = input.parse()?;
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
        finish_item(input)?;
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

fn set_once(slot: &mut Option<Expr>, value: Expr, span: Span, name: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(syn::Error::new(span, format!("`{name}` given twice")));
    }
    *slot = Some(value);
    Ok(())
}

/// `sample = 0` would never emit; reject literal zeros at compile time.
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

/// The format string and everything after it.
pub(crate) fn parse_format(input: ParseStream) -> syn::Result<(Option<LitStr>, TokenStream)> {
    if input.is_empty() {
        return Ok((None, TokenStream::new()));
    }
    let lit: LitStr = input.parse()?;
    let rest: TokenStream = input.parse()?;
    Ok((Some(lit), rest))
}
