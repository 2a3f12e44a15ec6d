//! The receipt log's index: event id → receipt position, in tagged 8-byte
//! buckets with a bounded probe and an ordered overflow map for crafted
//! collisions, and the id hash it is keyed by.

use std::collections::BTreeMap;

/// The answer of [`ReceiptLog::find`]: the receipt's position, or where a
/// new one for that id would be indexed (until the next push).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The id was decided before; its receipt is at this position.
    Found(usize),
    /// A new id.
    Vacant(Vacancy),
}

/// Where a new id goes in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vacancy {
    hash: u64,
    bucket: Option<usize>,
    /// The table's size when the bucket was found: a bucket of a table
    /// since resized means nothing.
    bits: u32,
}

/// String equality without a library call for the short texts receipts
/// carry (a call per comparison showed up in profiles of the seed form).
#[inline]
pub(super) fn same_text(a: &str, b: &str) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() > 32 {
        return a == b;
    }
    a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// The longest run of buckets one lookup inspects before it consults the
/// overflow map. With the table at most half full a run this long is
/// vanishingly rare unless ids were crafted to collide.
const MAX_PROBE: usize = 64;

/// Event id → receipt position. A bucket holds `tag << 32 | (position +
/// 1)` (0 is empty), where the tag is the top half of the id's hash and its
/// leading bits pick the bucket, so a lookup and the insert after it touch
/// one cache line, and growing needs only the tags and walks both tables in
/// order. (A separate array of control bytes, tried too, made that two
/// lines per new id and was slower both natively and in WebAssembly.)
#[derive(Debug, Clone, Default)]
pub(super) struct IdTable {
    pub(super) entries: Vec<u64>,
    /// log2 of the bucket count (0 while empty).
    pub(super) bits: u32,
    len: usize,
    overflow: BTreeMap<Box<str>, u32>,
}

pub(super) fn tag_of(hash: u64) -> u64 {
    hash >> 32
}

impl IdTable {
    pub(super) fn home(&self, tag: u64) -> usize {
        // `bits` is at most 32, so this keeps the leading `bits` of 32.
        (tag << self.bits >> 32) as usize
    }

    pub(super) fn find<'a>(&self, hash: u64, id: &str, id_at: impl Fn(usize) -> &'a str) -> Lookup {
        let vacant = |bucket| {
            Lookup::Vacant(Vacancy {
                hash,
                bucket,
                bits: self.bits,
            })
        };
        let Some(mask) = self.entries.len().checked_sub(1) else {
            return vacant(None);
        };
        let tag = tag_of(hash);
        let mut b = self.home(tag);
        for _ in 0..MAX_PROBE.min(self.entries.len()) {
            let entry = self.entries.get(b).copied().unwrap_or(0);
            if entry == 0 {
                return match self.in_overflow(id) {
                    Some(found) => found,
                    None => vacant(Some(b)),
                };
            }
            let pos = (entry as u32 as usize).wrapping_sub(1);
            if entry >> 32 == tag && same_text(id_at(pos), id) {
                return Lookup::Found(pos);
            }
            b = (b + 1) & mask;
        }
        self.in_overflow(id).unwrap_or(vacant(None))
    }

    fn in_overflow(&self, id: &str) -> Option<Lookup> {
        if self.overflow.is_empty() {
            return None;
        }
        self.overflow
            .get(id)
            .map(|&pos| Lookup::Found(pos as usize))
    }

    /// Indexes the receipt at `pos` (its id new), keeping the table at most
    /// half full.
    pub(super) fn insert<'a>(
        &mut self,
        vacancy: Vacancy,
        pos: usize,
        id_at: impl Fn(usize) -> &'a str,
    ) {
        let e = entry(tag_of(vacancy.hash), pos);
        if (self.len + 1) * 2 > self.entries.len() {
            self.grow(&id_at);
        }
        match vacancy.bucket {
            // Found in a table since resized: where it said means nothing.
            _ if vacancy.bits != self.bits => self.place(e, &id_at),
            Some(b) => self.set(b, e),
            None => {
                self.overflow.insert(id_at(pos).into(), pos as u32);
            }
        }
        self.len += 1;
    }

    fn set(&mut self, b: usize, e: u64) {
        if let Some(slot) = self.entries.get_mut(b) {
            *slot = e;
        }
    }

    /// Puts an entry whose id is known to be new in the first empty bucket
    /// of its run, or in the overflow map when the run is too long.
    fn place<'a>(&mut self, e: u64, id_at: &impl Fn(usize) -> &'a str) {
        let mask = self.entries.len().saturating_sub(1);
        let mut b = self.home(e >> 32);
        for _ in 0..MAX_PROBE.min(self.entries.len()) {
            if self.entries.get(b) == Some(&0) {
                self.set(b, e);
                return;
            }
            b = (b + 1) & mask;
        }
        let pos = (e as u32 as usize).wrapping_sub(1);
        self.overflow.insert(id_at(pos).into(), pos as u32);
    }

    /// Forgets every id and keeps the buckets' memory.
    pub(super) fn clear(&mut self) {
        self.entries.fill(0);
        self.len = 0;
        self.overflow.clear();
    }

    /// Doubles the table.
    fn grow<'a>(&mut self, id_at: &impl Fn(usize) -> &'a str) {
        self.resize((self.bits + 1).max(4), id_at);
    }

    /// Makes room for `count` ids in all without growing again.
    pub(super) fn reserve<'a>(&mut self, count: usize, id_at: &impl Fn(usize) -> &'a str) {
        let mut bits = self.bits.max(4);
        while count.saturating_mul(2) > 1usize.checked_shl(bits).unwrap_or(usize::MAX) && bits < 32
        {
            bits += 1;
        }
        if bits > self.bits {
            self.resize(bits, id_at);
        }
    }

    /// Rebuilds the table with `2^bits` buckets. Entries move in bucket
    /// order, and a bucket's entries land in the buckets its leading bits
    /// now split into, so both tables are read and written nearly
    /// sequentially.
    fn resize<'a>(&mut self, bits: u32, id_at: &impl Fn(usize) -> &'a str) {
        let old = std::mem::take(&mut self.entries);
        self.bits = bits;
        self.entries = vec![0; 1 << self.bits];
        // A run that wraps past the end is moved after the rest, so that
        // its entries do not take the buckets of the table's first homes.
        let wrapped = old.iter().position(|&e| e == 0).unwrap_or(0);
        for &e in old[wrapped..].iter().chain(&old[..wrapped]) {
            if e != 0 {
                self.place(e, id_at);
            }
        }
    }
}

/// A bucket entry for the receipt at `pos`.
fn entry(tag: u64, pos: usize) -> u64 {
    // Positions fit in 32 bits: a ledger of 2^32 receipts would need over
    // 64 GiB for its slots alone.
    tag << 32 | u64::from((pos as u32).wrapping_add(1))
}

/// A fast 64-bit hash of an id (FxHash's multiply-rotate over 8-byte words,
/// then a final mix so both halves are well spread: the low bits pick the
/// bucket, the high bits are the tag).
pub fn id_hash(id: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let bytes = id.as_bytes();
    let mut h = 0u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h.rotate_left(5) ^ tail_word(rest)).wrapping_mul(K);
    }
    // The length last, in a round of its own, so padding cannot cancel it.
    h = (h.rotate_left(5) ^ bytes.len() as u64).wrapping_mul(K);
    h ^= h >> 32;
    h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^ (h >> 29)
}

/// The last 1–7 bytes as one word, read in at most two overlapping loads
/// that together cover every byte (copying them into a zeroed buffer first
/// stalls on store forwarding). Which word a tail gives is only required
/// to differ between tails of one length, and the length is hashed after.
fn tail_word(rest: &[u8]) -> u64 {
    let n = rest.len();
    let at = |i: usize| u64::from(rest.get(i).copied().unwrap_or(0));
    let four = |i: usize| {
        rest.get(i..i + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, |b| u64::from(u32::from_le_bytes(b)))
    };
    if n >= 4 {
        four(0) | four(n - 4) << 32
    } else {
        at(0) | at(n / 2) << 8 | at(n.saturating_sub(1)) << 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_colliding_on_every_bucket_are_still_found_exactly() {
        // Every id gets the same hash, as crafted collisions would: the run
        // fills MAX_PROBE buckets and the rest go to the overflow map, and
        // growing the table keeps them findable.
        let mut table = IdTable::default();
        let ids: Vec<String> = (0..200).map(|i| format!("id{i}")).collect();
        let id_at = |pos: usize| ids[pos].as_str();
        for (pos, id) in ids.iter().enumerate() {
            match table.find(7, id, id_at) {
                Lookup::Vacant(v) => table.insert(v, pos, id_at),
                Lookup::Found(p) => panic!("{id} found at {p} before it was added"),
            }
        }
        assert!(
            table.overflow.len() >= 200 - MAX_PROBE,
            "{}",
            table.overflow.len()
        );
        for (pos, id) in ids.iter().enumerate() {
            assert_eq!(table.find(7, id, id_at), Lookup::Found(pos));
        }
        assert!(matches!(table.find(7, "other", id_at), Lookup::Vacant(_)));
    }

    #[test]
    fn every_short_tail_of_one_length_has_its_own_word() {
        for n in 1..8usize {
            let mut words = std::collections::HashSet::new();
            let samples: Vec<Vec<u8>> = (0..n)
                .flat_map(|i| {
                    [0u8, 1, 0x80, 0xff].map(|b| {
                        let mut t = vec![b'a'; n];
                        t[i] = b;
                        t
                    })
                })
                .collect();
            let distinct: std::collections::HashSet<_> = samples.iter().collect();
            for t in &distinct {
                words.insert(tail_word(t));
            }
            assert_eq!(words.len(), distinct.len(), "tails of {n} bytes");
        }
    }

    #[test]
    fn the_hash_separates_ids_that_differ_anywhere() {
        let ids = [
            "e1",
            "e10",
            "e01",
            "E1",
            "e1\0",
            "a-long-event-id-of-many-words-1",
            "a-long-event-id-of-many-words-2",
        ];
        let hashes: std::collections::HashSet<u64> = ids.iter().map(|i| id_hash(i)).collect();
        assert_eq!(hashes.len(), ids.len());
    }
}
