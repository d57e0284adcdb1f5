//! The ingress electronic buffer (`obs.ingress`): a burst that finds no wavelength on
//! its first fibre waits at the ingress, in the electronic domain, for the earliest
//! feasible reservation, and its BCP leaves when the wait ends (the burst one offset
//! later). nOBS makes the same delayed first reservation (`optical/op-schedule.cc`, at
//! the first link, bounded by `MAX_DELAYED_BURST` bursts of the largest size).
//!
//! Read first: [`IngressBuffer::depart`]. The buffer is FIFO per first fibre: a burst
//! never sends its BCP before one that waits ahead of it on the same fibre, even if a
//! wavelength is free now. It holds at most `max_bursts` bursts and `max_bytes` bytes
//! per first fibre (bursts whose BCP has not left yet); a burst beyond either limit,
//! or one with no wavelength within `max_wait`, is lost to `contention`. The
//! reservation is made when the burst is formed (it cannot be taken by a later burst).

use super::core_node::{Core, Step};
use super::route::BurstRoute;
use crate::scenario::ResolvedIngress;
use crate::units::SimTime;
use std::collections::VecDeque;

pub struct IngressBuffer {
    cfg: ResolvedIngress,
    /// Per first fibre: the waiting bursts' BCP times and bytes, oldest first.
    waiting: Vec<VecDeque<(SimTime, u64)>>,
    /// Bursts that waited, and their total wait (for `bursts_delayed`, `mean_wait`).
    pub delayed: u64,
    pub wait_ps: u128,
}

impl IngressBuffer {
    pub fn new(cfg: ResolvedIngress) -> IngressBuffer {
        IngressBuffer {
            cfg,
            waiting: Vec::new(),
            delayed: 0,
            wait_ps: 0,
        }
    }

    /// The ingress emits burst `r` at `now`: at once if a wavelength is free and no
    /// burst waits ahead of it, else after the shortest wait the buffer allows.
    pub fn depart(&mut self, now: SimTime, core: &mut Core, r: &mut BurstRoute) -> Step {
        // Not sent yet (a refusal below is a loss at the ingress, never retransmitted).
        r.hop = 0;
        let f0 = r.path[0] as usize;
        if f0 >= self.waiting.len() {
            self.waiting.resize_with(f0 + 1, VecDeque::new);
        }
        let q = &mut self.waiting[f0];
        while q.front().is_some_and(|&(t, _)| t <= now) {
            q.pop_front();
        }
        // FIFO: not before the last burst waiting on this fibre.
        let from = q.back().map_or(now, |&(t, _)| t.max(now));
        let latest = now
            .checked_add(self.cfg.max_wait)
            .unwrap_or(SimTime(u64::MAX));
        let Some((t, fi)) = core.ingress_earliest(now, from, latest, r) else {
            return core.ingress_refused(r);
        };
        if t > now {
            let full_n = self.cfg.max_bursts.is_some_and(|m| q.len() as u64 >= m);
            let held: u64 = q.iter().map(|&(_, b)| b).sum();
            let full_b = self
                .cfg
                .max_bytes
                .is_some_and(|m| held.saturating_add(r.bytes) > m);
            if full_n || full_b {
                return core.ingress_refused(r);
            }
            q.push_back((t, r.bytes));
            self.delayed += 1;
            self.wait_ps += (t - now).0 as u128;
        }
        core.depart_at(t, fi, r)
    }
}
