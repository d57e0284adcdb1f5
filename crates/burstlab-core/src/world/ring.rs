//! A first-in first-out ring of `Copy` entries, the pipe of a link direction.
//!
//! `std`'s `VecDeque` would do, but it takes 32 bytes (capacity, pointer, head, length as
//! `usize`) where this takes 24 (a boxed slice and two `u32`), which lets a link's
//! per-packet state, its delay and its serialisation cost share one 64-byte line
//! (see `links::Hot`); and its capacity is a power of two, so a position wraps with a
//! mask rather than a compare.

use std::mem::MaybeUninit;

pub struct Ring<T> {
    /// Capacity a power of two, or 0 before the first push.
    buf: Box<[MaybeUninit<T>]>,
    /// Position of the front entry in `buf` (below the capacity, or 0).
    head: u32,
    len: u32,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The position in `buf` of entry `i` from the front (`buf` not empty).
    #[inline(always)]
    fn slot(&self, i: u32) -> usize {
        (self.head.wrapping_add(i) as usize) & (self.buf.len() - 1)
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let s = self.slot(self.len);
        // SAFETY: `buf` is not empty (it grew if it was full), and `slot` masks with its
        // power-of-two length minus one, so `s < buf.len()`.
        unsafe { self.buf.get_unchecked_mut(s).write(x) };
        self.len += 1;
    }

    /// The front entry.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: `head < buf.len()` whenever an entry is held, and the entry there was
        // written by `push_back` and not yet popped.
        Some(unsafe { self.buf.get_unchecked(self.head as usize).assume_init_ref() })
    }

    /// Where the front entry lies (or would lie): for a cache hint only, never read
    /// through. A dangling but well-aligned pointer when nothing was ever pushed.
    #[inline(always)]
    pub fn front_ptr(&self) -> *const T {
        self.buf
            .as_ptr()
            .cast::<T>()
            .wrapping_add(self.head as usize)
    }

    /// Where the next [`Ring::push_back`] writes, unless the ring is full (then it
    /// grows first): for a cache hint only, never written through.
    #[inline(always)]
    pub fn back_ptr(&self) -> *const T {
        let at = match self.buf.len() {
            0 => 0,
            _ => self.slot(self.len),
        };
        self.buf.as_ptr().cast::<T>().wrapping_add(at)
    }

    /// Drops the front entry (`Copy`: nothing to run); does nothing if empty.
    #[inline]
    pub fn pop_front(&mut self) {
        if self.len == 0 {
            return;
        }
        self.head = self.slot(1) as u32;
        self.len -= 1;
    }

    /// Entry `i` from the front.
    ///
    /// # Panics
    /// If `i >= len()`, like indexing a `VecDeque`.
    #[inline]
    pub fn get(&self, i: usize) -> &T {
        assert!(i < self.len as usize, "ring index {i} out of range");
        let s = self.slot(i as u32);
        // SAFETY: `s < buf.len()` (masked) and entry `i < len` was written and not popped.
        unsafe { self.buf.get_unchecked(s).assume_init_ref() }
    }

    /// Doubles the capacity (at least 8), moving the entries to the front in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(8);
        // Positions are `u32`: 2³¹ entries of 24 bytes would be 48 GiB, far past the
        // world's memory guard, which stops a run long before this.
        assert!(cap <= 1 << 31, "a link pipe outgrew 2^31 packets");
        let mut buf: Box<[MaybeUninit<T>]> = Box::new_uninit_slice(cap);
        for i in 0..self.len {
            buf[i as usize] = self.buf[self.slot(i)];
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// The ring against `VecDeque` under random pushes, pops and reads, growing
        /// through several doublings and wrapping many times.
        #[test]
        fn behaves_like_a_vecdeque(ops in prop::collection::vec(0u8..10, 0..3000)) {
            let mut ring: Ring<(u64, u32)> = Ring::default();
            let mut reference = VecDeque::new();
            for (k, op) in ops.into_iter().enumerate() {
                match op {
                    // Slightly more pushes than pops: the ring grows, and wraps.
                    0..=5 => {
                        let x = (k as u64 * 7919, k as u32);
                        let (at, cap) = (ring.back_ptr(), ring.capacity());
                        ring.push_back(x);
                        // The hint for a push names the slot it writes, unless it grew.
                        if ring.capacity() == cap {
                            prop_assert_eq!(at, ring.get(ring.len() - 1) as *const _);
                        }
                        reference.push_back(x);
                    }
                    _ => {
                        ring.pop_front();
                        reference.pop_front();
                    }
                }
                prop_assert_eq!(ring.len(), reference.len());
                prop_assert_eq!(ring.is_empty(), reference.is_empty());
                prop_assert_eq!(ring.front(), reference.front());
                // The cache hint asks for the line the front entry is read from.
                if let Some(f) = ring.front() {
                    prop_assert_eq!(ring.front_ptr(), f as *const (u64, u32));
                }
                prop_assert!(ring.capacity() == 0 || ring.capacity().is_power_of_two());
                for i in [0, reference.len() / 2, reference.len().saturating_sub(1)] {
                    if i < reference.len() {
                        prop_assert_eq!(ring.get(i), &reference[i]);
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn reading_past_the_end_panics() {
        let mut ring: Ring<u32> = Ring::default();
        ring.push_back(1);
        ring.get(1);
    }
}
