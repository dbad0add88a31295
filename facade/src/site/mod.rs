//! Call sites and what is fixed about them before run time: the
//! `callsite` each macro site declares and its resolved threshold, the
//! lock-free `registry` that sites and `counter`s join on first use, the
//! cargo features' `static_gate`, and the `namespace` of a site's target.
//! Nothing here reads the configuration or calls a sink.

pub(crate) mod callsite;
pub(crate) mod counter;
pub(crate) mod namespace;
pub(crate) mod registry;
pub(crate) mod static_gate;
