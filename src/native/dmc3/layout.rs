//! The layout pass of a MOD/SCM container (docs/formats.md, containers, "Layout as seen in a real
//! file"): where an edit that changed sizes (a mesh's vertex count, meshes added or removed, a
//! block that gained nodes) puts every structure, and which offsets that rewrites.
//!
//! A file whose structures still tile it (every byte claimed once, no hole) is written where it
//! is: [`tiles`] says so, and the lowering calls [`relayout`] only when it does not. Then the
//! file is laid out in the real file's order: header, object records, per object its mesh
//! records and each mesh's streams (positions, normals, UV, bone indices, weights; SCM:
//! colours), each start 16-byte aligned with zero fill, then the bytes of the old layout that
//! were not zero padding, then the block, then whatever followed the last structure. Streams
//! shared by several meshes (same offset, length, kind and contents) stay shared. Only offsets
//! change: every other field keeps its bits (mesh record +0x40 included: it is not an offset
//! of the mesh's data, docs/formats.md, containers).

use super::container::{self, Header, Mesh, Object, StreamKind, HEADER_LEN, MESH_LEN, OBJECT_LEN};
use super::{Dmc3Error, Dmc3Parts, NodeBlock};
use crate::bytes::{align, Gap, RegionMap};

/// Alignment of every record run, stream and the block in a relaid file.
pub const ALIGN: u64 = 16;

/// Whether the parts cover `[0, end)` exactly: no two structures overlap and no byte is left
/// unclaimed. A read file always tiles; an edit that changed sizes does not.
pub fn tiles(parts: Dmc3Parts<'_>) -> bool {
    let mut placed = Vec::new();
    if parts.place_without_block(&mut placed).is_err() {
        return false;
    }
    if let Some(b) = parts.block {
        match b.encoded_len() {
            Ok(len) => placed.push(container::Placed {
                offset: b.offset,
                len,
                label: container::Label::Block(b.offset),
            }),
            Err(_) => return false,
        }
    }
    let mut map = RegionMap::with_capacity(placed.len());
    for p in &placed {
        map.claim(p.offset, p.len, p.label);
    }
    let Ok((claims, _)) = map.finish(&[]) else {
        return false;
    };
    let mut at = 0u64;
    for c in &claims {
        if c.start != at {
            return false;
        }
        at = c.end;
    }
    true
}

/// A stream placed by [`relayout`]: (old offset, length, kind), its new offset, and the
/// (object, mesh) that named it first.
type PlacedStream = ((u64, u64, StreamKind), u64, usize, usize);

/// What [`relayout`] did, for the import report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Relaid {
    /// The block's offset before and after, when it moved.
    pub block: Option<(u64, u64)>,
    /// Non-zero bytes between structures, carried to a new place: (old offset, new offset,
    /// length).
    pub moved_gaps: Vec<(u64, u64, usize)>,
    /// Zero bytes between structures that were dropped (the new alignment fill replaces them).
    pub dropped_zero_bytes: u64,
    /// Where the bytes that followed the last structure start now (old, new), if any.
    pub tail: Option<(u64, u64)>,
    /// The file's new length.
    pub end: u64,
}

/// Lays the container out again (see the module doc). `objects` hold their new contents at
/// their old offsets (the counts the writer derives from them); `gaps` are the old gaps.
pub fn relayout(
    h: &mut Header,
    objects: &mut [Object],
    block: Option<&mut NodeBlock>,
    gaps: &mut Vec<Gap>,
) -> Result<Relaid, Dmc3Error> {
    // The bytes after the last structure's start follow every structure: they are the tail.
    let last_start = last_structure_start(objects, block.as_deref());
    let (tail, interior): (Vec<Gap>, Vec<Gap>) = std::mem::take(gaps)
        .into_iter()
        .partition(|g| g.offset > last_start);

    let mut out = Relaid::default();
    let mut pos = HEADER_LEN + OBJECT_LEN * objects.len() as u64;
    // New offsets, planned against the old ones before any record changes.
    let plan = plan_meshes(objects, &mut pos);
    for g in interior {
        if g.bytes.iter().all(|&b| b == 0) {
            out.dropped_zero_bytes += g.bytes.len() as u64;
            continue;
        }
        pos = align(pos, ALIGN);
        out.moved_gaps.push((g.offset, pos, g.bytes.len()));
        let len = g.bytes.len() as u64;
        gaps.push(Gap {
            offset: pos,
            bytes: g.bytes,
        });
        pos = pos.saturating_add(len);
    }
    if let Some(b) = block {
        pos = align(pos, ALIGN);
        if b.offset != pos {
            out.block = Some((b.offset, pos));
        }
        b.offset = pos;
        h.block_offset = pos;
        pos = pos.saturating_add(b.encoded_len()?);
    }
    if let Some(first) = tail.first().map(|g| g.offset) {
        out.tail = Some((first, pos));
        for g in tail {
            let offset = g.offset - first + pos;
            pos = pos.max(offset.saturating_add(g.bytes.len() as u64));
            gaps.push(Gap {
                offset,
                bytes: g.bytes,
            });
        }
    }
    plan.apply(objects);
    out.end = pos;
    Ok(out)
}

/// Where the last structure (the object records, a mesh record list, a stream, the block)
/// starts.
fn last_structure_start(objects: &[Object], block: Option<&NodeBlock>) -> u64 {
    let mut last_start = 0u64;
    for o in objects.iter() {
        if !o.meshes.is_empty() {
            last_start = last_start.max(o.record.mesh_offset);
        }
        for m in &o.meshes {
            for &(kind, off) in m.record.stream_slots().iter() {
                if m.stream_len(kind) > 0 {
                    last_start = last_start.max(off);
                }
            }
        }
    }
    if let Some(b) = block {
        last_start = last_start.max(b.offset);
    }
    last_start.max((HEADER_LEN + OBJECT_LEN * objects.len() as u64).saturating_sub(1))
}

/// The new offsets of the objects' mesh records and streams.
struct Plan {
    /// Per object, per mesh: its stream offsets.
    streams: Vec<Vec<[u64; 5]>>,
    /// Per object: where its mesh records go (`None`: it has no mesh).
    records: Vec<Option<u64>>,
}

impl Plan {
    /// Sets the planned offsets in the records.
    fn apply(self, objects: &mut [Object]) {
        for ((o, offsets), at) in objects.iter_mut().zip(self.streams).zip(self.records) {
            if let Some(at) = at {
                o.record.mesh_offset = at;
            }
            for (m, new) in o.meshes.iter_mut().zip(offsets) {
                m.record.set_stream_offsets(new);
            }
        }
    }
}

/// Plans every object's mesh records and then its meshes' streams from `pos` on (aligned),
/// a stream several meshes share with the same data once; `pos` ends past the last.
fn plan_meshes(objects: &[Object], pos: &mut u64) -> Plan {
    let mut plan = Plan {
        streams: Vec::with_capacity(objects.len()),
        records: Vec::with_capacity(objects.len()),
    };
    let mut placed: Vec<PlacedStream> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        if o.meshes.is_empty() {
            plan.records.push(None);
        } else {
            *pos = align(*pos, ALIGN);
            plan.records.push(Some(*pos));
            *pos = pos.saturating_add(MESH_LEN * o.meshes.len() as u64);
        }
        let mut offsets = Vec::with_capacity(o.meshes.len());
        for (j, m) in o.meshes.iter().enumerate() {
            offsets.push(plan_streams(objects, ((i, j), m), pos, &mut placed));
        }
        plan.streams.push(offsets);
    }
    plan
}

/// The new stream offsets of mesh `m` (mesh `j` of object `i`): a stream placed before with the
/// same offset, length, kind and data is shared, an empty one keeps its value, any other goes at
/// `pos` (aligned), recorded in `placed`.
fn plan_streams(
    objects: &[Object],
    ((i, j), m): ((usize, usize), &Mesh),
    pos: &mut u64,
    placed: &mut Vec<PlacedStream>,
) -> [u64; 5] {
    let slots = m.record.stream_slots();
    let mut new = [0u64; 5];
    for (n, &(kind, off)) in slots.iter().enumerate() {
        let len = m.stream_len(kind) as u64 * kind.stride();
        let Some(slot) = new.get_mut(n) else { continue };
        if len == 0 {
            // Nothing is read there: the value stays what it was.
            *slot = off;
            continue;
        }
        let key = (off, len, kind);
        let shared = placed.iter().find(|p| {
            p.0 == key
                && objects
                    .get(p.2)
                    .and_then(|fo| fo.meshes.get(p.3))
                    .is_some_and(|first| first.same_stream(m, kind))
        });
        *slot = match shared {
            Some(p) => p.1,
            None => {
                *pos = align(*pos, ALIGN);
                placed.push((key, *pos, i, j));
                let at = *pos;
                *pos = pos.saturating_add(len);
                at
            }
        };
    }
    new
}
