//! Reading a glTF container without trusting it, stopping at the first problem: GLB (its chunks
//! read by [`crate::gltf::glb`]) or JSON text (node and scene extras kept as text, see
//! [`crate::gltf::read::parse`]), buffers through the shared loader under import's policy
//! ([`crate::gltf::read::buffers`]: the GLB binary chunk, `data:` URIs, files next to the
//! `.gltf`, Blender's "glTF Separate") worded here, and accessors as f64 components through the
//! shared checked reader ([`crate::gltf::read::accessor`]).

use crate::gltf::DataError;
use std::borrow::Cow;
use std::path::Path;

use serde_json::{Map, Value};

use super::{ContainerProblem, ImportError};
use crate::gltf::glb::{self, FirstChunk, GlbProblem, HeaderField, Parts};
use crate::gltf::read::accessor::AccError;
use crate::gltf::read::buffers::{BufferProblem, Policy, UriProblem};
use crate::gltf::read::component;
use crate::gltf::read::doc::{Document, First, Problem};

/// The document import works on: the shared document model (the JSON root, the node and scene
/// extras the parse kept as text, every buffer's bytes loaded up front, a GLB's binary chunk
/// borrowed, not copied; never a `None` buffer here: import's loader stops at the first buffer
/// it cannot have), accessors without a view bounded by the bytes present plus 8 KiB.
pub(crate) type Doc<'a> = Document<'a>;

/// A document of the JSON object `root` (its extras, if any, still in it) and `buffers`.
pub(crate) fn document<'a>(root: Map<String, Value>, buffers: Vec<Cow<'a, [u8]>>) -> Doc<'a> {
    let mut doc = Document {
        root: Cow::Owned(root),
        node_extras: Vec::new(),
        scene_extras: Vec::new(),
        buffers: buffers.into_iter().map(Some).collect(),
        limit: 0,
    };
    doc.limit = view_less_limit(&doc);
    doc
}

/// A GLB container problem in import's words.
fn container(p: GlbProblem) -> ImportError {
    ImportError::Container(match p {
        GlbProblem::HeaderCut {
            field: HeaderField::Version,
            ..
        } => ContainerProblem::GlbShort,
        // A missing length reads as a length of 0.
        GlbProblem::HeaderCut { file, .. } => ContainerProblem::GlbLength { declared: 0, file },
        GlbProblem::Version(v) => ContainerProblem::GlbVersion(v),
        GlbProblem::Length { declared, file } => ContainerProblem::GlbLength {
            declared: declared as usize,
            file,
        },
        GlbProblem::ChunkCut { offset, .. } => ContainerProblem::ChunkCut(offset),
        GlbProblem::ChunkPastEnd {
            offset,
            length,
            end,
            ..
        } => ContainerProblem::ChunkPastEnd {
            offset,
            length,
            end,
        },
        GlbProblem::FirstNotJson { .. } => ContainerProblem::FirstNotJson,
        GlbProblem::NoJson => ContainerProblem::NoJson,
    })
}

/// Parses a GLB or a `.gltf` JSON text and loads every buffer. External buffer files are looked
/// up relative to `base_dir`; only relative paths that stay inside it are followed.
pub(crate) fn parse<'a>(bytes: &'a [u8], base_dir: Option<&Path>) -> Result<Doc<'a>, ImportError> {
    // Import walks the chunks in file order: see `FirstChunk::InFileOrder`.
    let Parts {
        json: json_bytes,
        bin,
    } = glb::split(bytes, FirstChunk::InFileOrder).map_err(container)?;
    let json_bytes = json_bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(json_bytes);
    // UTF-8 checked in one pass up front: the string reader then skips its own per-string
    // checks (measured: ~8% off the import of our documents, which are mostly long strings).
    let text = std::str::from_utf8(json_bytes)
        .map_err(|e| ImportError::Container(ContainerProblem::NotUtf8(e)))?;
    let crate::gltf::read::parse::Parsed {
        json,
        node_extras,
        scene_extras,
    } = crate::gltf::read::parse::parse(text)
        .map_err(|e| ImportError::Container(ContainerProblem::NotJson(e.to_string())))?;
    let Value::Object(root) = json else {
        return Err(ImportError::Container(ContainerProblem::NotObject));
    };
    let mut doc = Document::load(
        Cow::Owned(root),
        bin,
        base_dir,
        &Policy::IMPORT,
        &mut First(problem),
    )?;
    doc.limit = view_less_limit(&doc);
    doc.node_extras = node_extras;
    doc.scene_extras = scene_extras;
    Ok(doc)
}

/// Most components an accessor without a buffer view may have: its zeros are allocated as f64,
/// so at most 8 bytes a byte present, plus 8 KiB.
fn view_less_limit(doc: &Document) -> usize {
    doc.buffer_bytes().saturating_add(1 << 13)
}

/// A problem the shared document model reports (a buffer it could not load, an accessor it
/// cannot read, a broken node hierarchy), in import's words.
fn problem(p: Problem<'_>) -> ImportError {
    problem_in(p, &[])
}

/// [`problem`], naming a node by its entry in `nodes` (the document's node list).
pub(super) fn problem_in(p: Problem<'_>, nodes: &[Value]) -> ImportError {
    let (buffer, problem) = match p {
        Problem::Node(p) => {
            let (node, problem) = p.words();
            let name = nodes
                .get(node)
                .and_then(|n| n.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("");
            return ImportError::Node {
                node,
                name: name.to_string(),
                problem: super::NodeProblem::Hierarchy(problem),
            };
        }
        Problem::Accessor(accessor, e) => {
            return ImportError::Data(DataError::Accessor {
                accessor,
                problem: e.words(accessor),
            })
        }
        Problem::Buffer(i, b) => (
            i,
            match b {
                BufferProblem::NotArray => "`buffers` is not an array".to_string(),
                BufferProblem::NoByteLength => "no valid byteLength".into(),
                BufferProblem::NoUri => {
                    "has no URI and is not the binary chunk of a GLB (buffer 0 of a .glb)".into()
                }
                BufferProblem::UriNotString => "`uri` is not a string".into(),
                BufferProblem::Short(len, have) => {
                    format!("holds {have} bytes, but its byteLength is {len}")
                }
                BufferProblem::Uri(uri, u) => match u {
                    UriProblem::DataNoComma => "malformed data URI (no comma)".into(),
                    UriProblem::DataNotBase64 => "data URI is not base64".into(),
                    UriProblem::Base64(e) => format!("data URI: {e}"),
                    UriProblem::Percent => format!("malformed URI {uri:?}"),
                    UriProblem::Remote | UriProblem::Scheme => {
                        format!("URI {uri:?} is not a local file")
                    }
                    UriProblem::Leaves(_) => format!(
                        "URI {uri:?} leaves the glTF's folder; only files next to it are read"
                    ),
                    UriProblem::NoBaseDir(name) => format!(
                        "the data is in the separate file {name:?}, but no folder was given to find it in"
                    ),
                    UriProblem::Size(path, size, len) => format!(
                        "{} holds {size} bytes, but its byteLength is {len}",
                        path.display()
                    ),
                    UriProblem::Io(_, path, e) => format!("cannot read {}: {e}", path.display()),
                },
            },
        ),
    };
    ImportError::Data(DataError::Buffer { buffer, problem })
}

/// One accessor's elements as f64 components, `comps` per element.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Elements {
    /// Components per element (1 for SCALAR ... 16 for MAT4).
    pub comps: usize,
    /// `count * comps` values.
    pub data: Vec<f64>,
    /// Whether the components are integers (not normalised).
    pub integer: bool,
}

impl Elements {
    /// Element `i` (empty when out of range).
    pub fn get(&self, i: usize) -> &[f64] {
        let start = i.saturating_mul(self.comps);
        self.data
            .get(start..start.saturating_add(self.comps))
            .unwrap_or(&[])
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.comps).unwrap_or(0)
    }
}

/// Reads accessor `a` of `doc` through the shared checked reader (sparse substitution
/// included), as f64 components.
pub(crate) fn elements(doc: &Doc, a: usize) -> Result<Elements, ImportError> {
    let err = |e: AccError| {
        ImportError::Data(DataError::Accessor {
            accessor: a,
            problem: e.words(a),
        })
    };
    let acc = doc.resolve(a).map_err(err)?;
    Ok(Elements {
        comps: acc.comps,
        integer: acc.ctype != component::FLOAT && !acc.normalized,
        data: acc.read_all(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(accessors: Value, buffer: Vec<u8>) -> Doc<'static> {
        let len = buffer.len();
        let Value::Object(root) = serde_json::json!({
            "accessors": accessors,
            "bufferViews": [{"buffer": 0, "byteLength": len, "byteStride": 8}],
            "buffers": [{"byteLength": len}],
        }) else {
            unreachable!("an object literal")
        };
        document(root, vec![Cow::Owned(buffer)])
    }

    #[test]
    fn accessors_decode_strided_floats_and_normalised_integers() {
        let mut b = Vec::new();
        for (x, y) in [(1.5f32, -2.0f32), (0.25, 8.0)] {
            b.extend_from_slice(&x.to_le_bytes());
            b.extend_from_slice(&y.to_le_bytes());
        }
        let d = doc(
            serde_json::json!([
                {"bufferView": 0, "componentType": 5126, "type": "SCALAR", "count": 2},
                {"bufferView": 0, "byteOffset": 4, "componentType": 5126, "type": "SCALAR", "count": 2},
                {"bufferView": 0, "componentType": 5123, "normalized": true, "type": "VEC2", "count": 1},
                {"bufferView": 0, "byteOffset": 4, "componentType": 5126, "type": "SCALAR", "count": 3},
            ]),
            b,
        );
        assert_eq!(elements(&d, 0).unwrap().data, vec![1.5, 0.25]);
        assert_eq!(elements(&d, 1).unwrap().data, vec![-2.0, 8.0]);
        let n = elements(&d, 2).unwrap();
        assert_eq!(n.data, vec![0.0, f64::from(0x3FC0u16) / 65535.0]);
        assert!(!n.integer);
        // The third element would end 8 bytes past the view.
        assert_eq!(
            elements(&d, 3).unwrap_err().to_string(),
            "accessor 3: 3 elements of 4 bytes (stride 8) at offset 4 need 24 bytes, buffer view 0 has 16"
        );
    }

    #[test]
    fn accessors_without_a_view_allocate_by_the_data_present() {
        let d = doc(
            serde_json::json!([
                {"componentType": 5121, "type": "VEC4", "count": 2052},
                {"componentType": 5121, "type": "VEC4", "count": 2053},
            ]),
            vec![0; 16],
        );
        // 8,192 values (+ 16 for the bytes present) is the most a zero-filled accessor may hold.
        assert_eq!(elements(&d, 0).unwrap().data.len(), 8208);
        assert_eq!(
            elements(&d, 1).unwrap_err().to_string(),
            "accessor 1: 2053 elements without a buffer view is more than this file can hold"
        );
    }

    #[test]
    fn external_paths_stay_inside() {
        let dir = std::env::temp_dir();
        let err = |uri: &str, base: Option<&Path>| {
            let json = format!(r#"{{"buffers":[{{"uri":{uri:?},"byteLength":1}}]}}"#);
            parse(json.as_bytes(), base).unwrap_err().to_string()
        };
        assert_eq!(
            err("../x.bin", Some(&dir)),
            "buffer 0: URI \"../x.bin\" leaves the glTF's folder; only files next to it are read"
        );
        assert_eq!(
            err("/etc/passwd", Some(&dir)),
            "buffer 0: URI \"/etc/passwd\" leaves the glTF's folder; only files next to it are read"
        );
        assert_eq!(
            err("x.bin", None),
            "buffer 0: the data is in the separate file \"x.bin\", but no folder was given to find it in"
        );
        assert_eq!(
            err("http://h/x.bin", Some(&dir)),
            "buffer 0: URI \"http://h/x.bin\" is not a local file"
        );
    }

    #[test]
    fn glb_chunks_are_bounds_checked() {
        let mut g = glb::MAGIC.to_vec();
        g.extend_from_slice(&2u32.to_le_bytes());
        g.extend_from_slice(&40u32.to_le_bytes());
        g.extend_from_slice(&100u32.to_le_bytes());
        g.extend_from_slice(&glb::CHUNK_JSON.to_le_bytes());
        g.resize(40, b' ');
        assert!(matches!(
            parse(&g, None),
            Err(ImportError::Container(
                ContainerProblem::ChunkPastEnd { .. }
            ))
        ));
        assert!(parse(&g[..10], None).is_err());
    }
}
