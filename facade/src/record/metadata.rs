//! Static facts about a call site, fixed at compile time.

use crate::record::level::Level;

/// What a call site does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A log site (`error!` .. `trace!`, `log!`).
    Log,
    /// A debug check (`check!`, `check_eq!`, `#[checked]`); runs only in debug mode.
    Check,
    /// A telemetry event (`telemetry!`); emits only when telemetry is on.
    Telemetry,
}

/// Static description of one call site: where it is and what it is.
///
/// The macros build one per site, inside a `static`, so none of this is
/// assembled at run time.
#[derive(Debug)]
pub struct Metadata {
    kind: Kind,
    level: Level,
    target: &'static str,
    module_path: &'static str,
    file: &'static str,
    line: u32,
    name: &'static str,
}

impl Metadata {
    /// Describes a site. Used by the macros; `name` is the event name of a
    /// telemetry site and the condition text of a check, empty for logs.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        kind: Kind,
        level: Level,
        target: &'static str,
        module_path: &'static str,
        file: &'static str,
        line: u32,
        name: &'static str,
    ) -> Metadata {
        Metadata {
            kind,
            level,
            target,
            module_path,
            file,
            line,
            name,
        }
    }

    /// [`new`](Metadata::new) for a log site whose target is its module path
    /// (the macros' default): the module path written once, so a site's
    /// expansion asks the compiler for it once, and no kind or name.
    #[doc(hidden)]
    pub const fn log_in_module(
        level: Level,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Metadata {
        Metadata::new(Kind::Log, level, module_path, module_path, file, line, "")
    }

    /// [`new`](Metadata::new) for a log site with a target of its own.
    #[doc(hidden)]
    pub const fn log_at(
        level: Level,
        target: &'static str,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Metadata {
        Metadata::new(Kind::Log, level, target, module_path, file, line, "")
    }

    /// The site's kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// The level written at the site (for `log!` with a run-time level, the
    /// record carries the actual one).
    pub fn level(&self) -> Level {
        self.level
    }
    /// The namespace the site's configuration is looked up under; by default
    /// the module path.
    pub fn target(&self) -> &'static str {
        self.target
    }
    /// `module_path!()` at the site.
    pub fn module_path(&self) -> &'static str {
        self.module_path
    }
    /// `file!()` at the site.
    pub fn file(&self) -> &'static str {
        self.file
    }
    /// `line!()` at the site.
    pub fn line(&self) -> u32 {
        self.line
    }
    /// Event name (telemetry) or condition text (checks); empty for logs.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A log site's metadata for unit tests that build records by hand.
#[cfg(test)]
pub(crate) static TEST_LOG: Metadata = Metadata::log_in_module(Level::Info, "t", "t.rs", 1);

/// A telemetry event's metadata (event `task.start`), likewise.
#[cfg(all(test, any(feature = "json", feature = "prof")))]
pub(crate) static TEST_EVENT: Metadata = Metadata::new(
    Kind::Telemetry,
    Level::Info,
    "t",
    "t",
    "t.rs",
    1,
    "task.start",
);
