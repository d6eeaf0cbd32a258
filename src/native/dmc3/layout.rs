//! The retail layout of a MOD/SCM container (docs/formats.md, containers, "Retail layout"):
//! where an edit that changed sizes (a mesh's vertex count, meshes added or removed, a block
//! that gained nodes) puts every structure, and which fields that rewrites. [`relayout`] is the
//! one place that rule lives: the lowering calls it when an edited file no longer tiles, and
//! `verify --legs layout` calls it on a file as read ([`laid_out_anew`]) to see whether the file
//! is in that layout.
//!
//! A file whose structures still tile it (every byte claimed once, no hole) is written where it
//! is: [`tiles`] says so. Otherwise it is laid out as the game's own files are: header, object
//! records, then per object its mesh records followed by its meshes' streams grouped by kind
//! (every position stream of the object, then every normal stream, UV, bone-index and weight
//! stream; SCM: positions, normals, UVs, colours), each 16-byte aligned with zero fill; the
//! node-domain block; then the index workspaces ([`super::workspace`]), one per mesh in object
//! then mesh order, each 16-aligned, tiling the end of the file. Every mesh's +0x40 then points
//! at its workspace, +0x48 (the index count the game writes at load) is 0, and an SCM mesh's
//! continuation span (+0x28) is 0x50 but on its object's last mesh (0). Streams shared by
//! several meshes (same offset, length, kind and contents) stay shared, placed with the first.
//!
//! What the retail layout has no place for: bytes of the old layout that are only fill (zero
//! alignment, the workspaces' 0x12) are dropped, the new layout writing its own; any other bytes
//! between or after the structures are carried, each run 16-aligned after the last stream and
//! before the block, and reported ([`Relaid::moved_gaps`]); a workspace that held other bytes
//! than the fill is written as fill (the game overwrites it at load) and counted. Every other
//! field keeps its bits.

use super::container::{self, Header, Mesh, Object, StreamKind, HEADER_LEN, MESH_LEN, OBJECT_LEN};
use super::workspace::{workspace_len, Workspace, FILL};
use super::{Dmc3Error, Dmc3File, Dmc3Parts, MeshVariant, NodeBlock};
use crate::bytes::{align, Gap, RegionMap};

/// Alignment of every record run, stream, the block and each workspace in a relaid file.
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
    /// Bytes the retail layout has no place for, carried to a new place before the block:
    /// (old offset, new offset, length).
    pub moved_gaps: Vec<(u64, u64, usize)>,
    /// Bytes of the old layout that were only fill (zero, or the workspaces' 0x12), dropped: the
    /// new layout writes its own.
    pub dropped_fill_bytes: u64,
    /// Workspaces that held other bytes than the game's fill, now written as fill.
    pub refilled_workspaces: usize,
    /// The bytes the workspaces take at the end of the file.
    pub workspace_bytes: u64,
    /// The file's new length.
    pub end: u64,
}

/// Lays the container out again by the retail rules (see the module doc). `objects` hold their
/// new contents at their old offsets (the counts the writer derives from them); `gaps` are the
/// old gaps, and come back as the carried ones at their new offsets.
pub fn relayout(
    h: &mut Header,
    objects: &mut [Object],
    block: Option<&mut NodeBlock>,
    gaps: &mut Vec<Gap>,
) -> Result<Relaid, Dmc3Error> {
    let mut out = Relaid::default();
    let carried = carried_gaps(std::mem::take(gaps), &mut out);
    let mut pos = HEADER_LEN + OBJECT_LEN * objects.len() as u64;
    // New offsets, planned against the old ones before any record changes.
    let plan = plan_meshes(objects, &mut pos);
    for g in carried {
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
    plan.apply(objects);
    let start = pos;
    // Workspaces of meshes under three vertices are empty: the file ends with the last other.
    let end = place_workspaces(objects, pos, &mut out).unwrap_or(start);
    out.workspace_bytes = end - start;
    out.end = end;
    Ok(out)
}

/// The file as read (`file`) laid out anew by [`relayout`] and written: the bytes the retail
/// layout gives its decoded parts, and what the relayout did. A file without a container (a
/// bare block) has no layout of this kind: `None`.
pub fn laid_out_anew(file: &Dmc3File) -> Result<Option<(Vec<u8>, Relaid)>, Dmc3Error> {
    let mut f = file.clone();
    let Some(c) = f.container.as_mut() else {
        return Ok(None);
    };
    let relaid = relayout(&mut c.header, &mut c.objects, f.block.as_mut(), &mut f.gaps)?;
    f.gaps.sort_by_key(|g| g.offset);
    Ok(Some((super::write(&f)?, relaid)))
}

/// The old gaps that hold anything but fill (zero, or the workspaces' 0x12), in file order;
/// the others are counted as dropped in `out`.
fn carried_gaps(mut gaps: Vec<Gap>, out: &mut Relaid) -> Vec<Gap> {
    gaps.sort_by_key(|g| g.offset);
    gaps.retain(|g| {
        let fill = g.bytes.iter().all(|&b| b == 0 || b == FILL);
        if fill {
            out.dropped_fill_bytes += g.bytes.len() as u64;
        }
        !fill
    });
    gaps
}

/// Places every mesh's workspace from `pos` on (see the module doc) and sets the record fields
/// that follow from the layout: +0x40, +0x48 and an SCM mesh's continuation span. Returns where
/// the last workspace that takes any room ends (`None`: none does).
fn place_workspaces(objects: &mut [Object], mut pos: u64, out: &mut Relaid) -> Option<u64> {
    let mut end = None;
    for o in objects.iter_mut() {
        let first = o.record.mesh_offset;
        let n = o.meshes.len();
        for (j, m) in o.meshes.iter_mut().enumerate() {
            pos = align(pos, ALIGN);
            let record = first.saturating_add(j as u64 * MESH_LEN);
            // Every workspace follows every mesh record: the offset is never negative.
            m.record.workspace_offset = pos.saturating_sub(record);
            m.record.index_count = 0;
            if let MeshVariant::Scm(s) = &mut m.record.variant {
                s.continuation = if j + 1 < n { MESH_LEN } else { 0 };
            }
            if matches!(m.workspace, Workspace::Bytes(_)) {
                out.refilled_workspaces += 1;
            }
            m.workspace = Workspace::Fill;
            let len = workspace_len(m.vertex_count());
            pos = pos.saturating_add(len);
            if len > 0 {
                end = Some(pos);
            }
        }
    }
    end
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

/// Plans every object's mesh records and then its meshes' streams, grouped by kind, from `pos`
/// on (aligned), a stream several meshes share with the same data once; `pos` ends past the
/// last.
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
        let mut offsets = vec![[0u64; 5]; o.meshes.len()];
        // The record's stream slots in order: positions, normals, UVs, then bone indices and
        // weights (MOD) or colours (SCM); each slot across every mesh of the object.
        for slot in 0..5 {
            for (j, m) in o.meshes.iter().enumerate() {
                let Some(&(kind, off)) = m.record.stream_slots().get(slot) else {
                    continue;
                };
                let new = plan_stream(objects, ((i, j), m), (kind, off), pos, &mut placed);
                if let Some(o) = offsets.get_mut(j).and_then(|s| s.get_mut(slot)) {
                    *o = new;
                }
            }
        }
        plan.streams.push(offsets);
    }
    plan
}

/// The new offset of mesh `m`'s stream of `kind` at `off` (mesh `j` of object `i`): a stream
/// placed before with the same offset, length, kind and data is shared, an empty one keeps its
/// value (nothing is read there), any other goes at `pos` (aligned), recorded in `placed`.
fn plan_stream(
    objects: &[Object],
    ((i, j), m): ((usize, usize), &Mesh),
    (kind, off): (StreamKind, u64),
    pos: &mut u64,
    placed: &mut Vec<PlacedStream>,
) -> u64 {
    let len = m.stream_len(kind) as u64 * kind.stride();
    if len == 0 {
        return off;
    }
    let key = (off, len, kind);
    let shared = placed.iter().find(|p| {
        p.0 == key
            && objects
                .get(p.2)
                .and_then(|fo| fo.meshes.get(p.3))
                .is_some_and(|first| first.same_stream(m, kind))
    });
    match shared {
        Some(p) => p.1,
        None => {
            *pos = align(*pos, ALIGN);
            placed.push((key, *pos, i, j));
            let at = *pos;
            *pos = pos.saturating_add(len);
            at
        }
    }
}
