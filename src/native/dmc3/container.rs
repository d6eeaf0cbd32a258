//! The DMC3 MOD/SCM container (docs/formats.md, containers, class COMMUNITY): a 0x40-byte header,
//! 0x40-byte object records, 0x50-byte mesh records and per-mesh vertex streams at absolute
//! offsets.
//!
//! Every field is kept, unknowns included. Streams are decoded into vectors (floats as bit
//! patterns); the accessors turn them into values (UV/4096, joint bytes/4, 5-bit weights/31,
//! strip flags, triangles).
//!
//! Counts. The header's object count, each object's mesh count and each mesh's vertex count are the
//! lengths of lists the structs hold (objects, meshes, positions), so the structs do not hold them
//! a second time: they are `#[derived]` fields of their records (offset, evidence class, coverage
//! row and dump-schema fragment as declared). The reader takes them from the file, because they are
//! what finds the lists; the writer takes them from the lists ([`header_counts`],
//! [`Object::counts`], [`Mesh::counts`]), so no in-memory value can be written as a file that
//! disagrees with itself. What the writer refuses instead is a list too long for its count's field
//! ([`check_counts`]: `TooManyObjects`, `TooManyMeshes`, `TooManyVertices`) and lists that disagree
//! with each other (a stream that does not hold one entry per position). The dump prints each count
//! in its place ([`Counted`]) and `build` checks the counts a hand-edited dump shows against its
//! lists, refusing one that disagrees at its JSON pointer: there either edit may be the intended
//! one. The header's bone count is not derived: it names the node-domain block, a sibling structure
//! that a lifted rig's shell does not hold, and is checked with the block offset as the header's
//! link to the block. The object's vertex count (+0x02) is stored, not enforced (docs/formats.md,
//! containers), and never checked.

use serde::{Deserialize, Serialize};

pub use super::workspace::Workspace;
use super::{Dmc3Error, Place, Problem};
use crate::bytes::{Bytes, Overlap, RegionMap};
use crate::native::record::{Counted, Ctx, Record};

pub use super::records::{
    Header, HeaderCounts, Magic, MeshCounts, MeshRecord, MeshVariant, ModStreams, ObjectCounts,
    ObjectRecord, ScmStreams, StreamKind, DECODE_BUDGET_FACTOR, HEADER_LEN, MESH_LEN, OBJECT_LEN,
};
pub use crate::native::container_kind::ContainerKind;

/// A mesh: its record and its decoded streams (one entry per vertex each). MOD meshes leave
/// `colours` empty; SCM meshes leave `bone_indices` and `weights` empty. The vertex count is
/// the number of positions.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct Mesh {
    /// The 0x50-byte record (without its vertex count: the number of positions).
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
    /// The index workspace at +0x40 ([`super::workspace`]); absent in a dump or document
    /// written before workspaces were read (their bytes are then among the gaps).
    #[serde(default)]
    pub workspace: Workspace,
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
/// vertex, so the first triangle after a restart is always (i-2, i-1, i). Why: flagged vertices
/// start a new strip, and a strip encoder emits each strip in its own base orientation; parity by
/// absolute index would flip every strip that happens to start at an odd index, and concatenating
/// strips must not change how each one is wound. The game's own rule is not documented
/// (docs/formats.md, containers); the public importer sidesteps it via the normals.
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
    /// Number of vertices: the number of positions (every stream the record names holds as
    /// many entries in a file that was read, and in one the writer accepts).
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
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
            MeshVariant::Mod(_) => self.weights.iter().map(|&w| weight_strip_flag(w)).collect(),
            MeshVariant::Scm(_) => self.colours.iter().map(|&c| colour_strip_flag(c)).collect(),
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct Object {
    /// The 0x40-byte record (without its mesh count: the number of meshes).
    pub record: ObjectRecord,
    /// The meshes, their records in a row at `record.mesh_offset`.
    pub meshes: Vec<Mesh>,
}

/// A MOD/SCM container without its node-domain block and gaps (those live in `Dmc3File`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct Container {
    /// The header (without its object count: the number of objects).
    pub header: Header,
    /// The objects, their records at 0x40.
    pub objects: Vec<Object>,
}

/// The header's derived field from the objects: the object count (a u8).
pub fn header_counts(objects: &[Object]) -> Result<HeaderCounts, Problem> {
    Ok(HeaderCounts {
        object_count: u8::try_from(objects.len()).map_err(|_| Problem::TooManyObjects {
            objects: objects.len(),
        })?,
    })
}

impl Object {
    /// The record's derived field from the meshes: the mesh count (a u8).
    pub fn counts(&self) -> Result<ObjectCounts, Problem> {
        Ok(ObjectCounts {
            mesh_count: u8::try_from(self.meshes.len()).map_err(|_| Problem::TooManyMeshes {
                meshes: self.meshes.len(),
            })?,
        })
    }
}

impl Mesh {
    /// The record's derived field from the streams: the vertex count (a u16), the number of
    /// positions (every stream the record names holds as many entries; the writer checks).
    pub fn counts(&self) -> Result<MeshCounts, Problem> {
        Ok(MeshCounts {
            vertex_count: u16::try_from(self.positions.len()).map_err(|_| {
                Problem::TooManyVertices {
                    vertices: self.positions.len(),
                }
            })?,
        })
    }
}

/// Refuses lists longer than the counts the writer derives from them can hold: more than 255
/// objects, more than 255 meshes in an object, more than 65535 positions in a mesh. Named by
/// the structure whose count overflows, in file order.
pub fn check_counts(objects: &[Object]) -> Result<(), Dmc3Error> {
    let bad = |what, problem| Dmc3Error::Inconsistent { what, problem };
    header_counts(objects).map_err(|p| bad(Place::Header("+0x10"), p))?;
    for (i, o) in (0..=u8::MAX).zip(objects) {
        o.counts().map_err(|p| {
            bad(
                Place::At {
                    label: Label::Object(i),
                    offset: HEADER_LEN + OBJECT_LEN * u64::from(i),
                },
                p,
            )
        })?;
        for (j, m) in (0..=u8::MAX).zip(&o.meshes) {
            m.counts()
                .map_err(|p| bad(Place::Mesh { object: i, mesh: j }, p))?;
        }
    }
    Ok(())
}

/// The dump form of a mesh: its record with the vertex count in its place, then the streams.
impl Serialize for Mesh {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename = "Mesh")]
        struct Form<'a> {
            record: Counted<'a, MeshRecord>,
            #[serde(with = "crate::bytes::le_stream")]
            positions: &'a [[u32; 3]],
            #[serde(with = "crate::bytes::le_stream")]
            normals: &'a [[u32; 3]],
            #[serde(with = "crate::bytes::le_stream")]
            uvs: &'a [[i16; 2]],
            #[serde(with = "crate::bytes::le_stream")]
            bone_indices: &'a [[u8; 4]],
            #[serde(with = "crate::bytes::le_stream")]
            weights: &'a [u16],
            #[serde(with = "crate::bytes::le_stream")]
            colours: &'a [[u8; 4]],
            workspace: &'a Workspace,
        }
        let counts = self.counts().map_err(serde::ser::Error::custom)?;
        Form {
            record: self.record.counted(counts),
            positions: &self.positions,
            normals: &self.normals,
            uvs: &self.uvs,
            bone_indices: &self.bone_indices,
            weights: &self.weights,
            colours: &self.colours,
            workspace: &self.workspace,
        }
        .serialize(s)
    }
}

/// The dump form of an object: its record with the mesh count in its place, then the meshes.
impl Serialize for Object {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename = "Object")]
        struct Form<'a> {
            record: Counted<'a, ObjectRecord>,
            meshes: &'a [Mesh],
        }
        let counts = self.counts().map_err(serde::ser::Error::custom)?;
        Form {
            record: self.record.counted(counts),
            meshes: &self.meshes,
        }
        .serialize(s)
    }
}

/// The dump form of a container: its header with the object count in its place, then the
/// objects.
impl Serialize for Container {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename = "Container")]
        struct Form<'a> {
            header: Counted<'a, Header>,
            objects: &'a [Object],
        }
        let counts = header_counts(&self.objects).map_err(serde::ser::Error::custom)?;
        Form {
            header: self.header.counted(counts),
            objects: &self.objects,
        }
        .serialize(s)
    }
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
    /// `index workspace of object {object} mesh {mesh}`.
    Workspace {
        /// Object index.
        object: u8,
        /// Mesh index within the object.
        mesh: u8,
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
            Label::Workspace { object, mesh } => {
                write!(f, "index workspace of object {object} mesh {mesh}")
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
    let (header, counts) = read_header(b)?;
    let ctx = Ctx {
        container: Some(header.magic),
    };
    map.claim(0, HEADER_LEN, Label::Header);
    // The counts the file stores are what find its lists: the objects' records, each object's
    // mesh records, each mesh's streams.
    let (mut objects, mesh_counts) = read_objects(b, map, counts.object_count, ctx)?;
    let mut reader = MeshReader {
        b,
        map,
        ctx,
        budget: DECODE_BUDGET_FACTOR.saturating_mul(b.len()),
        decoded: 0,
        seen: StreamKeys::new(),
        record_ranges: Vec::new(),
    };
    for ((i, obj), &count) in (0..=u8::MAX).zip(objects.iter_mut()).zip(&mesh_counts) {
        reader.read_meshes(i, obj, count)?;
    }
    Ok(Container { header, objects })
}

/// The header and its counts. The magic is judged before the header's length, so that a
/// short file of another kind is named by its magic.
fn read_header(b: Bytes<'_>) -> Result<(Header, HeaderCounts), Dmc3Error> {
    let found = b.array::<4>("magic", 0);
    if let Ok(m) = found {
        if ContainerKind::from_magic(m).is_none() {
            return Err(Dmc3Error::BadMagic { found: m });
        }
    }
    let head = b.array::<{ Header::LEN }>(Label::Header, 0)?;
    Header::decode(&head, Ctx::default()).map_err(|_| Dmc3Error::BadMagic {
        found: [head[0], head[1], head[2], head[3]],
    })
}

/// The `count` object records after the header, each claimed in `map`, with meshes still
/// empty, and each one's mesh count.
fn read_objects(
    b: Bytes<'_>,
    map: &mut RegionMap<Label>,
    count: u8,
    ctx: Ctx,
) -> Result<(Vec<Object>, Vec<u8>), Dmc3Error> {
    let mut objects = Vec::with_capacity(count as usize);
    let mut mesh_counts = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = HEADER_LEN + u64::from(i) * OBJECT_LEN;
        let rec = b.array::<{ ObjectRecord::LEN }>(Label::Object(i), at)?;
        map.claim(at, OBJECT_LEN, Label::Object(i));
        let (record, c) = ObjectRecord::decode(&rec, ctx).map_err(|e| Dmc3Error::Field {
            what: Label::Object(i),
            offset: at,
            key: e.key,
        })?;
        objects.push(Object {
            record,
            meshes: Vec::new(),
        });
        mesh_counts.push(c.mesh_count);
    }
    Ok((objects, mesh_counts))
}

/// Reading the objects' meshes: the file, the map every structure is claimed in, and what the
/// limits need from one mesh to the next.
struct MeshReader<'a, 'm> {
    b: Bytes<'a>,
    map: &'m mut RegionMap<Label>,
    ctx: Ctx,
    /// The most stream bytes the file may decode to.
    budget: u64,
    /// The stream bytes decoded so far.
    decoded: u64,
    /// The streams claimed so far.
    seen: StreamKeys<()>,
    /// Mesh-record ranges read so far (start, end, object). Objects naming overlapping records
    /// are refused by the region map too, but only after every mesh was built: 255 objects
    /// naming the same 255 records made 65025 meshes (~20 MB) from a 36 KB file. Refuse them
    /// before decoding.
    record_ranges: Vec<(u64, u64, u8)>,
}

impl MeshReader<'_, '_> {
    /// Reads object `i`'s `count` mesh records and their streams into `obj`.
    fn read_meshes(&mut self, i: u8, obj: &mut Object, count: u8) -> Result<(), Dmc3Error> {
        let count = u64::from(count);
        if count == 0 {
            return Ok(());
        }
        let first = obj.record.mesh_offset;
        let records = self
            .b
            .slice(Label::MeshRecords(i), first, count * MESH_LEN)?;
        // slice() proved first + count * MESH_LEN fits in the file.
        let end = first + count * MESH_LEN;
        self.check_records_apart(first, end, i)?;
        self.record_ranges.push((first, end, i));
        obj.meshes.reserve_exact(count as usize);
        // count is the u8 mesh count: (0..=u8::MAX) numbers every record.
        for (j, rec) in (0..=u8::MAX).zip(records.as_chunks::<{ MeshRecord::LEN }>().0) {
            let at = first + u64::from(j) * MESH_LEN;
            let mesh = self.read_mesh(rec, at, i, j)?;
            obj.meshes.push(mesh);
        }
        Ok(())
    }

    /// Refuses object `i`'s mesh records `first..end` overlapping those of an object read
    /// before (the two named in file order).
    fn check_records_apart(&self, first: u64, end: u64, i: u8) -> Result<(), Dmc3Error> {
        let Some(&(s, e, k)) = self.record_ranges.iter().find(|r| first < r.1 && r.0 < end) else {
            return Ok(());
        };
        let (a, z) = ((s, e, k), (first, end, i));
        let (a, z) = if (a.0, a.1) <= (z.0, z.1) {
            (a, z)
        } else {
            (z, a)
        };
        Err(Dmc3Error::Overlap(Overlap {
            first: Label::MeshRecords(a.2).to_string(),
            first_start: a.0,
            first_end: a.1,
            second: Label::MeshRecords(z.2).to_string(),
            second_start: z.0,
            second_end: z.1,
        }))
    }

    /// Mesh `j` of object `i` from its record `rec` at `at`, with its streams.
    fn read_mesh(
        &mut self,
        rec: &[u8; MeshRecord::LEN],
        at: u64,
        i: u8,
        j: u8,
    ) -> Result<Mesh, Dmc3Error> {
        let what = Label::MeshRecord { object: i, mesh: j };
        self.map.claim(at, MESH_LEN, what);
        let (record, c) = MeshRecord::decode(rec, self.ctx).map_err(|e| Dmc3Error::Field {
            what,
            offset: at,
            key: e.key,
        })?;
        let mut mesh = Mesh {
            record,
            ..Mesh::default()
        };
        let vertices = c.vertex_count;
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
            let bytes = self.b.slice(label, off, len)?;
            self.decoded = self.decoded.saturating_add(len);
            if self.decoded > self.budget {
                return Err(Dmc3Error::DecodeBudget {
                    what: label,
                    offset: off,
                    decoded: self.decoded,
                    file_len: self.b.len(),
                });
            }
            // A stream named by several meshes with the same offset, length and kind is
            // one structure: claim it once. Anything else overlapping is an error later.
            if self.seen.first_or_insert((off, len, kind), ()).is_none() {
                self.map.claim(off, len, label);
            }
            mesh.set_stream(kind, bytes);
        }
        Ok(mesh)
    }
}

/// Places the structures of a container (`h` and `objects`), shared streams once (checked to
/// agree), appending them to `out` in the order they are checked. Checks that the counts the
/// writer derives fit their fields ([`check_counts`]), that every stream holds one entry per
/// position, and record variants against the magic.
pub(crate) fn layout(
    h: &Header,
    objects: &[Object],
    out: &mut Vec<Placed>,
) -> Result<(), Dmc3Error> {
    check_counts(objects)?;
    out.push(Placed {
        offset: 0,
        len: HEADER_LEN,
        label: Label::Header,
    });
    let mut placer = Placer {
        magic: h.magic,
        objects,
        out,
        shared: StreamKeys::new(),
    };
    // The counts fit the u8 fields: (0..=u8::MAX) numbers every object, and (below) every
    // mesh of an object.
    for (i, obj) in (0..=u8::MAX).zip(objects) {
        let at = HEADER_LEN + u64::from(i) * OBJECT_LEN;
        placer.out.push(Placed {
            offset: at,
            len: OBJECT_LEN,
            label: Label::Object(i),
        });
        for (j, mesh) in (0..=u8::MAX).zip(&obj.meshes) {
            placer.place_mesh(obj, (i, j), mesh)?;
        }
    }
    Ok(())
}

/// The writer's error for `problem` at `what`.
fn inconsistent(what: Place, problem: Problem) -> Dmc3Error {
    Dmc3Error::Inconsistent { what, problem }
}

/// Placing a container's meshes ([`layout`]): the magic records must match, the objects (for
/// shared streams), where the placed structures go, and the streams placed so far with the
/// mesh that placed each.
struct Placer<'a> {
    magic: ContainerKind,
    objects: &'a [Object],
    out: &'a mut Vec<Placed>,
    shared: StreamKeys<(u8, u8)>,
}

impl Placer<'_> {
    /// Places mesh `j` of object `i` (`obj`): its record, then its streams.
    fn place_mesh(&mut self, obj: &Object, (i, j): (u8, u8), mesh: &Mesh) -> Result<(), Dmc3Error> {
        let mat = obj
            .record
            .mesh_offset
            .checked_add(u64::from(j) * MESH_LEN)
            .ok_or_else(|| {
                inconsistent(
                    Place::Mesh { object: i, mesh: j },
                    Problem::MeshOffsetOverflow,
                )
            })?;
        let what = Label::MeshRecord { object: i, mesh: j };
        let at_record = Place::At {
            label: what,
            offset: mat,
        };
        if mesh.record.kind() != self.magic {
            return Err(inconsistent(
                at_record,
                Problem::Variant {
                    record: mesh.record.kind(),
                    container: self.magic,
                },
            ));
        }
        self.out.push(Placed {
            offset: mat,
            len: MESH_LEN,
            label: what,
        });
        let vc = mesh.vertex_count();
        // Every kind in one order, named or not, so that the first problem a mesh has is
        // the same whichever kind of container it is in.
        let streams = mesh.record.stream_slots();
        for kind in StreamKind::ALL {
            let Some(&(_, off)) = streams.iter().find(|s| s.0 == kind) else {
                if mesh.stream_len(kind) != 0 {
                    return Err(inconsistent(
                        at_record,
                        Problem::ForeignStream {
                            container: self.magic,
                            kind,
                        },
                    ));
                }
                continue;
            };
            if mesh.stream_len(kind) != vc {
                return Err(inconsistent(
                    at_record,
                    Problem::StreamLength {
                        kind,
                        vertex_count: vc,
                        len: mesh.stream_len(kind),
                    },
                ));
            }
            self.place_stream((i, j), mesh, kind, off)?;
        }
        if let Some((offset, len)) = super::workspace::placement((i, j), mat, mesh)? {
            self.out.push(Placed {
                offset,
                len,
                label: Label::Workspace { object: i, mesh: j },
            });
        }
        Ok(())
    }

    /// Places the `kind` stream of mesh `j` of object `i` at `off`, unless a mesh before it
    /// placed the same one (same offset, length and kind): then the two must hold the same
    /// data.
    fn place_stream(
        &mut self,
        (i, j): (u8, u8),
        mesh: &Mesh,
        kind: StreamKind,
        off: u64,
    ) -> Result<(), Dmc3Error> {
        let label = Label::Stream {
            kind,
            object: i,
            mesh: j,
            vertices: None,
        };
        // vc fits the u16 vertex count and the stride is at most 12: no overflow.
        let len = mesh.vertex_count() as u64 * kind.stride();
        if len == 0 {
            return Ok(());
        }
        let Some((fi, fj)) = self.shared.first_or_insert((off, len, kind), (i, j)) else {
            self.out.push(Placed {
                offset: off,
                len,
                label,
            });
            return Ok(());
        };
        let same = self
            .objects
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
            return Err(inconsistent(
                Place::At { label, offset: off },
                Problem::SharedStream { first },
            ));
        }
        Ok(())
    }
}

/// Writes the bytes of a structure `layout` placed into `dst` (exactly its length). A label
/// that names no structure of the container is refused: `layout` never places one.
pub(crate) fn encode(
    h: &Header,
    objects: &[Object],
    label: Label,
    dst: &mut [u8],
) -> Result<(), Dmc3Error> {
    let mesh = |object: u8, mesh: u8| {
        objects
            .get(usize::from(object))
            .and_then(|o| o.meshes.get(usize::from(mesh)))
            .ok_or(Dmc3Error::Unplaced(label))
    };
    let bad = |problem| Dmc3Error::Inconsistent {
        what: Place::Is(label),
        problem,
    };
    match label {
        Label::Header => h.encode_slice(&header_counts(objects).map_err(bad)?, dst),
        Label::Object(i) => {
            let o = objects
                .get(usize::from(i))
                .ok_or(Dmc3Error::Unplaced(label))?;
            o.record.encode_slice(&o.counts().map_err(bad)?, dst)
        }
        Label::MeshRecord { object, mesh: j } => {
            let m = mesh(object, j)?;
            m.record.encode_slice(&m.counts().map_err(bad)?, dst)
        }
        Label::Stream {
            kind,
            object,
            mesh: j,
            ..
        } => mesh(object, j)?.encode_stream(kind, dst),
        Label::MeshRecords(_)
        | Label::Workspace { .. }
        | Label::Gap { .. }
        | Label::Block(_)
        | Label::BareBlock => return Err(Dmc3Error::Unplaced(label)),
    }
    Ok(())
}
