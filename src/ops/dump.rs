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
use serde_json::{Map, Value};

use crate::native::dmc3::motion::{Mot, MotHeader, TrackHead};
use crate::native::dmc3::pac::{MemberKind, Pac};
use crate::native::dmc3::shadow::Shw;
use crate::native::dmc3::texture::{Ptx, Texture};
use crate::native::dmc3::{
    self, BlockPart, ContainerKind, Dmc3Error, Dmc3File, Header, Label, LinkField, MeshRecord,
    ObjectRecord, Place, Problem, StreamKind,
};
use crate::native::hie::{self, ByteListPart, HieError, HieFile, WriteLabel};
use crate::native::record::CountsOf;
use crate::native::{Format, MotionFile, NativeFile};

pub use super::dump_schema::{extras_record_defs, schema};

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
    // A dump written before the container records named their fields reads as one written now.
    let file = &*match format {
        "pac" => dmc3::compat::upgrade_pac(file),
        "hie" | "mot" | "ptx" | "tm2" => std::borrow::Cow::Borrowed(file),
        _ => dmc3::compat::upgrade_file(file),
    };
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
            // Its grammar is shown for reading: the lines are what is written.
            MemberKind::Cloth(clt) => {
                let shown = &kind["cloth"]["grammar"];
                let read = serde_json::to_value(clt.grammar()).unwrap_or_default();
                if !shown.is_null() && *shown != read {
                    return Err(DumpError::Write {
                        pointer: ptr("cloth/grammar"),
                        problem: "does not match the lines (cloth text is written from its lines and tail; the grammar only shows how the parser reads them: edit the lines)".into(),
                    });
                }
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
        Label::Workspace { object, mesh: m } => format!("{}/workspace", mesh(object, m)),
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
        (Place::Is(label @ Label::Workspace { .. }), problem) => unwritable(
            dmc3_pointer(label),
            match problem {
                Problem::WorkspaceLength { len, needed } => format!(
                    "carries {len} bytes but the mesh's vertex count needs {needed} (or write \"fill\")"
                ),
                other => other.to_string(),
            },
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
