//! The `macro_rules!` templates a log site expands through.
//!
//! `elide-macros` parses a site and decides its shape (the message's pieces,
//! which formatting trait each argument uses, the fields' kinds, the static
//! gate); the boilerplate around those decisions (the site's `static`, its
//! hot check and cold closure, the record built and dispatched) is in these
//! templates, which the compiler expands itself. A procedural macro pays for every
//! token it hands back to the compiler; handing back a short invocation
//! instead of the expanded record cut an incremental build of 1,000 sites
//! by about a third (BENCHMARKS.md, "Build cost").
//!
//! Only items are named by a template (`static __ELIDE_CS`,
//! `__ELIDE_FORMAT`): items are visible to the tokens of the same
//! expansion, where a local a template introduced would be hygienic and
//! invisible to them.

/// A site whose existence the features alone decide (no build-time filter
/// rule covers it): `$live` where the calling crate's kind of build keeps
/// sites of kind `$kind` (`INFO`, `CHECKS`, ..), else `$off`. The condition
/// is constant (`cfg!` is a literal), so the branch not taken leaves no
/// code at any opt-level; `cfg!` here is the calling crate's, as it is
/// expanded there. (`__elide_log_site!` writes the same condition itself.)
/// Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __elide_gate {
    ($kind:ident { $($live:tt)* } { $($off:tt)* }) => {
        if (::core::cfg!(debug_assertions) && $crate::__private::gates::$kind::DEBUG)
            || (::core::cfg!(not(debug_assertions)) && $crate::__private::gates::$kind::RELEASE)
        {
            $($live)*
        } else {
            $($off)*
        }
    };
}

/// A common log site (constant target, no sampling) whose existence the
/// features alone decide, whole: the static gate of level `$kind`'s
/// constants, the site's `static Callsite` (its metadata by
/// `Metadata::log_in_module`, or `Metadata::log_at` with the `($target)`
/// given: the module path asked of the compiler once, no kind or name
/// written per site), its hot check and the record in its cold closure
/// (`__elide_record!($mode $f (&__ELIDE_CS) (level) ..)`). The
/// procedural macro hands back this one short call, mostly as text; the
/// gate and the site are written here rather than by `__elide_gate!` and
/// a template of their own, as each nested call would cost the compiler
/// about as much again. Not public API.
///
/// The gate is written out as `__elide_gate!` writes it: `&&` and `||` of
/// constants, which the compiler lowers to branches on the constants
/// themselves, removed at opt-level 0. (One `cfg!` choosing between the two
/// constants, `if if cfg!(..) { DEBUG } else { RELEASE }`, saves the
/// compiler about 4 M instructions in 300 sites, but its value goes through
/// a temporary, which opt-level 0 folds only where it is used once: a
/// `debug_mode!()` block then kept its code; fixture test `static_gate`.)
///
/// The closure takes nothing: the record's dispatch (`dispatch_message_at`,
/// `dispatch_text_at`) finds the route from the `static` itself, so in an
/// unoptimised build the site is a call, a branch and the closure's call.
/// `file!`, `line!` and `module_path!` here name the user's call site:
/// they resolve at the outermost macro invocation.
#[doc(hidden)]
#[macro_export]
macro_rules! __elide_log_site {
    ($kind:ident $level:ident $needed:ident $meta:ident $(($target:expr))?
        $mode:ident $f:ident $($record:tt)*) => {
        if (::core::cfg!(debug_assertions) && $crate::__private::gates::$kind::DEBUG)
            || (::core::cfg!(not(debug_assertions)) && $crate::__private::gates::$kind::RELEASE)
        {
            static __ELIDE_CS: $crate::__private::Callsite =
                $crate::__private::Callsite::new($crate::__private::Metadata::$meta(
                    $crate::Level::$level,
                    $($target,)?
                    ::core::module_path!(),
                    ::core::file!(),
                    ::core::line!(),
                ));
            if $crate::__private::hit(&__ELIDE_CS, $crate::__private::$needed) {
                // Attributes on a closure are allowed in a tuple element;
                // called on the temporary, so an `FnMut` closure needs no
                // `mut` binding. `#[cold]` keeps the branch unlikely; the
                // optimiser may inline the closure: in a loop the record's
                // arguments are then built in place (about 4 instructions
                // less per record) while the disabled path stays a load, a
                // compare and a branch; elsewhere it stays a call.
                ((#[cold] || {
                    $crate::__private::record!(
                        $mode $f (&__ELIDE_CS) ($crate::Level::$level) $($record)*
                    )
                },).0)();
            }
        }
    };
}

/// Builds a log site's record and dispatches it through `__private::$f`,
/// whose leading arguments are `$dest`: the site's callsite for the `_at`
/// functions (a common site), the route and metadata for the others (a
/// site whose closure got them). Not public API.
///
/// - `plain`: the message rendered on the caller (`format_args!`).
/// - `raw`: the arguments offered raw, each captured by `$m` (spanned at
///   its argument), whose bound is the site's check that the argument has
///   its placeholder's trait; the message format is the constant
///   `MessageFormat::pieces` of `pieces [Lit(".."), Display(0u8), ..]`,
///   or, for a format only `fmt` renders, `MessageFormat::decode` of
///   `decode [] (f) fn f(..) {..}`, the site's decoder item last. No
///   nested template: a template's call costs the compiler about as much
///   again as the expansion it writes.
#[doc(hidden)]
#[macro_export]
macro_rules! __elide_record {
    (plain $f:ident ($($dest:expr),*) ($level:expr)
        [$($key:literal = $value:expr),*] ($($message:tt)*)) => {
        $crate::__private::$f(
            $($dest,)* $level,
            &[$(($key, $value)),*],
            ::core::format_args!($($message)*),
        )
    };
    (raw $f:ident ($($dest:expr),*) ($level:expr)
        [$($key:literal = $value:expr),*]
        [$($m:ident $e:expr,)*]
        $ctor:ident [$($k:ident($v:expr)),*] $(($decode:ident) $decoder:item)?) => {{
        $($decoder)?
        // Each piece's variant named in full here, so the site needs no
        // `use` of them (a scope of its own for name resolution).
        static __ELIDE_FORMAT: $crate::__private::MessageFormat =
            $crate::__private::MessageFormat::$ctor(
                &[$($crate::__private::Piece::$k($v)),*] $(, $decode)?
            );
        $crate::__private::$f(
            $($dest,)* $level,
            &[$(($key, $value)),*],
            &__ELIDE_FORMAT,
            &[$($crate::__private::RawWrap(&($e)).$m()),*],
        )
    }};
}
