//! A zeroed buffer of words whose pages are all in memory before it is
//! used, on huge pages where the kernel gives them.
//!
//! A logging thread writes its asynchronous records into such a buffer at
//! a few nanoseconds each; one that is larger than the CPU's TLB reaches
//! on 4 KiB pages (a few MiB) makes every 85th record or so of a
//! two-integer site wait for a page walk, tens to hundreds of cycles on a
//! virtual machine. A buffer of 2 MiB or more is therefore aligned to
//! 2 MiB and, on Linux, marked `MADV_HUGEPAGE` before its pages are first
//! touched, so the kernel backs it with huge pages when transparent huge
//! pages are enabled (`always` or `madvise`); smaller ones, the default
//! 1 MiB thread buffer among them, stay on ordinary pages, as the memory a
//! huge page would pin is more than they hold.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// The size of a huge page on x86-64 and arm64 Linux.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// An owned, zeroed buffer of `u64` words (see the module docs).
pub(crate) struct Pages {
    ptr: NonNull<u64>,
    layout: Layout,
}

impl Pages {
    /// `words` zeroed words (at least one), every page touched now.
    pub(crate) fn new(words: usize) -> Pages {
        // An absurd size fails here, as `Box<[u64]>` would, never as a
        // wrapped-around size.
        let bytes = words
            .max(1)
            .checked_mul(8)
            .expect("a buffer within usize::MAX bytes");
        let align = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 8 };
        let layout = Layout::from_size_align(bytes, align).expect("a buffer within isize::MAX");
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw as *mut u64) else {
            alloc::handle_alloc_error(layout)
        };
        if align == HUGE_PAGE {
            advise_huge(raw, bytes);
        }
        // Zeroing writes every page: each is faulted in now (as a huge
        // page where advised), not by the first record that reaches it.
        // SAFETY: `raw` is valid for `bytes` bytes of writes.
        unsafe { std::ptr::write_bytes(raw, 0, bytes) };
        Pages { ptr, layout }
    }

    /// The first word; the buffer holds `words` of them, all initialised.
    pub(crate) fn as_ptr(&self) -> *mut u64 {
        self.ptr.as_ptr()
    }

    /// Whether the buffer starts on a huge-page boundary (those of 2 MiB
    /// or more do).
    #[cfg(test)]
    pub(crate) fn is_huge_aligned(&self) -> bool {
        self.ptr.as_ptr() as usize % HUGE_PAGE == 0
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { alloc::dealloc(self.ptr.as_ptr() as *mut u8, self.layout) }
    }
}

// SAFETY: `Pages` owns its buffer like a `Box<[u64]>`; who may touch which
// words is the owner's protocol (see `Ring`).
unsafe impl Send for Pages {}
// SAFETY: as above.
unsafe impl Sync for Pages {}

/// Asks the kernel for huge pages over `[ptr, ptr + len)` (advice only: a
/// kernel without transparent huge pages, or with them off, says no and
/// the buffer stays on ordinary pages).
#[cfg(all(target_os = "linux", not(miri)))]
fn advise_huge(ptr: *mut u8, len: usize) {
    extern "C" {
        fn madvise(
            addr: *mut std::ffi::c_void,
            len: usize,
            advice: std::ffi::c_int,
        ) -> std::ffi::c_int;
    }
    /// `MADV_HUGEPAGE` in Linux's `mman-common.h`, the same on every
    /// architecture.
    const MADV_HUGEPAGE: std::ffi::c_int = 14;
    // SAFETY: the range is memory this process owns, page-aligned (2 MiB);
    // the advice changes how it is backed, never its contents.
    unsafe { madvise(ptr.cast(), len, MADV_HUGEPAGE) };
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn advise_huge(_: *mut u8, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `/proc/self/smaps` says of the mapping holding `addr`: its
    /// `AnonHugePages` in KiB.
    #[cfg(all(target_os = "linux", not(miri)))]
    fn huge_kib_at(addr: usize) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) =
                        (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                    {
                        inside = a <= addr && addr < b;
                        continue;
                    }
                }
            }
            if inside {
                if let Some(kb) = line.strip_prefix("AnonHugePages:") {
                    return kb.trim().trim_end_matches("kB").trim().parse().ok();
                }
            }
        }
        None
    }

    #[test]
    fn a_buffer_is_zeroed_and_a_large_one_starts_on_a_huge_page() {
        // Miri interprets every step: one huge-aligned buffer is enough there.
        let sizes: &[usize] = if cfg!(miri) {
            &[1, 64, 262_144]
        } else {
            &[1, 64, 131_072, 262_144, 1 << 20]
        };
        for &words in sizes {
            let pages = Pages::new(words);
            // SAFETY: `words` initialised words.
            let all = unsafe { std::slice::from_raw_parts(pages.as_ptr(), words) };
            let step = if cfg!(miri) { 4096 } else { 1 };
            assert!(all.iter().step_by(step).all(|&w| w == 0), "{words} words");
            assert_eq!(
                pages.is_huge_aligned(),
                words * 8 >= HUGE_PAGE,
                "{words} words"
            );
        }
    }

    /// A size whose bytes do not fit a `usize` stops before allocating,
    /// not with a wrapped-around (empty) buffer that writes would overrun.
    #[test]
    #[should_panic(expected = "within usize::MAX bytes")]
    fn a_size_past_the_address_space_stops_before_allocating() {
        let _ = Pages::new(usize::MAX / 4);
    }

    /// Resident memory of this process, in KiB.
    #[cfg(all(target_os = "linux", not(miri)))]
    fn rss_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line[6..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .unwrap()
    }

    /// A dropped buffer gives its memory back: a thread buffer is made
    /// for every thread that logs into an async sink, so one that leaked
    /// would grow the process with each such thread (32 buffers of 8 MiB,
    /// every page written, here).
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn dropped_buffers_give_their_memory_back() {
        let before = rss_kib();
        for _ in 0..32 {
            drop(Pages::new(1 << 20));
        }
        let grown = rss_kib().saturating_sub(before);
        assert!(grown < 64 * 1024, "resident memory grew by {grown} KiB");
    }

    /// Where the kernel offers transparent huge pages for advised memory,
    /// an 8 MiB buffer gets them (the whole of it, on an idle machine with
    /// free huge pages; at least one of its four here, as memory may be
    /// fragmented).
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn a_large_buffer_is_on_huge_pages_where_the_kernel_offers_them() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
        let offered = mode.is_ok_and(|m| m.contains("[always]") || m.contains("[madvise]"));
        let pages = Pages::new(1 << 20);
        let huge = huge_kib_at(pages.as_ptr() as usize).unwrap_or(0);
        if offered {
            assert!(huge >= 2048, "AnonHugePages {huge} kB");
        }
    }
}
