//! The independent evaluation of poses, shared by the motion tests: this file's own Hermite,
//! Euler and hierarchy code plays native motion keys on a model's node block, and its own
//! sampler code (CUBICSPLINE included) plays a GLB's animations on its nodes. Neither uses the
//! library's evaluation.

use glam::{DMat3, DMat4, DQuat, DVec3};
use rigtrip::native::dmc3::motion::{mask_targets, Mot};
use rigtrip::native::NativeFile;
// ---------------------------------------------------------------------------------------------
// The independent evaluation: native side

/// Value of a track at frame `f` from its decoded keys: Hermite (tangents per frame) or linear,
/// end values held; `None` without keys.
fn native_value(keys: &[(f64, f64, f64, f64)], hermite: bool, f: f64) -> Option<f64> {
    let (first, last) = (keys.first()?, keys.last()?);
    if f < first.0 {
        return Some(first.1);
    }
    // The last key at or before f.
    let mut k = 0;
    while k + 1 < keys.len() && keys[k + 1].0 <= f {
        k += 1;
    }
    if k + 1 == keys.len() {
        return Some(last.1);
    }
    let (t0, v0, _, o0) = keys[k];
    let (t1, v1, i1, _) = keys[k + 1];
    let d = t1 - t0;
    let u = (f - t0) / d;
    if !hermite {
        return Some(v0 * (1.0 - u) + v1 * u);
    }
    let h00 = (1.0 + 2.0 * u) * (1.0 - u) * (1.0 - u);
    let h10 = u * (1.0 - u) * (1.0 - u);
    let h01 = u * u * (3.0 - 2.0 * u);
    let h11 = u * u * (u - 1.0);
    Some(h00 * v0 + h10 * d * o0 + h01 * v1 + h11 * d * i1)
}

/// Rz(z)·Ry(y)·Rx(x) as a matrix, written out by hand.
fn euler_matrix(x: f64, y: f64, z: f64) -> DMat3 {
    let (sx, cx) = x.sin_cos();
    let (sy, cy) = y.sin_cos();
    let (sz, cz) = z.sin_cos();
    let rx = DMat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, cx, sx, 0.0, -sx, cx]);
    let ry = DMat3::from_cols_array(&[cy, 0.0, -sy, 0.0, 1.0, 0.0, sy, 0.0, cy]);
    let rz = DMat3::from_cols_array(&[cz, sz, 0.0, -sz, cz, 0.0, 0.0, 0.0, 1.0]);
    rz * ry * rx
}

/// The node block of DMC3 model `model`.
fn block_of(model: &[u8]) -> rigtrip::native::dmc3::NodeBlock {
    let NativeFile::Dmc3(file) = NativeFile::read(None, model).unwrap() else {
        unreachable!()
    };
    file.block.unwrap()
}

/// Per node of `model`, its nine channels (translation, Euler rotation, scale) posed by `mot`
/// at frame `f`: the rest values where it has no track.
pub fn native_channels(model: &[u8], mot: &Mot, f: f64) -> Vec<[f64; 9]> {
    let block = block_of(model);
    let mut channels: Vec<[f64; 9]> = block
        .transforms
        .iter()
        .map(|t| {
            let [tx, ty, tz] = t.translation().map(f64::from);
            let [rx, ry, rz] = t.rotation().map(f64::from);
            [tx, ty, tz, rx, ry, rz, 1.0, 1.0, 1.0]
        })
        .collect();
    for ((node, c), track) in mask_targets(&mot.masks).zip(&mot.tracks) {
        let keys: Vec<(f64, f64, f64, f64)> = track
            .decoded_keys()
            .iter()
            .map(|k| {
                (
                    f64::from(k.frame),
                    f64::from(k.value),
                    f64::from(k.in_tangent),
                    f64::from(k.out_tangent),
                )
            })
            .collect();
        if let Some(v) = native_value(&keys, track.is_hermite(), f) {
            channels[node][c as usize] = v;
        }
    }
    channels
}

/// The angle in radians between the rotations of Euler angle triples `a` and `b` (X applied
/// first).
pub fn euler_angle_between(a: &[f64], b: &[f64]) -> f64 {
    let d = euler_matrix(a[0], a[1], a[2]).transpose() * euler_matrix(b[0], b[1], b[2]);
    ((d.x_axis.x + d.y_axis.y + d.z_axis.z - 1.0) / 2.0)
        .clamp(-1.0, 1.0)
        .acos()
}

/// World positions in metres of every node of `model` posed by `mot` at frame `f`.
pub fn native_world(model: &[u8], mot: &Mot, f: f64) -> Vec<DVec3> {
    let block = block_of(model);
    let n = block.transforms.len();
    let channels = native_channels(model, mot, f);
    // Parents: order[i] has parent parents[i] (docs/formats.md, node-domain block); the order lists
    // parents first.
    let mut world = vec![DMat4::IDENTITY; n];
    for (i, &node) in block.order.iter().enumerate() {
        let node = node as usize;
        let c = channels[node];
        let r = euler_matrix(c[3], c[4], c[5]);
        let s = DMat3::from_diagonal(DVec3::new(c[6], c[7], c[8]));
        let local = DMat4::from_translation(DVec3::new(c[0], c[1], c[2])) * DMat4::from_mat3(r * s);
        let parent = block.parents[i];
        world[node] = if parent < 0 {
            local
        } else {
            world[parent as usize] * local
        };
    }
    world.iter().map(|m| m.w_axis.truncate() * 0.01).collect()
}

// ---------------------------------------------------------------------------------------------
// The independent evaluation: glTF side (samplers decoded and played by this file)

/// One channel: times, interpolation, flat f32 output.
struct Sampler {
    times: Vec<f64>,
    cubic: bool,
    out: Vec<f64>,
    width: usize,
}

impl Sampler {
    fn at(&self, t: f64) -> Vec<f64> {
        let w = self.width;
        let per = if self.cubic { 3 } else { 1 };
        let val = |k: usize, part: usize| -> Vec<f64> {
            let base = (k * per + part) * w;
            self.out[base..base + w].to_vec()
        };
        let mid = if self.cubic { 1 } else { 0 };
        let n = self.times.len();
        if t <= self.times[0] {
            return val(0, mid);
        }
        if t >= self.times[n - 1] {
            return val(n - 1, mid);
        }
        let k = self.times.iter().rposition(|&x| x <= t).unwrap();
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let td = t1 - t0;
        let u = (t - t0) / td;
        if self.cubic {
            // glTF 2.0 Appendix C: p = h00 v_k + h10 td b_k + h01 v_k+1 + h11 td a_k+1.
            let (v0, b0, a1, v1) = (val(k, 1), val(k, 2), val(k + 1, 0), val(k + 1, 1));
            let (u2, u3) = (u * u, u * u * u);
            (0..w)
                .map(|i| {
                    (2.0 * u3 - 3.0 * u2 + 1.0) * v0[i]
                        + (u3 - 2.0 * u2 + u) * td * b0[i]
                        + (-2.0 * u3 + 3.0 * u2) * v1[i]
                        + (u3 - u2) * td * a1[i]
                })
                .collect()
        } else if w == 4 {
            let q0 = DQuat::from_slice(&val(k, 0));
            let q1 = DQuat::from_slice(&val(k + 1, 0));
            q0.slerp(q1, u).to_array().to_vec()
        } else {
            let (a, b) = (val(k, 0), val(k + 1, 0));
            (0..w).map(|i| a[i] + (b[i] - a[i]) * u).collect()
        }
    }
}

/// Joint node world positions (metres) of the GLB's skin 0 at time `t` of animation `name`.
pub fn gltf_world(glb: &[u8], name: &str, t: f64) -> Vec<DVec3> {
    let g = gltf::Gltf::from_slice(glb).unwrap();
    let bin = g.blob.as_deref().unwrap();
    let anim = g.animations().find(|a| a.name() == Some(name)).unwrap();
    let nodes: Vec<gltf::Node> = g.nodes().collect();
    let mut trs: Vec<(DVec3, DQuat, DVec3)> = nodes
        .iter()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (
                DVec3::from_array(t.map(f64::from)),
                DQuat::from_array(r.map(f64::from)),
                DVec3::from_array(s.map(f64::from)),
            )
        })
        .collect();
    for ch in anim.channels() {
        let reader = ch.reader(|_| Some(bin));
        let times: Vec<f64> = reader.read_inputs().unwrap().map(f64::from).collect();
        let (out, width): (Vec<f64>, usize) = match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(v) => {
                (v.flatten().map(f64::from).collect(), 3)
            }
            gltf::animation::util::ReadOutputs::Scales(v) => {
                (v.flatten().map(f64::from).collect(), 3)
            }
            gltf::animation::util::ReadOutputs::Rotations(v) => {
                (v.into_f32().flatten().map(f64::from).collect(), 4)
            }
            _ => unreachable!(),
        };
        let s = Sampler {
            times,
            cubic: ch.sampler().interpolation() == gltf::animation::Interpolation::CubicSpline,
            out,
            width,
        };
        let v = s.at(t);
        let node = ch.target().node().index();
        match ch.target().property() {
            gltf::animation::Property::Translation => trs[node].0 = DVec3::from_slice(&v),
            gltf::animation::Property::Rotation => trs[node].1 = DQuat::from_slice(&v).normalize(),
            gltf::animation::Property::Scale => trs[node].2 = DVec3::from_slice(&v),
            _ => {}
        }
    }
    let mut world = vec![DMat4::IDENTITY; nodes.len()];
    fn walk(n: &gltf::Node, parent: DMat4, trs: &[(DVec3, DQuat, DVec3)], w: &mut Vec<DMat4>) {
        let (t, r, s) = trs[n.index()];
        let m = parent * DMat4::from_scale_rotation_translation(s, r, t);
        w[n.index()] = m;
        for c in n.children() {
            walk(&c, m, trs, w);
        }
    }
    for root in g.scenes().next().unwrap().nodes() {
        walk(&root, DMat4::IDENTITY, &trs, &mut world);
    }
    let skin = g.skins().next().unwrap();
    skin.joints()
        .map(|j| world[j.index()].w_axis.truncate())
        .collect()
}

/// A new motion as `tools/blender-roundtrip.py --new-action NAME BONE 12 0.5` keys it: joint `key` turned 0.5 rad from
/// its rest rotation at native frame 30 (Blender frame 12 at 24 frames per second), at rest at
/// frames 0 and 60, the end frame 60; no other joint has a track.
pub fn assert_keyed_action(model: &[u8], mot: &Mot, key: usize) {
    for (j, m) in mot.masks.iter().enumerate() {
        assert_eq!(*m != 0, j == key, "joint {j}: mask {m:#x}");
    }
    assert_eq!(f32::from_bits(mot.header.end_frame_bits), 60.0);
    let mut still = mot.clone();
    still.masks.iter_mut().for_each(|m| *m = 0);
    still.tracks.clear();
    let rest = native_channels(model, &still, 0.0)[key];
    for (frame, angle) in [(0.0, 0.0), (30.0, 0.5), (60.0, 0.0)] {
        let at = native_channels(model, mot, frame)[key];
        let turned = euler_angle_between(&rest[3..6], &at[3..6]);
        assert!(
            (turned - angle).abs() < 0.01,
            "frame {frame}: turned {turned} rad, keyed {angle}"
        );
        assert_eq!(&at[..3], &rest[..3], "frame {frame}: translation");
    }
}
