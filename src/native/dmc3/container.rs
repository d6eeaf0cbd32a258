//! The DMC3 MOD/SCM container (spec §2, class COMMUNITY): a 0x40-byte header, 0x40-byte object
//! records, 0x50-byte mesh records and per-mesh vertex streams at absolute offsets.
//!
//! Every field is kept, unknowns included. Streams are decoded into vectors (floats as bit
//! patterns); the accessors turn them into values (UV/4096, joint bytes/4, 5-bit weights/31,
//! strip flags, triangles).

use serde::{Deserialize, Serialize};

use super::Dmc3Error;
use crate::bytes::{Bytes, Fields, Overlap, RegionMap};

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

    /// Decodes the header from its 0x40 bytes (length checked by the caller).
    fn decode(f: Fields<'_>, magic: ContainerKind) -> Self {
        Header {
            magic,
            version_bits: f.u32(0x04),
            unknown_08: f.array(0x08),
            object_count: f.u8(0x10),
            bone_count: f.u8(0x11),
            texture_count: f.u8(0x12),
            unknown_13: f.u8(0x13),
            unknown_14: f.u32(0x14),
            unknown_18: f.u64(0x18),
            block_offset: f.u64(0x20),
            unknown_28: f.array(0x28),
        }
    }

    /// The header's 0x40 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode().to_vec()
    }

    /// The header's 0x40 bytes, without allocating.
    pub fn encode(&self) -> [u8; HEADER_LEN as usize] {
        let mut v = [0u8; HEADER_LEN as usize];
        v[0x00..0x04].copy_from_slice(&self.magic.magic());
        v[0x04..0x08].copy_from_slice(&self.version_bits.to_le_bytes());
        v[0x08..0x10].copy_from_slice(&self.unknown_08);
        v[0x10] = self.object_count;
        v[0x11] = self.bone_count;
        v[0x12] = self.texture_count;
        v[0x13] = self.unknown_13;
        v[0x14..0x18].copy_from_slice(&self.unknown_14.to_le_bytes());
        v[0x18..0x20].copy_from_slice(&self.unknown_18.to_le_bytes());
        v[0x20..0x28].copy_from_slice(&self.block_offset.to_le_bytes());
        v[0x28..0x40].copy_from_slice(&self.unknown_28);
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

    /// Decodes a record from its 0x40 bytes (length checked by the caller).
    fn decode(f: Fields<'_>) -> Self {
        ObjectRecord {
            mesh_count: f.u8(0x00),
            unknown_01: f.u8(0x01),
            vertex_count: f.u16(0x02),
            unknown_04: f.u32(0x04),
            mesh_offset: f.u64(0x08),
            flags: f.u32(0x10),
            unknown_14: f.array(0x14),
            bounds_bits: [f.u32(0x30), f.u32(0x34), f.u32(0x38), f.u32(0x3C)],
        }
    }

    /// The record's 0x40 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode().to_vec()
    }

    /// The record's 0x40 bytes, without allocating.
    pub fn encode(&self) -> [u8; OBJECT_LEN as usize] {
        let mut v = [0u8; OBJECT_LEN as usize];
        v[0x00] = self.mesh_count;
        v[0x01] = self.unknown_01;
        v[0x02..0x04].copy_from_slice(&self.vertex_count.to_le_bytes());
        v[0x04..0x08].copy_from_slice(&self.unknown_04.to_le_bytes());
        v[0x08..0x10].copy_from_slice(&self.mesh_offset.to_le_bytes());
        v[0x10..0x14].copy_from_slice(&self.flags.to_le_bytes());
        v[0x14..0x30].copy_from_slice(&self.unknown_14);
        for (k, f) in self.bounds_bits.iter().enumerate() {
            v[0x30 + 4 * k..0x34 + 4 * k].copy_from_slice(&f.to_le_bytes());
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
    /// Decodes a record from its 0x50 bytes (length checked by the caller).
    fn decode(f: Fields<'_>, kind: ContainerKind) -> Self {
        let variant = match kind {
            ContainerKind::Mod => MeshVariant::Mod {
                bone_index_offset: f.u64(0x28),
                weight_offset: f.u64(0x30),
                unknown_38: f.array(0x38),
            },
            ContainerKind::Scm => MeshVariant::Scm {
                unknown_28: f.array(0x28),
                colour_offset: f.u64(0x38),
            },
        };
        MeshRecord {
            vertex_count: f.u16(0x00),
            texture_index: f.u16(0x02),
            unknown_04: f.array(0x04),
            positions_offset: f.u64(0x10),
            normals_offset: f.u64(0x18),
            uv_offset: f.u64(0x20),
            variant,
            unknown_40: f.u64(0x40),
            unknown_48: f.array(0x48),
        }
    }

    /// The record's 0x50 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode().to_vec()
    }

    /// The record's 0x50 bytes, without allocating.
    pub fn encode(&self) -> [u8; MESH_LEN as usize] {
        let mut v = [0u8; MESH_LEN as usize];
        v[0x00..0x02].copy_from_slice(&self.vertex_count.to_le_bytes());
        v[0x02..0x04].copy_from_slice(&self.texture_index.to_le_bytes());
        v[0x04..0x10].copy_from_slice(&self.unknown_04);
        v[0x10..0x18].copy_from_slice(&self.positions_offset.to_le_bytes());
        v[0x18..0x20].copy_from_slice(&self.normals_offset.to_le_bytes());
        v[0x20..0x28].copy_from_slice(&self.uv_offset.to_le_bytes());
        match &self.variant {
            MeshVariant::Mod {
                bone_index_offset,
                weight_offset,
                unknown_38,
            } => {
                v[0x28..0x30].copy_from_slice(&bone_index_offset.to_le_bytes());
                v[0x30..0x38].copy_from_slice(&weight_offset.to_le_bytes());
                v[0x38..0x40].copy_from_slice(unknown_38);
            }
            MeshVariant::Scm {
                unknown_28,
                colour_offset,
            } => {
                v[0x28..0x38].copy_from_slice(unknown_28);
                v[0x38..0x40].copy_from_slice(&colour_offset.to_le_bytes());
            }
        }
        v[0x40..0x48].copy_from_slice(&self.unknown_40.to_le_bytes());
        v[0x48..0x50].copy_from_slice(&self.unknown_48);
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
        self.stream_slots().to_vec()
    }

    /// The record's streams, without allocating: (kind, absolute offset), in record order.
    pub(crate) fn stream_slots(&self) -> StreamSlots {
        let (last, n) = match &self.variant {
            MeshVariant::Mod {
                bone_index_offset,
                weight_offset,
                ..
            } => (
                [
                    (StreamKind::BoneIndices, *bone_index_offset),
                    (StreamKind::Weights, *weight_offset),
                ],
                5,
            ),
            MeshVariant::Scm { colour_offset, .. } => (
                [
                    (StreamKind::Colours, *colour_offset),
                    (StreamKind::Colours, *colour_offset),
                ],
                4,
            ),
        };
        StreamSlots {
            slots: [
                (StreamKind::Positions, self.positions_offset),
                (StreamKind::Normals, self.normals_offset),
                (StreamKind::Uvs, self.uv_offset),
                last[0],
                last[1],
            ],
            len: n,
        }
    }
}

/// A mesh record's streams in record order: four (SCM) or five (MOD).
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamSlots {
    slots: [(StreamKind, u64); 5],
    len: usize,
}

impl std::ops::Deref for StreamSlots {
    type Target = [(StreamKind, u64)];
    fn deref(&self) -> &Self::Target {
        &self.slots[..self.len]
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
        let mut v = vec![0u8; self.stream_len(kind) * kind.stride() as usize];
        self.encode_stream(kind, &mut v);
        v
    }

    /// Writes stream `kind` into `dst`, which holds exactly `stream_len(kind) * stride` bytes
    /// (entries beyond a shorter `dst` are not written).
    pub(crate) fn encode_stream(&self, kind: StreamKind, dst: &mut [u8]) {
        fn put<T, const N: usize>(dst: &mut [u8], src: &[T], enc: impl Fn(&T) -> [u8; N]) {
            for (d, v) in dst.chunks_exact_mut(N).zip(src) {
                d.copy_from_slice(&enc(v));
            }
        }
        fn vec3(p: &[u32; 3]) -> [u8; 12] {
            let mut b = [0u8; 12];
            b[0..4].copy_from_slice(&p[0].to_le_bytes());
            b[4..8].copy_from_slice(&p[1].to_le_bytes());
            b[8..12].copy_from_slice(&p[2].to_le_bytes());
            b
        }
        match kind {
            StreamKind::Positions => put(dst, &self.positions, vec3),
            StreamKind::Normals => put(dst, &self.normals, vec3),
            StreamKind::Uvs => put(dst, &self.uvs, |u| {
                let (a, b) = (u[0].to_le_bytes(), u[1].to_le_bytes());
                [a[0], a[1], b[0], b[1]]
            }),
            StreamKind::BoneIndices => put(dst, &self.bone_indices, |b| *b),
            StreamKind::Weights => put(dst, &self.weights, |w| w.to_le_bytes()),
            StreamKind::Colours => put(dst, &self.colours, |c| *c),
        }
    }

    /// Whether stream `kind` holds the same entries here and in `other` (so the same bytes:
    /// every entry type is its bit pattern).
    pub(crate) fn same_stream(&self, other: &Mesh, kind: StreamKind) -> bool {
        match kind {
            StreamKind::Positions => self.positions == other.positions,
            StreamKind::Normals => self.normals == other.normals,
            StreamKind::Uvs => self.uvs == other.uvs,
            StreamKind::BoneIndices => self.bone_indices == other.bone_indices,
            StreamKind::Weights => self.weights == other.weights,
            StreamKind::Colours => self.colours == other.colours,
        }
    }

    /// Decodes stream `kind` from its bytes into this mesh.
    fn set_stream(&mut self, kind: StreamKind, bytes: &[u8]) {
        fn get<T, const N: usize>(bytes: &[u8], dec: impl Fn([u8; N]) -> T) -> Vec<T> {
            bytes
                .chunks_exact(N)
                .map(|c| {
                    let mut a = [0u8; N];
                    a.copy_from_slice(c);
                    dec(a)
                })
                .collect()
        }
        fn vec3(c: [u8; 12]) -> [u32; 3] {
            [
                u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                u32::from_le_bytes([c[8], c[9], c[10], c[11]]),
            ]
        }
        match kind {
            StreamKind::Positions => self.positions = get(bytes, vec3),
            StreamKind::Normals => self.normals = get(bytes, vec3),
            StreamKind::Uvs => {
                self.uvs = get(bytes, |c: [u8; 4]| {
                    [
                        i16::from_le_bytes([c[0], c[1]]),
                        i16::from_le_bytes([c[2], c[3]]),
                    ]
                })
            }
            StreamKind::BoneIndices => self.bone_indices = get(bytes, |c: [u8; 4]| c),
            StreamKind::Weights => self.weights = get(bytes, u16::from_le_bytes),
            StreamKind::Colours => self.colours = get(bytes, |c: [u8; 4]| c),
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

/// What a structure of a DMC3 file is, for messages. Readers and the writer label every claim
/// with one of these; it only becomes text when a message is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// `container header`.
    Header,
    /// `object record {i}` (object counts are u8: the index fits).
    Object(u8),
    /// `mesh records of object {i}` (an object's records in a row).
    MeshRecords(u8),
    /// `mesh record {mesh} of object {object}` (mesh counts are u8 too).
    MeshRecord {
        /// Object index.
        object: u8,
        /// Mesh index within the object.
        mesh: u8,
    },
    /// `{stream} of object {object} mesh {mesh}`, with ` ({n} vertices)` when read.
    Stream {
        /// Which stream.
        kind: StreamKind,
        /// Object index.
        object: u8,
        /// Mesh index within the object.
        mesh: u8,
        /// The vertex count, named by the reader's messages.
        vertices: Option<u16>,
    },
    /// `gap at {offset:#x}`.
    Gap {
        /// Index in the file's gap list.
        index: usize,
        /// Its absolute offset.
        offset: u64,
    },
    /// `node-domain block at {offset:#x}`.
    Block(u64),
    /// `node-domain block` (a bare block read from any file).
    BareBlock,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Label::Header => f.write_str("container header"),
            Label::Object(i) => write!(f, "object record {i}"),
            Label::MeshRecords(i) => write!(f, "mesh records of object {i}"),
            Label::MeshRecord { object, mesh } => {
                write!(f, "mesh record {mesh} of object {object}")
            }
            Label::Stream {
                kind,
                object,
                mesh,
                vertices,
            } => {
                write!(f, "{} of object {object} mesh {mesh}", kind.name())?;
                match vertices {
                    Some(n) => write!(f, " ({n} vertices)"),
                    None => Ok(()),
                }
            }
            Label::Gap { offset, .. } => write!(f, "gap at {offset:#x}"),
            Label::Block(offset) => write!(f, "node-domain block at {offset:#x}"),
            Label::BareBlock => f.write_str("node-domain block"),
        }
    }
}

/// One structure placed in the file: where, how long, and what (which also says where its
/// bytes come from when it is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    /// Absolute offset.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// What it is.
    pub label: Label,
}

/// Where a shared stream was first claimed and what it held, so later sharers can be checked.
type StreamKey = (u64, u64, StreamKind);

/// Streams seen so far, by key: a plain vector while few (a file's meshes name a few dozen
/// streams, searched faster than a tree is built), a B-tree once there are many (a hostile
/// file can name thousands).
struct StreamKeys<V> {
    small: Vec<(StreamKey, V)>,
    large: Option<std::collections::BTreeMap<StreamKey, V>>,
}

impl<V: Copy> StreamKeys<V> {
    const SMALL: usize = 64;

    fn new() -> Self {
        StreamKeys {
            small: Vec::with_capacity(16),
            large: None,
        }
    }

    /// The value `key` was first seen with, or `None` after recording it with `value`.
    fn first_or_insert(&mut self, key: StreamKey, value: V) -> Option<V> {
        if let Some(map) = &mut self.large {
            return match map.entry(key) {
                std::collections::btree_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(value);
                    None
                }
            };
        }
        if let Some(&(_, v)) = self.small.iter().find(|(k, _)| *k == key) {
            return Some(v);
        }
        if self.small.len() < Self::SMALL {
            self.small.push((key, value));
        } else {
            let mut map: std::collections::BTreeMap<StreamKey, V> = self.small.drain(..).collect();
            map.insert(key, value);
            self.large = Some(map);
        }
        None
    }
}

/// Reads the header, objects, meshes and streams, claiming each in `map`; the caller reads the
/// block.
pub(crate) fn read_parts(data: &[u8], map: &mut RegionMap<Label>) -> Result<Container, Dmc3Error> {
    let b = Bytes::new(data);
    // The magic is judged before the header's length, so that a short file of another kind
    // is named by its magic.
    let found = b.array::<4>("magic", 0);
    if let Ok(m) = found {
        if ContainerKind::from_magic(m).is_none() {
            return Err(Dmc3Error::BadMagic { found: m });
        }
    }
    let head = b.slice(Label::Header, 0, HEADER_LEN)?;
    let m = found?;
    let magic = ContainerKind::from_magic(m).ok_or(Dmc3Error::BadMagic { found: m })?;
    let header = Header::decode(Fields(head), magic);
    map.claim(0, HEADER_LEN, Label::Header);

    let mut objects = Vec::with_capacity(header.object_count as usize);
    for i in 0..header.object_count {
        let at = HEADER_LEN + u64::from(i) * OBJECT_LEN;
        let rec = b.slice(Label::Object(i), at, OBJECT_LEN)?;
        map.claim(at, OBJECT_LEN, Label::Object(i));
        objects.push(Object {
            record: ObjectRecord::decode(Fields(rec)),
            meshes: Vec::new(),
        });
    }

    let budget = DECODE_BUDGET_FACTOR.saturating_mul(b.len());
    let mut decoded = 0u64;
    let mut seen = StreamKeys::new();
    // Mesh-record ranges read so far. Objects naming overlapping records are refused by the
    // region map too, but only after every mesh was built: 255 objects naming the same 255
    // records made 65025 meshes (~20 MB) from a 36 KB file. Refuse them before decoding.
    let mut record_ranges: Vec<(u64, u64, u8)> = Vec::new();
    for (i, obj) in (0..=u8::MAX).zip(objects.iter_mut()) {
        let count = obj.record.mesh_count as u64;
        if count == 0 {
            continue;
        }
        let first = obj.record.mesh_offset;
        let records = b.slice(Label::MeshRecords(i), first, count * MESH_LEN)?;
        // slice() proved first + count * MESH_LEN fits in the file.
        let end = first + count * MESH_LEN;
        if let Some(&(s, e, k)) = record_ranges.iter().find(|r| first < r.1 && r.0 < end) {
            let (a, z) = ((s, e, k), (first, end, i));
            let (a, z) = if (a.0, a.1) <= (z.0, z.1) {
                (a, z)
            } else {
                (z, a)
            };
            return Err(Dmc3Error::Overlap(Overlap {
                first: Label::MeshRecords(a.2).to_string(),
                first_start: a.0,
                first_end: a.1,
                second: Label::MeshRecords(z.2).to_string(),
                second_start: z.0,
                second_end: z.1,
            }));
        }
        record_ranges.push((first, end, i));
        obj.meshes.reserve_exact(count as usize);
        // count is the u8 mesh count: (0..=u8::MAX) numbers every record.
        for (j, rec) in (0..=u8::MAX).zip(records.chunks_exact(MESH_LEN as usize)) {
            let at = first + u64::from(j) * MESH_LEN;
            map.claim(at, MESH_LEN, Label::MeshRecord { object: i, mesh: j });
            let mut mesh = Mesh {
                record: MeshRecord::decode(Fields(rec), magic),
                ..Mesh::default()
            };
            let vertices = mesh.record.vertex_count;
            let vc = u64::from(vertices);
            for &(kind, off) in mesh.record.stream_slots().iter() {
                let len = vc * kind.stride();
                if len == 0 {
                    continue;
                }
                let label = Label::Stream {
                    kind,
                    object: i,
                    mesh: j,
                    vertices: Some(vertices),
                };
                let bytes = b.slice(label, off, len)?;
                decoded = decoded.saturating_add(len);
                if decoded > budget {
                    return Err(Dmc3Error::DecodeBudget {
                        what: label,
                        offset: off,
                        decoded,
                        file_len: b.len(),
                    });
                }
                // A stream named by several meshes with the same offset, length and kind is
                // one structure: claim it once. Anything else overlapping is an error later.
                if seen.first_or_insert((off, len, kind), ()).is_none() {
                    map.claim(off, len, label);
                }
                mesh.set_stream(kind, bytes);
            }
            obj.meshes.push(mesh);
        }
    }
    Ok(Container { header, objects })
}

/// Places the structures of a container (`h` and `objects`), shared streams once (checked to
/// agree), appending them to `out` in the order they are checked. Checks counts against
/// records and record variants against the magic.
pub(crate) fn layout(
    h: &Header,
    objects: &[Object],
    out: &mut Vec<Placed>,
) -> Result<(), Dmc3Error> {
    let bad = |what: String, problem: String| Dmc3Error::Inconsistent { what, problem };
    if h.object_count as usize != objects.len() {
        return Err(bad(
            "container header +0x10".into(),
            format!(
                "object count {} but {} objects",
                h.object_count,
                objects.len()
            ),
        ));
    }
    out.push(Placed {
        offset: 0,
        len: HEADER_LEN,
        label: Label::Header,
    });
    let mut shared = StreamKeys::new();
    // The counts were checked against the u8 header fields: (0..=u8::MAX) numbers every
    // object, and (below) every mesh of an object.
    for (i, obj) in (0..=u8::MAX).zip(objects) {
        let at = HEADER_LEN + u64::from(i) * OBJECT_LEN;
        out.push(Placed {
            offset: at,
            len: OBJECT_LEN,
            label: Label::Object(i),
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
        for (j, mesh) in (0..=u8::MAX).zip(&obj.meshes) {
            let mat = obj
                .record
                .mesh_offset
                .checked_add(u64::from(j) * MESH_LEN)
                .ok_or_else(|| {
                    bad(
                        format!("object {i} mesh {j}"),
                        "mesh record offset overflows".into(),
                    )
                })?;
            let what = Label::MeshRecord { object: i, mesh: j };
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
            out.push(Placed {
                offset: mat,
                len: MESH_LEN,
                label: what,
            });
            let vc = mesh.record.vertex_count as usize;
            let streams = mesh.record.stream_slots();
            for &(kind, off) in streams.iter() {
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
                // vc is a u16 and the stride at most 12: no overflow.
                let len = vc as u64 * kind.stride();
                if len == 0 {
                    continue;
                }
                let label = Label::Stream {
                    kind,
                    object: i,
                    mesh: j,
                    vertices: None,
                };
                match shared.first_or_insert((off, len, kind), (i, j)) {
                    Some((fi, fj)) => {
                        let same = objects
                            .get(usize::from(fi))
                            .and_then(|o| o.meshes.get(usize::from(fj)))
                            .is_some_and(|first| first.same_stream(mesh, kind));
                        if !same {
                            let first = Label::Stream {
                                kind,
                                object: fi,
                                mesh: fj,
                                vertices: None,
                            };
                            return Err(bad(
                                format!("{label} at {off:#x}"),
                                format!("shared with {first} but holds other data"),
                            ));
                        }
                    }
                    None => {
                        out.push(Placed {
                            offset: off,
                            len,
                            label,
                        });
                    }
                }
            }
            for kind in [
                StreamKind::BoneIndices,
                StreamKind::Weights,
                StreamKind::Colours,
            ] {
                let named = streams.iter().any(|s| s.0 == kind);
                if !named && mesh.stream_len(kind) != 0 {
                    return Err(bad(
                        format!("{what} at {mat:#x}"),
                        format!("a {} mesh cannot hold a {}", h.magic.name(), kind.name()),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Writes the bytes of a structure `layout` placed into `dst` (exactly its length). Labels
/// that name no structure of the container write nothing.
pub(crate) fn encode(h: &Header, objects: &[Object], label: Label, dst: &mut [u8]) {
    let mut put = |bytes: &[u8]| {
        if let Some(d) = dst.get_mut(..bytes.len()) {
            d.copy_from_slice(bytes);
        }
    };
    match label {
        Label::Header => put(&h.encode()),
        Label::Object(i) => {
            if let Some(o) = objects.get(usize::from(i)) {
                put(&o.record.encode())
            }
        }
        Label::MeshRecord { object, mesh } => {
            if let Some(m) = objects
                .get(usize::from(object))
                .and_then(|o| o.meshes.get(usize::from(mesh)))
            {
                put(&m.record.encode())
            }
        }
        Label::Stream {
            kind, object, mesh, ..
        } => {
            if let Some(m) = objects
                .get(usize::from(object))
                .and_then(|o| o.meshes.get(usize::from(mesh)))
            {
                m.encode_stream(kind, dst)
            }
        }
        Label::MeshRecords(_) | Label::Gap { .. } | Label::Block(_) | Label::BareBlock => {}
    }
}
