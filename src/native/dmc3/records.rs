//! The fixed records of the MOD/SCM container (docs/formats.md, containers): the header, the
//! object record and the mesh record with its MOD or SCM part, each declared once with every
//! field's offset and evidence class; and the kinds of vertex stream a mesh record names.

use serde::{Deserialize, Serialize};

use crate::native::record::{Codec, Ctx, FieldDef, Hex, Hex32s, HexArray, Int, Record};

/// Size of the container header.
pub const HEADER_LEN: u64 = Header::LEN as u64;
/// Size of one object record.
pub const OBJECT_LEN: u64 = ObjectRecord::LEN as u64;
/// Size of one mesh record.
pub const MESH_LEN: u64 = MeshRecord::LEN as u64;
/// Shared streams are decoded once per mesh that names them; this caps the decoded total at
/// this many times the input size, so a file cannot make the reader allocate without bound.
pub const DECODE_BUDGET_FACTOR: u64 = 8;

use crate::native::container_kind::ContainerKind;

crate::record! {
    /// The 0x40-byte container header.
    pub struct Header [0x40] "containerHeader" counts HeaderCounts {
        0x00 magic: ContainerKind = Magic, "magic", Decoded ExeConfirmed,
            "magic, \"MOD \" or \"SCM \": the game's post-load is picked by it";
        0x04 version_bits: u32 = Hex<u32>, "version", Decoded CorpusConfirmed,
            "version, f32 bits (0.82, 0.84, 1.00 and 1.01 seen)";
        0x08 unknown_08: [u8; 8] = HexArray<8>, "unknown_08", Preserved PreservedUndecoded,
            "zero in every retail file; no reader in the game (dormant)";
        0x10 #[derived] object_count: u8 = Int<u8>, "object count", Decoded ExeConfirmed,
            "object count";
        0x11 bone_count: u8 = Int<u8>, "bone count", Decoded ExeConfirmed,
            "node count = N of the node-domain block (= the shadow model's +0x11)";
        0x12 texture_count: u8 = Int<u8>, "texture count", Decoded ExeConfirmed,
            "texture count: a mirror only, the game takes the count from the PTX bundle";
        0x13 default_joint: u8 = Int<u8>, "default joint", Decoded ExeConfirmed,
            "default joint: the fallback joint for text keys and the one the shadow's light \
             vector is measured from (a body 1, a coat 0); SCM: the lighting reference node";
        0x14 resource_code: u32 = Hex<u32>, "resource code", Preserved ExeConfirmed,
            "copied into the model manager and never read (dormant); SCM: a resource code";
        0x18 unknown_18: u64 = Hex<u64>, "unknown_18", Preserved PreservedUndecoded,
            "zero; no reader in the game (dormant)";
        0x20 block_offset: u64 = Hex<u64>, "block offset", Decoded ExeConfirmed,
            "absolute offset of the node-domain block (relocated at load)";
        0x28 unknown_28: [u8; 24] = HexArray<24>, "unknown_28", Preserved PreservedUndecoded,
            "zero; no reader in the game (dormant)";
    }
}

/// The container magic as a record field: `"MOD "` or `"SCM "`, nothing else.
pub struct Magic;

impl Codec for Magic {
    type Value = ContainerKind;
    const LEN: usize = 4;
    #[inline]
    fn get(b: &[u8], _: Ctx) -> Option<ContainerKind> {
        let mut m = [0u8; 4];
        m.copy_from_slice(b);
        ContainerKind::from_magic(m)
    }
    #[inline]
    fn put(v: &ContainerKind, b: &mut [u8]) {
        b.copy_from_slice(&v.magic());
    }
    fn schema() -> serde_json::Value {
        serde_json::json!({ "enum": ["Mod", "Scm"] })
    }
    crate::plain_serde!(ContainerKind);
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
}

crate::record! {
    /// A 0x40-byte object record.
    pub struct ObjectRecord [0x40] "objectRecord" counts ObjectCounts {
        0x00 #[derived] mesh_count: u8 = Int<u8>, "mesh count", Decoded ExeConfirmed,
            "mesh count";
        0x01 alpha_control: u8 = Int<u8>, "alpha control", Decoded ExeConfirmed,
            "alpha control (0x80 in every retail object; a non-zero low nibble of the flags \
             forces 0x80)";
        0x02 vertex_count: u16 = Int<u16>, "vertex count", Decoded CorpusConfirmed,
            "vertex count, the sum of its meshes' in every retail file (stored, not enforced)";
        0x04 unknown_04: u32 = Hex<u32>, "unknown_04", Preserved PreservedUndecoded,
            "zero; no reader in the game (dormant)";
        0x08 mesh_offset: u64 = Hex<u64>, "mesh offset", Decoded ExeConfirmed,
            "absolute offset of the first mesh record (relocated at load)";
        0x10 flags: u32 = Hex<u32>, "flags", Decoded ExeConfirmed,
            "render flags: low nibble a render mode, 0x4000 nearest filtering, 0x10000 fog, \
             0x100000 alpha test, 0x200/0x400 enable +0x18 and +0x1C";
        0x14 unknown_14: u32 = Hex<u32>, "unknown_14", Preserved PreservedUndecoded,
            "zero; no reader in the game (dormant)";
        0x18 render_18: u32 = Hex<u32>, "render parameter 0x18", Decoded ExeConfirmed,
            "render parameter, f32 bits, read only with flag 0x200 or 0x400 (else carried)";
        0x1C render_1c: u32 = Hex<u32>, "render parameter 0x1C", Decoded ExeConfirmed,
            "render parameter, read only with flag 0x200 or 0x400 (else carried)";
        0x20 unknown_20: [u8; 16] = HexArray<16>, "unknown_20", Preserved PreservedUndecoded,
            "zero; no reader in the game (dormant)";
        0x30 bounds_bits: [u32; 4] = Hex32s<4>, "bounding sphere", Decoded ExeConfirmed,
            "bounding sphere x, y, z, radius, f32 bits (carried into the runtime object)";
    }
}

impl ObjectRecord {
    /// The bounding sphere (x, y, z, radius).
    pub fn bounds(&self) -> [f32; 4] {
        self.bounds_bits.map(f32::from_bits)
    }
}

crate::record! {
    /// The MOD part of a mesh record (+0x28..+0x40): bone-index and weight streams.
    pub struct ModStreams [0x18] "modStreams" {
        0x00 bone_index_offset: u64 = Hex<u64>, "bone-index offset", Decoded ExeConfirmed,
            "absolute offset of the bone-index stream (u8x4 per vertex)";
        0x08 weight_offset: u64 = Hex<u64>, "weight offset", Decoded ExeConfirmed,
            "absolute offset of the weight stream (u16 per vertex)";
        0x10 auxiliary_offset: u64 = Hex<u64>, "auxiliary stream", Preserved ExeConfirmed,
            "mesh record +0x38: an auxiliary stream the game does not relocate in a MOD (zero \
             in every retail mesh)";
    }
}

crate::record! {
    /// The SCM part of a mesh record (+0x28..+0x40): a vertex-colour stream.
    pub struct ScmStreams [0x18] "scmStreams" {
        0x00 continuation: u64 = Hex<u64>, "continuation span", Decoded ExeConfirmed,
            "mesh record +0x28: the continuation span, 0x50 on every mesh of the object but its \
             last (0 there)";
        0x08 unknown_30: u64 = Hex<u64>, "unknown_30", Preserved PreservedUndecoded,
            "mesh record +0x30: zero in every retail SCM";
        0x10 colour_offset: u64 = Hex<u64>, "colour offset", Decoded ExeConfirmed,
            "absolute offset of the vertex-colour stream (u8x4 per vertex)";
    }
}

/// The part of a mesh record (+0x28..+0x40) that differs between MOD and SCM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MeshVariant {
    /// MOD: bone-index and weight streams.
    Mod(ModStreams),
    /// SCM: a vertex-colour stream.
    Scm(ScmStreams),
}

impl Default for MeshVariant {
    fn default() -> Self {
        MeshVariant::Mod(ModStreams::default())
    }
}

impl MeshVariant {
    /// `Mod` or `Scm`: the dump's key and the name in the record's field table.
    pub fn key(&self) -> &'static str {
        match self {
            MeshVariant::Mod(_) => "Mod",
            MeshVariant::Scm(_) => "Scm",
        }
    }
}

impl Codec for MeshVariant {
    type Value = MeshVariant;
    const LEN: usize = 0x18;
    const VARIANTS: &'static [(&'static str, &'static [FieldDef])] =
        &[("Mod", ModStreams::FIELDS), ("Scm", ScmStreams::FIELDS)];
    #[inline]
    fn get(b: &[u8], ctx: Ctx) -> Option<MeshVariant> {
        match ctx.container? {
            ContainerKind::Mod => ModStreams::decode_slice(b, ctx)
                .ok()
                .map(|(r, ())| MeshVariant::Mod(r)),
            ContainerKind::Scm => ScmStreams::decode_slice(b, ctx)
                .ok()
                .map(|(r, ())| MeshVariant::Scm(r)),
        }
    }
    #[inline]
    fn put(v: &MeshVariant, b: &mut [u8]) {
        match v {
            MeshVariant::Mod(m) => m.encode_slice(&(), b),
            MeshVariant::Scm(m) => m.encode_slice(&(), b),
        }
    }
    fn schema() -> serde_json::Value {
        let one = |key: &str, schema: &str| {
            serde_json::json!({
                "type": "object",
                "additionalProperties": false,
                "required": [key],
                "properties": { key: { "$ref": format!("#/$defs/{schema}") } },
            })
        };
        serde_json::json!({
            "oneOf": [one("Mod", ModStreams::SCHEMA_NAME), one("Scm", ScmStreams::SCHEMA_NAME)]
        })
    }
    crate::plain_serde!(MeshVariant);
}

crate::record! {
    /// A 0x50-byte mesh record.
    pub struct MeshRecord [0x50] "meshRecord" counts MeshCounts {
        0x00 #[derived] vertex_count: u16 = Int<u16>, "vertex count", Decoded ExeConfirmed,
            "vertex count";
        0x02 texture_index: u16 = Int<u16>, "texture index", Decoded ExeConfirmed,
            "texture slot, below the PTX bundle's texture count";
        0x04 clamp_min_u: u16 = Int<u16>, "clamp min u", Decoded ExeConfirmed,
            "PS2 texture clamp, minimum u (0 = off; 0 in every retail SCM)";
        0x06 clamp_max_u: u16 = Int<u16>, "clamp max u", Decoded ExeConfirmed,
            "PS2 texture clamp, maximum u (0 = off)";
        0x08 clamp_min_v: u16 = Int<u16>, "clamp min v", Decoded ExeConfirmed,
            "PS2 texture clamp, minimum v (0 = off)";
        0x0A clamp_max_v: u16 = Int<u16>, "clamp max v", Decoded ExeConfirmed,
            "PS2 texture clamp, maximum v (0 = off)";
        0x0C unknown_0c: u32 = Hex<u32>, "unknown_0c", Preserved PreservedUndecoded,
            "zero, never read";
        0x10 positions_offset: u64 = Hex<u64>, "positions offset", Decoded ExeConfirmed,
            "absolute offset of the position stream (relocated at load)";
        0x18 normals_offset: u64 = Hex<u64>, "normals offset", Decoded ExeConfirmed,
            "absolute offset of the normal stream (relocated at load)";
        0x20 uv_offset: u64 = Hex<u64>, "UV offset", Decoded ExeConfirmed,
            "absolute offset of the UV stream (relocated at load)";
        0x28 variant: MeshVariant = MeshVariant, "variant", Decoded ExeConfirmed,
            "MOD or SCM streams, as the container's magic says";
        0x40 workspace_offset: u64 = Hex<u64>, "index workspace offset", Decoded ExeConfirmed,
            "offset of the mesh's index workspace RELATIVE to this record: the game writes the \
             mesh's triangle indices there at load";
        0x48 index_count: u32 = Hex<u32>, "index count", Decoded ExeConfirmed,
            "generated index count: 0 on disk, written by the game at load";
        0x4C unknown_4c: u32 = Hex<u32>, "unknown_4c", Preserved PreservedUndecoded,
            "zero, never read";
    }
}

impl MeshRecord {
    /// Which container this record's variant belongs to.
    pub fn kind(&self) -> ContainerKind {
        match self.variant {
            MeshVariant::Mod(_) => ContainerKind::Mod,
            MeshVariant::Scm(_) => ContainerKind::Scm,
        }
    }

    /// The record's streams: (kind, absolute offset), in record order.
    pub fn streams(&self) -> Vec<(StreamKind, u64)> {
        self.stream_slots().to_vec()
    }

    /// Sets the stream offsets in record order (the order [`MeshRecord::streams`] lists them:
    /// four for SCM, five for MOD; extra entries are ignored).
    pub fn set_stream_offsets(&mut self, offsets: [u64; 5]) {
        let [p, n, u, a, b] = offsets;
        self.positions_offset = p;
        self.normals_offset = n;
        self.uv_offset = u;
        match &mut self.variant {
            MeshVariant::Mod(m) => {
                m.bone_index_offset = a;
                m.weight_offset = b;
            }
            MeshVariant::Scm(m) => m.colour_offset = a,
        }
    }

    /// The record's streams, without allocating: (kind, absolute offset), in record order.
    pub(crate) fn stream_slots(&self) -> StreamSlots {
        let (last, n) = match &self.variant {
            MeshVariant::Mod(m) => (
                [
                    (StreamKind::BoneIndices, m.bone_index_offset),
                    (StreamKind::Weights, m.weight_offset),
                ],
                5,
            ),
            MeshVariant::Scm(m) => (
                [
                    (StreamKind::Colours, m.colour_offset),
                    (StreamKind::Colours, m.colour_offset),
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
    /// Every kind, in the order mesh records name them (MOD's bone streams before SCM's
    /// colours).
    pub const ALL: [StreamKind; 6] = [
        StreamKind::Positions,
        StreamKind::Normals,
        StreamKind::Uvs,
        StreamKind::BoneIndices,
        StreamKind::Weights,
        StreamKind::Colours,
    ];

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
