//! The installed set of sinks and delivery of records to them, with the
//! containment of sinks: a sink that panics in `emit` or `flush` is
//! counted, reported, and never reaches the caller or stops the others.
//!
//! The set lives behind `arc-swap`: emitting threads load it without locks
//! while another thread replaces it. This module knows neither call sites
//! nor initialisation: `interest` replaces the set (and rewrites the sites,
//! whose threshold is capped by the most verbose level any sink accepts).
//!
//! Besides the installed set, each thread may carry test captures
//! (`elide::testing`): sinks that receive what this thread logs, and only
//! that. A record reaches them on either [`Route`]; `Route::CapturesOnly`
//! is how a site whose level the configuration turns off still reaches a
//! capture. `CAPTURES` counts the captures entered anywhere, so `interest`
//! can raise every site while one is active.
//!
//! Statics owned here: `SINKS` (the set), `SINKS_GENERATION`, `RETIRED`
//! (replaced sets still held by some thread), `FLUSH_PANIC_REPORTED`,
//! `CAPTURES`, and the per-thread `LOCAL` cache with its `RELEASE_ON_EXIT`
//! guard, the `CAPTURING` hooks and the `EMITTING` mark.
//!
//! This folder also holds `interest`: how the installed sinks and the
//! configuration decide each site's threshold.

pub(crate) mod interest;

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwapOption;

use crate::record::level::LevelFilter;
use crate::record::metadata::Kind;
use crate::record::Record;
use crate::sink::Sink;
use crate::stats;

struct Entry {
    sink: Arc<dyn Sink>,
    /// `Arc::as_ptr(&sink)`, computed once: dereferencing an `Arc<dyn _>`
    /// costs an alignment computation from the vtable on every call.
    target: *const dyn Sink,
    // Read once at install: a sink's level is part of every site's cache,
    // so it cannot change without reinstalling anyway.
    accepts: Accepts,
}

/// Which records a sink takes, as its [`Sink`] methods answer: telemetry
/// events if it [wants telemetry](Sink::wants_telemetry), other records up
/// to its [level](Sink::max_level). The one predicate every delivery asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Accepts {
    /// The sink's most verbose level, as a level number.
    limit: u8,
    /// Whether it wants telemetry events.
    telemetry: bool,
}

impl Accepts {
    /// Asks `sink`.
    fn of(sink: &dyn Sink) -> Accepts {
        Accepts {
            limit: sink.max_level().as_u8(),
            telemetry: sink.wants_telemetry(),
        }
    }

    /// Takes nothing: the state of a thread that caches no single sink.
    const NOTHING: Accepts = Accepts {
        limit: 0,
        telemetry: false,
    };

    /// Whether the sink takes `record`.
    #[inline(always)]
    fn record(self, record: &Record<'_>) -> bool {
        takes::<true>(record, || self.limit, || self.telemetry)
    }
}

/// The predicate of [`Accepts`], reading the sink's level number and
/// telemetry switch only when the record's kind needs it: the fast path of
/// [`dispatch_to`] keeps them in thread-local cells, and loading both
/// before the branch costs it an instruction per record.
/// `ANY_KIND` false: the caller knows the record is no telemetry event
/// (a log site's), and the kind is not read.
#[inline(always)]
fn takes<const ANY_KIND: bool>(
    record: &Record<'_>,
    limit: impl FnOnce() -> u8,
    telemetry: impl FnOnce() -> bool,
) -> bool {
    if ANY_KIND && record.kind() == Kind::Telemetry {
        telemetry()
    } else {
        record.level().as_u8() <= limit()
    }
}

// SAFETY: `target` points into the `Arc` stored beside it, which is Send +
// Sync (`Sink: Send + Sync`) and lives as long as the entry.
unsafe impl Send for Entry {}
// SAFETY: as for `Send`: shared access only reads `target`, and the sink
// behind it is `Sync`.
unsafe impl Sync for Entry {}

impl Entry {
    #[inline(always)]
    fn sink(&self) -> &dyn Sink {
        // SAFETY: see the `Send`/`Sync` impls: `self.sink` keeps it alive.
        unsafe { &*self.target }
    }
}

struct SinkSet {
    entries: Vec<Entry>,
    max_level: LevelFilter,
    telemetry: bool,
}

impl SinkSet {
    fn new(sinks: Vec<Arc<dyn Sink>>) -> SinkSet {
        let entries: Vec<Entry> = sinks
            .into_iter()
            .map(|sink| Entry {
                target: Arc::as_ptr(&sink),
                accepts: Accepts::of(&*sink),
                sink,
            })
            .collect();
        let max_level = entries
            .iter()
            .map(|e| e.sink.max_level())
            .max()
            .unwrap_or(LevelFilter::Off);
        let telemetry = entries.iter().any(|e| e.accepts.telemetry);
        SinkSet {
            entries,
            max_level,
            telemetry,
        }
    }

    fn sinks(&self) -> Vec<Arc<dyn Sink>> {
        self.entries.iter().map(|e| e.sink.clone()).collect()
    }

    /// Whether the calling thread is one of the set's sinks' own (see
    /// [`Sink::is_own_thread`]): a record from it is not delivered.
    fn on_own_thread(&self) -> bool {
        self.entries.iter().any(|e| e.sink().is_own_thread())
    }
}

static SINKS: ArcSwapOption<SinkSet> = ArcSwapOption::const_empty();
/// Bumped (by [`GENERATION_STEP`], so its low two bits stay 0, and never 0) after
/// every store to `SINKS`, so threads know their cached copy is stale.
static SINKS_GENERATION: AtomicUsize = AtomicUsize::new(GENERATION_STEP);
/// Generations are multiples of 4: bits 0 and 1 of a thread's state are
/// [`BUSY`] and [`IN_CAPTURE`], so the emit path's one compare of the state
/// with `SINKS_GENERATION` also says "not re-entered, no capture here".
const GENERATION_STEP: usize = 4;
/// Set in a thread's state while it is inside [`dispatch`].
const BUSY: usize = 1;
/// Set in a thread's state while it is in a test capture.
const IN_CAPTURE: usize = 2;
/// The flag bits of a thread's state.
const FLAGS: usize = BUSY | IN_CAPTURE;
/// A thread's state when it caches no set (never a generation).
const NONE: usize = 0;

/// Replaced sets some idle thread may still hold (and write into after they
/// were flushed): flushed again at exit.
static RETIRED: std::sync::Mutex<Vec<std::sync::Weak<SinkSet>>> = std::sync::Mutex::new(Vec::new());

/// Whether a panicking `flush` was reported on stderr (once per process).
static FLUSH_PANIC_REPORTED: AtomicBool = AtomicBool::new(false);

fn retire(set: &Arc<SinkSet>) {
    let mut retired = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
    retired.retain(|w| w.strong_count() > 0);
    retired.push(Arc::downgrade(set));
}

/// Replaced sets that are still alive (held by a thread's cache), so a
/// record written into an old set after it was replaced is not left in a
/// buffer. Empty in a forked child if a thread of the parent held the list.
fn retired() -> Vec<Arc<SinkSet>> {
    crate::os::process::lock(&RETIRED)
        .map(|r| r.iter().filter_map(std::sync::Weak::upgrade).collect())
        .unwrap_or_default()
}

/// Flushes one sink, containing a panic: counted in
/// [`stats`](crate::stats), reported on stderr the first time. Whether the
/// flush returned normally.
pub(crate) fn flush_contained(sink: &dyn Sink) -> bool {
    let ok = crate::contain::contained(|| sink.flush()).is_some();
    if !ok {
        stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
        if !FLUSH_PANIC_REPORTED.swap(true, Ordering::Relaxed) {
            let _ = crate::os::process::write_stderr(
                b"elide: a sink panicked in flush; the other sinks were still flushed \
                  (further panics are counted in elide::stats())\n",
            );
        }
    }
    ok
}

/// Which sinks [`flush_all`] reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The installed set.
    Installed,
    /// The installed set and replaced sets some thread still holds.
    AlsoRetired,
}

/// Flushes every sink, each on its own: a panic in one is contained and
/// the others are still flushed. Does nothing on a thread that is inside a
/// sink (dispatching, or one of the installed sinks' own threads, see
/// [`Sink::is_own_thread`]): a sink is never re-entered from inside itself,
/// and a flush there could wait for the lock or queue this thread holds.
pub(crate) fn flush_all(reach: Reach) {
    let installed = SINKS.load_full();
    if in_dispatch() || installed.as_deref().is_some_and(SinkSet::on_own_thread) {
        return;
    }
    if let Some(set) = installed {
        set.entries.iter().for_each(|e| {
            flush_contained(&*e.sink);
        });
    }
    if reach == Reach::AlsoRetired {
        for set in retired() {
            set.entries.iter().for_each(|e| {
                flush_contained(&*e.sink);
            });
        }
    }
}

/// A set that was replaced, for [`Replaced::flush_leavers`].
pub(crate) struct Replaced {
    old: Arc<SinkSet>,
    new: Arc<SinkSet>,
}

impl Replaced {
    /// Flushes (contained) the sinks of the old set that are not in the new
    /// one.
    pub(crate) fn flush_leavers(self) {
        let kept = |s: &Arc<dyn Sink>| self.new.entries.iter().any(|e| Arc::ptr_eq(&e.sink, s));
        self.old
            .entries
            .iter()
            .filter(|e| !kept(&e.sink))
            .for_each(|e| {
                flush_contained(&*e.sink);
            });
    }
}

/// Installs `sinks` in place of the current set. The caller (`interest`)
/// serialises replacements and rewrites the sites afterwards.
pub(crate) fn install(sinks: Vec<Arc<dyn Sink>>) -> Option<Replaced> {
    let new = Arc::new(SinkSet::new(sinks));
    let old = store(Some(new.clone()))?;
    Some(Replaced { old, new })
}

fn store(set: Option<Arc<SinkSet>>) -> Option<Arc<SinkSet>> {
    let old = SINKS.swap(set);
    if let Some(old) = &old {
        retire(old);
    }
    let generation = next_generation();
    // The replacing thread lets go of the old set at once; other threads do
    // when they next emit (or exit).
    let _ = LOCAL.try_with(|l| {
        if l.state.get() & BUSY == 0 {
            refresh(l, generation);
        }
    });
    old
}

/// Bumps [`SINKS_GENERATION`] after a store; the new value. Never [`NONE`]:
/// after 2^62 replacements the counter wraps to it, and that value means
/// "nothing cached", so it is skipped.
fn next_generation() -> usize {
    let generation = SINKS_GENERATION
        .fetch_add(GENERATION_STEP, Ordering::Release)
        .wrapping_add(GENERATION_STEP);
    if generation != NONE {
        return generation;
    }
    SINKS_GENERATION
        .fetch_add(GENERATION_STEP, Ordering::Release)
        .wrapping_add(GENERATION_STEP)
}

/// The installed sinks; `None` if no set was ever installed.
pub(crate) fn installed() -> Option<Vec<Arc<dyn Sink>>> {
    SINKS.load().as_ref().map(|s| s.sinks())
}

/// Whether this thread is inside [`dispatch`] (a sink is running).
pub(crate) fn in_dispatch() -> bool {
    LOCAL
        .try_with(|l| l.state.get() & BUSY != 0)
        .unwrap_or(false)
}

/// The most verbose level any installed sink accepts.
pub(crate) fn max_level() -> LevelFilter {
    SINKS
        .load()
        .as_ref()
        .map_or(LevelFilter::Off, |s| s.max_level)
}

/// Whether some installed sink wants telemetry events.
pub(crate) fn wants_telemetry() -> bool {
    SINKS.load().as_ref().is_some_and(|s| s.telemetry)
}

/// Per-thread state of the emit path: one word saying which set this
/// thread caches and whether it is inside [`dispatch`], the cached set, and
/// its only sink (if it has exactly one) with that sink's level, so the
/// common case reads everything from thread-local storage. Constant-
/// initialised and without a destructor, so the emit path reaches it with
/// plain TLS accesses; the reference is released by `ReleaseOnExit`
/// (registered the first time the thread caches a set) or when the thread
/// next sees a newer set.
struct Local {
    /// The generation of the cached set ([`NONE`] if none), plus [`BUSY`]
    /// while this thread is inside [`dispatch`]: the fast path is taken only
    /// when this equals `SINKS_GENERATION`, so one compare checks both.
    state: Cell<usize>,
    /// `Arc::into_raw` of the cached set (one strong count owned by this
    /// thread), or null.
    set: Cell<*const SinkSet>,
    /// The cached set's only sink, if it has exactly one.
    single: Cell<Option<NonNull<dyn Sink>>>,
    /// Which records that sink takes ([`Accepts`]): its level number and
    /// its telemetry switch, each read only when the record needs it.
    single_limit: Cell<u8>,
    single_telemetry: Cell<bool>,
    /// Number of captures this thread is in (the length of `CAPTURING`),
    /// read on every record so a thread without one never touches the list.
    captures: Cell<usize>,
}

struct ReleaseOnExit;

impl Drop for ReleaseOnExit {
    fn drop(&mut self) {
        LOCAL.with(|l| {
            l.state.set(NONE | (l.state.get() & FLAGS));
            l.single.set(None);
            release(l.set.replace(ptr::null()));
        });
    }
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            state: Cell::new(NONE),
            set: Cell::new(ptr::null()),
            single: Cell::new(None),
            single_limit: Cell::new(Accepts::NOTHING.limit),
            single_telemetry: Cell::new(Accepts::NOTHING.telemetry),
            captures: Cell::new(0),
        }
    };
    static RELEASE_ON_EXIT: ReleaseOnExit = const { ReleaseOnExit };
    /// The captures this thread is in, innermost last.
    static CAPTURING: RefCell<Vec<Arc<dyn Sink>>> = const { RefCell::new(Vec::new()) };
    /// The sink this thread is calling when it is one of several (of a set
    /// or the captures), null otherwise: what a panic hook must not call
    /// again (see [`sink_in_use_here`]).
    static EMITTING: Cell<*const ()> = const { Cell::new(ptr::null()) };
}

/// Captures entered on any thread and not yet left.
static CAPTURES: AtomicUsize = AtomicUsize::new(0);

/// Whether some thread is in a capture: sites are then raised to every
/// level, and the cold path asks [`capturing_here`].
pub(crate) fn captures_anywhere() -> bool {
    CAPTURES.load(Ordering::SeqCst) != 0
}

/// Whether this thread is in a capture.
pub(crate) fn capturing_here() -> bool {
    LOCAL.try_with(|l| l.captures.get() != 0).unwrap_or(false)
}

/// The captures this thread is in, outermost first (to enter them on
/// another thread).
pub(crate) fn captures_here() -> Vec<Arc<dyn Sink>> {
    CAPTURING
        .try_with(|c| c.borrow().clone())
        .unwrap_or_default()
}

/// Makes `hook` receive what this thread logs. Whether it is the first
/// capture in the process (the caller, `interest`, then raises the sites;
/// it serialises entering and leaving).
pub(crate) fn enter_capture(hook: Arc<dyn Sink>) -> bool {
    CAPTURING.with(|c| c.borrow_mut().push(hook));
    LOCAL.with(|l| {
        l.captures.set(l.captures.get() + 1);
        l.state.set(l.state.get() | IN_CAPTURE);
    });
    CAPTURES.fetch_add(1, Ordering::SeqCst) == 0
}

/// Undoes one [`enter_capture`] of `hook` on this thread (the innermost, so
/// scopes may end in any order). Whether no capture is left in the process.
pub(crate) fn leave_capture(hook: &Arc<dyn Sink>) -> bool {
    // A guard dropped while the thread's locals are torn down finds the
    // list gone: its entry went with it, and it still counts as left.
    let removed = CAPTURING
        .try_with(|c| {
            let mut c = c.borrow_mut();
            let at = c.iter().rposition(|h| Arc::ptr_eq(h, hook));
            at.map(|at| c.remove(at)).is_some()
        })
        .unwrap_or(true);
    if !removed {
        return false;
    }
    let _ = LOCAL.try_with(|l| {
        l.captures.set(l.captures.get() - 1);
        if l.captures.get() == 0 {
            l.state.set(l.state.get() & !IN_CAPTURE);
        }
    });
    CAPTURES.fetch_sub(1, Ordering::SeqCst) == 1
}

/// Where [`dispatch_to`] delivers a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The installed sinks and this thread's captures: the site's level is
    /// on for the configuration.
    All,
    /// Only this thread's captures: the configuration turns the site off,
    /// but a capture wants every level.
    CapturesOnly,
}

fn release(set: *const SinkSet) {
    if !set.is_null() {
        // SAFETY: `set` came from `Arc::into_raw` in `refresh`, and this is
        // the one place its strong count is given back.
        drop(unsafe { Arc::from_raw(set) });
    }
}

/// What [`refresh`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refreshed {
    /// This thread now caches the current set.
    Cached,
    /// The thread is one of the set's sinks' own (an async sink's writer):
    /// it never caches, and its records (from a sink it drives that logs)
    /// are dropped and counted as nested, instead of looping back into the
    /// queue it drains.
    OwnThread,
    /// This thread can no longer cache (its thread-locals are being torn
    /// down).
    TornDown,
}

/// Re-reads the shared set after a change. Inside [`dispatch`] only from
/// its slow path, before any sink runs.
#[cold]
#[inline(never)]
fn refresh(l: &Local, generation: usize) -> Refreshed {
    if RELEASE_ON_EXIT.try_with(|_| ()).is_err() {
        return Refreshed::TornDown;
    }
    let new = SINKS.load_full();
    if new.as_deref().is_some_and(SinkSet::on_own_thread) {
        return Refreshed::OwnThread;
    }
    let new = new.map_or(ptr::null(), Arc::into_raw);
    // SAFETY: `new` is null or holds the strong count just taken.
    let (single, accepts) = match unsafe { new.as_ref() }.map(|s| &s.entries[..]) {
        // The emit path's fast case: exactly one sink.
        Some([e]) => (NonNull::new(e.target as *mut dyn Sink), e.accepts),
        _ => (None, Accepts::NOTHING),
    };
    l.single.set(single);
    l.single_limit.set(accepts.limit);
    l.single_telemetry.set(accepts.telemetry);
    release(l.set.replace(new));
    // Keeps the flags (the slow path refreshes from inside `dispatch`).
    l.state.set(generation | (l.state.get() & FLAGS));
    Refreshed::Cached
}

/// Delivers a record to every sink that wants it.
///
/// Each thread keeps its own reference to the installed sink set and
/// re-reads it (through `arc-swap`) only after a change, so the common path
/// is a few thread-local accesses: no lock, no shared write, no reference
/// count traffic. A thread that stops logging keeps the previous set alive
/// until it logs again or exits (the thread that replaces the set lets go at
/// once); replaced sinks are flushed when replaced.
///
/// A record emitted while this thread is already inside `dispatch` (a sink
/// or a `Display` impl that logs) is dropped and counted in
/// [`stats`](crate::stats), so logging cannot deadlock or recurse. A sink
/// that panics is contained and counted; the caller never sees it.
#[inline]
pub fn dispatch(record: &Record<'_>) {
    dispatch_to(Route::All, record)
}

/// [`dispatch`] along a [`Route`]: what the cold path of a site calls.
///
/// The fast case (all sinks, no capture on this thread, this thread caches
/// the current set, the set has one sink, and it wants the record) reads
/// only thread-local state and one shared word; everything else is out of
/// line.
///
/// Out of line: a site that calls it directly (a telemetry event, a scope)
/// holds a call, not the fast path; log sites' shared functions inline
/// the fast path themselves (`dispatch_log`).
#[inline(never)]
pub fn dispatch_to(route: Route, record: &Record<'_>) {
    dispatch_as::<true>(route, record)
}

/// [`dispatch_to`] for a log site's record, in line in the shared
/// functions the log sites call: it never is a telemetry event, so the
/// sink's level alone decides.
#[inline(always)]
pub(crate) fn dispatch_log(route: Route, record: &Record<'_>) {
    debug_assert!(record.kind() != Kind::Telemetry);
    dispatch_as::<false>(route, record)
}

/// The fast case and the way out to the rest; `ANY_KIND` as for [`takes`].
#[inline(always)]
fn dispatch_as<const ANY_KIND: bool>(route: Route, record: &Record<'_>) {
    // Through a pointer rather than inside `LOCAL.with`'s closure, which
    // the compiler kept out of line (a call, its argument moves and the
    // route's test, about 6 instructions a record).
    // SAFETY: `Local` needs no drop (asserted below), so its thread-local
    // is never torn down: it lives as long as this thread, and this call
    // does not outlive the thread.
    let l = unsafe { &*LOCAL.with(|l| l as *const Local) };
    if let Some(sink) = l.single.get() {
        // Equal only if this thread caches the current set, is not
        // inside `dispatch` and is in no capture.
        if route == Route::All && l.state.get() == SINKS_GENERATION.load(Ordering::Acquire) {
            if takes::<ANY_KIND>(record, || l.single_limit.get(), || l.single_telemetry.get()) {
                // The state is read again after the call rather than
                // kept in a register: nothing to save around the call.
                l.state.set(l.state.get() | BUSY);
                // SAFETY: this thread owns a strong count on the set
                // that holds `sink` until `refresh` or `ReleaseOnExit`
                // gives it back, and neither runs while `BUSY` is set.
                emit_contained(unsafe { sink.as_ref() }, record);
                l.state.set(l.state.get() & !BUSY);
            }
            return;
        }
    }
    dispatch_slow(route, record)
}

// `dispatch_as` borrows `LOCAL` past `with`, which is sound only while the
// thread-local has no destructor.
const _: () = assert!(!std::mem::needs_drop::<Local>());

/// Every case but the fast one: nested, stale cache, several sinks or
/// none, captures.
///
/// It finds the thread's `Local` itself: passed in, its address would be
/// computed on the fast path too (one instruction a record).
#[cold]
#[inline(never)]
fn dispatch_slow(route: Route, record: &Record<'_>) {
    // SAFETY: as in `dispatch_as`.
    let l = unsafe { &*LOCAL.with(|l| l as *const Local) };
    let state = l.state.get();
    if state & BUSY != 0 {
        stats::NESTED_DROPPED.fetch_add(1, Ordering::Relaxed);
        return;
    }
    l.state.set(state | BUSY);
    if route == Route::All {
        deliver_installed(l, record);
    }
    if l.captures.get() != 0 {
        deliver_captured(record);
    }
    l.state.set(l.state.get() & !BUSY);
}

/// Delivers to the installed set; the caller has set `BUSY`.
fn deliver_installed(l: &Local, record: &Record<'_>) {
    let generation = SINKS_GENERATION.load(Ordering::Acquire);
    let refreshed = if l.state.get() & !FLAGS == generation {
        Refreshed::Cached
    } else {
        refresh(l, generation)
    };
    if refreshed == Refreshed::Cached {
        let set = l.set.get();
        if !set.is_null() {
            // SAFETY: this thread owns a strong count on `set` until
            // `refresh` or `ReleaseOnExit` gives it back, and neither can
            // run while `BUSY` is set.
            deliver(unsafe { &*set }, record);
        }
    } else if refreshed == Refreshed::OwnThread {
        stats::NESTED_DROPPED.fetch_add(1, Ordering::Relaxed);
    } else if let Some(set) = SINKS.load_full() {
        // This thread cannot cache (its thread-locals are going away).
        deliver(&set, record);
    }
}

/// Hands a record to each capture this thread is in that wants it.
#[cold]
#[inline(never)]
fn deliver_captured(record: &Record<'_>) {
    let _ = CAPTURING.try_with(|c| {
        for hook in c.borrow().iter() {
            if Accepts::of(&**hook).record(record) {
                let _ = emit_marked(&**hook, record);
            }
        }
    });
}

fn deliver(set: &SinkSet, record: &Record<'_>) {
    match &set.entries[..] {
        // One sink is the common case: checked inline, with no loop state
        // (and no registers to save for one).
        [e] => {
            if e.accepts.record(record) {
                emit_contained(e.sink(), record);
            }
        }
        entries => deliver_each(entries, record),
    }
}

#[inline(never)]
fn deliver_each(entries: &[Entry], record: &Record<'_>) {
    for e in entries.iter().filter(|e| e.accepts.record(record)) {
        let _ = emit_marked(e.sink(), record);
    }
}

/// [`emit_contained`] with the sink marked in [`EMITTING`] meanwhile: one
/// sink of several. (A set of one needs no mark: its sink is the thread's
/// `single`.)
fn emit_marked(sink: &dyn Sink, record: &Record<'_>) -> bool {
    let _ = EMITTING.try_with(|m| m.set(address(sink)));
    let ok = emit_contained(sink, record);
    let _ = EMITTING.try_with(|m| m.set(ptr::null()));
    ok
}

/// A sink's address, to compare sinks by (the data part of the pointer).
fn address(sink: &dyn Sink) -> *const () {
    sink as *const dyn Sink as *const ()
}

/// For a panic hook on a thread that is inside [`dispatch`]: the address
/// of the sink it is calling, if known (the one marked in [`EMITTING`],
/// else the only sink of the set this thread caches).
pub(crate) fn sink_in_use_here() -> Option<*const ()> {
    let marked = EMITTING.try_with(Cell::get).unwrap_or(ptr::null());
    if !marked.is_null() {
        return Some(marked);
    }
    LOCAL
        .try_with(|l| l.single.get())
        .ok()
        .flatten()
        .map(|s| s.as_ptr() as *const ())
}

/// Every installed sink and every sink of a replaced set some thread still
/// holds, each once, but the one at `skip`: what a panic that ends the
/// process flushes (see `runtime::abort_flush`).
pub(crate) fn every_sink_but(skip: Option<*const ()>) -> Vec<Arc<dyn Sink>> {
    let mut sinks: Vec<Arc<dyn Sink>> = Vec::new();
    let sets = SINKS.load_full().into_iter().chain(retired());
    for set in sets {
        for e in &set.entries {
            let at = address(&*e.sink);
            if Some(at) != skip && !sinks.iter().any(|s| address(&**s) == at) {
                sinks.push(e.sink.clone());
            }
        }
    }
    sinks
}

/// Calls a sink, containing a panic so it never reaches the caller; a panic
/// is counted in [`stats`](crate::stats). Whether `emit` returned normally.
#[inline(always)]
fn emit_contained(sink: &dyn Sink, record: &Record<'_>) -> bool {
    match catch_unwind(AssertUnwindSafe(|| sink.emit(record))) {
        Ok(()) => true,
        Err(payload) => {
            sink_panicked(payload);
            false
        }
    }
}

/// Counts a sink's panic and drops its payload, out of line, so the emit
/// path's landing pad holds nothing across calls.
#[cold]
#[inline(never)]
fn sink_panicked(payload: Box<dyn std::any::Any + Send>) {
    crate::contain::drop_payload(payload);
    stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
}

/// Unit tests that swap the process-wide sinks or enter captures run one
/// at a time (this module's and `interest`'s).
#[cfg(test)]
pub(crate) static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::metadata::Metadata;
    use crate::{record::level::Level, record::metadata::Kind};
    use std::sync::atomic::AtomicUsize;
    use std::sync::Weak;

    struct Counting(AtomicUsize);
    impl Sink for Counting {
        fn emit(&self, _: &Record<'_>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[derive(Default)]
    struct Flushes(AtomicUsize);
    impl Sink for Flushes {
        fn emit(&self, _: &Record<'_>) {}
        fn flush(&self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn set_sinks<I: IntoIterator<Item = Arc<dyn Sink>>>(sinks: I) {
        if let Some(replaced) = install(sinks.into_iter().collect()) {
            replaced.flush_leavers();
        }
    }

    use super::SERIAL;

    static META: Metadata = Metadata::new(
        Kind::Log,
        Level::Error,
        "elide::dispatch::tests",
        "elide::dispatch::tests",
        file!(),
        line!(),
        "",
    );

    fn emit_one() {
        dispatch(&Record::new(&META, Level::Error, format_args!("x"), &[]));
    }

    /// A thread that has emitted (so caches the current set) and then waits
    /// until the returned sender is used; join the handle afterwards.
    fn idle_thread_holding_the_current_set(
    ) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let (cached_tx, cached_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::spawn(move || {
            emit_one();
            cached_tx.send(()).unwrap();
            go_rx.recv().unwrap();
        });
        cached_rx.recv().unwrap();
        (go_tx, worker)
    }

    /// The per-thread cache must never deliver to a replaced set after the
    /// thread has seen the swap, and must let go of replaced sinks when the
    /// threads that cached them log again or exit.
    #[test]
    fn replaced_sinks_are_released_by_logging_and_exiting_threads() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let old = Arc::new(Counting(AtomicUsize::new(0)));
        set_sinks([old.clone() as Arc<dyn Sink>]);
        let weak_old: Weak<Counting> = Arc::downgrade(&old);
        drop(old);

        // A thread caches the old set, then waits while it is replaced.
        let (go_tx, worker) = idle_thread_holding_the_current_set();

        let new = Arc::new(Counting(AtomicUsize::new(0)));
        set_sinks([new.clone() as Arc<dyn Sink>]);
        assert!(
            weak_old.upgrade().is_some(),
            "the idle worker still holds the old set"
        );
        go_tx.send(()).unwrap();
        worker.join().unwrap();
        assert!(
            weak_old.upgrade().is_none(),
            "an exiting thread releases its cached set"
        );

        // Threads that log after the swap use the new set only.
        let threads: Vec<_> = (0..2)
            .map(|_| std::thread::spawn(|| (0..50).for_each(|_| emit_one())))
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(new.0.load(Ordering::Relaxed), 100);
        set_sinks(Vec::<Arc<dyn Sink>>::new());
    }

    /// A replaced set that an idle thread still holds is flushed again by
    /// the exit path; once nobody holds it, it is forgotten.
    #[test]
    fn retired_sets_still_held_are_flushed_at_exit() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let old = Arc::new(Flushes::default());
        set_sinks([old.clone() as Arc<dyn Sink>]);
        let (go_tx, worker) = idle_thread_holding_the_current_set();
        set_sinks(Vec::<Arc<dyn Sink>>::new());
        // A later replacement keeps the list of the held set.
        set_sinks(Vec::<Arc<dyn Sink>>::new());
        let after_replace = old.0.load(Ordering::Relaxed);
        assert!(after_replace >= 1, "replacing flushes the old sinks");
        flush_all(Reach::AlsoRetired);
        assert_eq!(old.0.load(Ordering::Relaxed), after_replace + 1);
        go_tx.send(()).unwrap();
        worker.join().unwrap();
        flush_all(Reach::AlsoRetired);
        assert_eq!(
            old.0.load(Ordering::Relaxed),
            after_replace + 1,
            "a set nobody holds is not flushed again"
        );
        // ...and the next replacement forgets it: the list keeps only sets
        // still alive (and the one it just retired), so it does not grow
        // with every replacement.
        set_sinks(Vec::<Arc<dyn Sink>>::new());
        let retired = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
        let dead = retired.iter().filter(|w| w.strong_count() == 0).count();
        assert!(dead <= 1, "{dead} of {} entries dead", retired.len());
    }

    /// The thread that replaces the sinks lets go of the old set at once
    /// (a replaced file sink is closed then, not at this thread's next
    /// record).
    #[test]
    fn the_replacing_thread_lets_go_of_the_old_set_at_once() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let old = Arc::new(Counting(AtomicUsize::new(0)));
        set_sinks([old.clone() as Arc<dyn Sink>]);
        emit_one();
        let weak_old: Weak<Counting> = Arc::downgrade(&old);
        drop(old);
        set_sinks(Vec::<Arc<dyn Sink>>::new());
        assert!(weak_old.upgrade().is_none(), "still held after the swap");
    }

    /// Captures nest on a thread; the process counts them, so the first
    /// raises the sites and the last lowers them.
    #[test]
    fn captures_nest_per_thread_and_are_counted_per_process() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let flags = || LOCAL.with(|l| (l.captures.get(), l.state.get() & FLAGS));
        let a: Arc<dyn Sink> = Arc::new(Flushes::default());
        let b: Arc<dyn Sink> = Arc::new(Flushes::default());
        assert!(!captures_anywhere() && !capturing_here());
        assert!(enter_capture(a.clone()), "the first in the process");
        assert!(!enter_capture(b.clone()), "nested: not the first");
        assert_eq!(flags(), (2, IN_CAPTURE));
        assert!(captures_anywhere() && capturing_here());
        assert_eq!(captures_here().len(), 2);
        assert!(!leave_capture(&a), "b is still open");
        assert_eq!(flags(), (1, IN_CAPTURE));
        assert!(!leave_capture(&a), "a has left already");
        assert_eq!(flags(), (1, IN_CAPTURE));
        assert!(leave_capture(&b), "the last in the process");
        assert_eq!(flags(), (0, 0));
        assert!(!captures_anywhere() && !capturing_here());
        assert!(captures_here().is_empty());
    }

    /// A thread-local destructor that runs after the thread let go of its
    /// set (at exit) still delivers its record: it is not taken for a
    /// record from inside a sink.
    #[test]
    fn a_record_from_a_late_thread_local_destructor_is_delivered() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let sink = Arc::new(Counting(AtomicUsize::new(0)));
        set_sinks([sink.clone() as Arc<dyn Sink>]);
        struct EmitOnDrop;
        impl Drop for EmitOnDrop {
            fn drop(&mut self) {
                emit_one();
            }
        }
        thread_local! {
            static LATE: EmitOnDrop = const { EmitOnDrop };
        }
        let nested = stats::NESTED_DROPPED.load(Ordering::Relaxed);
        std::thread::spawn(|| {
            // Registered before the first record registers the thread's
            // release: destructors run last registered first.
            LATE.with(|_| ());
            emit_one();
        })
        .join()
        .unwrap();
        assert_eq!(sink.0.load(Ordering::Relaxed), 2);
        assert_eq!(stats::NESTED_DROPPED.load(Ordering::Relaxed), nested);
        set_sinks(Vec::<Arc<dyn Sink>>::new());
    }

    /// A thread that cached the old set sends its next record to the new
    /// one: every replacement is seen by every thread's next record.
    #[test]
    fn a_thread_that_cached_the_old_set_logs_into_the_new_one() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let old = Arc::new(Counting(AtomicUsize::new(0)));
        set_sinks([old.clone() as Arc<dyn Sink>]);
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::spawn(move || {
            emit_one();
            done_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            emit_one();
        });
        done_rx.recv().unwrap();
        let new = Arc::new(Counting(AtomicUsize::new(0)));
        set_sinks([new.clone() as Arc<dyn Sink>]);
        go_tx.send(()).unwrap();
        worker.join().unwrap();
        assert_eq!(old.0.load(Ordering::Relaxed), 1);
        assert_eq!(new.0.load(Ordering::Relaxed), 1);
        set_sinks(Vec::<Arc<dyn Sink>>::new());
    }

    /// Records, for each record it gets, whether the panic hook would
    /// name it as the sink this thread is calling.
    #[derive(Default)]
    struct SeesItself(std::sync::Mutex<Vec<bool>>);
    impl Sink for SeesItself {
        fn emit(&self, _: &Record<'_>) {
            let me = self as *const SeesItself as *const ();
            self.0.lock().unwrap().push(sink_in_use_here() == Some(me));
        }
    }

    /// The sink a panicking thread is in is known (alone in its set, or one
    /// of several), and the sinks a panic=abort hook flushes are every
    /// other one, each once, replaced sets included.
    #[test]
    fn the_sink_in_use_is_known_and_left_out_of_the_abort_flush() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let a = Arc::new(SeesItself::default());
        let b = Arc::new(SeesItself::default());
        set_sinks([a.clone() as Arc<dyn Sink>]);
        emit_one();
        // An idle thread keeps the set of `a` alone alive once replaced.
        let (go_tx, worker) = idle_thread_holding_the_current_set();
        set_sinks([a.clone() as Arc<dyn Sink>, b.clone()]);
        emit_one();
        // Alone (here and on the idle thread), then one of two.
        assert_eq!(*a.0.lock().unwrap(), [true, true, true]);
        assert_eq!(*b.0.lock().unwrap(), [true]);
        assert_eq!(sink_in_use_here(), None, "not emitting now");

        let names = |skip: Option<&Arc<SeesItself>>| -> Vec<*const ()> {
            let skip = skip.map(|s| Arc::as_ptr(s) as *const ());
            every_sink_but(skip).iter().map(|s| address(&**s)).collect()
        };
        let (pa, pb) = (Arc::as_ptr(&a) as *const (), Arc::as_ptr(&b) as *const ());
        assert_eq!(names(None), [pa, pb], "each once");
        assert_eq!(names(Some(&a)), [pb]);
        assert_eq!(names(Some(&b)), [pa]);
        go_tx.send(()).unwrap();
        worker.join().unwrap();
        set_sinks(Vec::<Arc<dyn Sink>>::new());
    }

    /// A sink that takes what its level and telemetry switch say, and
    /// records what reached it.
    struct Taking {
        level: LevelFilter,
        telemetry: bool,
        got: std::sync::Mutex<Vec<(Kind, Level)>>,
    }
    impl Taking {
        fn new(level: LevelFilter, telemetry: bool) -> Arc<Taking> {
            Arc::new(Taking {
                level,
                telemetry,
                got: Default::default(),
            })
        }
        fn take(&self) -> Vec<(Kind, Level)> {
            std::mem::take(&mut *self.got.lock().unwrap())
        }
    }
    impl Sink for Taking {
        fn max_level(&self) -> LevelFilter {
            self.level
        }
        fn wants_telemetry(&self) -> bool {
            self.telemetry
        }
        fn emit(&self, r: &Record<'_>) {
            self.got.lock().unwrap().push((r.kind(), r.level()));
        }
    }

    static EVENT: Metadata = Metadata::new(
        Kind::Telemetry,
        Level::Info,
        "elide::dispatch::tests",
        "elide::dispatch::tests",
        file!(),
        line!(),
        "",
    );

    /// A telemetry event, an info record and a debug record.
    fn emit_three() {
        dispatch(&Record::new(&EVENT, Level::Info, format_args!("e"), &[]));
        dispatch(&Record::new(&META, Level::Info, format_args!("i"), &[]));
        dispatch(&Record::new(&META, Level::Debug, format_args!("d"), &[]));
    }

    /// Each sink gets the records its own `max_level` and `wants_telemetry`
    /// accept, on every delivery path: alone in the set (first through the
    /// slow path, then the cached fast one), one of several, and a capture.
    #[test]
    fn each_sink_takes_what_its_level_and_telemetry_switch_accept() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let info = [(Kind::Log, Level::Info)];
        let event_and_info = [(Kind::Telemetry, Level::Info), (Kind::Log, Level::Info)];

        let alone = Taking::new(LevelFilter::Info, false);
        set_sinks([alone.clone() as Arc<dyn Sink>]);
        emit_three();
        assert_eq!(alone.take(), info, "alone, before the thread caches it");
        emit_three();
        assert_eq!(alone.take(), info, "alone, cached");

        let events_only = Taking::new(LevelFilter::Off, true);
        let debug = Taking::new(LevelFilter::Debug, false);
        set_sinks([events_only.clone() as Arc<dyn Sink>, debug.clone() as _]);
        emit_three();
        assert_eq!(events_only.take(), [(Kind::Telemetry, Level::Info)]);
        assert_eq!(
            debug.take(),
            [(Kind::Log, Level::Info), (Kind::Log, Level::Debug)]
        );

        set_sinks(Vec::<Arc<dyn Sink>>::new());
        let hook = Taking::new(LevelFilter::Info, true);
        enter_capture(hook.clone());
        emit_three();
        leave_capture(&(hook.clone() as Arc<dyn Sink>));
        assert_eq!(hook.take(), event_and_info, "a capture");
    }

    thread_local! {
        /// Marks a thread as [`OwnThreads`]' own.
        static OWN: Cell<bool> = const { Cell::new(false) };
    }

    /// A sink whose own threads are the ones marked in `OWN`.
    struct OwnThreads(AtomicUsize);
    impl Sink for OwnThreads {
        fn is_own_thread(&self) -> bool {
            OWN.with(Cell::get)
        }
        fn emit(&self, _: &Record<'_>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Delivery asks the set's sinks whether the calling thread is one of
    /// their own: a record from such a thread reaches no sink of that set
    /// and is counted as nested, and a flush from there does nothing;
    /// other threads are served as usual.
    #[test]
    fn a_record_from_a_sinks_own_thread_is_dropped_and_counted() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let own = Arc::new(OwnThreads(AtomicUsize::new(0)));
        let flushes = Arc::new(Flushes::default());
        set_sinks([own.clone() as Arc<dyn Sink>, flushes.clone() as _]);
        emit_one();
        assert_eq!(own.0.load(Ordering::Relaxed), 1, "an ordinary thread");
        std::thread::spawn(|| {
            OWN.with(|o| o.set(true));
            let nested = stats::NESTED_DROPPED.load(Ordering::Relaxed);
            emit_one();
            emit_one();
            assert!(stats::NESTED_DROPPED.load(Ordering::Relaxed) >= nested + 2);
            flush_all(Reach::Installed);
        })
        .join()
        .unwrap();
        assert_eq!(
            own.0.load(Ordering::Relaxed),
            1,
            "nothing from its own thread"
        );
        assert_eq!(flushes.0.load(Ordering::Relaxed), 0, "no flush from there");
        set_sinks(Vec::<Arc<dyn Sink>>::new());
    }
}
