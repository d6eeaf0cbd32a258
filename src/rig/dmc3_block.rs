//! A node-domain block whose node count changed, laid out again where it is (the lowering of
//! [`super::dmc3`]): canonically at its old offset, if that moves no other structure.

use super::dmc3::Dmc3Skeleton;
use super::LowerError;
use crate::bytes::Gap;
use crate::native::dmc3::{BlockRels, Dmc3File, NodeBlock};

/// Lays a block whose node count changed out canonically at its old offset, if that moves no
/// other structure: it must fit the old extent, or nothing may lie where it grows into. In a
/// MOD/SCM container the layout pass closes or makes the room (`settle` in [`super::dmc3`]);
/// elsewhere freed bytes become a zero gap, or the file ends earlier when nothing follows the
/// block. Returns the file's gaps when that added one.
pub(super) fn relayout(
    block: &mut NodeBlock,
    p: &Dmc3Skeleton,
    n_old: usize,
    file: &Dmc3File,
) -> Result<Option<Vec<Gap>>, LowerError> {
    let mut new_gaps = None;
    let n_new = block.node_count();
    let structure = |problem: String| LowerError::Structure {
        skeleton: 0,
        problem,
    };
    if let Some(g) = p.padding.iter().find(|g| g.bytes.iter().any(|&b| b != 0)) {
        return Err(structure(format!(
            "block padding at {:#x} holds non-zero bytes that changing the node count ({n_old} -> {n_new}) would drop",
            p.offset + g.offset
        )));
    }
    let rels = BlockRels::canonical(n_new)
        .ok_or_else(|| structure(format!("{n_new} nodes do not fit a block")))?;
    let start = p.offset;
    let old_end = start.saturating_add(p.rels.extent(n_old));
    let new_end = start.saturating_add(rels.extent(n_new));
    let claims = file.claims_without_block().map_err(|e| {
        structure(format!(
            "the file around the block is inconsistent: {}",
            crate::chain(&e)
        ))
    })?;
    // In a MOD/SCM container the layout pass makes room ([`super::dmc3`]'s `settle`); a block inside an
    // unknown container can only grow where nothing follows it.
    if new_end > old_end && file.container.is_none() {
        if let Some(c) = claims.iter().find(|c| c.start < new_end && c.end > start) {
            return Err(structure(format!(
                "the block at {start:#x} grows from {:#x} to {:#x} bytes ({n_old} -> {n_new} nodes) and would overwrite {} at {:#x}; only a block that keeps its size or ends the file can gain nodes",
                old_end - start,
                new_end - start,
                c.label,
                c.start
            )));
        }
    } else if new_end < old_end
        && file.container.is_none()
        && claims.iter().any(|c| c.start >= old_end)
    {
        // The old extent comes from the payload (a glTF's extras when imported): bound the
        // zero gap the way the writer bounds holes, before allocating it.
        if old_end - new_end > crate::native::dmc3::MAX_HOLE_BYTES {
            return Err(structure(format!(
                "the block at {start:#x} shrinks from {:#x} to {:#x} bytes ({n_old} -> {n_new} nodes); the freed bytes would be zero-filled",
                old_end - start,
                new_end - start
            )));
        }
        let mut gaps = file.gaps.clone();
        gaps.push(Gap {
            offset: new_end,
            bytes: vec![0; (old_end - new_end) as usize],
        });
        gaps.sort_by_key(|g| g.offset);
        new_gaps = Some(gaps);
    }
    block.rels = rels;
    let a = crate::bytes::align(n_new as u64, 4);
    let n = n_new as u64;
    let mut padding = Vec::new();
    for (from, to) in [
        (rels.parent as u64 + n, rels.parent as u64 + a),
        (rels.order as u64 + n, rels.order as u64 + a),
        (rels.group as u64 + n, rels.transform as u64),
    ] {
        if n > 0 && to > from {
            padding.push(Gap {
                offset: from,
                bytes: vec![0; (to - from) as usize],
            });
        }
    }
    block.padding = padding;
    Ok(new_gaps)
}
