//! The ledger's lookup from event id to receipt, kept linear and cache
//! friendly: the table holds only a 64-bit hash of each id and the
//! receipt's position, so a new id costs one probe and no string copy. The
//! rare ids whose hash another id already took are kept in a spill map, so
//! the answer is always exact.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher, Hasher};

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

fn id_hash(id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(id.as_bytes());
    h.finish()
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
        let &i = self.by_hash.get(&id_hash(id))?;
        if *receipts[i as usize].event_id == *id {
            return Some(i as usize);
        }
        self.spill.get(id).map(|&i| i as usize)
    }

    /// Records that the receipt for `id` (not yet indexed) is at `at`.
    pub fn insert(&mut self, id: &str, at: usize, receipts: &[Receipt]) {
        let at = at as u32;
        let h = id_hash(id);
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
