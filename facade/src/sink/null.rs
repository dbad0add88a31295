//! A sink that accepts records and discards them.

use crate::record::level::LevelFilter;
use crate::record::Record;
use crate::sink::Sink;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_null_sink_takes_the_level_it_is_given() {
        assert_eq!(NullSink::new().max_level(), LevelFilter::Trace);
        assert_eq!(NullSink::default().max_level(), LevelFilter::Trace);
        let sink = NullSink::new().with_level(LevelFilter::Warn);
        assert_eq!(sink.max_level(), LevelFilter::Warn);
    }
}
