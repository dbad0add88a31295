//! `span!(level, "name", fields)` and `trace_span!` .. `error_span!`:
//! `tracing`-style spans, gated like a log site of their level.
//!
//! Live, as an expression of type `Span`:
//! ```text
//! static __ELIDE_CS: Callsite = ..;        // kind Log, the span's level, "<name>"
//! static __ELIDE_TCS: Callsite = ..;       // kind Telemetry, "<name>_start"
//! static __ELIDE_STOP: Metadata = ..;      // "<name>_stop"
//! if LEVEL <= __ELIDE_CS.interest() {      // the one load
//!     open_span(&__ELIDE_CS, LEVEL, Some((&__ELIDE_TCS, &__ELIDE_STOP)), &mut |f| f(&[fields]))  // cold
//! } else { Span::none() }
//! ```
//! The telemetry pair is left out where telemetry is statically off.
//! Statically off, the site is `Span::none()` after a dead type check of
//! its arguments.

use crate::expand::ELIDE;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::ParseStream;
use syn::{Expr, LitStr, Token};

use crate::args::{self, Field};
use crate::callsite::{callsite, telemetry_metadata};
use crate::expand::expand;
use crate::fields;
use crate::gate::Presence;
use crate::level::Level;
use crate::log_site::{fixed_level, with_level_path};

/// A span site: its namespace, level, name and fields.
pub(crate) struct SpanSite {
    pub(crate) target: Option<Expr>,
    pub(crate) level: Level,
    pub(crate) name: LitStr,
    pub(crate) fields: Vec<Field>,
}

/// `[target: ..,] [parent: ..,]` before a span's level or name. `parent:`
/// is type-checked only: a span's parent is the span current where it
/// opens.
fn parse_prefix(input: ParseStream) -> syn::Result<(Option<Expr>, Option<Expr>)> {
    let mut target = None;
    let mut parent = None;
    loop {
        if target.is_none() {
            if let Some(t) = args::parse_target(input)? {
                target = Some(t);
                continue;
            }
        }
        if parent.is_none() && input.peek(syn::Ident) && input.peek2(Token![:]) {
            let ident: syn::Ident = input.fork().parse()?;
            if ident == "parent" {
                input.parse::<syn::Ident>()?;
                input.parse::<Token![:]>()?;
                parent = Some(input.parse()?);
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
                continue;
            }
        }
        return Ok((target, parent));
    }
}

/// The arguments of one span macro, with `parent:` kept for its type check.
struct Parsed {
    site: SpanSite,
    parent: Option<Expr>,
    level_path: Option<Expr>,
}

fn parse(input: ParseStream, fixed: Option<Level>) -> syn::Result<Parsed> {
    let (target, parent) = parse_prefix(input)?;
    let (level, level_path) = match fixed {
        Some(l) => (l, None),
        None => {
            let e: Expr = input.parse()?;
            let Some(l) = fixed_level(&e) else {
                return Err(syn::Error::new_spanned(
                    e,
                    "`span!` needs a fixed level, as a path: `span!(Level::INFO, \"name\", ..)`",
                ));
            };
            input.parse::<Token![,]>()?;
            (l, Some(e))
        }
    };
    let (name, fields) =
        args::parse_name_and_fields(input, "span", "info_span!(\"request\", id = ..)")?;
    Ok(Parsed {
        site: SpanSite {
            target,
            level,
            name,
            fields,
        },
        parent,
        level_path,
    })
}

/// Expands `span!` (`fixed` `None`) and `trace_span!` .. `error_span!`.
pub(crate) fn span(fixed: Option<Level>, input: TokenStream) -> TokenStream {
    expand(input, |input| {
        let p = parse(input, fixed)?;
        let mut site = site_tokens(&p.site)?;
        if let Some(parent) = &p.parent {
            site = quote! {{
                if false { let _ = &(#parent); }
                #site
            }};
        }
        Ok(match &p.level_path {
            Some(path) => with_level_path(p.site.level, path, site),
            None => site,
        })
    })
}

/// The expression of type `Span` for a site.
pub(crate) fn site_tokens(s: &SpanSite) -> syn::Result<TokenStream> {
    fields::require_static_target(&s.target, "span!")?;
    let target = fields::target_tokens(&s.target);
    let name = s.name.value();
    let cs = callsite("Log", s.level.name, &target, &quote!(#name));
    let needed = s.level.number_tokens();
    let (start, stop) = (format!("{name}_start"), format!("{name}_stop"));
    let telemetry = match Presence::telemetry(&s.target)?.known() {
        Some((false, false)) => quote!(::core::option::Option::None),
        known => {
            let start_meta = telemetry_metadata(&target, &start);
            let stop_meta = telemetry_metadata(&target, &stop);
            let some = quote! {
                ::core::option::Option::Some((&__ELIDE_TCS, &__ELIDE_STOP))
            };
            let pick = match known {
                Some((true, true)) => some,
                _ => {
                    let c = Presence::telemetry(&s.target)?.condition();
                    quote!(if #c { #some } else { ::core::option::Option::None })
                }
            };
            quote! {{
                static __ELIDE_TCS: #ELIDE::__private::Callsite =
                    #ELIDE::__private::Callsite::new(#start_meta);
                static __ELIDE_STOP: #ELIDE::__private::Metadata = #stop_meta;
                #pick
            }}
        }
    };
    let call = fields::call_with_fields(&s.fields, quote!(__elide_f));
    let live = quote! {{
        #cs
        if #needed <= #ELIDE::__private::Callsite::interest(&__ELIDE_CS) {
            #ELIDE::__private::open_span(
                &__ELIDE_CS,
                #needed,
                #telemetry,
                &mut |__elide_f: &mut dyn ::core::ops::FnMut(&[#ELIDE::Field<'_>])| #call,
            )
        } else {
            #ELIDE::Span::none()
        }
    }};
    let checks = fields::fields_typecheck(&s.fields);
    let dead = quote! {{
        if false {
            let _: &'static str = #target;
            #checks
        }
        #ELIDE::Span::none()
    }};
    Ok(Presence::for_level(s.level, &s.target)?.select_valued(live, || dead))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level;
    use syn::parse::Parser;

    fn parsed(fixed: Option<Level>, tokens: TokenStream) -> Result<(String, String), String> {
        (|input: ParseStream| parse(input, fixed))
            .parse2(tokens)
            .map(|p| (p.site.level.name.to_string(), p.site.name.value()))
            .map_err(|e| e.to_string())
    }

    /// tracing's forms: target and parent first, the level as a path,
    /// then the name and fields; a level only known at run time is
    /// refused with the form to use.
    #[test]
    fn tracing_forms_parse() {
        assert_eq!(
            parsed(None, quote!(Level::DEBUG, "req", id = 3)).unwrap(),
            ("Debug".into(), "req".into())
        );
        assert_eq!(
            parsed(
                Some(level::WARN),
                quote!(target: "t", parent: None, "w", ?x)
            )
            .unwrap(),
            ("Warn".into(), "w".into())
        );
        let e = parsed(None, quote!(lvl, "req")).unwrap_err();
        assert!(e.contains("fixed level"), "{e}");
        let e = parsed(Some(level::INFO), quote!("req", "msg {}", 1)).unwrap_err();
        assert!(e.contains("fields only"), "{e}");
    }
}
