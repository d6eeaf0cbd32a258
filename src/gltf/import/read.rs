//! Reading a glTF container without trusting it, stopping at the first problem: GLB (its chunks
//! read by [`crate::gltf::glb`]) or JSON text (node and scene extras kept as text, see
//! [`super::lazy`]), buffers through the shared loader under import's policy
//! ([`crate::gltf::read::buffers`]: the GLB binary chunk, `data:` URIs, files next to the
//! `.gltf`, Blender's "glTF Separate") worded here, and accessors as f64 components with every
//! offset, stride and count checked against the bytes present.

use crate::gltf::DataError;
use std::borrow::Cow;
use std::path::Path;

use serde_json::value::RawValue;
use serde_json::Value;

use super::ImportError;
use crate::gltf::glb::{self, Step};
use crate::gltf::read::accessor::AccError;
use crate::gltf::read::buffers::{self, BufferProblem, Policy, UriProblem};
use crate::gltf::read::component;
use crate::gltf::read::doc::{First, Problem};

/// A parsed document: the JSON root and every buffer's bytes, loaded up front (a GLB's binary
/// chunk borrowed, not copied).
#[derive(Debug)]
pub(crate) struct Doc<'a> {
    /// The JSON root (an object).
    pub json: Value,
    /// `buffers[i]`'s bytes (at least `byteLength` of them).
    pub buffers: Vec<Cow<'a, [u8]>>,
    /// `nodes[i].extras` as text, taken out of `json` (see [`super::lazy`]).
    pub node_extras: Vec<Option<&'a RawValue>>,
    /// `scenes[i].extras` as text, likewise.
    pub scene_extras: Vec<Option<&'a RawValue>>,
}

impl<'a> Doc<'a> {
    /// A document whose extras, if any, are still in `json`.
    pub fn new(json: Value, buffers: Vec<Cow<'a, [u8]>>) -> Doc<'a> {
        Doc {
            json,
            buffers,
            node_extras: Vec::new(),
            scene_extras: Vec::new(),
        }
    }

    /// Node `i`'s extras as text, when the parse kept them so.
    pub fn node_extras(&self, i: usize) -> Option<&'a RawValue> {
        self.node_extras.get(i).copied().flatten()
    }
}

/// Splits a GLB into its JSON chunk and its first BIN chunk.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), ImportError> {
    let bad = |problem: String| ImportError::Container(problem);
    let header = glb::header(bytes);
    let version = header
        .version
        .ok_or_else(|| bad("GLB shorter than its 12-byte header".into()))?;
    if version != 2 {
        return Err(bad(format!("GLB version {version}, expected 2")));
    }
    let length = header.length.unwrap_or(0) as usize;
    let data = bytes
        .get(..length)
        .filter(|_| length >= 12)
        .ok_or_else(|| {
            bad(format!(
                "GLB header says {length:#x} bytes, the file has {:#x}",
                bytes.len()
            ))
        })?;
    let mut json = None;
    let mut bin = None;
    for step in glb::chunks(data, false) {
        let chunk = match step {
            Step::Chunk(c) if c.complete() => c,
            Step::Chunk(c) => {
                return Err(bad(format!(
                    "GLB chunk at {:#x} ({:#x} bytes) runs past the end ({:#x})",
                    c.offset,
                    c.length,
                    data.len()
                )))
            }
            Step::Cut(at) => return Err(bad(format!("GLB chunk header at {at:#x} is cut off"))),
        };
        match chunk.kind {
            glb::CHUNK_JSON if json.is_none() => {
                if chunk.offset != 12 {
                    return Err(bad("the GLB's first chunk is not JSON".into()));
                }
                json = Some(chunk.data);
            }
            glb::CHUNK_BIN if bin.is_none() => bin = Some(chunk.data),
            _ => {}
        }
    }
    let json = json.ok_or_else(|| bad("GLB without a JSON chunk".into()))?;
    Ok((json, bin))
}

/// Parses a GLB or a `.gltf` JSON text and loads every buffer. External buffer files are looked
/// up relative to `base_dir`; only relative paths that stay inside it are followed.
pub(crate) fn parse<'a>(bytes: &'a [u8], base_dir: Option<&Path>) -> Result<Doc<'a>, ImportError> {
    let (json_bytes, bin) = if bytes.starts_with(glb::MAGIC) {
        split_glb(bytes)?
    } else {
        (bytes, None)
    };
    let json_bytes = json_bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(json_bytes);
    // UTF-8 checked in one pass up front: the string reader then skips its own per-string
    // checks (measured: ~8% off the import of our documents, which are mostly long strings).
    let text = std::str::from_utf8(json_bytes)
        .map_err(|e| ImportError::Container(format!("the glTF JSON is not UTF-8: {e}")))?;
    let super::lazy::Parsed {
        json,
        node_extras,
        scene_extras,
    } = super::lazy::parse(text)
        .map_err(|e| ImportError::Container(format!("not glTF JSON: {e}")))?;
    if !json.is_object() {
        return Err(ImportError::Container(
            "the glTF JSON is not an object".into(),
        ));
    }
    let root = json.as_object().map(Cow::Borrowed).unwrap_or_default();
    let buffers = buffers::load(&root, bin, base_dir, &Policy::IMPORT, &mut First(problem))?
        .into_iter()
        // The first sink stops at the first buffer that cannot be had: every one is here.
        .map(Option::unwrap_or_default)
        .collect();
    Ok(Doc {
        json,
        buffers,
        node_extras,
        scene_extras,
    })
}

/// A buffer the shared loader could not load, in import's words.
fn problem(p: Problem<'_>) -> ImportError {
    let (buffer, problem) = match p {
        // The loader reports buffers only; accessors are read below, in import's own words.
        Problem::Accessor(accessor, e) => {
            let problem = match e {
                AccError::Invalid(s) | AccError::Compressed(s) => s,
                AccError::NoBuffer => "its buffer cannot be loaded".into(),
            };
            return ImportError::Data(DataError::Accessor { accessor, problem });
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

/// Reads one component (its bytes, whether normalised).
type ReadComponent = fn(&[u8], bool) -> f64;

/// (size in bytes, reader) of a component type. A reader per type, so that the innermost loop
/// does not match on the type for every component. UNSIGNED_INT is never normalised here (glTF
/// allows normalisation only for bytes and shorts).
fn component(ct: u64) -> Option<(usize, ReadComponent)> {
    use component::{normalise, BYTE, SHORT, UNSIGNED_BYTE, UNSIGNED_SHORT};
    fn i8n(b: &[u8], n: bool) -> f64 {
        let v = f64::from(b[0] as i8);
        if n {
            normalise(BYTE, v)
        } else {
            v
        }
    }
    fn u8n(b: &[u8], n: bool) -> f64 {
        let v = f64::from(b[0]);
        if n {
            normalise(UNSIGNED_BYTE, v)
        } else {
            v
        }
    }
    fn i16n(b: &[u8], n: bool) -> f64 {
        let v = f64::from(i16::from_le_bytes([b[0], b[1]]));
        if n {
            normalise(SHORT, v)
        } else {
            v
        }
    }
    fn u16n(b: &[u8], n: bool) -> f64 {
        let v = f64::from(u16::from_le_bytes([b[0], b[1]]));
        if n {
            normalise(UNSIGNED_SHORT, v)
        } else {
            v
        }
    }
    fn u32n(b: &[u8], _: bool) -> f64 {
        f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn f32n(b: &[u8], _: bool) -> f64 {
        f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    let read: ReadComponent = match ct {
        BYTE => i8n,
        UNSIGNED_BYTE => u8n,
        SHORT => i16n,
        UNSIGNED_SHORT => u16n,
        component::UNSIGNED_INT => u32n,
        component::FLOAT => f32n,
        _ => return None,
    };
    Some((component::size(ct)?, read))
}

/// Where an accessor's elements lie in its buffer view: `count` elements of `elem` bytes,
/// `stride` apart, components of `size` bytes.
struct Grid {
    count: usize,
    stride: usize,
    elem: usize,
    size: usize,
}

impl Grid {
    /// Appends every component of every element that lies inside `region`, read by `read`
    /// (monomorphised per component type: this is the import's innermost loop).
    fn decode(&self, region: &[u8], out: &mut Vec<f64>, read: impl Fn(&[u8]) -> f64) {
        for i in 0..self.count {
            let start = i * self.stride;
            if let Some(e) = region.get(start..start + self.elem) {
                out.extend(e.chunks_exact(self.size).map(&read));
            }
        }
    }
}

impl Doc<'_> {
    fn array(&self, key: &str) -> &[Value] {
        self.json
            .get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Total bytes of all buffers: bounds accessors that have no buffer view.
    fn total_bytes(&self) -> usize {
        self.buffers.iter().map(|b| b.len()).sum()
    }

    /// The bytes of buffer view `v` (offset and length checked), and its stride.
    fn view(
        &self,
        v: usize,
        what: &dyn Fn(String) -> ImportError,
    ) -> Result<(&[u8], Option<usize>), ImportError> {
        let view = self
            .array("bufferViews")
            .get(v)
            .ok_or_else(|| what(format!("buffer view {v} does not exist")))?;
        let buffer = view
            .get("buffer")
            .and_then(Value::as_u64)
            .ok_or_else(|| what(format!("buffer view {v} has no valid `buffer`")))?;
        let data = usize::try_from(buffer)
            .ok()
            .and_then(|b| self.buffers.get(b))
            .ok_or_else(|| {
                what(format!(
                    "buffer view {v} names buffer {buffer}, which does not exist"
                ))
            })?;
        let offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
        let len = view
            .get("byteLength")
            .and_then(Value::as_u64)
            .ok_or_else(|| what(format!("buffer view {v} has no valid byteLength")))?;
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= data.len() as u64)
            .ok_or_else(|| {
                what(format!(
                    "buffer view {v} ({offset:#x}+{len:#x}) runs past buffer {buffer} ({:#x} bytes)",
                    data.len()
                ))
            })?;
        let stride = match view.get("byteStride") {
            None => None,
            Some(s) => Some(
                s.as_u64()
                    .filter(|&s| (4..=252).contains(&s))
                    .ok_or_else(|| what(format!("buffer view {v} has an invalid byteStride")))?
                    as usize,
            ),
        };
        Ok((&data[offset as usize..end as usize], stride))
    }

    /// Reads accessor `a` (sparse substitution included).
    pub(crate) fn accessor(&self, a: usize) -> Result<Elements, ImportError> {
        let err = |problem: String| {
            ImportError::Data(DataError::Accessor {
                accessor: a,
                problem,
            })
        };
        let acc = self
            .array("accessors")
            .get(a)
            .ok_or_else(|| err("does not exist".into()))?;
        let ct = acc
            .get("componentType")
            .and_then(Value::as_u64)
            .ok_or_else(|| err("no valid componentType".into()))?;
        let (size, read) = component(ct)
            .ok_or_else(|| err(format!("componentType {ct} is not a glTF component type")))?;
        let comps = acc
            .get("type")
            .and_then(Value::as_str)
            .and_then(component::count)
            .ok_or_else(|| err("no valid type".into()))?;
        let count = acc
            .get("count")
            .and_then(Value::as_u64)
            .ok_or_else(|| err("no valid count".into()))?;
        let normalized = acc
            .get("normalized")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let integer = ct != component::FLOAT && !normalized;
        let elem = size * comps;
        let count_usize = usize::try_from(count).map_err(|_| err("count too large".into()))?;
        let mut data: Vec<f64>;
        match acc.get("bufferView") {
            Some(v) => {
                let v = v
                    .as_u64()
                    .and_then(|v| usize::try_from(v).ok())
                    .ok_or_else(|| err("bufferView is not an index".into()))?;
                let (bytes, stride) = self.view(v, &err)?;
                let stride = stride.unwrap_or(elem);
                let offset = acc.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
                // The last element must end inside the view.
                let need = if count == 0 {
                    0
                } else {
                    (count - 1)
                        .checked_mul(stride as u64)
                        .and_then(|x| x.checked_add(offset))
                        .and_then(|x| x.checked_add(elem as u64))
                        .ok_or_else(|| err("extent overflows".into()))?
                };
                if need > bytes.len() as u64 {
                    return Err(err(format!(
                        "{count} elements of {elem} bytes (stride {stride}, offset {offset}) need {need:#x} bytes, the buffer view has {:#x}",
                        bytes.len()
                    )));
                }
                // `need` fits in the view, so every element below does.
                let region = bytes
                    .get(offset as usize..)
                    .ok_or_else(|| err("byteOffset is past the buffer view".into()))?;
                data = Vec::with_capacity(count_usize.saturating_mul(comps));
                let grid = Grid {
                    count: count_usize,
                    stride,
                    elem,
                    size,
                };
                if ct == component::FLOAT {
                    grid.decode(region, &mut data, |b| {
                        f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    });
                } else {
                    grid.decode(region, &mut data, |b| read(b, normalized));
                }
                if data.len() != count_usize * comps {
                    return Err(err("element out of range".into()));
                }
            }
            None => {
                // Zeros (only sparse values follow): bounded by the data present, counted in
                // the f64 values this allocates (at most 8 bytes a byte present, plus 64 KiB).
                if count_usize.saturating_mul(comps) > self.total_bytes().saturating_add(1 << 13) {
                    return Err(err(format!(
                        "{count} elements without a buffer view: more than the file could describe"
                    )));
                }
                data = vec![0.0; count_usize * comps];
            }
        }
        if let Some(sparse) = acc.get("sparse") {
            self.apply_sparse(
                sparse, &mut data, count, comps, size, read, normalized, &err,
            )?;
        }
        Ok(Elements {
            comps,
            data,
            integer,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_sparse(
        &self,
        sparse: &Value,
        data: &mut [f64],
        count: u64,
        comps: usize,
        size: usize,
        read: ReadComponent,
        normalized: bool,
        err: &dyn Fn(String) -> ImportError,
    ) -> Result<(), ImportError> {
        let n = sparse
            .get("count")
            .and_then(Value::as_u64)
            .filter(|&n| n <= count)
            .ok_or_else(|| err("sparse count missing or larger than the accessor".into()))?
            as usize;
        let idx = sparse
            .get("indices")
            .ok_or_else(|| err("sparse without indices".into()))?;
        let val = sparse
            .get("values")
            .ok_or_else(|| err("sparse without values".into()))?;
        let iv = idx
            .get("bufferView")
            .and_then(Value::as_u64)
            .ok_or_else(|| err("sparse indices without bufferView".into()))?
            as usize;
        let ict = idx
            .get("componentType")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let (isize_, iread) = match component(ict) {
            Some(c) if component::is_index(ict) => c,
            _ => {
                return Err(err(format!(
                    "sparse index componentType {ict} is not unsigned"
                )))
            }
        };
        let (ibytes, _) = self.view(iv, err)?;
        let ioff = idx.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let vv = val
            .get("bufferView")
            .and_then(Value::as_u64)
            .ok_or_else(|| err("sparse values without bufferView".into()))?
            as usize;
        let (vbytes, _) = self.view(vv, err)?;
        let voff = val.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        for s in 0..n {
            let at = ioff.saturating_add(s.saturating_mul(isize_));
            let ib = ibytes
                .get(at..at.saturating_add(isize_))
                .ok_or_else(|| err(format!("sparse index {s} out of its buffer view")))?;
            let target = iread(ib, false) as u64;
            if target >= count {
                return Err(err(format!("sparse index {target} >= count {count}")));
            }
            for c in 0..comps {
                let at = voff.saturating_add((s * comps + c).saturating_mul(size));
                let vb = vbytes
                    .get(at..at.saturating_add(size))
                    .ok_or_else(|| err(format!("sparse value {s} out of its buffer view")))?;
                if let Some(slot) = data.get_mut(target as usize * comps + c) {
                    *slot = read(vb, normalized);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(accessors: Value, buffer: Vec<u8>) -> Doc<'static> {
        let len = buffer.len();
        Doc::new(
            serde_json::json!({
                "accessors": accessors,
                "bufferViews": [{"buffer": 0, "byteLength": len, "byteStride": 8}],
                "buffers": [{"byteLength": len}],
            }),
            vec![Cow::Owned(buffer)],
        )
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
        assert_eq!(d.accessor(0).unwrap().data, vec![1.5, 0.25]);
        assert_eq!(d.accessor(1).unwrap().data, vec![-2.0, 8.0]);
        let n = d.accessor(2).unwrap();
        assert_eq!(n.data, vec![0.0, f64::from(0x3FC0u16) / 65535.0]);
        assert!(!n.integer);
        // The third element would end 8 bytes past the view.
        assert!(d
            .accessor(3)
            .unwrap_err()
            .to_string()
            .contains("need 0x18 bytes"));
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
        assert_eq!(d.accessor(0).unwrap().data.len(), 8208);
        assert!(d
            .accessor(1)
            .unwrap_err()
            .to_string()
            .contains("more than the file could describe"));
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
        assert!(
            matches!(parse(&g, None), Err(ImportError::Container(m)) if m.contains("runs past"))
        );
        assert!(parse(&g[..10], None).is_err());
    }
}
