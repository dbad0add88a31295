//! A lock-free, push-only, intrusive list of `'static` items: how call
//! sites and counters register themselves on their first hit, with no
//! linker section and no second proc macro.
//!
//! Each item embeds a [`Link`]; [`Registry::register`] pushes an item once
//! (later calls return at once), [`Registry::for_each`] walks every item
//! pushed so far. Nothing is ever removed, so a walk never sees a dangling
//! pointer and needs no lock.
//!
//! Statics owned here: none (each user owns its `Registry`).

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// An item that can be registered: it embeds a [`Link`] to the next one.
pub(crate) trait Linked: Sized + Sync + 'static {
    /// The item's link.
    fn link(&self) -> &Link<Self>;
}

/// The part of an item the list uses.
pub(crate) struct Link<T> {
    registered: AtomicBool,
    next: AtomicPtr<T>,
}

impl<T> std::fmt::Debug for Link<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("registered", &self.registered.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<T> Link<T> {
    /// Not registered yet.
    pub(crate) const fn new() -> Link<T> {
        Link {
            registered: AtomicBool::new(false),
            next: AtomicPtr::new(ptr::null_mut()),
        }
    }
}

/// The head of one list.
pub(crate) struct Registry<T> {
    head: AtomicPtr<T>,
}

impl<T: Linked> Registry<T> {
    /// An empty list.
    pub(crate) const fn new() -> Registry<T> {
        Registry {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Pushes `item` unless it was pushed before. Lock-free: a CAS loop on
    /// the head.
    pub(crate) fn register(&self, item: &'static T) {
        let link = item.link();
        if link.registered.swap(true, Ordering::AcqRel) {
            return;
        }
        let me = item as *const T as *mut T;
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            link.next.store(head, Ordering::Relaxed);
            match self
                .head
                .compare_exchange_weak(head, me, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(h) => head = h,
            }
        }
    }

    /// Calls `f` for every item pushed so far, newest first.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&'static T)) {
        let mut cur = self.head.load(Ordering::Acquire);
        while !cur.is_null() {
            // SAFETY: only `&'static T`s are ever pushed, and nothing is
            // ever removed, so every pointer in the list stays valid forever.
            let item: &'static T = unsafe { &*cur };
            f(item);
            cur = item.link().next.load(Ordering::Acquire);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_shows_whether_it_is_registered() {
        let link: Link<Item> = Link::new();
        assert_eq!(format!("{link:?}"), "Link { registered: false, .. }");
    }

    struct Item(u32, Link<Item>);
    impl Linked for Item {
        fn link(&self) -> &Link<Item> {
            &self.1
        }
    }

    /// Concurrent pushes of distinct items all land, and each item once
    /// however often it is pushed.
    #[test]
    fn concurrent_registrations_land_once_each() {
        static LIST: Registry<Item> = Registry::new();
        static ITEMS: [Item; 8] = [const { Item(1, Link::new()) }; 8];
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| ITEMS.iter().for_each(|i| LIST.register(i)));
            }
        });
        let mut n = 0;
        LIST.for_each(|i| n += i.0);
        assert_eq!(n, 8);
    }
}
