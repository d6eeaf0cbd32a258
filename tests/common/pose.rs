//! The independent evaluation of poses, shared by the motion tests: [`super::motplay`] reads and
//! plays native motion bytes by the format notes, this file's own Euler and hierarchy code poses
//! a model's node block with them, and its own sampler code (CUBICSPLINE included) plays a GLB's
//! animations on its nodes. Neither uses the library's evaluation.

use super::motplay;
use glam::{DMat3, DMat4, DQuat, DVec3};
use rigtrip::native::NativeFile;
// ---------------------------------------------------------------------------------------------
// The independent evaluation: native side

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

/// Per node of `model`, its rest channels (translation, Euler rotation, scale 1).
pub fn rest_channels(model: &[u8]) -> Vec<[f64; 9]> {
    block_of(model)
        .transforms
        .iter()
        .map(|t| {
            let [tx, ty, tz] = t.translation().map(f64::from);
            let [rx, ry, rz] = t.rotation().map(f64::from);
            [tx, ty, tz, rx, ry, rz, 1.0, 1.0, 1.0]
        })
        .collect()
}

/// Per node of `model`, its nine channels (translation, Euler rotation, scale) posed by the
/// motion `mot` (its bytes) at frame `f` as the game takes them: the rest values where it has
/// no track.
pub fn native_channels(model: &[u8], mot: &[u8], f: f64) -> Vec<[f64; 9]> {
    motplay::channels_at(&motplay::read(mot), &rest_channels(model), f)
}

/// Per node of `model`, its local rotation posed by the motion `mot` (its bytes) at frame `f`.
pub fn native_local_rotations(model: &[u8], mot: &[u8], f: f64) -> Vec<DQuat> {
    native_channels(model, mot, f)
        .iter()
        .map(|c| DQuat::from_mat3(&euler_matrix(c[3], c[4], c[5])))
        .collect()
}

/// The angle in radians between the rotations of Euler angle triples `a` and `b` (X applied
/// first).
pub fn euler_angle_between(a: &[f64], b: &[f64]) -> f64 {
    let d = euler_matrix(a[0], a[1], a[2]).transpose() * euler_matrix(b[0], b[1], b[2]);
    ((d.x_axis.x + d.y_axis.y + d.z_axis.z - 1.0) / 2.0)
        .clamp(-1.0, 1.0)
        .acos()
}

/// World positions in metres of every node of `model` posed by the motion `mot` (its bytes) at
/// frame `f`.
pub fn native_world(model: &[u8], mot: &[u8], f: f64) -> Vec<DVec3> {
    world_of(model, &native_channels(model, mot, f))
}

/// World positions in metres of every node of `model` at rest.
pub fn rest_world(model: &[u8]) -> Vec<DVec3> {
    world_of(model, &rest_channels(model))
}

/// World positions in metres of every node of `model` whose channels are `channels`.
fn world_of(model: &[u8], channels: &[[f64; 9]]) -> Vec<DVec3> {
    let block = block_of(model);
    let n = block.transforms.len();
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
    gltf_pose(glb, name, t).0
}

/// The names of the GLB's skin 0 joints, in skin order.
pub fn gltf_joint_names(glb: &[u8]) -> Vec<String> {
    let g = gltf::Gltf::from_slice(glb).unwrap();
    let skin = g.skins().next().unwrap();
    skin.joints()
        .map(|j| j.name().unwrap_or_default().to_string())
        .collect()
}

/// Local rotations (glTF space) of the GLB's skin 0 joints at time `t` of animation `name`.
pub fn gltf_local_rotations(glb: &[u8], name: &str, t: f64) -> Vec<DQuat> {
    gltf_pose(glb, name, t).1
}

/// The GLB's skin 0 joints at time `t` of animation `name`: world positions (metres) and local
/// rotations.
fn gltf_pose(glb: &[u8], name: &str, t: f64) -> (Vec<DVec3>, Vec<DQuat>) {
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
        .map(|j| (world[j.index()].w_axis.truncate(), trs[j.index()].1))
        .unzip()
}

/// A new motion as `tools/blender-roundtrip.py --new-action NAME BONE 12 0.5` keys it: joint `key` turned 0.5 rad from
/// its rest rotation at native frame 30 (Blender frame 12 at 24 frames per second), at rest at
/// frames 0 and 60, the end frame 60; no other joint has a track.
pub fn assert_keyed_action(model: &[u8], mot: &[u8], key: usize) {
    let m = motplay::read(mot);
    for (j, mask) in m.masks.iter().enumerate() {
        assert_eq!(*mask != 0, j == key, "joint {j}: mask {mask:#x}");
    }
    assert_eq!(m.end_frame, 60.0);
    let rest = rest_channels(model)[key];
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
