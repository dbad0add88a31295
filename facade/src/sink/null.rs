//! A sink that accepts records and discards them.

use crate::record::Record;
use crate::sink::Sink;
use crate::LevelFilter;

/// Accepts every record up to its level and does nothing with it. Useful to
/// measure the cost of the facade itself, or to silence output while keeping
/// sites enabled.
#[derive(Debug, Clone, Copy)]
pub struct NullSink {
    level: LevelFilter,
}

impl NullSink {
    /// A null sink accepting every level.
    pub fn new() -> NullSink {
        NullSink {
            level: LevelFilter::Trace,
        }
    }
    /// Sets the most verbose level accepted.
    pub fn with_level(mut self, level: LevelFilter) -> NullSink {
        self.level = level;
        self
    }
}

impl Default for NullSink {
    fn default() -> Self {
        NullSink::new()
    }
}

impl Sink for NullSink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    #[inline]
    fn emit(&self, _record: &Record<'_>) {}
}
