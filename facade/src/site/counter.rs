//! Always-on counters: one thread-local load, a test, and an unlocked add
//! into a shard only this thread writes. No clock, no lock, no locked
//! instruction.
//!
//! A `counter!` site owns a small static [`Counter`] and a thread-local
//! [`ShardCell`]. On a thread's first hit of the site, the cold path
//! ([`Counter::add`] -> `add_first`) registers the site (once, in the same
//! kind of lock-free list as call sites, `registry`), allocates its shards
//! (once), and points the thread's cell at the shard of the thread's *slot*.
//! Every later hit is `cell != null` then a relaxed load and a relaxed store
//! of that shard (x86 folds them into one unlocked `add`): only the slot's
//! owner ever writes it, so nothing is lost without a locked instruction.
//! Readers ([`counters`], [`counter_value`]) sum every shard with relaxed
//! loads, so totals can be read while threads count, and are exact once the
//! writers are joined.
//!
//! Slots: a thread claims one of [`SLOTS`] on its first hit of any counter
//! and keeps it until it exits. At exit (its thread-local destructor), it
//! clears the cells it set, so a late hit from another destructor takes the
//! shared path, and then releases the slot (release ordering; a thread that
//! claims it later acquires it, so it continues from the exact value). Counts
//! stay in the shards: nothing is lost when a thread exits. A thread that
//! finds every slot taken (more than [`SLOTS`] threads count at once), or
//! counts while being torn down, adds to the site's shared shard with an
//! atomic add instead. In a forked child only the forking thread survives:
//! the fork handler frees every other slot.
//!
//! Totals wrap at `u64::MAX` (a counter is a modular sum, like the shards it
//! adds up). A site is listed by [`counters`] from its first hit on: a site
//! never hit may be absent (its total is 0).
//!
//! Statics owned here: `COUNTERS` (the registry), `USED` (claimed slots),
//! and each thread's `MY_SLOT` and `OWNER`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::thread::LocalKey;

use crate::site::registry::{Link, Linked, Registry};

/// Threads that can own a shard at once; more count through the shared
/// shard (an atomic add).
pub(crate) const SLOTS: usize = 64;

#[repr(align(64))]
struct Shard(AtomicU64);

/// A site's shards: one per slot, written by its owner only, and one shared
/// by threads without a slot.
struct Shards {
    owned: [Shard; SLOTS],
    shared: Shard,
}

/// A thread's pointer to its own shard of one site (null until the
/// thread's first hit there). The macro gives each site one, in a
/// `thread_local!` with a `const` initialiser, so a hit reads it with one
/// plain thread-local load.
pub type ShardCell = Cell<*const AtomicU64>;

/// The state of one `counter!` site. Created by the macro.
pub struct Counter {
    /// Null until the site's first hit allocates them.
    shards: AtomicPtr<Shards>,
    link: Link<Counter>,
    name: &'static str,
    module_path: &'static str,
    file: &'static str,
    line: u32,
}

/// Every counter site hit so far.
static COUNTERS: Registry<Counter> = Registry::new();

/// The claimed slots.
static USED: Slots = Slots::new();

/// Which slots are owned by a live thread: bit i set, slot i is taken.
struct Slots(AtomicU64);

impl Slots {
    const fn new() -> Slots {
        Slots(AtomicU64::new(0))
    }

    /// Claims the lowest free slot; `None` if all are taken.
    fn claim(&self) -> Option<usize> {
        let mut used = self.0.load(Ordering::Relaxed);
        loop {
            let free = !used;
            if free == 0 {
                return None;
            }
            let i = free.trailing_zeros() as usize;
            match self.0.compare_exchange_weak(
                used,
                used | (1 << i),
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(i),
                Err(u) => used = u,
            }
        }
    }

    /// Gives slot `i` back (release: its next owner sees the shard's count).
    fn release(&self, i: usize) {
        self.0.fetch_and(!(1u64 << i), Ordering::Release);
    }

    /// Frees every slot but `mine` (a forked child's only thread).
    /// Async-signal-safe: one atomic store.
    fn keep_only(&self, mine: Option<usize>) {
        self.0
            .store(mine.map_or(0, |i| 1u64 << i), Ordering::Relaxed);
    }
}

/// Cells pointing into this thread's slot; released at thread exit.
struct Owner {
    cells: RefCell<Vec<&'static LocalKey<ShardCell>>>,
}

thread_local! {
    // This thread's slot plus one (0 = none). `const` without a destructor:
    // readable from the fork handler and during teardown.
    static MY_SLOT: Cell<usize> = const { Cell::new(0) };
    static OWNER: Owner = const { Owner { cells: RefCell::new(Vec::new()) } };
}

impl Drop for Owner {
    fn drop(&mut self) {
        // No cell may point into the slot once another thread can own it.
        for cell in self.cells.get_mut().drain(..) {
            let _ = cell.try_with(|c| c.set(ptr::null()));
        }
        if let Ok(Some(mine)) = MY_SLOT.try_with(|s| slot_of(s.replace(0))) {
            USED.release(mine);
        }
    }
}

/// The slot a `MY_SLOT` value names (it holds the slot plus one, 0 = none).
fn slot_of(my_slot: usize) -> Option<usize> {
    my_slot.checked_sub(1)
}

/// In a forked child: only the forking thread survives, so every other
/// slot is free. Async-signal-safe (a thread-local read, one atomic store).
pub(crate) fn after_fork_in_child() {
    USED.keep_only(slot_of(MY_SLOT.try_with(Cell::get).unwrap_or(0)));
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("name", &self.name)
            .field("value", &self.value())
            .finish_non_exhaustive()
    }
}

impl Linked for Counter {
    fn link(&self) -> &Link<Counter> {
        &self.link
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
            shards: AtomicPtr::new(ptr::null_mut()),
            link: Link::new(),
            name,
            module_path,
            file,
            line,
        }
    }

    /// Adds `n` (wrapping); `cell` is the site's thread-local [`ShardCell`].
    #[inline(always)]
    pub fn add(&'static self, cell: &'static LocalKey<ShardCell>, n: u64) {
        let shard = cell.with(Cell::get);
        if shard.is_null() {
            return self.add_first(cell, n);
        }
        // SAFETY: a non-null cell was set by `add_first` to a shard of a
        // `Shards` that is never freed, and it is cleared before this
        // thread gives its slot up.
        let shard = unsafe { &*shard };
        // Only this thread writes this shard: no locked instruction.
        shard.store(
            shard.load(Ordering::Relaxed).wrapping_add(n),
            Ordering::Relaxed,
        );
    }

    /// A thread's first hit of the site (or any hit without an own slot).
    #[cold]
    #[inline(never)]
    fn add_first(&'static self, cell: &'static LocalKey<ShardCell>, n: u64) {
        let shards = self.shards_or_init();
        let own = OWNER
            .try_with(|o| {
                let mine = match slot_of(MY_SLOT.with(Cell::get)) {
                    Some(i) => i,
                    None => {
                        let i = USED.claim()?;
                        MY_SLOT.with(|s| s.set(i + 1));
                        i
                    }
                };
                let shard = &shards.owned[mine].0;
                cell.with(|c| c.set(shard));
                o.cells.borrow_mut().push(cell);
                Some(shard)
            })
            .ok()
            .flatten();
        match own {
            Some(s) => s.store(s.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed),
            None => {
                shards.shared.0.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    /// The shards, allocated (and the site registered) by the first hit.
    fn shards_or_init(&'static self) -> &'static Shards {
        let cur = self.shards.load(Ordering::Acquire);
        if !cur.is_null() {
            // SAFETY: published below from a leaked box, never freed.
            return unsafe { &*cur };
        }
        let new = Box::into_raw(Box::new(Shards {
            owned: [const { Shard(AtomicU64::new(0)) }; SLOTS],
            shared: Shard(AtomicU64::new(0)),
        }));
        match self
            .shards
            .compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                COUNTERS.register(self);
                // SAFETY: just published; never freed.
                unsafe { &*new }
            }
            Err(winner) => {
                // SAFETY: `new` came from `Box::into_raw` above and was not
                // published.
                drop(unsafe { Box::from_raw(new) });
                // SAFETY: as for `cur` above.
                unsafe { &*winner }
            }
        }
    }

    /// The counter's total so far (wrapping), summed over its shards.
    pub fn value(&self) -> u64 {
        let p = self.shards.load(Ordering::Acquire);
        if p.is_null() {
            return 0;
        }
        // SAFETY: published from a leaked box, never freed.
        let shards = unsafe { &*p };
        shards
            .owned
            .iter()
            .chain([&shards.shared])
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

/// A snapshot of every counter hit so far: name -> total, sites with the
/// same name summed (wrapping). Reads relaxed values: each total is one a
/// reader could have seen, exact once the counting threads are joined. A
/// site never hit may be missing (its total is 0).
///
/// Totals wrap around at `u64::MAX`, like a single site's count does, so a
/// sum over sites never panics (not even in a debug build) and a reader
/// taking differences of two snapshots with `wrapping_sub` gets the count
/// in between.
///
/// ```
/// elide::counter!("doc.hits");
/// elide::counter!("doc.hits", 2);
/// assert_eq!(elide::counters()["doc.hits"], 3);
/// ```
pub fn counters() -> BTreeMap<&'static str, u64> {
    let mut out = BTreeMap::new();
    COUNTERS.for_each(|c| {
        let total = out.entry(c.name).or_insert(0u64);
        *total = total.wrapping_add(c.value());
    });
    out
}

/// The total of one counter name, all its sites summed (wrapping); 0 if no
/// such site was hit.
pub fn counter_value(name: &str) -> u64 {
    let mut total = 0u64;
    COUNTERS.for_each(|c| {
        if c.name == name {
            total = total.wrapping_add(c.value());
        }
    });
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests that fill or count the slots run one at a time.
    static SLOT_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

    macro_rules! site {
        ($name:ident, $cell:ident) => {
            static $name: Counter = Counter::new("unit", module_path!(), file!(), line!());
            thread_local! {
                static $cell: ShardCell = const { Cell::new(ptr::null()) };
            }
        };
    }

    /// Threads count into their own shards and nothing is lost; the total
    /// is exact after the join and includes threads that have exited.
    #[test]
    fn concurrent_adds_sum_exactly() {
        site!(C, CELL);
        let threads = 6;
        let per = if cfg!(miri) { 20 } else { 10_000 };
        let handles: Vec<_> = (0..threads)
            .map(|t| std::thread::spawn(move || (0..per).for_each(|_| C.add(&CELL, t + 1))))
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let expected: u64 = (1..=threads).map(|t| t * per).sum();
        assert_eq!(C.value(), expected);
    }

    /// A slot freed by an exiting thread is reused by the next one, which
    /// continues from the count left in the shard: sequential threads,
    /// more of them than slots, never lose a count and never run out.
    #[test]
    fn exited_threads_give_their_slot_back_and_keep_their_counts() {
        let _one = SLOT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        site!(C, CELL);
        let rounds = if cfg!(miri) { 3 } else { SLOTS as u64 + 8 };
        for _ in 0..rounds {
            std::thread::spawn(|| (0..10).for_each(|_| C.add(&CELL, 1)))
                .join()
                .unwrap();
        }
        assert_eq!(C.value(), rounds * 10);
        let p = C.shards.load(Ordering::Acquire);
        // SAFETY: non-null after a hit, never freed.
        let shared = unsafe { &(*p).shared.0 }.load(Ordering::Relaxed);
        assert_eq!(shared, 0, "each thread found a free slot");
    }

    /// More threads alive at once than slots: the extra ones count through
    /// the shared shard, and the total is still exact.
    #[test]
    #[cfg_attr(miri, ignore = "65 threads are slow under Miri")]
    fn more_threads_than_slots_share_a_shard_exactly() {
        let _one = SLOT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        site!(C, CELL);
        let threads = SLOTS as u64 + 4;
        let barrier = std::sync::Barrier::new(threads as usize);
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    C.add(&CELL, 1);
                    // Every thread holds its slot (or not) until all counted once.
                    barrier.wait();
                    (0..999).for_each(|_| C.add(&CELL, 1));
                });
            }
        });
        assert_eq!(C.value(), threads * 1000);
    }

    /// Totals wrap instead of overflowing.
    #[test]
    fn totals_wrap() {
        site!(C, CELL);
        C.add(&CELL, u64::MAX);
        std::thread::spawn(|| C.add(&CELL, 2)).join().unwrap();
        assert_eq!(C.value(), 1);
    }

    #[test]
    fn slots_are_claimed_lowest_first_and_released_one_by_one() {
        let slots = Slots::new();
        assert_eq!(
            (slots.claim(), slots.claim(), slots.claim()),
            (Some(0), Some(1), Some(2))
        );
        slots.release(1);
        assert_eq!(
            slots.0.load(Ordering::Relaxed),
            0b101,
            "only slot 1 is free again"
        );
        assert_eq!(slots.claim(), Some(1));
        for i in 3..SLOTS {
            assert_eq!(slots.claim(), Some(i));
        }
        assert_eq!(slots.claim(), None, "all {SLOTS} taken");
        slots.release(SLOTS - 1);
        assert_eq!(slots.claim(), Some(SLOTS - 1));
    }

    #[test]
    fn a_forked_child_keeps_only_the_forking_threads_slot() {
        let slots = Slots::new();
        for _ in 0..5 {
            let _ = slots.claim();
        }
        slots.keep_only(Some(3));
        assert_eq!(slots.0.load(Ordering::Relaxed), 1 << 3);
        assert_eq!(slots.claim(), Some(0));
        slots.keep_only(None);
        assert_eq!(slots.0.load(Ordering::Relaxed), 0);
        assert_eq!(slot_of(0), None);
        assert_eq!(slot_of(1), Some(0));
    }

    /// A thread's shard of every site is the one of its slot: it never
    /// writes another thread's shard (which would lose counts, the adds
    /// being unlocked).
    #[test]
    fn a_thread_adds_to_its_own_slot_at_every_site() {
        let _one = SLOT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        site!(A, CELL_A);
        site!(B, CELL_B);
        std::thread::spawn(|| {
            A.add(&CELL_A, 1);
            B.add(&CELL_B, 1);
            A.add(&CELL_A, 1);
            B.add(&CELL_B, 1);
        })
        .join()
        .unwrap();
        let counted = |c: &Counter| {
            // SAFETY: non-null after a hit, never freed.
            let shards = unsafe { &*c.shards.load(Ordering::Acquire) };
            let owned: Vec<(usize, u64)> = (0..SLOTS)
                .map(|i| (i, shards.owned[i].0.load(Ordering::Relaxed)))
                .filter(|&(_, v)| v != 0)
                .collect();
            (owned, shards.shared.0.load(Ordering::Relaxed))
        };
        let (a, b) = (counted(&A), counted(&B));
        assert_eq!(a.0.len(), 1, "one slot: {a:?}");
        assert_eq!(a, b, "the same slot at both sites");
        assert_eq!(a.0[0].1, 2);
    }

    #[test]
    fn a_counter_describes_itself() {
        static C: Counter = Counter::new("jobs.done", "my_app::queue", "src/queue.rs", 42);
        thread_local! {
            static CELL: ShardCell = const { Cell::new(ptr::null()) };
        }
        C.add(&CELL, 5);
        assert_eq!(C.name(), "jobs.done");
        assert_eq!(C.module_path(), "my_app::queue");
        assert_eq!(C.location(), ("src/queue.rs", 42));
        let debug = format!("{C:?}");
        assert!(
            debug.starts_with("Counter { name: \"jobs.done\", value: 5"),
            "{debug}"
        );
    }
}
