//! `dump`/`build`: a native file as lossless, diffable JSON, and that JSON back to the exact
//! bytes.
//!
//! The JSON is the native structs as serde writes them (u32/u64 and f32 bit patterns as `0x`
//! hex, fixed byte fields as hex, gaps and vertex streams as base64), wrapped in a small header:
//! `{"rigtrip_dump": 1, "format": "hie"|"mod"|"scm"|"block", "file": {...}}`, plus `offset` and
//! `nodes` for a block file. `build(dump(f))` writes exactly the bytes `f` was read from.
//! [`render`] prints it so that a diff of two dumps shows only the records that changed.
//! The layout is described by `schema/dump.schema.json`.
//!
//! A dump shows each count beside the list it counts (object, mesh, vertex, node, track and key
//! counts), but the native structs hold only the lists: the writer derives every count from its
//! list. So `build` checks the counts the dump shows against the lists it read, and refuses one
//! that disagrees at the count's pointer (a vertex count at the stream that disagrees with it),
//! never picking one of the two: in a hand-edited dump either edit may be the intended one.
//! Everything else it hands to the native writer, whose errors say by type which structure and
//! which field disagree (a record variant against the magic, a header link against the block,
//! two structures on the same bytes); this module only turns those into JSON pointers.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::native::dmc3::motion::{
    KeyF32, KeyF32Hermite, KeyU16, KeyU16Hermite, Mot, MotHeader, TangentRanges, TrackHead,
};
use crate::native::dmc3::pac::{MemberKind, Pac};
use crate::native::dmc3::shadow::Shw;
use crate::native::dmc3::texture::{DdsHeader, Descriptor, Ptx, Texture};
use crate::native::dmc3::{
    self, BlockHeader, BlockPart, BlockRels, ContainerKind, Dmc3Error, Dmc3File, Header, Label,
    LinkField, MeshRecord, ModStreams, NodeTransform, ObjectRecord, Place, Problem, ScmStreams,
    StreamKind,
};
use crate::native::hie::Part;
use crate::native::hie::{self, ByteListPart, HieError, HieFile, WriteLabel};
use crate::native::record::{CountsOf, Record};
use crate::native::{Format, MotionFile, NativeFile};

/// Version of the dump layout, written as `rigtrip_dump`.
pub const DUMP_VERSION: u64 = 1;

/// Scalar arrays longer than this are broken into lines of this many entries.
const ROW: usize = 16;

/// Why a JSON value could not be built back into bytes. `pointer` is an RFC 6901 JSON pointer
/// into the dump (`""` is the whole document).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// The JSON does not describe a native structure of the declared format.
    #[error("{}: {problem}", shown(.pointer))]
    Invalid {
        /// Where in the dump.
        pointer: String,
        /// What is wrong there.
        problem: String,
    },
    /// The structure is well-formed JSON but cannot be written (counts, lengths, overlaps).
    #[error("{}: cannot write: {problem}", shown(.pointer))]
    Write {
        /// Where in the dump.
        pointer: String,
        /// What is wrong there.
        problem: String,
    },
}

impl DumpError {
    /// The JSON pointer the error is about.
    pub fn pointer(&self) -> &str {
        match self {
            DumpError::Invalid { pointer, .. } | DumpError::Write { pointer, .. } => pointer,
        }
    }
}

fn shown(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(document)"
    } else {
        pointer
    }
}

fn invalid(pointer: impl Into<String>, problem: impl Into<String>) -> DumpError {
    DumpError::Invalid {
        pointer: pointer.into(),
        problem: problem.into(),
    }
}

fn unwritable(pointer: impl Into<String>, problem: impl Into<String>) -> DumpError {
    DumpError::Write {
        pointer: pointer.into(),
        problem: problem.into(),
    }
}

/// The whole native structure of `file` as JSON, with the dump header. `format` is what the
/// file was read as; the header's `offset`/`nodes` of a block file come from the block itself
/// (they agree for a file that was read), `format` only fills them in for a block file that
/// holds no block.
pub fn dump(file: &NativeFile, format: Format) -> Value {
    let mut m = Map::new();
    m.insert("rigtrip_dump".into(), Value::from(DUMP_VERSION));
    m.insert("format".into(), Value::from(file.kind()));
    match file {
        NativeFile::Hie(h) => {
            m.insert("file".into(), to_value(h));
        }
        NativeFile::Dmc3(d) => {
            if d.container.is_none() {
                let (offset, nodes) = match (&d.block, format) {
                    (Some(b), _) => (b.offset, b.node_count()),
                    (None, Format::Block { offset, nodes }) => (offset, nodes),
                    (None, _) => (0, 0),
                };
                m.insert("offset".into(), Value::from(format!("{offset:#x}")));
                m.insert("nodes".into(), Value::from(nodes));
            }
            m.insert("file".into(), to_value(d));
        }
    }
    Value::Object(m)
}

/// A motion file as JSON, with the dump header (`format` `mot` or `pac`).
pub fn dump_motion(file: &MotionFile) -> Value {
    let mut m = Map::new();
    m.insert("rigtrip_dump".into(), Value::from(DUMP_VERSION));
    m.insert("format".into(), Value::from(file.kind()));
    let v = match file {
        MotionFile::Mot(x) => to_value(x),
        MotionFile::Pac(x) => to_value(x),
        MotionFile::Ptx(x) => to_value(x),
        MotionFile::Tm2(x) => to_value(x),
    };
    m.insert("file".into(), v);
    Value::Object(m)
}

/// The native structs as a JSON tree. Serialising them cannot fail (string keys, no
/// non-finite floats: every float is a bit pattern), so a failure is a bug: asserted in debug
/// builds; a release build writes `null`, which `build` refuses by pointer instead of writing
/// other bytes.
fn to_value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap_or_else(|e| {
        debug_assert!(false, "native structs serialise: {e}");
        Value::Null
    })
}

/// [`build`] from JSON text; a syntax error names its line and column.
pub fn build_text(text: &str) -> Result<Vec<u8>, DumpError> {
    let v: Value = serde_json::from_str(text).map_err(|e| invalid("", format!("not JSON: {e}")))?;
    build(&v)
}

/// Turns a dump back into the native file's bytes: exactly the original bytes for an unedited
/// dump. Unknown keys, missing fields, bad values and structures the writer cannot encode are
/// refused with the JSON pointer of the offending value.
pub fn build(v: &Value) -> Result<Vec<u8>, DumpError> {
    let obj = v
        .as_object()
        .ok_or_else(|| invalid("", "a dump is a JSON object"))?;
    match obj.get("rigtrip_dump") {
        Some(n) if n.as_u64() == Some(DUMP_VERSION) => {}
        Some(n) => {
            return Err(invalid(
                "/rigtrip_dump",
                format!("dump version {n} is not supported (this rigtrip reads {DUMP_VERSION})"),
            ))
        }
        None => return Err(invalid("", "missing \"rigtrip_dump\": not a rigtrip dump")),
    }
    let format = match obj.get("format") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(invalid(
                "/format",
                format!("expected \"hie\", \"mod\", \"scm\" or \"block\", got {other}"),
            ))
        }
        None => return Err(invalid("", "missing \"format\"")),
    };
    let allowed: &[&str] = match format {
        "hie" | "mod" | "scm" | "mot" | "pac" | "ptx" | "tm2" => &["rigtrip_dump", "format", "file"],
        "block" => &["rigtrip_dump", "format", "offset", "nodes", "file"],
        other => {
            return Err(invalid(
                "/format",
                format!(
                    "unknown format {other:?}: expected \"hie\", \"mod\", \"scm\", \"block\", \"mot\", \"pac\", \"ptx\" or \"tm2\""
                ),
            ))
        }
    };
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(
            format!("/{}", escape(k)),
            format!("unknown key in a {format} dump"),
        ));
    }
    let file = obj
        .get("file")
        .ok_or_else(|| invalid("", "missing \"file\""))?;
    match format {
        "hie" => {
            let f: HieFile = decode(file, "/file")?;
            hie::write(&f).map_err(|e| hie_error(&e))
        }
        "mot" => {
            let f: Mot = decode(file, "/file")?;
            check_mot_counts(file, &f, "/file")?;
            f.write().map_err(|e| unwritable("/file", crate::chain(&e)))
        }
        "pac" => {
            let f: Pac = decode(file, "/file")?;
            check_pac_counts(file, &f, "/file")?;
            f.write().map_err(|e| unwritable("/file", crate::chain(&e)))
        }
        "ptx" => {
            let f: Ptx = decode(file, "/file")?;
            f.write().map_err(|e| unwritable("/file", crate::chain(&e)))
        }
        "tm2" => {
            let f: Texture = decode(file, "/file")?;
            Ok(f.write())
        }
        _ => {
            let f: Dmc3File = decode(file, "/file")?;
            check_dmc3_kind(obj, format, &f)?;
            check_dmc3_counts(file, &f, "/file")?;
            dmc3::write(&f).map_err(|e| dmc3_error(&e))
        }
    }
}

/// Deserialises `v` (found at `at`) and refuses keys the type does not have, so that a typo
/// cannot be silently ignored while the field it meant keeps its old value.
fn decode<T: DeserializeOwned + Serialize>(v: &Value, at: &str) -> Result<T, DumpError> {
    let t: T = read_at(v, at)?;
    let canonical = serde_json::to_value(&t).map_err(|e| invalid(at, e.to_string()))?;
    unknown_keys(v, &canonical, at)?;
    Ok(t)
}

/// Deserialises `v` (found at `at`); an error names the pointer of the value it is about.
fn read_at<T: DeserializeOwned>(v: &Value, at: &str) -> Result<T, DumpError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let mut p = at.to_string();
        for seg in e.path().iter() {
            use serde_path_to_error::Segment;
            match seg {
                Segment::Seq { index } => p.push_str(&format!("/{index}")),
                Segment::Map { key } => p.push_str(&format!("/{}", escape(key))),
                Segment::Enum { variant } => p.push_str(&format!("/{}", escape(variant))),
                Segment::Unknown => {}
            }
        }
        invalid(p, e.inner().to_string())
    })
}

/// The counts a DMC3 dump shows, read from it as the records' dump form has them (the rest of
/// each structure is skipped: [`decode`] read it).
#[derive(Deserialize)]
struct ShownDmc3 {
    #[serde(default)]
    container: Option<ShownContainer>,
}

#[derive(Deserialize)]
struct ShownContainer {
    header: CountsOf<Header>,
    objects: Vec<ShownObject>,
}

#[derive(Deserialize)]
struct ShownObject {
    record: CountsOf<ObjectRecord>,
    meshes: Vec<ShownMesh>,
}

#[derive(Deserialize)]
struct ShownMesh {
    record: CountsOf<MeshRecord>,
}

/// The counts a motion dump shows.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShownMot {
    header: CountsOf<MotHeader>,
    track_count: u32,
    tracks: Vec<ShownTrack>,
}

#[derive(Deserialize)]
struct ShownTrack {
    head: CountsOf<TrackHead>,
}

/// The container's counts as the dump shows them (`file`, read as `f`) against the lists they
/// count: the header's object count, each object's mesh count, each mesh's vertex count against
/// every stream its record names (a record of the other container kind is left to the
/// writer, which refuses it by its variant). The first that disagrees is refused at the
/// count's pointer (the stream's, for a vertex count).
fn check_dmc3_counts(file: &Value, f: &Dmc3File, at: &str) -> Result<(), DumpError> {
    let shown: ShownDmc3 = read_at(file, at)?;
    let (Some(c), Some(s)) = (&f.container, &shown.container) else {
        return Ok(());
    };
    let objects = &format!("{at}/container/objects");
    let count = s.header.0.object_count;
    if usize::from(count) != c.objects.len() {
        return Err(unwritable(
            format!("{at}/container/header/object_count"),
            format!("is {count} but {objects} holds {}", c.objects.len()),
        ));
    }
    for (i, (o, so)) in c.objects.iter().zip(&s.objects).enumerate() {
        let count = so.record.0.mesh_count;
        if usize::from(count) != o.meshes.len() {
            return Err(unwritable(
                format!("{objects}/{i}/record/mesh_count"),
                format!(
                    "is {count} but {objects}/{i}/meshes holds {}",
                    o.meshes.len()
                ),
            ));
        }
        for (j, (m, sm)) in o.meshes.iter().zip(&so.meshes).enumerate() {
            if m.record.kind() != c.header.magic {
                continue;
            }
            let count = sm.record.0.vertex_count;
            let mesh = format!("{objects}/{i}/meshes/{j}");
            for &(kind, _) in m.record.stream_slots().iter() {
                let len = m.stream_len(kind);
                if len != usize::from(count) {
                    return Err(unwritable(
                        format!("{mesh}/{}", stream_field(kind)),
                        format!("holds {len} entries but {mesh}/record/vertex_count is {count}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A motion's counts as the dump shows them (`file`, read as `m`) against the lists they
/// count: the header's node count against the masks, the track count against the tracks, each
/// track's key count against its keys. The first that disagrees is refused at the count's
/// pointer.
fn check_mot_counts(file: &Value, m: &Mot, at: &str) -> Result<(), DumpError> {
    let shown: ShownMot = read_at(file, at)?;
    let nodes = shown.header.0.node_count;
    if usize::from(nodes) != m.masks.len() {
        return Err(unwritable(
            format!("{at}/header/node_count"),
            format!("is {nodes} but {at}/masks holds {}", m.masks.len()),
        ));
    }
    if usize::try_from(shown.track_count).ok() != Some(m.tracks.len()) {
        return Err(unwritable(
            format!("{at}/trackCount"),
            format!(
                "is {} but {at}/tracks holds {} (the masks set {} channels)",
                shown.track_count,
                m.tracks.len(),
                dmc3::motion::channel_count(&m.masks)
            ),
        ));
    }
    for (index, ((node, channel, t), st)) in m.targets().zip(&shown.tracks).enumerate() {
        let head = st.head.0.key_count;
        if usize::from(head) != t.keys.len() {
            return Err(unwritable(
                format!("{at}/tracks/{index}/head/key_count"),
                format!(
                    "is {head} but {at}/tracks/{index}/keys holds {} (track {index}: node {node} {channel})",
                    t.keys.len()
                ),
            ));
        }
    }
    Ok(())
}

/// The counts shown in an archive's members (at `at`): each motion and model member's as in
/// a loose file's dump, nested archives included.
fn check_pac_counts(file: &Value, p: &Pac, at: &str) -> Result<(), DumpError> {
    for (i, m) in p.members.iter().enumerate() {
        let kind = &file["members"][i]["kind"];
        let ptr = |k: &str| format!("{at}/members/{i}/kind/{k}");
        match &m.kind {
            MemberKind::Mot(mot) => check_mot_counts(&kind["mot"], mot, &ptr("mot"))?,
            MemberKind::Model(f) => check_dmc3_counts(&kind["model"], f, &ptr("model"))?,
            MemberKind::Archive(a) => check_pac_counts(&kind["archive"], a, &ptr("archive"))?,
            // Its lists are written from its body: decoded values edited alone would be lost.
            MemberKind::Shadow(shw) if Shw::read(&shw.write()).as_ref() != Some(&**shw) => {
                return Err(DumpError::Write {
                    pointer: ptr("shadow"),
                    problem: "the hulls do not match the header, records and body (a shadow model's counts, offsets and lists are written from its header, records and body; edit those)".into(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// The first key of `input` that the canonical serialisation of what was read from it lacks.
fn unknown_keys(input: &Value, canonical: &Value, at: &str) -> Result<(), DumpError> {
    match (input, canonical) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{at}/{}", escape(k));
                match b.get(k) {
                    Some(c) => unknown_keys(v, c, &p)?,
                    // An absent optional structure serialises as no key; null means the same.
                    None if v.is_null() => {}
                    None => return Err(invalid(p, "unknown key")),
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                unknown_keys(x, y, &format!("{at}/{i}"))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// RFC 6901 escaping of one reference token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The header's format against the file's shape: a container of the right magic for mod/scm,
/// a bare block at the header's offset with the header's node count for block.
fn check_dmc3_kind(obj: &Map<String, Value>, format: &str, f: &Dmc3File) -> Result<(), DumpError> {
    if format == "block" {
        if f.container.is_some() {
            return Err(invalid(
                "/file/container",
                "a block dump has no container (the file's container is not known); remove it",
            ));
        }
        let b = f
            .block
            .as_ref()
            .ok_or_else(|| invalid("/file/block", "a block dump needs a block"))?;
        let offset = match obj.get("offset") {
            Some(Value::String(s)) => s
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| invalid("/offset", format!("expected 0x-hex, got {s:?}")))?,
            Some(other) => return Err(invalid("/offset", format!("expected 0x-hex, got {other}"))),
            None => return Err(invalid("", "a block dump needs \"offset\"")),
        };
        let nodes = match obj.get("nodes") {
            Some(n) => n
                .as_u64()
                .ok_or_else(|| invalid("/nodes", format!("expected a node count, got {n}")))?,
            None => return Err(invalid("", "a block dump needs \"nodes\"")),
        };
        if offset != b.offset {
            return Err(invalid(
                "/offset",
                format!(
                    "{offset:#x}, but /file/block/offset is {:#x}; edit both",
                    b.offset
                ),
            ));
        }
        if nodes != b.node_count() as u64 {
            return Err(invalid(
                "/nodes",
                format!(
                    "{nodes}, but /file/block/transforms holds {} records",
                    b.node_count()
                ),
            ));
        }
        return Ok(());
    }
    let want = if format == "mod" {
        ContainerKind::Mod
    } else {
        ContainerKind::Scm
    };
    let c = f.container.as_ref().ok_or_else(|| {
        invalid(
            "/file/container",
            format!("a {format} dump needs a container"),
        )
    })?;
    if c.header.magic != want {
        return Err(invalid(
            "/file/container/header/magic",
            format!("{:?} in a dump whose format is {format}", c.header.magic),
        ));
    }
    Ok(())
}

/// JSON field name of a mesh's stream.
fn stream_field(kind: StreamKind) -> &'static str {
    match kind {
        StreamKind::Positions => "positions",
        StreamKind::Normals => "normals",
        StreamKind::Uvs => "uvs",
        StreamKind::BoneIndices => "bone_indices",
        StreamKind::Weights => "weights",
        StreamKind::Colours => "colours",
    }
}

/// The JSON pointer of a structure the DMC3 writer places.
fn dmc3_pointer(label: &Label) -> String {
    let mesh = |o: u8, m: u8| format!("/file/container/objects/{o}/meshes/{m}");
    match *label {
        Label::Header => "/file/container/header".into(),
        Label::Object(i) => format!("/file/container/objects/{i}/record"),
        Label::MeshRecords(i) => format!("/file/container/objects/{i}/meshes"),
        Label::MeshRecord { object, mesh: m } => format!("{}/record", mesh(object, m)),
        Label::Stream {
            kind,
            object,
            mesh: m,
            ..
        } => format!("{}/{}", mesh(object, m), stream_field(kind)),
        Label::Gap { index, .. } => format!("/file/gaps/{index}"),
        Label::Block(_) | Label::BareBlock => "/file/block".into(),
    }
}

/// The JSON pointer of a region of the block.
fn block_pointer(part: BlockPart) -> String {
    match part {
        BlockPart::Header => "/file/block/rels".into(),
        BlockPart::Parents => "/file/block/parents".into(),
        BlockPart::Order => "/file/block/order".into(),
        BlockPart::Groups => "/file/block/groups".into(),
        BlockPart::Transforms => "/file/block/transforms".into(),
        BlockPart::Padding(k) => format!("/file/block/padding/{k}"),
    }
}

/// A DMC3 writer error as the JSON pointer of the value it is about and what is wrong there,
/// from the error's typed fields (which structure, which field, the values that disagree).
/// An error about no one value (holes, sizes) points at `/file` with the writer's message.
fn dmc3_error(e: &Dmc3Error) -> DumpError {
    let pointed = match e {
        Dmc3Error::Inconsistent { what, problem } => inconsistent_error(what, problem),
        Dmc3Error::WriteOverlap {
            overlap: o,
            first,
            second,
        } => Some(unwritable(
            dmc3_pointer(second),
            format!(
                "its bytes {:#x}..{:#x} overlap {} ({:#x}..{:#x})",
                o.second_start,
                o.second_end,
                dmc3_pointer(first),
                o.first_start,
                o.first_end
            ),
        )),
        Dmc3Error::BlockOverlap {
            overlap: o,
            block,
            first,
            second,
        } => {
            let rel = |x: u64| x.saturating_sub(*block);
            Some(unwritable(
                block_pointer(*second),
                format!(
                    "its block-relative bytes {:#x}..{:#x} overlap {} ({:#x}..{:#x})",
                    rel(o.second_start),
                    rel(o.second_end),
                    block_pointer(*first),
                    rel(o.first_start),
                    rel(o.first_end)
                ),
            ))
        }
        _ => None,
    };
    pointed.unwrap_or_else(|| unwritable("/file", crate::chain(e)))
}

/// An inconsistency at `what` as the value it is about, `None` when it is about no one value.
fn inconsistent_error(what: &Place, problem: &Problem) -> Option<DumpError> {
    if let Some(header) = header_link_error(problem) {
        return Some(header);
    }
    Some(match (what, problem) {
        (
            Place::At {
                label: label @ Label::MeshRecord { .. },
                ..
            },
            problem,
        ) => return mesh_record_error(label, problem),
        (Place::At { label, offset }, Problem::SharedStream { first }) => unwritable(
            dmc3_pointer(label),
            format!(
                "shares offset {offset:#x} with {} but holds other data; \
                 edit both or give one its own offset",
                dmc3_pointer(first)
            ),
        ),
        (_, Problem::BlockArray { array, len, nodes }) => unwritable(
            block_pointer(*array),
            format!("holds {len} entries but /file/block/transforms holds {nodes} records"),
        ),
        (
            _,
            Problem::PaddingOutside {
                index,
                start,
                end,
                extent,
            },
        ) => unwritable(
            block_pointer(BlockPart::Padding(*index)),
            format!(
                "padding at block-relative {start:#x}..{end:#x} lies outside the block's extent \
                 {extent:#x} (set by /file/block/rels)"
            ),
        ),
        _ => return None,
    })
}

/// A header field that disagrees with the block (or names a block that is missing), wherever
/// the writer found it.
fn header_link_error(problem: &Problem) -> Option<DumpError> {
    Some(match problem {
        Problem::BlockLink {
            field: LinkField::BoneCount,
            bone_count,
            nodes,
            ..
        } => unwritable(
            "/file/container/header/bone_count",
            format!("is {bone_count} but /file/block/transforms holds {nodes} records"),
        ),
        Problem::BlockLink {
            field: LinkField::BlockOffset,
            block_offset,
            offset,
            ..
        } => unwritable(
            "/file/container/header/block_offset",
            format!("is {block_offset:#x} but /file/block/offset is {offset:#x}"),
        ),
        Problem::NoBlock {
            bone_count,
            block_offset,
        } => unwritable(
            "/file/block",
            format!(
                "is missing but the header names a block of {bone_count} nodes at {block_offset:#x}"
            ),
        ),
        _ => return None,
    })
}

/// A problem with the mesh record `label` as the value it is about (its variant or a stream
/// it must not have), `None` for any other problem.
fn mesh_record_error(label: &Label, problem: &Problem) -> Option<DumpError> {
    let record = dmc3_pointer(label);
    let mesh = record.trim_end_matches("/record");
    match problem {
        Problem::Variant {
            record: r,
            container,
        } => Some(unwritable(
            format!("{record}/variant"),
            format!(
                "a {} mesh record in a {} container",
                r.name(),
                container.name()
            ),
        )),
        Problem::ForeignStream { container, kind } => Some(unwritable(
            format!("{mesh}/{}", stream_field(*kind)),
            format!(
                "a {} mesh has no {}; it must be empty",
                container.name(),
                kind.name()
            ),
        )),
        _ => None,
    }
}

/// The JSON pointer of what a HIE writer error is about, from the error's typed fields.
fn hie_error(e: &HieError) -> DumpError {
    let h = |i: usize| format!("/file/hierarchies/{i}");
    let pointer = match e {
        HieError::SlotCount { .. } => "/file/slots".to_string(),
        HieError::SlotIndex { slot, .. } => format!("/file/slots/{slot}"),
        HieError::Unreferenced { hierarchy, .. } | HieError::TooLarge { hierarchy, .. } => {
            h(*hierarchy)
        }
        HieError::TooManyParts { hierarchy, .. } => format!("{}/parts", h(*hierarchy)),
        HieError::ByteListLength { hierarchy, .. } => format!("{}/byte_lists", h(*hierarchy)),
        HieError::ByteListTerminator {
            hierarchy, which, ..
        } => match which {
            ByteListPart::List(k) => format!("{}/byte_lists/lists/{k}", h(*hierarchy)),
            ByteListPart::Tail => format!("{}/byte_lists/tail", h(*hierarchy)),
        },
        HieError::OffsetInTable { hierarchy, .. } => format!("{}/offset", h(*hierarchy)),
        HieError::WriteOverlap { second, .. } => match *second {
            WriteLabel::Table => "/file/slots".into(),
            WriteLabel::Hierarchy(i) => h(i),
            WriteLabel::Gap { index, .. } => format!("/file/gaps/{index}"),
        },
        _ => "/file".into(),
    };
    unwritable(pointer, e.to_string())
}

/// The dump's JSON Schema, as committed in `schema/dump.schema.json`: the file structure is
/// written here, every fixed record's fragment (fields, evidence classes, meanings) comes from
/// its declaration.
pub fn schema() -> Value {
    let mut s = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rigtrip.invalid/schema/dump.schema.json",
        "title": "rigtrip native dump, version 1",
        "description": "`rigtrip dump` output: the whole native structure of a file, every byte represented, so that `rigtrip build` writes the exact bytes back. u32/u64 values and f32 bit patterns are 0x-hex strings (any case, leading zeros optional), fixed-size byte fields hex, gaps and vertex streams base64 of their exact little-endian bytes. Offsets are absolute file offsets unless a description says otherwise. Each field's description gives its evidence class (docs/formats.md lists the classes).",
        "type": "object",
        "required": [
            "rigtrip_dump",
            "format",
            "file"
        ],
        "additionalProperties": false,
        "properties": {
            "rigtrip_dump": {
                "description": "Version of this layout.",
                "const": 1
            },
            "format": {
                "enum": [
                    "hie",
                    "mod",
                    "scm",
                    "block",
                    "mot",
                    "pac",
                    "ptx",
                    "tm2"
                ]
            },
            "offset": {
                "description": "block: absolute offset of the node-domain block; equals file.block.offset.",
                "$ref": "#/$defs/hex64"
            },
            "nodes": {
                "description": "block: node count; equals the number of file.block.transforms.",
                "$ref": "#/$defs/index"
            },
            "file": {
                "type": "object"
            }
        },
        "allOf": [
            whole_file("hie", "hieFile"),
            whole_file("mod", "modFile"),
            whole_file("scm", "scmFile"),
            whole_file("mot", "motFile"),
            whole_file("pac", "pacFile"),
            whole_file("ptx", "ptxFile"),
            whole_file("tm2", "textureEntry"),
            {
                "if": {
                    "properties": {
                        "format": {
                            "const": "block"
                        }
                    }
                },
                "then": {
                    "required": [
                        "offset",
                        "nodes"
                    ],
                    "properties": {
                        "file": {
                            "$ref": "#/$defs/blockFile"
                        }
                    }
                }
            }
        ]
    });
    let mut defs = Map::new();
    common_defs(&mut defs);
    gap_defs(&mut defs);
    hie_defs(&mut defs);
    container_defs(&mut defs);
    dmc3_file_defs(&mut defs);
    dmc3_part_defs(&mut defs);
    block_def(&mut defs);
    motion_defs(&mut defs);
    record_defs(&mut defs);
    if let Value::Object(m) = &mut s {
        m.insert("$defs".into(), Value::Object(defs));
    }
    s
}

/// The condition of a whole-file format: its `file` is `def`, and it has no block offset or
/// node count.
fn whole_file(format: &str, def: &str) -> Value {
    json!({
        "if": {
            "properties": {
                "format": {
                    "const": format
                }
            }
        },
        "then": {
            "properties": {
                "file": {
                    "$ref": format!("#/$defs/{def}")
                }
            },
            "not": {
                "anyOf": [
                    {
                        "required": [
                            "offset"
                        ]
                    },
                    {
                        "required": [
                            "nodes"
                        ]
                    }
                ]
            }
        }
    })
}

/// The dump schema's shared definitions: hex and base64 forms, integers.
fn common_defs(defs: &mut Map<String, Value>) {
    defs.insert(
        "hex32".into(),
        json!({
            "type": "string",
            "pattern": "^0x[0-9a-fA-F]{1,8}$"
        }),
    );
    defs.insert(
        "hex64".into(),
        json!({
            "type": "string",
            "pattern": "^0x[0-9a-fA-F]{1,16}$"
        }),
    );
    defs.insert(
        "hexbytes".into(),
        json!({
            "type": "string",
            "pattern": "^([0-9a-fA-F]{2})*$"
        }),
    );
    for n in [4, 8, 12, 16, 24, 28] {
        defs.insert(
            format!("hex{n}"),
            json!({
                "type": "string",
                "pattern": format!("^([0-9a-fA-F]{{2}}){{{n}}}$")
            }),
        );
    }
    defs.insert(
        "base64".into(),
        json!({
            "type": "string",
            "pattern": "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
        }),
    );
    defs.insert(
        "emptyStream".into(),
        json!({
            "description": "A stream this container kind does not have.",
            "const": ""
        }),
    );
    defs.insert(
        "index".into(),
        json!({
            "type": "integer",
            "minimum": 0
        }),
    );
    defs.insert(
        "i8".into(),
        json!({
            "type": "integer",
            "minimum": -128,
            "maximum": 127
        }),
    );
    defs.insert(
        "u8".into(),
        json!({
            "type": "integer",
            "minimum": 0,
            "maximum": 255
        }),
    );
    defs.insert(
        "u16".into(),
        json!({
            "type": "integer",
            "minimum": 0,
            "maximum": 65535
        }),
    );
    defs.insert(
        "i32".into(),
        json!({
            "type": "integer",
            "minimum": -2147483648,
            "maximum": 2147483647
        }),
    );
}

/// The dump schema of gaps: bytes no structure accounts for, kept exactly.
fn gap_defs(defs: &mut Map<String, Value>) {
    defs.insert("gap".into(), json!({
    "description": "Bytes no decoded structure covers (PRESERVED_UNDECODED), kept where they were.",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "offset",
        "bytes"
    ],
    "properties": {
        "offset": {
            "$ref": "#/$defs/hex64"
        },
        "bytes": {
            "$ref": "#/$defs/base64"
        }
    }
}));
    defs.insert(
        "gaps".into(),
        json!({
            "type": "array",
            "items": {
                "$ref": "#/$defs/gap"
            }
        }),
    );
}

/// The dump schema of DBnnHIE.BIN.
fn hie_defs(defs: &mut Map<String, Value>) {
    defs.insert("hieFile".into(), json!({
    "description": "DBnnHIE.BIN (docs/formats.md).",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "slots",
        "hierarchies",
        "gaps"
    ],
    "properties": {
        "slots": {
            "description": "The 256-entry offset table (STRUCTURAL_CONFIRMED): per slot the index of its hierarchy in `hierarchies`, null for offset 0. The offsets themselves are where the hierarchies are placed.",
            "type": "array",
            "minItems": 256,
            "maxItems": 256,
            "items": {
                "anyOf": [
                    {
                        "type": "null"
                    },
                    {
                        "$ref": "#/$defs/index"
                    }
                ]
            }
        },
        "hierarchies": {
            "description": "In file-offset order; one that several slots point at appears once.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/hierarchy"
            }
        },
        "gaps": {
            "description": "Bytes between and after the hierarchies.",
            "$ref": "#/$defs/gaps"
        }
    }
}));
    defs.insert("hierarchy".into(), json!({
    "type": "object",
    "additionalProperties": false,
    "required": [
        "offset",
        "span",
        "byte_lists",
        "parts"
    ],
    "properties": {
        "offset": {
            "description": "File offset; kept while the hierarchy fits in `span`.",
            "$ref": "#/$defs/hex32"
        },
        "span": {
            "description": "Bytes it occupied when read (0 for a new one: placed at the end).",
            "$ref": "#/$defs/hex32"
        },
        "byte_lists": {
            "description": "+0x02, the 0x32-byte area of 0xFF-ended lists (STRUCTURAL_CONFIRMED, 'part groups'); each list without its terminator, then the bytes after the last one (PRESERVED_UNDECODED).",
            "type": "object",
            "additionalProperties": false,
            "required": [
                "lists",
                "tail"
            ],
            "properties": {
                "lists": {
                    "type": "array",
                    "maxItems": 50,
                    "items": {
                        "$ref": "#/$defs/hexbytes"
                    }
                },
                "tail": {
                    "$ref": "#/$defs/hexbytes"
                }
            }
        },
        "parts": {
            "description": "+0x34, 0x28 bytes each, depth-first; the s16 count at +0x00 is their number.",
            "type": "array",
            "maxItems": 32767,
            "items": {
                "$ref": "#/$defs/part"
            }
        }
    }
}));
}

/// The dump schema of whole DMC3 container files: MOD, SCM, a bare block.
fn container_defs(defs: &mut Map<String, Value>) {
    // A container file: the DMC3 structure with that magic and that kind's meshes.
    for (name, magic, mesh) in [("modFile", "Mod", "modMesh"), ("scmFile", "Scm", "scmMesh")] {
        defs.insert(
            name.into(),
            json!({
                "allOf": [
                    {
                        "$ref": "#/$defs/dmc3File"
                    }
                ],
                "required": [
                    "container"
                ],
                "properties": {
                    "container": {
                        "type": "object",
                        "properties": {
                            "header": {
                                "properties": {
                                    "magic": {
                                        "const": magic
                                    }
                                }
                            },
                            "objects": {
                                "items": {
                                    "properties": {
                                        "meshes": {
                                            "items": {
                                                "$ref": format!("#/$defs/{mesh}")
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }),
        );
    }
    defs.insert("blockFile".into(), json!({
    "description": "A node-domain block at some offset of a file whose container is not known (EFM and others); every other byte is a gap.",
    "allOf": [
        {
            "$ref": "#/$defs/dmc3File"
        }
    ],
    "required": [
        "block"
    ],
    "properties": {
        "container": {
            "description": "Absent: the container is not known.",
            "type": "null"
        },
        "block": {
            "type": "object"
        }
    }
}));
}

/// The dump schema of DMC3 meshes by container kind, and of a DMC3 file of any kind.
fn dmc3_file_defs(defs: &mut Map<String, Value>) {
    // A mesh of one container kind: its record's variant, and the streams that kind lacks.
    for (name, variant, absent) in [
        ("modMesh", "Mod", &["colours"][..]),
        ("scmMesh", "Scm", &["bone_indices", "weights"][..]),
    ] {
        let mut properties = json!({
            "record": {
                "properties": {
                    "variant": {
                        "required": [
                            variant
                        ]
                    }
                }
            }
        });
        for stream in absent {
            properties[*stream] = json!({
                "$ref": "#/$defs/emptyStream"
            });
        }
        defs.insert(name.into(), json!({ "properties": properties }));
    }
    defs.insert("dmc3File".into(), json!({
    "type": "object",
    "additionalProperties": false,
    "required": [
        "gaps"
    ],
    "properties": {
        "container": {
            "description": "Left out (or null) when the file has no known container.",
            "anyOf": [
                {
                    "type": "null"
                },
                {
                    "$ref": "#/$defs/container"
                }
            ]
        },
        "block": {
            "description": "Left out (or null) when the file has no node-domain block.",
            "anyOf": [
                {
                    "type": "null"
                },
                {
                    "$ref": "#/$defs/block"
                }
            ]
        },
        "gaps": {
            "description": "Every byte outside the container's structures and the block, absolute offsets.",
            "$ref": "#/$defs/gaps"
        }
    }
}));
}

/// The dump schema of the parts of a DMC3 container: the container, its objects and meshes.
fn dmc3_part_defs(defs: &mut Map<String, Value>) {
    defs.insert(
        "container".into(),
        json!({
            "description": "DMC3 MOD/SCM container (docs/formats.md, COMMUNITY unless stated).",
            "type": "object",
            "additionalProperties": false,
            "required": [
                "header",
                "objects"
            ],
            "properties": {
                "header": {
                    "$ref": "#/$defs/containerHeader"
                },
                "objects": {
                    "type": "array",
                    "maxItems": 255,
                    "items": {
                        "$ref": "#/$defs/object"
                    }
                }
            }
        }),
    );
    defs.insert(
        "object".into(),
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": [
                "record",
                "meshes"
            ],
            "properties": {
                "record": {
                    "$ref": "#/$defs/objectRecord"
                },
                "meshes": {
                    "type": "array",
                    "maxItems": 255,
                    "items": {
                        "$ref": "#/$defs/mesh"
                    }
                }
            }
        }),
    );
    defs.insert("mesh".into(), json!({
    "description": "A mesh record and its streams, vertex_count entries each, base64 of the bytes on disk.",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "record",
        "positions",
        "normals",
        "uvs",
        "bone_indices",
        "weights",
        "colours"
    ],
    "properties": {
        "record": {
            "$ref": "#/$defs/meshRecord"
        },
        "positions": {
            "description": "COMMUNITY: f32x3 per vertex.",
            "$ref": "#/$defs/base64"
        },
        "normals": {
            "description": "COMMUNITY: f32x3 per vertex.",
            "$ref": "#/$defs/base64"
        },
        "uvs": {
            "description": "COMMUNITY: s16x2 per vertex, value/4096.",
            "$ref": "#/$defs/base64"
        },
        "bone_indices": {
            "description": "MOD, COMMUNITY: u8x4 per vertex, bytes 1..3 joint x 4.",
            "$ref": "#/$defs/base64"
        },
        "weights": {
            "description": "MOD, COMMUNITY: u16 per vertex, three 5-bit weights and the strip flag (bit 15).",
            "$ref": "#/$defs/base64"
        },
        "colours": {
            "description": "SCM, COMMUNITY: u8x4 per vertex, RGB and a flag byte (bit 1: strip flag).",
            "$ref": "#/$defs/base64"
        }
    }
}));
}

/// The dump schema of the node-domain block (its header fields from their declaration).
fn block_def(defs: &mut Map<String, Value>) {
    let [rels, unknown_10] = [0, 1].map(|k| BlockHeader::FIELDS[k].schema_with_description());
    defs.insert("block".into(), json!({
    "description": "DMC3 node-domain block (docs/formats.md).",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "offset",
        "rels",
        "unknown_10",
        "parents",
        "order",
        "groups",
        "transforms",
        "padding"
    ],
    "properties": {
        "offset": {
            "description": "Absolute offset of the block header.",
            "$ref": "#/$defs/hex64"
        },
        "rels": rels,
        "unknown_10": unknown_10,
        "parents": {
            "description": "EXE_CONFIRMED: parent node index by order position, -1 for the root.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/i8"
            }
        },
        "order": {
            "description": "EXE_CONFIRMED: node at each order position.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/u8"
            }
        },
        "groups": {
            "description": "STRUCTURAL_CONFIRMED, meaning unknown: preserved.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/u8"
            }
        },
        "transforms": {
            "description": "One 0x20-byte record per node, indexed by node; f32 bit patterns.",
            "type": "array",
            "maxItems": 255,
            "items": {
                "$ref": "#/$defs/transform"
            }
        },
        "padding": {
            "description": "Bytes of the block's extent no array covers; offsets RELATIVE to the block start.",
            "$ref": "#/$defs/gaps"
        }
    }
}));
}

/// The dump schema of the fixed records, from their declarations.
fn record_defs(defs: &mut Map<String, Value>) {
    for (name, schema) in record_schemas() {
        defs.insert(name.into(), schema);
    }
}

/// The fixed records of the model and hierarchy formats, each with its schema from its
/// declaration: the dump's and the glTF extras' (see [`extras_record_defs`]) one source.
fn record_schemas() -> [(&'static str, Value); 8] {
    let described = |mut v: Value, text: &str| {
        if let Value::Object(m) = &mut v {
            m.insert("description".into(), Value::from(text));
        }
        v
    };
    [
        (Header::SCHEMA_NAME, Header::schema()),
        (
            ObjectRecord::SCHEMA_NAME,
            described(
                ObjectRecord::schema(),
                "0x40 bytes at 0x40 + 0x40 * object index.",
            ),
        ),
        (
            MeshRecord::SCHEMA_NAME,
            described(
                MeshRecord::schema(),
                "0x50 bytes, mesh_count of them in a row at the object's mesh_offset.",
            ),
        ),
        (ModStreams::SCHEMA_NAME, ModStreams::schema()),
        (ScmStreams::SCHEMA_NAME, ScmStreams::schema()),
        (BlockRels::SCHEMA_NAME, BlockRels::schema()),
        (NodeTransform::SCHEMA_NAME, NodeTransform::schema()),
        (Part::SCHEMA_NAME, Part::schema()),
    ]
}

/// The records whose dump form is also their form in the glTF extras (the container's header,
/// object and mesh records with their streams, the block's rels, the joint transform), for
/// `schema/rigtrip-extras.schema.json`, which refers to them instead of describing them again
/// (`tests/extras_schema.rs` holds the file to them).
pub fn extras_record_defs() -> Map<String, Value> {
    const IN_EXTRAS: [&str; 7] = [
        Header::SCHEMA_NAME,
        ObjectRecord::SCHEMA_NAME,
        MeshRecord::SCHEMA_NAME,
        ModStreams::SCHEMA_NAME,
        ScmStreams::SCHEMA_NAME,
        BlockRels::SCHEMA_NAME,
        NodeTransform::SCHEMA_NAME,
    ];
    record_schemas()
        .into_iter()
        .filter(|(name, _)| IN_EXTRAS.contains(name))
        .map(|(name, schema)| (name.to_string(), schema))
        .collect()
}

/// The dump schema of motions and archives (docs/formats.md: motions and archives).
fn motion_defs(defs: &mut Map<String, Value>) {
    defs.insert("motFile".into(), json!({
        "description": "A DMC3 motion (docs/formats.md). node_count equals the number of masks, header_size 0x1E + 2 * masks + headerTail bytes, trackCount the number of set mask bits and of tracks.",
        "type": "object",
        "additionalProperties": false,
        "required": ["header", "masks", "headerTail", "trackCount", "tracks", "tail"],
        "properties": {
            "header": { "$ref": "#/$defs/motHeader" },
            "masks": {
                "description": "COMMUNITY: per node a 9-bit channel mask (bit 8..0: tx ty tz rx ry rz sx sy sz).",
                "type": "array",
                "items": { "type": "string", "pattern": "^0x[0-9a-fA-F]{1,4}$" }
            },
            "headerTail": {
                "description": "PRESERVED_UNDECODED: bytes after the masks up to the header size.",
                "$ref": "#/$defs/base64"
            },
            "trackCount": { "type": "integer", "minimum": 0, "maximum": 4294967295u64 },
            "tracks": { "type": "array", "items": { "$ref": "#/$defs/motTrack" } },
            "tail": {
                "description": "Bytes after the last track (padding inside an archive).",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    defs.insert("motTrack".into(), json!({
        "description": "One track: head, tangent ranges (exactly for Hermite compressions 1 and 3), keys in the layout of the compression, bytes up to the span.",
        "type": "object",
        "additionalProperties": false,
        "required": ["head", "layout", "keys", "extra"],
        "properties": {
            "head": { "$ref": "#/$defs/motTrackHead" },
            "tangents": { "$ref": "#/$defs/motTangents" },
            "layout": { "enum": ["f32", "f32Hermite", "u16", "u16Hermite"] },
            "keys": {
                "type": "array",
                "items": {
                    "anyOf": [
                        { "$ref": "#/$defs/motKeyF32" },
                        { "$ref": "#/$defs/motKeyF32Hermite" },
                        { "$ref": "#/$defs/motKeyU16" },
                        { "$ref": "#/$defs/motKeyU16Hermite" }
                    ]
                }
            },
            "extra": {
                "description": "PRESERVED_UNDECODED: bytes between the keys' end and the span.",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    defs.insert("pacFile".into(), pac_file_def());
    texture_defs(defs);
    shadow_defs(defs);
    let records = [
        (MotHeader::SCHEMA_NAME, MotHeader::schema()),
        (TrackHead::SCHEMA_NAME, TrackHead::schema()),
        (TangentRanges::SCHEMA_NAME, TangentRanges::schema()),
        (KeyF32::SCHEMA_NAME, KeyF32::schema()),
        (KeyF32Hermite::SCHEMA_NAME, KeyF32Hermite::schema()),
        (KeyU16::SCHEMA_NAME, KeyU16::schema()),
        (KeyU16Hermite::SCHEMA_NAME, KeyU16Hermite::schema()),
    ];
    for (name, schema) in records {
        defs.insert(name.into(), schema);
    }
}

/// The dump schema of a DMC3 archive (`pacFile`): its members are motions, models, PTX
/// bundles, textures, archives or opaque bytes.
fn pac_file_def() -> Value {
    json!({
        "description": "A DMC3 archive (docs/formats.md): the slot table (0 = empty), the bytes between it and the first member, the members in offset order, each following the previous one.",
        "type": "object",
        "additionalProperties": false,
        "required": ["offsets", "gap", "members"],
        "properties": {
            "offsets": { "type": "array", "items": { "$ref": "#/$defs/hex32" } },
            "gap": {
                "description": "PRESERVED_UNDECODED: bytes between the slot table and the first member.",
                "$ref": "#/$defs/base64"
            },
            "members": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["offset", "slots", "kind"],
                    "properties": {
                        "offset": { "$ref": "#/$defs/hex32" },
                        "slots": { "type": "array", "items": { "$ref": "#/$defs/index" } },
                        "kind": {
                            "oneOf": [
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["mot"],
                                    "properties": { "mot": { "$ref": "#/$defs/motFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["model"],
                                    "properties": { "model": {
                                        "anyOf": [
                                            { "$ref": "#/$defs/modFile" },
                                            { "$ref": "#/$defs/scmFile" }
                                        ]
                                    } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["ptx"],
                                    "properties": { "ptx": { "$ref": "#/$defs/ptxFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["texture"],
                                    "properties": { "texture": { "$ref": "#/$defs/textureEntry" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["archive"],
                                    "properties": { "archive": { "$ref": "#/$defs/pacFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["shadow"],
                                    "properties": { "shadow": { "$ref": "#/$defs/shwFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["opaque"],
                                    "properties": { "opaque": { "$ref": "#/$defs/base64" } }
                                }
                            ]
                        }
                    }
                }
            }
        }
    })
}

/// The dump schema of a shadow model (see [`crate::native::dmc3::shadow`]).
fn shadow_defs(defs: &mut Map<String, Value>) {
    defs.insert("shwFile".into(), json!({
        "description": "A shadow model (SHW) read by the public layout: the 0x20-byte header, per hull its 0x40-byte record with its vertex count, four offsets and decoded triangle and adjacency lists, and every byte after the records (the lists live there; the decoded values must agree with it).",
        "type": "object",
        "additionalProperties": false,
        "required": ["header", "hulls", "body"],
        "properties": {
            "header": { "$ref": "#/$defs/base64" },
            "body": { "$ref": "#/$defs/base64" },
            "hulls": {
                "type": "array",
                "minItems": 1,
                "maxItems": 255,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["record", "vertices", "offsets", "triangles", "adjacency"],
                    "properties": {
                        "record": { "$ref": "#/$defs/base64" },
                        "vertices": { "type": "integer", "minimum": 0, "maximum": 65535 },
                        "offsets": { "type": "array", "minItems": 4, "maxItems": 4, "items": { "type": "integer", "minimum": 0 } },
                        "triangles": { "type": "array", "items": { "type": "array", "minItems": 3, "maxItems": 3, "items": { "type": "integer", "minimum": 0 } } },
                        "adjacency": { "type": "array", "items": { "type": "array", "minItems": 3, "maxItems": 3, "items": { "type": "integer", "minimum": 0, "maximum": 65535 } } }
                    }
                }
            }
        }
    }));
}

/// The dump schema of PTX bundles and gfxTexture entries.
fn texture_defs(defs: &mut Map<String, Value>) {
    defs.insert("textureEntry".into(), json!({
        "description": "One gfxTexture entry: descriptor, DDS header, the whole mip levels the header describes (top level first), the bytes after them (sector padding in a bundle).",
        "type": "object",
        "additionalProperties": false,
        "required": ["descriptor", "dds", "chain", "padding"],
        "properties": {
            "descriptor": { "$ref": "#/$defs/gfxDescriptor" },
            "dds": { "$ref": "#/$defs/ddsHeader" },
            "chain": {
                "description": "The mip chain's bytes (BC1: 8 bytes per 4x4 block, BC3: 16).",
                "$ref": "#/$defs/base64"
            },
            "padding": {
                "description": "PRESERVED_UNDECODED: bytes after the chain.",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    defs.insert("ptxFile".into(), json!({
        "description": "A PTX bundle: the texture count and the span of each texture in 0x800-byte sectors are written from the textures (each must write a whole number of sectors), so the dump holds the textures only.",
        "type": "object",
        "additionalProperties": false,
        "required": ["tablePadding", "textures", "tail"],
        "properties": {
            "tablePadding": {
                "description": "PRESERVED_UNDECODED: bytes from the span table to the first sector boundary.",
                "$ref": "#/$defs/base64"
            },
            "textures": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/textureEntry" } },
            "tail": {
                "description": "PRESERVED_UNDECODED: bytes after the last texture.",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    for (name, schema) in [
        (Descriptor::SCHEMA_NAME, Descriptor::schema()),
        (DdsHeader::SCHEMA_NAME, DdsHeader::schema()),
    ] {
        defs.insert(name.into(), schema);
    }
}

/// Pretty JSON that diffs well: keys in a fixed order (`rigtrip_dump`, `format`, `offset`, `nodes`,
/// `header`, `record`, `rels`, transform fields in disk order, then alphabetical), every small
/// record (nesting depth at most 2, no list longer than 16, no list of records) on one line, each
/// element of a list of records on its own line, long scalar lists 16 entries a line. The layout of
/// a record depends on nothing but that record, so an edit shows up as the lines it touched.
pub fn render(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0);
    out.push('\n');
    out
}

fn key_rank(k: &str) -> usize {
    const FIRST: [&str; 15] = [
        "rigtrip_dump",
        "format",
        "offset",
        "nodes",
        "header",
        "record",
        "rels",
        // A transform record in its on-disk order.
        "tx_bits",
        "ty_bits",
        "tz_bits",
        "magnitude_bits",
        "rx_bits",
        "ry_bits",
        "rz_bits",
        "w_bits",
    ];
    FIRST.iter().position(|f| *f == k).unwrap_or(FIRST.len())
}

fn sorted(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut v: Vec<_> = m.iter().collect();
    v.sort_by(|a, b| (key_rank(a.0), a.0).cmp(&(key_rank(b.0), b.0)));
    v
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// Nesting depth (a scalar is 0) and the longest list inside.
fn shape(v: &Value) -> (usize, usize) {
    match v {
        Value::Array(a) => a.iter().fold((1, a.len()), |(d, l), x| {
            let (xd, xl) = shape(x);
            (d.max(xd + 1), l.max(xl))
        }),
        Value::Object(m) => m.values().fold((1, 0), |(d, l), x| {
            let (xd, xl) = shape(x);
            (d.max(xd + 1), l.max(xl))
        }),
        _ => (0, 0),
    }
}

/// Whether some list inside `v` (or `v` itself) holds records or lists: such a list gets one
/// line per element, however small.
fn has_list_of_records(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().any(|x| !is_scalar(x)),
        Value::Object(m) => m.values().any(has_list_of_records),
        _ => false,
    }
}

fn is_inline(v: &Value) -> bool {
    let (depth, longest) = shape(v);
    depth <= 2 && longest <= ROW && !has_list_of_records(v)
}

fn scalar(out: &mut String, v: &Value) {
    // A JSON value always serialises (its keys are strings); asserted, never silently `null`.
    match serde_json::to_string(v) {
        Ok(text) => out.push_str(&text),
        Err(e) => debug_assert!(false, "a JSON value serialises: {e}"),
    }
}

fn write_inline(out: &mut String, v: &Value) {
    match v {
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_inline(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in sorted(m).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                scalar(out, &Value::String(k.clone()));
                out.push_str(": ");
                write_inline(out, x);
            }
            out.push('}');
        }
        _ => scalar(out, v),
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Writes `open`, then each item on its own line one level in, separated by commas, then
/// `close` on a line of its own at `level`.
fn block<T>(
    out: &mut String,
    level: usize,
    (open, close): (char, char),
    items: &[T],
    mut item: impl FnMut(&mut String, &T),
) {
    out.push(open);
    out.push('\n');
    for (i, x) in items.iter().enumerate() {
        indent(out, level + 1);
        item(out, x);
        if i + 1 < items.len() {
            out.push(',');
        }
        out.push('\n');
    }
    indent(out, level);
    out.push(close);
}

fn write_value(out: &mut String, v: &Value, level: usize) {
    if is_inline(v) {
        return write_inline(out, v);
    }
    match v {
        Value::Array(a) if a.iter().all(is_scalar) => {
            let rows: Vec<&[Value]> = a.chunks(ROW).collect();
            block(out, level, ('[', ']'), &rows, |out, row| {
                for (i, x) in row.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    scalar(out, x);
                }
            });
        }
        Value::Array(a) => block(out, level, ('[', ']'), a, |out, x| {
            write_value(out, x, level + 1)
        }),
        Value::Object(m) => block(out, level, ('{', '}'), &sorted(m), |out, (k, x)| {
            scalar(out, &Value::String((*k).clone()));
            out.push_str(": ");
            write_value(out, x, level + 1);
        }),
        _ => scalar(out, v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn render_keeps_small_records_on_one_line() {
        let v = json!({
            "file": {"parts": [{"b": 2, "a": [1, 2, 3]}, {"b": 3, "a": [4, 5, 6]}],
                     "list": (0..20).collect::<Vec<u32>>()},
            "format": "hie",
            "rigtrip_dump": 1
        });
        let text = render(&v);
        assert_eq!(
            text,
            "{\n  \"rigtrip_dump\": 1,\n  \"format\": \"hie\",\n  \"file\": {\n    \"list\": [\n      \
             0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,\n      16, 17, 18, 19\n    ],\n    \
             \"parts\": [\n      {\"a\": [1, 2, 3], \"b\": 2},\n      {\"a\": [4, 5, 6], \"b\": 3}\n    \
             ]\n  }\n}\n"
        );
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    }

    #[test]
    fn pointers_are_escaped() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        let e = invalid("", "x");
        assert_eq!(e.to_string(), "(document): x");
        assert_eq!(e.pointer(), "");
    }
}
