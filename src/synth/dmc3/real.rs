//! The retail layout for the generators' real-layout mode, written from the published rule
//! (docs/formats.md, containers, "Retail layout" and "Index workspaces") with this module's own
//! arithmetic, not the library's layout code: per object its mesh records, then its meshes'
//! streams grouped by kind (every position stream of the object, then every normal stream, ...),
//! then the block, then one index workspace per mesh in object then mesh order, each 16-aligned,
//! `align16(6 * (vertices - 2))` bytes of 0x12, tiling the end of the file whose last two bytes
//! are zero.

use super::{align_up, Buf, Chunk, ContainerSpec, STREAMS_PER_MESH};

/// The chunks after the object records, in the retail order: per object its mesh records,
/// then for each stream kind every mesh's stream of that kind (a stream shared with an earlier
/// mesh was placed with it). `stream_of` gives each mesh's stream ids (`usize::MAX`: none).
pub(super) fn chunks(
    c: &ContainerSpec,
    stream_of: &[[usize; STREAMS_PER_MESH]],
    streams: usize,
) -> Vec<Chunk> {
    let kinds = if c.scm { 4 } else { STREAMS_PER_MESH };
    let mut placed = vec![false; streams];
    let mut out = Vec::new();
    let mut first = 0;
    for (i, o) in c.objects.iter().enumerate() {
        if !o.meshes.is_empty() {
            out.push(Chunk::MeshRecords(i));
        }
        let meshes = first..first + o.meshes.len();
        for k in 0..kinds {
            for ids in &stream_of[meshes.clone()] {
                let id = ids[k];
                if id != usize::MAX && !placed[id] {
                    placed[id] = true;
                    out.push(Chunk::Stream(id));
                }
            }
        }
        first = meshes.end;
    }
    out
}

/// Writes every mesh's workspace after `end` (where the block, or the last stream, ends) into
/// `out` and returns where each one starts, meshes numbered across objects.
pub(super) fn workspaces(c: &ContainerSpec, end: usize, out: &mut Buf) -> Vec<usize> {
    let mut at = Vec::new();
    let mut pos = end;
    let mut last = None;
    for m in c.objects.iter().flat_map(|o| &o.meshes) {
        pos = align_up(pos, 16);
        at.push(pos);
        let len = align_up(6 * m.verts.len().saturating_sub(2), 16);
        if len > 0 {
            out.put(pos, &vec![0x12; len]);
            last = Some(pos + len);
        }
        pos += len;
    }
    // A mesh of fewer than three vertices needs no room: the file ends with the last one that does.
    if let Some(e) = last {
        out.put(e - 2, &[0, 0]);
    }
    at
}

/// An SCM mesh's continuation span (+0x28) in the retail layout: 0x50 on every mesh of its
/// object but the last, 0 there; `None` when the file is not in the retail layout (no
/// workspaces were placed).
pub(super) fn continuation(workspace_at: &[usize], j: usize, meshes: usize) -> Option<u64> {
    if workspace_at.is_empty() {
        return None;
    }
    Some(if j + 1 < meshes { 0x50 } else { 0 })
}

/// The vertex traits every retail model holds (docs/formats.md, MOD streams), which the game's
/// loader model (`rigtrip check`) asks of a file: each object's vertex count its meshes' sum,
/// weights three 5-bit fields summing to 31, bone-index byte 0 zero and each lane a node × 4
/// below 4 · `nodes`. A function of each value alone, so streams shared between meshes stay
/// equal; the strip flags are kept.
pub(super) fn retail_vertices(objects: &mut [super::ObjectSpec], nodes: usize) {
    for o in objects {
        o.vertex_count = o.meshes.iter().map(|m| m.verts.len()).sum::<usize>() as u16;
        for v in o.meshes.iter_mut().flat_map(|m| &mut m.verts) {
            let (a, b) = (v.weight & 31, (v.weight >> 5) & 31);
            let b = b.min(31 - a);
            v.weight = (v.weight & 0x8000) | a | b << 5 | (31 - a - b) << 10;
            v.bones[0] = 0;
            for lane in &mut v.bones[1..] {
                *lane = match nodes {
                    0 => 0,
                    n => ((usize::from(*lane) / 4 % n.min(64)) * 4) as u8,
                };
            }
        }
    }
}
