//! The index workspaces of a MOD/SCM (docs/formats.md, containers, "Index workspaces"): at load
//! the game builds each mesh's triangle index list from its strip flags and writes it into the
//! file's own bytes, at the mesh record's offset plus its +0x40, so the file reserves
//! [`workspace_len`] bytes there per mesh. In a retail file they follow the node-domain block,
//! one per mesh in object then mesh order, each 16-aligned, tiling the end of the file, every
//! byte [`FILL`] but the file's last two, which are zero.
//!
//! The reader finds a mesh's workspace where its +0x40 points when those bytes are claimed by
//! nothing else ([`carve`]); it is then a structure of the file (`Workspace::Fill` when it holds
//! the game's fill, else its bytes), written back where it was. A +0x40 that points anywhere
//! else (outside the file, into streams, at another mesh's workspace) decodes no workspace
//! (`Workspace::Absent`): whatever lies there stays what it is.

use serde::{Deserialize, Serialize};

use super::container::{Label, Object, MESH_LEN};
use super::{Dmc3Error, Place, Problem};
use crate::bytes::{align, Gap};

/// The byte a workspace holds on disk in a retail file (the file's last two bytes excepted).
pub const FILL: u8 = 0x12;

/// The bytes the game needs at +0x40 for a mesh of `vertices` vertices: room for the
/// 3·(n − 2) u16 indices of one unbroken strip, rounded up to 16 (0 below three vertices).
pub fn workspace_len(vertices: usize) -> u64 {
    align(6 * vertices.saturating_sub(2) as u64, 16)
}

/// The byte at absolute offset `at` of a workspace holding the game's fill, in a file of
/// `file_len` bytes: [`FILL`], but zero in the file's last two bytes.
pub fn fill_byte(at: u64, file_len: u64) -> u8 {
    if at.saturating_add(2) >= file_len {
        0
    } else {
        FILL
    }
}

/// A mesh's index workspace, as the reader found it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workspace {
    /// No workspace was found where +0x40 points (see the module doc); the mesh's +0x40 is
    /// carried in its record as read.
    #[default]
    Absent,
    /// At +0x40, [`workspace_len`] bytes of the game's fill (a mesh of fewer than three
    /// vertices needs none: its workspace is empty).
    Fill,
    /// At +0x40, [`workspace_len`] bytes that are not the game's fill, carried.
    Bytes(#[serde(with = "crate::bytes::base64_bytes")] Vec<u8>),
}

impl Workspace {
    /// Whether the mesh has its workspace (filled or not).
    pub fn is_present(&self) -> bool {
        !matches!(self, Workspace::Absent)
    }
}

/// A workspace the reader may carve out of the gaps: where, and which mesh (flat index).
#[derive(Clone, Copy)]
struct Candidate {
    start: u64,
    end: u64,
    mesh: usize,
}

/// Finds every mesh's workspace in the bytes no other structure claimed (`gaps`, sorted, of a
/// file of `file_len` bytes): each one wholly inside a gap is cut out of it and kept in its
/// mesh. Two workspaces on the same bytes: the one that starts first is taken (the first in
/// mesh order when both start together), the other is absent.
pub(crate) fn carve(objects: &mut [Object], gaps: &mut Vec<Gap>, file_len: u64) {
    let mut found = Vec::new();
    let mut flat = 0usize;
    for o in objects.iter_mut() {
        for (j, m) in o.meshes.iter_mut().enumerate() {
            let len = workspace_len(m.vertex_count());
            let start = o
                .record
                .mesh_offset
                .checked_add(j as u64 * MESH_LEN)
                .and_then(|r| r.checked_add(m.record.workspace_offset));
            match start.and_then(|s| Some((s, s.checked_add(len)?))) {
                _ if len == 0 => m.workspace = Workspace::Fill,
                Some((start, end)) if end <= file_len => found.push(Candidate {
                    start,
                    end,
                    mesh: flat,
                }),
                _ => {}
            }
            flat += 1;
        }
    }
    if found.is_empty() {
        return;
    }
    found.sort_by_key(|c| (c.start, c.mesh));
    let taken = cut(found, gaps, file_len);
    let mut taken = taken.into_iter().peekable();
    let mut flat = 0usize;
    for o in objects.iter_mut() {
        for m in o.meshes.iter_mut() {
            if let Some((_, w)) = taken.next_if(|(i, _)| *i == flat) {
                m.workspace = w;
            }
            flat += 1;
        }
    }
}

/// Cuts the candidates (sorted by start) out of the gaps; the workspaces taken, by mesh.
fn cut(found: Vec<Candidate>, gaps: &mut Vec<Gap>, file_len: u64) -> Vec<(usize, Workspace)> {
    let mut taken = Vec::new();
    let mut out = Vec::with_capacity(gaps.len() + found.len());
    let mut next = found.into_iter().peekable();
    for g in std::mem::take(gaps) {
        let (gs, ge) = (g.offset, g.end());
        // Candidates that start before this gap start in claimed bytes (or overlap a taken one).
        while next.next_if(|c| c.start < gs).is_some() {}
        if next.peek().is_none_or(|c| c.start >= ge) {
            out.push(g);
            continue;
        }
        let mut cursor = gs;
        while let Some(c) = next.next_if(|c| c.start < ge) {
            if c.start < cursor || c.end > ge {
                continue;
            }
            let rel = |at: u64| (at - gs) as usize;
            if c.start > cursor {
                out.push(Gap {
                    offset: cursor,
                    bytes: g.bytes[rel(cursor)..rel(c.start)].to_vec(),
                });
            }
            let bytes = &g.bytes[rel(c.start)..rel(c.end)];
            taken.push((c.mesh, classify(bytes, c.start, file_len)));
            cursor = c.end;
        }
        if cursor < ge {
            out.push(Gap {
                offset: cursor,
                bytes: g.bytes[(cursor - gs) as usize..].to_vec(),
            });
        }
    }
    *gaps = out;
    taken.sort_by_key(|t| t.0);
    taken
}

/// A workspace's bytes at `start` of a file of `file_len` bytes: the game's fill, or carried.
fn classify(bytes: &[u8], start: u64, file_len: u64) -> Workspace {
    let filled = (start..)
        .zip(bytes)
        .all(|(at, &b)| b == fill_byte(at, file_len));
    if filled {
        Workspace::Fill
    } else {
        Workspace::Bytes(bytes.to_vec())
    }
}

/// Where the writer puts mesh `j` of object `i`'s workspace (its record at `record`), and how
/// long it is: `None` when it has none to write (absent or empty). A workspace whose carried
/// bytes are not the length its vertex count needs, or whose offset overflows, is refused.
pub(crate) fn placement(
    (i, j): (u8, u8),
    record: u64,
    mesh: &super::Mesh,
) -> Result<Option<(u64, u64)>, Dmc3Error> {
    let len = workspace_len(mesh.vertex_count());
    let bad = |problem| Dmc3Error::Inconsistent {
        what: Place::Is(Label::Workspace { object: i, mesh: j }),
        problem,
    };
    match &mesh.workspace {
        Workspace::Absent => return Ok(None),
        Workspace::Bytes(b) if b.len() as u64 != len => {
            return Err(bad(Problem::WorkspaceLength {
                len: b.len(),
                needed: len,
            }))
        }
        _ if len == 0 => return Ok(None),
        _ => {}
    }
    let start = record
        .checked_add(mesh.record.workspace_offset)
        .filter(|s| s.checked_add(len).is_some())
        .ok_or_else(|| bad(Problem::WorkspaceOffsetOverflow))?;
    Ok(Some((start, len)))
}

/// Writes mesh `j` of object `i`'s workspace into `dst` (its bytes at `start` of a file of
/// `file_len` bytes): the game's fill, or the bytes it carries.
pub(crate) fn encode(
    objects: &[Object],
    (i, j): (u8, u8),
    start: u64,
    file_len: u64,
    dst: &mut [u8],
) -> Result<(), Dmc3Error> {
    let label = Label::Workspace { object: i, mesh: j };
    let mesh = objects
        .get(usize::from(i))
        .and_then(|o| o.meshes.get(usize::from(j)))
        .ok_or(Dmc3Error::Unplaced(label))?;
    match &mesh.workspace {
        Workspace::Bytes(b) if b.len() == dst.len() => dst.copy_from_slice(b),
        Workspace::Fill => {
            for (at, d) in (start..).zip(dst.iter_mut()) {
                *d = fill_byte(at, file_len);
            }
        }
        _ => return Err(Dmc3Error::Unplaced(label)),
    }
    Ok(())
}
