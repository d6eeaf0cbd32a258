//! Reading the input glTF defensively, stopping at the first problem, into the shared document
//! model ([`rigtrip_gltf::doc`]): the GLB container (its chunks read by
//! [`rigtrip_gltf::glb`]) in gait's words, the buffers under gait's policy (`file:` URIs
//! followed), accessors through the shared checked reader, and the node hierarchy. Nothing here
//! can panic on file content.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use super::GaitError;
use rigtrip_gltf::buffers::{self, BufferProblem, Policy, UriProblem};
use rigtrip_gltf::doc::{Document, First, Problem};
use rigtrip_gltf::glb::{self, ChunkField, FirstChunk, GlbProblem, HeaderField, Parts};
use rigtrip_gltf::graph::{Parents, Quiet};
use rigtrip_gltf::DataError;
use rigtrip_gltf::OutOfBounds;

/// The input as the gait tools read it: the shared document model (JSON root, buffers each
/// exactly `byteLength` long, accessors).
pub(crate) type Doc<'a> = Document<'a>;

/// A GLB container problem in gait's words: where it is, and what is wrong there (a field or
/// chunk cut by the end in the words of [`OutOfBounds`]: what, where, how long, of how much).
fn glb_problem(p: GlbProblem) -> GaitError {
    let glb = |offset: u64, problem: String| GaitError::Glb { offset, problem };
    let oob = |what: &str, offset: u64, len: u32, file_len: usize| {
        let e = OutOfBounds {
            what: what.into(),
            offset,
            len: len.into(),
            file_len: file_len as u64,
        };
        glb(offset, e.to_string())
    };
    match p {
        GlbProblem::HeaderCut { field, file } => match field {
            HeaderField::Version => oob("GLB version", 4, 4, file),
            HeaderField::Length => oob("GLB length", 8, 4, file),
        },
        GlbProblem::Version(v) => glb(4, format!("version {v}, only 2 is glTF 2.0")),
        GlbProblem::Length { declared, file } => {
            glb(8, format!("declares {declared} bytes, the file has {file}"))
        }
        GlbProblem::ChunkCut {
            offset,
            field,
            first,
            end,
        } => {
            let offset = offset as u64;
            match (field, first) {
                (ChunkField::Length, true) => oob("JSON chunk length", offset, 4, end),
                (ChunkField::Length, false) => oob("chunk length", offset, 4, end),
                (ChunkField::Type, true) => oob("JSON chunk type", offset + 4, 4, end),
                (ChunkField::Type, false) => oob("chunk type", offset + 4, 4, end),
            }
        }
        GlbProblem::ChunkPastEnd {
            offset,
            length,
            first,
            end,
            ..
        } => {
            let what = if first { "JSON chunk" } else { "chunk data" };
            oob(what, offset as u64 + 8, length, end)
        }
        // The type field of the first chunk.
        GlbProblem::FirstNotJson { kind, .. } => {
            glb(16, format!("first chunk type {kind:#x} is not JSON"))
        }
        // Not under `FirstChunk::MustBeJson`, which finds a cut first chunk header instead.
        GlbProblem::NoJson => glb(12, "no JSON chunk".into()),
    }
}

/// A URI problem in gait's words.
pub(crate) fn uri_problem(uri: &str, p: UriProblem) -> String {
    match p {
        UriProblem::DataNoComma | UriProblem::DataNotBase64 => "data URI is not base64".into(),
        UriProblem::Base64(e) => format!("data URI: {e}"),
        UriProblem::Remote | UriProblem::Scheme => format!("unsupported URI scheme in '{uri}'"),
        UriProblem::Percent => format!("bad percent-encoding in '{uri}'"),
        UriProblem::Leaves(name) => format!("'{name}' leaves the glTF's folder"),
        UriProblem::NoBaseDir(_) => {
            format!("'{uri}' is an external file and no base directory was given")
        }
        UriProblem::Io(name, _, e) => format!("'{name}': {e}"),
        UriProblem::Size(path, size, _) => format!("'{}' holds {size} bytes", path.display()),
    }
}

/// Gait's sink: the first problem stops the reading, as a [`GaitError`].
fn stop(p: Problem<'_>) -> GaitError {
    GaitError::Data(match p {
        Problem::Node(p) => {
            let (node, words) = p.words();
            return GaitError::Json(format!("node {node}: {words}"));
        }
        Problem::Buffer(buffer, p) => DataError::Buffer {
            buffer,
            problem: match p {
                BufferProblem::NotArray => "`buffers` is not an array".into(),
                BufferProblem::NoByteLength => "no valid byteLength".into(),
                BufferProblem::NoUri => "has no uri and is not the GLB binary chunk".into(),
                BufferProblem::UriNotString => "uri is not a string".into(),
                BufferProblem::Uri(uri, u) => uri_problem(uri, u),
                BufferProblem::Short(want, len) => {
                    format!("byteLength {want}, but only {len} bytes of data")
                }
            },
        },
        Problem::Accessor(accessor, e) => DataError::Accessor {
            accessor,
            problem: e.words(accessor),
        },
    })
}

/// Parses `bytes` (GLB or glTF JSON) and loads every buffer; external files are read relative
/// to `base_dir`. With the document, its JSON text (for edits that must keep every unknown
/// field).
pub(crate) fn load<'a>(
    bytes: &'a [u8],
    base_dir: Option<&Path>,
) -> Result<(Doc<'a>, &'a [u8]), GaitError> {
    // Gait judges the first chunk before anything else: see `FirstChunk::MustBeJson`.
    let Parts { json, bin } = glb::split(bytes, FirstChunk::MustBeJson).map_err(glb_problem)?;
    let root = match serde_json::from_slice(json) {
        Ok(Value::Object(root)) => root,
        Ok(_) => return Err(GaitError::Json("the document is not a JSON object".into())),
        Err(e) => return Err(GaitError::Json(e.to_string())),
    };
    let mut doc = Document::load(
        Cow::Owned(root),
        bin,
        base_dir,
        &Policy::GAIT,
        &mut First(stop),
    )?;
    // A view-less accessor is all zeros; bound it by the input so a huge count cannot
    // allocate without limit.
    doc.limit = doc
        .buffer_bytes()
        .saturating_add(json.len())
        .saturating_add(1 << 16);
    Ok((doc, json))
}

/// What [`rigtrip_lint`] calls errors in the file: `N error(s), first CODE: MESSAGE`, or
/// `None` when it finds none. Gait stops only where its own reading cannot go on; the rest is a
/// note of its report.
pub(crate) fn lint_errors(bytes: &[u8], base_dir: Option<&Path>) -> Option<String> {
    let report = rigtrip_lint::lint_slice(bytes, "", base_dir);
    let first = report
        .findings
        .iter()
        .find(|f| f.severity == rigtrip_lint::Severity::Error)?;
    Some(format!(
        "{} error(s), first {}: {}",
        report.errors, first.code, first.message
    ))
}

/// The bytes a buffer or image URI names: a base64 data URI, or a file relative to `base_dir`.
pub(crate) fn read_uri(uri: &str, base_dir: Option<&Path>) -> Result<Vec<u8>, UriProblem> {
    buffers::fetch(uri, base_dir, 0, &Policy::GAIT)
}

/// An accessor's elements, flattened (`count * width` values), each rounded to f32 as gait
/// has always read them.
#[derive(Debug)]
pub(crate) struct Floats {
    /// Values, element after element.
    pub values: Vec<f64>,
    /// Components per element.
    pub width: usize,
}

impl Floats {
    /// Number of elements.
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.width).unwrap_or(0)
    }
}

pub(crate) use rigtrip_gltf::json::index_at as index;

/// The name of element `i` of the top-level array `key`.
pub(crate) fn name(doc: &Doc, key: &str, i: usize) -> Option<String> {
    doc.array(key)
        .get(i)
        .and_then(|x| x.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Reads accessor `index` as numbers (any component type; integers normalised when the
/// accessor says so), with sparse substitution applied.
pub(crate) fn floats(doc: &Doc, index: usize) -> Result<Floats, GaitError> {
    let a = doc.resolve(index).map_err(|e| {
        GaitError::Data(DataError::Accessor {
            accessor: index,
            problem: e.words(index),
        })
    })?;
    let mut values = a.read_all();
    values.iter_mut().for_each(|x| *x = f64::from(*x as f32));
    Ok(Floats {
        values,
        width: a.comps,
    })
}

/// Each node's parent (the first that lists it; `None` for roots).
pub(crate) fn parents(doc: &Doc) -> Vec<Option<usize>> {
    let Ok(p) = Parents::of(doc.array("nodes"), &mut Quiet);
    p.0
}

/// A node's depth below its scene root, with a guard against cycles.
pub(crate) fn depth(parents: &[Option<usize>], node: usize) -> usize {
    let mut d = 0;
    let mut at = node;
    while let Some(Some(p)) = parents.get(at) {
        d += 1;
        at = *p;
        if d > parents.len() {
            break;
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every normalised byte and short read through the shared reader (f64, rounded once)
    /// gives the f32 that f32 arithmetic gives (what this reader computed on its own before).
    #[test]
    fn normalised_components_match_f32_arithmetic_exhaustively() {
        let mut bin: Vec<u8> = (0..=u8::MAX).collect();
        for v in 0..=u16::MAX {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        let data = rigtrip_gltf::b64::encode(&bin);
        let acc = |view: usize, ct: u32, count: usize| {
            serde_json::json!({"bufferView": view, "componentType": ct, "count": count,
                               "type": "SCALAR", "normalized": true})
        };
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{data}")}],
            "bufferViews": [{"buffer": 0, "byteLength": 256},
                            {"buffer": 0, "byteOffset": 256, "byteLength": 131072}],
            "accessors": [acc(0, 5121, 256), acc(0, 5120, 256), acc(1, 5123, 65536), acc(1, 5122, 65536)]
        })
        .to_string();
        let (doc, _) = load(json.as_bytes(), None).unwrap();
        let bits = |i: usize| -> Vec<u32> {
            let f = floats(&doc, i).unwrap();
            assert_eq!(f.width, 1);
            f.values.iter().map(|&x| (x as f32).to_bits()).collect()
        };
        let want = |f: &dyn Fn(u32) -> f32, n: u32| -> Vec<u32> {
            (0..n).map(|v| f(v).to_bits()).collect()
        };
        assert_eq!(bits(0), want(&|v| v as f32 / 255.0, 256));
        assert_eq!(
            bits(1),
            want(&|v| (f32::from(v as u8 as i8) / 127.0).max(-1.0), 256)
        );
        assert_eq!(bits(2), want(&|v| v as f32 / 65535.0, 65536));
        assert_eq!(
            bits(3),
            want(&|v| (f32::from(v as u16 as i16) / 32767.0).max(-1.0), 65536)
        );
        // Every value was f32 to begin with.
        assert!(floats(&doc, 2)
            .unwrap()
            .values
            .iter()
            .all(|&x| f64::from(x as f32) == x));
        assert_eq!(
            floats(&doc, 4).unwrap_err().to_string(),
            "accessor 4: does not exist"
        );
    }
}
