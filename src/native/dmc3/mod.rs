//! DMC3 native files: the node-domain block (docs/formats.md, node-domain block, [`block`]) and the
//! MOD/SCM container (docs/formats.md, containers, [`container`]), or any file with a block inside
//! (EFM and unknown containers); motions (docs/formats.md, motions, [`motion`]) and archives
//! (docs/formats.md, archives, [`pac`]).
//!
//! A [`Dmc3File`] holds the container's structures (if any), the block (if any) and every byte
//! no structure covers as a [`Gap`] with an ABSOLUTE offset. The block's own padding lives in
//! the block, relative to the block start. `write(read(b)) == b` for every accepted input.

pub mod block;
pub mod cloth;
pub mod cloth_check;
pub mod compat;
pub mod container;
pub mod layout;
pub mod loader;
pub mod motion;
pub mod pac;
pub mod pixels;
pub mod records;
pub mod shadow;
pub mod shadow_rules;
pub mod strip;
pub mod texture;
pub mod track;
pub mod workspace;

use serde::{Deserialize, Serialize};

pub use motion::{
    Channel, Compression, DecodedKey, EncodeError, KeyIn, Keys, Mot, MotError, MotHeader,
    MotHeaderCounts, Track, TrackHead, TrackHeadCounts, TrackProblem,
};
pub use pac::{Member, MemberError, MemberKind, Pac, PacError, SlotEdit};
pub use texture::{DdsHeader, Descriptor, Ptx, Texture, TextureError};

pub use block::{
    read_block, BlockHeader, BlockPart, BlockRels, NodeBlock, NodeTransform, BLOCK_HEADER_LEN,
    TRANSFORM_LEN,
};
pub use container::{
    colour_strip_flag, joint_indices, strip_triangles, uv_value, weight_strip_flag, weight_values,
    Container, ContainerKind, Header, HeaderCounts, Label, Magic, Mesh, MeshCounts, MeshRecord,
    MeshVariant, ModStreams, Object, ObjectCounts, ObjectRecord, ScmStreams, StreamKind, Workspace,
    DECODE_BUDGET_FACTOR, HEADER_LEN, MESH_LEN, OBJECT_LEN,
};

use crate::bytes::{region_mut, Claim, Gap, OutOfBounds, Overlap, RegionMap};

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
    /// Also checks counts and lengths; the header-to-block link is checked by [`write()`] only,
    /// so that a lifted rig's shell (block moved out) can be measured too.
    pub fn claims_without_block(&self) -> Result<Vec<Claim>, Dmc3Error> {
        let mut placed = Vec::new();
        self.parts().place_without_block(&mut placed)?;
        Ok(placed
            .into_iter()
            .map(|p| Claim {
                start: p.offset,
                end: p.offset.saturating_add(p.len),
                label: p.label.to_string(),
            })
            .collect())
    }

    /// The file's parts by reference, as [`write_parts_into`] takes them.
    pub fn parts(&self) -> Dmc3Parts<'_> {
        Dmc3Parts {
            header: self.container.as_ref().map(|c| &c.header),
            objects: self.container.as_ref().map_or(&[], |c| &c.objects),
            block: self.block.as_ref(),
            gaps: &self.gaps,
        }
    }
}

/// A DMC3 file to write, by reference: what [`write()`] reads of a [`Dmc3File`], so that a
/// caller holding the parts in different places (a lowered rig: the shell's objects and gaps,
/// a new header and block) need not copy them into one `Dmc3File` first.
#[derive(Debug, Clone, Copy)]
pub struct Dmc3Parts<'a> {
    /// The container header; `None` for a bare block file (then `objects` is not written).
    pub header: Option<&'a Header>,
    /// The container's objects.
    pub objects: &'a [Object],
    /// The node-domain block.
    pub block: Option<&'a NodeBlock>,
    /// Every other byte, absolute offsets.
    pub gaps: &'a [Gap],
}

impl Dmc3Parts<'_> {
    pub(crate) fn place_without_block(
        &self,
        out: &mut Vec<container::Placed>,
    ) -> Result<(), Dmc3Error> {
        if let Some(h) = self.header {
            container::layout(h, self.objects, out)?;
        }
        for (index, g) in self.gaps.iter().enumerate() {
            out.push(container::Placed {
                offset: g.offset,
                len: g.bytes.len() as u64,
                label: Label::Gap {
                    index,
                    offset: g.offset,
                },
            });
        }
        Ok(())
    }
}

/// Why a DMC3 file was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Dmc3Error {
    /// A structure runs past the end of the input.
    #[error(transparent)]
    OutOfBounds(#[from] OutOfBounds),
    /// Two structures claim the same bytes.
    #[error("overlapping structures")]
    Overlap(#[from] Overlap),
    /// The container magic at 0x0 is neither `"MOD "` nor `"SCM "`.
    #[error("magic at offset 0x0 is {} (hex), expected \"MOD \" or \"SCM \"", crate::bytes::hex_bytes::encode(.found))]
    BadMagic {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// Shared streams would decode to more than [`DECODE_BUDGET_FACTOR`] times the input.
    #[error("{what} at offset {offset:#x}: meshes would decode {decoded:#x} bytes of vertex data from a {file_len:#x}-byte file (limit: {DECODE_BUDGET_FACTOR}x the file)")]
    DecodeBudget {
        /// The stream that went over.
        what: Label,
        /// Its offset.
        offset: u64,
        /// Decoded total so far.
        decoded: u64,
        /// Input length.
        file_len: u64,
    },
    /// A record field holds bytes its type cannot (see [`crate::native::record::BadValue`]).
    #[error("{what} at offset {offset:#x}: field {key} cannot be decoded")]
    Field {
        /// The record.
        what: Label,
        /// Its offset.
        offset: u64,
        /// The field.
        key: &'static str,
    },
    /// The writer was asked to write a structure the file does not hold (a writer bug: every
    /// label it writes comes from its own layout).
    #[error("{0} is placed but the file does not hold it")]
    Unplaced(Label),
    /// A structure to be written disagrees with itself (lengths, placement, counts too large
    /// for their fields).
    #[error("cannot write {what}: {problem}")]
    Inconsistent {
        /// The structure, with its offset.
        what: Place,
        /// What disagrees.
        problem: Problem,
    },
    /// Two structures to be written claim the same bytes.
    #[error("overlapping structures")]
    WriteOverlap {
        /// Where and what, as text.
        #[source]
        overlap: Box<Overlap>,
        /// The structure that starts first.
        first: Label,
        /// The structure that starts inside it.
        second: Label,
    },
    /// Two regions of a node-domain block to be written claim the same bytes (offsets in
    /// `overlap` are absolute).
    #[error("overlapping structures")]
    BlockOverlap {
        /// Where and what, as text.
        #[source]
        overlap: Box<Overlap>,
        /// The block's absolute offset.
        block: u64,
        /// The region that starts first.
        first: BlockPart,
        /// The region that starts inside it.
        second: BlockPart,
    },
}

/// Which of the two header fields that name the block disagrees with the block (the bone
/// count is judged first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkField {
    /// Header +0x11.
    BoneCount,
    /// Header +0x20.
    BlockOffset,
}

/// What disagrees in a structure the writer was given. Each case carries the values it names
/// and says which field or list is wrong, so that a caller (the dump's `build`) can point at it
/// without parsing the text; the text is the writer's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// More objects than the u8 object count can hold.
    TooManyObjects {
        /// The number of objects.
        objects: usize,
    },
    /// More meshes than the u8 mesh count can hold.
    TooManyMeshes {
        /// The number of meshes.
        meshes: usize,
    },
    /// More vertices than the u16 vertex count can hold.
    TooManyVertices {
        /// The number of positions.
        vertices: usize,
    },
    /// An object's mesh records would lie past 2^64.
    MeshOffsetOverflow,
    /// A mesh record of one container kind in a container of the other.
    Variant {
        /// The record's kind.
        record: ContainerKind,
        /// The container's kind.
        container: ContainerKind,
    },
    /// A stream the record names does not hold one entry per vertex (per position).
    StreamLength {
        /// The stream.
        kind: StreamKind,
        /// The vertex count: the number of positions.
        vertex_count: usize,
        /// The entries it holds.
        len: usize,
    },
    /// A stream of a kind the container's meshes do not have holds entries.
    ForeignStream {
        /// The container's kind.
        container: ContainerKind,
        /// The stream.
        kind: StreamKind,
    },
    /// A stream shares its offset with an earlier mesh's but holds other data.
    SharedStream {
        /// The earlier mesh's stream.
        first: Label,
    },
    /// The header's bone count or block offset is not the block's.
    BlockLink {
        /// The field that disagrees.
        field: LinkField,
        /// Header bone count.
        bone_count: u8,
        /// Header block offset.
        block_offset: u64,
        /// The block's node count.
        nodes: usize,
        /// The block's offset.
        offset: u64,
    },
    /// The header names a block the file does not hold.
    NoBlock {
        /// Header bone count.
        bone_count: u8,
        /// Header block offset.
        block_offset: u64,
    },
    /// The file's structures leave holes larger than [`MAX_HOLE_BYTES`].
    Holes {
        /// Bytes covered.
        covered: u64,
        /// Where the last structure ends.
        end: u64,
    },
    /// A block array does not hold one entry per transform record.
    BlockArray {
        /// The array ([`BlockPart::Parents`], `Order` or `Groups`).
        array: BlockPart,
        /// Its entries.
        len: usize,
        /// The transform records.
        nodes: usize,
    },
    /// A block padding gap lies outside the block's extent.
    PaddingOutside {
        /// Index in the block's padding list.
        index: usize,
        /// Block-relative start.
        start: u64,
        /// Block-relative end.
        end: u64,
        /// The block's extent.
        extent: u64,
    },
    /// The block's regions and padding leave holes larger than [`MAX_HOLE_BYTES`].
    BlockHoles {
        /// Bytes covered.
        covered: u64,
        /// The block's extent.
        extent: u64,
    },
    /// The block's extent does not fit in memory.
    ExtentTooLarge,
    /// A mesh's carried workspace bytes are not the length its vertex count needs.
    WorkspaceLength {
        /// The bytes carried.
        len: usize,
        /// The bytes its vertex count needs.
        needed: u64,
    },
    /// A mesh's workspace (its record's offset plus +0x40) would lie past 2^64.
    WorkspaceOffsetOverflow,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::TooManyObjects { objects } => {
                write!(f, "{objects} objects, but the object count is a u8")
            }
            Problem::TooManyMeshes { meshes } => {
                write!(f, "{meshes} meshes, but the mesh count is a u8")
            }
            Problem::TooManyVertices { vertices } => write!(
                f,
                "{vertices} vertices, but the vertex count is a u16 (at most 65535)"
            ),
            Problem::MeshOffsetOverflow => f.write_str("mesh record offset overflows"),
            Problem::Variant { record, container } => write!(
                f,
                "a {} record in a {} container",
                record.name(),
                container.name()
            ),
            Problem::StreamLength {
                kind,
                vertex_count,
                len,
            } => write!(
                f,
                "{vertex_count} positions but the {} holds {len} entries",
                kind.name()
            ),
            Problem::ForeignStream { container, kind } => write!(
                f,
                "a {} mesh cannot hold a {}",
                container.name(),
                kind.name()
            ),
            Problem::SharedStream { first } => {
                write!(f, "shared with {first} but holds other data")
            }
            Problem::BlockLink {
                bone_count,
                block_offset,
                nodes,
                offset,
                ..
            } => write!(
                f,
                "bone count {bone_count} and block offset {block_offset:#x}, but the block has {nodes} nodes at {offset:#x}"
            ),
            Problem::NoBlock {
                bone_count,
                block_offset,
            } => write!(
                f,
                "names a block of {bone_count} nodes at {block_offset:#x}, but the file holds none"
            ),
            Problem::Holes { covered, end } => write!(
                f,
                "structures cover {covered:#x} bytes but end at {end:#x}; the holes would be zero-filled"
            ),
            Problem::BlockArray { array, len, nodes } => write!(
                f,
                "{array} has {len} entries but there are {nodes} transform records"
            ),
            Problem::PaddingOutside {
                start, end, extent, ..
            } => write!(
                f,
                "padding at rel {start:#x}..{end:#x} lies outside the block's extent {extent:#x}"
            ),
            Problem::BlockHoles { covered, extent } => write!(
                f,
                "its regions and padding cover {covered:#x} bytes but its extent is {extent:#x}; the holes would be zero-filled"
            ),
            Problem::ExtentTooLarge => f.write_str("extent does not fit in memory"),
            Problem::WorkspaceLength { len, needed } => write!(
                f,
                "carries {len} bytes but the mesh's vertex count needs {needed}"
            ),
            Problem::WorkspaceOffsetOverflow => {
                f.write_str("its record offset plus +0x40 overflows")
            }
        }
    }
}

/// Which structure a writer error is about, typed so that a caller (the dump's `build`) can
/// name it without parsing the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `container header {0}`: header fields by offset (`+0x10`).
    Header(&'static str),
    /// `{label} at {offset:#x}`: an object record, a mesh record or a stream.
    At {
        /// The structure.
        label: Label,
        /// Its absolute offset.
        offset: u64,
    },
    /// `object {object} mesh {mesh}`: a mesh record that cannot be placed.
    Mesh {
        /// Object index.
        object: u8,
        /// Mesh index within the object.
        mesh: u8,
    },
    /// `{0}`: a structure named by its label alone (the node-domain block; a record whose
    /// count does not fit its field when it is encoded).
    Is(Label),
    /// `file`: the file as a whole.
    File,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Header(fields) => write!(f, "container header {fields}"),
            Place::At { label, offset } => write!(f, "{label} at {offset:#x}"),
            Place::Mesh { object, mesh } => write!(f, "object {object} mesh {mesh}"),
            Place::Is(label) => write!(f, "{label}"),
            Place::File => f.write_str("file"),
        }
    }
}

/// The most uncovered bytes [`write()`] zero-fills (holes only arise in structs built in code).
pub const MAX_HOLE_BYTES: u64 = 1 << 24;

/// Whether `data` starts with `"MOD "` or `"SCM "`.
pub fn has_container_magic(data: &[u8]) -> bool {
    data.starts_with(b"MOD ") || data.starts_with(b"SCM ")
}

/// Reads a MOD or SCM container: header, objects, meshes, streams, the block named by header
/// +0x20 with N = header +0x11 (none when both are 0), each mesh's index workspace where its
/// +0x40 points when nothing else claims those bytes, and every other byte as gaps.
pub fn read_container(data: &[u8]) -> Result<Dmc3File, Dmc3Error> {
    let mut map = RegionMap::with_capacity(32);
    let mut container = container::read_parts(data, &mut map)?;
    let h = &container.header;
    let block = if h.has_block() {
        let b = read_block(data, h.block_offset, h.bone_count as usize)?;
        map.claim(b.offset, b.extent(), Label::Block(b.offset));
        Some(b)
    } else {
        None
    };
    let (_, mut gaps) = map.finish(data)?;
    // The workspaces are found last, in what no other structure claimed (see `workspace`).
    workspace::carve(&mut container.objects, &mut gaps, data.len() as u64);
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
    map.claim(block.offset, block.extent(), Label::BareBlock);
    let (_, gaps) = map.finish(data)?;
    Ok(Dmc3File {
        container: None,
        block: Some(block),
        gaps,
    })
}

/// Writes the file back; for an unmodified read the exact input bytes. The counts of lists
/// (objects, meshes, vertices) are the lists' lengths. Refuses structures that disagree
/// (stream lengths, header vs block), lists too long for their counts, and overlaps.
pub fn write(file: &Dmc3File) -> Result<Vec<u8>, Dmc3Error> {
    let mut out = Vec::new();
    write_into(file, &mut out)?;
    Ok(out)
}

/// [`write()`] into a caller's buffer (cleared first), so that a caller writing many files can
/// reuse one allocation. On error `out` holds nothing useful.
pub fn write_into(file: &Dmc3File, out: &mut Vec<u8>) -> Result<(), Dmc3Error> {
    write_parts_into(file.parts(), out)
}

/// [`write_into`] for a file given by its parts: the same checks, the same bytes.
pub fn write_parts_into(file: Dmc3Parts<'_>, out: &mut Vec<u8>) -> Result<(), Dmc3Error> {
    out.clear();
    // Header, objects, up to six pieces per mesh (record and five streams), gaps, block.
    let meshes: usize = file.objects.iter().map(|o| o.meshes.len()).sum();
    let mut placed = Vec::with_capacity(2 + file.objects.len() + 6 * meshes + file.gaps.len());
    // The header's link to the block first: a count or offset edited there is named before
    // what it would throw out of place.
    if let Some(h) = file.header {
        match file.block {
            Some(b) if h.bone_count as usize != b.node_count() || h.block_offset != b.offset => {
                return Err(Dmc3Error::Inconsistent {
                    what: Place::Header("+0x11/+0x20"),
                    problem: Problem::BlockLink {
                        field: if h.bone_count as usize != b.node_count() {
                            LinkField::BoneCount
                        } else {
                            LinkField::BlockOffset
                        },
                        bone_count: h.bone_count,
                        block_offset: h.block_offset,
                        nodes: b.node_count(),
                        offset: b.offset,
                    },
                });
            }
            Some(_) => {}
            None if h.has_block() => {
                return Err(Dmc3Error::Inconsistent {
                    what: Place::Header("+0x11/+0x20"),
                    problem: Problem::NoBlock {
                        bone_count: h.bone_count,
                        block_offset: h.block_offset,
                    },
                })
            }
            None => {}
        }
    }
    file.place_without_block(&mut placed)?;
    if let Some(b) = file.block {
        placed.push(container::Placed {
            offset: b.offset,
            len: b.encoded_len()?,
            label: Label::Block(b.offset),
        });
    }
    let end = placed
        .iter()
        .map(|p| p.offset.saturating_add(p.len))
        .max()
        .unwrap_or(0);
    // A read file's pieces cover every byte. Only a struct built or edited in code can leave
    // holes (written as zero); refuse big ones instead of allocating for a stray offset.
    let covered = placed.iter().fold(0u64, |a, p| a.saturating_add(p.len));
    let mut map = RegionMap::with_capacity(placed.len());
    for p in &placed {
        map.claim(p.offset, p.len, p.label);
    }
    let (claims, _) = map
        .finish_labelled(&[])
        .map_err(|(overlap, first, second)| Dmc3Error::WriteOverlap {
            overlap: Box::new(overlap),
            first,
            second,
        })?;
    if end.saturating_sub(covered) > MAX_HOLE_BYTES {
        return Err(Dmc3Error::Inconsistent {
            what: Place::File,
            problem: Problem::Holes { covered, end },
        });
    }
    // No two claims overlap and `end` bounds them all; the holes check bounds `end` by the
    // structures' own (in-memory) sizes.
    out.resize(end as usize, 0);
    for c in &claims {
        let dst = region_mut(out, c.label, c.start, c.end - c.start)?;
        match c.label {
            Label::Gap { index, .. } => {
                let g = file.gaps.get(index).ok_or(Dmc3Error::Unplaced(c.label))?;
                dst.copy_from_slice(&g.bytes);
            }
            Label::Block(_) => file
                .block
                .ok_or(Dmc3Error::Unplaced(c.label))?
                .encode_into(dst)?,
            Label::Workspace { object, mesh } => {
                workspace::encode(file.objects, (object, mesh), c.start, end, dst)?
            }
            label => {
                let h = file.header.ok_or(Dmc3Error::Unplaced(label))?;
                container::encode(h, file.objects, label, dst)?;
            }
        }
    }
    Ok(())
}
