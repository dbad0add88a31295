//! A single-producer, single-consumer ring of variable-size records, in
//! 8-byte words: one per logging thread and asynchronous sink.
//!
//! The producer (the logging thread) reserves a contiguous run of words,
//! writes its record and publishes it with one release store of `tail`;
//! the consumer (the sink's writer) reads records from `head` and gives
//! their space back with one release store. Neither side ever takes a lock
//! or a read-modify-write instruction. A record that would straddle the end
//! of the buffer is preceded by a wrap marker and starts at word 0 instead.
//! The producer keeps its own copy of `head` and re-reads the shared one
//! only when the ring looks full, so in steady state it touches no cache
//! line the consumer writes.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::os::pages::Pages;

/// Header of the skip to word 0.
const WRAP: u64 = u64::MAX;

/// Keeps the producer's and the consumer's fields on separate cache lines.
#[repr(align(128))]
struct Padded<T>(T);

/// The ring (see the module docs).
pub(crate) struct Ring {
    /// Producer side: next word to write (monotonic), records published,
    /// and the producer's copy of `head`.
    tail: Padded<(AtomicUsize, AtomicU64, Cell<usize>)>,
    /// Consumer side: next word to read (monotonic) and records consumed.
    head: Padded<(AtomicUsize, AtomicU64)>,
    buf: Pages,
    mask: usize,
    /// The logging thread's number, written into its records.
    pub(crate) thread: u64,
    /// Producer side: set when a thread took the ring over from one that
    /// exited, so its records carry their own thread's number (the older
    /// ones are `thread`'s).
    pub(crate) taken_over: Cell<bool>,
    /// Set when the sink's writer has stopped: the producer lets go of it.
    pub(crate) dead: AtomicBool,
}

// SAFETY: the producer-only `Cell`s and the buffer words are accessed by one
// producer and one consumer under the head/tail protocol: a word is written
// only while it lies outside [head, tail) and read only while inside.
unsafe impl Sync for Ring {}
// SAFETY: as above; nothing in it is tied to a thread.
unsafe impl Send for Ring {}

impl Ring {
    /// A ring of `words` (rounded up to a power of two), every page
    /// touched now so the producer never page-faults on a fresh page (and,
    /// from 2 MiB, on huge pages where the kernel gives them: see
    /// [`Pages`]).
    pub(crate) fn new(words: usize, thread: u64) -> Ring {
        let words = words.next_power_of_two().max(64);
        let buf = Pages::new(words);
        Ring {
            tail: Padded((AtomicUsize::new(0), AtomicU64::new(0), Cell::new(0))),
            head: Padded((AtomicUsize::new(0), AtomicU64::new(0))),
            buf,
            mask: words - 1,
            thread,
            taken_over: Cell::new(false),
            dead: AtomicBool::new(false),
        }
    }

    /// Capacity in words.
    pub(crate) fn words(&self) -> usize {
        self.mask + 1
    }

    /// Records published and not yet consumed (approximate while both run).
    pub(crate) fn queued(&self) -> u64 {
        let pushed = self.tail.0 .1.load(Ordering::Relaxed);
        pushed.saturating_sub(self.head.0 .1.load(Ordering::Relaxed))
    }

    /// Whether the consumer has taken everything published.
    pub(crate) fn is_empty(&self) -> bool {
        self.head.0 .0.load(Ordering::Acquire) == self.tail.0 .0.load(Ordering::Acquire)
    }

    /// Producer: writes a record of `len` words (1 <= len <= half the
    /// capacity) with `write`, which must fill the slice, and publishes it.
    /// False if there is no room now.
    ///
    /// # Safety
    /// Only one thread may act as the producer of a ring at a time.
    #[inline]
    pub(crate) unsafe fn try_push(&self, len: usize, write: impl FnOnce(&mut [u64])) -> bool {
        // SAFETY: forwarded from the caller.
        let Some((words, end)) = (unsafe { self.reserve(len) }) else {
            return false;
        };
        write(words);
        self.publish(end);
        true
    }

    /// Producer: the `len` words (1 <= len <= half the capacity) of the
    /// next record, and the position that [`publish`](Ring::publish) takes
    /// once they are all written; `None` if there is no room now. What
    /// [`try_push`](Ring::try_push) does, in two steps, so a hot caller
    /// can write its record in line rather than through a closure.
    ///
    /// # Safety
    /// Only one thread may act as the producer of a ring at a time, and it
    /// must publish (or drop) the slice before it reserves again.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)] // the producer's words: see the safety note
    pub(crate) unsafe fn reserve(&self, len: usize) -> Option<(&mut [u64], usize)> {
        let tail = self.tail.0 .0.load(Ordering::Relaxed);
        let cap = self.mask + 1;
        let at = tail & self.mask;
        let pad = if at + len > cap { cap - at } else { 0 };
        let end = tail + pad + len;
        if end - self.tail.0 .2.get() > cap {
            self.tail.0 .2.set(self.head.0 .0.load(Ordering::Acquire));
            if end - self.tail.0 .2.get() > cap {
                return None;
            }
        }
        let base = self.buf.as_ptr();
        let start = if pad > 0 {
            // SAFETY: `at` is inside the buffer and outside [head, tail).
            unsafe { *base.add(at) = WRAP };
            0
        } else {
            at
        };
        // SAFETY: [start, start + len) is inside the buffer (no straddle,
        // by `pad`) and free (checked against `head` above); the consumer
        // reads it only after `publish`'s release store, and the one
        // producer holds no other slice of it.
        Some((
            unsafe { std::slice::from_raw_parts_mut(base.add(start), len) },
            end,
        ))
    }

    /// Producer: publishes the record [`reserve`](Ring::reserve) made room
    /// for, `end` being the position it returned.
    #[inline]
    pub(crate) fn publish(&self, end: usize) {
        let pushed = self.tail.0 .1.load(Ordering::Relaxed);
        self.tail.0 .1.store(pushed + 1, Ordering::Relaxed);
        self.tail.0 .0.store(end, Ordering::Release);
    }

    /// Producer: whether the ring looked more than half full at the last
    /// push (by the producer's copy of `head`, which only lags).
    #[inline]
    pub(crate) fn filling(&self) -> bool {
        let used = self.tail.0 .0.load(Ordering::Relaxed) - self.tail.0 .2.get();
        used > self.words() / 2
    }

    /// Consumer: the next record, if one is published. Its first word
    /// holds its length in the low 32 bits.
    ///
    /// # Safety
    /// Only one thread may act as the consumer of a ring at a time, and the
    /// slice must be dropped before [`pop`](Ring::pop).
    pub(crate) unsafe fn peek(&self) -> Option<&[u64]> {
        let tail = self.tail.0 .0.load(Ordering::Acquire);
        let mut head = self.head.0 .0.load(Ordering::Relaxed);
        if head == tail {
            return None;
        }
        let base = self.buf.as_ptr() as *const u64;
        // SAFETY: [head, tail) was published by the producer's release store.
        let mut first = unsafe { *base.add(head & self.mask) };
        if first == WRAP {
            head += self.words() - (head & self.mask);
            self.head.0 .0.store(head, Ordering::Release);
            if head == tail {
                return None;
            }
            // SAFETY: as above.
            first = unsafe { *base.add(head & self.mask) };
        }
        let len = (first & 0xffff_ffff) as usize;
        // SAFETY: the producer wrote `len` contiguous words at `head`.
        Some(unsafe { std::slice::from_raw_parts(base.add(head & self.mask), len) })
    }

    /// Consumer: gives back the space of the record [`peek`](Ring::peek)
    /// returned, of `len` words.
    pub(crate) fn pop(&self, len: usize) {
        let head = self.head.0 .0.load(Ordering::Relaxed);
        let popped = self.head.0 .1.load(Ordering::Relaxed);
        self.head.0 .1.store(popped + 1, Ordering::Relaxed);
        self.head.0 .0.store(head + len, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Pushes one record of `len` words (the first holds the length).
    fn push(ring: &Ring, len: usize) -> bool {
        // SAFETY: the test thread is the only producer.
        unsafe { ring.try_push(len, |w| w.fill(len as u64)) }
    }

    #[test]
    fn the_producer_sees_how_full_the_ring_is() {
        let ring = Ring::new(64, 1);
        assert!(ring.is_empty());
        assert_eq!(ring.queued(), 0);
        assert!(!ring.filling());
        assert!(push(&ring, 16));
        assert!(push(&ring, 16));
        assert_eq!(ring.queued(), 2);
        assert!(!ring.is_empty());
        assert!(!ring.filling(), "exactly half is not more than half");
        assert!(push(&ring, 1));
        assert!(ring.filling(), "33 of 64 words");
        // SAFETY: the only consumer; each slice is dropped before `pop`.
        while let Some(len) = unsafe { ring.peek() }.map(|r| r[0] as usize) {
            ring.pop(len);
        }
        assert!(ring.is_empty());
        assert_eq!(ring.queued(), 0);
        // The producer's copy of the consumer's position only lags: 31
        // words after the 33 consumed still look like 64 in use, until a
        // push past the end reads the position again.
        assert!(push(&ring, 15));
        assert!(push(&ring, 16));
        assert!(ring.filling());
        assert!(push(&ring, 1));
        assert!(!ring.filling(), "32 of 64 words, by a fresh position");
    }

    /// Variable-size records cross the wrap point intact and in order, with
    /// the producer and the consumer on different threads.
    #[test]
    fn records_arrive_whole_and_in_order_across_wraps() {
        let ring = Arc::new(Ring::new(64, 1));
        // Miri interprets every step: fewer records still wrap the 64-word ring many times.
        const N: u64 = if cfg!(miri) { 500 } else { 20_000 };
        let producer = {
            let ring = ring.clone();
            std::thread::spawn(move || {
                for i in 0..N {
                    let len = 1 + (i % 7) as usize;
                    // SAFETY: the only producer.
                    while !unsafe {
                        ring.try_push(len, |w| {
                            w[0] = len as u64 | (i << 32);
                            w[1..].iter_mut().for_each(|x| *x = i);
                        })
                    } {
                        std::hint::spin_loop();
                    }
                }
            })
        };
        let mut next = 0;
        while next < N {
            // SAFETY: the only consumer; the slice is dropped before `pop`.
            let Some(rec) = (unsafe { ring.peek() }) else {
                std::thread::yield_now();
                continue;
            };
            let len = (rec[0] & 0xffff_ffff) as usize;
            assert_eq!(rec[0] >> 32, next);
            assert_eq!(len, 1 + (next % 7) as usize);
            assert!(rec[1..].iter().all(|&x| x == next));
            ring.pop(len);
            next += 1;
        }
        producer.join().unwrap();
        assert!(ring.is_empty());
        assert_eq!(ring.queued(), 0);
    }
}
