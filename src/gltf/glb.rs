//! The two containers: binary GLB (JSON chunk + BIN chunk) and a single `.gltf` JSON file with
//! the buffer embedded as a base64 data URI.

use ::gltf_json as json;
use base64::Engine as _;
use json::mesh::Semantic;
use json::validation::Checked;
use serde_json::Value;

use super::Exported;

const MAGIC: &[u8; 4] = b"glTF";
const VERSION: u32 = 2;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The document as a GLB: 12-byte header, JSON chunk padded with spaces, BIN chunk padded with
/// zeros (omitted when there is no binary data).
pub fn to_glb(e: &Exported) -> Vec<u8> {
    let bin = &e.bin;
    let bin_pad = bin.len().next_multiple_of(4) - bin.len();
    let bin_chunk = if bin.is_empty() {
        0
    } else {
        8 + bin.len() + bin_pad
    };
    // The JSON goes straight into the output after the two headers; its length is patched in
    // afterwards. A guess at its size saves most regrowth (the text is mostly extras).
    let guess = usize::try_from(json_len_guess(&e.root)).unwrap_or(0);
    let mut out = Vec::new();
    // A guess too large for memory only costs regrowth.
    let _ = out.try_reserve_exact(guess.saturating_add(20 + 3 + bin_chunk));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // total length, below
    out.extend_from_slice(&[0; 4]); // JSON chunk length, below
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    if serde_json::to_writer(&mut out, &e.root).is_err() {
        out.truncate(20);
    }
    while !out.len().is_multiple_of(4) {
        out.push(b' ');
    }
    let json_len = out.len() - 20;
    if !bin.is_empty() {
        out.reserve_exact(bin_chunk);
        out.extend_from_slice(&((bin.len() + bin_pad) as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(out.len() + bin_pad, 0);
    }
    // `export` refuses documents over 4 GiB, so these lengths fit.
    let total = out.len() as u32;
    if let Some(h) = out.get_mut(8..16) {
        h[..4].copy_from_slice(&total.to_le_bytes());
        h[4..].copy_from_slice(&(json_len as u32).to_le_bytes());
    }
    out
}

/// The length of `root` as compact JSON (what [`to_glb`] writes, before padding), counted without
/// keeping the text; 0 if it cannot be serialised, as [`to_glb`] then writes no JSON either.
pub(crate) fn json_len(root: &json::Root) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn write_all(&mut self, b: &[u8]) -> std::io::Result<()> {
            self.0 += b.len() as u64;
            Ok(())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    match serde_json::to_writer(&mut n, root) {
        Ok(()) => n.0,
        Err(_) => 0,
    }
}

/// An upper bound of [`json_len`] from object counts and string and extras lengths, without
/// serialising anything; `None` for a document with parts the bound does not model (the export
/// writes none of them). Every object is allowed far more than its keys, punctuation and
/// fixed-size numbers can take, every string six bytes per byte (`\u00XX`).
pub(crate) fn json_len_bound(root: &json::Root) -> Option<u64> {
    // Any object's keys, punctuation and fixed-size fields (16 floats of a matrix included) take
    // less than 1024 bytes, one entry of a list of indices or numbers less than 32, one byte of
    // a string at most 6 (`\u00XX`).
    json_size(root, 1024, 32, 6)
}

/// A guess at [`json_len`] for reserving memory: typical sizes instead of worst cases.
fn json_len_guess(root: &json::Root) -> u64 {
    json_size(root, 160, 6, 1).unwrap_or(0)
}

/// [`json_len_bound`] with `object` bytes per object, `item` per list entry and `chr` per byte of
/// a string.
fn json_size(root: &json::Root, object: u64, item: u64, chr: u64) -> Option<u64> {
    let text = |s: &Option<String>| s.as_ref().map_or(0, |s| chr * s.len() as u64);
    let extras = |e: &json::Extras| e.as_ref().map_or(0, |r| r.get().len() as u64);
    let numbers = |v: &Option<Value>| match v {
        None => Some(0),
        Some(Value::Array(a)) if a.iter().all(Value::is_number) => Some(item * a.len() as u64),
        Some(_) => None,
    };
    let r = root;
    if !(r.animations.is_empty()
        && r.cameras.is_empty()
        && r.images.is_empty()
        && r.materials.is_empty()
        && r.samplers.is_empty()
        && r.textures.is_empty()
        && r.extensions_used.is_empty()
        && r.extensions_required.is_empty()
        && r.extensions.is_none()
        && r.extras.is_none()
        && r.asset.extensions.is_none()
        && r.asset.extras.is_none())
    {
        return None;
    }
    let mut n = object
        + text(&r.asset.copyright)
        + text(&r.asset.generator)
        + text(&r.asset.min_version)
        + chr * r.asset.version.len() as u64;
    for x in &r.nodes {
        if x.extensions.is_some() {
            return None;
        }
        let list = |v: usize| item * v as u64;
        n += object
            + text(&x.name)
            + extras(&x.extras)
            + x.children.as_ref().map_or(0, |c| list(c.len()))
            + x.weights.as_ref().map_or(0, |w| list(w.len()));
    }
    for x in &r.scenes {
        if x.extensions.is_some() {
            return None;
        }
        n += object + text(&x.name) + extras(&x.extras) + item * x.nodes.len() as u64;
    }
    for x in &r.skins {
        if x.extensions.is_some() {
            return None;
        }
        n += object + text(&x.name) + extras(&x.extras) + item * x.joints.len() as u64;
    }
    for x in &r.meshes {
        if x.extensions.is_some() {
            return None;
        }
        n += object
            + text(&x.name)
            + extras(&x.extras)
            + x.weights.as_ref().map_or(0, |w| item * w.len() as u64);
        for p in &x.primitives {
            if p.extensions.is_some() || p.targets.is_some() {
                return None;
            }
            for k in p.attributes.keys() {
                // Named semantics ("TEXCOORD_n" at most); custom ones have any length.
                if matches!(k, Checked::Invalid | Checked::Valid(Semantic::Extras(_))) {
                    return None;
                }
            }
            n += object + extras(&p.extras) + item * p.attributes.len() as u64;
        }
    }
    for x in &r.accessors {
        if x.extensions.is_some() || x.sparse.is_some() {
            return None;
        }
        n += object + text(&x.name) + extras(&x.extras) + numbers(&x.min)? + numbers(&x.max)?;
    }
    for x in &r.buffer_views {
        if x.extensions.is_some() {
            return None;
        }
        n += object + text(&x.name) + extras(&x.extras);
    }
    for x in &r.buffers {
        if x.extensions.is_some() {
            return None;
        }
        n += object + text(&x.name) + text(&x.uri) + extras(&x.extras);
    }
    Some(n)
}

/// The document as one `.gltf` JSON file (pretty-printed), buffer 0 as a data URI.
pub fn to_gltf(e: &Exported) -> Vec<u8> {
    let mut root = e.root.clone();
    if let Some(buffer) = root.buffers.first_mut() {
        let data = base64::engine::general_purpose::STANDARD.encode(&e.bin);
        buffer.uri = Some(format!("data:application/octet-stream;base64,{data}"));
    }
    let mut out = serde_json::to_vec_pretty(&root).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gltf::ExportReport;

    fn doc(bin: Vec<u8>) -> Exported {
        let mut root = ::gltf_json::Root::default();
        root.asset.version = "2.0".into();
        if !bin.is_empty() {
            root.push(::gltf_json::Buffer {
                byte_length: ::gltf_json::validation::USize64(bin.len() as u64),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        Exported {
            root,
            bin,
            report: ExportReport::default(),
        }
    }

    #[test]
    fn glb_layout_exact() {
        let e = doc(vec![1, 2, 3, 4, 5, 6, 7, 8]);
        let g = to_glb(&e);
        let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":8}]}"#;
        let padded = json.len().div_ceil(4) * 4;
        assert_eq!(&g[0..4], b"glTF");
        assert_eq!(u32::from_le_bytes(g[4..8].try_into().unwrap()), 2);
        assert_eq!(
            u32::from_le_bytes(g[8..12].try_into().unwrap()) as usize,
            g.len()
        );
        assert_eq!(
            u32::from_le_bytes(g[12..16].try_into().unwrap()) as usize,
            padded
        );
        assert_eq!(&g[16..20], b"JSON");
        assert_eq!(&g[20..20 + json.len()], json);
        assert!(g[20 + json.len()..20 + padded].iter().all(|&c| c == b' '));
        let b = 20 + padded;
        assert_eq!(u32::from_le_bytes(g[b..b + 4].try_into().unwrap()), 8);
        assert_eq!(&g[b + 4..b + 8], b"BIN\0");
        assert_eq!(&g[b + 8..], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(g.len(), 20 + padded + 16);
    }

    #[test]
    fn glb_without_data_has_no_bin_chunk_and_gltf_embeds_base64() {
        let g = to_glb(&doc(Vec::new()));
        let json = br#"{"asset":{"version":"2.0"}}"#;
        assert_eq!(g.len(), 20 + json.len().div_ceil(4) * 4);
        let t = to_gltf(&doc(vec![0xFF, 0, 0, 1]));
        let v: serde_json::Value = serde_json::from_slice(&t).unwrap();
        assert_eq!(
            v["buffers"][0]["uri"],
            "data:application/octet-stream;base64,/wAAAQ=="
        );
        assert_eq!(v["buffers"][0]["byteLength"], 4);
    }

    #[test]
    fn json_len_bound_holds_for_exports() {
        use crate::gltf::{export, ExportOptions, Names};
        use crate::native::{Format, NativeFile};
        let mut checked = 0;
        for seed in 0..30 {
            let files = [
                (crate::synth::hie::random(seed), Some(Format::Hie)),
                (crate::synth::dmc3::random_mod(seed), None),
                (crate::synth::dmc3::random_scm(seed), None),
            ];
            for (data, format) in files {
                let Ok(native) = NativeFile::read(format, &data) else {
                    continue;
                };
                let rig = crate::rig::lift(native);
                // Names that JSON escapes at six bytes a byte, where there is one skeleton.
                let opts = ExportOptions {
                    names: (rig.skeletons.len() == 1).then(|| {
                        let n = rig.skeletons[0].joints.len();
                        Names::List((0..n).map(|k| "\u{1}".repeat(63 - k % 3)).collect())
                    }),
                    ..ExportOptions::default()
                };
                for opts in [ExportOptions::default(), opts] {
                    let Ok(e) = export(&rig, &opts) else {
                        continue;
                    };
                    let exact = json_len(&e.root);
                    let json = serde_json::to_vec(&e.root).unwrap();
                    assert_eq!(exact, json.len() as u64);
                    let bound = json_len_bound(&e.root).expect("export writes only modelled parts");
                    assert!(exact <= bound, "seed {seed}: {exact} > {bound}");
                    let g = to_glb(&e);
                    assert_eq!(&g[20..20 + json.len()], &json[..]);
                    checked += 1;
                }
            }
        }
        assert!(checked > 60, "{checked} exports checked");
    }

    #[test]
    fn json_len_bound_holds_for_worst_case_objects() {
        use ::gltf_json as json;
        use json::validation::USize64;
        use json::{Index, Root};
        let mut root = Root::default();
        let nasty = Some("\u{1}".repeat(200));
        root.asset.version = "2.0".into();
        root.asset.generator = nasty.clone();
        let big = -f32::MIN_POSITIVE * 1.234_567_9;
        let many: Vec<Index<json::Node>> = (0..50).map(|_| Index::new(u32::MAX)).collect();
        root.nodes.push(json::Node {
            camera: None,
            children: Some(many.clone()),
            extensions: None,
            extras: serde_json::value::to_raw_value(&nasty).ok(),
            matrix: Some([big; 16]),
            mesh: Some(Index::new(u32::MAX)),
            name: nasty.clone(),
            rotation: Some(json::scene::UnitQuaternion([big; 4])),
            scale: Some([big; 3]),
            translation: Some([big; 3]),
            skin: Some(Index::new(u32::MAX)),
            weights: Some(vec![big; 20]),
        });
        root.skins.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: Some(Index::new(u32::MAX)),
            joints: many.clone(),
            name: nasty.clone(),
            skeleton: Some(Index::new(u32::MAX)),
        });
        let worst = -2.225_073_858_507_201_4e-308_f64;
        root.accessors.push(json::Accessor {
            buffer_view: Some(Index::new(u32::MAX)),
            byte_offset: Some(USize64(u64::MAX)),
            count: USize64(u64::MAX),
            component_type: json::validation::Checked::Valid(json::accessor::GenericComponentType(
                json::accessor::ComponentType::U32,
            )),
            extensions: None,
            extras: None,
            type_: json::validation::Checked::Valid(json::accessor::Type::Mat4),
            min: Some(Value::from(vec![worst; 16])),
            max: Some(Value::from(vec![worst; 16])),
            name: nasty.clone(),
            normalized: true,
            sparse: None,
        });
        root.buffer_views.push(json::buffer::View {
            buffer: Index::new(u32::MAX),
            byte_length: USize64(u64::MAX),
            byte_offset: Some(USize64(u64::MAX)),
            byte_stride: Some(json::buffer::Stride(252)),
            name: nasty.clone(),
            target: Some(json::validation::Checked::Valid(
                json::buffer::Target::ElementArrayBuffer,
            )),
            extensions: None,
            extras: None,
        });
        root.buffers.push(json::Buffer {
            byte_length: USize64(u64::MAX),
            name: nasty.clone(),
            uri: nasty.clone(),
            extensions: None,
            extras: None,
        });
        let attributes = [
            json::mesh::Semantic::Positions,
            json::mesh::Semantic::Normals,
            json::mesh::Semantic::Tangents,
            json::mesh::Semantic::Colors(u32::MAX),
            json::mesh::Semantic::TexCoords(u32::MAX),
            json::mesh::Semantic::Joints(u32::MAX),
            json::mesh::Semantic::Weights(u32::MAX),
        ]
        .into_iter()
        .map(|k| (json::validation::Checked::Valid(k), Index::new(u32::MAX)))
        .collect();
        root.meshes.push(json::Mesh {
            extensions: None,
            extras: None,
            name: nasty.clone(),
            primitives: vec![json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(Index::new(u32::MAX)),
                material: None,
                mode: json::validation::Checked::Valid(json::mesh::Mode::TriangleFan),
                targets: None,
            }],
            weights: Some(vec![big; 20]),
        });
        root.scenes.push(json::Scene {
            extensions: None,
            extras: None,
            name: nasty,
            nodes: many,
        });
        root.scene = Some(Index::new(u32::MAX));
        let exact = json_len(&root);
        assert_eq!(exact, serde_json::to_vec(&root).unwrap().len() as u64);
        assert!(exact <= json_len_bound(&root).unwrap());
        // Parts the bound does not model make it decline.
        root.extensions_used.push("KHR_x".into());
        assert_eq!(json_len_bound(&root), None);
    }
}
