//! Packet links: one component owning every link direction (FIFO transmitter, drop-tail
//! queue, propagation pipe, independent loss) and its counters.
//!
//! Read first: [`Links::offer`] and [`Links::pop_due`].
//!
//! One pending event per busy link (htsim, STYLE.md §7): a link direction holds at most
//! ONE pending event, the arrival of the head of its propagation FIFO at the far end.
//! The transmitter needs no event: a link is FIFO, so each packet's transmission starts
//! at `max(now, busy_until)`, and the drop-tail occupancy at any instant is the number
//! of packets whose transmission has not yet started. Waiting packets cost nothing.

use crate::rng::RngStream;
use crate::stats::LinkRow;
use crate::units::{BitRate, SimTime};
use std::collections::VecDeque;

/// Counters of a link direction, over `[warmup, end)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    pub pkts_offered: u64,
    pub pkts_delivered: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Transmission time (ps) booked on the transmitter since the start of the
    /// measurement window: at warm-up it restarts from the booked time that lies past the
    /// warm-up instant. The part booked past the end of the run is taken off when the
    /// rows are made (see [`Links::rows`]).
    pub busy_ps: u128,
}

/// Parameters of one link direction.
pub struct LinkParams {
    pub rate: BitRate,
    pub delay: SimTime,
    pub qlimit_pkts: Option<u64>,
    pub qlimit_bytes: Option<u64>,
    pub loss: f64,
    pub rng: RngStream,
    /// `(spec index, from node, to node)`; `None` for a hidden link (an OBS bypass for
    /// ACKs), which is not reported.
    pub report: Option<(usize, u32, u32)>,
    /// The node at the far end.
    pub to: u32,
}

impl LinkParams {
    /// Whether the drop-tail queue has a limit (in packets or bytes).
    #[inline]
    fn limited(&self) -> bool {
        self.qlimit_pkts.is_some() || self.qlimit_bytes.is_some()
    }
}

struct Link {
    p: LinkParams,
    busy_until: SimTime,
    /// Transmission (start, end, bytes) of packets whose transmission has not ended
    /// (front = oldest); purged lazily on the next offer. Only kept for limited queues.
    backlog: VecDeque<(SimTime, SimTime, u32)>,
    backlog_bytes: u64,
    /// Packets propagating: (arrival time at the far end, packet id, its position).
    pipe: VecDeque<(SimTime, u32, Pos)>,
    c: LinkCounters,
}

/// Where a packet is on its route, carried beside it through a link's pipe so that a
/// packet crossing routers is forwarded without reading its record in the packet pool
/// (at hundreds of flows the pool outgrows the caches and that read is a cache miss).
/// The record's own `hop` is brought up to date when the packet leaves the links (at an
/// OBS ingress); at delivery it is no longer needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Index of the packet's next hop in the world's flat hop table (every route's hops
    /// one after another, each route closed by [`super::packet::Hop::Deliver`]).
    pub at: u32,
    pub bytes: u32,
}

/// What became of a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Dropped by the drop-tail queue.
    QueueFull,
    /// Lost on the link (after occupying the transmitter).
    Lost,
    /// In the pipe; if `Some(t)`, the link was idle and needs its one event at `t`.
    Sent(Option<SimTime>),
}

/// The next packet of a link's pipe at time `now`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// Packet `0`, at position `1` of its route, has arrived at the far end (already
    /// counted).
    Packet(u32, Pos),
    /// The next arrival is at `0`: the link's one event must be rescheduled there.
    Later(SimTime),
    /// The pipe is empty.
    Idle,
}

/// Every packet link direction of the world.
#[derive(Default)]
pub struct Links {
    links: Vec<Link>,
    /// The measurement window `[warmup, end)`.
    window: (SimTime, SimTime),
}

impl Links {
    /// Links measured over `[warmup, end)`.
    pub fn new(warmup: SimTime, end: SimTime) -> Links {
        Links {
            links: Vec::new(),
            window: (warmup, end),
        }
    }

    /// Adds a link direction; returns its index.
    pub fn add(&mut self, p: LinkParams) -> u32 {
        self.links.push(Link {
            p,
            busy_until: SimTime::ZERO,
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            pipe: VecDeque::new(),
            c: LinkCounters::default(),
        });
        (self.links.len() - 1) as u32
    }

    /// Offers packet `id` of `bytes` to link `li` at time `now`.
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, li: u32, id: u32, pos: Pos) -> Offer {
        let bytes = pos.bytes;
        let link = &mut self.links[li as usize];
        link.c.pkts_offered += 1;
        // Drop-tail: count packets waiting (transmission not started), not the one on
        // the wire. Links without a limit keep no backlog at all.
        let limited = link.p.limited();
        if limited {
            while let Some(&(_, end, b)) = link.backlog.front() {
                if end <= now {
                    link.backlog.pop_front();
                    link.backlog_bytes -= b as u64;
                } else {
                    break;
                }
            }
            let (mut waiting, mut wbytes) = (link.backlog.len() as u64, link.backlog_bytes);
            if let Some(&(start, _, b)) = link.backlog.front() {
                if start <= now {
                    waiting -= 1;
                    wbytes -= b as u64;
                }
            }
            let over_p = link.p.qlimit_pkts.is_some_and(|lim| waiting >= lim);
            let over_b = link
                .p
                .qlimit_bytes
                .is_some_and(|lim| wbytes + bytes as u64 > lim);
            if over_p || over_b {
                link.c.drops_queue += 1;
                return Offer::QueueFull;
            }
        }
        let start = if link.busy_until > now {
            link.busy_until
        } else {
            now
        };
        let tx = link.p.rate.tx_time(bytes.into());
        let end = start + tx;
        link.busy_until = end;
        link.c.busy_ps += tx.0 as u128;
        if limited {
            link.backlog.push_back((start, end, bytes));
            link.backlog_bytes += bytes as u64;
        }
        if link.p.loss > 0.0 && link.p.rng.bernoulli(link.p.loss) {
            link.c.drops_loss += 1;
            return Offer::Lost;
        }
        let arrive = end + link.p.delay;
        let was_empty = link.pipe.is_empty();
        link.pipe.push_back((arrive, id, pos));
        Offer::Sent(was_empty.then_some(arrive))
    }

    /// The node at the far end of link `li`.
    #[inline]
    pub fn to(&self, li: u32) -> u32 {
        self.links[li as usize].p.to
    }

    /// Takes the head of link `li`'s pipe if it has arrived by `now`.
    #[inline]
    pub fn pop_due(&mut self, now: SimTime, li: u32) -> Due {
        let link = &mut self.links[li as usize];
        match link.pipe.front() {
            Some(&(t, id, pos)) if t <= now => {
                link.pipe.pop_front();
                link.c.pkts_delivered += 1;
                Due::Packet(id, pos)
            }
            Some(&(t, _, _)) => Due::Later(t),
            None => Due::Idle,
        }
    }

    /// Bytes held by the links' queues and pipes (an estimate for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.links
            .iter()
            .map(|l| {
                l.backlog.capacity() * std::mem::size_of::<(SimTime, SimTime, u32)>()
                    + l.pipe.capacity() * std::mem::size_of::<(SimTime, u32, Pos)>()
            })
            .sum()
    }

    /// The reported link direction holding the most packets (queued or propagating):
    /// `(from node, to node, packets, whether its queue is limited)`.
    pub fn fullest(&self) -> Option<(u32, u32, usize, bool)> {
        self.links
            .iter()
            .filter_map(|l| l.p.report.map(|(_, from, to)| (l, from, to)))
            .max_by_key(|(l, _, _)| l.pipe.len())
            .map(|(l, from, to)| (from, to, l.pipe.len(), l.p.limited()))
    }

    /// End of warm-up: the counters restart. A link's transmissions form one contiguous
    /// block from the one under way onwards (each queued packet starts when the previous
    /// ends), so the busy time already booked past the warm-up instant is exactly
    /// `busy_until − warmup`; the window's busy time starts from it.
    pub fn warmup(&mut self) {
        let w0 = self.window.0;
        for l in &mut self.links {
            l.c = LinkCounters {
                busy_ps: l.busy_until.saturating_sub(w0).0 as u128,
                ..LinkCounters::default()
            };
        }
    }

    /// The result rows of the reported links, over the window `[warmup, end)`.
    pub fn rows(&self, names: &[String]) -> Vec<LinkRow> {
        let span_s = self.window.1.saturating_sub(self.window.0).as_secs_f64();
        self.links
            .iter()
            .filter_map(|l| l.p.report.map(|r| (l, r)))
            .enumerate()
            .map(|(i, (l, (spec, from, to)))| LinkRow {
                link: i as u32,
                spec_index: spec as u32,
                from: names[from as usize].clone(),
                to: names[to as usize].clone(),
                pkts_offered: l.c.pkts_offered,
                pkts_delivered: l.c.pkts_delivered,
                drops_queue: l.c.drops_queue,
                drops_loss: l.c.drops_loss,
                // Busy time booked past the end of the run is not in the window (the
                // same contiguity argument as in `warmup`).
                utilisation: ((l.c.busy_ps - l.busy_until.saturating_sub(self.window.1).0 as u128)
                    as f64
                    / 1e12)
                    / span_s,
            })
            .collect()
    }
}
