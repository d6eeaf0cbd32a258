//! A vertex's influences as the geometry comparison keys them: what each points at (a joint
//! of a skeleton, or a stray node) and its weight, held inline.

use super::joints::JointKey;

/// What a vertex influence points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum InfKey {
    /// A joint of a skeleton.
    Joint(usize, JointKey),
    /// Something that is not a joint (a node index, or a slot past the skin).
    Stray(usize),
}

/// Influences read per vertex: JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1, four each.
const MAX_INF: usize = 8;

/// A vertex's influences (distinct keys, weights normalised), held inline: one allocation per
/// vertex was a tenth of the comparison's time.
#[derive(Debug, Clone, Copy)]
pub(super) struct Infs {
    len: usize,
    items: [(InfKey, f64); MAX_INF],
}

impl Default for Infs {
    fn default() -> Infs {
        Infs {
            len: 0,
            items: [(InfKey::Stray(0), 0.0); MAX_INF],
        }
    }
}

impl PartialEq for Infs {
    fn eq(&self, other: &Infs) -> bool {
        **self == **other
    }
}

impl std::ops::Deref for Infs {
    type Target = [(InfKey, f64)];
    fn deref(&self) -> &Self::Target {
        &self.items[..self.len]
    }
}

impl std::ops::DerefMut for Infs {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.items[..self.len]
    }
}

impl Infs {
    /// Appends an influence; at most [`MAX_INF`] are ever read per vertex, so none is lost.
    pub(super) fn push(&mut self, e: (InfKey, f64)) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = e;
            self.len += 1;
        }
    }

    /// Each key replaced by `f`'s, the weights of keys that become equal summed, in key order.
    pub(super) fn remap(&mut self, mut f: impl FnMut(InfKey) -> InfKey) {
        let mut out = Infs::default();
        for &(k, w) in self.iter() {
            let k = f(k);
            match out.iter_mut().find(|e| e.0 == k) {
                Some(e) => e.1 += w,
                None => out.push((k, w)),
            }
        }
        out.sort_by_key(|a| a.0);
        *self = out;
    }
}
