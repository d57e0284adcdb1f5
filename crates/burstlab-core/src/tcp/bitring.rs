//! A ring of bits indexed by absolute segment number, operated on 64 bits at a time.
//!
//! Read first: [`BitRing`]. The SACK scoreboard (`scoreboard.rs`) and the receiver's
//! out-of-order buffer (`receiver.rs`) keep one bit per segment in a window that slides
//! forward; segment `s` lives at ring position `s & mask`. The capacity is a power of two
//! and at least 64, so a segment's bit offset inside its 64-bit word is `s & 63` whatever
//! the capacity, and every range operation splits `[a, b)` into at most
//! ⌈(b − a)/64⌉ + 1 word-aligned pieces: marking a SACK block, clearing what a cumulative
//! ACK passed, counting, and finding the edge of a run cost O(length/64), not O(length).
//!
//! Every range `[a, b)` handed to a method must satisfy `b − a ≤ cap` (a longer range
//! would alias itself); the callers keep their windows inside the ring.

/// Bits of absolute positions, `cap` (a power of two ≥ 64) of them at a time.
#[derive(Clone, Debug)]
pub struct BitRing {
    /// A boxed slice, not a `Vec`: the ring never changes length (`regrown` builds a
    /// new one), and 8 fewer bytes keep the receiver's hot fields in one cache line.
    words: Box<[u64]>,
    mask: u64,
}

/// The bits `[s, e)` of the word holding `s` (`s < e ≤ (s | 63) + 1`), as a mask.
#[inline]
fn piece(s: u64, e: u64) -> u64 {
    let len = e - s;
    if len == 64 {
        !0
    } else {
        ((1u64 << len) - 1) << (s & 63)
    }
}

impl BitRing {
    /// A ring of at least `min_cap` bits (rounded up to a power of two, at least 64).
    pub fn new(min_cap: u64) -> Self {
        let cap = min_cap.max(64).next_power_of_two();
        BitRing {
            words: vec![0; (cap / 64) as usize].into_boxed_slice(),
            mask: cap - 1,
        }
    }
    pub fn cap(&self) -> u64 {
        self.mask + 1
    }
    #[inline]
    fn word_of(&self, s: u64) -> usize {
        ((s & self.mask) >> 6) as usize
    }
    #[inline]
    pub fn get(&self, s: u64) -> bool {
        self.words[self.word_of(s)] >> (s & 63) & 1 == 1
    }
    #[inline]
    pub fn flip(&mut self, s: u64) {
        let w = self.word_of(s);
        self.words[w] ^= 1 << (s & 63);
    }
    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Calls `f(word index, mask)` for the word pieces of `[a, b)`, lowest first.
    #[inline]
    fn pieces_up(&self, a: u64, b: u64, mut f: impl FnMut(usize, u64, u64) -> bool) {
        debug_assert!(b.saturating_sub(a) <= self.cap());
        let mut s = a;
        while s < b {
            let e = ((s | 63) + 1).min(b);
            if !f(self.word_of(s), piece(s, e), s & !63) {
                return;
            }
            s = e;
        }
    }
    /// As [`Self::pieces_up`], highest first.
    #[inline]
    fn pieces_down(&self, a: u64, b: u64, mut f: impl FnMut(usize, u64, u64) -> bool) {
        debug_assert!(b.saturating_sub(a) <= self.cap());
        let mut e = b;
        while e > a {
            let s = ((e - 1) & !63).max(a);
            if !f(self.word_of(s), piece(s, e), s & !63) {
                return;
            }
            e = s;
        }
    }

    /// Sets `[a, b)`; returns how many bits were newly set.
    pub fn set_range(&mut self, a: u64, b: u64) -> u64 {
        let mut new = 0u64;
        let mask = self.mask;
        let words = &mut self.words;
        let mut s = a;
        debug_assert!(b.saturating_sub(a) <= mask + 1);
        while s < b {
            let e = ((s | 63) + 1).min(b);
            let m = piece(s, e);
            let w = &mut words[((s & mask) >> 6) as usize];
            new += (m & !*w).count_ones() as u64;
            *w |= m;
            s = e;
        }
        new
    }
    /// Clears `[a, b)`; returns how many bits were set there.
    pub fn clear_range(&mut self, a: u64, b: u64) -> u64 {
        let mut gone = 0u64;
        let mask = self.mask;
        let words = &mut self.words;
        let mut s = a;
        debug_assert!(b.saturating_sub(a) <= mask + 1);
        while s < b {
            let e = ((s | 63) + 1).min(b);
            let m = piece(s, e);
            let w = &mut words[((s & mask) >> 6) as usize];
            gone += (m & *w).count_ones() as u64;
            *w &= !m;
            s = e;
        }
        gone
    }
    /// Number of set bits in `[a, b)` (popcount per word).
    pub fn count_ones(&self, a: u64, b: u64) -> u64 {
        let mut n = 0u64;
        self.pieces_up(a, b, |w, m, _| {
            n += (self.words[w] & m).count_ones() as u64;
            true
        });
        n
    }
    /// The lowest clear position in `[a, b)` (`trailing_zeros` of the inverted word).
    pub fn first_zero(&self, a: u64, b: u64) -> Option<u64> {
        let mut found = None;
        self.pieces_up(a, b, |w, m, base| {
            let z = !self.words[w] & m;
            if z != 0 {
                found = Some(base + z.trailing_zeros() as u64);
            }
            z == 0
        });
        found
    }
    /// The highest clear position in `[a, b)` (`leading_zeros` of the inverted word).
    pub fn last_zero(&self, a: u64, b: u64) -> Option<u64> {
        let mut found = None;
        self.pieces_down(a, b, |w, m, base| {
            let z = !self.words[w] & m;
            if z != 0 {
                found = Some(base + 63 - z.leading_zeros() as u64);
            }
            z == 0
        });
        found
    }
    /// The `k`-th highest set position in `[a, b)` (`k ≥ 1`), if there are `k` set bits.
    /// Whole words are skipped by popcount; inside the word that holds the answer the
    /// `k − 1` higher bits are dropped one `leading_zeros` at a time.
    pub fn kth_one_from_top(&self, a: u64, b: u64, k: u64) -> Option<u64> {
        debug_assert!(k >= 1);
        let mut need = k;
        let mut found = None;
        self.pieces_down(a, b, |w, m, base| {
            let mut x = self.words[w] & m;
            let c = x.count_ones() as u64;
            if c < need {
                need -= c;
                return true;
            }
            for _ in 1..need {
                x &= !(1u64 << (63 - x.leading_zeros()));
            }
            found = Some(base + 63 - x.leading_zeros() as u64);
            false
        });
        found
    }
    /// A ring of `min_cap` bits or more holding this ring's bits of `[a, b)` (and nothing
    /// else), copied a word piece at a time.
    pub fn regrown(&self, min_cap: u64, a: u64, b: u64) -> BitRing {
        let mut n = BitRing::new(min_cap);
        self.pieces_up(a, b, |w, m, base| {
            let i = n.word_of(base);
            n.words[i] |= self.words[w] & m;
            true
        });
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::rand_core::{RngCore, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The bit-at-a-time model: the set of positions, as a plain vector of flags.
    struct Model {
        base: u64,
        flags: Vec<bool>,
    }
    impl Model {
        fn at(&self, s: u64) -> bool {
            self.flags[(s - self.base) as usize]
        }
        fn put(&mut self, s: u64, v: bool) {
            self.flags[(s - self.base) as usize] = v;
        }
    }

    #[test]
    fn test_bitring_word_ops_match_bit_model() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5AC6);
        for round in 0..60 {
            // Capacities from one word to 2^17 bits; windows start anywhere, so ranges
            // cross word boundaries and the ring's wrap-around point.
            let cap = 64u64 << (rng.next_u64() % 12);
            let base = rng.next_u64() % 1_000_000;
            let mut r = BitRing::new(cap);
            assert_eq!(r.cap(), cap);
            let mut m = Model {
                base,
                flags: vec![false; cap as usize],
            };
            let rand_range = |rng: &mut Xoshiro256PlusPlus| {
                let a = base + rng.next_u64() % cap;
                let len = match rng.next_u64() % 4 {
                    0 => rng.next_u64() % 3,
                    1 => 60 + rng.next_u64() % 10,
                    _ => rng.next_u64() % (cap + 1),
                };
                (a, (a + len).min(base + cap))
            };
            for _ in 0..200 {
                let (a, b) = rand_range(&mut rng);
                match rng.next_u64() % 3 {
                    0 => {
                        let want = (a..b).filter(|&s| !m.at(s)).count() as u64;
                        (a..b).for_each(|s| m.put(s, true));
                        assert_eq!(r.set_range(a, b), want, "round {round} set");
                    }
                    1 => {
                        let want = (a..b).filter(|&s| m.at(s)).count() as u64;
                        (a..b).for_each(|s| m.put(s, false));
                        assert_eq!(r.clear_range(a, b), want, "round {round} clear");
                    }
                    _ => {
                        let s = a.min(base + cap - 1);
                        m.put(s, !m.at(s));
                        r.flip(s);
                    }
                }
                let (a, b) = rand_range(&mut rng);
                let ones: Vec<u64> = (a..b).filter(|&s| m.at(s)).collect();
                assert_eq!(r.count_ones(a, b), ones.len() as u64);
                assert_eq!(r.first_zero(a, b), (a..b).find(|&s| !m.at(s)));
                assert_eq!(r.last_zero(a, b), (a..b).rev().find(|&s| !m.at(s)));
                for k in 1..5u64 {
                    let want = ones.len().checked_sub(k as usize).map(|i| ones[i]);
                    assert_eq!(r.kth_one_from_top(a, b, k), want, "round {round} k {k}");
                }
                let s = base + rng.next_u64() % cap;
                assert_eq!(r.get(s), m.at(s));
            }
            let g = r.regrown(cap * 4, base, base + cap);
            for s in base..base + cap {
                assert_eq!(g.get(s), m.at(s));
            }
            assert_eq!(g.count_ones(base + cap, base + 4 * cap), 0);
        }
    }
}
