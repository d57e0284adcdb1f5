//! Packet links: one component owning every link direction (FIFO transmitter, drop-tail
//! queue, propagation pipe, independent loss) and its counters.
//!
//! Read first: [`Links::offer`] and [`Links::pop_due`].
//!
//! One pending event per busy link (htsim; docs/design.md): a link direction holds at most
//! ONE pending event, the arrival of the head of its propagation FIFO at the far end.
//! The transmitter needs no event: a link is FIFO, so each packet's transmission starts
//! at `max(now, busy_until)`, and the drop-tail occupancy at any instant is the number
//! of packets whose transmission has not yet started. Waiting packets cost nothing.
//!
//! Passing through ([`Links::pass_through`]): a link that only one link feeds and that
//! never drops is entered ahead of the clock. A packet bound for it skips its feeding
//! link's pipe and arrival event when that pipe is empty, and is offered to it at once,
//! at its arrival time; a limited queue at the feeding link then counts its waiting
//! packets from its record of transmission start times, which has the passed ones too.
//!
//! Layout: what every packet touches (the pipe, the transmitter's clock, the delay, the
//! per-byte serialisation cost, the counters a packet moves) is one 64-byte line per
//! link direction (the pipe is a 24-byte ring, `ring.rs`, so that all of it fits); the
//! rest (queue limits, loss, the drop-tail count, names, the rate where it has no whole
//! per-byte cost) is read only by links that need it. At hundreds of flows the link
//! table no longer fits in the caches, and a packet crossing a link then costs one line.

use super::ring::Ring;
use crate::rng::RngStream;
use crate::stats::LinkRow;
use crate::units::{BitRate, SimTime, PS_PER_SEC};
use std::collections::VecDeque;

/// Drop counters of a link direction, over `[warmup, end)` (the per-packet counters are
/// in `Hot`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Packets in the pipe at the end of warm-up: they arrive inside the window although
    /// they were offered before it (see [`Links::rows`]).
    pub pipe_at_warmup: u64,
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
    /// The node at the far end is a host: every packet arriving is delivered there
    /// (only a cache hint depends on it: see [`Links::set_names`]).
    pub to_host: bool,
}

impl LinkParams {
    /// Whether the drop-tail queue has a limit (in packets or bytes).
    #[inline]
    fn limited(&self) -> bool {
        self.qlimit_pkts.is_some() || self.qlimit_bytes.is_some()
    }
}

/// No link (a sentinel: see [`Links::set_reply`], and `World::through`).
pub const NO_LINK: u32 = u32::MAX;

/// A packet in a pipe: its arrival time at the far end, its id, its position.
type Entry = (SimTime, u32, Pos);

/// The part of a link direction that every packet reads and writes: one cache line.
#[repr(C, align(64))]
struct Hot {
    /// Packets propagating: (arrival time at the far end, packet id, its position).
    pipe: Ring<Entry>,
    busy_until: SimTime,
    delay: SimTime,
    /// Transmission time (ps) booked on the transmitter since the start of the
    /// measurement window: at warm-up it restarts from the booked time that lies past the
    /// warm-up instant. The part booked past the end of the run is taken off when the
    /// rows are made (see [`Links::rows`]). Transmissions never overlap, so this is at
    /// most `busy_until` and fits in 64 bits.
    busy_ps: u64,
    /// Packets offered in the window (delivered ones are derived: [`Links::rows`]).
    pkts_offered: u64,
    /// Picoseconds per byte when the rate divides 8·10¹² b·ps/s exactly (1 Gb/s: 8,000;
    /// 100 Mb/s: 80,000; N × 50 Mb/s for N dividing 160,000) and the quotient fits 32
    /// bits, so that `bytes × ps_per_byte` fits 64 bits for any `u32` size; else 0, and
    /// the offer divides by the rate ([`BitRate::tx_time`], out of line). Then
    /// `bytes × ps_per_byte` is exactly `tx_time(bytes)`: a multiplication instead of a
    /// 64-bit division, which a profile of the 5-hop path put at about a tenth of the run.
    ps_per_byte: u32,
    /// The drop-tail queue has a limit (it is counted as [`Cold::count`] says).
    limited: bool,
    /// The link loses packets at random.
    lossy: bool,
    /// The link's arrival event names the arriving packet ([`Ev::LinkArrive`]'s hint),
    /// as the event may read its record to deliver it: the far end is a host
    /// ([`LinkParams::to_host`]), or the packet may pass on from there to a host that
    /// takes packets early, or the far end is an OBS ingress edge, which reads the
    /// record to queue the packet ([`Links::set_names`]). Only a cache hint depends on
    /// it.
    ///
    /// [`Ev::LinkArrive`]: super::Ev::LinkArrive
    names: bool,
    /// What the link feeds ([`Links::set_feeds`]): at `Link` or `Host` its offers may say
    /// [`Offer::Passable`].
    feeds: Feeds,
}

/// What a link feeds, as far as passing packets ahead of the clock goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Feeds {
    /// Nothing packets may be passed into.
    No,
    /// It is the one feeder of a link packets may be passed into ([`Links::pass_through`]).
    Link,
    /// Its far end is a host that takes packets ahead of the clock (the world's early
    /// delivery). Unlike a link passed into, such a host may take a packet that waited at
    /// this link, if it waited less than [`HOST_WAIT_MAX`].
    Host,
}

/// The longest a packet may have waited at a link for the host at its far end to take it
/// ahead of the clock ([`Feeds::Host`]). Packets that wait longer stay in the pipe, and so
/// do the ones after them while it holds any, so that a queue building up without bound
/// is seen there (in the memory guard's message, for one): before the memory guard could
/// notice it (tens of MiB at least), such a queue holds seconds of transmissions. At a
/// 10-flow dumbbell a bound of one link delay (1 ms) left a fifth of the deliveries in
/// the pipes, behind the bursts of slow start.
pub const HOST_WAIT_MAX: SimTime = SimTime(PS_PER_SEC);

// Everything an offer reads and writes, in one line.
const _: () = assert!(std::mem::size_of::<Hot>() == 64);

/// [`Hot::ps_per_byte`] of a link at `rate`.
fn ps_per_byte(rate: BitRate) -> u32 {
    let bit_ps = 8 * PS_PER_SEC;
    match rate.0 {
        0 => 0,
        r if bit_ps.is_multiple_of(r) => u32::try_from(bit_ps / r).unwrap_or(0),
        _ => 0,
    }
}

/// The part of a link direction read only for limited queues, lossy links and results.
struct Cold {
    p: LinkParams,
    /// How a limited queue counts its waiting packets.
    count: QueueCount,
    /// Transmission (start, end, bytes) of packets whose transmission has not ended
    /// (front = oldest); purged lazily on the next offer. Kept only under
    /// [`QueueCount::Backlog`].
    backlog: VecDeque<(SimTime, SimTime, u32)>,
    backlog_bytes: u64,
    /// Under [`QueueCount::Starts`]: the transmission start times of the packets whose
    /// transmission had not started at the last offer, and of those offered since.
    starts: Ring<SimTime>,
    /// Under [`QueueCount::Pipe`]: packets ever put into the pipe, and the number of the
    /// first one whose transmission had not ended at the last offer (packets are
    /// numbered from 0 in the order they entered the pipe).
    pushed: u64,
    ended: u64,
    c: LinkCounters,
}

/// Serialisation time of `bytes` on a link whose rate does not divide a byte's bits into
/// whole picoseconds (see [`Hot::ps_per_byte`]); out of the event loop's inlined code.
#[inline(never)]
fn tx_time_by_division(cold: &Cold, bytes: u32) -> SimTime {
    cold.p.rate.tx_time(bytes.into())
}

/// How a limited drop-tail queue finds the packets whose transmission has not started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QueueCount {
    /// No limit: nothing is counted.
    None,
    /// From the pipe itself: every packet offered and not dropped is in the pipe until it
    /// arrives, in transmission order, and its transmission ended exactly `delay` before
    /// its arrival. Used when the queue is limited in packets and the link loses nothing.
    Pipe,
    /// From a separate record of every transmission (a packet lost on the link occupies
    /// the transmitter but never enters the pipe, and a limit in bytes needs the bytes).
    Backlog,
    /// From a record of transmission start times alone: a queue limited in packets at a
    /// link that loses nothing and passes packets through (its pipe does not hold them:
    /// [`Links::set_feeds`]). Transmissions follow one another without overlap, so the
    /// packets waiting at `now` are exactly those starting after `now`: 8 bytes per
    /// waiting packet, against 24 in the backlog.
    Starts,
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
    /// In the pipe; if `Some((t, deliver))`, the link was idle and needs its one event
    /// at `t`, and `deliver` names the packet if the link names its packets (as in
    /// [`Due::Later`]).
    Sent(Option<(SimTime, Option<u32>)>),
    /// At a link that feeds one packets may be passed into ([`Links::set_feeds`]), and
    /// the packet may be passed through: it is not in the pipe, and would arrive at the
    /// far end at `0` (before `passes_before`), with the event hint `1` (as in
    /// `Sent(Some((0, 1)))`). The caller either passes it through (see
    /// [`Links::pass_through`]) or puts it into the pipe with [`Links::enter`].
    Passable(SimTime, Option<u32>),
}

/// How many pipe entries past the head [`Links::pop_due`] prefetches: a 64-byte line
/// holds 2.7 entries of 24 bytes, so the entry four past the head (three past the next
/// one) is in the line after the next head's.
const PREFETCH_AHEAD: usize = 4;

/// The next packet of a link's pipe at time `now`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// Packet `0`, at position `1` of its route, has arrived at the far end (already
    /// counted).
    Packet(u32, Pos),
    /// The next arrival is at `0`: the link's one event must be rescheduled there. If the
    /// link names its packets ([`Links::set_names`]), `1` is that packet's id: its
    /// record in the pool, written when it was sent, will most likely be read on
    /// delivery in that event, and the world fetches it meanwhile.
    Later(SimTime, Option<u32>),
    /// The pipe is empty.
    Idle,
    /// The next arrival is later, and the packets left in the pipe may all pass through
    /// now: the world takes them out with [`Links::take_front`], in order, for as long as
    /// they are bound for the link this one feeds, and schedules the link's event for the
    /// first that is not, if any. That is, the link feeds one, has a queue limit, and the
    /// last of them arrives inside the current measurement period. At a busy link a
    /// packet kept in the pipe (one that would have arrived past warm-up, offered before
    /// it) would otherwise keep every later one in the pipe too, for as long as the link
    /// stays busy. (At a link without a limit the packets in the pipe are those that
    /// waited, and stay there.)
    Flush,
}

/// Every packet link direction of the world.
#[derive(Default)]
pub struct Links {
    hot: Vec<Hot>,
    cold: Vec<Cold>,
    /// Per link: [`Links::set_reply`] (`NO_LINK` unless set).
    reply: Vec<u32>,
    /// The measurement window `[warmup, end)`.
    window: (SimTime, SimTime),
    /// A packet passed through a link ([`Links::pass_through`]) must arrive before this:
    /// the end of the run, and before warm-up ends also the warm-up instant. Its next link
    /// then counts it in the same period as an arrival event would, and a packet in
    /// flight at warm-up or at the end is in a pipe, where the counters look for it.
    passes_before: SimTime,
}

impl Links {
    /// Links measured over `[warmup, end)`.
    pub fn new(warmup: SimTime, end: SimTime) -> Links {
        Links {
            hot: Vec::new(),
            cold: Vec::new(),
            reply: Vec::new(),
            window: (warmup, end),
            // Without warm-up the counters never restart.
            passes_before: if warmup > SimTime::ZERO {
                warmup.min(end)
            } else {
                end
            },
        }
    }

    /// Link `li`'s rate and delay (for the ideal completion time, `world/fct.rs`).
    pub fn rate_delay(&self, li: u32) -> (crate::units::BitRate, SimTime) {
        let p = &self.cold[li as usize].p;
        (p.rate, p.delay)
    }

    /// The number of links (each direction of a scenario link is one).
    pub fn len(&self) -> usize {
        self.hot.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hot.is_empty()
    }

    /// Adds a link direction; returns its index.
    pub fn add(&mut self, p: LinkParams) -> u32 {
        self.hot.push(Hot {
            pipe: Ring::default(),
            busy_until: SimTime::ZERO,
            delay: p.delay,
            busy_ps: 0,
            pkts_offered: 0,
            ps_per_byte: ps_per_byte(p.rate),
            limited: p.limited(),
            lossy: p.loss > 0.0,
            names: p.to_host,
            feeds: Feeds::No,
        });
        self.reply.push(NO_LINK);
        let count = if !p.limited() {
            QueueCount::None
        } else if p.loss > 0.0 || p.qlimit_bytes.is_some() {
            QueueCount::Backlog
        } else {
            QueueCount::Pipe
        };
        self.cold.push(Cold {
            p,
            count,
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            starts: Ring::default(),
            pushed: 0,
            ended: 0,
            c: LinkCounters::default(),
        });
        (self.hot.len() - 1) as u32
    }

    /// Offers packet `id` of `bytes` to link `li` at time `now`.
    ///
    /// `now` lies ahead of the simulation clock when the packet was passed through the
    /// link before this one (see [`Links::pass_through`]).
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, li: u32, id: u32, pos: Pos) -> Offer {
        let bytes = pos.bytes;
        let link = &mut self.hot[li as usize];
        link.pkts_offered += 1;
        // Drop-tail: links without a limit count nothing.
        if link.limited && !Self::admit(link, &mut self.cold[li as usize], now, bytes) {
            return Offer::QueueFull;
        }
        let start = if link.busy_until > now {
            link.busy_until
        } else {
            now
        };
        let tx = if link.ps_per_byte != 0 {
            // `bytes < 2³²` and `ps_per_byte < 2³²`: no overflow (see [`Hot`]).
            SimTime(bytes as u64 * link.ps_per_byte as u64)
        } else {
            tx_time_by_division(&self.cold[li as usize], bytes)
        };
        let end = start + tx;
        link.busy_until = end;
        link.busy_ps += tx.0;
        if link.limited || link.lossy {
            let cold = &mut self.cold[li as usize];
            match cold.count {
                QueueCount::Pipe => cold.pushed += 1,
                QueueCount::Starts => cold.starts.push_back(start),
                QueueCount::Backlog => {
                    cold.backlog.push_back((start, end, bytes));
                    cold.backlog_bytes += bytes as u64;
                }
                QueueCount::None => {}
            }
            if link.lossy && cold.p.rng.bernoulli(cold.p.loss) {
                cold.c.drops_loss += 1;
                return Offer::Lost;
            }
        }
        let arrive = end + link.delay;
        let was_empty = link.pipe.is_empty();
        // A packet may pass through (at a link that feeds one packets may be passed into)
        // unless a packet in the pipe is still to reach the fed link (the pipe holds only
        // packets that did not pass: while the link passes every packet, its pipe stays
        // empty), or it arrives past its measurement period. At a link without a queue
        // limit it must not wait either: a queue building up there is seen in its pipe
        // (in the memory guard's message, for one). A limited queue counts its packets
        // from its record of start times, which has the passed ones too (`set_feeds`).
        // A host that takes packets early may take one that waited a little (see
        // [`Feeds::Host`]).
        if link.feeds != Feeds::No
            && was_empty
            && arrive < self.passes_before
            && (link.limited
                || start == now
                || (link.feeds == Feeds::Host && start - now < HOST_WAIT_MAX))
        {
            return Offer::Passable(arrive, link.names.then_some(id));
        }
        link.pipe.push_back((arrive, id, pos));
        if was_empty {
            Offer::Sent(Some((arrive, link.names.then_some(id))))
        } else {
            Offer::Sent(None)
        }
    }

    /// Drop-tail admission at a limited link: whether a packet of `bytes` finds room,
    /// counting the packets waiting (transmission not started), not the one on the wire.
    #[inline(always)]
    fn admit(link: &Hot, cold: &mut Cold, now: SimTime, bytes: u32) -> bool {
        match cold.count {
            QueueCount::Pipe => {}
            QueueCount::Starts => return Self::admit_by_starts(cold, now),
            _ => return Self::admit_by_backlog(cold, now, bytes),
        }
        // The packets whose transmission has not ended are the pipe's tail from the first
        // one that arrives later than `now + delay`; the cursor `ended` only moves
        // forward, so each packet is passed once. The first of them is on the wire: it
        // started at the later of its offer and the previous packet's end, both `≤ now`.
        // The others wait.
        let pipe = &link.pipe;
        let front = cold.pushed - pipe.len() as u64;
        let mut c = cold.ended.max(front);
        let ended_by = now + link.delay;
        while c < cold.pushed {
            let e = pipe.get((c - front) as usize);
            if e.0 > ended_by {
                // The cursor reads the pipe in order, as `pop_due` does, in lines
                // written long ago at a long queue: fetch its next line meanwhile.
                super::hint::prefetch((e as *const Entry).wrapping_add(PREFETCH_AHEAD));
                break;
            }
            c += 1;
        }
        cold.ended = c;
        let waiting = (cold.pushed - c).saturating_sub(1);
        if cold.p.qlimit_pkts.is_some_and(|lim| waiting >= lim) {
            cold.c.drops_queue += 1;
            return false;
        }
        true
    }

    /// [`Links::admit`] for a queue counted from its record of start times
    /// ([`QueueCount::Starts`]).
    #[inline(always)]
    fn admit_by_starts(cold: &mut Cold, now: SimTime) -> bool {
        while let Some(&s) = cold.starts.front() {
            if s > now {
                break;
            }
            cold.starts.pop_front();
        }
        let waiting = cold.starts.len() as u64;
        if cold.p.qlimit_pkts.is_some_and(|lim| waiting >= lim) {
            cold.c.drops_queue += 1;
            return false;
        }
        true
    }

    /// [`Links::admit`] for a queue counted from its record of transmissions (a lossy
    /// link, or a limit in bytes); kept out of the event loop's inlined code.
    #[inline(never)]
    fn admit_by_backlog(cold: &mut Cold, now: SimTime, bytes: u32) -> bool {
        while let Some(&(_, end, b)) = cold.backlog.front() {
            if end <= now {
                cold.backlog.pop_front();
                cold.backlog_bytes -= b as u64;
            } else {
                break;
            }
        }
        let (mut waiting, mut wbytes) = (cold.backlog.len() as u64, cold.backlog_bytes);
        if let Some(&(start, _, b)) = cold.backlog.front() {
            if start <= now {
                waiting -= 1;
                wbytes -= b as u64;
            }
        }
        let over_p = cold.p.qlimit_pkts.is_some_and(|lim| waiting >= lim);
        let over_b = cold
            .p
            .qlimit_bytes
            .is_some_and(|lim| wbytes + bytes as u64 > lim);
        if over_p || over_b {
            cold.c.drops_queue += 1;
            return false;
        }
        true
    }

    /// Puts packet `id`, at position `pos` of its route, into link `li`'s pipe to arrive
    /// at `t`, after an offer that said [`Offer::Passable`] (so the pipe is empty, and the
    /// link needs its one event at `t`).
    #[inline]
    pub fn enter(&mut self, li: u32, t: SimTime, id: u32, pos: Pos) {
        let link = &mut self.hot[li as usize];
        debug_assert!(link.pipe.is_empty());
        link.pipe.push_back((t, id, pos));
    }

    /// `(from, to)` of the reported link directions whose events name their packets
    /// ([`Links::set_names`]), in link order.
    pub fn naming(&self) -> Vec<(u32, u32)> {
        self.hot
            .iter()
            .zip(&self.cold)
            .filter(|(h, _)| h.names)
            .filter_map(|(_, c)| c.p.report.map(|(_, from, to)| (from, to)))
            .collect()
    }

    /// Whether link `li`'s event names the arriving packet where its far end is not a
    /// host (a cache hint only): the world sets it where the packet may pass on from there
    /// to a host that takes it early, and where the far end is an OBS ingress edge. Links
    /// into hosts always name theirs.
    pub fn set_names(&mut self, li: u32, also: bool) {
        self.hot[li as usize].names = also || self.cold[li as usize].p.to_host;
    }

    /// Link `li` is the one feeder of a link packets may be passed into (the world's
    /// `through` table): its offers may say [`Offer::Passable`]. A queue limit counted
    /// from the pipe is counted from a record of transmission start times from now on
    /// (`QueueCount::Starts`; the counts agree:
    /// `the_three_queue_counts_drop_alike`), since a packet that waits may pass. Called
    /// before the first packet.
    pub fn set_feeds(&mut self, li: u32, feeds: Feeds) {
        let (h, c) = (&mut self.hot[li as usize], &mut self.cold[li as usize]);
        h.feeds = feeds;
        if feeds != Feeds::No && c.count == QueueCount::Pipe {
            c.count = QueueCount::Starts;
        }
    }

    /// The front packet of link `li`'s pipe, taken out before its arrival to pass it
    /// through (see [`Due::Flush`]): `(arrival, id, position)`.
    #[inline]
    pub fn front(&self, li: u32) -> Option<Entry> {
        self.hot[li as usize].pipe.front().copied()
    }

    /// Takes out the front packet of link `li`'s pipe (see [`Links::front`]).
    #[inline]
    pub fn take_front(&mut self, li: u32) {
        self.hot[li as usize].pipe.pop_front();
    }

    /// Passing through (the other answer to [`Offer::Passable`]): the packet stays out of
    /// link `li`'s pipe, `li` needs no event for it, and the caller offers it to its next
    /// link at its arrival time, which may lie ahead of the simulation clock. This
    /// function only states the conditions; the offer has done the rest.
    ///
    /// The caller does so only if that next link takes packets from `li` alone and never
    /// drops one (the world's `through` table). Then it is exact: packets enter the next
    /// link in the order they leave `li` (FIFO, one delay), every earlier one bound for
    /// it has already entered it (none is left in `li`'s pipe), no later offer to it can
    /// come from anywhere else, and nothing reads the packet before it arrives. The queue
    /// counters see no difference either: a limited queue counts from a record of
    /// transmissions or of their start times, which has the packet, an unlimited one
    /// counts nothing, and the packet arrives inside the measurement period it was
    /// offered in (see `passes_before`). Only the order in which simultaneous events are
    /// handled could change (an event is scheduled earlier than it would have been); the
    /// tests in `tests/pass_through.rs` run every golden scenario both ways.
    #[inline]
    pub fn pass_through(&self, li: u32) {
        debug_assert!(self.hot[li as usize].feeds != Feeds::No);
    }

    /// Whether link `li` can never drop a packet (no queue limit, no random loss), so
    /// that a packet can be offered to it ahead of the clock (see [`Links::pass_through`]).
    pub fn never_drops(&self, li: u32) -> bool {
        let h = &self.hot[li as usize];
        !h.limited && !h.lossy
    }

    /// Fetches link `li`'s hot line into the cache (a hint: reads nothing).
    #[inline]
    pub fn prefetch(&self, li: u32) {
        super::hint::prefetch(self.hot.as_ptr().wrapping_add(li as usize));
    }

    /// Asks for the head entry of link `li`'s pipe: the next arrival at a link reads it
    /// first. Reads the link's line (ask for it first: [`Links::prefetch`]).
    #[inline(always)]
    pub fn prefetch_head(&self, li: u32) {
        // The entry after it is read next (the arrival the link's event is rescheduled
        // for); two entries of 24 bytes lie in at most two lines.
        let p = self.hot[li as usize].pipe.front_ptr();
        super::hint::prefetch_span(p, 2 * std::mem::size_of::<Entry>());
    }

    /// Sets the link a host at the far end of link `li` sends on when a packet it
    /// receives from `li` makes it send (its only link out), for the look-ahead's hints
    /// ([`Links::prefetch_reply`]); `NO_LINK` if none.
    pub fn set_reply(&mut self, li: u32, out: u32) {
        self.reply[li as usize] = out;
    }

    /// First stage of the hints for a packet arriving from link `li` at a host that will
    /// answer (an ACK for a segment, new segments for an ACK) on its one link out: asks
    /// for that link's line, which the answer's offer reads and writes.
    #[inline(always)]
    pub fn prefetch_reply(&self, li: u32) {
        let out = self.reply[li as usize];
        if out != NO_LINK {
            self.prefetch(out);
        }
    }

    /// Second stage (the line has most likely arrived): asks for the pipe slot the
    /// answer will be written to.
    #[inline(always)]
    pub fn prefetch_reply_slot(&self, li: u32) {
        let out = self.reply[li as usize];
        if out != NO_LINK {
            self.prefetch_slot(out);
        }
    }

    /// Asks for the pipe slot the next packet offered to link `li` will be written to
    /// (reads the link's line: ask for it first, [`Links::prefetch`]).
    #[inline(always)]
    pub fn prefetch_slot(&self, li: u32) {
        let p = self.hot[li as usize].pipe.back_ptr();
        super::hint::prefetch_span(p, std::mem::size_of::<Entry>());
    }

    /// The node at the far end of link `li`.
    #[inline]
    pub fn to(&self, li: u32) -> u32 {
        self.cold[li as usize].p.to
    }

    /// Takes the head of link `li`'s pipe if it has arrived by `now`.
    #[inline]
    pub fn pop_due(&mut self, now: SimTime, li: u32) -> Due {
        let link = &mut self.hot[li as usize];
        match link.pipe.front() {
            Some(e) if e.0 <= now => {
                let (_, id, pos) = *e;
                // The entries a few pops ahead lie in the next cache line of the pipe,
                // written long ago at a busy link: fetch it now, before it is read. Near
                // the end of the ring buffer the address lies past it (the entries wrap
                // to its start): a wasted hint, never a read.
                super::hint::prefetch((e as *const Entry).wrapping_add(PREFETCH_AHEAD));
                link.pipe.pop_front();
                Due::Packet(id, pos)
            }
            Some(&(t, id, _)) => {
                // Packets kept in a feeding link's pipe (offered before the warm-up
                // boundary, arriving after it) pass on together once the whole pipe
                // arrives inside the current period, as an offer would let them. The
                // period check keeps the pipe when packets in it arrive after the run's
                // end, which must stay (`tests/pass_through.rs`,
                // `kept_packets_across_warmup_with_the_end_close_behind`, fails without it).
                if link.feeds != Feeds::No
                    && link.limited
                    && link.pipe.get(link.pipe.len() - 1).0 < self.passes_before
                {
                    return Due::Flush;
                }
                Due::Later(t, link.names.then_some(id))
            }
            None => Due::Idle,
        }
    }

    /// Bytes held by the links' queues and pipes (an estimate for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        let per_link = std::mem::size_of::<Hot>();
        self.hot.len() * per_link
            + self
                .hot
                .iter()
                .zip(&self.cold)
                .map(|(h, c)| {
                    c.backlog.capacity() * std::mem::size_of::<(SimTime, SimTime, u32)>()
                        + c.starts.capacity() * std::mem::size_of::<SimTime>()
                        + h.pipe.capacity() * std::mem::size_of::<Entry>()
                })
                .sum::<usize>()
    }

    /// The reported link direction holding the most packets (queued or propagating):
    /// `(from node, to node, packets, whether its queue is limited)`.
    pub fn fullest(&self) -> Option<(u32, u32, usize, bool)> {
        self.hot
            .iter()
            .zip(&self.cold)
            .filter_map(|(h, c)| c.p.report.map(|(_, from, to)| (h, from, to)))
            .max_by_key(|(h, _, _)| h.pipe.len())
            .map(|(h, from, to)| (from, to, h.pipe.len(), h.limited))
    }

    /// End of warm-up: the counters restart. A link's transmissions form one contiguous
    /// block from the one under way onwards (each queued packet starts when the previous
    /// ends), so the busy time already booked past the warm-up instant is exactly
    /// `busy_until − warmup`; the window's busy time starts from it.
    pub fn warmup(&mut self) {
        let w0 = self.window.0;
        self.passes_before = self.window.1;
        for (h, c) in self.hot.iter_mut().zip(&mut self.cold) {
            h.busy_ps = h.busy_until.saturating_sub(w0).0;
            h.pkts_offered = 0;
            c.c = LinkCounters {
                pipe_at_warmup: h.pipe.len() as u64,
                ..LinkCounters::default()
            };
        }
    }

    /// The result rows of the reported links, over the window `[warmup, end)`.
    pub fn rows(&self, names: &[String]) -> Vec<LinkRow> {
        let span_s = self.window.1.saturating_sub(self.window.0).as_secs_f64();
        self.hot
            .iter()
            .zip(&self.cold)
            .filter_map(|(h, c)| c.p.report.map(|r| (h, c, r)))
            .enumerate()
            .map(|(i, (h, c, (spec, from, to)))| LinkRow {
                link: i as u32,
                spec_index: spec as u32,
                from: names[from as usize].clone(),
                to: names[to as usize].clone(),
                pkts_offered: h.pkts_offered,
                // Every packet in the pipe at warm-up or put into it since (offered and
                // neither dropped nor lost) has either been taken out at the far end, or
                // is still in the pipe now.
                pkts_delivered: c.c.pipe_at_warmup + h.pkts_offered
                    - c.c.drops_queue
                    - c.c.drops_loss
                    - h.pipe.len() as u64,
                drops_queue: c.c.drops_queue,
                drops_loss: c.c.drops_loss,
                // Busy time booked past the end of the run is not in the window (the
                // same contiguity argument as in `warmup`).
                utilisation: ((h.busy_ps - h.busy_until.saturating_sub(self.window.1).0) as f64
                    / 1e12)
                    / span_s,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-byte product is the division's result wherever it is used, and the
    /// division is kept where the rate does not divide a byte's bits into whole
    /// picoseconds or the product could overflow.
    #[test]
    fn serialisation_by_product_is_the_division() {
        let rates = [
            1,
            3,
            1_600, // divides 8·10¹², but 5·10⁹ ps per byte ≥ 2³²
            2_000, // 4·10⁹ ps per byte < 2³²
            1_000_000,
            8_000_000,
            100_000_000,
            155_520_000,
            1_000_000_000,
            16_000_000_000, // 320 × 50 Mb/s
            40_000_000_000,
            8 * PS_PER_SEC,
            8 * PS_PER_SEC + 1,
            u64::MAX,
        ];
        let sizes = [
            0u32,
            1,
            40,
            1_040,
            1_500,
            65_535,
            2_305_843,
            2_305_844,
            u32::MAX,
        ];
        let mut exact = 0;
        for r in rates {
            let ppb = ps_per_byte(BitRate(r)) as u64;
            if ppb == 0 {
                continue;
            }
            exact += 1;
            for b in sizes {
                let product = (b as u64).checked_mul(ppb).expect("no overflow");
                assert_eq!(
                    SimTime(product),
                    BitRate(r).tx_time(b.into()),
                    "{r} b/s, {b} B"
                );
            }
        }
        // From 2,000 b/s up to 8·10¹² b/s where the rate divides 8·10¹²; not 1 and 1,600
        // (2³² ps per byte or more), 3 and 155.52 Mb/s (inexact), or past 8·10¹².
        assert_eq!(exact, 8);
        // An offer at a rate without the product still takes the division's time.
        let mut links = Links::new(SimTime::ZERO, SimTime::from_ms(100));
        let mut p = link(false);
        p.rate = BitRate(155_520_000);
        let li = links.add(p);
        let pos = Pos {
            at: 0,
            bytes: 1_040,
        };
        let want = BitRate(155_520_000).tx_time(1_040) + SimTime::from_ms(1);
        assert_eq!(
            links.offer(SimTime::ZERO, li, 7, pos),
            Offer::Sent(Some((want, None)))
        );
    }

    /// At a link that feeds one packets may be passed into, an offer says
    /// [`Offer::Passable`] unless a packet is in the pipe, the packet would arrive past
    /// its measurement period, or it would wait at a link without a queue limit; then it
    /// is in the pipe, as at any link. A limited queue still counts the packets that
    /// passed.
    #[test]
    fn passable_unless_one_is_ahead_waiting_unlimited_or_past_the_period() {
        let ms = SimTime::from_ms;
        let pos = Pos { at: 0, bytes: 1000 }; // 1 ms to send, then 1 ms to arrive
        let mut links = Links::new(ms(10), ms(100));
        let free = links.add(link(false));
        let mut lim = link(false);
        lim.qlimit_pkts = Some(5);
        let limited = links.add(lim);
        let plain = links.add(link(false));
        links.set_feeds(free, Feeds::Link);
        links.set_feeds(limited, Feeds::Link);
        let sent = |t| Offer::Sent(Some((t, None)));
        // A link that feeds none offers as ever.
        assert_eq!(links.offer(ms(0), plain, 1, pos), sent(ms(2)));
        // No limit: the first packet passes; the next waits behind it, so it is kept.
        assert_eq!(
            links.offer(ms(0), free, 2, pos),
            Offer::Passable(ms(2), None)
        );
        links.pass_through(free);
        assert_eq!(links.offer(ms(0), free, 3, pos), sent(ms(3)));
        // While it is in the pipe, no packet passes, not even one that does not wait.
        assert_eq!(links.offer(ms(2), free, 4, pos), Offer::Sent(None));
        assert_eq!(links.pop_due(ms(3), free), Due::Packet(3, pos));
        assert_eq!(links.pop_due(ms(4), free), Due::Packet(4, pos));
        assert_eq!(
            links.offer(ms(4), free, 5, pos),
            Offer::Passable(ms(6), None)
        );
        links.pass_through(free);
        // A limited queue: packets that wait pass too, and are counted as waiting. At
        // 0 ms packet 10 is on the wire, then 11..=15 wait: the sixth is one too many.
        for id in 10..=15 {
            assert_eq!(
                links.offer(ms(0), limited, id, pos),
                Offer::Passable(ms(2 + id as u64 - 10), None)
            );
            links.pass_through(limited);
        }
        assert_eq!(links.offer(ms(0), limited, 16, pos), Offer::QueueFull);
        // Arriving at or past the warm-up instant, offered before the warm-up event: in
        // the pipe.
        assert_eq!(links.offer(ms(8), free, 20, pos), sent(ms(10)));
        assert_eq!(links.pop_due(ms(10), free), Due::Packet(20, pos));
        links.warmup();
        // After it, passable up to the end of the run, not at it.
        assert_eq!(
            links.offer(ms(10), free, 21, pos),
            Offer::Passable(ms(12), None)
        );
        links.pass_through(free);
        assert_eq!(
            links.offer(ms(97), free, 22, pos),
            Offer::Passable(ms(99), None)
        );
        links.pass_through(free);
        assert_eq!(links.offer(ms(98), free, 23, pos), sent(ms(100)));
    }

    fn link(to_host: bool) -> LinkParams {
        LinkParams {
            rate: BitRate(8_000_000), // 1 µs per byte
            delay: SimTime::from_ms(1),
            qlimit_pkts: None,
            qlimit_bytes: None,
            loss: 0.0,
            rng: RngStream::derive(1, 0, "test"),
            report: None,
            to: 0,
            to_host,
        }
    }

    /// A queue limited in packets counts its waiting packets from the pipe; a second link
    /// that also has a (never reached) limit in bytes counts them from its record of
    /// transmissions, as every queue did before; a third from its record of start times
    /// (as a link that passes packets through does). Under random offers, some at once,
    /// some after idle gaps, with the pipes drained at random times, all three drop the
    /// same packets and deliver the same ones at the same times.
    #[test]
    fn the_three_queue_counts_drop_alike() {
        let mut links = Links::new(SimTime::ZERO, SimTime::from_secs(10));
        let limited = |bytes: Option<u64>| LinkParams {
            qlimit_pkts: Some(5),
            qlimit_bytes: bytes,
            ..link(false)
        };
        let by_pipe = links.add(limited(None));
        let by_backlog = links.add(limited(Some(u64::MAX)));
        let by_starts = links.add(limited(None));
        links.cold[by_starts as usize].count = QueueCount::Starts;
        assert_eq!(links.cold[by_pipe as usize].count, QueueCount::Pipe);
        assert_eq!(links.cold[by_backlog as usize].count, QueueCount::Backlog);
        let mut rng = RngStream::derive(7, 0, "offers");
        let mut now = SimTime::ZERO;
        let (mut drops, mut delivered) = (0, 0);
        for id in 0..20_000u32 {
            // 1000-byte packets take 1 ms; offers come 0–1.6 ms apart (0.8 ms on
            // average: the queue fills), one in five at the same instant as the last.
            now += SimTime(rng.next_u64() % 5 * 400_000_000);
            let pos = Pos {
                at: id,
                bytes: 1000,
            };
            let a = links.offer(now, by_pipe, id, pos);
            let b = links.offer(now, by_backlog, id, pos);
            let c = links.offer(now, by_starts, id, pos);
            assert_eq!(a, b, "offer of packet {id} at {now:?}");
            assert_eq!(a, c, "offer of packet {id} at {now:?}");
            drops += u32::from(a == Offer::QueueFull);
            if rng.next_u64().is_multiple_of(3) {
                loop {
                    let a = links.pop_due(now, by_pipe);
                    assert_eq!(a, links.pop_due(now, by_backlog));
                    assert_eq!(a, links.pop_due(now, by_starts));
                    match a {
                        Due::Packet(..) => delivered += 1,
                        _ => break,
                    }
                }
            }
        }
        // Both outcomes happened often enough to matter.
        assert!(
            drops > 1000 && delivered > 10_000,
            "{drops} drops, {delivered} delivered"
        );
    }

    /// Packets leave in order at their arrival times, and a link ending at a host names
    /// the next packet to deliver (whose record the world prefetches) when it
    /// reschedules; a link ending at a router names none.
    #[test]
    fn a_pipe_names_the_next_packet_only_at_a_host() {
        let mut links = Links::new(SimTime::ZERO, SimTime::from_secs(1));
        let to_host = links.add(link(true));
        let to_router = links.add(link(false));
        for li in [to_host, to_router] {
            let t0 = SimTime::ZERO;
            let pos = |at| Pos { at, bytes: 1000 };
            let named = |id| (li == to_host).then_some(id);
            let first = links.offer(t0, li, 7, pos(3));
            // 1000 bytes take 1 ms at 8 Mb/s; the second waits for the first.
            assert_eq!(first, Offer::Sent(Some((SimTime::from_ms(2), named(7)))));
            assert_eq!(links.offer(t0, li, 8, pos(4)), Offer::Sent(None));
            assert_eq!(
                links.pop_due(SimTime::from_ms(1), li),
                Due::Later(SimTime::from_ms(2), named(7))
            );
            assert_eq!(
                links.pop_due(SimTime::from_ms(2), li),
                Due::Packet(7, pos(3))
            );
            assert_eq!(
                links.pop_due(SimTime::from_ms(2), li),
                Due::Later(SimTime::from_ms(3), named(8))
            );
            assert_eq!(
                links.pop_due(SimTime::from_ms(3), li),
                Due::Packet(8, pos(4))
            );
            assert_eq!(links.pop_due(SimTime::from_ms(3), li), Due::Idle);
        }
    }
}
