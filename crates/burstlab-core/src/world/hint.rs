//! Cache hints for memory the world will read soon.
//!
//! At hundreds of flows, packets wait in queues while tens of thousands of others pass,
//! and what they left in memory (a link's pipe entries, their record in the packet pool)
//! has left the caches by the time it is read again. Where the world knows early which
//! line it will read next, it asks the CPU to fetch it while other events run. A hint
//! changes no result: it never faults, whatever the address, and only the timing of
//! later reads depends on it.

/// Asks the CPU to bring the cache line at address `p` into its caches. `p` is never
/// dereferenced, so it may point anywhere, even past the end of an allocation (callers
/// compute it with `wrapping_add`, which is defined for any offset).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 only hints the cache hierarchy: it never faults, whatever the
    // address, and changes no architectural state (Intel SDM Vol. 2B, PREFETCHh).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks for the cache lines of the `len` bytes at `p` (`1 <= len <= 64`: at most two
/// lines, those of the first and the last byte; one hint each, even when they are the
/// same line, which costs less than telling the two cases apart in the event loop).
#[inline(always)]
pub(crate) fn prefetch_span<T>(p: *const T, len: usize) {
    debug_assert!((1..=64).contains(&len));
    prefetch(p);
    prefetch(p.cast::<u8>().wrapping_add(len - 1));
}
