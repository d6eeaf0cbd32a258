//! Reading the input glTF defensively, stopping at the first problem: the GLB container (its
//! chunks read by [`crate::gltf::glb`]), the buffers, accessors (with sparse substitution and
//! normalised integers) and the node hierarchy. Every offset and count is
//! checked against the data it points into; nothing here can panic on file content.

use crate::gltf::DataError;
use std::path::Path;

use ::gltf_json as json;
use base64::Engine as _;
use json::accessor::ComponentType;
use json::mesh::Semantic;
use json::validation::Checked;

use super::GaitError;
use crate::bytes::{Bytes, OutOfBounds};
use crate::gltf::glb::{self, Step};
use crate::gltf::read::component;
use crate::gltf::read::uri::percent_decode;

/// The input as the gait tools need it.
#[derive(Debug)]
pub(crate) struct Doc {
    /// The typed JSON (deserialised by the `gltf` crate).
    pub root: json::Root,
    /// The raw JSON text, for edits that must keep every unknown field.
    pub json: Vec<u8>,
    /// Each buffer's bytes, exactly `byteLength` long.
    pub buffers: Vec<Vec<u8>>,
    /// What the `gltf` crate's validation objected to, when it did (we read defensively anyway).
    pub validation: Option<String>,
}

/// Splits a GLB into its JSON chunk and optional BIN chunk; plain JSON comes back whole.
pub(crate) fn split(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), GaitError> {
    if !bytes.starts_with(glb::MAGIC) {
        return Ok((bytes, None));
    }
    let glb = |offset: u64, problem: String| GaitError::Glb { offset, problem };
    // A read past the end, in the words of `crate::bytes` (what, where, how long, of how much).
    let oob = |what: &str, offset: u64, len: u64, file_len: u64| {
        let e = OutOfBounds {
            what: what.into(),
            offset,
            len,
            file_len,
        };
        glb(offset, e.to_string())
    };
    let header = glb::header(bytes);
    let file_len = bytes.len() as u64;
    let version = header
        .version
        .ok_or_else(|| oob("GLB version", 4, 4, file_len))?;
    if version != 2 {
        return Err(glb(4, format!("version {version}, only 2 is glTF 2.0")));
    }
    let total = header
        .length
        .ok_or_else(|| oob("GLB length", 8, 4, file_len))?;
    let data = bytes.get(..total as usize).ok_or_else(|| {
        glb(
            8,
            format!("declares {total} bytes, the file has {}", bytes.len()),
        )
    })?;
    let total = u64::from(total);
    // A cut chunk header: its length field, or its type field, is what runs past the end.
    let cut = |at: usize, first: bool| {
        let at = at as u64;
        let (length, kind) = if first {
            ("JSON chunk length", "JSON chunk type")
        } else {
            ("chunk length", "chunk type")
        };
        if total.saturating_sub(at) < 4 {
            oob(length, at, 4, total)
        } else {
            oob(kind, at + 4, 4, total)
        }
    };
    let mut steps = glb::chunks(data, false);
    let json = match steps.next() {
        None => return Err(cut(12, true)),
        Some(Step::Cut(at)) => return Err(cut(at, true)),
        Some(Step::Chunk(c)) if c.kind != glb::CHUNK_JSON => {
            return Err(glb(
                16,
                format!("first chunk type {:#x} is not JSON", c.kind),
            ))
        }
        Some(Step::Chunk(c)) if !c.complete() => {
            return Err(oob("JSON chunk", 20, c.length.into(), total))
        }
        Some(Step::Chunk(c)) => c.data,
    };
    let mut bin = None;
    // Chunks after the JSON: the first BIN chunk is buffer 0's data; unknown chunks are skipped
    // as the GLB specification asks.
    for step in steps {
        match step {
            Step::Cut(at) => return Err(cut(at, false)),
            Step::Chunk(c) if !c.complete() => {
                return Err(oob(
                    "chunk data",
                    c.offset as u64 + 8,
                    c.length.into(),
                    total,
                ))
            }
            Step::Chunk(c) if c.kind == glb::CHUNK_BIN && bin.is_none() => bin = Some(c.data),
            Step::Chunk(_) => {}
        }
    }
    Ok((json, bin))
}

/// Parses `bytes` (GLB or glTF JSON) and loads every buffer; external files are read relative
/// to `base_dir`.
pub(crate) fn load(bytes: &[u8], base_dir: Option<&Path>) -> Result<Doc, GaitError> {
    let (json_bytes, bin) = split(bytes)?;
    // The gltf crate would take JSON starting with the GLB magic for a nested GLB, and its GLB
    // header code does not survive every length; such text is not JSON anyway.
    if json_bytes.starts_with(glb::MAGIC) {
        return Err(GaitError::Json(
            "the JSON chunk starts with the GLB magic".into(),
        ));
    }
    let root = ::gltf::Gltf::from_slice_without_validation(json_bytes)
        .map_err(|e| GaitError::Json(e.to_string()))?
        .document
        .into_json();
    // The gltf crate's validation indexes the accessor list with every POSITION attribute
    // unchecked (gltf-json 1.4.1, mesh.rs); run it only when those indices are in range.
    let positions_ok = root.meshes.iter().flat_map(|m| &m.primitives).all(|p| {
        p.attributes
            .get(&Checked::Valid(Semantic::Positions))
            .is_none_or(|i| i.value() < root.accessors.len())
    });
    let validation = if positions_ok {
        match ::gltf::Document::from_json(root.clone()) {
            Ok(_) => None,
            Err(::gltf::Error::Validation(errors)) => {
                let first = errors
                    .first()
                    .map(|(path, e)| format!("{path}: {e}"))
                    .unwrap_or_default();
                Some(format!("{} problem(s), first {first}", errors.len()))
            }
            Err(e) => Some(e.to_string()),
        }
    } else {
        Some("a mesh primitive's POSITION accessor does not exist".into())
    };
    let mut buffers = Vec::with_capacity(root.buffers.len());
    for (i, buffer) in root.buffers.iter().enumerate() {
        let want = buffer.byte_length.0;
        let data: Vec<u8> = match (&buffer.uri, bin) {
            (None, Some(bin)) if i == 0 => bin.to_vec(),
            (None, _) => {
                return Err(GaitError::Data(DataError::Buffer {
                    buffer: i,
                    problem: "has no uri and is not the GLB binary chunk".into(),
                }))
            }
            (Some(uri), _) => read_uri(uri, base_dir)
                .map_err(|problem| GaitError::Data(DataError::Buffer { buffer: i, problem }))?,
        };
        if (data.len() as u64) < want {
            return Err(GaitError::Data(DataError::Buffer {
                buffer: i,
                problem: format!("byteLength {want}, but only {} bytes of data", data.len()),
            }));
        }
        let mut data = data;
        data.truncate(want as usize);
        buffers.push(data);
    }
    Ok(Doc {
        root,
        json: json_bytes.to_vec(),
        buffers,
        validation,
    })
}

/// The bytes a buffer or image URI names: a base64 data URI, or a file relative to `base_dir`.
pub(crate) fn read_uri(uri: &str, base_dir: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((_, data)) = rest.split_once(";base64,") else {
            return Err("data URI is not base64".into());
        };
        return base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| format!("data URI: {e}"));
    }
    let path = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("file:"))
        .unwrap_or(uri);
    if uri.contains(':') && !uri.starts_with("file:") {
        return Err(format!("unsupported URI scheme in '{uri}'"));
    }
    let decoded = percent_decode(path).ok_or_else(|| format!("bad percent-encoding in '{uri}'"))?;
    let Some(base) = base_dir else {
        return Err(format!(
            "'{uri}' is an external file and no base directory was given"
        ));
    };
    std::fs::read(base.join(&decoded)).map_err(|e| format!("'{decoded}': {e}"))
}

/// One component at `offset` as f32: floats as stored, normalised integers mapped as glTF says,
/// other integers converted; UNSIGNED_INT is never normalised. Computed in f64 and rounded once,
/// which gives the f32 that computing in f32 gives (f64 has more than twice f32's precision).
fn component(
    b: &Bytes,
    what: &str,
    offset: u64,
    c: ComponentType,
    normalized: bool,
) -> Result<f32, OutOfBounds> {
    let code = u64::from(c.as_gl_enum());
    let bytes = b.slice(what, offset, c.size() as u64)?;
    // The slice holds the whole component and the type is a glTF one: the read cannot fail.
    let x = component::read(bytes, 0, code);
    debug_assert!(x.is_some());
    let x = x.unwrap_or(0.0);
    Ok(if normalized && c != ComponentType::U32 {
        component::normalise(code, x)
    } else {
        x
    } as f32)
}

/// An accessor's elements, flattened (`count * components` values), and the component count.
pub(crate) struct Floats {
    /// Values, element after element.
    pub values: Vec<f32>,
    /// Components per element.
    pub width: usize,
}

impl Floats {
    /// Number of elements.
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.width).unwrap_or(0)
    }

    /// Element `i` (empty when out of range).
    pub fn element(&self, i: usize) -> &[f32] {
        let start = i.saturating_mul(self.width);
        self.values
            .get(start..start.saturating_add(self.width))
            .unwrap_or(&[])
    }
}

impl Doc {
    fn total_bytes(&self) -> u64 {
        self.buffers.iter().map(|b| b.len() as u64).sum::<u64>() + self.json.len() as u64
    }

    /// The bytes of buffer view `view` (its whole range), checked against its buffer.
    fn view(&self, accessor: usize, view: usize) -> Result<(&[u8], Option<u64>), GaitError> {
        let err = |problem: String| GaitError::Data(DataError::Accessor { accessor, problem });
        let v = self
            .root
            .buffer_views
            .get(view)
            .ok_or_else(|| err(format!("buffer view {view} does not exist")))?;
        let buf = self
            .buffers
            .get(v.buffer.value())
            .ok_or_else(|| err(format!("buffer {} does not exist", v.buffer.value())))?;
        let start = v.byte_offset.map(|o| o.0).unwrap_or(0);
        let bytes = Bytes::new(buf)
            .slice("buffer view", start, v.byte_length.0)
            .map_err(|e| err(format!("buffer view {view}: {e}")))?;
        Ok((bytes, v.byte_stride.map(|s| s.0 as u64)))
    }

    /// Reads accessor `index` as floats (any component type; integers normalised when the
    /// accessor says so), with sparse substitution applied.
    pub fn floats(&self, index: usize) -> Result<Floats, GaitError> {
        let err = |problem: String| {
            GaitError::Data(DataError::Accessor {
                accessor: index,
                problem,
            })
        };
        let a = self
            .root
            .accessors
            .get(index)
            .ok_or_else(|| err("does not exist".into()))?;
        let Checked::Valid(ct) = a.component_type else {
            return Err(err("invalid componentType".into()));
        };
        let Checked::Valid(ty) = a.type_ else {
            return Err(err("invalid type".into()));
        };
        let comp = ct.0;
        let width = ty.multiplicity();
        let csize = comp.size() as u64;
        let elem = csize * width as u64;
        let count = a.count.0;
        // A view-less accessor is all zeros; bound it by the input so a huge count cannot
        // allocate without limit.
        if count.saturating_mul(elem) > self.total_bytes().saturating_add(1 << 16) {
            return Err(err(format!(
                "count {count} is larger than the input could hold"
            )));
        }
        let n = count as usize * width;
        let mut values = vec![0f32; n];
        if let Some(view) = a.buffer_view {
            let (bytes, stride) = self.view(index, view.value())?;
            let stride = stride.unwrap_or(elem);
            let b = Bytes::new(bytes);
            let base = a.byte_offset.map(|o| o.0).unwrap_or(0);
            for i in 0..count {
                let at = i
                    .checked_mul(stride)
                    .and_then(|o| o.checked_add(base))
                    .ok_or_else(|| err("offset overflows".into()))?;
                b.check("accessor element", at, elem)
                    .map_err(|e| err(e.to_string()))?;
                for k in 0..width as u64 {
                    let v = component(&b, "accessor component", at + k * csize, comp, a.normalized)
                        .map_err(|e| err(e.to_string()))?;
                    if let Some(slot) = values.get_mut(i as usize * width + k as usize) {
                        *slot = v;
                    }
                }
            }
        }
        if let Some(sparse) = &a.sparse {
            let sc = sparse.count.0;
            if sc > count {
                return Err(err(format!("sparse count {sc} exceeds count {count}")));
            }
            let Checked::Valid(ict) = sparse.indices.component_type else {
                return Err(err("invalid sparse index componentType".into()));
            };
            let (ib, _) = self.view(index, sparse.indices.buffer_view.value())?;
            let (vb, _) = self.view(index, sparse.values.buffer_view.value())?;
            let ib = Bytes::new(ib);
            let vb = Bytes::new(vb);
            let isize = ict.0.size() as u64;
            for s in 0..sc {
                let at = sparse.indices.byte_offset.0 + s * isize;
                let target = component(&ib, "sparse index", at, ict.0, false)
                    .map_err(|e| err(e.to_string()))? as u64;
                if target >= count {
                    return Err(err(format!("sparse index {target} >= count {count}")));
                }
                for k in 0..width as u64 {
                    let at = sparse.values.byte_offset.0 + s * elem + k * csize;
                    let v = component(&vb, "sparse value", at, comp, a.normalized)
                        .map_err(|e| err(e.to_string()))?;
                    if let Some(slot) = values.get_mut(target as usize * width + k as usize) {
                        *slot = v;
                    }
                }
            }
        }
        Ok(Floats { values, width })
    }

    /// Each node's parent (`None` for roots and for nodes caught in a cycle).
    pub fn parents(&self) -> Vec<Option<usize>> {
        let n = self.root.nodes.len();
        let mut parent = vec![None; n];
        for (i, node) in self.root.nodes.iter().enumerate() {
            for c in node.children.iter().flatten() {
                if let Some(p) = parent.get_mut(c.value()) {
                    if p.is_none() && c.value() != i {
                        *p = Some(i);
                    }
                }
            }
        }
        parent
    }

    /// A node's depth below its scene root, with a guard against cycles.
    pub fn depth(parents: &[Option<usize>], node: usize) -> usize {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every normalised byte and short read through f64 gives the f32 that f32 arithmetic
    /// gives (what this reader computed before it used the shared component table).
    #[test]
    fn normalised_components_match_f32_arithmetic_exhaustively() {
        let check = |c: ComponentType, bytes: &[u8], direct: f32| {
            let got = component(&Bytes::new(bytes), "c", 0, c, true).unwrap();
            assert_eq!(got.to_bits(), direct.to_bits(), "{c:?} {bytes:?}");
        };
        for v in 0..=u8::MAX {
            check(ComponentType::U8, &[v], f32::from(v) / 255.0);
            check(
                ComponentType::I8,
                &[v],
                (f32::from(v as i8) / 127.0).max(-1.0),
            );
        }
        for v in 0..=u16::MAX {
            let b = v.to_le_bytes();
            check(ComponentType::U16, &b, f32::from(v) / 65535.0);
            check(
                ComponentType::I16,
                &b,
                (f32::from(v as i16) / 32767.0).max(-1.0),
            );
        }
        // UNSIGNED_INT is converted, never normalised; a float is taken as stored.
        let big = 0xFFFF_FFFFu32.to_le_bytes();
        check(ComponentType::U32, &big, 0xFFFF_FFFFu32 as f32);
        check(ComponentType::F32, &1.5f32.to_le_bytes(), 1.5);
        let cut = component(&Bytes::new(&[1, 2, 3]), "c", 0, ComponentType::F32, false);
        assert_eq!(
            cut.unwrap_err().to_string(),
            "c at offset 0x0 (4 bytes) runs past the end of the file (0x3 bytes)"
        );
    }
}
