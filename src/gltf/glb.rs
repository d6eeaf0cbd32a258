//! An exported document as a GLB or as an embedded `.gltf`, and its JSON length counted without
//! writing it. The container's bytes themselves are written and read in [`rigtrip_gltf::glb`]
//! (re-exported here for the converter's readers).

use ::gltf_json as json;
use json::mesh::Semantic;
use json::validation::Checked;
use serde_json::Value;

use super::Exported;
pub use rigtrip_gltf::glb::*;

/// The document as a GLB (see [`rigtrip_gltf::glb::write`]); an error only for a root holding invalid values
/// (`export` never makes one) or one over 4 GiB (`export` refuses those).
pub fn to_glb(e: &Exported) -> Result<Vec<u8>, GlbError> {
    // A guess at the JSON's size saves most regrowth (the text is mostly extras).
    let guess = usize::try_from(json_len_guess(&e.root)).unwrap_or(0);
    write(guess, |out| serde_json::to_writer(out, &e.root), &e.bin)
}

/// The length of `root` as compact JSON (what [`to_glb`] writes, before padding), counted without
/// keeping the text; 0 if it cannot be serialised (then [`to_glb`] refuses it).
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

/// Bytes charged per part of the JSON text: per object, per entry of a list of indices or
/// numbers, per byte of a string.
#[derive(Clone, Copy)]
struct Rates {
    object: u64,
    item: u64,
    chr: u64,
}

impl Rates {
    /// An optional string.
    fn text(self, s: &Option<String>) -> u64 {
        s.as_ref().map_or(0, |s| self.chr * s.len() as u64)
    }

    /// `n` list entries.
    fn list(self, n: usize) -> u64 {
        self.item * n as u64
    }

    /// An optional list of numbers (`min`, `max`); `None` for anything else.
    fn numbers(self, v: &Option<Value>) -> Option<u64> {
        match v {
            None => Some(0),
            Some(Value::Array(a)) if a.iter().all(Value::is_number) => Some(self.list(a.len())),
            Some(_) => None,
        }
    }
}

/// Extras, which are kept as their JSON text.
fn extras(e: &json::Extras) -> u64 {
    e.as_ref().map_or(0, |r| r.get().len() as u64)
}

/// [`json_len_bound`] with `object` bytes per object, `item` per list entry and `chr` per byte of
/// a string.
fn json_size(root: &json::Root, object: u64, item: u64, chr: u64) -> Option<u64> {
    let rates = Rates { object, item, chr };
    if !only_modelled_parts(root) {
        return None;
    }
    let a = &root.asset;
    let asset = object
        + rates.text(&a.copyright)
        + rates.text(&a.generator)
        + rates.text(&a.min_version)
        + chr * a.version.len() as u64;
    Some(
        asset
            + graph_size(root, rates)?
            + meshes_size(&root.meshes, rates)?
            + materials_size(&root.materials, rates)?
            + data_size(root, rates)?,
    )
}

/// Whether the root holds only parts [`json_size`] models: no animations, cameras, images,
/// samplers, textures, extensions, or root or asset extras.
fn only_modelled_parts(r: &json::Root) -> bool {
    r.animations.is_empty()
        && r.cameras.is_empty()
        && r.images.is_empty()
        && r.samplers.is_empty()
        && r.textures.is_empty()
        && r.extensions_used.is_empty()
        && r.extensions_required.is_empty()
        && r.extensions.is_none()
        && r.extras.is_none()
        && r.asset.extensions.is_none()
        && r.asset.extras.is_none()
}

/// Nodes, scenes and skins; `None` when one has extensions.
fn graph_size(r: &json::Root, rates: Rates) -> Option<u64> {
    let mut n = 0;
    for x in &r.nodes {
        if x.extensions.is_some() {
            return None;
        }
        n += rates.object
            + rates.text(&x.name)
            + extras(&x.extras)
            + x.children.as_ref().map_or(0, |c| rates.list(c.len()))
            + x.weights.as_ref().map_or(0, |w| rates.list(w.len()));
    }
    for x in &r.scenes {
        if x.extensions.is_some() {
            return None;
        }
        n += rates.object + rates.text(&x.name) + extras(&x.extras) + rates.list(x.nodes.len());
    }
    for x in &r.skins {
        if x.extensions.is_some() {
            return None;
        }
        n += rates.object + rates.text(&x.name) + extras(&x.extras) + rates.list(x.joints.len());
    }
    Some(n)
}

/// Meshes and their primitives; `None` for extensions, morph targets or custom attributes.
fn meshes_size(meshes: &[json::Mesh], rates: Rates) -> Option<u64> {
    let mut n = 0;
    for x in meshes {
        if x.extensions.is_some() {
            return None;
        }
        n += rates.object
            + rates.text(&x.name)
            + extras(&x.extras)
            + x.weights.as_ref().map_or(0, |w| rates.list(w.len()));
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
            n += rates.object + extras(&p.extras) + rates.list(p.attributes.len());
        }
    }
    Some(n)
}

/// Materials of fixed-size factors (what the export writes): two objects' worth each (the
/// material and its PBR block); `None` for textures or extensions, which are not modelled.
fn materials_size(materials: &[json::Material], rates: Rates) -> Option<u64> {
    let mut n = 0;
    for x in materials {
        let p = &x.pbr_metallic_roughness;
        if x.extensions.is_some()
            || p.extensions.is_some()
            || p.base_color_texture.is_some()
            || p.metallic_roughness_texture.is_some()
            || x.normal_texture.is_some()
            || x.occlusion_texture.is_some()
            || x.emissive_texture.is_some()
        {
            return None;
        }
        n += 2 * rates.object + rates.text(&x.name) + extras(&x.extras) + extras(&p.extras);
    }
    Some(n)
}

/// Accessors, buffer views and buffers; `None` for extensions or sparse accessors.
fn data_size(r: &json::Root, rates: Rates) -> Option<u64> {
    let mut n = 0;
    for x in &r.accessors {
        if x.extensions.is_some() || x.sparse.is_some() {
            return None;
        }
        n += rates.object
            + rates.text(&x.name)
            + extras(&x.extras)
            + rates.numbers(&x.min)?
            + rates.numbers(&x.max)?;
    }
    for x in &r.buffer_views {
        if x.extensions.is_some() {
            return None;
        }
        n += rates.object + rates.text(&x.name) + extras(&x.extras);
    }
    for x in &r.buffers {
        if x.extensions.is_some() {
            return None;
        }
        n += rates.object + rates.text(&x.name) + rates.text(&x.uri) + extras(&x.extras);
    }
    Some(n)
}

/// The document as one `.gltf` JSON file (pretty-printed), buffer 0 as a data URI; an error only
/// for a root holding invalid values (`export` never makes one).
pub fn to_gltf(e: &Exported) -> Result<Vec<u8>, GlbError> {
    let mut root = e.root.clone();
    if let Some(buffer) = root.buffers.first_mut() {
        let data = crate::bytes::b64::encode(&e.bin);
        buffer.uri = Some(format!("data:application/octet-stream;base64,{data}"));
    }
    let mut out = serde_json::to_vec_pretty(&root).map_err(GlbError::Json)?;
    out.push(b'\n');
    Ok(out)
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
        let g = to_glb(&e).unwrap();
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
        let g = to_glb(&doc(Vec::new())).unwrap();
        let json = br#"{"asset":{"version":"2.0"}}"#;
        assert_eq!(g.len(), 20 + json.len().div_ceil(4) * 4);
        let t = to_gltf(&doc(vec![0xFF, 0, 0, 1])).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&t).unwrap();
        assert_eq!(
            v["buffers"][0]["uri"],
            "data:application/octet-stream;base64,/wAAAQ=="
        );
        assert_eq!(v["buffers"][0]["byteLength"], 4);
    }

    /// A random document of the parts the export writes, built the way the export builds its
    /// buffer: names and extras with characters JSON escapes, hierarchies, skins, meshes.
    fn random_root(seed: u64) -> ::gltf_json::Root {
        use crate::gltf::buffer::Builder;
        use crate::synth::rng::Rng;
        use ::gltf_json as json;
        use json::buffer::Target;
        use json::Index;
        let mut rng = Rng::new(seed);
        let text = |rng: &mut Rng| -> String {
            let n = rng.index(70);
            (0..n)
                .map(|_| match rng.index(4) {
                    0 => '\u{1}',
                    1 => '"',
                    2 => char::from(b'a' + rng.index(26) as u8),
                    _ => 'é',
                })
                .collect()
        };
        let mut b = Builder::default();
        let nodes = 1 + rng.index(40);
        for i in 0..nodes {
            let extras = serde_json::json!({"rigtrip": {"index": i, "raw": text(&mut rng), "f": rng.unit()}});
            let children: Vec<Index<json::Node>> = (i + 1..nodes)
                .filter(|_| rng.chance(0.1))
                .map(|c| Index::new(c as u32))
                .collect();
            b.root.push(json::Node {
                children: (!children.is_empty()).then_some(children),
                extras: serde_json::value::to_raw_value(&extras).ok(),
                name: Some(text(&mut rng)),
                translation: Some([rng.unit() as f32 * -1e-30, 1.0, f32::MAX]),
                rotation: Some(json::scene::UnitQuaternion([0.0, 0.0, 0.0, 1.0])),
                ..json::Node::default()
            });
        }
        let verts = 1 + rng.index(50);
        let positions: Vec<[f32; 3]> = (0..verts)
            .map(|_| [rng.unit() as f32, -(rng.unit() as f32) * 1e-38, 1e38])
            .collect();
        let pos = b.floats(&positions, Some(Target::ArrayBuffer), true, &text(&mut rng));
        let joints: Vec<[u16; 4]> = (0..verts).map(|_| [rng.index(nodes) as u16; 4]).collect();
        let jts = b.joints(&joints, rng.chance(0.5), "");
        let tris: Vec<[u32; 3]> = (0..verts / 3)
            .map(|_| [rng.next_u32(), 0, rng.index(70_000) as u32])
            .collect();
        let idx = b.indices(&tris, "");
        let ibms: Vec<[f32; 16]> = (0..nodes).map(|_| [-1.234_567_9e-30; 16]).collect();
        let ibm = b.floats(&ibms, None, false, "");
        let attributes = [
            (json::mesh::Semantic::Positions, pos),
            (json::mesh::Semantic::Joints(0), jts),
        ]
        .into_iter()
        .map(|(k, a)| (Checked::Valid(k), a))
        .collect();
        b.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(text(&mut rng)),
            primitives: vec![json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(idx),
                material: None,
                mode: Checked::Valid(json::mesh::Mode::Triangles),
                targets: None,
            }],
            weights: None,
        });
        b.root.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: Some(ibm),
            joints: (0..nodes).map(|j| Index::new(j as u32)).collect(),
            name: Some(text(&mut rng)),
            skeleton: None,
        });
        for _ in 0..rng.index(4) {
            let mut m = json::Material {
                name: Some(text(&mut rng)),
                alpha_cutoff: Some(json::material::AlphaCutoff(-1.234_567_9e-30)),
                double_sided: true,
                emissive_factor: json::material::EmissiveFactor([-1.234_567_9e-30; 3]),
                extras: serde_json::value::to_raw_value(&text(&mut rng)).ok(),
                ..json::Material::default()
            };
            m.pbr_metallic_roughness.base_color_factor =
                json::material::PbrBaseColorFactor([-1.234_567_9e-30; 4]);
            m.pbr_metallic_roughness.metallic_factor =
                json::material::StrengthFactor(-1.234_567_9e-30);
            m.pbr_metallic_roughness.roughness_factor =
                json::material::StrengthFactor(-1.234_567_9e-30);
            b.root.push(m);
        }
        let scene_extras = serde_json::json!({"rigtrip": {"gaps": text(&mut rng)}});
        let scene = b.root.push(json::Scene {
            extensions: None,
            extras: serde_json::value::to_raw_value(&scene_extras).ok(),
            name: None,
            nodes: vec![Index::new(0)],
        });
        b.root.scene = Some(scene);
        let (mut root, _) = b.finish();
        root.asset.version = "2.0".into();
        root.asset.generator = Some(text(&mut rng));
        root
    }

    #[test]
    fn json_len_bound_holds_for_documents_like_the_exports() {
        for seed in 0..200 {
            let root = random_root(seed);
            let exact = json_len(&root);
            let json = serde_json::to_vec(&root).unwrap();
            assert_eq!(exact, json.len() as u64);
            let bound = json_len_bound(&root).expect("only modelled parts");
            assert!(exact <= bound, "seed {seed}: {exact} > {bound}");
            let e = Exported {
                root,
                bin: Vec::new(),
                report: ExportReport::default(),
            };
            let g = to_glb(&e).unwrap();
            assert_eq!(&g[20..20 + json.len()], &json[..]);
        }
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
        let mut m = json::Material {
            name: nasty.clone(),
            alpha_cutoff: Some(json::material::AlphaCutoff(big)),
            alpha_mode: json::validation::Checked::Valid(json::material::AlphaMode::Mask),
            double_sided: true,
            emissive_factor: json::material::EmissiveFactor([big; 3]),
            extras: serde_json::value::to_raw_value(&nasty).ok(),
            ..json::Material::default()
        };
        m.pbr_metallic_roughness.base_color_factor = json::material::PbrBaseColorFactor([big; 4]);
        m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(big);
        m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(big);
        m.pbr_metallic_roughness.extras = serde_json::value::to_raw_value(&nasty).ok();
        root.materials.push(m);
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

    #[test]
    fn a_root_without_json_form_is_an_error_not_an_empty_chunk() {
        let mut e = doc(vec![1, 2, 3, 4]);
        e.root.accessors.push(json::Accessor {
            buffer_view: None,
            byte_offset: None,
            count: json::validation::USize64(1),
            component_type: Checked::Invalid,
            extensions: None,
            extras: None,
            type_: Checked::Invalid,
            min: None,
            max: None,
            name: None,
            normalized: false,
            sparse: None,
        });
        assert!(matches!(to_glb(&e), Err(GlbError::Json(_))));
        assert!(matches!(to_gltf(&e), Err(GlbError::Json(_))));
        assert_eq!(json_len(&e.root), 0);
    }

    fn glb(chunks: &[(u32, u32, &[u8])], declared: Option<u32>) -> Vec<u8> {
        let mut g = MAGIC.to_vec();
        g.extend_from_slice(&2u32.to_le_bytes());
        g.extend_from_slice(&[0; 4]);
        for (len, kind, data) in chunks {
            g.extend_from_slice(&len.to_le_bytes());
            g.extend_from_slice(&kind.to_le_bytes());
            g.extend_from_slice(data);
        }
        let total = declared.unwrap_or(g.len() as u32);
        g[8..12].copy_from_slice(&total.to_le_bytes());
        g
    }

    #[test]
    fn header_fields_as_far_as_present() {
        let g = glb(&[], Some(0x30));
        assert_eq!(
            header(&g),
            Header {
                version: Some(2),
                length: Some(0x30)
            }
        );
        assert_eq!(
            header(&g[..9]),
            Header {
                version: Some(2),
                length: None
            }
        );
        assert_eq!(
            header(&g[..7]),
            Header {
                version: None,
                length: None
            }
        );
    }

    #[test]
    fn chunk_walk_aligned_or_as_declared() {
        // A JSON chunk of 5 bytes (misaligned), 3 bytes of padding, then a BIN chunk.
        let g = glb(
            &[
                (5, CHUNK_JSON, b"{}   \0\0\0"),
                (4, CHUNK_BIN, &[1, 2, 3, 4]),
            ],
            None,
        );
        let aligned: Vec<Step> = chunks(&g, true).collect();
        assert_eq!(
            aligned,
            [
                Step::Chunk(Chunk {
                    offset: 12,
                    length: 5,
                    kind: CHUNK_JSON,
                    data: b"{}   "
                }),
                Step::Chunk(Chunk {
                    offset: 28,
                    length: 4,
                    kind: CHUNK_BIN,
                    data: &[1, 2, 3, 4]
                }),
            ]
        );
        // Taken as declared, the next header starts inside the padding: its length field is
        // the padding and the first byte of the real length.
        let declared: Vec<Step> = chunks(&g, false).collect();
        assert_eq!(declared.len(), 2);
        let Step::Chunk(second) = declared[1] else {
            panic!("{declared:?}")
        };
        assert_eq!(
            (second.offset, second.length, second.kind),
            (25, 0x0400_0000, 0x4200_0000)
        );
        assert!(!second.complete());
        assert_eq!(second.data, &g[33..]);
    }

    #[test]
    fn chunk_walk_stops_at_a_cut_header_or_a_chunk_past_the_end() {
        let mut g = glb(&[(4, CHUNK_JSON, b"{}  ")], None);
        g.extend_from_slice(&[9, 9, 9]);
        assert_eq!(chunks(&g, true).collect::<Vec<_>>()[1..], [Step::Cut(24)]);
        let g = glb(
            &[(0xFFFF_FFF0, CHUNK_JSON, b"{}  "), (4, CHUNK_BIN, b"xxxx")],
            None,
        );
        let steps: Vec<Step> = chunks(&g, true).collect();
        assert_eq!(steps.len(), 1);
        let Step::Chunk(c) = steps[0] else {
            panic!("{steps:?}")
        };
        assert!(!c.complete());
        assert_eq!(c.data.len(), g.len() - 20);
        assert_eq!(c.data, &g[20..]);
    }
}
