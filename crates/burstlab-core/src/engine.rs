//! The discrete-event kernel: one event queue ordered by `(time, sequence)`.
//!
//! Ordering guarantees (relied upon by every component):
//! - events pop in non-decreasing time order;
//! - events scheduled for the same time pop in the order they were scheduled (FIFO),
//!   because every insertion receives a strictly increasing sequence number;
//! - scheduling an event before the current time is an error ([`ScheduleError`]);
//! - there is no eager cancellation: a component that wants to cancel a timer keeps a
//!   generation counter or deadline and ignores stale events when they pop (lazy
//!   cancellation). This keeps `schedule` and `pop` O(log n) with no per-event allocation.
//!
//! The queue is fuzz-tested against a trivial reference (sorted `Vec`) below.

use crate::units::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleError {
    pub now: SimTime,
    pub at: SimTime,
}

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "event scheduled in the past: at {} while now is {}",
            self.at, self.now
        )
    }
}
impl std::error::Error for ScheduleError {}

struct Entry<E> {
    /// `time << 64 | seq`: one integer comparison orders by time then insertion.
    key: u128,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse to pop the smallest key first.
        o.key.cmp(&self.key)
    }
}

/// A deterministic future-event list.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    now: SimTime,
    seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(64),
            now: SimTime::ZERO,
            seq: 0,
            popped: 0,
        }
    }

    /// Current simulated time: the time of the last popped event.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `ev` at absolute time `at` (which may equal `now`).
    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: E) -> Result<(), ScheduleError> {
        if at < self.now {
            return Err(ScheduleError { now: self.now, at });
        }
        self.push(at, ev);
        Ok(())
    }

    /// Schedules `ev` at `at`, which the caller guarantees is not in the past
    /// (checked in debug builds). Used in the hot path where `at = now + d`.
    #[inline]
    pub fn push(&mut self, at: SimTime, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let key = ((at.0 as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, ev });
    }

    /// Removes and returns the earliest event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        let t = SimTime((e.key >> 64) as u64);
        self.now = t;
        self.popped += 1;
        Some((t, e.ev))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// Bytes the queue holds (for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Entry<E>>()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn same_time_is_fifo() {
        let mut q = EventQueue::new();
        for i in 0..10 {
            q.schedule(SimTime(5), i).unwrap();
        }
        let got: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 1).unwrap();
        q.pop();
        assert_eq!(
            q.schedule(SimTime(9), 2),
            Err(ScheduleError {
                now: SimTime(10),
                at: SimTime(9)
            })
        );
        assert!(q.schedule(SimTime(10), 3).is_ok());
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(u64),
        Pop,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![(0u64..50).prop_map(Op::Push), Just(Op::Pop)]
    }

    proptest! {
        /// The heap against a trivial reference: a Vec kept sorted by (time, seq).
        #[test]
        fn matches_reference(ops in proptest::collection::vec(op(), 0..400)) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            for o in ops {
                match o {
                    Op::Push(dt) => {
                        let at = q.now().0 + dt;
                        q.schedule(SimTime(at), seq).unwrap();
                        reference.push((at, seq));
                        seq += 1;
                    }
                    Op::Pop => {
                        reference.sort();
                        let expect = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                        let got = q.pop().map(|(t, e)| (t.0, e));
                        prop_assert_eq!(got, expect);
                    }
                }
            }
            prop_assert_eq!(q.len(), reference.len());
        }
    }
}
