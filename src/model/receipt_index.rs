//! The ledger's lookup from event id to receipt, kept linear and cache
//! friendly: the table holds only a 64-bit hash of each id and the
//! receipt's position, so a new id costs one probe and no string copy. Ids
//! whose hash another id already took go to a spill map (SipHash-keyed), so
//! the answer is always exact and crafted collisions cost one extra string
//! comparison each, never quadratic time.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::ledger::Receipt;

/// Passes an already well-mixed u64 (a SipHash) straight through.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A fast 64-bit hash of an id (FxHash's multiply-rotate over 8-byte words,
/// then a final mix so the table's top bits are well spread). Collisions are
/// harmless: they only send an id to the spill map.
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
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    }
    // The length last, in a round of its own, so padding cannot cancel it.
    h = (h.rotate_left(5) ^ bytes.len() as u64).wrapping_mul(K);
    h ^= h >> 32;
    h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^ (h >> 29)
}

/// Event id → position in the receipt log. Derived from the receipts, so it
/// is rebuilt after deserializing and never compared.
#[derive(Debug, Clone, Default)]
pub struct ReceiptIndex {
    by_hash: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
    spill: HashMap<Box<str>, u32>,
}

impl PartialEq for ReceiptIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ReceiptIndex {}

impl ReceiptIndex {
    /// The index of a receipt log.
    pub fn build(receipts: &[Receipt]) -> ReceiptIndex {
        let mut index = ReceiptIndex::default();
        for (i, r) in receipts.iter().enumerate() {
            index.insert(&r.event_id, i, receipts);
        }
        index
    }

    /// Where the receipt for `id` is, if it was decided before.
    pub fn get(&self, id: &str, receipts: &[Receipt]) -> Option<usize> {
        self.get_hashed(id_hash(id), id, receipts)
    }

    /// [`ReceiptIndex::get`] with the id's hash already computed.
    pub fn get_hashed(&self, h: u64, id: &str, receipts: &[Receipt]) -> Option<usize> {
        let &i = self.by_hash.get(&h)?;
        if *receipts[i as usize].event_id == *id {
            return Some(i as usize);
        }
        self.spill.get(id).map(|&i| i as usize)
    }

    /// Records that the receipt for `id` (not yet indexed) is at `at`.
    pub fn insert(&mut self, id: &str, at: usize, receipts: &[Receipt]) {
        self.insert_hashed(id_hash(id), id, at, receipts);
    }

    /// [`ReceiptIndex::insert`] with the id's hash already computed.
    pub fn insert_hashed(&mut self, h: u64, id: &str, at: usize, receipts: &[Receipt]) {
        let at = at as u32;
        match self.by_hash.get(&h) {
            Some(&i) if *receipts[i as usize].event_id != *id => {
                self.spill.insert(id.into(), at);
            }
            Some(_) => {}
            None => {
                self.by_hash.insert(h, at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ledger::Outcome;

    fn receipt(id: &str) -> Receipt {
        Receipt {
            event_id: id.into(),
            producer: "".into(),
            observed_ms: 0,
            digest: "".into(),
            outcome: Outcome::CancelRequested,
            authorization_receipt: None,
        }
    }

    #[test]
    fn ids_sharing_a_hash_are_told_apart_through_the_spill_map() {
        let receipts = vec![receipt("a"), receipt("b"), receipt("c")];
        let mut index = ReceiptIndex::default();
        // Force every id onto one hash, as a crafted collision would.
        for (i, r) in receipts.iter().enumerate() {
            index.insert_hashed(7, &r.event_id, i, &receipts);
        }
        assert_eq!(index.get_hashed(7, "a", &receipts), Some(0));
        assert_eq!(index.get_hashed(7, "b", &receipts), Some(1));
        assert_eq!(index.get_hashed(7, "c", &receipts), Some(2));
        assert_eq!(index.get_hashed(7, "d", &receipts), None);
        assert_eq!(
            index.get("a", &receipts),
            None,
            "its real hash was never indexed"
        );
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
        let all: Vec<(&str, u64)> = ids.iter().map(|i| (*i, id_hash(i))).collect();
        assert_eq!(hashes.len(), ids.len(), "{all:x?}");
    }
}
