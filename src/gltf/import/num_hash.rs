//! The hasher of the import's maps and sets keyed by numbers (node and joint indices, grid
//! cells, vertex bit patterns), never by strings. It is not keyed: a file crafted so that many
//! grid cells or vertices hash alike slows its own comparison down (quadratic at worst in that
//! file's vertices), nothing more. SipHash was a fifth of `verify`'s glTF leg when the grid used
//! it (27 look-ups a vertex), and a few percent more in the joint maps.

use std::hash::{BuildHasherDefault, Hasher};

/// Maps and sets built with [`NumHasher`].
pub(super) type NumHash = BuildHasherDefault<NumHasher>;

/// A multiplicative hasher over whole words.
#[derive(Default)]
pub(super) struct NumHasher(u64);

impl NumHasher {
    fn mix(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for NumHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, x: u64) {
        self.mix(x);
    }

    fn write_usize(&mut self, x: usize) {
        self.mix(x as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(w));
        }
    }
}
