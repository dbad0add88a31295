//! The user guide: the whole contract of elide, one chapter per module.
//! These modules hold documentation only.
//!
//! - [`call_sites`]: the macros and their argument syntax.
//! - [`configuration`]: the environment cascade, keys and values,
//!   [`init_ns`](crate::init_ns), precedence, what a bad value does.
//! - [`migrating`]: from `log` or `tracing`: the forms and what they map
//!   to, renaming the dependency, and what a library on elide does with no
//!   setup.
//! - [`features`]: the cargo features of the static gate, and the
//!   optional parts (`async`, `prof`) a console-only program leaves out.
//! - [`sinks`]: where records go, and what each sink guarantees.
//! - [`telemetry`]: events, counters, timed scopes (`scope!`, `#[timed]`),
//!   the `.prof` file and OpenTelemetry export.
//! - [`testing`]: capturing what the code under test logs, per test, in
//!   parallel tests.

#[doc = include_str!("guide/call_sites.md")]
pub mod call_sites {}

#[doc = include_str!("guide/configuration.md")]
pub mod configuration {}

#[doc = include_str!("guide/features.md")]
pub mod features {}

#[doc = include_str!("guide/migrating.md")]
pub mod migrating {}

#[doc = include_str!("guide/sinks.md")]
pub mod sinks {}

#[doc = include_str!("guide/telemetry.md")]
pub mod telemetry {}

#[doc = include_str!("guide/testing.md")]
pub mod testing {}
