//! A log site's record: built from the site's message (its format and
//! arguments, or text rendered on the caller) and its present fields, then
//! handed to [`dispatch`](crate::dispatch) along the route
//! [`route`](crate::route) decided. Not generic and not inlined: one copy
//! serves every site, which only builds its arguments and fields.

use crate::dispatch::{dispatch_log, dispatch_to, Route};
use crate::record::message::Message;
use crate::record::metadata::Metadata;
use crate::record::raw::{MessageFormat, RawArg, RawMessage};
use crate::record::value::present_then;
use crate::runtime::route;
use crate::site::callsite::Callsite;

/// The cold path of a log site with message arguments: the record, with
/// its raw view when every argument is held by value, built from the
/// site's message format, its present fields, and dispatched. Not generic
/// and not inlined: one copy serves every site, which only builds its
/// arguments and fields.
#[inline(never)]
pub fn dispatch_message(
    route: Route,
    meta: &'static Metadata,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    with_fields(kv, |fields| {
        message_record(route, meta, level, fields, format, args)
    })
}

/// [`dispatch_message`] for a common site whose format has pieces (the
/// macro knows), after its [`hit`](crate::runtime::route::hit): the route
/// is the callsite's again, found here rather than passed through the
/// site's code. It can only differ from the hot check's if the
/// configuration changed in between; the record then goes where the new
/// one sends it, or nowhere.
#[inline(never)]
pub fn dispatch_message_at(
    cs: &'static Callsite,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    debug_assert!(
        format.split().is_ok(),
        "a decoded format goes to dispatch_decoded_at"
    );
    if route::configured_for(cs, level.as_u8()) {
        with_fields(kv, |fields| {
            data_record(Route::All, &cs.meta, level, fields, format, args)
        })
    } else {
        // A tail call with the same arguments: the fast path above keeps
        // nothing across a call, so it saves no registers.
        message_rerouted(cs, level, kv, format, args)
    }
}

/// [`dispatch_message_at`] for a format only its decoder renders.
#[inline(never)]
pub fn dispatch_decoded_at(
    cs: &'static Callsite,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    if route::configured_for(cs, level.as_u8()) {
        dispatch_message(Route::All, &cs.meta, level, kv, format, args)
    } else {
        message_rerouted(cs, level, kv, format, args)
    }
}

/// [`dispatch_message_at`] and [`dispatch_decoded_at`] for a site the
/// configuration does not want (a capture raised it, or the configuration
/// changed after its hot check).
#[cold]
#[inline(never)]
fn message_rerouted(
    cs: &'static Callsite,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    if let Some(route) = route::of_site(cs, level.as_u8()) {
        dispatch_message(route, &cs.meta, level, kv, format, args)
    }
}

/// The record of `dispatch_message`, built where the message is: straight
/// in this frame for a data format (no closure, no indirect call), in the
/// decoder's callback otherwise.
#[inline(always)]
fn message_record(
    route: Route,
    meta: &'static Metadata,
    level: crate::record::level::Level,
    fields: &[crate::record::value::Field<'_>],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    match format.split() {
        Ok(_) => data_record(route, meta, level, fields, format, args),
        Err(decode) => decoded_record(route, meta, level, fields, format, decode, args),
    }
}

/// The record of a format with pieces: the pieces and arguments as they
/// are, no `fmt::Arguments` for a record no sink formats.
#[inline(always)]
fn data_record(
    route: Route,
    meta: &'static Metadata,
    level: crate::record::level::Level,
    fields: &[crate::record::value::Field<'_>],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    dispatch_log(
        route,
        &crate::record::Record::of_message(
            meta,
            level,
            Message::data(RawMessage::new(format, args)),
            fields,
        ),
    )
}

/// [`message_record`] for a format only `fmt` renders: the record is built
/// in the site's decoder callback. Out of line, so the data format's path
/// does not set up this closure's captures.
#[inline(never)]
fn decoded_record(
    route: Route,
    meta: &'static Metadata,
    level: crate::record::level::Level,
    fields: &[crate::record::value::Field<'_>],
    format: &'static MessageFormat,
    decode: crate::record::raw::RawDecode,
    args: &[RawArg<'_>],
) {
    let raw = Some(RawMessage::new(format, args));
    decode(args, &mut |message| {
        dispatch_log(
            route,
            &crate::record::Record::new(meta, level, message, fields).with_raw(raw),
        )
    })
}

/// The cold path of a telemetry event: its record's message is the
/// event's name (the site's `Metadata::name`), its fields those present in
/// `kv`. Not generic; `#[inline]`, so an optimised build folds it into
/// the site's cold closure, where the fields' presence is known (an
/// unoptimised one calls one copy).
#[inline]
pub fn dispatch_event(
    route: Route,
    meta: &'static Metadata,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
) {
    with_fields(kv, |fields| {
        let message = Message::text(meta.name());
        dispatch_to(
            route,
            &crate::record::Record::of_message(
                meta,
                crate::record::level::Level::Info,
                message,
                fields,
            ),
        )
    })
}

/// The cold path of a log site whose message is rendered on the caller (no
/// arguments, or a format the raw path does not take). Not generic.
#[inline(never)]
pub fn dispatch_text(
    route: Route,
    meta: &'static Metadata,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    message: core::fmt::Arguments<'_>,
) {
    with_fields(kv, |fields| {
        text_record(route, meta, level, fields, message)
    })
}

/// The record of a message rendered on the caller. Its callers each
/// write their own `with_fields` closure around it: one closure shared by
/// two callers is kept out of line, a call more per record.
#[inline(always)]
fn text_record(
    route: Route,
    meta: &'static Metadata,
    level: crate::record::level::Level,
    fields: &[crate::record::value::Field<'_>],
    message: core::fmt::Arguments<'_>,
) {
    dispatch_log(
        route,
        &crate::record::Record::new(meta, level, message, fields),
    )
}

/// [`dispatch_text`] for a common site, as [`dispatch_message_at`].
#[inline(never)]
pub fn dispatch_text_at(
    cs: &'static Callsite,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    message: core::fmt::Arguments<'_>,
) {
    if route::configured_for(cs, level.as_u8()) {
        // The record built here, not in a call of `dispatch_text`.
        with_fields(kv, |fields| {
            text_record(Route::All, &cs.meta, level, fields, message)
        })
    } else {
        text_rerouted(cs, level, kv, message)
    }
}

/// [`dispatch_text_at`] for a site the configuration does not want.
#[cold]
#[inline(never)]
fn text_rerouted(
    cs: &'static Callsite,
    level: crate::record::level::Level,
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    message: core::fmt::Arguments<'_>,
) {
    if let Some(route) = route::of_site(cs, level.as_u8()) {
        dispatch_text(route, &cs.meta, level, kv, message)
    }
}

/// Runs `emit` on the present fields of `kv`: directly when the site has
/// none, else after leaving out the absent ones (no indirect call).
#[inline(always)]
fn with_fields(
    kv: &[(&'static str, Option<crate::record::value::Value<'_>>)],
    emit: impl FnOnce(&[crate::record::value::Field<'_>]),
) {
    if kv.is_empty() {
        emit(&[])
    } else {
        present_then(kv, emit)
    }
}
