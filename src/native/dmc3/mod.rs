//! DMC3 native files: the node-domain block (spec §1, [`block`]) and the MOD/SCM container
//! (spec §2, [`container`]), or any file with a block inside (EFM and unknown containers).
//!
//! A [`Dmc3File`] holds the container's structures (if any), the block (if any) and every byte
//! no structure covers as a [`Gap`] with an ABSOLUTE offset. The block's own padding lives in
//! the block, relative to the block start. `write(read(b)) == b` for every accepted input.

pub mod block;
pub mod container;

use serde::{Deserialize, Serialize};

pub use block::{read_block, BlockRels, NodeBlock, NodeTransform, BLOCK_HEADER_LEN, TRANSFORM_LEN};
pub use container::{
    colour_strip_flag, joint_indices, strip_triangles, uv_value, weight_strip_flag, weight_values,
    Container, ContainerKind, Header, Mesh, MeshRecord, MeshVariant, Object, ObjectRecord,
    StreamKind, DECODE_BUDGET_FACTOR, HEADER_LEN, MESH_LEN, OBJECT_LEN,
};

use crate::bytes::{Canvas, Claim, Gap, OutOfBounds, Overlap, RegionMap};

/// A DMC3 file: a MOD/SCM container, or any file holding a node-domain block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Dmc3File {
    /// The MOD/SCM structures; `None` for a bare file read with [`read_block_in`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Container>,
    /// The node-domain block; `None` when the file has none (or in a lifted rig's shell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<NodeBlock>,
    /// Every byte outside the container's structures and the block's extent, absolute offsets.
    pub gaps: Vec<Gap>,
}

impl Dmc3File {
    /// `mod`, `scm` or `block`.
    pub fn kind(&self) -> &'static str {
        match &self.container {
            Some(c) => c.header.magic.name(),
            None => "block",
        }
    }

    /// Every placed structure except the block, shared streams once: (offset, length, label).
    /// Also checks counts and lengths; the header-to-block link is checked by [`write`] only,
    /// so that a lifted rig's shell (block moved out) can be measured too.
    pub fn claims_without_block(&self) -> Result<Vec<Claim>, Dmc3Error> {
        Ok(self
            .pieces_without_block()?
            .into_iter()
            .map(|p| Claim {
                start: p.offset,
                end: p.offset.saturating_add(p.bytes.len() as u64),
                label: p.label,
            })
            .collect())
    }

    fn pieces_without_block(&self) -> Result<Vec<container::Piece>, Dmc3Error> {
        let mut out = match &self.container {
            Some(c) => container::pieces(c)?,
            None => Vec::new(),
        };
        for g in &self.gaps {
            out.push(container::Piece {
                offset: g.offset,
                label: format!("gap at {:#x}", g.offset),
                bytes: g.bytes.clone(),
            });
        }
        Ok(out)
    }
}

/// Why a DMC3 file was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Dmc3Error {
    /// A structure runs past the end of the input.
    #[error("{0}")]
    OutOfBounds(#[from] OutOfBounds),
    /// Two structures claim the same bytes.
    #[error("overlapping structures: {0}")]
    Overlap(#[from] Overlap),
    /// The container magic at 0x0 is neither `"MOD "` nor `"SCM "`.
    #[error("magic at offset 0x0 is {found} (hex), expected \"MOD \" or \"SCM \"")]
    BadMagic {
        /// The four bytes found, hex.
        found: String,
    },
    /// Shared streams would decode to more than [`DECODE_BUDGET_FACTOR`] times the input.
    #[error("{what} at offset {offset:#x}: meshes would decode {decoded:#x} bytes of vertex data from a {file_len:#x}-byte file (limit: {DECODE_BUDGET_FACTOR}x the file)")]
    DecodeBudget {
        /// The stream that went over.
        what: String,
        /// Its offset.
        offset: u64,
        /// Decoded total so far.
        decoded: u64,
        /// Input length.
        file_len: u64,
    },
    /// A structure to be written disagrees with itself (counts, lengths, placement).
    #[error("cannot write {what}: {problem}")]
    Inconsistent {
        /// The structure, with its offset.
        what: String,
        /// What disagrees.
        problem: String,
    },
}

/// The most uncovered bytes [`write`] zero-fills (holes only arise in structs built in code).
pub const MAX_HOLE_BYTES: u64 = 1 << 24;

/// Whether `data` starts with `"MOD "` or `"SCM "`.
pub fn has_container_magic(data: &[u8]) -> bool {
    data.starts_with(b"MOD ") || data.starts_with(b"SCM ")
}

/// Reads a MOD or SCM container: header, objects, meshes, streams, the block named by header
/// +0x20 with N = header +0x11 (none when both are 0), and every other byte as gaps.
pub fn read_container(data: &[u8]) -> Result<Dmc3File, Dmc3Error> {
    let mut map = RegionMap::new();
    let container =
        container::read_parts(data, &mut |start, len, label| map.claim(start, len, label))?;
    let h = &container.header;
    let block = if h.has_block() {
        let b = read_block(data, h.block_offset, h.bone_count as usize)?;
        map.claim(
            b.offset,
            b.extent(),
            format!("node-domain block at {:#x}", b.offset),
        );
        Some(b)
    } else {
        None
    };
    let (_, gaps) = map.finish(data)?;
    Ok(Dmc3File {
        container: Some(container),
        block,
        gaps,
    })
}

/// Reads a node-domain block of `nodes` nodes at `offset` inside any file, keeping every other
/// byte as gaps (kind `block`).
pub fn read_block_in(data: &[u8], offset: u64, nodes: usize) -> Result<Dmc3File, Dmc3Error> {
    let block = read_block(data, offset, nodes)?;
    let mut map = RegionMap::new();
    map.claim(block.offset, block.extent(), "node-domain block");
    let (_, gaps) = map.finish(data)?;
    Ok(Dmc3File {
        container: None,
        block: Some(block),
        gaps,
    })
}

/// Writes the file back; for an unmodified read the exact input bytes. Refuses structures
/// that disagree (counts, lengths, header vs block) or overlap.
pub fn write(file: &Dmc3File) -> Result<Vec<u8>, Dmc3Error> {
    let mut pieces = file.pieces_without_block()?;
    if let Some(c) = &file.container {
        let h = &c.header;
        match &file.block {
            Some(b) if h.bone_count as usize != b.node_count() || h.block_offset != b.offset => {
                return Err(Dmc3Error::Inconsistent {
                    what: "container header +0x11/+0x20".into(),
                    problem: format!(
                        "bone count {} and block offset {:#x}, but the block has {} nodes at {:#x}",
                        h.bone_count,
                        h.block_offset,
                        b.node_count(),
                        b.offset
                    ),
                });
            }
            Some(_) => {}
            None if h.has_block() => {
                return Err(Dmc3Error::Inconsistent {
                    what: "container header +0x11/+0x20".into(),
                    problem: format!(
                        "names a block of {} nodes at {:#x}, but the file holds none",
                        h.bone_count, h.block_offset
                    ),
                })
            }
            None => {}
        }
    }
    if let Some(b) = &file.block {
        pieces.push(container::Piece {
            offset: b.offset,
            label: format!("node-domain block at {:#x}", b.offset),
            bytes: b.to_bytes()?,
        });
    }
    let mut map = RegionMap::new();
    for p in &pieces {
        map.claim(p.offset, p.bytes.len() as u64, p.label.clone());
    }
    map.finish(&[])?;
    let end = pieces
        .iter()
        .map(|p| p.offset.saturating_add(p.bytes.len() as u64))
        .max()
        .unwrap_or(0);
    // A read file's pieces cover every byte. Only a struct built or edited in code can leave
    // holes (written as zero); refuse big ones instead of allocating for a stray offset.
    let covered: u64 = pieces.iter().map(|p| p.bytes.len() as u64).sum();
    if end.saturating_sub(covered) > MAX_HOLE_BYTES {
        return Err(Dmc3Error::Inconsistent {
            what: "file".into(),
            problem: format!(
                "structures cover {covered:#x} bytes but end at {end:#x}; the holes would be zero-filled"
            ),
        });
    }
    let mut canvas = Canvas::with_len(end as usize);
    for p in &pieces {
        canvas.put(p.offset, &p.bytes);
    }
    Ok(canvas.into_bytes())
}
