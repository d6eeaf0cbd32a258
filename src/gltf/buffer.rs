//! Building buffer 0: one buffer view per accessor, every view 4-byte aligned, vertex and index
//! views with their targets (the validator hints otherwise), inverse bind matrices without one.

use ::gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::Target;
use json::validation::{Checked, USize64};
use json::{Accessor, Index, Root};
use serde_json::Value;

/// Accumulates binary data and the JSON objects describing it.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    /// The JSON document being built.
    pub root: Root,
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
}

/// Each component's minimum and maximum over `data`, as the JSON numbers an accessor's `min` and
/// `max` hold (f32 -> f64 is exact, so they equal the stored floats).
pub(crate) fn min_max<const N: usize>(data: &[[f32; N]]) -> (Value, Value) {
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for e in data {
        for i in 0..N {
            lo[i] = lo[i].min(e[i]);
            hi[i] = hi[i].max(e[i]);
        }
    }
    let to_json = |a: [f32; N]| Value::from(a.iter().map(|&x| f64::from(x)).collect::<Vec<_>>());
    (to_json(lo), to_json(hi))
}

impl Builder {
    fn align(&mut self) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
    }

    /// Aligns the buffer, reserves `len` more bytes and returns where they start: the caller
    /// appends exactly the view's bytes, then calls [`Builder::accessor`] with that start.
    fn begin(&mut self, len: usize) -> usize {
        self.align();
        self.bin.reserve(len);
        self.bin.len()
    }

    /// Appends every item of `items` as the `W` bytes `bytes` gives for it.
    fn put<const W: usize, T: Copy>(&mut self, items: &[T], bytes: impl Fn(T) -> [u8; W]) {
        let start = self.bin.len();
        self.bin.resize(start + items.len() * W, 0);
        if let Some(dst) = self.bin.get_mut(start..) {
            let (chunks, _) = dst.as_chunks_mut::<W>();
            for (d, &x) in chunks.iter_mut().zip(items) {
                *d = bytes(x);
            }
        }
    }

    /// Declares the bytes appended since `offset` (see [`Builder::begin`]) as a new buffer view
    /// and returns an accessor over all of it.
    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        offset: usize,
        count: usize,
        component: ComponentType,
        type_: Type,
        target: Option<Target>,
        min_max: Option<(Value, Value)>,
        name: &str,
    ) -> Index<Accessor> {
        let len = self.bin.len().saturating_sub(offset);
        let view = self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(len as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        });
        let (min, max) = match min_max {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64(count as u64),
            component_type: Checked::Valid(GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(type_),
            min,
            max,
            name: if name.is_empty() {
                None
            } else {
                Some(name.to_string())
            },
            normalized: false,
            sparse: None,
        })
    }

    /// A FLOAT accessor of `N`-component elements.
    pub fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        target: Option<Target>,
        with_min_max: bool,
        name: &str,
    ) -> Index<Accessor> {
        let type_ = match N {
            2 => Type::Vec2,
            3 => Type::Vec3,
            4 => Type::Vec4,
            16 => Type::Mat4,
            _ => Type::Scalar,
        };
        let offset = self.begin(data.len() * N * 4);
        self.put(data.as_flattened(), f32::to_le_bytes);
        let min_max = with_min_max.then(|| min_max(data));
        self.accessor(
            offset,
            data.len(),
            ComponentType::F32,
            type_,
            target,
            min_max,
            name,
        )
    }

    /// A VEC4 joint-index accessor, UNSIGNED_BYTE when every index fits, else UNSIGNED_SHORT.
    pub fn joints(&mut self, data: &[[u16; 4]], wide: bool, name: &str) -> Index<Accessor> {
        let offset = self.begin(data.len() * if wide { 8 } else { 4 });
        let component = if wide {
            self.put(data.as_flattened(), u16::to_le_bytes);
            ComponentType::U16
        } else {
            self.put(data.as_flattened(), |v| [v as u8]);
            ComponentType::U8
        };
        self.accessor(
            offset,
            data.len(),
            component,
            Type::Vec4,
            Some(Target::ArrayBuffer),
            None,
            name,
        )
    }

    /// A SCALAR index accessor, UNSIGNED_SHORT when every index is below 65535 (the restart
    /// value is forbidden), else UNSIGNED_INT.
    pub fn indices(&mut self, tris: &[[u32; 3]], name: &str) -> Index<Accessor> {
        let max = tris.iter().flatten().copied().max().unwrap_or(0);
        let narrow = max < 0xFFFF;
        let width = if narrow { 2 } else { 4 };
        let offset = self.begin(tris.len() * 3 * width);
        let component = if narrow {
            self.put(tris.as_flattened(), |v| (v as u16).to_le_bytes());
            ComponentType::U16
        } else {
            self.put(tris.as_flattened(), u32::to_le_bytes);
            ComponentType::U32
        };
        self.accessor(
            offset,
            tris.len() * 3,
            component,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            None,
            name,
        )
    }

    /// Appends `bytes` as a buffer view of its own (no target: an image's bytes).
    pub fn view(&mut self, bytes: &[u8]) -> Index<json::buffer::View> {
        let offset = self.begin(bytes.len());
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: None,
        })
    }

    /// Pads the buffer to 4 bytes and declares buffer 0 when there is any data.
    pub fn finish(mut self) -> (Root, Vec<u8>) {
        self.align();
        if !self.bin.is_empty() {
            self.root.push(json::Buffer {
                byte_length: USize64(self.bin.len() as u64),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        (self.root, self.bin)
    }
}
