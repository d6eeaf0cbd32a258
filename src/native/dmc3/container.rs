//! The DMC3 MOD/SCM container (spec §2, class COMMUNITY): a 0x40-byte header, 0x40-byte object
//! records, 0x50-byte mesh records and per-mesh vertex streams at absolute offsets.
//!
//! Every field is kept, unknowns included. Streams are decoded into vectors (floats as bit
//! patterns); the accessors turn them into values (UV/4096, joint bytes/4, 5-bit weights/31,
//! strip flags, triangles).

use serde::{Deserialize, Serialize};

use super::Dmc3Error;
use crate::bytes::{Bytes, Overlap};

/// Size of the container header.
pub const HEADER_LEN: u64 = 0x40;
/// Size of one object record.
pub const OBJECT_LEN: u64 = 0x40;
/// Size of one mesh record.
pub const MESH_LEN: u64 = 0x50;
/// Shared streams are decoded once per mesh that names them; this caps the decoded total at
/// this many times the input size, so a file cannot make the reader allocate without bound.
pub const DECODE_BUDGET_FACTOR: u64 = 8;

/// Which container the magic names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ContainerKind {
    /// `"MOD "`: a character model, with bone-index and weight streams.
    #[default]
    Mod,
    /// `"SCM "`: stage geometry, with vertex colours instead of bone streams.
    Scm,
}

impl ContainerKind {
    /// The four magic bytes.
    pub fn magic(self) -> [u8; 4] {
        match self {
            ContainerKind::Mod => *b"MOD ",
            ContainerKind::Scm => *b"SCM ",
        }
    }

    /// The kind named by a magic, if any.
    pub fn from_magic(m: [u8; 4]) -> Option<Self> {
        match &m {
            b"MOD " => Some(ContainerKind::Mod),
            b"SCM " => Some(ContainerKind::Scm),
            _ => None,
        }
    }

    /// `mod` or `scm`.
    pub fn name(self) -> &'static str {
        match self {
            ContainerKind::Mod => "mod",
            ContainerKind::Scm => "scm",
        }
    }
}

/// The 0x40-byte container header.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Header {
    /// +0x00 magic.
    pub magic: ContainerKind,
    /// +0x04 version, f32 bits.
    #[serde(with = "crate::bytes::hex_u32")]
    pub version_bits: u32,
    /// +0x08 unknown.
    #[serde(with = "crate::bytes::hex_array")]
    pub unknown_08: [u8; 8],
    /// +0x10 object count.
    pub object_count: u8,
    /// +0x11 bone count = N of the node-domain block.
    pub bone_count: u8,
    /// +0x12 texture count.
    pub texture_count: u8,
    /// +0x13 unknown.
    pub unknown_13: u8,
    /// +0x14 unknown.
    #[serde(with = "crate::bytes::hex_u32")]
    pub unknown_14: u32,
    /// +0x18 unknown.
    #[serde(with = "crate::bytes::hex_u64")]
    pub unknown_18: u64,
    /// +0x20 absolute offset of the node-domain block.
    #[serde(with = "crate::bytes::hex_u64")]
    pub block_offset: u64,
    /// +0x28 unknown.
    #[serde(with = "crate::bytes::hex_array")]
    pub unknown_28: [u8; 24],
}

impl Header {
    /// The version as a float.
    pub fn version(&self) -> f32 {
        f32::from_bits(self.version_bits)
    }

    /// Whether the header names a block: not when both the bone count and the offset are 0.
    pub fn has_block(&self) -> bool {
        !(self.bone_count == 0 && self.block_offset == 0)
    }

    fn read(b: &Bytes, magic: ContainerKind) -> Result<Self, Dmc3Error> {
        let w = "container header";
        Ok(Header {
            magic,
            version_bits: b.u32(w, 0x04)?,
            unknown_08: b.array(w, 0x08)?,
            object_count: b.u8(w, 0x10)?,
            bone_count: b.u8(w, 0x11)?,
            texture_count: b.u8(w, 0x12)?,
            unknown_13: b.u8(w, 0x13)?,
            unknown_14: b.u32(w, 0x14)?,
            unknown_18: b.u64(w, 0x18)?,
            block_offset: b.u64(w, 0x20)?,
            unknown_28: b.array(w, 0x28)?,
        })
    }

    /// The header's 0x40 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(HEADER_LEN as usize);
        v.extend_from_slice(&self.magic.magic());
        v.extend_from_slice(&self.version_bits.to_le_bytes());
        v.extend_from_slice(&self.unknown_08);
        v.extend_from_slice(&[
            self.object_count,
            self.bone_count,
            self.texture_count,
            self.unknown_13,
        ]);
        v.extend_from_slice(&self.unknown_14.to_le_bytes());
        v.extend_from_slice(&self.unknown_18.to_le_bytes());
        v.extend_from_slice(&self.block_offset.to_le_bytes());
        v.extend_from_slice(&self.unknown_28);
        v
    }
}

/// A 0x40-byte object record.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ObjectRecord {
    /// +0x00 mesh count.
    pub mesh_count: u8,
    /// +0x01 unknown.
    pub unknown_01: u8,
    /// +0x02 vertex count over the object's meshes (stored, not enforced).
    pub vertex_count: u16,
    /// +0x04 unknown.
    #[serde(with = "crate::bytes::hex_u32")]
    pub unknown_04: u32,
    /// +0x08 absolute offset of the first mesh record.
    #[serde(with = "crate::bytes::hex_u64")]
    pub mesh_offset: u64,
    /// +0x10 flags.
    #[serde(with = "crate::bytes::hex_u32")]
    pub flags: u32,
    /// +0x14 unknown.
    #[serde(with = "crate::bytes::hex_array")]
    pub unknown_14: [u8; 28],
    /// +0x30 bounding sphere x, y, z, radius, f32 bits.
    #[serde(with = "crate::bytes::hex_u32s")]
    pub bounds_bits: [u32; 4],
}

impl ObjectRecord {
    /// The bounding sphere (x, y, z, radius).
    pub fn bounds(&self) -> [f32; 4] {
        self.bounds_bits.map(f32::from_bits)
    }

    fn read(b: &Bytes, at: u64, what: &str) -> Result<Self, Dmc3Error> {
        Ok(ObjectRecord {
            mesh_count: b.u8(what, at)?,
            unknown_01: b.u8(what, at + 0x01)?,
            vertex_count: b.u16(what, at + 0x02)?,
            unknown_04: b.u32(what, at + 0x04)?,
            mesh_offset: b.u64(what, at + 0x08)?,
            flags: b.u32(what, at + 0x10)?,
            unknown_14: b.array(what, at + 0x14)?,
            bounds_bits: [
                b.u32(what, at + 0x30)?,
                b.u32(what, at + 0x34)?,
                b.u32(what, at + 0x38)?,
                b.u32(what, at + 0x3C)?,
            ],
        })
    }

    /// The record's 0x40 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(OBJECT_LEN as usize);
        v.push(self.mesh_count);
        v.push(self.unknown_01);
        v.extend_from_slice(&self.vertex_count.to_le_bytes());
        v.extend_from_slice(&self.unknown_04.to_le_bytes());
        v.extend_from_slice(&self.mesh_offset.to_le_bytes());
        v.extend_from_slice(&self.flags.to_le_bytes());
        v.extend_from_slice(&self.unknown_14);
        for f in self.bounds_bits {
            v.extend_from_slice(&f.to_le_bytes());
        }
        v
    }
}

/// The part of a mesh record (+0x28..+0x40) that differs between MOD and SCM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MeshVariant {
    /// MOD: bone-index and weight streams.
    Mod {
        /// +0x28 absolute offset of the bone-index stream (u8×4 per vertex).
        #[serde(with = "crate::bytes::hex_u64")]
        bone_index_offset: u64,
        /// +0x30 absolute offset of the weight stream (u16 per vertex).
        #[serde(with = "crate::bytes::hex_u64")]
        weight_offset: u64,
        /// +0x38 unknown.
        #[serde(with = "crate::bytes::hex_array")]
        unknown_38: [u8; 8],
    },
    /// SCM: a vertex-colour stream.
    Scm {
        /// +0x28 unknown.
        #[serde(with = "crate::bytes::hex_array")]
        unknown_28: [u8; 16],
        /// +0x38 absolute offset of the vertex-colour stream (u8×4 per vertex).
        #[serde(with = "crate::bytes::hex_u64")]
        colour_offset: u64,
    },
}

impl Default for MeshVariant {
    fn default() -> Self {
        MeshVariant::Mod {
            bone_index_offset: 0,
            weight_offset: 0,
            unknown_38: [0; 8],
        }
    }
}

/// A 0x50-byte mesh record.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MeshRecord {
    /// +0x00 vertex count.
    pub vertex_count: u16,
    /// +0x02 texture index.
    pub texture_index: u16,
    /// +0x04 unknown.
    #[serde(with = "crate::bytes::hex_array")]
    pub unknown_04: [u8; 12],
    /// +0x10 absolute offset of the position stream.
    #[serde(with = "crate::bytes::hex_u64")]
    pub positions_offset: u64,
    /// +0x18 absolute offset of the normal stream.
    #[serde(with = "crate::bytes::hex_u64")]
    pub normals_offset: u64,
    /// +0x20 absolute offset of the UV stream.
    #[serde(with = "crate::bytes::hex_u64")]
    pub uv_offset: u64,
    /// +0x28..+0x40, MOD or SCM.
    pub variant: MeshVariant,
    /// +0x40 unknown.
    #[serde(with = "crate::bytes::hex_u64")]
    pub unknown_40: u64,
    /// +0x48 unknown.
    #[serde(with = "crate::bytes::hex_array")]
    pub unknown_48: [u8; 8],
}

impl MeshRecord {
    fn read(b: &Bytes, at: u64, kind: ContainerKind, what: &str) -> Result<Self, Dmc3Error> {
        let variant = match kind {
            ContainerKind::Mod => MeshVariant::Mod {
                bone_index_offset: b.u64(what, at + 0x28)?,
                weight_offset: b.u64(what, at + 0x30)?,
                unknown_38: b.array(what, at + 0x38)?,
            },
            ContainerKind::Scm => MeshVariant::Scm {
                unknown_28: b.array(what, at + 0x28)?,
                colour_offset: b.u64(what, at + 0x38)?,
            },
        };
        Ok(MeshRecord {
            vertex_count: b.u16(what, at)?,
            texture_index: b.u16(what, at + 0x02)?,
            unknown_04: b.array(what, at + 0x04)?,
            positions_offset: b.u64(what, at + 0x10)?,
            normals_offset: b.u64(what, at + 0x18)?,
            uv_offset: b.u64(what, at + 0x20)?,
            variant,
            unknown_40: b.u64(what, at + 0x40)?,
            unknown_48: b.array(what, at + 0x48)?,
        })
    }

    /// The record's 0x50 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(MESH_LEN as usize);
        v.extend_from_slice(&self.vertex_count.to_le_bytes());
        v.extend_from_slice(&self.texture_index.to_le_bytes());
        v.extend_from_slice(&self.unknown_04);
        v.extend_from_slice(&self.positions_offset.to_le_bytes());
        v.extend_from_slice(&self.normals_offset.to_le_bytes());
        v.extend_from_slice(&self.uv_offset.to_le_bytes());
        match &self.variant {
            MeshVariant::Mod {
                bone_index_offset,
                weight_offset,
                unknown_38,
            } => {
                v.extend_from_slice(&bone_index_offset.to_le_bytes());
                v.extend_from_slice(&weight_offset.to_le_bytes());
                v.extend_from_slice(unknown_38);
            }
            MeshVariant::Scm {
                unknown_28,
                colour_offset,
            } => {
                v.extend_from_slice(unknown_28);
                v.extend_from_slice(&colour_offset.to_le_bytes());
            }
        }
        v.extend_from_slice(&self.unknown_40.to_le_bytes());
        v.extend_from_slice(&self.unknown_48);
        v
    }

    /// Which container this record's variant belongs to.
    pub fn kind(&self) -> ContainerKind {
        match self.variant {
            MeshVariant::Mod { .. } => ContainerKind::Mod,
            MeshVariant::Scm { .. } => ContainerKind::Scm,
        }
    }

    /// The record's streams: (kind, absolute offset), in record order.
    pub fn streams(&self) -> Vec<(StreamKind, u64)> {
        let mut s = vec![
            (StreamKind::Positions, self.positions_offset),
            (StreamKind::Normals, self.normals_offset),
            (StreamKind::Uvs, self.uv_offset),
        ];
        match &self.variant {
            MeshVariant::Mod {
                bone_index_offset,
                weight_offset,
                ..
            } => {
                s.push((StreamKind::BoneIndices, *bone_index_offset));
                s.push((StreamKind::Weights, *weight_offset));
            }
            MeshVariant::Scm { colour_offset, .. } => {
                s.push((StreamKind::Colours, *colour_offset));
            }
        }
        s
    }
}

/// The kinds of vertex stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StreamKind {
    /// f32×3.
    Positions,
    /// f32×3.
    Normals,
    /// s16×2.
    Uvs,
    /// u8×4 (MOD).
    BoneIndices,
    /// u16 (MOD).
    Weights,
    /// u8×4 (SCM).
    Colours,
}

impl StreamKind {
    /// Bytes per vertex.
    pub fn stride(self) -> u64 {
        match self {
            StreamKind::Positions | StreamKind::Normals => 12,
            StreamKind::Uvs | StreamKind::BoneIndices | StreamKind::Colours => 4,
            StreamKind::Weights => 2,
        }
    }

    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Positions => "position stream",
            StreamKind::Normals => "normal stream",
            StreamKind::Uvs => "UV stream",
            StreamKind::BoneIndices => "bone-index stream",
            StreamKind::Weights => "weight stream",
            StreamKind::Colours => "colour stream",
        }
    }
}

/// A mesh: its record and its decoded streams (vertex-count entries each). MOD meshes leave
/// `colours` empty; SCM meshes leave `bone_indices` and `weights` empty.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Mesh {
    /// The 0x50-byte record.
    pub record: MeshRecord,
    /// Positions, f32 bits, model (bind) space.
    #[serde(with = "crate::bytes::le_stream")]
    pub positions: Vec<[u32; 3]>,
    /// Normals, f32 bits.
    #[serde(with = "crate::bytes::le_stream")]
    pub normals: Vec<[u32; 3]>,
    /// UVs as stored (value × 4096).
    #[serde(with = "crate::bytes::le_stream")]
    pub uvs: Vec<[i16; 2]>,
    /// MOD: four index bytes; byte 0 unused by public importers, bytes 1..3 joint × 4.
    #[serde(with = "crate::bytes::le_stream")]
    pub bone_indices: Vec<[u8; 4]>,
    /// MOD: three 5-bit weights and the strip flag (bit 15).
    #[serde(with = "crate::bytes::le_stream")]
    pub weights: Vec<u16>,
    /// SCM: RGB and a flag byte whose bit 1 is the strip flag.
    #[serde(with = "crate::bytes::le_stream")]
    pub colours: Vec<[u8; 4]>,
}

/// A stored UV as floats (value/4096). V is not flipped: that is an importer's choice.
pub fn uv_value(raw: [i16; 2]) -> [f32; 2] {
    [raw[0] as f32 / 4096.0, raw[1] as f32 / 4096.0]
}

/// The three joint indices of a bone-index entry (bytes 1..3 divided by 4; byte 0 unused).
pub fn joint_indices(raw: [u8; 4]) -> [u8; 3] {
    [raw[1] / 4, raw[2] / 4, raw[3] / 4]
}

/// The three weights of a weight entry, each 5 bits /31.
pub fn weight_values(w: u16) -> [f32; 3] {
    [
        (w & 31) as f32 / 31.0,
        ((w >> 5) & 31) as f32 / 31.0,
        ((w >> 10) & 31) as f32 / 31.0,
    ]
}

/// Whether a weight entry carries the strip flag (bit 15).
pub fn weight_strip_flag(w: u16) -> bool {
    w & 0x8000 != 0
}

/// Whether a vertex colour carries the strip flag (byte 3, bit 1).
pub fn colour_strip_flag(c: [u8; 4]) -> bool {
    c[3] & 0x02 != 0
}

/// Triangles of a strip given each vertex's strip flag: for i >= 2 whose vertex is not
/// flagged, (i-2, i-1, i), winding alternating along the strip.
///
/// Winding parity RESETS at every restart: it counts triangles emitted since the last flagged
/// vertex, so the first triangle after a restart is always (i-2, i-1, i). Why: flagged
/// vertices start a new strip, and a strip encoder emits each strip in its own base
/// orientation; parity by absolute index would flip every strip that happens to start at an
/// odd index, and concatenating strips must not change how each one is wound. The game's own
/// rule is not documented (spec §2); the public importer sidesteps it via the normals.
pub fn strip_triangles(flags: &[bool]) -> Vec<[u32; 3]> {
    let mut out = Vec::with_capacity(flags.len().saturating_sub(2));
    let mut since_restart = 0usize;
    for (i, &flagged) in flags.iter().enumerate() {
        if flagged {
            since_restart = 0;
            continue;
        }
        if i < 2 {
            continue;
        }
        let (a, b, c) = ((i - 2) as u32, (i - 1) as u32, i as u32);
        out.push(if since_restart & 1 == 0 {
            [a, b, c]
        } else {
            [b, a, c]
        });
        since_restart += 1;
    }
    out
}

impl Mesh {
    /// Number of vertices (the record's count; the streams agree after a read).
    pub fn vertex_count(&self) -> usize {
        self.record.vertex_count as usize
    }

    /// Positions as floats.
    pub fn positions_f32(&self) -> Vec<[f32; 3]> {
        self.positions
            .iter()
            .map(|p| p.map(f32::from_bits))
            .collect()
    }

    /// Normals as floats.
    pub fn normals_f32(&self) -> Vec<[f32; 3]> {
        self.normals.iter().map(|p| p.map(f32::from_bits)).collect()
    }

    /// UVs as floats (value/4096, V not flipped).
    pub fn uvs_f32(&self) -> Vec<[f32; 2]> {
        self.uvs.iter().map(|&u| uv_value(u)).collect()
    }

    /// MOD: the three joint indices per vertex (bytes 1..3 / 4). Empty for SCM.
    pub fn joints(&self) -> Vec<[u8; 3]> {
        self.bone_indices
            .iter()
            .map(|&b| joint_indices(b))
            .collect()
    }

    /// MOD: the three weights per vertex (5 bits each, /31). Empty for SCM.
    pub fn weights_f32(&self) -> Vec<[f32; 3]> {
        self.weights.iter().map(|&w| weight_values(w)).collect()
    }

    /// Per vertex, whether it carries the strip flag (MOD: weight bit 15; SCM: colour byte 3
    /// bit 1).
    pub fn strip_flags(&self) -> Vec<bool> {
        match self.record.variant {
            MeshVariant::Mod { .. } => self.weights.iter().map(|&w| weight_strip_flag(w)).collect(),
            MeshVariant::Scm { .. } => self.colours.iter().map(|&c| colour_strip_flag(c)).collect(),
        }
    }

    /// The mesh's triangles (vertex indices) from its strips; see [`strip_triangles`].
    pub fn triangles(&self) -> Vec<[u32; 3]> {
        strip_triangles(&self.strip_flags())
    }

    /// Number of entries stream `kind` holds in this mesh.
    pub fn stream_len(&self, kind: StreamKind) -> usize {
        match kind {
            StreamKind::Positions => self.positions.len(),
            StreamKind::Normals => self.normals.len(),
            StreamKind::Uvs => self.uvs.len(),
            StreamKind::BoneIndices => self.bone_indices.len(),
            StreamKind::Weights => self.weights.len(),
            StreamKind::Colours => self.colours.len(),
        }
    }

    /// Stream `kind` as its bytes on disk.
    pub fn stream_bytes(&self, kind: StreamKind) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.stream_len(kind) * kind.stride() as usize);
        match kind {
            StreamKind::Positions | StreamKind::Normals => {
                let s = if kind == StreamKind::Positions {
                    &self.positions
                } else {
                    &self.normals
                };
                for p in s {
                    for f in p {
                        v.extend_from_slice(&f.to_le_bytes());
                    }
                }
            }
            StreamKind::Uvs => {
                for u in &self.uvs {
                    v.extend_from_slice(&u[0].to_le_bytes());
                    v.extend_from_slice(&u[1].to_le_bytes());
                }
            }
            StreamKind::BoneIndices => {
                for b in &self.bone_indices {
                    v.extend_from_slice(b);
                }
            }
            StreamKind::Weights => {
                for w in &self.weights {
                    v.extend_from_slice(&w.to_le_bytes());
                }
            }
            StreamKind::Colours => {
                for c in &self.colours {
                    v.extend_from_slice(c);
                }
            }
        }
        v
    }

    /// Decodes stream `kind` from its bytes into this mesh.
    fn set_stream(&mut self, kind: StreamKind, bytes: &[u8]) {
        let f = |c: &[u8], i: usize| {
            c.get(i..i + 4)
                .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
                .unwrap_or(0)
        };
        let stride = kind.stride() as usize;
        let chunks = bytes.chunks_exact(stride);
        match kind {
            StreamKind::Positions => {
                self.positions = chunks.map(|c| [f(c, 0), f(c, 4), f(c, 8)]).collect()
            }
            StreamKind::Normals => {
                self.normals = chunks.map(|c| [f(c, 0), f(c, 4), f(c, 8)]).collect()
            }
            StreamKind::Uvs => {
                self.uvs = chunks
                    .map(|c| {
                        [
                            i16::from_le_bytes([c[0], c[1]]),
                            i16::from_le_bytes([c[2], c[3]]),
                        ]
                    })
                    .collect()
            }
            StreamKind::BoneIndices => {
                self.bone_indices = chunks.map(|c| [c[0], c[1], c[2], c[3]]).collect()
            }
            StreamKind::Weights => {
                self.weights = chunks.map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
            }
            StreamKind::Colours => {
                self.colours = chunks.map(|c| [c[0], c[1], c[2], c[3]]).collect()
            }
        }
    }
}

/// An object: its record and its meshes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Object {
    /// The 0x40-byte record.
    pub record: ObjectRecord,
    /// `record.mesh_count` meshes, their records in a row at `record.mesh_offset`.
    pub meshes: Vec<Mesh>,
}

/// A MOD/SCM container without its node-domain block and gaps (those live in `Dmc3File`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Container {
    /// The header.
    pub header: Header,
    /// `header.object_count` objects, their records at 0x40.
    pub objects: Vec<Object>,
}

/// One structure of a container placed in the file: where, what, which bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Absolute offset.
    pub offset: u64,
    /// What it is, for messages.
    pub label: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Where a shared stream was first claimed and what it held, so later sharers can be checked.
type StreamKey = (u64, u64, StreamKind);

/// Reads the header, objects, meshes and streams; the caller claims `claims` and reads the block.
pub(crate) fn read_parts(
    data: &[u8],
    claim: &mut dyn FnMut(u64, u64, String),
) -> Result<Container, Dmc3Error> {
    let b = Bytes::new(data);
    if let Ok(m) = b.array::<4>("magic", 0) {
        if ContainerKind::from_magic(m).is_none() {
            return Err(Dmc3Error::BadMagic {
                found: crate::bytes::hex_bytes::encode(&m),
            });
        }
    }
    b.check("container header", 0, HEADER_LEN)?;
    let magic = ContainerKind::from_magic(b.array("magic", 0)?).ok_or(Dmc3Error::BadMagic {
        found: String::new(),
    })?;
    let header = Header::read(&b, magic)?;
    claim(0, HEADER_LEN, "container header".into());

    let mut objects = Vec::with_capacity(header.object_count as usize);
    for i in 0..header.object_count as u64 {
        let at = HEADER_LEN + i * OBJECT_LEN;
        let what = format!("object record {i}");
        b.check(&what, at, OBJECT_LEN)?;
        let record = ObjectRecord::read(&b, at, &what)?;
        claim(at, OBJECT_LEN, what);
        objects.push(Object {
            record,
            meshes: Vec::new(),
        });
    }

    let budget = DECODE_BUDGET_FACTOR.saturating_mul(b.len());
    let mut decoded = 0u64;
    let mut seen: std::collections::BTreeSet<StreamKey> = std::collections::BTreeSet::new();
    // Mesh-record ranges read so far. Objects naming overlapping records are refused by the
    // region map too, but only after every mesh was built: 255 objects naming the same 255
    // records made 65025 meshes (~20 MB) from a 36 KB file. Refuse them before decoding.
    let mut record_ranges: Vec<(u64, u64, usize)> = Vec::new();
    for (i, obj) in objects.iter_mut().enumerate() {
        let count = obj.record.mesh_count as u64;
        if count == 0 {
            continue;
        }
        let first = obj.record.mesh_offset;
        b.check(
            &format!("mesh records of object {i}"),
            first,
            count * MESH_LEN,
        )?;
        // check() proved first + count * MESH_LEN fits in the file.
        let end = first + count * MESH_LEN;
        if let Some(&(s, e, k)) = record_ranges.iter().find(|r| first < r.1 && r.0 < end) {
            let (a, z) = ((s, e, k), (first, end, i));
            let (a, z) = if (a.0, a.1) <= (z.0, z.1) {
                (a, z)
            } else {
                (z, a)
            };
            return Err(Dmc3Error::Overlap(Overlap {
                first: format!("mesh records of object {}", a.2),
                first_start: a.0,
                first_end: a.1,
                second: format!("mesh records of object {}", z.2),
                second_start: z.0,
                second_end: z.1,
            }));
        }
        record_ranges.push((first, end, i));
        for j in 0..count {
            let at = first + j * MESH_LEN;
            let what = format!("mesh record {j} of object {i}");
            let record = MeshRecord::read(&b, at, magic, &what)?;
            claim(at, MESH_LEN, what);
            let mut mesh = Mesh {
                record,
                ..Mesh::default()
            };
            let vc = mesh.record.vertex_count as u64;
            for (kind, off) in mesh.record.streams() {
                let len = vc * kind.stride();
                if len == 0 {
                    continue;
                }
                let what = format!("{} of object {i} mesh {j} ({vc} vertices)", kind.name());
                let bytes = b.slice(&what, off, len)?;
                decoded = decoded.saturating_add(len);
                if decoded > budget {
                    return Err(Dmc3Error::DecodeBudget {
                        what,
                        offset: off,
                        decoded,
                        file_len: b.len(),
                    });
                }
                // A stream named by several meshes with the same offset, length and kind is
                // one structure: claim it once. Anything else overlapping is an error later.
                if seen.insert((off, len, kind)) {
                    claim(off, len, what);
                }
                mesh.set_stream(kind, bytes);
            }
            obj.meshes.push(mesh);
        }
    }
    Ok(Container { header, objects })
}

/// The container's structures as pieces, shared streams once (checked to agree).
/// Checks counts against records and record variants against the magic.
pub(crate) fn pieces(c: &Container) -> Result<Vec<Piece>, Dmc3Error> {
    let bad = |what: String, problem: String| Dmc3Error::Inconsistent { what, problem };
    let h = &c.header;
    if h.object_count as usize != c.objects.len() {
        return Err(bad(
            "container header +0x10".into(),
            format!(
                "object count {} but {} objects",
                h.object_count,
                c.objects.len()
            ),
        ));
    }
    let mut out = vec![Piece {
        offset: 0,
        label: "container header".into(),
        bytes: h.to_bytes(),
    }];
    let mut shared: std::collections::BTreeMap<StreamKey, (String, Vec<u8>)> =
        std::collections::BTreeMap::new();
    for (i, obj) in c.objects.iter().enumerate() {
        let at = HEADER_LEN + i as u64 * OBJECT_LEN;
        out.push(Piece {
            offset: at,
            label: format!("object record {i}"),
            bytes: obj.record.to_bytes(),
        });
        if obj.record.mesh_count as usize != obj.meshes.len() {
            return Err(bad(
                format!("object record {i} at {at:#x}"),
                format!(
                    "mesh count {} but {} meshes",
                    obj.record.mesh_count,
                    obj.meshes.len()
                ),
            ));
        }
        for (j, mesh) in obj.meshes.iter().enumerate() {
            let mat = obj
                .record
                .mesh_offset
                .checked_add(j as u64 * MESH_LEN)
                .ok_or_else(|| {
                    bad(
                        format!("object {i} mesh {j}"),
                        "mesh record offset overflows".into(),
                    )
                })?;
            let what = format!("mesh record {j} of object {i}");
            if mesh.record.kind() != h.magic {
                return Err(bad(
                    format!("{what} at {mat:#x}"),
                    format!(
                        "a {} record in a {} container",
                        mesh.record.kind().name(),
                        h.magic.name()
                    ),
                ));
            }
            out.push(Piece {
                offset: mat,
                label: what.clone(),
                bytes: mesh.record.to_bytes(),
            });
            let vc = mesh.record.vertex_count as usize;
            for (kind, off) in mesh.record.streams() {
                if mesh.stream_len(kind) != vc {
                    return Err(bad(
                        format!("{what} at {mat:#x}"),
                        format!(
                            "vertex count {vc} but the {} holds {} entries",
                            kind.name(),
                            mesh.stream_len(kind)
                        ),
                    ));
                }
                let bytes = mesh.stream_bytes(kind);
                if bytes.is_empty() {
                    continue;
                }
                let label = format!("{} of object {i} mesh {j}", kind.name());
                let key = (off, bytes.len() as u64, kind);
                match shared.get(&key) {
                    Some((first, prev)) if *prev != bytes => {
                        return Err(bad(
                            format!("{label} at {off:#x}"),
                            format!("shared with {first} but holds other data"),
                        ))
                    }
                    Some(_) => {}
                    None => {
                        shared.insert(key, (label.clone(), bytes.clone()));
                        out.push(Piece {
                            offset: off,
                            label,
                            bytes,
                        });
                    }
                }
            }
            for kind in [
                StreamKind::BoneIndices,
                StreamKind::Weights,
                StreamKind::Colours,
            ] {
                let named = mesh.record.streams().iter().any(|s| s.0 == kind);
                if !named && mesh.stream_len(kind) != 0 {
                    return Err(bad(
                        format!("{what} at {mat:#x}"),
                        format!("a {} mesh cannot hold a {}", h.magic.name(), kind.name()),
                    ));
                }
            }
        }
    }
    Ok(out)
}
