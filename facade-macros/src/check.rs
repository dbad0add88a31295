//! `check!(cond [, "fmt", args..])`, `check_eq!(a, b [, ..])`, `check_ne!`:
//! debug checks, run only in debug mode for the site's namespace.

use crate::expand::ELIDE;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::ParseStream;
use syn::{Expr, Token};

use crate::args;
use crate::callsite::callsite;
use crate::expand::expand;
use crate::fields;
use crate::gate::Presence;
use crate::level;
use crate::source_text::{self, Source};

/// Which comparison a check makes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CheckKind {
    /// `check!(cond)`.
    True,
    /// `check_eq!(a, b)`.
    Eq,
    /// `check_ne!(a, b)`.
    Ne,
}

impl CheckKind {
    fn operands(self) -> usize {
        match self {
            CheckKind::True => 1,
            _ => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            CheckKind::True => "check!",
            CheckKind::Eq => "check_eq!",
            CheckKind::Ne => "check_ne!",
        }
    }

    fn missing(self) -> &'static str {
        match self {
            CheckKind::True => "expected a condition: `check!(cond)`",
            CheckKind::Eq => "expected two operands: `check_eq!(left, right)`",
            CheckKind::Ne => "expected two operands: `check_ne!(left, right)`",
        }
    }
}

/// A check's arguments: `[target: ..,] operand(s) [, "fmt", args..]`, with
/// each operand's source text as written.
struct CheckArgs {
    target: Option<Expr>,
    operands: Vec<(Expr, String)>,
    message: TokenStream,
}

impl CheckArgs {
    fn parse(input: ParseStream, kind: CheckKind, source: Option<&Source>) -> syn::Result<Self> {
        let start = input.cursor();
        let target = args::parse_target(input)?;
        let mut operands = Vec::new();
        for _ in 0..kind.operands() {
            if input.is_empty() {
                return Err(syn::Error::new(input.span(), kind.missing()));
            }
            let (e, first, count) =
                source_text::parse_counted(input, start, |i| i.parse::<Expr>())?;
            let text = source_text::text_or_tokens(source, first, count, &e);
            operands.push((e, text));
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        if !input.is_empty() && !crate::args::peek_str(input) {
            return Err(input.error(
                "expected the message as a format string literal: `check!(cond, \"x = {}\", x)`",
            ));
        }
        let message = match args::parse_format(input)? {
            (Some(lit), rest) => quote!(::core::format_args!(#lit #rest)),
            (None, _) => quote!(::core::format_args!("")),
        };
        Ok(CheckArgs {
            target,
            operands,
            message,
        })
    }

    /// The condition's text and the expression that yields the failure
    /// details (`None` when the check holds).
    fn verdict(&self, kind: CheckKind) -> (String, TokenStream) {
        match kind {
            CheckKind::True => {
                let (c, text) = &self.operands[0];
                (
                    text.clone(),
                    quote! {{
                        let __elide_ok: bool = #c;
                        if __elide_ok {
                            ::core::option::Option::None
                        } else {
                            ::core::option::Option::Some(::std::string::String::new())
                        }
                    }},
                )
            }
            CheckKind::Eq | CheckKind::Ne => {
                let ((l, lt), (r, rt)) = (&self.operands[0], &self.operands[1]);
                let (op, f) = match kind {
                    CheckKind::Eq => ("==", quote!(check_eq_details)),
                    _ => ("!=", quote!(check_ne_details)),
                };
                (
                    format!("{lt} {op} {rt}"),
                    quote! {
                        match (&(#l), &(#r)) {
                            (__elide_l, __elide_r) => #ELIDE::__private::#f(__elide_l, __elide_r),
                        }
                    },
                )
            }
        }
    }
}

/// Expands a check macro.
pub(crate) fn check(input: TokenStream, kind: CheckKind) -> TokenStream {
    let source = Source::of_call(&input);
    expand(input, |input| {
        let a = CheckArgs::parse(input, kind, source.as_ref())?;
        fields::require_static_target(&a.target, kind.name())?;
        let target = fields::target_tokens(&a.target);
        let message = &a.message;
        let (text, verdict) = a.verdict(kind);
        let cs = callsite("Check", level::ERROR.name, &target, &quote!(#text));
        let on = level::interest_on();
        let live = quote! {{
            #cs
            if #on <= #ELIDE::__private::Callsite::interest(&__ELIDE_CS) {
                #ELIDE::__private::check(
                    &__ELIDE_CS,
                    || #verdict,
                    |__elide_f: &mut dyn ::core::ops::FnMut(::core::fmt::Arguments<'_>)| __elide_f(#message),
                );
            }
        }};
        let dead = quote! {
            if false {
                let _: &'static str = #target;
                let _ = #verdict;
                let _ = #message;
            }
        };
        Ok(Presence::checks(&a.target)?.select(live, || dead))
    })
}
