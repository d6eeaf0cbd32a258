//! Reading accessor data ourselves: every offset, stride and count checked against the buffer
//! view and the buffer before a single element is read; sparse substitution and the column
//! padding of small matrices included. Works on any document, valid or not (the `gltf` crate
//! reads no accessor without a buffer view, and the linter must see broken files).

use serde_json::{Map, Value};

use super::component::{self, FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT};
use super::Buffer;

/// Why an accessor cannot be read.
#[derive(Debug, Clone, PartialEq)]
pub enum AccError {
    /// The accessor (or its view, or sparse part) is malformed or out of bounds.
    Invalid(String),
    /// Its buffer could not be loaded (already reported).
    NoBuffer,
    /// Its data is compressed by an extension we do not decode.
    Compressed(String),
}

impl AccError {
    /// What is wrong, for a message that names accessor `i` already (`accessor 3: ...`).
    pub fn words(self, i: usize) -> String {
        match self {
            AccError::Invalid(m) | AccError::Compressed(m) => {
                let label = format!("accessor {i}");
                match m.strip_prefix(&label) {
                    Some(rest) => rest.trim_start_matches(':').trim_start().to_string(),
                    None => m,
                }
            }
            AccError::NoBuffer => "its buffer could not be loaded".into(),
        }
    }
}

/// A resolved accessor: layout checked, data slices in hand.
#[derive(Debug, Clone)]
pub struct Acc<'a> {
    /// Components per element.
    pub comps: usize,
    /// Component type code.
    pub ctype: u64,
    /// `type` (one of the seven glTF names).
    pub type_name: &'static str,
    /// Whether integer components are normalised to 0..1 / -1..1.
    pub normalized: bool,
    /// Element count.
    pub count: usize,
    rows: usize,
    csize: usize,
    /// Bytes from one column to the next (matrix columns of small components are padded).
    col_stride: usize,
    /// Bytes per element including column padding.
    elem: usize,
    stride: usize,
    /// Bytes from the first element to the end of the view; `None` for an all-zero accessor.
    data: Option<&'a [u8]>,
    sparse: Option<(Vec<usize>, &'a [u8])>,
}

/// What a message is about, formatted only when there is a message (a resolve that succeeds
/// allocates nothing for it).
#[derive(Clone, Copy)]
enum What {
    Accessor(usize),
    View(u64),
    Sparse(usize),
    SparseIndices(usize),
    SparseValues(usize),
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Accessor(i) => write!(f, "accessor {i}"),
            What::View(v) => write!(f, "buffer view {v}"),
            What::Sparse(i) => write!(f, "accessor {i} sparse"),
            What::SparseIndices(i) => write!(f, "accessor {i} sparse indices"),
            What::SparseValues(i) => write!(f, "accessor {i} sparse values"),
        }
    }
}

fn field_u64(o: &Map<String, Value>, key: &str, what: What) -> Result<Option<u64>, AccError> {
    match o.get(key) {
        None => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            AccError::Invalid(format!("{what}: `{key}` is not an unsigned integer"))
        }),
    }
}

fn required_u64(o: &Map<String, Value>, key: &str, what: What) -> Result<u64, AccError> {
    field_u64(o, key, what)?.ok_or_else(|| AccError::Invalid(format!("{what}: `{key}` is missing")))
}

fn to_usize(x: u64, what: What) -> Result<usize, AccError> {
    usize::try_from(x).map_err(|_| AccError::Invalid(format!("{what}: {x} is too large")))
}

/// A buffer view's bytes and stride.
fn view<'a>(
    root: &Map<String, Value>,
    buffers: &'a [Buffer<'a>],
    v: u64,
) -> Result<(&'a [u8], Option<usize>), AccError> {
    let what = What::View(v);
    let obj = root
        .get("bufferViews")
        .and_then(Value::as_array)
        .and_then(|a| a.get(usize::try_from(v).ok()?))
        .and_then(Value::as_object)
        .ok_or_else(|| AccError::Invalid(format!("{what} does not exist")))?;
    if let Some(ext) = obj.get("extensions").and_then(Value::as_object) {
        if let Some(k) = ext.keys().find(|k| k.contains("meshopt_compression")) {
            return Err(AccError::Compressed(format!("{what} is compressed ({k})")));
        }
    }
    let b = required_u64(obj, "buffer", what)?;
    let off = field_u64(obj, "byteOffset", what)?.unwrap_or(0);
    let len = required_u64(obj, "byteLength", what)?;
    let stride = field_u64(obj, "byteStride", what)?
        .map(|s| to_usize(s, what))
        .transpose()?;
    let data = match buffers.get(usize::try_from(b).unwrap_or(usize::MAX)) {
        None => {
            return Err(AccError::Invalid(format!(
                "{what}: buffer {b} does not exist"
            )))
        }
        Some(None) => return Err(AccError::NoBuffer),
        Some(Some(d)) => d.as_ref(),
    };
    let end = off.saturating_add(len);
    if end > data.len() as u64 {
        return Err(AccError::Invalid(format!(
            "{what} (offset {off}, {len} bytes) runs past the end of buffer {b} ({} bytes)",
            data.len()
        )));
    }
    Ok((data.get(off as usize..end as usize).unwrap_or(&[]), stride))
}

/// Checks accessor `index` against its view and buffer. `limit` bounds the elements of an
/// accessor without a buffer view (whose zeros would otherwise be allocated on trust).
pub fn resolve<'a>(
    root: &Map<String, Value>,
    buffers: &'a [Buffer<'a>],
    index: usize,
    limit: usize,
) -> Result<Acc<'a>, AccError> {
    let what = What::Accessor(index);
    let obj = root
        .get("accessors")
        .and_then(Value::as_array)
        .and_then(|a| a.get(index))
        .and_then(Value::as_object)
        .ok_or_else(|| AccError::Invalid(format!("{what} does not exist")))?;
    let count = to_usize(required_u64(obj, "count", what)?, what)?;
    let ctype = required_u64(obj, "componentType", what)?;
    let csize = component::size(ctype)
        .ok_or_else(|| AccError::Invalid(format!("{what}: unknown componentType {ctype}")))?;
    let written = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| AccError::Invalid(format!("{what}: `type` is missing")))?;
    let (type_name, rows, cols) = component::shape(written)
        .ok_or_else(|| AccError::Invalid(format!("{what}: unknown type {written:?}")))?;
    let normalized = obj
        .get("normalized")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let col_stride = if cols > 1 {
        (rows * csize).div_ceil(4) * 4
    } else {
        rows * csize
    };
    let elem = col_stride * cols;
    let off = to_usize(field_u64(obj, "byteOffset", what)?.unwrap_or(0), what)?;

    let (data, stride) = match field_u64(obj, "bufferView", what)? {
        None => {
            if count.saturating_mul(rows * cols) > limit {
                return Err(AccError::Invalid(format!(
                    "{what}: {count} elements without a buffer view is more than this file can hold"
                )));
            }
            (None, elem)
        }
        Some(v) => {
            let (bytes, stride) = view(root, buffers, v)?;
            let stride = stride.unwrap_or(elem);
            if stride < elem {
                return Err(AccError::Invalid(format!(
                    "{what}: byteStride {stride} of buffer view {v} is less than its element size {elem}"
                )));
            }
            if count > 0 {
                let need = (count as u128 - 1) * stride as u128 + elem as u128 + off as u128;
                if need > bytes.len() as u128 {
                    return Err(AccError::Invalid(format!(
                        "{what}: {count} elements of {elem} bytes (stride {stride}) at offset {off} need {need} bytes, buffer view {v} has {}",
                        bytes.len()
                    )));
                }
            }
            (Some(bytes.get(off..).unwrap_or(&[])), stride)
        }
    };

    let sparse = match obj.get("sparse") {
        None => None,
        Some(s) => Some(sparse(root, buffers, s, count, elem, index)?),
    };
    Ok(Acc {
        comps: rows * cols,
        ctype,
        type_name,
        normalized,
        count,
        rows,
        csize,
        col_stride,
        elem,
        stride,
        data,
        sparse,
    })
}

fn sparse<'a>(
    root: &Map<String, Value>,
    buffers: &'a [Buffer<'a>],
    s: &Value,
    count: usize,
    elem: usize,
    index: usize,
) -> Result<(Vec<usize>, &'a [u8]), AccError> {
    let what = What::Sparse(index);
    let s = s
        .as_object()
        .ok_or_else(|| AccError::Invalid(format!("{what} is not an object")))?;
    let n = to_usize(required_u64(s, "count", what)?, what)?;
    let part = |key: &str| {
        s.get(key)
            .and_then(Value::as_object)
            .ok_or_else(|| AccError::Invalid(format!("{what}: `{key}` is missing")))
    };
    let (idx, val) = (part("indices")?, part("values")?);
    let iw = What::SparseIndices(index);
    let ictype = required_u64(idx, "componentType", iw)?;
    let isize = match component::size(ictype) {
        Some(size) if component::is_index(ictype) => size,
        _ => {
            return Err(AccError::Invalid(format!(
                "{iw}: componentType {ictype} is not an unsigned integer type"
            )))
        }
    };
    let (ibytes, _) = view(root, buffers, required_u64(idx, "bufferView", iw)?)?;
    let ioff = to_usize(field_u64(idx, "byteOffset", iw)?.unwrap_or(0), iw)?;
    let ibytes = ibytes.get(ioff..).unwrap_or(&[]);
    if (n as u128) * (isize as u128) > ibytes.len() as u128 {
        return Err(AccError::Invalid(format!(
            "{iw}: {n} indices do not fit in their buffer view"
        )));
    }
    let vw = What::SparseValues(index);
    let (vbytes, _) = view(root, buffers, required_u64(val, "bufferView", vw)?)?;
    let voff = to_usize(field_u64(val, "byteOffset", vw)?.unwrap_or(0), vw)?;
    let vbytes = vbytes.get(voff..).unwrap_or(&[]);
    if (n as u128) * (elem as u128) > vbytes.len() as u128 {
        return Err(AccError::Invalid(format!(
            "{vw}: {n} values do not fit in their buffer view"
        )));
    }
    let mut indices = Vec::with_capacity(n);
    for k in 0..n {
        let i = component::read(ibytes, k * isize, ictype).unwrap_or(f64::MAX);
        if i >= count as f64 {
            return Err(AccError::Invalid(format!(
                "{iw}: index {k} is {i}, but the accessor has {count} elements"
            )));
        }
        indices.push(i as usize);
    }
    Ok((indices, vbytes))
}

impl Acc<'_> {
    fn normalise(&self, x: f64) -> f64 {
        if self.normalized {
            component::normalise(self.ctype, x)
        } else {
            x
        }
    }

    /// Element `i` into `out` (its first `comps` entries); false when `i` is out of range.
    pub fn get(&self, i: usize, out: &mut [f64]) -> bool {
        if i >= self.count || out.len() < self.comps {
            return false;
        }
        let from_sparse = self.sparse.as_ref().and_then(|(idx, vals)| {
            idx.iter()
                .rposition(|&x| x == i)
                .map(|k| (*vals, k * self.elem))
        });
        let (bytes, base) = match (from_sparse, self.data) {
            (Some(s), _) => s,
            (None, Some(d)) => (d, i * self.stride),
            (None, None) => {
                out.iter_mut().take(self.comps).for_each(|x| *x = 0.0);
                return true;
            }
        };
        self.decode(bytes, base, out);
        true
    }

    fn decode(&self, bytes: &[u8], base: usize, out: &mut [f64]) {
        let cols = self.comps / self.rows.max(1);
        for c in 0..cols {
            for r in 0..self.rows {
                let off = base + c * self.col_stride + r * self.csize;
                let x = component::read(bytes, off, self.ctype).unwrap_or(0.0);
                if let Some(o) = out.get_mut(c * self.rows + r) {
                    *o = self.normalise(x);
                }
            }
        }
    }

    /// Every element, flattened (`count * comps` values).
    pub fn read_all(&self) -> Vec<f64> {
        let n = self.count.saturating_mul(self.comps);
        let fast = match self.ctype {
            FLOAT => self.tight(n, |c: [u8; 4]| f64::from(f32::from_le_bytes(c))),
            UNSIGNED_BYTE => self.tight(n, |c: [u8; 1]| f64::from(c[0])),
            UNSIGNED_SHORT => self.tight(n, |c: [u8; 2]| f64::from(u16::from_le_bytes(c))),
            _ => None,
        };
        let mut v = fast.unwrap_or_else(|| {
            let mut v = vec![0.0; n];
            if let Some(d) = self.data {
                self.decode_all(d, &mut v);
            }
            v
        });
        if let Some((idx, vals)) = &self.sparse {
            for (k, &i) in idx.iter().enumerate() {
                if let Some(o) = v.get_mut(i * self.comps..(i + 1) * self.comps) {
                    self.decode(vals, k * self.elem, o);
                }
            }
        }
        v
    }

    /// [`Acc::read_all`]'s `n` values before sparse substitution, for components of `N` bytes
    /// that `dec` decodes, when the elements have no column padding and are not normalised:
    /// packed back to back, in one pass without zeroing first; strided, element by element (a
    /// short one at the end of the data reads as zeros, as [`Acc::decode`] does). `None` for
    /// any other layout.
    fn tight<const N: usize>(&self, n: usize, dec: impl Fn([u8; N]) -> f64) -> Option<Vec<f64>> {
        let d = self.data?;
        if self.normalized || self.elem != self.comps * N {
            return None;
        }
        let one = |c: &[u8]| <[u8; N]>::try_from(c).map_or(0.0, &dec);
        if self.stride == self.elem {
            if let Some(all) = d.get(..self.count.checked_mul(self.elem)?) {
                return Some(all.chunks_exact(N).map(one).collect());
            }
        }
        let mut v = vec![0.0; n];
        for (i, o) in v.chunks_mut(self.comps.max(1)).enumerate() {
            let b = i.checked_mul(self.stride);
            match b.and_then(|b| d.get(b..b.checked_add(self.elem)?)) {
                Some(s) => o
                    .iter_mut()
                    .zip(s.chunks_exact(N))
                    .for_each(|(o, c)| *o = one(c)),
                None => self.decode(d, i * self.stride, o),
            }
        }
        Some(v)
    }

    /// Whether `self` and `other` read as the same elements, judged by their bytes: the same
    /// component type, type, normalisation and count, no sparse substitution, and each
    /// element's bytes (column padding included) equal. `false` when unsure.
    pub fn same_elements(&self, other: &Acc) -> bool {
        if self.ctype != other.ctype
            || self.rows != other.rows
            || self.comps != other.comps
            || self.elem != other.elem
            || self.normalized != other.normalized
            || self.count != other.count
            || self.sparse.is_some()
            || other.sparse.is_some()
        {
            return false;
        }
        match (self.data, other.data) {
            (None, None) => true,
            (Some(a), Some(b)) if self.stride == self.elem && other.stride == other.elem => {
                let n = self.count.saturating_mul(self.elem);
                matches!((a.get(..n), b.get(..n)), (Some(x), Some(y)) if x == y)
            }
            (Some(a), Some(b)) => (0..self.count).all(|i| {
                let (s, t) = (
                    i.saturating_mul(self.stride),
                    i.saturating_mul(other.stride),
                );
                let x = a.get(s..s.saturating_add(self.elem));
                let y = b.get(t..t.saturating_add(self.elem));
                matches!((x, y), (Some(x), Some(y)) if x == y)
            }),
            _ => false,
        }
    }

    fn decode_all(&self, d: &[u8], v: &mut [f64]) {
        for (i, o) in v.chunks_mut(self.comps.max(1)).enumerate() {
            self.decode(d, i * self.stride, o);
        }
    }

    /// `MAT4 FLOAT`-style description for messages.
    pub fn describe(&self) -> String {
        let norm = if self.normalized { " normalized" } else { "" };
        format!("{} {}{norm}", self.type_name, component::name(self.ctype))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::borrow::Cow;

    fn root(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn strided_padded_and_sparse_reads() {
        // Two VEC2 UNSIGNED_SHORT elements with stride 8, then sparse replacing element 1.
        let mut bin = vec![1, 0, 2, 0, 0xAA, 0xAA, 0xAA, 0xAA, 3, 0, 4, 0];
        bin.extend_from_slice(&[1, 0, 0, 0]); // sparse index 1 (u32)
        bin.extend_from_slice(&[9, 0, 8, 0]); // sparse value
        let bufs = vec![Some(Cow::Owned(bin))];
        let r = root(json!({
            "bufferViews": [
                {"buffer": 0, "byteLength": 12, "byteStride": 8},
                {"buffer": 0, "byteOffset": 12, "byteLength": 8},
                {"buffer": 0, "byteLength": 12}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5123, "count": 2, "type": "VEC2"},
                {"bufferView": 0, "componentType": 5123, "count": 2, "type": "VEC2",
                 "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5125},
                            "values": {"bufferView": 1, "byteOffset": 4}}},
                {"bufferView": 0, "componentType": 5123, "count": 3, "type": "VEC2"},
                {"componentType": 5126, "count": 1000000000, "type": "MAT4"},
                {"bufferView": 2, "componentType": 5121, "count": 1, "type": "MAT3", "normalized": true}
            ]
        }));
        let a = resolve(&r, &bufs, 0, 100).unwrap();
        assert_eq!(a.read_all(), [1.0, 2.0, 3.0, 4.0]);
        let b = resolve(&r, &bufs, 1, 100).unwrap();
        assert_eq!(b.read_all(), [1.0, 2.0, 9.0, 8.0]);
        let mut e = [0.0; 2];
        assert!(b.get(1, &mut e));
        assert_eq!(e, [9.0, 8.0]);
        assert!(!b.get(2, &mut e));
        assert_eq!(
            resolve(&r, &bufs, 2, 100).unwrap_err(),
            AccError::Invalid(
                "accessor 2: 3 elements of 4 bytes (stride 8) at offset 0 need 20 bytes, buffer view 0 has 12"
                    .into()
            )
        );
        assert!(matches!(
            resolve(&r, &bufs, 3, 100),
            Err(AccError::Invalid(_))
        ));
        // MAT3 of bytes: columns padded to 4 bytes.
        let m = resolve(&r, &bufs, 4, 100).unwrap();
        let v = m.read_all();
        assert_eq!(v.len(), 9);
        assert_eq!(v[0], 1.0 / 255.0);
        assert_eq!(v[3], 0xAA as f64 / 255.0);
        assert_eq!(v[6], 3.0 / 255.0);
    }

    #[test]
    fn same_elements_compares_the_bytes_read_not_the_layout() {
        // Accessor 0: two VEC2 u16 elements strided 8; 1: the same packed; 2: one byte off;
        // 3: the same bytes normalised; 4: sparse over 1.
        let mut bin = vec![1, 0, 2, 0, 0xAA, 0xAA, 0xAA, 0xAA, 3, 0, 4, 0, 0, 0, 0, 0];
        bin.extend_from_slice(&[1, 0, 2, 0, 3, 0, 4, 0]);
        bin.extend_from_slice(&[1, 0, 2, 0, 3, 0, 5, 0]);
        bin.extend_from_slice(&[1, 0, 0, 0]);
        let bufs = vec![Some(Cow::Owned(bin))];
        let r = root(json!({
            "bufferViews": [
                {"buffer": 0, "byteLength": 16, "byteStride": 8},
                {"buffer": 0, "byteOffset": 16, "byteLength": 8},
                {"buffer": 0, "byteOffset": 24, "byteLength": 8},
                {"buffer": 0, "byteOffset": 32, "byteLength": 4}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5123, "count": 2, "type": "VEC2"},
                {"bufferView": 1, "componentType": 5123, "count": 2, "type": "VEC2"},
                {"bufferView": 2, "componentType": 5123, "count": 2, "type": "VEC2"},
                {"bufferView": 1, "componentType": 5123, "count": 2, "type": "VEC2", "normalized": true},
                {"bufferView": 1, "componentType": 5123, "count": 2, "type": "VEC2",
                 "sparse": {"count": 1, "indices": {"bufferView": 3, "componentType": 5125},
                            "values": {"bufferView": 1}}}
            ]
        }));
        let a = |i| resolve(&r, &bufs, i, 100).unwrap();
        assert!(a(0).same_elements(&a(1)));
        assert!(a(1).same_elements(&a(0)));
        assert_eq!(a(0).read_all(), a(1).read_all());
        assert!(!a(0).same_elements(&a(2)));
        assert!(!a(1).same_elements(&a(3)));
        assert!(!a(1).same_elements(&a(4)));
    }

    proptest::proptest! {
        /// The fast paths of `read_all` (whole elements of tightly packed floats, bytes and
        /// shorts) read what `get` reads component by component, for every layout.
        #[test]
        fn read_all_is_every_element_read_alone(
            ct in proptest::sample::select(vec![5120u64, 5121, 5122, 5123, 5125, 5126]),
            ty in proptest::sample::select(vec!["SCALAR", "VEC2", "VEC3", "VEC4", "MAT2"]),
            normalized in proptest::bool::ANY,
            count in 0usize..9,
            pad in 0usize..6,
            offset in 0usize..3,
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 400),
        ) {
            let csize = component::size(ct).unwrap();
            let comps = match ty { "SCALAR" => 1, "VEC2" => 2, "VEC3" => 3, _ => 4 };
            // MAT2 of bytes pads each column to 4 bytes.
            let elem = if ty == "MAT2" && csize == 1 { 8 } else { comps * csize };
            let stride = elem + pad;
            let normalized = normalized && !matches!(ct, 5125 | 5126);
            let r = root(json!({
                "bufferViews": [{"buffer": 0, "byteLength": 400, "byteStride": stride}],
                "accessors": [{"bufferView": 0, "byteOffset": offset * csize, "componentType": ct,
                               "count": count, "type": ty, "normalized": normalized}],
            }));
            let bufs = vec![Some(Cow::Owned(bytes))];
            let a = resolve(&r, &bufs, 0, 100).unwrap();
            let mut alone = Vec::new();
            let mut e = vec![0.0; comps];
            for i in 0..count {
                proptest::prop_assert!(a.get(i, &mut e));
                alone.extend_from_slice(&e);
            }
            let all: Vec<u64> = a.read_all().iter().map(|x| x.to_bits()).collect();
            let alone: Vec<u64> = alone.iter().map(|x| x.to_bits()).collect();
            proptest::prop_assert_eq!(all, alone);
        }
    }
}
