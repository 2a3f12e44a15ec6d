//! An event's content id: a fast 64-bit hash of what the lab reads of it,
//! written as 16 hex digits on the stack.

/// A fast 64-bit hasher for event content: eight bytes at a time, folded
/// with a multiply (ids only need to tell one task's events apart; this is
/// no defence against crafted collisions, which could only hide a duplicate
/// or, as a map's hasher, slow the reading of the file that crafted them).
pub(crate) struct FoldHasher(u64);

/// Maps and sets keyed by what a capture holds, hashed by [`FoldHasher`]:
/// SipHash was a tenth of `check`'s time explaining 100,000 tasks.
pub(crate) type FoldBuild = std::hash::BuildHasherDefault<FoldHasher>;

impl Default for FoldHasher {
    fn default() -> Self {
        FoldHasher(0x9e37_79b9_7f4a_7c15)
    }
}

/// An event's content id as 16 hex digits, kept on the stack.
pub struct ContentId([u8; 16]);

impl ContentId {
    /// The id of some bytes (a chunk's parts as sent: its checksum).
    pub fn of(bytes: &[u8]) -> ContentId {
        use std::hash::Hasher;
        let mut h = FoldHasher::default();
        h.write(bytes);
        ContentId::from_hasher(&h)
    }

    pub(super) fn from_hasher(h: &FoldHasher) -> ContentId {
        use std::hash::Hasher;
        let mut hex = [0u8; 16];
        let digits = b"0123456789abcdef";
        for (i, byte) in h.finish().to_be_bytes().iter().enumerate() {
            hex[2 * i] = digits[usize::from(byte >> 4)];
            hex[2 * i + 1] = digits[usize::from(byte & 15)];
        }
        ContentId(hex)
    }

    /// The id as text (16 hex digits).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl std::hash::Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(0x2d35_8dcc_aa6c_78a5);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(tail) ^ (rest.len() as u64) << 56)
            .wrapping_mul(0x2d35_8dcc_aa6c_78a5);
    }

    fn finish(&self) -> u64 {
        let x = self.0 ^ (self.0 >> 31);
        x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 29)
    }
}
