//! `rigtrip lint`: one small skinned glTF built here (own GLB/JSON layout code, not the
//! exporter's), broken one defect at a time; garbage and truncated inputs; every rigtrip export
//! lints clean.

mod common;
use common::{f32s, findings, glb, u16s};

use std::path::Path;

use base64::Engine as _;
use glam::{DMat4, DQuat, DVec3};
use proptest::prelude::*;
use serde_json::{json, Value};

use rigtrip::lint::{lint_path, lint_slice, LintReport, Severity};
use rigtrip::ops::output::lint_json as render_json;

// ---------------------------------------------------------------------------------------------
// The fixture: a mesh node, an "Armature" node, four joints (nodes 2..5, so slots != nodes),
// eight vertices, IBMs computed from the rest pose, one animation starting at the rest pose.

/// A node as JSON; values are f32 so that the JSON numbers are exactly what a reader stores.
fn node(name: &str, t: [f32; 3], r: DQuat, children: &[usize]) -> Value {
    let mut n = json!({"name": name});
    if t != [0.0; 3] {
        n["translation"] = json!(t);
    }
    if r != DQuat::IDENTITY {
        let q = r.normalize().to_array().map(|x| x as f32);
        n["rotation"] = json!(q);
    }
    if !children.is_empty() {
        n["children"] = json!(children);
    }
    n
}

/// One JOINTS_n / WEIGHTS_n pair of vertex attributes.
type InfluenceSet = (Vec<[u8; 4]>, Vec<[f32; 4]>);

#[derive(Clone)]
struct Fx {
    nodes: Vec<Value>,
    scene: Vec<usize>,
    joints: Vec<usize>,
    skeleton: Option<usize>,
    positions: Vec<[f32; 3]>,
    /// JOINTS_n / WEIGHTS_n.
    sets: Vec<InfluenceSet>,
    /// `None`: computed from the rest pose at build time.
    ibms: Option<Vec<[f32; 16]>>,
    /// Rotation keys of node 3 (spine) at t = 0 and 1.
    spine_keys: [[f32; 4]; 2],
}

fn f32q(q: DQuat) -> [f32; 4] {
    q.normalize().to_array().map(|x| x as f32)
}

fn base() -> Fx {
    let spine_rest = DQuat::from_rotation_x(0.2);
    let nodes = vec![
        json!({"name": "Body", "mesh": 0, "skin": 0}),
        node(
            "Armature",
            [0.0, 0.0, 0.5],
            DQuat::from_rotation_y(0.3),
            &[2],
        ),
        node("hips", [0.0, 1.0, 0.0], DQuat::IDENTITY, &[3, 5]),
        node("spine", [0.0, 0.5, 0.0], spine_rest, &[4]),
        node("head", [0.0, 0.4, 0.0], DQuat::IDENTITY, &[]),
        node("leg", [0.2, -0.1, 0.0], DQuat::from_rotation_z(0.1), &[]),
    ];
    // Per vertex: its JOINTS_0 slots and WEIGHTS_0.
    let influences: [([u8; 4], [f32; 4]); 8] = [
        ([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]),
        ([1, 2, 0, 0], [0.75, 0.25, 0.0, 0.0]),
        ([2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ([3, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ([3, 0, 1, 0], [0.5, 0.25, 0.25, 0.0]),
        ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ([2, 3, 1, 0], [0.5, 0.25, 0.25, 0.0]),
    ];
    Fx {
        nodes,
        scene: vec![0, 1],
        joints: vec![2, 3, 4, 5],
        skeleton: Some(1),
        positions: (0..8)
            .map(|k| [k as f32 * 0.1, 1.0 + k as f32 * 0.2, 0.05])
            .collect(),
        sets: vec![influences.into_iter().unzip()],
        ibms: None,
        spine_keys: [f32q(spine_rest), f32q(DQuat::from_rotation_x(0.9))],
    }
}

fn local(n: &Value) -> DMat4 {
    let arr = |k: &str, d: &[f64]| -> Vec<f64> {
        n.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect())
            .unwrap_or_else(|| d.to_vec())
    };
    let t = arr("translation", &[0.0; 3]);
    let r = arr("rotation", &[0.0, 0.0, 0.0, 1.0]);
    let s = arr("scale", &[1.0; 3]);
    DMat4::from_scale_rotation_translation(
        DVec3::new(s[0], s[1], s[2]),
        DQuat::from_xyzw(r[0], r[1], r[2], r[3]).normalize(),
        DVec3::new(t[0], t[1], t[2]),
    )
}

impl Fx {
    fn world(&self, i: usize) -> DMat4 {
        let parent = self.nodes.iter().position(|n| {
            n.get("children")
                .and_then(Value::as_array)
                .is_some_and(|c| c.iter().any(|x| x.as_u64() == Some(i as u64)))
        });
        let l = local(&self.nodes[i]);
        match parent {
            Some(p) => self.world(p) * l,
            None => l,
        }
    }

    fn rest_ibms(&self) -> Vec<[f32; 16]> {
        self.joints
            .iter()
            .map(|&j| self.world(j).inverse().to_cols_array().map(|x| x as f32))
            .collect()
    }

    /// IBMs that bind every joint at `frame`: inverse(rest world) · `frame`.
    fn ibms_at(&self, frame: DMat4) -> Vec<[f32; 16]> {
        self.joints
            .iter()
            .map(|&j| {
                (self.world(j).inverse() * frame)
                    .to_cols_array()
                    .map(|v| v as f32)
            })
            .collect()
    }

    /// Adds a JOINTS_n / WEIGHTS_n set, all zero but vertex `v`'s `joints` and `weights`.
    fn push_set(&mut self, v: usize, joints: [u8; 4], weights: [f32; 4]) {
        let n = self.positions.len();
        let mut set: InfluenceSet = (vec![[0; 4]; n], vec![[0.0; 4]; n]);
        set.0[v] = joints;
        set.1[v] = weights;
        self.sets.push(set);
    }

    /// The document: JSON root (buffer 0 without a uri) and the binary buffer.
    fn build(&self) -> (Value, Vec<u8>) {
        let mut bin: Vec<u8> = Vec::new();
        let mut views: Vec<Value> = Vec::new();
        let mut accessors: Vec<Value> = Vec::new();
        let mut add = |bytes: Vec<u8>, acc: Value| -> usize {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
            bin.extend_from_slice(&bytes);
            let mut acc = acc;
            acc["bufferView"] = json!(views.len() - 1);
            accessors.push(acc);
            accessors.len() - 1
        };
        let n = self.positions.len();
        let pos = add(
            f32s(&self.positions.concat()),
            json!({"componentType": 5126, "count": n, "type": "VEC3",
                   "min": [0.0, 1.0, 0.05], "max": [0.7, 2.4, 0.05]}),
        );
        let mut attributes = json!({"POSITION": pos});
        for (k, (j, w)) in self.sets.iter().enumerate() {
            let ja = add(
                j.concat(),
                json!({"componentType": 5121, "count": j.len(), "type": "VEC4"}),
            );
            let wa = add(
                f32s(&w.concat()),
                json!({"componentType": 5126, "count": w.len(), "type": "VEC4"}),
            );
            attributes[format!("JOINTS_{k}")] = json!(ja);
            attributes[format!("WEIGHTS_{k}")] = json!(wa);
        }
        let tris: Vec<u16> = vec![0, 1, 2, 2, 3, 4, 4, 5, 6, 5, 6, 7];
        let idx = add(
            u16s(&tris),
            json!({"componentType": 5123, "count": tris.len(), "type": "SCALAR"}),
        );
        let ibms = self.ibms.clone().unwrap_or_else(|| self.rest_ibms());
        let ibm = add(
            f32s(&ibms.concat()),
            json!({"componentType": 5126, "count": ibms.len(), "type": "MAT4"}),
        );
        let times = add(
            f32s(&[0.0, 1.0]),
            json!({"componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}),
        );
        let rots = add(
            f32s(&self.spine_keys.concat()),
            json!({"componentType": 5126, "count": 2, "type": "VEC4"}),
        );

        let mut skin = json!({"name": "rig", "joints": self.joints, "inverseBindMatrices": ibm});
        if let Some(s) = self.skeleton {
            skin["skeleton"] = json!(s);
        }
        let root = json!({
            "asset": {"version": "2.0", "generator": "tests/lint.rs"},
            "scene": 0,
            "scenes": [{"nodes": self.scene}],
            "nodes": self.nodes,
            "meshes": [{"name": "body", "primitives": [{"attributes": attributes, "indices": idx}]}],
            "skins": [skin],
            "animations": [{
                "name": "bend",
                "samplers": [{"input": times, "output": rots}],
                "channels": [{"sampler": 0, "target": {"node": 3, "path": "rotation"}}]
            }],
            "accessors": accessors,
            "bufferViews": views,
            "buffers": [{"byteLength": bin.len()}],
        });
        (root, bin)
    }
}

/// The document as `.gltf` text with the buffer as a base64 data URI.
fn embedded(root: &Value, bin: &[u8]) -> Vec<u8> {
    let mut r = root.clone();
    r["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bin)
    ));
    serde_json::to_vec_pretty(&r).unwrap()
}

fn lint_doc(root: &Value, bin: &[u8]) -> LintReport {
    lint_slice(&glb(root, bin), "fixture.glb", None)
}

/// Errors and warnings as `severity code pointer`.
fn problems(r: &LintReport) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| format!("{} {} {}", f.severity.as_str(), f.code, f.pointer))
        .collect()
}

/// Asserts that the report has no errors or warnings (printing it when it has).
#[track_caller]
fn assert_no_problems(r: &LintReport) {
    assert_eq!(problems(r), Vec::<String>::new(), "{}", r.render_text());
}

const PRIM: &str = "/meshes/0/primitives/0/attributes";

/// Removes `key` from the JSON object `v`.
fn remove_key(v: &mut Value, key: &str) {
    v.as_object_mut().unwrap().remove(key);
}

/// The attributes of the fixture's one primitive (at `PRIM`).
fn attributes(r: &mut Value) -> &mut Value {
    &mut r["meshes"][0]["primitives"][0]["attributes"]
}

// ---------------------------------------------------------------------------------------------
// Clean

#[test]
fn clean_fixture_has_no_findings_in_all_three_containers() {
    let (root, bin) = base().build();
    let r = lint_doc(&root, &bin);
    assert_eq!(r.findings, [], "{}", r.render_text());
    assert!(!r.has_errors());
    assert_eq!(r.verdict, "OK: 0 errors, 0 warnings, 0 infos");
    assert_eq!(r.container, "glb");
    assert_eq!((r.skin_count, r.skinned_mesh_nodes), (1, 1));
    assert_eq!((r.nodes, r.meshes, r.animations), (6, 1, 1));
    let s = &r.skins[0];
    assert_eq!(s.name.as_deref(), Some("rig"));
    assert_eq!(s.joints, 4);
    assert_eq!((s.root, s.root_name.as_deref()), (Some(2), Some("hips")));
    assert_eq!(
        (s.skeleton, s.skeleton_is_common_ancestor),
        (Some(1), Some(true))
    );
    assert_eq!(s.inverse_bind_matrices, Some(4));
    assert!(s.ibm_ok);
    assert!(s.max_bind_error.unwrap() < 1e-6, "{:?}", s.max_bind_error);
    assert_eq!((s.mesh_nodes, s.animated_joints), (1, 1));
    let p = &r.primitives[0];
    assert_eq!(
        (p.mesh, p.primitive, p.vertices, p.influence_sets),
        (0, 0, 8, 1)
    );
    assert_eq!(
        (p.nodes.as_slice(), p.skins.as_slice()),
        ([0usize].as_slice(), [0usize].as_slice())
    );
    assert_eq!(p.max_joint, Some(3));
    let h = p.weight_sums.clone().unwrap();
    assert_eq!(
        [h.zero, h.below, h.low, h.unit, h.high, h.above, h.invalid],
        [0, 0, 0, 8, 0, 0, 0]
    );

    // Embedded .gltf, and a .gltf with the buffer in a file next to it.
    let r = lint_slice(&embedded(&root, &bin), "fixture.gltf", None);
    assert_eq!(r.findings, []);
    assert_eq!(r.container, "gltf");
    let dir = common::scratch("external");
    let mut ext = root.clone();
    ext["buffers"][0]["uri"] = json!("fixture%20data.bin");
    std::fs::write(dir.join("fixture data.bin"), &bin).unwrap();
    std::fs::write(dir.join("fixture.gltf"), serde_json::to_vec(&ext).unwrap()).unwrap();
    let r = lint_path(&dir.join("fixture.gltf"));
    assert_eq!(r.findings, [], "{}", r.render_text());
    assert_eq!(r.skins[0].max_bind_error, {
        let g = lint_doc(&root, &bin);
        g.skins[0].max_bind_error
    });
}

// ---------------------------------------------------------------------------------------------
// One defect each

type Case = (&'static str, Box<dyn Fn() -> (Value, Vec<u8>)>, Vec<String>);

fn fx(f: impl Fn(&mut Fx) + 'static) -> Box<dyn Fn() -> (Value, Vec<u8>)> {
    Box::new(move || {
        let mut x = base();
        f(&mut x);
        x.build()
    })
}

fn doc(f: impl Fn(&mut Value, &mut Vec<u8>) + 'static) -> Box<dyn Fn() -> (Value, Vec<u8>)> {
    Box::new(move || {
        let (mut r, mut b) = base().build();
        f(&mut r, &mut b);
        (r, b)
    })
}

fn want(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn cases() -> Vec<Case> {
    vec![
        (
            "IBMs missing",
            doc(|r, _| {
                remove_key(&mut r["skins"][0], "inverseBindMatrices");
            }),
            want(&["error ibm-missing /skins/0/inverseBindMatrices"]),
        ),
        (
            "IBMs not MAT4",
            doc(|r, _| r["accessors"][4]["type"] = json!("MAT3")),
            want(&["error ibm-type /skins/0/inverseBindMatrices"]),
        ),
        (
            "IBMs not FLOAT",
            doc(|r, _| r["accessors"][4]["componentType"] = json!(5125)),
            want(&["error ibm-type /skins/0/inverseBindMatrices"]),
        ),
        (
            "one IBM short",
            fx(|x| {
                let mut m = x.rest_ibms();
                m.pop();
                x.ibms = Some(m);
            }),
            want(&["error ibm-count /skins/0/inverseBindMatrices"]),
        ),
        (
            "one IBM too many",
            fx(|x| {
                let mut m = x.rest_ibms();
                m.push(m[0]);
                x.ibms = Some(m);
            }),
            want(&["error ibm-count /skins/0/inverseBindMatrices"]),
        ),
        (
            "singular IBM",
            fx(|x| {
                let mut m = x.rest_ibms();
                m[2] = DMat4::from_scale(DVec3::new(1.0, 0.0, 1.0))
                    .to_cols_array()
                    .map(|v| v as f32);
                x.ibms = Some(m);
            }),
            want(&["error ibm-not-invertible /skins/0/joints/2"]),
        ),
        (
            "non-affine IBM",
            fx(|x| {
                let mut m = x.rest_ibms();
                m[1][3] = 0.5;
                x.ibms = Some(m);
            }),
            // The last row takes part in world · IBM, so the bind check sees it too; slot 1 is
            // the spine, which the clip drives: an info.
            want(&[
                "warning ibm-not-affine /skins/0/inverseBindMatrices",
                "info bind-rest-mismatch /skins/0/joints/1",
            ]),
        ),
        (
            "rest pose moved after binding (an animated joint and its child)",
            fx(|x| {
                x.ibms = Some(x.rest_ibms());
                x.nodes[3]["translation"] = json!([0.0, 0.6, 0.0]);
            }),
            // The spine is animated (saved posed: an info); the head under it is not.
            want(&[
                "info bind-rest-mismatch /skins/0/joints/1",
                "warning bind-rest-mismatch /skins/0/joints/2",
            ]),
        ),
        (
            "rest pose moved after binding, the joint animated through KHR_animation_pointer",
            doc(|r, _| {
                r["nodes"][4]["translation"] = json!([0.0, 0.6, 0.0]);
                r["animations"][0]["channels"][0]["target"] = json!({
                    "path": "pointer",
                    "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/4/rotation"}}
                });
            }),
            want(&["info bind-rest-mismatch /skins/0/joints/2"]),
        ),
        (
            "duplicate names, neither node a joint",
            fx(|x| x.nodes[1]["name"] = json!("Body")),
            want(&["info name-duplicate /nodes/1/name"]),
        ),
        (
            "rest pose moved after binding (one joint)",
            fx(|x| {
                x.ibms = Some(x.rest_ibms());
                x.nodes[4]["translation"] = json!([0.0, 0.6, 0.0]);
            }),
            want(&["warning bind-rest-mismatch /skins/0/joints/2"]),
        ),
        (
            "rest pose moved after binding (whole skeleton)",
            fx(|x| {
                x.ibms = Some(x.rest_ibms());
                x.nodes[1]["translation"] = json!([0.0, 0.0, 2.5]);
            }),
            want(&["info bind-pose-offset /skins/0/inverseBindMatrices"]),
        ),
        (
            "the whole bind pose offset from an identity mesh node (SimpleSkin-like)",
            fx(|x| {
                let shift = DMat4::from_translation(DVec3::new(-0.5, 0.0, 0.25));
                x.ibms = Some(x.ibms_at(shift));
            }),
            want(&["info bind-pose-offset /skins/0/inverseBindMatrices"]),
        ),
        (
            "mesh node under a transformed parent, bound at its frame (CesiumMan-like)",
            fx(|x| {
                x.nodes[1]["children"] = json!([2, 0]);
                x.scene = vec![1];
                x.ibms = Some(x.ibms_at(x.world(0)));
            }),
            want(&["info skinned-mesh-transformed /nodes/0"]),
        ),
        (
            "first keyframe away from rest",
            fx(|x| x.spine_keys[0] = f32q(DQuat::from_rotation_x(0.2 + 0.17))),
            want(&["info first-key-snap /animations/0"]),
        ),
        (
            "the skinned mesh node animated",
            doc(|r, _| r["animations"][0]["channels"][0]["target"]["node"] = json!(0)),
            want(&["warning skinned-mesh-animated /animations/0/channels/0/target/path"]),
        ),
        (
            "IBMs in a strided buffer view",
            doc(|r, _| r["bufferViews"][4]["byteStride"] = json!(64)),
            want(&["error ibm-strided /skins/0/inverseBindMatrices"]),
        ),
        (
            "IBMs a placeholder (no buffer view)",
            doc(|r, _| {
                remove_key(&mut r["accessors"][4], "bufferView");
            }),
            want(&["info accessor-no-data /skins/0/inverseBindMatrices"]),
        ),
        (
            "joints outside the mesh node's scene",
            fx(|x| x.scene = vec![0]),
            want(&["error skin-joints-not-in-scene /nodes/0"]),
        ),
        (
            "a joint named with weight zero",
            fx(|x| x.sets[0].0[0] = [0, 3, 0, 0]),
            want(&[&format!("info joint-zero-weight {PRIM}/JOINTS_0")]),
        ),
        (
            "a joint named twice across JOINTS_0 and JOINTS_1",
            fx(|x| {
                x.sets[0].1[7] = [0.5, 0.25, 0.125, 0.0];
                x.push_set(7, [2, 0, 0, 0], [0.125, 0.0, 0.0, 0.0]);
            }),
            want(&[
                &format!("error joint-repeated {PRIM}/JOINTS_1"),
                &format!("info influences-over-4 {PRIM}/JOINTS_1"),
            ]),
        ),
        (
            "weights summing to 1.25 across WEIGHTS_0 and WEIGHTS_1",
            fx(|x| x.push_set(3, [1, 0, 0, 0], [0.25, 0.0, 0.0, 0.0])),
            want(&[
                &format!("error weights-not-normalized {PRIM}/WEIGHTS_0"),
                &format!("info influences-over-4 {PRIM}/JOINTS_1"),
            ]),
        ),
        (
            "JOINTS_0 without WEIGHTS_0",
            doc(|r, _| {
                remove_key(attributes(r), "WEIGHTS_0");
            }),
            want(&[&format!("error joints-weights-unpaired {PRIM}/JOINTS_0")]),
        ),
        (
            "WEIGHTS_0 without JOINTS_0",
            doc(|r, _| {
                remove_key(attributes(r), "JOINTS_0");
            }),
            want(&[
                &format!("error joints-weights-unpaired {PRIM}/WEIGHTS_0"),
                "error node-skin-without-joints /nodes/0/skin",
            ]),
        ),
        (
            "JOINTS but the node has no skin",
            doc(|r, _| {
                remove_key(&mut r["nodes"][0], "skin");
            }),
            want(&[
                "warning node-joints-without-skin /nodes/0",
                "info skin-unused /skins/0",
            ]),
        ),
        (
            "skin but the mesh has no JOINTS",
            doc(|r, _| {
                let a = attributes(r);
                remove_key(a, "JOINTS_0");
                remove_key(a, "WEIGHTS_0");
            }),
            want(&["error node-skin-without-joints /nodes/0/skin"]),
        ),
        (
            "skin but no mesh",
            doc(|r, _| {
                remove_key(&mut r["nodes"][0], "mesh");
            }),
            want(&["error node-skin-without-mesh /nodes/0/skin"]),
        ),
        (
            "JOINTS value beyond the slots",
            fx(|x| x.sets[0].0[4] = [7, 0, 0, 0]),
            want(&[&format!("error joints-out-of-range {PRIM}/JOINTS_0")]),
        ),
        (
            "JOINTS written as node indices",
            fx(|x| {
                let nodes = x.joints.clone();
                for j in x.sets[0].0.iter_mut() {
                    *j = j.map(|s| nodes[s as usize] as u8);
                }
            }),
            want(&[
                &format!("error joints-out-of-range {PRIM}/JOINTS_0"),
                &format!("error joint-slot-as-node-index {PRIM}/JOINTS_0"),
            ]),
        ),
        (
            "zero-sum vertex",
            fx(|x| x.sets[0].1[3] = [0.0; 4]),
            want(&[&format!("error weights-zero-sum {PRIM}/WEIGHTS_0")]),
        ),
        (
            "weights summing to 0.9",
            fx(|x| x.sets[0].1[6] = [0.9, 0.0, 0.0, 0.0]),
            want(&[&format!("error weights-not-normalized {PRIM}/WEIGHTS_0")]),
        ),
        (
            "weights summing to 1.2",
            fx(|x| x.sets[0].1[1] = [0.6, 0.6, 0.0, 0.0]),
            want(&[&format!("error weights-not-normalized {PRIM}/WEIGHTS_0")]),
        ),
        (
            "negative weight",
            fx(|x| x.sets[0].1[1] = [1.5, -0.5, 0.0, 0.0]),
            // The valid weights sum to 1.5, as the validator also counts them.
            want(&[
                &format!("error weights-invalid {PRIM}/WEIGHTS_0"),
                &format!("error weights-not-normalized {PRIM}/WEIGHTS_0"),
            ]),
        ),
        (
            "negative weight, the others summing to 1",
            fx(|x| x.sets[0].1[2] = [1.0, -0.25, 0.0, 0.0]),
            want(&[&format!("error weights-invalid {PRIM}/WEIGHTS_0")]),
        ),
        (
            "a joint named again across sets with a negative weight",
            fx(|x| x.push_set(2, [0, 0, 2, 0], [0.0, 0.0, -0.5, 0.0])),
            want(&[
                &format!("error weights-invalid {PRIM}/WEIGHTS_0"),
                &format!("error joint-repeated {PRIM}/JOINTS_1"),
                &format!("info influences-over-4 {PRIM}/JOINTS_1"),
            ]),
        ),
        (
            "weights normalised only across WEIGHTS_0 and WEIGHTS_1",
            fx(|x| {
                x.sets[0].1[0] = [0.25, 0.0, 0.0, 0.0];
                x.sets[0].0[0] = [0, 0, 0, 0];
                x.push_set(0, [1, 2, 3, 0], [0.25, 0.25, 0.25, 0.0]);
            }),
            want(&[&format!("info influences-over-4 {PRIM}/JOINTS_1")]),
        ),
        (
            "joint repeated within a vertex",
            fx(|x| x.sets[0].0[1] = [0, 0, 0, 0]),
            want(&[&format!("error joint-repeated {PRIM}/JOINTS_0")]),
        ),
        (
            "five influences (JOINTS_1)",
            fx(|x| {
                x.sets[0].0[7] = [2, 3, 1, 0];
                x.sets[0].1[7] = [0.5, 0.25, 0.125, 0.0];
                x.push_set(7, [0, 0, 0, 0], [0.125, 0.0, 0.0, 0.0]);
            }),
            want(&[&format!("info influences-over-4 {PRIM}/JOINTS_1")]),
        ),
        (
            "indices written as whole floats (1.0 is the JSON integer 1)",
            doc(|r, _| {
                r["nodes"][0]["mesh"] = json!(0.0);
                r["skins"][0]["joints"] = json!([2.0, 3.0, 4.0, 5.0]);
                r["accessors"][4]["count"] = json!(4.0);
            }),
            want(&[]),
        ),
        (
            "duplicate node names",
            fx(|x| x.nodes[5]["name"] = json!("spine")),
            want(&["warning name-duplicate /nodes/5/name"]),
        ),
        (
            "name over 63 bytes",
            fx(|x| x.nodes[4]["name"] = json!("h".repeat(64))),
            want(&["warning name-too-long /nodes/4/name"]),
        ),
        (
            "skeleton not an ancestor of the joints",
            fx(|x| x.skeleton = Some(0)),
            want(&["error skin-skeleton-not-ancestor /skins/0/skeleton"]),
        ),
        (
            "joints without a common root",
            fx(|x| {
                x.nodes[2]["children"] = json!([3]);
                x.scene.push(5);
                x.skeleton = None;
            }),
            want(&["error skin-no-common-root /skins/0/joints"]),
        ),
        (
            "a node twice in the joints",
            fx(|x| x.joints[3] = 4),
            want(&["error skin-joint-duplicate /skins/0/joints/3"]),
        ),
        (
            "skinned mesh node with a transform",
            fx(|x| x.nodes[0]["translation"] = json!([1.0, 0.0, 0.0])),
            want(&["info skinned-mesh-transformed /nodes/0"]),
        ),
        (
            "unskinned primitive in a skinned mesh",
            doc(|r, _| {
                let p = json!({"attributes": {"POSITION": 0}, "indices": 3});
                r["meshes"][0]["primitives"].as_array_mut().unwrap().push(p);
            }),
            want(&["warning primitive-not-skinned /meshes/0/primitives/1"]),
        ),
        (
            "JOINTS count differs from POSITION",
            doc(|r, _| r["accessors"][1]["count"] = json!(7)),
            want(&[&format!("error attribute-count {PRIM}/JOINTS_0")]),
        ),
        (
            "JOINTS normalized",
            doc(|r, _| r["accessors"][1]["normalized"] = json!(true)),
            want(&[&format!("error joints-type {PRIM}/JOINTS_0")]),
        ),
        (
            "WEIGHTS as VEC3",
            doc(|r, _| r["accessors"][2]["type"] = json!("VEC3")),
            want(&[&format!("error weights-type {PRIM}/WEIGHTS_0")]),
        ),
        (
            "IBM accessor past its buffer view",
            doc(|r, _| r["accessors"][4]["byteOffset"] = json!(16)),
            want(&["error accessor-invalid /accessors/4"]),
        ),
        (
            "non-unit rotation",
            doc(|r, _| r["nodes"][4]["rotation"] = json!([0.0, 0.0, 0.0, 2.0])),
            want(&["error node-transform-invalid /nodes/4/rotation"]),
        ),
        (
            "byteLength not a number",
            doc(|r, _| r["buffers"][0]["byteLength"] = json!("x")),
            want(&["error json-schema /buffers/0/byteLength"]),
        ),
        (
            "buffer shorter than declared",
            doc(|r, b| {
                let n = b.len() as u64;
                r["buffers"][0]["byteLength"] = json!(n + 64);
            }),
            want(&["error buffer-too-short /buffers/0"]),
        ),
    ]
}

#[test]
fn each_defect_alone_gives_exactly_its_findings() {
    let mut failures = Vec::new();
    for (name, make, expected) in cases() {
        let (root, bin) = make();
        for (container, r) in [
            ("glb", lint_doc(&root, &bin)),
            ("gltf", lint_slice(&embedded(&root, &bin), "x.gltf", None)),
        ] {
            let got = if expected.iter().any(|e| e.starts_with("info ")) {
                findings(&r)
            } else {
                problems(&r)
            };
            if got != expected {
                failures.push(format!(
                    "{name} ({container}): expected {expected:?}\n{}",
                    r.render_text()
                ));
            }
            let errors = expected.iter().any(|e| e.starts_with("error "));
            assert_eq!(r.has_errors(), errors, "{name}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn messages_name_values_slots_and_nodes() {
    let msg = |r: &LintReport, code: &str| -> String {
        r.findings
            .iter()
            .find(|f| f.code == code)
            .unwrap_or_else(|| panic!("no {code}:\n{}", r.render_text()))
            .message
            .clone()
    };
    let lint = |f: &dyn Fn(&mut Fx)| {
        let mut x = base();
        f(&mut x);
        let (r, b) = x.build();
        lint_doc(&r, &b)
    };

    let r = lint(&|x| x.sets[0].0[4] = [7, 0, 0, 0]);
    assert_eq!(
        msg(&r, "joints-out-of-range"),
        "mesh 0 primitive 0: JOINTS values reach 7, but skin 0 has 4 joints (slots 0..3): 1 vertices use an out-of-range slot with non-zero weight, 0 more with weight zero (first: vertex 4)"
    );
    assert_eq!(r.primitives[0].max_joint, Some(7));

    let r = lint(&|x| {
        for j in x.sets[0].0.iter_mut() {
            *j = j.map(|s| s + 2);
        }
    });
    assert_eq!(
        msg(&r, "joint-slot-as-node-index"),
        "mesh 0 primitive 0: every JOINTS value in use is the node index of a joint of skin 0, and 2 of them lie beyond its 4 slots (e.g. value 4 = node 4 \"head\" = slot 2): the values were written as node indices instead of joint slots"
    );
    // Zero-weight influences (joint 0 + 2 = node 2) are out of range too: counted apart.
    assert!(msg(&r, "joints-out-of-range").contains("JOINTS values reach 5"));

    let r = lint(&|x| {
        x.sets[0].1[3] = [0.0; 4];
        x.sets[0].1[6] = [0.0; 4];
        x.sets[0].1[1] = [0.5, 0.48, 0.0, 0.0];
    });
    assert_eq!(
        msg(&r, "weights-zero-sum"),
        "mesh 0 primitive 0: 2 vertices have weights summing to zero (first: vertex 3): they are bound to no joint and freeze or collapse to the origin"
    );
    let h = r.primitives[0].weight_sums.clone().unwrap();
    assert_eq!(
        [h.zero, h.below, h.low, h.unit, h.high, h.above, h.invalid],
        [2, 0, 1, 5, 0, 0, 0]
    );
    assert_eq!(
        (
            r.primitives[0].zero_sum_vertices,
            r.primitives[0].sums_outside_tolerance
        ),
        (2, 0)
    );

    // A joint named in JOINTS_0 and again in JOINTS_1: the vertex, the slot and both places.
    let r = lint(&|x| {
        x.sets[0].1[5] = [0.5, 0.25, 0.125, 0.0];
        x.push_set(5, [3, 0, 0, 0], [0.125, 0.0, 0.0, 0.0]);
    });
    assert_eq!(
        msg(&r, "joint-repeated"),
        "mesh 0 primitive 0: 1 influences name a joint slot the same vertex already uses with non-zero weight (first: vertex 5, slot 3, in JOINTS_0[0] and JOINTS_1[0]): GPU skinning adds the two weights, Blender's importer keeps only the last"
    );
    // Normalised over both sets, so no sum finding; 1.125 over WEIGHTS_0 alone would be one.
    assert!(!r
        .findings
        .iter()
        .any(|f| f.code == "weights-not-normalized"));
    let r = lint(&|x| x.push_set(6, [2, 0, 0, 0], [0.5, 0.0, 0.0, 0.0]));
    assert_eq!(
        msg(&r, "weights-not-normalized"),
        "mesh 0 primitive 0: 1 vertices have weight sums (summed over WEIGHTS_0 to WEIGHTS_1) outside 0.97..1.03 (first: vertex 6, sum 1.500000)"
    );

    let moved = |x: &mut Fx| {
        x.ibms = Some(x.rest_ibms());
        x.nodes[4]["translation"] = json!([0.0, 0.5, 0.0]);
    };
    let r = lint(&moved);
    let m = msg(&r, "bind-rest-mismatch");
    assert!(
        m.starts_with(
            "skin 0, joint slot 2 (node 4 \"head\"): world · IBM is off the identity by "
        ),
        "{m}"
    );
    // The head moved 0.1 along its parent's axes: the translation error is 0.1, relative to
    // the size of the head's world translation.
    assert!(
        m.contains(" in rotation/scale and 100 mm in translation"),
        "{m}"
    );
    let mut after = base();
    moved(&mut after);
    let size = head_world_len(&base()).max(head_world_len(&after));
    let bind = r.skins[0].max_bind_error.unwrap();
    assert!((bind - 0.1 / size).abs() < 1e-6, "{bind} vs {}", 0.1 / size);

    let r = lint(&|x| x.spine_keys[0] = f32q(DQuat::from_rotation_x(0.2 + 0.17)));
    let m = msg(&r, "first-key-snap");
    assert!(
        m.starts_with("animation 0 \"bend\": 1 of its 1 joint channels start away from the rest pose (usual for a clip), so starting it jumps from the rest pose on its first frame; worst: channel 0 node 3 \"spine\" rotation: rotation differs from rest by 9.74"),
        "{m}"
    );

    // A third "spine" becomes "spine.002" in Blender, not a second "spine.001".
    let r = lint(&|x| {
        x.nodes[4]["name"] = json!("spine");
        x.nodes[5]["name"] = json!("spine");
    });
    let renames: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.code == "name-duplicate")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        renames,
        [
            "node 4 is named \"spine\" like node 3; Blender renames it (\"spine.001\"), so matching joints by name breaks",
            "node 5 is named \"spine\" like node 3; Blender renames it (\"spine.002\"), so matching joints by name breaks",
        ]
    );

    let r = lint(&|x| x.nodes[4]["name"] = json!("é".repeat(33)));
    assert_eq!(
        msg(&r, "name-too-long"),
        format!(
            "node 4: name {:?} is 66 bytes; Blender cuts it to {:?}",
            "é".repeat(33),
            "é".repeat(31)
        )
    );
}

/// Length of the head's rest world translation (the scale of its bind error).
fn head_world_len(x: &Fx) -> f64 {
    x.world(4).w_axis.truncate().length().max(1.0)
}

#[test]
fn unused_extra_influence_set_and_unused_skin_are_infos() {
    let mut x = base();
    x.sets.push((vec![[0; 4]; 8], vec![[0.0; 4]; 8]));
    let (r, b) = x.build();
    let rep = lint_doc(&r, &b);
    assert_no_problems(&rep);
    assert_eq!(rep.codes(Severity::Info), ["influences-over-4"]);
    assert_eq!(rep.primitives[0].influence_sets, 2);

    let (mut r, b) = base().build();
    r["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Other", "mesh": 0, "skin": 1}));
    r["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(6));
    r["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({"joints": [2, 3, 4, 5], "inverseBindMatrices": 4}));
    let rep = lint_doc(&r, &b);
    assert_no_problems(&rep);
    assert_eq!((rep.skin_count, rep.skinned_mesh_nodes), (2, 2));
    assert_eq!(rep.primitives[0].skins, [0, 1]);
    assert_eq!(rep.skins[1].skeleton_is_common_ancestor, None);

    // Without a node using it, a skin is reported as unused (and the JOINTS as skinless).
    let (mut r, b) = base().build();
    remove_key(&mut r["nodes"][0], "skin");
    let rep = lint_doc(&r, &b);
    assert_eq!(rep.codes(Severity::Info), ["skin-unused"]);
}

#[test]
fn file_without_skins_is_valid() {
    let (mut r, b) = base().build();
    let o = r.as_object_mut().unwrap();
    o.remove("skins");
    o.remove("animations");
    remove_key(&mut r["nodes"][0], "skin");
    let a = attributes(&mut r);
    remove_key(a, "JOINTS_0");
    remove_key(a, "WEIGHTS_0");
    let rep = lint_doc(&r, &b);
    assert_eq!(rep.codes(Severity::Info), ["no-skins"]);
    assert!(!rep.has_errors() && !rep.has_warnings());
    assert_eq!((rep.skin_count, rep.skinned_mesh_nodes), (0, 0));
}

#[test]
fn missing_ibms_on_joints_at_the_origin_is_only_an_info() {
    let mut x = base();
    x.nodes = vec![
        json!({"name": "Body", "mesh": 0, "skin": 0}),
        json!({"name": "a", "children": [2]}),
        json!({"name": "b"}),
    ];
    x.joints = vec![1, 2];
    x.sets[0].0 = vec![[0, 1, 0, 0]; 8];
    x.sets[0].1 = vec![[0.5, 0.5, 0.0, 0.0]; 8];
    let (mut r, b) = x.build();
    remove_key(&mut r["skins"][0], "inverseBindMatrices");
    r["animations"] = json!([]);
    let rep = lint_doc(&r, &b);
    assert_no_problems(&rep);
    assert_eq!(rep.codes(Severity::Info), ["ibm-missing"]);
}

/// What other exporters write: joint nodes with `matrix`, JOINTS (u16) and normalized u8
/// WEIGHTS interleaved in one strided view, IBMs as a sparse accessor without a buffer view,
/// a CUBICSPLINE sampler (value between the tangents), no indices.
fn other_exporter(first_value_y: f32) -> (Value, Vec<u8>) {
    let mut bin: Vec<u8> = Vec::new();
    bin.extend(f32s(&[0.0, 1.0, 0.0, 0.1, 1.5, 0.0, -0.1, 1.2, 0.0])); // 0..36 positions
    for (j, w) in [
        ([0u16, 1, 0, 0], [128u8, 127, 0, 0]),
        ([1, 0, 0, 0], [255, 0, 0, 0]),
        ([0, 0, 0, 0], [255, 0, 0, 0]),
    ] {
        bin.extend(u16s(&j));
        bin.extend(w);
    } // 36..72 interleaved, stride 12
    bin.extend([0u8, 1, 0, 0]); // 72..76 sparse indices
    let ibm0 = DMat4::from_translation(DVec3::new(0.0, -1.0, 0.0));
    let ibm1 = DMat4::from_translation(DVec3::new(0.0, -1.5, 0.0));
    for m in [ibm0, ibm1] {
        bin.extend(f32s(&m.to_cols_array().map(|x| x as f32)));
    } // 76..204 sparse values
    bin.extend(f32s(&[0.0, 1.0])); // 204..212 times
    bin.extend(f32s(&[
        9.0,
        9.0,
        9.0,
        0.0,
        first_value_y,
        0.0,
        9.0,
        9.0,
        9.0, //
        0.0,
        0.0,
        0.0,
        0.0,
        0.8,
        0.0,
        0.0,
        0.0,
        0.0,
    ])); // 212..284 cubic spline translations
    let root = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "Body", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2],
             "matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0]},
            {"name": "tip", "translation": [0.0, 0.5, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "skins": [{"joints": [1, 2], "skeleton": 1, "inverseBindMatrices": 3}],
        "animations": [{
            "samplers": [{"input": 4, "output": 5, "interpolation": "CUBICSPLINE"}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]
        }],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "VEC4"},
            {"bufferView": 1, "byteOffset": 8, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC4"},
            {"componentType": 5126, "count": 2, "type": "MAT4",
             "sparse": {"count": 2, "indices": {"bufferView": 2, "componentType": 5121},
                        "values": {"bufferView": 3}}},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 5, "componentType": 5126, "count": 6, "type": "VEC3"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36, "byteStride": 12},
            {"buffer": 0, "byteOffset": 72, "byteLength": 2},
            {"buffer": 0, "byteOffset": 76, "byteLength": 128},
            {"buffer": 0, "byteOffset": 204, "byteLength": 8},
            {"buffer": 0, "byteOffset": 212, "byteLength": 72}
        ],
        "buffers": [{"byteLength": bin.len()}]
    });
    (root, bin)
}

#[test]
fn other_exporters_layouts_are_read_right() {
    let (r, b) = other_exporter(0.5);
    let rep = lint_doc(&r, &b);
    assert_eq!(rep.findings, [], "{}", rep.render_text());
    assert!(rep.skins[0].max_bind_error.unwrap() < 1e-7);
    assert_eq!(rep.skins[0].animated_joints, 1);
    let p = &rep.primitives[0];
    assert_eq!((p.vertices, p.max_joint), (3, Some(1)));
    assert_eq!(p.weight_sums.as_ref().unwrap().unit, 3);
    // The key's value (not its in-tangent) is compared with the rest pose.
    let (r, b) = other_exporter(0.7);
    let rep = lint_doc(&r, &b);
    assert_eq!(findings(&rep), ["info first-key-snap /animations/0"]);
    assert!(rep.findings[0].message.ends_with(
        "worst: channel 0 node 2 \"tip\" translation: translation (0, 700, 0) mm vs rest (0, 500, 0) mm"
    ), "{}", rep.findings[0].message);
    // A sparse index past the count is an accessor error, not a read out of bounds.
    let (mut r, mut b) = other_exporter(0.5);
    b[73] = 2;
    r["asset"]["generator"] = json!("x");
    let rep = lint_doc(&r, &b);
    assert_eq!(problems(&rep), ["error accessor-invalid /accessors/3"]);
}

// ---------------------------------------------------------------------------------------------
// Containers, buffers, output

#[test]
fn unreadable_and_unparseable_inputs_are_reports() {
    let r = lint_path(Path::new("/nonexistent/rigtrip/lint.glb"));
    assert!(r.has_errors());
    assert_eq!(r.codes(Severity::Error), ["unreadable"]);
    assert_eq!(r.verdict, "FAIL: 1 error, 0 warnings, 0 infos");

    for (bytes, code) in [
        (b"".as_slice(), "json-invalid"),
        (b"not json", "json-invalid"),
        (b"[1, 2]", "json-invalid"),
        (b"glTF", "glb-invalid"),
        (b"glTF\x01\0\0\0\x0c\0\0\0", "glb-invalid"),
        (b"{}", "asset-version"),
        (br#"{"asset": {"version": "1.0"}}"#, "asset-version"),
    ] {
        let r = lint_slice(bytes, "x", None);
        assert_eq!(
            r.codes(Severity::Error),
            [code],
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn cli_exit_codes_bad_input_2_error_1_clean_0() {
    let dir = common::scratch("exit");
    let (root, bin) = base().build();
    let clean = dir.join("clean.glb");
    std::fs::write(&clean, glb(&root, &bin)).unwrap();
    let mut x = base();
    x.sets[0].0[4] = [7, 0, 0, 0];
    let (r, b) = x.build();
    let broken = dir.join("broken.glb");
    std::fs::write(&broken, glb(&r, &b)).unwrap();
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not glTF").unwrap();
    let no_asset = dir.join("other.json");
    std::fs::write(&no_asset, "{\"nodes\": []}").unwrap();
    let run = |files: &[&Path]| {
        common::rigtrip()
            .arg("lint")
            .args(files)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(run(&[&clean]), Some(0));
    assert_eq!(run(&[&clean, &broken]), Some(1));
    assert_eq!(run(&[&clean, &text]), Some(2));
    assert_eq!(run(&[&broken, &no_asset]), Some(2));
    assert_eq!(run(&[&dir.join("absent.glb")]), Some(2));
}

#[test]
fn external_buffers_unresolved_or_missing() {
    let (mut r, _) = base().build();
    r["buffers"][0]["uri"] = json!("nowhere.bin");
    let text = serde_json::to_vec(&r).unwrap();
    let rep = lint_slice(&text, "x.gltf", None);
    assert_eq!(problems(&rep), ["warning buffer-unresolved /buffers/0/uri"]);
    let dir = common::scratch("missing");
    let rep = lint_slice(&text, "x.gltf", Some(&dir));
    assert_eq!(problems(&rep), ["error buffer-missing /buffers/0/uri"]);

    r["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@@");
    let rep = lint_slice(&serde_json::to_vec(&r).unwrap(), "x.gltf", None);
    assert_eq!(problems(&rep), ["error buffer-invalid /buffers/0/uri"]);
}

#[test]
fn buffers_nothing_reads_and_meshopt_fallbacks_may_lack_data() {
    // A second buffer, without data, that no buffer view reads.
    let (mut r, b) = base().build();
    r["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 16}));
    let rep = lint_doc(&r, &b);
    assert_eq!(findings(&rep), ["info buffer-missing /buffers/1"]);
    // The EXT_meshopt_compression fallback buffer has no uri by design, though views name it.
    let (mut r, b) = base().build();
    r["buffers"].as_array_mut().unwrap().push(
        json!({"byteLength": 16, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}),
    );
    r["bufferViews"].as_array_mut().unwrap().push(json!({"buffer": 1, "byteLength": 16,
        "extensions": {"EXT_meshopt_compression": {"buffer": 0, "byteLength": 4, "byteStride": 4, "count": 4, "mode": "ATTRIBUTES"}}}));
    let rep = lint_doc(&r, &b);
    assert_eq!(findings(&rep), ["info buffer-missing /buffers/1"]);
    // A buffer a view reads is still an error without its data.
    r["bufferViews"][0]["buffer"] = json!(1);
    remove_key(&mut r["buffers"][1], "extensions");
    let rep = lint_doc(&r, &b);
    assert_eq!(problems(&rep), ["error buffer-missing /buffers/1"]);
}

#[test]
fn glb_header_and_chunk_defects() {
    let (root, bin) = base().build();
    let g = glb(&root, &bin);
    // Length field too large: reported, the rest still checked.
    let mut bad = g.clone();
    bad[8..12].copy_from_slice(&(g.len() as u32 + 4).to_le_bytes());
    let r = lint_slice(&bad, "x.glb", None);
    assert_eq!(problems(&r), ["error glb-invalid "]);
    assert_eq!(r.skin_count, 1);
    // First chunk not JSON.
    let mut bad = g.clone();
    bad[16..20].copy_from_slice(b"BIN\0");
    assert_eq!(
        problems(&lint_slice(&bad, "x.glb", None)),
        ["error glb-invalid "]
    );
    // No BIN chunk: buffer 0 has nowhere to come from.
    let j = u32::from_le_bytes(g[12..16].try_into().unwrap()) as usize;
    let mut cut = g[..20 + j].to_vec();
    let len = cut.len() as u32;
    cut[8..12].copy_from_slice(&len.to_le_bytes());
    let r = lint_slice(&cut, "x.glb", None);
    assert_eq!(problems(&r), ["error buffer-missing /buffers/0"]);
}

#[test]
fn every_truncation_of_a_glb_is_a_report_not_a_panic() {
    let (root, bin) = base().build();
    let g = glb(&root, &bin);
    for n in 0..g.len() {
        let r = lint_slice(&g[..n], "cut.glb", None);
        assert!(r.has_errors(), "cut at {n}");
    }
}

#[test]
fn broken_structure_is_reported_without_looping() {
    // A cycle through the skeleton.
    let (mut r, b) = base().build();
    r["nodes"][4]["children"] = json!([1]);
    let rep = lint_doc(&r, &b);
    assert!(
        rep.codes(Severity::Error).contains(&"node-hierarchy"),
        "{}",
        rep.render_text()
    );
    // A node with two parents.
    let (mut r, b) = base().build();
    r["nodes"][5]["children"] = json!([4]);
    let rep = lint_doc(&r, &b);
    assert_eq!(
        rep.findings[0].message,
        "node 4 is a child of both node 3 and node 5"
    );
    // Indices out of range everywhere.
    let (mut r, b) = base().build();
    r["nodes"][0]["skin"] = json!(9);
    r["nodes"][0]["mesh"] = json!(-1);
    r["skins"][0]["joints"] = json!([2, 3, 99, "x"]);
    r["skins"][0]["inverseBindMatrices"] = json!(1e300);
    r["animations"][0]["channels"][0]["target"]["node"] = json!(77);
    let rep = lint_doc(&r, &b);
    let errs = rep.codes(Severity::Error);
    assert_eq!(
        errs.iter().filter(|c| **c == "index-invalid").count(),
        6,
        "{errs:?}"
    );
    // Wrong JSON types everywhere.
    for junk in [
        json!({"asset": {"version": "2.0"}, "nodes": 5, "skins": [5, null], "meshes": [{"primitives": 7}, 3]}),
        json!({"asset": {"version": "2.0"}, "nodes": [{"children": "x", "matrix": [1]}], "buffers": [{"byteLength": -1}]}),
        json!({"asset": {"version": "2.0"}, "accessors": [{"count": 1e30}], "skins": [{"joints": [], "inverseBindMatrices": 0}]}),
    ] {
        let rep = lint_slice(&serde_json::to_vec(&junk).unwrap(), "junk.gltf", None);
        assert!(rep.has_errors(), "{junk}");
    }
}

#[test]
fn huge_counts_are_refused_not_allocated() {
    let (mut r, b) = base().build();
    // No buffer view: zeros, as many as the count says (refused beyond what the file can hold).
    r["accessors"][4] = json!({"componentType": 5126, "count": 4_000_000_000u64, "type": "MAT4"});
    let rep = lint_doc(&r, &b);
    assert!(problems(&rep).contains(&"error accessor-invalid /accessors/4".to_string()));
    r["accessors"][1]["count"] = json!(u64::MAX);
    let rep = lint_doc(&r, &b);
    assert!(rep.has_errors());
}

#[test]
fn json_output_shape_and_text_table() {
    let mut x = base();
    x.sets[0].0[4] = [7, 0, 0, 0];
    let (r, b) = x.build();
    let bad = lint_doc(&r, &b);
    let (r, b) = base().build();
    let good = lint_doc(&r, &b);

    let text = render_json(std::slice::from_ref(&bad));
    assert!(
        text.starts_with("{\n  \"status\": \"failed\",\n  \"path\": \"fixture.glb\",\n  \"format\": \"glb\",\n  \"verdict\": \"FAIL: 1 error, 0 warnings, 0 infos\","),
        "{text}"
    );
    let one: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(one["path"], "fixture.glb");
    assert_eq!(one["findings"][0]["severity"], "error");
    assert_eq!(one["findings"][0]["code"], "joints-out-of-range");
    assert_eq!(one["findings"][0]["pointer"], format!("{PRIM}/JOINTS_0"));
    assert!(one["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("reach 7"));
    assert_eq!(one["skin_count"], 1);
    assert_eq!(one["skinned_mesh_nodes"], 1);
    assert_eq!(one["skins"][0]["joints"], 4);
    assert_eq!(one["primitives"][0]["weight_sums"]["unit"], 8);
    let two: Value = serde_json::from_str(&render_json(&[bad.clone(), good.clone()])).unwrap();
    assert_eq!(two["status"], "failed");
    assert_eq!(two["files"].as_array().unwrap().len(), 2);
    assert_eq!(two["files"][1]["findings"], json!([]));

    let t = bad.render_text();
    assert!(
        t.starts_with(
            "fixture.glb (glb)\n  1 skins, 1 skinned mesh nodes; 6 nodes, 1 meshes, 1 animations\n"
        ),
        "{t}"
    );
    assert!(t.contains(&format!("error  joints-out-of-range  {PRIM}/JOINTS_0  mesh 0 primitive 0: JOINTS values reach 7")), "{t}");
    assert!(
        t.ends_with("  fixture.glb: FAIL: 1 error, 0 warnings, 0 infos\n"),
        "{t}"
    );
    assert!(good
        .render_text()
        .ends_with("  fixture.glb: OK: 0 errors, 0 warnings, 0 infos\n"));

    // The table lists errors before warnings, whatever the order they were found in.
    let mut x = base();
    x.nodes[5]["name"] = json!("spine");
    x.sets[0].0[4] = [7, 0, 0, 0];
    let (r, b) = x.build();
    let both = lint_doc(&r, &b);
    assert_eq!(both.findings[0].code, "name-duplicate");
    let t = both.render_text();
    let (e, w) = (
        t.find("  error    joints-out-of-range  ").unwrap(),
        t.find("  warning  name-duplicate       ").unwrap(),
    );
    assert!(e < w, "{t}");
}

#[test]
fn compressed_data_is_skipped_with_an_info() {
    let (mut r, b) = base().build();
    r["meshes"][0]["primitives"][0]["extensions"] =
        json!({"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {}}});
    r["bufferViews"][4]["extensions"] = json!({"EXT_meshopt_compression": {}});
    let rep = lint_doc(&r, &b);
    assert_no_problems(&rep);
    assert_eq!(
        rep.codes(Severity::Info),
        ["data-compressed", "data-compressed", "data-compressed"]
    );
    assert!(rep.primitives[0].weight_sums.is_none());
    assert_eq!(rep.skins[0].max_bind_error, None);
}

#[test]
fn misaligned_glb_chunk_and_empty_joint_list() {
    let (root, bin) = base().build();
    let mut j = serde_json::to_vec(&root).unwrap();
    j.push(b' ');
    if j.len() % 4 == 0 {
        j.push(b' ');
    }
    let declared = j.len();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut g = Vec::new();
    g.extend_from_slice(b"glTF");
    g.extend_from_slice(&2u32.to_le_bytes());
    g.extend_from_slice(&((28 + j.len() + bin.len()) as u32).to_le_bytes());
    g.extend_from_slice(&(declared as u32).to_le_bytes());
    g.extend_from_slice(b"JSON");
    g.extend_from_slice(&j);
    g.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    g.extend_from_slice(b"BIN\0");
    g.extend_from_slice(&bin);
    let rep = lint_slice(&g, "odd.glb", None);
    assert_eq!(problems(&rep), ["warning glb-alignment "]);
    assert_eq!(
        rep.findings[0].message,
        format!("GLB chunk 0 at offset 0xc has a length of {declared:#x}, not a multiple of 4")
    );

    let (mut r, b) = base().build();
    r["skins"][0]["joints"] = json!([]);
    let rep = lint_doc(&r, &b);
    let errs = rep.codes(Severity::Error);
    assert_eq!(errs[0], "skin-joints-empty");
    assert!(errs.contains(&"joints-out-of-range"), "{errs:?}");
}

#[test]
fn deep_chains_lint_in_linear_time() {
    // 30000 joints in one chain, the skin listing them leaf first.
    let n = 30_000usize;
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            if i + 1 < n {
                json!({"translation": [0.0, 0.01, 0.0], "children": [i + 1]})
            } else {
                json!({"translation": [0.0, 0.01, 0.0]})
            }
        })
        .collect();
    let joints: Vec<usize> = (0..n).rev().collect();
    let root = json!({"asset": {"version": "2.0"}, "nodes": nodes,
                      "skins": [{"joints": joints, "skeleton": 0}]});
    let t = std::time::Instant::now();
    let r = lint_slice(&serde_json::to_vec(&root).unwrap(), "chain.gltf", None);
    assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
    assert_eq!(r.skins[0].root, Some(0));
    assert_eq!(r.skins[0].skeleton_is_common_ancestor, Some(true));
    assert_eq!(
        problems(&r),
        ["error ibm-missing /skins/0/inverseBindMatrices"]
    );
}

// ---------------------------------------------------------------------------------------------
// Never panic

/// Replaces numbers in the JSON (chosen by the rng) with hostile values.
fn mutate_numbers(v: &mut Value, rng: &mut rigtrip::synth::rng::Rng) {
    const HOSTILE: [f64; 9] = [
        0.0,
        1.0,
        -1.0,
        3.0,
        2147483648.0,
        9.007e15,
        1e300,
        0.5,
        65535.0,
    ];
    match v {
        Value::Number(_) if rng.chance(0.05) => {
            let x = HOSTILE[rng.index(HOSTILE.len())];
            *v = if x.fract() == 0.0 && (0.0..1e19).contains(&x) {
                json!(x as u64)
            } else {
                json!(x)
            };
        }
        Value::Array(a) => a.iter_mut().for_each(|x| mutate_numbers(x, rng)),
        Value::Object(o) => o.values_mut().for_each(|x| mutate_numbers(x, rng)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn flipped_bytes_never_panic(seed in any::<u64>()) {
        let mut rng = rigtrip::synth::rng::Rng::new(seed);
        let (root, bin) = base().build();
        let mut g = glb(&root, &bin);
        for _ in 0..1 + rng.index(8) {
            let i = rng.index(g.len());
            g[i] = rng.next_u32() as u8;
        }
        let r = lint_slice(&g, "flip.glb", None);
        prop_assert!(!r.verdict.is_empty());
    }

    #[test]
    fn hostile_numbers_never_panic(seed in any::<u64>()) {
        let mut rng = rigtrip::synth::rng::Rng::new(seed);
        let (mut root, bin) = base().build();
        mutate_numbers(&mut root, &mut rng);
        let r = lint_doc(&root, &bin);
        prop_assert!(!r.verdict.is_empty());
        let r = lint_slice(&embedded(&root, &bin), "n.gltf", None);
        prop_assert!(!r.verdict.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Every rigtrip export lints clean

fn assert_export_clean(rig: &rigtrip::rig::Rig, opts: &rigtrip::gltf::ExportOptions, name: &str) {
    let e = rigtrip::gltf::export(rig, opts).unwrap_or_else(|err| panic!("{name}: {err}"));
    for (bytes, label) in [
        (rigtrip::gltf::to_glb(&e).unwrap(), format!("{name}.glb")),
        (rigtrip::gltf::to_gltf(&e).unwrap(), format!("{name}.gltf")),
    ] {
        let r = lint_slice(&bytes, &label, None);
        assert!(!r.has_errors() && !r.has_warnings(), "{}", r.render_text());
        let skins = rig
            .skeletons
            .iter()
            .filter(|s| !s.joints.is_empty())
            .count();
        assert_eq!(r.skin_count, skins, "{label}");
        for s in &r.skins {
            assert!(s.ibm_ok, "{label}");
            assert_eq!(s.skeleton_is_common_ancestor, Some(true), "{label}");
            assert!(
                s.max_bind_error.unwrap() < 1e-5,
                "{label}: {:?}",
                s.max_bind_error
            );
        }
        for p in &r.primitives {
            let h = p.weight_sums.as_ref().unwrap();
            assert_eq!(h.unit, p.vertices, "{label}");
        }
    }
}

#[test]
fn samples_export_clean() {
    use rigtrip::native::Format;
    let mut n = 0;
    for (name, bytes) in rigtrip::synth::samples() {
        let format = match name {
            _ if name.ends_with(".json") => continue,
            // Motions, archives and textures are no rigs (animations are linted with the model
            // below).
            _ if name.ends_with(".mot") || name.ends_with(".pac") || name.ends_with(".ptx") => {
                continue
            }
            _ if name.ends_with(".glb") || name.ends_with(".gltf") => {
                // A glTF sample written by its own generator (the mech with its gait clips):
                // sound, but its walk cycles start mid-stride, away from the rest pose.
                let r = lint_slice(&bytes, name, None);
                assert!(!r.has_errors(), "{}", r.render_text());
                assert!(
                    r.findings.iter().all(|f| f.code == "first-key-snap"),
                    "{}",
                    r.render_text()
                );
                assert!(r.skins.iter().all(|s| s.ibm_ok && s.mesh_nodes > 0));
                continue;
            }
            "dmc3_effect.efm" => Some(Format::Block {
                offset: 0x35,
                nodes: 8,
            }),
            _ => None,
        };
        let rig = rigtrip::ops::load(format, &bytes).unwrap();
        assert_export_clean(&rig, &Default::default(), name);
        n += 1;
    }
    assert_eq!(n, 4);
    // With the sample's joint names too.
    let names = rigtrip::gltf::Names::from_json(&rigtrip::synth::hie::sample_db22_names()).unwrap();
    let rig = rigtrip::ops::load(None, &rigtrip::synth::hie::sample_db22()).unwrap();
    let opts = rigtrip::gltf::ExportOptions {
        names: Some(names),
        ..Default::default()
    };
    assert_export_clean(&rig, &opts, "DB22HIE.named");
}

#[test]
fn generated_rigs_export_clean() {
    let mut hie = 0;
    let mut seed = 0u64;
    while hie < 10 {
        let rig = rigtrip::ops::load(None, &rigtrip::synth::hie::random(seed)).unwrap();
        if rig.skeletons.iter().all(|s| s.gate.is_ok()) {
            assert_export_clean(&rig, &Default::default(), &format!("hie_{seed}"));
            hie += 1;
        }
        seed += 1;
        assert!(seed < 200, "too few HIE files pass the gate");
    }
    let mut dmc3 = 0;
    for seed in 0..12u64 {
        let data = rigtrip::synth::dmc3::random_exportable(seed, false);
        let rig = rigtrip::ops::load(Some(rigtrip::native::Format::Dmc3), &data).unwrap();
        if rig.skeletons.iter().all(|s| s.gate.is_ok()) {
            assert_export_clean(&rig, &Default::default(), &format!("dmc3_{seed}"));
            dmc3 += 1;
        }
    }
    assert!(dmc3 >= 10, "{dmc3} DMC3 files exported");
}
