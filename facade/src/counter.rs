//! Always-on counters: a relaxed add on a sharded slot, no clock, no lock.
//!
//! Each `counter!` site owns a static [`Counter`] of cache-line-padded
//! shards; a thread adds to the shard it was assigned on its first hit, so
//! threads do not all write one cache line. Sites are collected at link time
//! (`linkme`), so a hit never checks whether the site is registered; a
//! snapshot ([`counters`]) sums the shards off the hot path.
//!
//! Statics owned here: `COUNTERS` (every site, collected by the linker),
//! `NEXT_SHARD` and each thread's `SHARD_OFFSET`.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use linkme::distributed_slice;

const SHARDS: usize = 16;

#[repr(align(64))]
struct Shard(AtomicU64);

/// The state of one `counter!` site. Created by the macro.
pub struct Counter {
    shards: [Shard; SHARDS],
    name: &'static str,
    module_path: &'static str,
    file: &'static str,
    line: u32,
}

/// Every `counter!` site in the program.
#[distributed_slice]
pub static COUNTERS: [Counter];

thread_local! {
    // Byte offset of this thread's shard plus one shard (0 = not assigned
    // yet), so the hot path is one TLS load, a test and one locked add.
    static SHARD_OFFSET: Cell<usize> = const { Cell::new(0) };
}

static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("name", &self.name)
            .field("value", &self.value())
            .finish_non_exhaustive()
    }
}

impl Counter {
    /// A counter at zero.
    pub const fn new(
        name: &'static str,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Counter {
        Counter {
            shards: [const { Shard(AtomicU64::new(0)) }; SHARDS],
            name,
            module_path,
            file,
            line,
        }
    }

    /// Adds `n`.
    #[inline(always)]
    pub fn add(&self, n: u64) {
        let off = SHARD_OFFSET.with(Cell::get);
        if off == 0 {
            return self.add_first(n);
        }
        // SAFETY: `off` is `(i + 1) * size_of::<Shard>()` for some i < SHARDS,
        // set only by `add_first`, so `off - size_of::<Shard>()` is the byte
        // offset of shard i inside `self.shards`.
        let shard = unsafe {
            &*(self.shards.as_ptr() as *const u8)
                .add(off - std::mem::size_of::<Shard>())
                .cast::<Shard>()
        };
        shard.0.fetch_add(n, Ordering::Relaxed);
    }

    #[cold]
    #[inline(never)]
    fn add_first(&self, n: u64) {
        let i = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS;
        SHARD_OFFSET.with(|o| o.set((i + 1) * std::mem::size_of::<Shard>()));
        self.add(n)
    }

    /// The counter's total so far.
    pub fn value(&self) -> u64 {
        self.shards
            .iter()
            .fold(0u64, |a, s| a.wrapping_add(s.0.load(Ordering::Relaxed)))
    }
    /// The name given at the site.
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// Module path of the site.
    pub fn module_path(&self) -> &'static str {
        self.module_path
    }
    /// File and line of the site.
    pub fn location(&self) -> (&'static str, u32) {
        (self.file, self.line)
    }
}

/// A snapshot of every counter: name -> total, sites with the same name
/// summed. Reads relaxed values; each total is one a reader could have seen.
///
/// ```
/// elide::counter!("doc.hits");
/// elide::counter!("doc.hits", 2);
/// assert_eq!(elide::counters()["doc.hits"], 3);
/// ```
pub fn counters() -> BTreeMap<&'static str, u64> {
    let mut out = BTreeMap::new();
    for c in COUNTERS.iter() {
        *out.entry(c.name).or_insert(0u64) += c.value();
    }
    out
}

/// The total of one counter name (0 if no such site exists).
pub fn counter_value(name: &str) -> u64 {
    COUNTERS
        .iter()
        .filter(|c| c.name == name)
        .map(Counter::value)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every thread lands in a valid shard (the hot path's unchecked
    /// offset) and nothing is lost across shards.
    #[test]
    fn concurrent_adds_sum_exactly_across_shards() {
        static C: Counter = Counter::new("unit", module_path!(), file!(), line!());
        let threads = SHARDS + 3; // more threads than shards: some share
        let per = if cfg!(miri) { 20 } else { 10_000 };
        let handles: Vec<_> = (0..threads)
            .map(|t| std::thread::spawn(move || (0..per).for_each(|_| C.add(t as u64 + 1))))
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let expected: u64 = (1..=threads as u64).map(|t| t * per).sum();
        assert_eq!(C.value(), expected);
    }
}
