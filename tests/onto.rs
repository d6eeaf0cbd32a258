//! `import --onto` of a third-party body: CesiumMan (vendored with its licence, a root node
//! rotated to Y up, an A-posed skeleton of 19 joints) onto the generated humanoid (49 joints,
//! arms near level) through a joint map. Checked by this file's own evaluators: its own glTF
//! skinning (node walk, inverse binds, weights) for the source body, the independent MOD reader
//! and the independent node-block evaluation for the written one.

mod common;
#[path = "meshback/reader.rs"]
mod reader;

use std::collections::BTreeMap;

use glam::{DMat4, DVec3};
use rigtrip::gltf::import::onto::{import_onto, Fit, JointMap, MapTarget, OntoOptions};
use rigtrip::native::NativeFile;

const CESIUM: &str = "tests/data/sample-assets/vulkan-assets/CesiumMan.gltf";

/// CesiumMan's joints and the humanoid joints a person maps them to.
const MAP: [(&str, &str); 19] = [
    ("Skeleton_torso_joint_1", "hips"),
    ("Skeleton_torso_joint_2", "spine1"),
    ("torso_joint_3", "chest"),
    ("Skeleton_neck_joint_1", "neck"),
    ("Skeleton_neck_joint_2", "head"),
    ("Skeleton_arm_joint_L__4_", "upperarm_l"),
    ("Skeleton_arm_joint_L__3_", "forearm_l"),
    ("Skeleton_arm_joint_L__2_", "hand_l"),
    ("Skeleton_arm_joint_R", "upperarm_r"),
    ("Skeleton_arm_joint_R__2_", "forearm_r"),
    ("Skeleton_arm_joint_R__3_", "hand_r"),
    ("leg_joint_L_1", "thigh_l"),
    ("leg_joint_L_2", "knee_l"),
    ("leg_joint_L_3", "ankle_l"),
    ("leg_joint_L_5", "ball_l"),
    ("leg_joint_R_1", "thigh_r"),
    ("leg_joint_R_2", "knee_r"),
    ("leg_joint_R_3", "ankle_r"),
    ("leg_joint_R_5", "ball_r"),
];

/// The humanoid template: its bytes, each node's rest world position (metres, from the
/// independent node-block evaluation), and the native node of each humanoid joint name.
struct Template {
    bytes: Vec<u8>,
    rest: Vec<DVec3>,
    node: BTreeMap<&'static str, usize>,
    parent: Vec<Option<usize>>,
}

fn template() -> Template {
    let bytes = rigtrip::synth::dmc3::sample_mod();
    let rest = common::pose::rest_world(&bytes);
    let h = rigtrip::synth::dmc3::humanoid();
    // Each humanoid joint is the native node at its rest position (all distinct).
    let node_of: Vec<usize> = h
        .iter()
        .map(|(_, _, p)| {
            let want = DVec3::from_array(*p) * 0.01;
            let (k, d) = rest
                .iter()
                .enumerate()
                .map(|(k, q)| (k, q.distance(want)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert!(d < 1e-4, "no node at {want}");
            k
        })
        .collect();
    let mut parent = vec![None; rest.len()];
    for (l, (_, p, _)) in h.iter().enumerate() {
        parent[node_of[l]] = p.map(|p| node_of[p]);
    }
    Template {
        bytes,
        rest,
        node: h.iter().zip(&node_of).map(|(j, &k)| (j.0, k)).collect(),
        parent,
    }
}

/// The source body as this file skins it: per vertex its rest position (`Σ w · joint world ·
/// inverse bind`, metres).
fn source(path: &str) -> Vec<DVec3> {
    let (doc, buffers, _) = gltf::import(common::repo().join(path)).unwrap();
    let mut world = vec![DMat4::IDENTITY; doc.nodes().count()];
    fn walk(n: &gltf::Node, parent: DMat4, w: &mut Vec<DMat4>) {
        let m =
            parent * DMat4::from_cols_array_2d(&n.transform().matrix().map(|c| c.map(f64::from)));
        w[n.index()] = m;
        for c in n.children() {
            walk(&c, m, w);
        }
    }
    for root in doc.default_scene().unwrap().nodes() {
        walk(&root, DMat4::IDENTITY, &mut world);
    }
    let mut verts = Vec::new();
    for node in doc.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let r = skin.reader(|b| Some(&buffers[b.index()]));
        let ibm: Vec<DMat4> = r
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from))))
            .collect();
        let joints: Vec<DMat4> = skin
            .joints()
            .zip(&ibm)
            .map(|(j, b)| world[j.index()] * *b)
            .collect();
        for prim in mesh.primitives() {
            let r = prim.reader(|b| Some(&buffers[b.index()]));
            let js: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
            let ws: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
            for (i, p) in r.read_positions().unwrap().enumerate() {
                let p = DVec3::from_array(p.map(f64::from));
                let mut at = DVec3::ZERO;
                for k in 0..4 {
                    at += joints[js[i][k] as usize].transform_point3(p) * f64::from(ws[i][k]);
                }
                verts.push(at);
            }
        }
    }
    verts
}

fn height(points: impl Iterator<Item = DVec3>) -> f64 {
    let (lo, hi) = points.fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p.y), h.max(p.y)));
    hi - lo
}

/// Distance from `p` to the segment `a`-`b`.
fn to_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let d = b - a;
    let t = if d.length_squared() > 0.0 {
        ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + d * t)
}

/// The written model: per vertex its position (metres) and influences (node, weight /31).
fn written(bytes: &[u8]) -> Vec<(DVec3, Vec<(usize, u16)>)> {
    let f = reader::read(bytes);
    let mut out = Vec::new();
    for m in f.objects.iter().flat_map(|o| &o.meshes) {
        for v in 0..m.positions.len() {
            let p = DVec3::from_array(m.position(v).map(f64::from)) * 0.01;
            let inf = m
                .influences(v)
                .into_iter()
                .map(|(j, w)| (usize::from(j), w))
                .collect();
            out.push((p, inf));
        }
    }
    out
}

fn map(t: &Template) -> JointMap {
    JointMap(
        MAP.iter()
            .map(|(s, d)| (s.to_string(), MapTarget::Index(t.node[d])))
            .collect(),
    )
}

/// Per template joint that carries weight: the distance of its vertices' weighted centroid
/// from the nearest of its bones (joint to each child), with the skeleton scaled by `scale`.
fn centroid_distances(
    t: &Template,
    verts: &[(DVec3, Vec<(usize, u16)>)],
    scale: f64,
) -> BTreeMap<usize, f64> {
    let mut sum: BTreeMap<usize, (DVec3, f64)> = BTreeMap::new();
    for (p, inf) in verts {
        for &(j, w) in inf {
            let e = sum.entry(j).or_insert((DVec3::ZERO, 0.0));
            e.0 += *p * f64::from(w);
            e.1 += f64::from(w);
        }
    }
    sum.into_iter()
        .map(|(j, (s, w))| {
            let c = s / w;
            let a = t.rest[j] * scale;
            let d = (0..t.rest.len())
                .filter(|&k| t.parent[k] == Some(j))
                .map(|k| to_segment(c, a, t.rest[k] * scale))
                .fold(f64::MAX, f64::min);
            (j, d)
        })
        .collect()
}

/// CesiumMan onto the humanoid: the body keeps its height (or takes the template's with
/// `--fit height`, or lies on its bones with `--fit bones`), and every joint's vertices lie
/// around its bone.
#[test]
fn cesium_man_lands_on_the_humanoid() {
    let t = template();
    let src = source(CESIUM);
    let src_height = height(src.iter().copied());
    let tmpl_height = height(written(&t.bytes).into_iter().map(|v| v.0));
    let cesium = std::fs::read(common::repo().join(CESIUM)).unwrap();
    // Bones: on the template's own skeleton; source and height: the same body scaled about the
    // origin to a height, so its skeleton is the template's scaled by the heights' ratio.
    let mut on_bones = 0.0;
    let mut glbs = Vec::new();
    for fit in [Fit::Bones, Fit::Source, Fit::Height] {
        let opts = OntoOptions {
            joint_map: Some(map(&t)),
            fit,
            ..OntoOptions::default()
        };
        let got = import_onto(
            &cesium,
            Some(&common::repo().join("tests/data/sample-assets/vulkan-assets")),
            NativeFile::read(None, &t.bytes).unwrap(),
            &opts,
        )
        .unwrap_or_else(|e| panic!("{fit:?}: {}", rigtrip::chain(&e)));
        let report = got.report.render_text();
        let verts = written(&got.bytes);
        let h = height(verts.iter().map(|v| v.0));
        println!(
            "{fit:?}: source {src_height:.3} m, template {tmpl_height:.3} m, written {h:.3} m\n{report}"
        );
        let scale = match fit {
            Fit::Bones => {
                on_bones = h;
                1.0
            }
            Fit::Source => {
                assert!(
                    (h / src_height - 1.0).abs() < 0.001,
                    "{h} m tall, the source {src_height} m\n{report}"
                );
                h / on_bones
            }
            Fit::Height => {
                assert!(
                    (h / tmpl_height - 1.0).abs() < 0.001,
                    "{h} m tall, the template {tmpl_height} m\n{report}"
                );
                h / on_bones
            }
        };
        let far = centroid_distances(&t, &verts, scale);
        let names: BTreeMap<usize, &str> = t.node.iter().map(|(n, &k)| (k, *n)).collect();
        for (j, d) in &far {
            println!("  {:<12} {:.1} % of the height", names[j], d / h * 100.0);
            assert!(
                d / h < 0.04,
                "{fit:?}: {} is {d} m off its bones\n{report}",
                names[j]
            );
        }
        assert_eq!(far.len(), 19, "{far:?}");
        let verdict = rigtrip::ops::verify::verify_bytes(None, &got.bytes);
        assert!(
            matches!(verdict, rigtrip::ops::verify::Verdict::Identical { .. }),
            "{fit:?}: {verdict:?}"
        );
        let rig = rigtrip::rig::lift(NativeFile::read(None, &got.bytes).unwrap());
        let glb = rigtrip::gltf::to_glb(
            &rigtrip::gltf::export(&rig, &rigtrip::gltf::ExportOptions::default()).unwrap(),
        )
        .unwrap();
        let path = common::tmp(&format!("onto/cesium_{fit:?}.glb"));
        std::fs::write(&path, glb).unwrap();
        glbs.push(path);
        assert!(
            report.contains("the two rest poses differ by more than 10° at"),
            "{report}"
        );
    }
    common::validate(&glbs);
}

/// CesiumMan's walk, played by this file: per node its world matrix at time `t` (seconds),
/// linear keys (spherical for rotations), as the glTF specification plays them.
struct Walk {
    doc: gltf::Document,
    buffers: Vec<gltf::buffer::Data>,
}

impl Walk {
    fn read(path: &str) -> Walk {
        let (doc, buffers, _) = gltf::import(common::repo().join(path)).unwrap();
        Walk { doc, buffers }
    }

    /// The last key time of the first animation.
    fn end(&self) -> f64 {
        let a = self.doc.animations().next().unwrap();
        a.channels()
            .flat_map(|c| {
                let r = c.reader(|b| Some(&self.buffers[b.index()]));
                r.read_inputs().unwrap().collect::<Vec<f32>>()
            })
            .fold(0.0f64, |m, t| m.max(f64::from(t)))
    }

    /// Node world matrices at time `t` of the animation, or at rest (`None`: the nodes' own
    /// transforms).
    fn world(&self, t: Option<f64>) -> Vec<DMat4> {
        use gltf::animation::util::ReadOutputs;
        let mut trs: Vec<([f64; 3], glam::DQuat, [f64; 3])> = self
            .doc
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (
                    t.map(f64::from),
                    glam::DQuat::from_array(r.map(f64::from)),
                    s.map(f64::from),
                )
            })
            .collect();
        let a = self.doc.animations().next().unwrap();
        for c in a.channels().filter(|_| t.is_some()) {
            let t = t.unwrap_or(0.0);
            let r = c.reader(|b| Some(&self.buffers[b.index()]));
            let times: Vec<f64> = r.read_inputs().unwrap().map(f64::from).collect();
            let i = times
                .partition_point(|&x| x <= t)
                .clamp(1, times.len().max(2) - 1);
            let (t0, t1) = (times[i - 1], times[i.min(times.len() - 1)]);
            let s = if t1 > t0 {
                ((t - t0) / (t1 - t0)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let node = c.target().node().index();
            let lerp = |a: [f32; 3], b: [f32; 3]| {
                [0, 1, 2].map(|k| f64::from(a[k]) + (f64::from(b[k]) - f64::from(a[k])) * s)
            };
            match r.read_outputs().unwrap() {
                ReadOutputs::Translations(v) => {
                    let v: Vec<[f32; 3]> = v.collect();
                    trs[node].0 = lerp(v[i - 1], v[i.min(v.len() - 1)]);
                }
                ReadOutputs::Scales(v) => {
                    let v: Vec<[f32; 3]> = v.collect();
                    trs[node].2 = lerp(v[i - 1], v[i.min(v.len() - 1)]);
                }
                ReadOutputs::Rotations(v) => {
                    let v: Vec<glam::DQuat> = v
                        .into_f32()
                        .map(|q| glam::DQuat::from_array(q.map(f64::from)).normalize())
                        .collect();
                    trs[node].1 = v[i - 1].slerp(v[i.min(v.len() - 1)], s);
                }
                ReadOutputs::MorphTargetWeights(_) => {}
            }
        }
        let mut world = vec![DMat4::IDENTITY; trs.len()];
        fn walk(
            n: &gltf::Node,
            parent: DMat4,
            trs: &[([f64; 3], glam::DQuat, [f64; 3])],
            w: &mut Vec<DMat4>,
        ) {
            let (t, r, s) = trs[n.index()];
            let m = parent
                * DMat4::from_scale_rotation_translation(
                    DVec3::from_array(s),
                    r,
                    DVec3::from_array(t),
                );
            w[n.index()] = m;
            for c in n.children() {
                walk(&c, m, trs, w);
            }
        }
        for root in self.doc.default_scene().unwrap().nodes() {
            walk(&root, DMat4::IDENTITY, &trs, &mut world);
        }
        world
    }

    /// The node named `name`.
    fn node(&self, name: &str) -> usize {
        self.doc
            .nodes()
            .find(|n| n.name() == Some(name))
            .unwrap()
            .index()
    }
}

/// The humanoid's bones between mapped joints whose source joint has one mapped child, as the
/// map names them (the hips, with three, are checked as a whole: see [`pelvis`]).
const BONES: [(&str, &str); 13] = [
    ("spine1", "chest"),
    ("chest", "neck"),
    ("neck", "head"),
    ("upperarm_l", "forearm_l"),
    ("forearm_l", "hand_l"),
    ("upperarm_r", "forearm_r"),
    ("forearm_r", "hand_r"),
    ("thigh_l", "knee_l"),
    ("knee_l", "ankle_l"),
    ("ankle_l", "ball_l"),
    ("thigh_r", "knee_r"),
    ("knee_r", "ankle_r"),
    ("ankle_r", "ball_r"),
];

/// The hips' frame from where its three children are (spine up, thighs across): rigid on
/// either skeleton, though the two pelvises' shapes differ.
fn pelvis(at: impl Fn(&str) -> DVec3) -> glam::DMat3 {
    let up = (at("spine1") - at("hips")).normalize();
    let across = at("thigh_l") - at("thigh_r");
    let side = (across - up * across.dot(up)).normalize();
    glam::DMat3::from_cols(up, side, up.cross(side))
}

/// CesiumMan's walk onto the humanoid (with the sample motion's header): every mapped bone of
/// the written motion, played by the test's own native evaluator, points where the glTF's
/// does (its own player) at every sixth frame, the pelvis turns from frame to frame as the
/// glTF's does, and the hips move by the glTF's hips scaled by the hips' heights.
#[test]
fn cesium_man_walks_on_the_humanoid() {
    use rigtrip::gltf::import::onto::OntoMotions;
    let t = template();
    let opts = OntoOptions {
        joint_map: Some(map(&t)),
        motions: Some(OntoMotions {
            template_file: "dmc3_humanoid.mot".into(),
            template: rigtrip::synth::motion::sample_mot(),
            into: None,
        }),
        ..OntoOptions::default()
    };
    let cesium = std::fs::read(common::repo().join(CESIUM)).unwrap();
    let started = std::time::Instant::now();
    let got = import_onto(
        &cesium,
        Some(&common::repo().join("tests/data/sample-assets/vulkan-assets")),
        NativeFile::read(None, &t.bytes).unwrap(),
        &opts,
    )
    .unwrap_or_else(|e| panic!("{}", rigtrip::chain(&e)));
    let report = got.report.render_text();
    println!("{report}(in {:?})", started.elapsed());
    assert!(got.report.animations_not_written.is_empty(), "{report}");
    assert_eq!(got.motions.len(), 1, "{report}");
    assert_eq!(got.motions[0].file, "animation_0.mot");
    let mot = got.motions[0].bytes.clone().unwrap();
    let walk = Walk::read(CESIUM);
    let src: BTreeMap<&str, usize> = MAP.iter().map(|(s, d)| (*d, walk.node(s))).collect();
    let rest_src = walk.world(None);
    let hips = |w: &[DMat4]| w[src["hips"]].w_axis.truncate();
    let ratio = t.rest[t.node["hips"]].y / hips(&rest_src).y;
    let end = (walk.end() * 60.0).round() as u32;
    assert!(end > 30, "the walk is {end} frames");
    let mut worst: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    let mut moved = 0.0f64;
    let mut turned = 0.0f64;
    let frames = |s: &[DMat4], w: &[DVec3]| {
        (
            pelvis(|n| s[src[n]].w_axis.truncate()),
            pelvis(|n| w[t.node[n]]),
        )
    };
    let first = frames(
        &walk.world(Some(0.0)),
        &common::pose::native_world(&t.bytes, &mot, 0.0),
    );
    for f in (0..=end).step_by(6) {
        let s = walk.world(Some(f64::from(f) / 60.0));
        let w = common::pose::native_world(&t.bytes, &mot, f64::from(f));
        let now = frames(&s, &w);
        let (turn_s, turn_w) = (now.0 * first.0.transpose(), now.1 * first.1.transpose());
        let off = glam::DQuat::from_mat3(&(turn_w * turn_s.transpose()));
        turned = turned.max(off.angle_between(glam::DQuat::IDENTITY).to_degrees());
        for (a, b) in BONES {
            let want = s[src[b]].w_axis.truncate() - s[src[a]].w_axis.truncate();
            let have = w[t.node[b]] - w[t.node[a]];
            let angle = want.angle_between(have).to_degrees();
            let e = worst.entry((a, b)).or_default();
            *e = e.max(angle);
        }
        let src_moved = (hips(&s) - hips(&rest_src)) * ratio;
        let have_moved = w[t.node["hips"]] - t.rest[t.node["hips"]];
        moved = moved.max(have_moved.distance(src_moved));
    }
    println!(
        "largest angle per bone (degrees): {worst:?}\npelvis turn off by at most {turned:.4}°\n\
         hips off by at most {moved:.5} m"
    );
    assert!(turned < 1.0, "the pelvis turns {turned}° off the walk's");
    for ((a, b), angle) in &worst {
        assert!(
            *angle < 3.0,
            "{a}-{b} is {angle:.2}° from the walk's\n{report}"
        );
    }
    assert!(
        moved < 0.002,
        "the hips are {moved} m from where the walk puts them"
    );
}

/// `onto-map`'s suggestion for CesiumMan on the humanoid (names that match nothing, so by
/// place along the chains): the joints a person maps (`MAP`) mostly as they map them, and the
/// map file it writes imports.
#[test]
fn a_joint_map_is_suggested_for_cesium_man() {
    use rigtrip::gltf::import::suggest::{suggest, How};
    let t = template();
    let cesium = std::fs::read(common::repo().join(CESIUM)).unwrap();
    let base = common::repo().join("tests/data/sample-assets/vulkan-assets");
    let got = suggest(
        &cesium,
        Some(&base),
        NativeFile::read(None, &t.bytes).unwrap(),
        None,
    )
    .unwrap();
    println!("{}", got.render_text());
    let by_joint: BTreeMap<&str, Option<&str>> = got
        .joints
        .iter()
        .map(|s| (s.joint.as_str(), s.target.as_deref()))
        .collect();
    let mut agree = 0;
    for (s, d) in MAP {
        let want = format!("mod_{}", t.node[d]);
        if by_joint.get(s).copied().flatten() == Some(want.as_str()) {
            agree += 1;
        } else {
            println!(
                "{s}: suggested {:?}, a person maps {want} ({d})",
                by_joint.get(s)
            );
        }
    }
    println!("{agree} of {} as a person maps them", MAP.len());
    assert!(agree >= 17, "{agree} of {}", MAP.len());
    assert!(
        got.joints.iter().all(|s| s.how != How::Name),
        "no name matches here"
    );
    let map = JointMap::from_json(&got.map_json()).unwrap();
    let opts = OntoOptions {
        joint_map: Some(map),
        ..OntoOptions::default()
    };
    import_onto(
        &cesium,
        Some(&base),
        NativeFile::read(None, &t.bytes).unwrap(),
        &opts,
    )
    .unwrap_or_else(|e| panic!("{}", rigtrip::chain(&e)));
}
