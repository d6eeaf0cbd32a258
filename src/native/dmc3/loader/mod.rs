//! The game's loader as `docs/formats.md` describes it (the HD PC executable's post-load code
//! and its limits), as rules over a file's bytes that return [`Finding`]s: what `rigtrip check`
//! runs, and `import` before it writes.
//!
//! One module per kind of member: [`model`] (MOD/SCM: relocated offsets, index workspaces,
//! counts, influences, texture slots), [`texture`] (PTX bundles and gfxTexture entries: the
//! descriptor fields the loader reads, the DDS reader's limits), [`motion`] (key counts, node
//! counts) and [`archive`] (what the player code reads of a character archive's slots). The
//! rules read the bytes the way the game does, not through the strict readers: a file the game
//! would choke on (an offset past its end) is a finding here, not a read error.

pub mod archive;
pub mod model;
pub mod motion;
pub mod texture;

pub use crate::native::finding::{Finding, Severity};

/// How many times a count of things is said, with the first one's index and detail: one
/// finding for a rule broken by many vertices or keys, not one per vertex.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    /// How many.
    pub count: usize,
    /// The first: its index and what it holds.
    pub first: Option<(usize, String)>,
}

impl Tally {
    /// Counts item `index`; `detail` is only built for the first.
    pub fn add(&mut self, index: usize, detail: impl FnOnce() -> String) {
        if self.first.is_none() {
            self.first = Some((index, detail()));
        }
        self.count += 1;
    }

    /// `N of TOTAL WHAT (first: WHAT INDEX, DETAIL)`, or `None` when nothing was counted.
    pub fn said(&self, total: usize, what: &str) -> Option<String> {
        let (i, detail) = self.first.as_ref()?;
        let one = what.strip_suffix("ices").map_or_else(
            || what.strip_suffix('s').unwrap_or(what).to_string(),
            |stem| format!("{stem}ex"),
        );
        Some(format!(
            "{} of {total} {what} (first: {one} {i}, {detail})",
            self.count
        ))
    }
}

/// `align16(6 · (vertices − 2))`: the bytes the game writes a mesh's generated indices into
/// (room for the 3·(n − 2) u16 indices of one unbroken strip); 0 below three vertices.
pub fn workspace_len(vertices: u16) -> u64 {
    let n = u64::from(vertices);
    if n < 3 {
        0
    } else {
        crate::bytes::align(6 * (n - 2), 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_names_the_first_and_counts_all() {
        let mut t = Tally::default();
        assert_eq!(t.said(10, "vertices"), None);
        t.add(3, || "a".into());
        t.add(7, || unreachable!("only the first is described"));
        assert_eq!(
            t.said(10, "vertices").as_deref(),
            Some("2 of 10 vertices (first: vertex 3, a)")
        );
        let mut k = Tally::default();
        k.add(0, || "b".into());
        assert_eq!(
            k.said(4, "keys").as_deref(),
            Some("1 of 4 keys (first: key 0, b)")
        );
    }

    #[test]
    fn workspaces_hold_one_unbroken_strip_rounded_to_16() {
        assert_eq!(
            [0, 1, 2, 3, 4, 5, 1113, 5084].map(workspace_len),
            [0, 0, 0, 16, 16, 32, 6672, 30496]
        );
    }
}
