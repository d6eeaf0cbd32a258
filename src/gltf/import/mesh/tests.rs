//! The geometry comparison against the set comparison, on generated geometry.

use super::*;
use crate::gltf::import::edits::build;
use crate::gltf::import::scene::{find_scene, Found, SceneExtras};
use crate::gltf::{export, to_glb, ExportOptions};

/// `glb` imported up to the geometry comparison: the report `compare` gives, the one the set
/// comparison gives, and whether the shortcut applied. `None` for a rig without meshes.
fn both_ways(glb: &[u8]) -> Option<(MeshReport, MeshReport, bool)> {
    let tol = Tolerance::from_option(None).unwrap();
    let doc = crate::gltf::import::read::parse(glb, None).unwrap();
    let (index, _, found) = find_scene(&doc).unwrap();
    let ex = match found {
        Found::Typed(ex, _, _) => *ex,
        Found::Value(r) => SceneExtras::read(index, &r).unwrap(),
    };
    let scene = &doc.json()["scenes"][index];
    let graph = Graph::read(doc.json(), scene, &doc.node_extras, Some(ex.format)).unwrap();
    let built = build(&doc, &graph, &ex, &tol).unwrap();
    let originals = built.rig.meshes();
    if originals.is_empty() {
        return None;
    }
    let opts = ExportOptions {
        scale: Some(ex.space.scale),
        names: None,
    };
    let exported = crate::gltf::export::export_geometry(&built.rig, &originals, &opts).unwrap();
    let fast = compare(&doc, &graph, &built.ids, Some(&exported), &tol).unwrap();
    let key = |node: usize| influence_key(&built.ids, node);
    let Incoming {
        instances, proxies, ..
    } = incoming_instances(&doc, &graph, &key, rig_skinned(&built.ids)).unwrap();
    let edoc = expected_doc(&exported).unwrap();
    let einst = expected_instances(&built.ids, &exported, None);
    let same = same_source(&doc, &instances, &edoc, &einst);
    let incoming = collect(&doc, &instances, proxies).unwrap();
    let expected = expected_geometry(&built.ids, Some(&exported), None).unwrap();
    let names = || -> Names {
        graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (influence_key(&built.ids, i), n.name.clone()))
            .collect()
    };
    let slow = compare_geometry(&incoming, &expected, &tol, &names);
    Some((fast, slow, same))
}

/// A document of triangle primitives whose vertices often share a position (drawn from a
/// few, among them -0.0 and NaNs), with normals, UVs, colours and influences drawn from a
/// few values too (so that equal and unequal vertices at one position both occur),
/// degenerate triangles, unused vertices, a primitive that is not triangles, and instances
/// moved by a world matrix (one flattening an axis, so that positions meet after it) or
/// skinned through slots.
fn random_geometry(seed: u64) -> (Doc<'static>, Vec<Instance>) {
    use crate::synth::rng::Rng;
    fn pick<T: Copy>(rng: &mut Rng, from: &[T]) -> T {
        from[rng.index(from.len())]
    }
    let mut rng = Rng::new(seed);
    let xs = [
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::from_bits(0x7fc0_0001),
    ];
    let (mut bin, mut views, mut accessors) = (Vec::<u8>::new(), Vec::new(), Vec::new());
    let mut add = |bytes: Vec<u8>, ctype: u32, kind: &str, count: usize| {
        views.push(
            serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}),
        );
        bin.extend(bytes);
        accessors.push(serde_json::json!({"bufferView": views.len() - 1, "componentType": ctype, "type": kind, "count": count}));
        accessors.len() - 1
    };
    let floats = |v: Vec<f32>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut meshes = Vec::new();
    let mut instances = Vec::new();
    for m in 0..1 + rng.index(3) {
        let mut prims = Vec::new();
        for _ in 0..1 + rng.index(2) {
            let n = 1 + rng.index(12);
            let pos: Vec<f32> = (0..3 * n).map(|_| pick(&mut rng, &xs)).collect();
            let mut attrs = serde_json::Map::new();
            attrs.insert("POSITION".into(), add(floats(pos), 5126, "VEC3", n).into());
            if rng.index(3) > 0 {
                let v: Vec<f32> = (0..3 * n)
                    .map(|_| pick(&mut rng, &[0.0, 1.0, -1.0]))
                    .collect();
                attrs.insert("NORMAL".into(), add(floats(v), 5126, "VEC3", n).into());
            }
            if rng.index(2) > 0 {
                let v: Vec<f32> = (0..2 * n).map(|_| pick(&mut rng, &[0.0, 0.5])).collect();
                attrs.insert("TEXCOORD_0".into(), add(floats(v), 5126, "VEC2", n).into());
            }
            if rng.index(4) == 0 {
                let v: Vec<f32> = (0..4 * n).map(|_| pick(&mut rng, &[0.0, 1.0])).collect();
                attrs.insert("COLOR_0".into(), add(floats(v), 5126, "VEC4", n).into());
            }
            for set in 0..rng.index(3) {
                let j: Vec<u8> = (0..4 * n)
                    .flat_map(|_| (rng.index(5) as u16).to_le_bytes())
                    .collect();
                let w: Vec<f32> = (0..4 * n)
                    .map(|_| pick(&mut rng, &[0.0, 0.25, 0.5, 1.0, -1.0]))
                    .collect();
                let (jn, wn) = (format!("JOINTS_{set}"), format!("WEIGHTS_{set}"));
                attrs.insert(jn, add(j, 5123, "VEC4", n).into());
                attrs.insert(wn, add(floats(w), 5126, "VEC4", n).into());
            }
            let corners: Vec<u8> = (0..3 * rng.index(10))
                .flat_map(|_| (rng.index(n) as u32).to_le_bytes())
                .collect();
            let count = corners.len() / 4;
            let mut prim = serde_json::json!({"attributes": attrs});
            if rng.index(4) > 0 {
                prim["indices"] = add(corners, 5125, "SCALAR", count).into();
            }
            if rng.index(12) == 0 {
                prim["mode"] = 1.into();
            }
            prims.push(prim);
        }
        meshes.push(serde_json::json!({ "primitives": prims }));
        let world = match rng.index(3) {
            0 => DMat4::from_scale(glam::DVec3::new(1.0, 0.0, 2.0)),
            1 => DMat4::from_translation(glam::DVec3::new(0.5, 0.0, 0.0)),
            _ => DMat4::IDENTITY,
        };
        let slots = (world == DMat4::IDENTITY && rng.index(2) == 0).then(|| {
            (0..rng.index(5))
                .map(|k| InfKey::Joint(0, JointKey::Old(k % 3)))
                .collect()
        });
        instances.push(Instance {
            node: m,
            name: format!("n{m}"),
            mesh: m,
            slots,
            world,
            rigid: false,
        });
    }
    let root = serde_json::Map::from_iter([
        ("accessors".to_string(), Value::from(accessors)),
        ("bufferViews".to_string(), Value::from(views)),
        ("meshes".to_string(), Value::from(meshes)),
    ]);
    (
        crate::gltf::import::read::document(root, vec![std::borrow::Cow::Owned(bin)]),
        instances,
    )
}

/// The unedited report counted without building every vertex is the one the geometry with
/// every vertex built gives against itself, on geometry where positions are shared by equal
/// and by different vertices (both seen, as are NaN positions and moved instances).
#[test]
fn unedited_counts_are_those_of_the_built_geometry() {
    let tol = Tolerance::from_option(None).unwrap();
    let (mut shared_equal, mut shared_different, mut odd) = (0, 0, 0);
    for seed in 0..400 {
        let (doc, instances) = random_geometry(seed);
        let proxies = (seed % 3) as usize;
        let g = collect(&doc, &instances, proxies).unwrap();
        let slow = geometry_report(&g, &g, true, &tol, &Names::default);
        let fast = read_primitives(&doc, &instances, proxies)
            .unwrap()
            .unedited_report();
        assert_eq!(fast, slow, "seed {seed}");
        // What the seed exercised: used vertices at one position, equal or not.
        let (used, _) = used_vertices(&g.tris, g.verts.len());
        let mut at: HashMap<[u64; 3], Vec<&Vert>> = HashMap::new();
        for (v, _) in g.verts.iter().zip(&used).filter(|(_, u)| **u) {
            at.entry(v.p.map(f64::to_bits)).or_default().push(v);
        }
        for vs in at.values().filter(|vs| vs.len() > 1) {
            if vs.iter().skip(1).any(|v| v.same_bits(vs[0])) {
                shared_equal += 1;
            }
            if vs.iter().skip(1).any(|v| !v.same_bits(vs[0])) {
                shared_different += 1;
            }
        }
        odd += usize::from(!g.odd.is_empty());
    }
    assert!(
        shared_equal > 15 && shared_different > 300 && odd > 40,
        "{shared_equal} {shared_different} {odd}"
    );
}

/// The shortcut for unedited geometry gives the report the set comparison gives; it is
/// taken for every unedited export, and not once a vertex moved.
#[test]
fn unedited_geometry_reports_what_the_set_comparison_reports() {
    let samples = crate::synth::samples().into_iter().map(|(_, b)| (b, None));
    let random = (0..12).flat_map(crate::synth::rig_files);
    let (mut compared, mut edited) = (0, 0);
    for (data, format) in samples.chain(random) {
        let Ok(native) = crate::native::NativeFile::read(format, &data) else {
            continue;
        };
        let rig = crate::rig::lift(native);
        let Ok(e) = export(&rig, &ExportOptions::default()) else {
            continue;
        };
        let glb = to_glb(&e).unwrap();
        let Some((fast, slow, same)) = both_ways(&glb) else {
            continue;
        };
        assert!(same);
        assert_eq!(fast, slow);
        assert_eq!(fast.status, MeshStatus::Unchanged);
        assert!(fast.expected_vertices > 0 && fast.difference_count == 0);
        compared += 1;

        // Every vertex of the first mesh 1 cm along x (their f32 x in the BIN chunk).
        let mesh = e.report.meshes.iter().find_map(|m| m.gltf_mesh).unwrap();
        let attrs = &e.root.meshes[mesh].primitives[0].attributes;
        let pos =
            attrs[&::gltf_json::validation::Checked::Valid(::gltf_json::mesh::Semantic::Positions)];
        let acc = &e.root.accessors[pos.value()];
        let view = acc.buffer_view.unwrap();
        let at = e.root.buffer_views[view.value()].byte_offset.unwrap().0 as usize;
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let mut moved = glb.clone();
        for k in 0..acc.count.0 as usize {
            let x = 20 + json_len + 8 + at + 12 * k;
            let v = f32::from_le_bytes(moved[x..x + 4].try_into().unwrap()) + 0.01;
            moved[x..x + 4].copy_from_slice(&v.to_le_bytes());
        }
        let (fast, slow, same) = both_ways(&moved).unwrap();
        assert!(!same);
        assert_eq!(fast, slow);
        assert!(fast.difference_count > 0, "{fast:?}");
        edited += 1;
    }
    assert!(
        compared >= 5 && edited == compared,
        "{compared} files, {edited} edited"
    );
}
