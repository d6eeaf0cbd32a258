//! The glTF export: skin contract checked on the written bytes (re-read with the `gltf` crate),
//! the Khronos validator on every export, and a Blender import (ignored by default: it needs
//! Blender, which `tools/blender-python` installs; `.ci/run` runs it).

mod common;
use common::{blender_python, tmp, validate, validator};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::{DMat4, DQuat, DVec3};
use serde_json::{json, Value};

use rigtrip::gltf::{
    export, export_with, to_glb, to_gltf, ExportError, ExportOptions, Exported, Names, Space,
    SpaceRotation, VertexRef,
};
use rigtrip::rig::mesh::Mesh;
use rigtrip::rig::{
    check_structure, extras, hie, GateCondition, Joint, JointPayload, Rig, Skeleton,
    SkeletonPayload, Source,
};

// ---------------------------------------------------------------------------------------------
// Hand-built rigs

type J = (Option<usize>, [f64; 3], DQuat);

fn joint(name: String, (parent, t, q): J) -> Joint {
    Joint {
        name,
        parent,
        translation: DVec3::from_array(t),
        rotation: q,
        native: JointPayload::Hie(hie::HieJoint::default()),
    }
}

fn skeleton(name: &str, joints: &[J]) -> Skeleton {
    let joints: Vec<Joint> = joints
        .iter()
        .enumerate()
        .map(|(k, j)| joint(format!("{name}_{k}"), *j))
        .collect();
    Skeleton {
        name: name.into(),
        gate: check_structure(&joints),
        joints,
        native: SkeletonPayload::Hie(hie::HieSkeleton::default()),
    }
}

fn hie_rig(skeletons: Vec<Skeleton>) -> Rig {
    Rig {
        source: Source::Hie(Default::default()),
        skeletons,
    }
}

const I: DQuat = DQuat::IDENTITY;

/// A rotated chain with a branch: exercises IBMs beyond pure translations.
fn chain() -> Skeleton {
    skeleton(
        "chain",
        &[
            (None, [10.0, -20.0, 30.0], DQuat::from_rotation_z(0.4)),
            (Some(0), [0.0, -150.0, 0.0], DQuat::from_rotation_x(-0.7)),
            (
                Some(1),
                [0.0, -120.0, 15.0],
                DQuat::from_euler(glam::EulerRot::XYZ, 0.1, 0.2, 0.3),
            ),
            (Some(0), [80.0, 0.0, 0.0], I),
        ],
    )
}

/// Two roots (HIE allows depth 1 more than once).
fn forest() -> Skeleton {
    skeleton(
        "forest",
        &[
            (None, [0.0; 3], I),
            (Some(0), [0.0, -100.0, 0.0], I),
            (None, [0.0; 3], I),
            (Some(2), [50.0, 0.0, 0.0], I),
            (Some(2), [-50.0, 0.0, 0.0], I),
        ],
    )
}

/// An 800-unit character standing on Y-down axes: head at y = -400, feet at y = +400.
fn character() -> Skeleton {
    skeleton(
        "slot1",
        &[
            (None, [0.0; 3], I),               // 0 hips
            (Some(0), [0.0, -160.0, 0.0], I),  // 1 chest
            (Some(1), [0.0, -240.0, 0.0], I),  // 2 head
            (Some(0), [60.0, 30.0, 0.0], I),   // 3 left thigh
            (Some(3), [0.0, 180.0, 0.0], I),   // 4 left shin
            (Some(4), [0.0, 190.0, -10.0], I), // 5 left foot
            (Some(0), [-60.0, 30.0, 0.0], I),  // 6 right thigh
            (Some(6), [0.0, 180.0, 0.0], I),   // 7 right shin
            (Some(7), [0.0, 190.0, -10.0], I), // 8 right foot
        ],
    )
}

// ---------------------------------------------------------------------------------------------
// Checks on the written bytes

fn dmat(m: [[f32; 4]; 4]) -> DMat4 {
    DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from)))
}

fn extras_of(e: &Option<Box<serde_json::value::RawValue>>) -> Value {
    e.as_ref()
        .map(|r| serde_json::from_str(r.get()).unwrap())
        .unwrap_or(Value::Null)
}

/// Every object key in `v` is at most 63 characters (Blender's custom property limit).
fn assert_short_keys(v: &Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                assert!(k.chars().count() <= 63, "extras key {k:?}");
                assert_short_keys(x);
            }
        }
        Value::Array(a) => a.iter().for_each(assert_short_keys),
        _ => {}
    }
}

/// World matrices of all nodes from the written TRS (f32 values taken exactly into f64).
fn node_worlds(doc: &gltf::Document) -> Vec<DMat4> {
    let n = doc.nodes().len();
    let mut parent = vec![None; n];
    for node in doc.nodes() {
        for c in node.children() {
            parent[c.index()] = Some(node.index());
        }
    }
    let local: Vec<DMat4> = doc
        .nodes()
        .map(|node| {
            let (t, q, s) = node.transform().decomposed();
            DMat4::from_scale_rotation_translation(
                DVec3::from_array(s.map(f64::from)),
                DQuat::from_array(q.map(f64::from)),
                DVec3::from_array(t.map(f64::from)),
            )
        })
        .collect();
    (0..n)
        .map(|mut i| {
            let mut m = local[i];
            while let Some(p) = parent[i] {
                m = local[p] * m;
                i = p;
            }
            m
        })
        .collect()
}

fn scene_roots_of(doc: &gltf::Document) -> Vec<usize> {
    doc.default_scene()
        .unwrap()
        .nodes()
        .map(|n| n.index())
        .collect()
}

/// Re-reads a GLB and checks the skin contract against the rig; returns the document's JSON.
fn check_glb(rig: &Rig, glb: &[u8], space: Space) -> Value {
    let (doc, buffers, _) = gltf::import_slice(glb).unwrap();
    let worlds = node_worlds(&doc);
    let root: Value = {
        let g = gltf::Gltf::from_slice(glb).unwrap();
        serde_json::to_value(g.document.into_json()).unwrap()
    };
    assert!(root.get("extras").is_none(), "top-level extras");
    assert!(root["asset"].get("extras").is_none(), "asset extras");
    assert_eq!(root["asset"]["version"], "2.0");

    // Names: unique and at most 63 bytes.
    let mut seen = std::collections::HashSet::new();
    for node in doc.nodes() {
        let name = node.name().unwrap();
        assert!(name.len() <= 63, "{name:?}");
        assert!(
            seen.insert(name.to_string()),
            "duplicate node name {name:?}"
        );
        assert_short_keys(&extras_of(node.extras()));
    }

    let scene = doc.default_scene().unwrap();
    let sx = extras_of(scene.extras());
    assert_short_keys(&sx);
    assert_eq!(sx["rigtrip"]["format"], rig.kind());
    assert_eq!(sx["rigtrip"]["schema"], 1);
    assert_eq!(sx["rigtrip"]["space"], space.to_json());
    assert_eq!(sx["rigtrip"]["source"], extras::source_to_json(&rig.source));
    let sks = sx["rigtrip"]["skeletons"].as_array().unwrap();
    assert_eq!(sks.len(), rig.skeletons.len());

    let nonempty: Vec<usize> = (0..rig.skeletons.len())
        .filter(|&s| !rig.skeletons[s].joints.is_empty())
        .collect();
    assert_eq!(doc.skins().len(), nonempty.len());
    for (skin, &s) in doc.skins().zip(&nonempty) {
        let sk = &rig.skeletons[s];
        assert_eq!(sks[s]["name"], sk.name.as_str());
        assert_eq!(sks[s]["joints"], sk.joints.len());
        assert_eq!(sks[s]["native"], extras::skeleton_to_json(&sk.native));
        assert!(skin.extras().is_none(), "skin extras");
        let joints: Vec<gltf::Node> = skin.joints().collect();
        assert_eq!(joints.len(), sk.joints.len());
        let ibms: Vec<[[f32; 4]; 4]> = skin
            .reader(|b| Some(&buffers[b.index()]))
            .read_inverse_bind_matrices()
            .unwrap()
            .collect();
        assert_eq!(ibms.len(), joints.len());
        let ir_world = sk.world_positions().unwrap();
        // HIE joints also carry their native offset and depth (f32 cannot hold every i32).
        let placements = match &sk.native {
            // A hand-built rig that HIE cannot hold gets none (export leaves them out).
            rigtrip::rig::SkeletonPayload::Hie(_) => rigtrip::rig::hie::placements(s, sk).ok(),
            rigtrip::rig::SkeletonPayload::Dmc3(_) => None,
        };
        for (k, node) in joints.iter().enumerate() {
            let mut want = json!({"skeleton": s, "joint": k, "native": extras::joint_to_json(&sk.joints[k].native)});
            if let Some(p) = &placements {
                want["offset"] = json!(p[k].offset);
                want["depth"] = json!(p[k].depth);
            }
            assert_eq!(extras_of(node.extras()), json!({ "rigtrip": want }));
            let w = worlds[node.index()];
            // f32 storage: the error grows with the distance from the origin.
            let mag = w.w_axis.truncate().length().max(1.0);
            let prod = w * dmat(ibms[k]);
            assert!(
                prod.abs_diff_eq(DMat4::IDENTITY, 1e-5 * mag),
                "skeleton {s} joint {k}: world · IBM = {prod}"
            );
            let want = space.point(ir_world[k]);
            let got = w.w_axis.truncate();
            assert!(
                (got - want).length() <= 1e-6 * mag,
                "skeleton {s} joint {k}: {got} vs {want}"
            );
        }
        // skin.skeleton is an ancestor-or-self of every joint.
        let top = skin.skeleton().unwrap();
        let roots: Vec<usize> = sk.roots().collect();
        // A wrapper for forests and whenever there are several skeletons; else the root joint.
        if roots.len() == 1 && nonempty.len() == 1 {
            assert_eq!(top.index(), joints[roots[0]].index());
        } else {
            assert_eq!(top.name(), Some(sk.name.as_str()));
            assert!(scene_roots_of(&doc).contains(&top.index()));
            assert_eq!(
                extras_of(top.extras()),
                json!({"rigtrip": {"skeleton": s, "wrapper": true}})
            );
            assert_eq!(
                top.transform().decomposed(),
                ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])
            );
            let kids: Vec<usize> = top.children().map(|c| c.index()).collect();
            assert_eq!(
                kids,
                roots.iter().map(|&r| joints[r].index()).collect::<Vec<_>>()
            );
        }
    }

    // Skinned primitives: joint slots in range, weights summing to 1; mesh nodes at the root.
    let scene_roots: Vec<usize> = scene.nodes().map(|n| n.index()).collect();
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        assert!(
            scene_roots.contains(&node.index()),
            "mesh node not at the scene root"
        );
        assert_eq!(
            node.transform().decomposed(),
            ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])
        );
        for prim in mesh.primitives() {
            let r = prim.reader(|b| Some(&buffers[b.index()]));
            let n = r.read_positions().unwrap().count();
            match node.skin() {
                Some(skin) => {
                    let count = skin.joints().count();
                    let js: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
                    let ws: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
                    assert_eq!((js.len(), ws.len()), (n, n));
                    for (j, w) in js.iter().zip(&ws) {
                        assert!(j.iter().all(|&x| (x as usize) < count), "{j:?}");
                        let sum: f64 = w.iter().map(|&x| f64::from(x)).sum();
                        assert!((sum - 1.0).abs() <= 1e-6, "{w:?}");
                    }
                }
                None => assert!(r.read_joints(0).is_none()),
            }
            if let Some(normals) = r.read_normals() {
                for v in normals {
                    let l = DVec3::from_array(v.map(f64::from)).length();
                    assert!((l - 1.0).abs() < 1e-6, "normal {v:?}");
                }
            }
        }
    }
    root
}

/// Exports, writes `<name>.glb` and `<name>.gltf`, checks both re-read; returns the paths.
fn export_and_check(
    rig: &Rig,
    meshes: Option<Vec<Mesh>>,
    opts: &ExportOptions,
    name: &str,
) -> (Exported, Value, Vec<PathBuf>) {
    let e = match meshes {
        Some(m) => export_with(rig, m, opts).unwrap(),
        None => export(rig, opts).unwrap(),
    };
    let glb = to_glb(&e).unwrap();
    let root = check_glb(rig, &glb, e.report.space);
    let text = to_gltf(&e).unwrap();
    let (doc, _, _) = gltf::import_slice(&text).unwrap();
    assert_eq!(doc.nodes().len(), e.root.nodes.len());
    let p1 = tmp(&format!("{name}.glb"));
    let p2 = tmp(&format!("{name}.gltf"));
    std::fs::write(&p1, &glb).unwrap();
    std::fs::write(&p2, &text).unwrap();
    (e, root, vec![p1, p2])
}

fn hie_default() -> Space {
    Space {
        scale: 0.001,
        rotation: SpaceRotation::X180,
    }
}

fn load(data: &[u8]) -> Rig {
    common::load(Some(rigtrip::native::Format::Hie), data)
}

// ---------------------------------------------------------------------------------------------
// Hand-built rigs

#[test]
fn chain_exact_nodes_skin_and_extras() {
    let rig = hie_rig(vec![chain()]);
    let (e, root, files) = export_and_check(&rig, None, &ExportOptions::default(), "chain");
    // Exact f32 values: p' = 0.001 · (x, -y, -z); q' = (qx, -qy, -qz, qw).
    let n0 = &root["nodes"][0];
    assert_eq!(n0["name"], "chain_0");
    let t: Vec<f64> = n0["translation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(t, [0.01f32, 0.02, -0.03].map(f64::from));
    let q0 = DQuat::from_rotation_z(0.4);
    let r: Vec<f64> = n0["rotation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(r, [0.0f32, 0.0, -(q0.z as f32), q0.w as f32].map(f64::from));
    assert_eq!(n0["children"], json!([1, 3]));
    assert_eq!(
        root["nodes"][1]["translation"],
        json!([0.0, 0.15000000596046448, 0.0])
    );
    // The un-rotated leaf writes no rotation, and no node carries a scale.
    assert!(root["nodes"][3].get("rotation").is_none());
    assert!(root["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n.get("scale").is_none()));
    assert_eq!(
        root["skins"],
        json!([{"inverseBindMatrices": 0, "joints": [0, 1, 2, 3], "name": "chain", "skeleton": 0}])
    );
    // IBMs: MAT4 FLOAT, no target; vertex data with targets.
    assert_eq!(root["accessors"][0]["type"], "MAT4");
    assert_eq!(root["accessors"][0]["componentType"], 5126);
    assert_eq!(root["accessors"][0]["count"], 4);
    assert!(root["bufferViews"][0].get("target").is_none());
    // One proxy mesh (the skeleton has no geometry), at the scene root, skinned.
    assert_eq!(e.report.skins.len(), 1);
    assert!(e.report.skins[0].proxy && !e.report.skins[0].wrapper);
    assert_eq!(root["nodes"][4]["name"], "chain_proxy");
    assert_eq!(root["nodes"][4]["skin"], 0);
    assert_eq!(
        root["nodes"][4]["extras"],
        json!({"rigtrip": {"proxy": true, "skeleton": 0}})
    );
    assert_eq!(root["scenes"][0]["nodes"], json!([0, 4]));
    for view in root["bufferViews"].as_array().unwrap() {
        assert_eq!(view["byteOffset"].as_u64().unwrap() % 4, 0);
    }
    let prim = &root["meshes"][0]["primitives"][0];
    // Proxies carry no normals: readers shade them flat.
    assert!(prim["attributes"].get("NORMAL").is_none());
    for (sem, target) in [
        ("POSITION", 34962),
        ("JOINTS_0", 34962),
        ("WEIGHTS_0", 34962),
    ] {
        let a = prim["attributes"][sem].as_u64().unwrap() as usize;
        let v = root["accessors"][a]["bufferView"].as_u64().unwrap() as usize;
        assert_eq!(root["bufferViews"][v]["target"], target, "{sem}");
    }
    assert_eq!(
        root["accessors"][prim["attributes"]["JOINTS_0"].as_u64().unwrap() as usize]
            ["componentType"],
        5121
    );
    let ind = prim["indices"].as_u64().unwrap() as usize;
    assert_eq!(root["accessors"][ind]["componentType"], 5123);
    assert_eq!(root["accessors"][ind]["count"], 4 * 8 * 3);
    assert_eq!(root["buffers"][0]["byteLength"], e.bin.len());
    assert_eq!(e.bin.len() % 4, 0);
    validate(&files);
}

#[test]
fn forests_and_several_skeletons_get_identity_wrappers() {
    let rig = hie_rig(vec![forest(), character()]);
    let (e, root, files) = export_and_check(&rig, None, &ExportOptions::default(), "forest");
    assert!(e.report.skins[0].wrapper && e.report.skins[1].wrapper);
    assert_eq!(root["nodes"][0]["name"], "forest");
    assert_eq!(root["nodes"][0]["children"], json!([1, 3]));
    assert_eq!(
        root["nodes"][0]["extras"],
        json!({"rigtrip": {"skeleton": 0, "wrapper": true}})
    );
    assert_eq!(root["skins"][0]["skeleton"], 0);
    assert_eq!(root["skins"][0]["joints"], json!([1, 2, 3, 4, 5]));
    assert_eq!(root["nodes"][6]["name"], "slot1");
    assert_eq!(root["nodes"][6]["children"], json!([7]));
    assert_eq!(root["skins"][1]["skeleton"], 6);
    assert_eq!(
        root["skins"][1]["joints"],
        json!([7, 8, 9, 10, 11, 12, 13, 14, 15])
    );
    assert_eq!(root["scenes"][0]["nodes"], json!([0, 6, 16, 17]));
    // A lone forest is wrapped too; a lone single-root skeleton is not (see the chain test).
    let (e, root, more) = export_and_check(
        &hie_rig(vec![forest()]),
        None,
        &ExportOptions::default(),
        "forest_alone",
    );
    assert!(e.report.skins[0].wrapper);
    assert_eq!(root["skins"][0]["skeleton"], 0);
    let (e, root, alone) = export_and_check(
        &hie_rig(vec![character()]),
        None,
        &ExportOptions::default(),
        "character_alone",
    );
    assert!(!e.report.skins[0].wrapper);
    assert_eq!(root["skins"][0]["skeleton"], 0);
    assert_eq!(root["nodes"][0]["name"], "slot1_0");
    validate(&[files, more, alone].concat());
}

#[test]
fn character_is_upright_and_in_metres() {
    let rig = hie_rig(vec![character()]);
    let (_, root, files) = export_and_check(&rig, None, &ExportOptions::default(), "character");
    // Head (joint 2) at +0.4 m, feet at -0.4 m, in glTF's +Y up.
    assert_eq!(
        root["nodes"][1]["translation"],
        json!([0.0, 0.1599999964237213, 0.0])
    );
    let e = export(&rig, &ExportOptions::default()).unwrap();
    let (doc, _, _) = gltf::import_slice(to_glb(&e).unwrap()).unwrap();
    let w = node_worlds(&doc);
    assert!((w[2].w_axis.y - 0.4).abs() < 1e-7);
    assert!((w[5].w_axis.y + 0.4).abs() < 1e-7);
    assert!((w[5].w_axis.z - 0.01).abs() < 1e-7);
    validate(&files);
}

#[test]
fn scale_override_and_empty_skeletons() {
    let empty = skeleton("hierarchy1", &[]);
    let rig = hie_rig(vec![
        character(),
        empty,
        skeleton("prop", &[(None, [5.0, 5.0, 5.0], I)]),
    ]);
    let opts = ExportOptions {
        scale: Some(0.01),
        names: None,
    };
    let (e, root, files) = export_and_check(&rig, None, &opts, "scaled");
    assert_eq!(e.report.space.scale, 0.01);
    assert_eq!(
        root["scenes"][0]["extras"]["rigtrip"]["space"],
        json!({"scale": 0.01, "rotation": "x180"})
    );
    assert_eq!(root["skins"].as_array().unwrap().len(), 2);
    // The second skin belongs to skeleton 2: its joint node says so.
    let j = root["skins"][1]["joints"][0].as_u64().unwrap() as usize;
    assert_eq!(root["nodes"][j]["extras"]["rigtrip"]["skeleton"], 2);
    assert_eq!(
        root["nodes"][j]["translation"],
        json!([
            0.05000000074505806,
            -0.05000000074505806,
            -0.05000000074505806
        ])
    );
    assert_eq!(
        root["scenes"][0]["extras"]["rigtrip"]["skeletons"][1],
        json!({"name": "hierarchy1", "joints": 0, "native": extras::skeleton_to_json(&rig.skeletons[1].native)})
    );
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = export(
            &rig,
            &ExportOptions {
                scale: Some(bad),
                names: None,
            },
        )
        .unwrap_err();
        assert!(
            matches!(err, ExportError::Scale(s) if s.to_bits() == bad.to_bits()),
            "{err}"
        );
    }
    assert_eq!(
        ExportError::Scale(0.0).to_string(),
        "scale 0 is not a finite number greater than zero (metres per native unit; a negative scale would mirror the rig, which glTF joint transforms cannot hold)"
    );
    validate(&files);
}

#[test]
fn empty_rig_is_still_a_valid_document_with_scene_extras() {
    let rig = hie_rig(Vec::new());
    let (e, root, files) = export_and_check(&rig, None, &ExportOptions::default(), "empty");
    assert!(e.bin.is_empty());
    assert!(root.get("buffers").is_none());
    assert_eq!(
        root["nodes"],
        json!([{"name": "hie", "extras": {"rigtrip": {"placeholder": true}}}])
    );
    assert_eq!(root["scenes"][0]["extras"]["rigtrip"]["format"], "hie");
    validate(&files);
}

#[test]
fn gate_failure_names_skeleton_and_condition() {
    let mut bad = skeleton("slot4", &[(None, [0.0; 3], I), (Some(0), [0.0; 3], I)]);
    bad.gate = Err(rigtrip::rig::GateFailure::at(
        GateCondition::DepthStepAtMostOne,
        Some(1),
        "joint 1 has depth 3 after joint 0 at depth 1",
    ));
    let rig = hie_rig(vec![character(), bad]);
    let err = export(&rig, &ExportOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "skeleton slot4: spatial gate: a depth is at most one more than the previous does not hold (joint 1): joint 1 has depth 3 after joint 0 at depth 1"
    );
    let ExportError::Gate { skeleton, failure } = err else {
        panic!()
    };
    assert_eq!(skeleton, "slot4");
    assert_eq!(failure.condition, GateCondition::DepthStepAtMostOne);
}

#[test]
fn names_given_cut_and_made_unique() {
    let rig = hie_rig(vec![character(), forest()]);
    let long = "ü".repeat(40); // 80 bytes
    let names =
        Names::from_json(&json!({"1": ["hips", "chest", "head", "hips", long, long]}).to_string())
            .unwrap();
    // Key "1" means skeleton "slot1".
    let opts = ExportOptions {
        scale: None,
        names: Some(names),
    };
    let (e, root, files) = export_and_check(&rig, None, &opts, "names");
    // Node 0 is the wrapper of slot1 (two skeletons).
    let names: Vec<&str> = (1..10)
        .map(|k| root["nodes"][k]["name"].as_str().unwrap())
        .collect();
    let cut31 = "ü".repeat(31);
    let cut30 = "ü".repeat(30);
    assert_eq!(
        names,
        [
            "hips",
            "chest",
            "head",
            "hips~1",
            cut31.as_str(),
            &format!("{cut30}~1"),
            "slot1_6",
            "slot1_7",
            "slot1_8"
        ]
    );
    assert_eq!(e.report.renamed.len(), 3);
    assert_eq!(e.report.renamed[0].node, "slot1 joint 3");
    assert_eq!(e.report.names_missing.len(), 1);
    assert_eq!(
        (
            e.report.names_missing[0].given,
            e.report.names_missing[0].joints
        ),
        (6, 9)
    );
    validate(&files);

    // A list needs a single-skeleton rig; unknown skeletons and surplus names are refused.
    let err = export(
        &rig,
        &ExportOptions {
            scale: None,
            names: Some(Names::List(vec!["a".into()])),
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "names: a plain list of names needs a rig with one skeleton, this one has 2"
        ),
        "{err}"
    );
    let err = export(
        &rig,
        &ExportOptions {
            scale: None,
            names: Some(Names::from_json(r#"{"9": []}"#).unwrap()),
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "names: no skeleton named slot9 (the rig has: slot1, forest)"
    );
    let too_many: Vec<String> = (0..6).map(|i| format!("n{i}")).collect();
    let mut m = BTreeMap::new();
    m.insert("forest".to_string(), too_many);
    let err = export(
        &rig,
        &ExportOptions {
            scale: None,
            names: Some(Names::PerSkeleton(m)),
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "names: 6 names for skeleton forest, which has 5 joints"
    );
    let one = hie_rig(vec![forest()]);
    let e = export(
        &one,
        &ExportOptions {
            scale: None,
            names: Some(Names::List(vec!["a".into(), "b".into()])),
        },
    )
    .unwrap();
    assert_eq!(e.root.nodes[1].name.as_deref(), Some("a"));
    assert_eq!(e.root.nodes[2].name.as_deref(), Some("b"));
    assert_eq!(e.root.nodes[3].name.as_deref(), Some("forest_2"));
}

// ---------------------------------------------------------------------------------------------
// Meshes

fn quad(name: &str, skeleton: Option<usize>) -> Mesh {
    Mesh {
        name: name.into(),
        skeleton,
        positions: vec![
            [0.0, 0.0, 0.0],
            [100.0, 0.0, 0.0],
            [100.0, -100.0, 0.0],
            [0.0, -100.0, 0.0],
        ],
        normals: vec![
            [0.0, 0.0, -2.0],
            [0.0, 0.0, 0.0],
            [f64::NAN, 0.0, 0.0],
            [0.0, 0.0, -1.0],
        ],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        joints: vec![[0, 1, 0, 0], [1, 1, 2, 0], [2, 0, 0, 0], [3, 0, 0, 0]],
        weights: vec![
            [3.0, 1.0, 0.0, 0.0],
            [1.0, 1.0, 2.0, 0.0],
            [0.0; 4],
            [1.0, 0.0, 0.0, 0.0],
        ],
        colors: Vec::new(),
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        material: None,
    }
}

#[test]
fn meshes_weights_normals_and_report() {
    let rig = hie_rig(vec![chain()]);
    let mut stage = quad("stage", None);
    stage.joints.clear();
    stage.weights.clear();
    stage.colors = vec![
        [1.0, 0.5, 0.0, 1.0],
        [2.0, 0.0, 0.0, 1.0],
        [0.0; 4],
        [0.25, 0.25, 0.25, 1.0],
    ];
    let empty = Mesh {
        name: "nothing".into(),
        ..Mesh::default()
    };
    let meshes = vec![quad("body", Some(0)), stage, empty];
    let (e, root, files) =
        export_and_check(&rig, Some(meshes), &ExportOptions::default(), "meshes");
    let r = &e.report;
    let v = |mesh, vertex| VertexRef { mesh, vertex };
    assert_eq!(r.merged_joints, [v(0, 1)]);
    assert_eq!(r.zero_weight_vertices, [v(0, 2)]);
    assert_eq!(r.fixed_normals, [v(0, 1), v(0, 2), v(1, 1), v(1, 2)]);
    assert_eq!(r.clamped_colors, [v(1, 1)]);
    assert_eq!(r.meshes.len(), 3);
    assert_eq!(r.meshes[2].gltf_mesh, None);
    // The skeleton has its own mesh, so no proxy.
    assert!(!r.skins[0].proxy);
    assert_eq!(root["meshes"].as_array().unwrap().len(), 2);
    assert_eq!(root["nodes"][4]["name"], "body");
    assert_eq!(root["nodes"][4]["skin"], 0);
    assert_eq!(root["nodes"][4]["extras"], json!({"rigtrip": {"mesh": 0}}));
    assert!(root["nodes"][5].get("skin").is_none());
    let stage_prim = &root["meshes"][1]["primitives"][0]["attributes"];
    assert!(stage_prim.get("COLOR_0").is_some() && stage_prim.get("JOINTS_0").is_none());

    let (doc, buffers, _) = gltf::import_slice(to_glb(&e).unwrap()).unwrap();
    let body = doc.meshes().next().unwrap().primitives().next().unwrap();
    let rd = body.reader(|b| Some(&buffers[b.index()]));
    let pos: Vec<[f32; 3]> = rd.read_positions().unwrap().collect();
    assert_eq!(pos[2], [0.1, 0.1, -0.0]);
    assert_eq!(body.bounding_box().min, [0.0, 0.0, 0.0]);
    assert_eq!(body.bounding_box().max, [0.1, 0.1, 0.0]);
    let js: Vec<[u16; 4]> = rd.read_joints(0).unwrap().into_u16().collect();
    let ws: Vec<[f32; 4]> = rd.read_weights(0).unwrap().into_f32().collect();
    assert_eq!(js, [[0, 1, 0, 0], [1, 2, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]]);
    assert_eq!(
        ws,
        [
            [0.75, 0.25, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0]
        ]
    );
    let ns: Vec<[f32; 3]> = rd.read_normals().unwrap().collect();
    // (0, 0, -2) -> unit, then Y/Z flipped; the broken ones come from the faces (also +Z).
    assert_eq!(ns, [[0.0, 0.0, 1.0]; 4]);
    let uv: Vec<[f32; 2]> = rd.read_tex_coords(0).unwrap().into_f32().collect();
    assert_eq!(uv[2], [1.0, 1.0]);
    validate(&files);
}

#[test]
fn inconsistent_meshes_are_refused_with_the_mesh_named() {
    let rig = hie_rig(vec![chain(), skeleton("none", &[])]);
    let cases: Vec<(Mesh, &str)> = vec![
        ({ let mut m = quad("a", Some(0)); m.joints[3] = [9, 0, 0, 0]; m }, "mesh 0 (a): vertex 3, influence 0: joint 9 with weight 1, but the skeleton has 4 joints"),
        ({ let mut m = quad("a", Some(0)); m.triangles.push([0, 1, 4]); m }, "mesh 0 (a): triangle 2 uses vertex 4, but there are 4 vertices"),
        ({ let mut m = quad("a", Some(0)); m.uvs.pop(); m }, "mesh 0 (a): 3 uvs for 4 vertices"),
        ({ let mut m = quad("a", Some(0)); m.weights.clear(); m }, "mesh 0 (a): skinned, but has 4 joint and 0 weight entries for 4 vertices"),
        (quad("a", Some(1)), "mesh 0 (a): skinned to skeleton 1, which has no joints"),
        (quad("a", Some(2)), "mesh 0 (a): skinned to skeleton 2, but the rig has 2 skeletons"),
        ({ let mut m = quad("a", Some(0)); m.positions[1][0] = f64::INFINITY; m }, "mesh 0 (a): vertex 1: position [inf, 0.0, 0.0] is not finite in 32-bit floats"),
    ];
    for (m, msg) in cases {
        let err = export_with(&rig, vec![m], &ExportOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), msg);
    }
}

#[test]
fn many_joints_use_unsigned_short_joint_indices() {
    // 300 joints in a chain: JOINTS_0 must be UNSIGNED_SHORT.
    let joints: Vec<J> = (0..300)
        .map(|k| {
            (
                if k == 0 { None } else { Some(k - 1) },
                [0.0, -10.0, 1.0],
                I,
            )
        })
        .collect();
    let rig = hie_rig(vec![skeleton("long", &joints)]);
    let (_, root, files) = export_and_check(&rig, None, &ExportOptions::default(), "long");
    let a = root["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(root["accessors"][a]["componentType"], 5123);
    validate(&files);
}

// ---------------------------------------------------------------------------------------------
// Native samples and generated files

#[test]
fn hie_sample_db22_with_names() {
    let rig = load(&rigtrip::synth::hie::sample_db22());
    let names = Names::from_json(&rigtrip::synth::hie::sample_db22_names()).unwrap();
    let opts = ExportOptions {
        scale: None,
        names: Some(names),
    };
    let (e, root, files) = export_and_check(&rig, None, &opts, "db22");
    assert_eq!(e.report.space, hie_default());
    assert!(e.report.renamed.is_empty());
    assert_eq!(e.root.skins.len(), 3);
    let by_name: BTreeMap<&str, usize> = root["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, n)| (n["name"].as_str().unwrap(), i))
        .collect();
    let (doc, _, _) = gltf::import_slice(to_glb(&e).unwrap()).unwrap();
    let w = node_worlds(&doc);
    let y = |n: &str| w[by_name[n]].w_axis.y;
    assert!((y("head") - 0.4).abs() < 1e-7, "{}", y("head"));
    assert!((y("left_foot") + 0.4).abs() < 1e-7);
    validate(&files);
}

/// Exports a generated rig and checks it (`export_and_check`) when every skeleton passes the
/// gate, returning the files written; otherwise asserts that export refuses it with exactly
/// the first failing skeleton's gate error, and returns `None`.
fn export_unless_gate_fails(rig: &Rig, name: &str) -> Option<Vec<PathBuf>> {
    match rig.skeletons.iter().find(|s| s.gate.is_err()) {
        Some(sk) => {
            let err = export(rig, &ExportOptions::default()).unwrap_err();
            assert_eq!(
                err,
                ExportError::Gate {
                    skeleton: sk.name.clone(),
                    failure: sk.gate.clone().unwrap_err()
                }
            );
            None
        }
        None => Some(export_and_check(rig, None, &ExportOptions::default(), name).2),
    }
}

#[test]
fn hie_generated_files_validate() {
    // Default knobs: a file exports exactly when all its hierarchies pass the gate.
    let mut files = Vec::new();
    let (mut exported, mut refused) = (0, 0);
    for seed in 0..40u64 {
        let rig = load(&rigtrip::synth::hie::random(seed));
        match export_unless_gate_fails(&rig, &format!("hie_random_{seed}")) {
            Some(f) => {
                files.extend(f);
                exported += 1;
            }
            None => refused += 1,
        }
    }
    assert!(
        exported > 0 && refused > 0,
        "{exported} exported, {refused} refused"
    );
    // No gate failures: every one of 60 files exports (big hierarchies more often).
    let opts = rigtrip::synth::hie::Opts {
        bad_depth_chance: 0.0,
        big_chance: 0.1,
        ..Default::default()
    };
    for seed in 0..60u64 {
        let data =
            rigtrip::synth::hie::random_with(&mut rigtrip::synth::rng::Rng::new(seed), &opts);
        let rig = load(&data);
        let (_, _, f) = export_and_check(
            &rig,
            None,
            &ExportOptions::default(),
            &format!("hie_good_{seed}"),
        );
        files.extend(f);
    }
    validate(&files);
}

/// Why forests get a wrapper: joints without a common root are a validator error. (The
/// validator's check depends on joint order, so two lone roots are used to trigger it.)
#[test]
fn validator_rejects_a_forest_without_wrapper() {
    let rig = hie_rig(vec![skeleton(
        "two",
        &[(None, [0.0; 3], I), (None, [0.0; 3], I)],
    )]);
    let e = export(&rig, &ExportOptions::default()).unwrap();
    assert!(e.report.skins[0].wrapper);
    let mut bare = e.clone();
    let w = bare.root.skins[0].skeleton.take().unwrap();
    let roots = bare.root.nodes[w.value()].children.take().unwrap();
    let scene = &mut bare.root.scenes[0];
    scene.nodes.retain(|n| *n != w);
    scene.nodes.extend(roots);
    let with = tmp("two_roots_wrapped.glb");
    let without = tmp("two_roots_bare.glb");
    std::fs::write(&with, to_glb(&e).unwrap()).unwrap();
    std::fs::write(&without, to_glb(&bare).unwrap()).unwrap();
    validate(&[with]);
    let out = validator(std::slice::from_ref(&without));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("errors=1 ") && text.contains("SKIN_NO_COMMON_ROOT"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// Blender (ignored by default; run with --include-ignored)

fn blender_facts(glb: &Path, extra: &[&str]) -> Value {
    let script = common::repo().join("tests/blender/import_facts.py");
    let mut args = vec![script.as_os_str(), "--".as_ref(), glb.as_os_str()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let out = blender_python(args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("FACTS "))
        .unwrap();
    serde_json::from_str(&line["FACTS ".len()..]).unwrap()
}

/// Imports `e` into Blender and checks: one armature per skeleton with all its bones, every
/// bone head where the joint is (glTF +Y up becomes Blender +Z up), every mesh skinned.
fn blender_check(rig: &Rig, e: &Exported, name: &str, extra: &[&str]) -> Value {
    let path = tmp(name);
    let glb = to_glb(e).unwrap();
    std::fs::write(&path, &glb).unwrap();
    let facts = blender_facts(&path, extra);
    let arms = facts["armatures"].as_object().unwrap();
    let nonempty: Vec<&Skeleton> = rig
        .skeletons
        .iter()
        .filter(|s| !s.joints.is_empty())
        .collect();
    assert_eq!(arms.len(), nonempty.len(), "{name}: {facts}");
    let mut counts: Vec<usize> = arms
        .values()
        .map(|a| a["bones"].as_object().unwrap().len())
        .collect();
    counts.sort();
    let mut want: Vec<usize> = nonempty.iter().map(|s| s.joints.len()).collect();
    want.sort();
    assert_eq!(counts, want, "{name}");
    if nonempty.len() > 1 {
        // Wrapped skeletons: the wrapper became the armature object, named after the skeleton.
        for sk in &nonempty {
            assert_eq!(
                arms[&sk.name]["bones"].as_object().unwrap().len(),
                sk.joints.len(),
                "{name}"
            );
        }
    }
    let (doc, _, _) = gltf::import_slice(&glb).unwrap();
    let worlds = node_worlds(&doc);
    let heads: BTreeMap<&str, &Value> = arms
        .values()
        .flat_map(|a| {
            a["bones"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.as_str(), v))
        })
        .collect();
    for skin in doc.skins() {
        for j in skin.joints() {
            let p = worlds[j.index()].w_axis;
            let want = [p.x, -p.z, p.y];
            let got = heads[j.name().unwrap()];
            for c in 0..3 {
                let g = got[c].as_f64().unwrap();
                assert!(
                    (g - want[c]).abs() <= 1e-5 * want[c].abs().max(1.0),
                    "{name}: bone {:?} head {got} vs {want:?}",
                    j.name()
                );
            }
        }
    }
    let meshes = facts["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), e.root.meshes.len(), "{name}");
    for m in meshes {
        let arm = m["armature"].as_str().unwrap();
        let bones = arms[arm]["bones"].as_object().unwrap().len();
        // Proxies bind a solid to every joint.
        assert_eq!(
            m["vertex_groups"].as_u64().unwrap() as usize,
            bones,
            "{name}: {m}"
        );
    }
    facts
}

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn blender_imports_one_armature_per_skeleton_upright_in_metres() {
    let rig = load(&rigtrip::synth::hie::sample_db22());
    let names = Names::from_json(&rigtrip::synth::hie::sample_db22_names()).unwrap();
    let e = export(
        &rig,
        &ExportOptions {
            scale: None,
            names: Some(names),
        },
    )
    .unwrap();
    // Pose the left shin 10 cm up: its proxy and the foot's follow, nothing else moves.
    let facts = blender_check(
        &rig,
        &e,
        "blender_db22.glb",
        &["--pose", "left_shin", "0", "0", "0.1"],
    );
    let ch = &facts["armatures"]["slot1"]["bones"];
    let z = |b: &str| ch[b][2].as_f64().unwrap();
    assert!(z("head") > z("left_foot"));
    let height = z("head") - z("left_foot");
    assert!((height - 0.8).abs() < 1e-6, "height {height}");
    assert!((z("head") - 0.4).abs() < 1e-6);
    for (group, d) in facts["moved"].as_object().unwrap() {
        let d: Vec<f64> = d
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let want = if group == "left_shin" || group == "left_foot" {
            0.1
        } else {
            0.0
        };
        assert!(
            (d[2] - want).abs() < 1e-6 && d[0].abs() < 1e-6 && d[1].abs() < 1e-6,
            "{group}: {d:?}"
        );
    }
    assert_eq!(facts["moved"].as_object().unwrap().len(), 19);

    // A lone forest (wrapped), a lone single-root skeleton (not wrapped), generated files.
    for (i, rig) in [hie_rig(vec![forest()]), hie_rig(vec![chain()])]
        .iter()
        .enumerate()
    {
        let e = export(rig, &ExportOptions::default()).unwrap();
        blender_check(rig, &e, &format!("blender_hand_{i}.glb"), &[]);
    }
    // The DMC3 humanoid: one skeleton, no wrapper, about 1.72 m tall on Blender's Z.
    let rig = common::load(
        Some(rigtrip::native::Format::Dmc3),
        &rigtrip::synth::dmc3::sample_mod(),
    );
    let e = export(&rig, &ExportOptions::default()).unwrap();
    let facts = blender_check(&rig, &e, "blender_mod.glb", &[]);
    let zs: Vec<f64> = facts["armatures"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|a| {
            a["bones"]
                .as_object()
                .unwrap()
                .values()
                .map(|p| p[2].as_f64().unwrap())
        })
        .collect();
    let height =
        zs.iter().cloned().fold(f64::MIN, f64::max) - zs.iter().cloned().fold(f64::MAX, f64::min);
    assert!(height > 1.4 && height < 1.9, "height {height}");
    let opts = rigtrip::synth::hie::Opts {
        bad_depth_chance: 0.0,
        ..Default::default()
    };
    for seed in 0..5u64 {
        let data =
            rigtrip::synth::hie::random_with(&mut rigtrip::synth::rng::Rng::new(seed), &opts);
        let rig = load(&data);
        let e = export(&rig, &ExportOptions::default()).unwrap();
        blender_check(&rig, &e, &format!("blender_random_{seed}.glb"), &[]);
    }
}

// ---------------------------------------------------------------------------------------------
// DMC3

fn dmc3_default() -> Space {
    Space {
        scale: 0.01,
        rotation: SpaceRotation::None,
    }
}

#[test]
fn dmc3_samples_export_in_metres_y_up() {
    use rigtrip::native::Format;
    let (efm, offset, nodes) = rigtrip::synth::dmc3::sample_efm();
    let samples = [
        (
            "mod",
            common::load(Some(Format::Dmc3), &rigtrip::synth::dmc3::sample_mod()),
        ),
        (
            "scm",
            common::load(Some(Format::Dmc3), &rigtrip::synth::dmc3::sample_scm()),
        ),
        (
            "efm",
            common::load(Some(Format::Block { offset, nodes }), &efm),
        ),
    ];
    let mut files = Vec::new();
    for (name, rig) in &samples {
        let (e, root, f) = export_and_check(
            rig,
            None,
            &ExportOptions::default(),
            &format!("dmc3_{name}"),
        );
        assert_eq!(e.report.space, dmc3_default(), "{name}");
        assert_eq!(
            root["scenes"][0]["extras"]["rigtrip"]["space"],
            json!({"scale": 0.01, "rotation": "none"})
        );
        files.extend(f);
    }
    // The MOD humanoid: 49 joints, about 1.72 m tall, standing on +Y.
    let (rig, e) = (
        &samples[0].1,
        export(&samples[0].1, &ExportOptions::default()).unwrap(),
    );
    assert_eq!(e.root.skins.len(), 1);
    assert_eq!(e.root.skins[0].joints.len(), 49);
    let (doc, _, _) = gltf::import_slice(to_glb(&e).unwrap()).unwrap();
    let w = node_worlds(&doc);
    let ys: Vec<f64> = doc
        .skins()
        .next()
        .unwrap()
        .joints()
        .map(|j| w[j.index()].w_axis.y)
        .collect();
    let height =
        ys.iter().cloned().fold(f64::MIN, f64::max) - ys.iter().cloned().fold(f64::MAX, f64::min);
    assert!(height > 1.4 && height < 1.9, "height {height}");
    assert_eq!(rig.kind(), root_kind(&e));
    validate(&files);
}

fn root_kind(e: &Exported) -> String {
    let s: Value = serde_json::from_str(e.root.scenes[0].extras.as_ref().unwrap().get()).unwrap();
    s["rigtrip"]["format"].as_str().unwrap().to_string()
}

#[test]
fn dmc3_generated_files_validate() {
    use rigtrip::native::Format;
    let mut files = Vec::new();
    let (mut exported, mut refused) = (0, 0);
    for seed in 0..90u64 {
        let rig = match seed % 3 {
            0 => common::load(
                Some(Format::Dmc3),
                &rigtrip::synth::dmc3::random_exportable(seed, false),
            ),
            1 => common::load(
                Some(Format::Dmc3),
                &rigtrip::synth::dmc3::random_exportable(seed, true),
            ),
            _ => {
                let (data, offset, nodes) = rigtrip::synth::dmc3::random_block_file(seed);
                common::load(Some(Format::Block { offset, nodes }), &data)
            }
        };
        match export_unless_gate_fails(&rig, &format!("dmc3_random_{seed}")) {
            Some(f) => {
                files.extend(f);
                exported += 1;
            }
            None => refused += 1,
        }
    }
    assert!(exported >= 50, "{exported} exported, {refused} refused");
    validate(&files);
}
