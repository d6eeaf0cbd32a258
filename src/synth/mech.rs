//! A synthetic mech with a full gait clip set, built from nothing but the published description's slot table:
//! 22 joints (a ground-level vehicle root, a torso, two six-joint legs, cockpit, two three-joint
//! arms and a missile rack), a rigidly skinned box per bone, and every clip `rigtrip gait` knows
//! (the mandatory set, the limp set and the bump clip) as one-stride animations named `mch` +
//! code, with root motion along +Z (backward for the reverse gait) and speed caps in
//! `animation.extras.rigtrip.speedCap`.
//!
//! Like the game's MAD, 16 of the 22 joints animate: the root (translation), the twelve leg
//! joints, the torso and both shoulders (rotations); cockpit, arms, guns and rack ride along.
//! The layout code here is our own little glTF writer, not the gait module's.

use glam::{DQuat, DVec3};
use serde_json::{json, Value};

/// The clip prefix of the sample.
pub const PREFIX: &str = "mch";

/// Keyframes per clip.
const KEYS: usize = 17;

/// Thigh swing amplitudes, radians: walk, run, reverse, limp.
const A_WALK: f64 = 0.42;
const A_RUN: f64 = 0.65;
const A_BACK: f64 = 0.30;
const A_LIMP: f64 = 0.35;

/// One joint: name, parent, local translation, and its box (from, to, half width) relative to
/// the joint's rest world position, if it has one.
struct JointDef {
    name: &'static str,
    parent: Option<usize>,
    t: [f64; 3],
    shape: Option<([f64; 3], [f64; 3], f64)>,
}

const fn jd(
    name: &'static str,
    parent: Option<usize>,
    t: [f64; 3],
    shape: Option<([f64; 3], [f64; 3], f64)>,
) -> JointDef {
    JointDef {
        name,
        parent,
        t,
        shape,
    }
}

/// Joint indices of each leg: hip, thigh, knee, shin, ankle, foot.
const LEFT_LEG: [usize; 6] = [2, 3, 4, 5, 6, 7];
const RIGHT_LEG: [usize; 6] = [8, 9, 10, 11, 12, 13];
const TORSO: usize = 1;
const L_SHOULDER: usize = 15;
const R_SHOULDER: usize = 18;

fn joints() -> Vec<JointDef> {
    let leg = |s: f64, base: usize| -> Vec<JointDef> {
        vec![
            jd(
                if s > 0.0 { "l_hip" } else { "r_hip" },
                Some(TORSO),
                [1.4 * s, -0.4, 0.0],
                Some(([0.0; 3], [0.6 * s, 0.0, 0.0], 0.5)),
            ),
            jd(
                if s > 0.0 { "l_thigh" } else { "r_thigh" },
                Some(base),
                [0.6 * s, 0.0, 0.0],
                Some(([0.0; 3], [0.0, -3.2, 0.7], 0.55)),
            ),
            jd(
                if s > 0.0 { "l_knee" } else { "r_knee" },
                Some(base + 1),
                [0.0, -3.2, 0.7],
                Some(([0.0; 3], [0.0, -2.6, -1.1], 0.45)),
            ),
            jd(
                if s > 0.0 { "l_shin" } else { "r_shin" },
                Some(base + 2),
                [0.0, -2.6, -1.1],
                Some(([0.0; 3], [0.0, -1.4, 0.1], 0.35)),
            ),
            jd(
                if s > 0.0 { "l_ankle" } else { "r_ankle" },
                Some(base + 3),
                [0.0, -1.4, 0.1],
                Some(([0.0; 3], [0.0, -0.4, 0.3], 0.3)),
            ),
            jd(
                if s > 0.0 { "l_foot" } else { "r_foot" },
                Some(base + 4),
                [0.0, -0.4, 0.3],
                Some(([0.0, 0.25, -0.7], [0.0, 0.25, 1.3], 0.25)),
            ),
        ]
    };
    let arm = |s: f64, base: usize| -> Vec<JointDef> {
        vec![
            jd(
                if s > 0.0 { "l_shoulder" } else { "r_shoulder" },
                Some(TORSO),
                [1.9 * s, 1.6, 0.0],
                Some(([0.0; 3], [0.9 * s, -0.6, 0.2], 0.5)),
            ),
            jd(
                if s > 0.0 { "l_arm" } else { "r_arm" },
                Some(base),
                [0.9 * s, -0.6, 0.2],
                Some(([0.0; 3], [0.0, -0.8, 0.6], 0.4)),
            ),
            jd(
                if s > 0.0 { "l_gun" } else { "r_gun" },
                Some(base + 1),
                [0.0, -0.8, 0.6],
                Some(([0.0, 0.0, -0.3], [0.0, 0.0, 2.6], 0.22)),
            ),
        ]
    };
    let mut v = vec![
        jd("root", None, [0.0; 3], None),
        jd(
            "torso",
            Some(0),
            [0.0, 8.0, 0.0],
            Some(([0.0, -0.7, 0.0], [0.0, 1.8, 0.0], 1.4)),
        ),
    ];
    v.extend(leg(1.0, 2));
    v.extend(leg(-1.0, 8));
    v.push(jd(
        "cockpit",
        Some(TORSO),
        [0.0, 2.0, 1.4],
        Some(([0.0, 0.0, -0.6], [0.0, 0.0, 1.0], 0.6)),
    ));
    v.extend(arm(1.0, 15));
    v.extend(arm(-1.0, 18));
    v.push(jd(
        "rack",
        Some(TORSO),
        [0.0, 2.5, -1.0],
        Some(([0.0; 3], [0.0, 0.8, 0.0], 0.55)),
    ));
    v
}

/// One clip: code, duration, stride along its direction of travel, direction (+1 forward, -1
/// backward), speed cap, speed profile (start, end, relative), thigh angles (right, left) from
/// start to end, and the root's vertical bob.
struct ClipDef {
    code: &'static str,
    duration: f64,
    stride: f64,
    direction: f64,
    cap: Option<f64>,
    speed: (f64, f64),
    right: (f64, f64),
    left: (f64, f64),
    bob: f64,
}

/// A [`ClipDef`] as a row of the clip table, its fields in declaration order.
type ClipRow = (
    &'static str,
    f64,
    f64,
    f64,
    Option<f64>,
    (f64, f64),
    (f64, f64),
    (f64, f64),
    f64,
);

impl From<ClipRow> for ClipDef {
    fn from((code, duration, stride, direction, cap, speed, right, left, bob): ClipRow) -> Self {
        ClipDef {
            code,
            duration,
            stride,
            direction,
            cap,
            speed,
            right,
            left,
            bob,
        }
    }
}

/// The clips, in slot order. Each ends in the pose the next stride (other foot) starts from.
fn clips() -> Vec<ClipDef> {
    let (w, r, b, g) = (A_WALK, A_RUN, A_BACK, A_LIMP);
    let rows: Vec<ClipRow> = vec![
        (
            "swr",
            0.8,
            4.0,
            1.0,
            None,
            (0.0, 1.0),
            (0.0, w),
            (0.0, -w),
            -0.15,
        ),
        (
            "wwr",
            0.6,
            8.0,
            1.0,
            None,
            (1.0, 1.0),
            (-w, w),
            (w, -w),
            -0.2,
        ),
        (
            "wwl",
            0.6,
            8.4,
            1.0,
            None,
            (1.0, 1.0),
            (w, -w),
            (-w, w),
            -0.2,
        ),
        (
            "wsr",
            0.8,
            4.4,
            1.0,
            None,
            (1.0, 0.0),
            (-w, 0.0),
            (w, 0.0),
            -0.15,
        ),
        (
            "wsl",
            0.8,
            4.6,
            1.0,
            None,
            (1.0, 0.0),
            (w, 0.0),
            (-w, 0.0),
            -0.15,
        ),
        (
            "wrr",
            0.6,
            10.0,
            1.0,
            Some(17.5),
            (1.0, 2.0),
            (-w, r),
            (w, -r),
            0.1,
        ),
        (
            "wrl",
            0.6,
            10.2,
            1.0,
            Some(17.0),
            (1.0, 2.0),
            (w, -r),
            (-w, r),
            0.1,
        ),
        (
            "rrr",
            0.45,
            12.6,
            1.0,
            None,
            (1.0, 1.0),
            (-r, r),
            (r, -r),
            0.35,
        ),
        (
            "rrl",
            0.45,
            13.0,
            1.0,
            None,
            (1.0, 1.0),
            (r, -r),
            (-r, r),
            0.35,
        ),
        (
            "rwr",
            0.5,
            8.0,
            1.0,
            None,
            (2.0, 1.0),
            (-r, w),
            (r, -w),
            0.1,
        ),
        (
            "rwl",
            0.5,
            8.2,
            1.0,
            None,
            (2.0, 1.0),
            (r, -w),
            (-r, w),
            0.1,
        ),
        (
            "sbr",
            0.9,
            2.4,
            -1.0,
            Some(-4.5),
            (0.0, 1.0),
            (0.0, -b),
            (0.0, b),
            -0.1,
        ),
        (
            "sbl",
            0.9,
            2.5,
            -1.0,
            Some(-4.4),
            (0.0, 1.0),
            (0.0, b),
            (0.0, -b),
            -0.1,
        ),
        (
            "bbr",
            1.0,
            5.0,
            -1.0,
            None,
            (1.0, 1.0),
            (b, -b),
            (-b, b),
            -0.12,
        ),
        (
            "bbl",
            1.0,
            5.4,
            -1.0,
            None,
            (1.0, 1.0),
            (-b, b),
            (b, -b),
            -0.12,
        ),
        (
            "bsr",
            0.9,
            2.2,
            -1.0,
            None,
            (1.0, 0.0),
            (b, 0.0),
            (-b, 0.0),
            -0.1,
        ),
        (
            "bsl",
            0.9,
            2.3,
            -1.0,
            None,
            (1.0, 0.0),
            (-b, 0.0),
            (b, 0.0),
            -0.1,
        ),
        (
            "wgl",
            0.8,
            5.6,
            1.0,
            Some(7.5),
            (1.0, 0.8),
            (w, -g),
            (-w, g),
            -0.25,
        ),
        (
            "wgr",
            0.8,
            5.4,
            1.0,
            Some(7.0),
            (1.0, 0.8),
            (-w, 0.5 * g),
            (w, -g),
            -0.25,
        ),
        (
            "ggr",
            1.0,
            6.0,
            1.0,
            None,
            (0.8, 0.8),
            (-g, 0.5 * g),
            (g, -g),
            -0.3,
        ),
        (
            "ggl",
            1.2,
            6.6,
            1.0,
            None,
            (0.8, 0.8),
            (0.5 * g, -g),
            (-g, g),
            -0.3,
        ),
        (
            "gsl",
            0.9,
            3.0,
            1.0,
            None,
            (0.8, 0.0),
            (0.5 * g, 0.0),
            (-g, 0.0),
            -0.2,
        ),
        (
            "gsr",
            0.9,
            3.2,
            1.0,
            None,
            (0.8, 0.0),
            (-g, 0.0),
            (g, 0.0),
            -0.2,
        ),
        (
            "bmp",
            0.8,
            1.5,
            -1.0,
            None,
            (1.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            -0.4,
        ),
    ];
    rows.into_iter().map(ClipDef::from).collect()
}

fn smooth(u: f64) -> f64 {
    u * u * (3.0 - 2.0 * u)
}

/// The leg's six joint rotations at phase `u` for thigh angles `a` (positive = forward).
fn leg_pose(a: (f64, f64), stepping: bool, side: f64, u: f64) -> [DQuat; 6] {
    let theta = a.0 + (a.1 - a.0) * smooth(u);
    let lift = if stepping {
        (std::f64::consts::PI * u).sin()
    } else {
        0.0
    };
    let knee = 0.6 * lift;
    let shin = -0.4 * lift;
    [
        DQuat::from_rotation_z(0.04 * side * lift),
        // Rotating the downward leg by a negative angle about X swings the foot toward +Z.
        DQuat::from_rotation_x(-theta),
        DQuat::from_rotation_x(knee),
        DQuat::from_rotation_x(shin),
        // Keep the foot level: the chain's pitches sum to zero.
        DQuat::from_rotation_x(theta - knee - shin),
        DQuat::from_rotation_x(-0.2 * lift),
    ]
}

/// Which foot steps in a clip: the code's last letter.
fn stepping(code: &str) -> (bool, bool) {
    match code.as_bytes().last() {
        Some(b'r') => (true, false),
        Some(b'l') => (false, true),
        _ => (false, false),
    }
}

/// Keyframes of one joint's rotation channel: (node, quaternions).
type Rotations = (usize, Vec<[f32; 4]>);

/// Per-keyframe times, root translation and the 15 joint rotations of a clip.
fn clip_keys(c: &ClipDef) -> (Vec<f32>, Vec<[f32; 3]>, Vec<Rotations>) {
    let (v0, v1) = c.speed;
    let mean = (v0 + v1) / 2.0;
    let (right_steps, left_steps) = stepping(c.code);
    let rotated: Vec<usize> = std::iter::once(TORSO)
        .chain(LEFT_LEG)
        .chain(RIGHT_LEG)
        .chain([L_SHOULDER, R_SHOULDER])
        .collect();
    let mut times = Vec::with_capacity(KEYS);
    let mut root = Vec::with_capacity(KEYS);
    let mut rots: Vec<Rotations> = rotated
        .iter()
        .map(|&j| (j, Vec::with_capacity(KEYS)))
        .collect();
    let last = KEYS - 1;
    for k in 0..KEYS {
        let u = k as f64 / last as f64;
        times.push(if k == last {
            c.duration as f32
        } else {
            (c.duration * u) as f32
        });
        let travelled = (v0 * u + (v1 - v0) * u * u / 2.0) / mean;
        let z = if k == last {
            c.direction * c.stride
        } else {
            c.direction * c.stride * travelled
        };
        let s = (std::f64::consts::PI * u).sin();
        // sin(pi) is not exactly 0: the ends of the bob are set, so strides join exactly.
        let bob = if k == 0 || k == last {
            0.0
        } else {
            c.bob * s * s
        };
        root.push([0.0, bob as f32, z as f32]);
        let left = leg_pose(c.left, left_steps, 1.0, u);
        let right = leg_pose(c.right, right_steps, -1.0, u);
        let theta = |a: (f64, f64)| a.0 + (a.1 - a.0) * smooth(u);
        let step_sign = if right_steps {
            1.0
        } else if left_steps {
            -1.0
        } else {
            0.0
        };
        let stagger = if c.code == "bmp" { 0.25 * s } else { 0.0 };
        let torso = DQuat::from_rotation_y(0.05 * step_sign * s) * DQuat::from_rotation_x(-stagger);
        // Arms swing against the leg on their side.
        let l_sh = DQuat::from_rotation_x(0.3 * theta(c.left));
        let r_sh = DQuat::from_rotation_x(0.3 * theta(c.right));
        let pose: Vec<DQuat> = std::iter::once(torso)
            .chain(left)
            .chain(right)
            .chain([l_sh, r_sh])
            .collect();
        for ((_, keys), q) in rots.iter_mut().zip(pose) {
            let q = q.normalize();
            keys.push([q.x as f32, q.y as f32, q.z as f32, q.w as f32]);
        }
    }
    (times, root, rots)
}

/// Buffer views and accessors, accumulated.
#[derive(Default)]
struct Out {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Out {
    fn data(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let view = self.data(&bytes, target);
        let ty = match N {
            1 => "SCALAR",
            3 => "VEC3",
            4 => "VEC4",
            _ => "MAT4",
        };
        let mut a =
            json!({"bufferView": view, "componentType": 5126, "count": data.len(), "type": ty});
        if bounds {
            let (lo, hi) = crate::gltf::buffer::min_max(data);
            a["min"] = lo;
            a["max"] = hi;
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

/// Positions, normals and triangles of a mesh part.
type Part = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[u16; 3]>);

/// A box from `a` to `b` (world), square section of half width `w`: 24 vertices, 12 triangles.
fn boxed(a: DVec3, b: DVec3, w: f64) -> Part {
    let n = (b - a).normalize_or(DVec3::Y);
    let reference = if n.y.abs() < 0.9 { DVec3::Y } else { DVec3::Z };
    let u = n.cross(reference).normalize() * w;
    let v = n.cross(u.normalize()) * w;
    let corner = |end: bool, su: f64, sv: f64| (if end { b } else { a }) + u * su + v * sv;
    let faces: [(DVec3, [DVec3; 4]); 6] = [
        (
            u,
            [
                corner(false, 1., -1.),
                corner(true, 1., -1.),
                corner(true, 1., 1.),
                corner(false, 1., 1.),
            ],
        ),
        (
            -u,
            [
                corner(false, -1., -1.),
                corner(false, -1., 1.),
                corner(true, -1., 1.),
                corner(true, -1., -1.),
            ],
        ),
        (
            v,
            [
                corner(false, -1., 1.),
                corner(false, 1., 1.),
                corner(true, 1., 1.),
                corner(true, -1., 1.),
            ],
        ),
        (
            -v,
            [
                corner(false, -1., -1.),
                corner(true, -1., -1.),
                corner(true, 1., -1.),
                corner(false, 1., -1.),
            ],
        ),
        (
            n,
            [
                corner(true, -1., -1.),
                corner(true, -1., 1.),
                corner(true, 1., 1.),
                corner(true, 1., -1.),
            ],
        ),
        (
            -n,
            [
                corner(false, -1., -1.),
                corner(false, 1., -1.),
                corner(false, 1., 1.),
                corner(false, -1., 1.),
            ],
        ),
    ];
    let (mut pos, mut nor, mut tri) = (Vec::new(), Vec::new(), Vec::new());
    for (normal, quad) in faces {
        let normal = normal.normalize();
        let base = pos.len() as u16;
        let facing = (quad[1] - quad[0]).cross(quad[2] - quad[0]).dot(normal);
        for p in quad {
            pos.push(p.as_vec3().to_array());
            nor.push(normal.as_vec3().to_array());
        }
        if facing >= 0.0 {
            tri.push([base, base + 1, base + 2]);
            tri.push([base, base + 2, base + 3]);
        } else {
            tri.push([base, base + 2, base + 1]);
            tri.push([base, base + 3, base + 2]);
        }
    }
    (pos, nor, tri)
}

/// The sample mech as a GLB (deterministic).
pub fn sample_mech() -> Vec<u8> {
    let js = joints();
    let mut world = vec![DVec3::ZERO; js.len()];
    for (i, j) in js.iter().enumerate() {
        let t = DVec3::from_array(j.t);
        world[i] = match j.parent {
            Some(p) => world[p] + t,
            None => t,
        };
    }
    let mut out = Out::default();

    // Mesh: one box per bone, rigidly skinned.
    let (mut pos, mut nor, mut jnt, mut wgt, mut idx) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, j) in js.iter().enumerate() {
        let Some((a, b, w)) = j.shape else { continue };
        let (p, n, t) = boxed(
            world[i] + DVec3::from_array(a),
            world[i] + DVec3::from_array(b),
            w,
        );
        let base = pos.len() as u16;
        for _ in 0..p.len() {
            jnt.push([i as u8, 0, 0, 0]);
            wgt.push([1.0f32, 0.0, 0.0, 0.0]);
        }
        pos.extend(p);
        nor.extend(n);
        idx.extend(t.iter().map(|tri| tri.map(|x| x + base)));
    }
    let a_pos = out.floats(&pos, Some(34962), true);
    let a_nor = out.floats(&nor, Some(34962), false);
    let jbytes: Vec<u8> = jnt.iter().flatten().copied().collect();
    let v_jnt = out.data(&jbytes, Some(34962));
    out.accessors.push(
        json!({"bufferView": v_jnt, "componentType": 5121, "count": jnt.len(), "type": "VEC4"}),
    );
    let a_jnt = out.accessors.len() - 1;
    let a_wgt = out.floats(&wgt, Some(34962), false);
    let ibytes: Vec<u8> = idx.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    let v_idx = out.data(&ibytes, Some(34963));
    out.accessors.push(json!({"bufferView": v_idx, "componentType": 5123, "count": idx.len() * 3, "type": "SCALAR"}));
    let a_idx = out.accessors.len() - 1;
    // Rest rotations are all identity, so each inverse bind matrix is a translation.
    let ibm: Vec<[f32; 16]> = world
        .iter()
        .map(|p| {
            let mut m = [0f32; 16];
            m[0] = 1.0;
            m[5] = 1.0;
            m[10] = 1.0;
            m[15] = 1.0;
            m[12] = -p.x as f32;
            m[13] = -p.y as f32;
            m[14] = -p.z as f32;
            m
        })
        .collect();
    let a_ibm = out.floats(&ibm, None, false);

    // Animations.
    let mut animations = Vec::new();
    for c in clips() {
        let (times, root, rots) = clip_keys(&c);
        let t1: Vec<[f32; 1]> = times.iter().map(|&t| [t]).collect();
        let input = out.floats(&t1, None, true);
        let mut samplers = vec![json!({"input": input, "output": out.floats(&root, None, false)})];
        let mut channels =
            vec![json!({"sampler": 0, "target": {"node": 0, "path": "translation"}})];
        for (node, keys) in &rots {
            samplers.push(json!({"input": input, "output": out.floats(keys, None, false)}));
            channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": "rotation"}}));
        }
        let mut anim = json!({"name": format!("{PREFIX}{}", c.code), "channels": channels, "samplers": samplers});
        if let Some(cap) = c.cap {
            anim["extras"] = json!({"rigtrip": {"speedCap": cap}});
        }
        animations.push(anim);
    }

    let mut nodes: Vec<Value> = js
        .iter()
        .map(|j| {
            let mut n = json!({"name": j.name});
            if j.t != [0.0; 3] {
                n["translation"] = json!(j.t.map(|x| f64::from(x as f32)));
            }
            n
        })
        .collect();
    for (i, j) in js.iter().enumerate() {
        if let Some(p) = j.parent {
            if let Some(children) = nodes[p]
                .as_object_mut()
                .map(|o| o.entry("children").or_insert_with(|| json!([])))
            {
                if let Some(a) = children.as_array_mut() {
                    a.push(json!(i));
                }
            }
        }
    }
    nodes.push(json!({"name": "mech", "mesh": 0, "skin": 0}));
    let mesh_node = nodes.len() - 1;
    while !out.bin.len().is_multiple_of(4) {
        out.bin.push(0);
    }
    let doc = json!({
        "asset": {"version": "2.0", "generator": "rigtrip synth::mech"},
        "scene": 0,
        "scenes": [{"name": "mech", "nodes": [0, mesh_node]}],
        "nodes": nodes,
        "skins": [{"name": "mech", "joints": (0..js.len()).collect::<Vec<_>>(), "inverseBindMatrices": a_ibm, "skeleton": 0}],
        "meshes": [{"name": "mech", "primitives": [{
            "attributes": {"POSITION": a_pos, "NORMAL": a_nor, "JOINTS_0": a_jnt, "WEIGHTS_0": a_wgt},
            "indices": a_idx, "material": 0}]}],
        "materials": [{"name": "hull", "pbrMetallicRoughness": {"baseColorFactor": [0.45, 0.5, 0.42, 1.0], "metallicFactor": 0.6, "roughnessFactor": 0.55}}],
        "animations": animations,
        "accessors": out.accessors,
        "bufferViews": out.views,
        "buffers": [{"byteLength": out.bin.len()}],
    });
    let mut text = serde_json::to_vec(&doc).unwrap_or_default();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + out.bin.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&(out.bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&out.bin);
    glb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_chain_pose_to_pose() {
        // Every stride ends where the next one (other foot) starts, for the machine's chains.
        let cs = clips();
        let get = |code: &str| cs.iter().find(|c| c.code == code).unwrap();
        for (a, b) in [
            ("swr", "wwl"),
            ("wwl", "wwr"),
            ("wwr", "wwl"),
            ("wwr", "wsl"),
            ("wwl", "wsr"),
            ("wwr", "wrl"),
            ("wrl", "rrr"),
            ("rrr", "rrl"),
            ("rrl", "rwr"),
            ("rwr", "wwl"),
            ("sbr", "bbl"),
            ("sbl", "bbr"),
            ("bbr", "bbl"),
            ("bbl", "bsr"),
            ("bbr", "bsl"),
            ("wwr", "wgl"),
            ("wgl", "ggr"),
            ("ggr", "ggl"),
            ("ggl", "ggr"),
            ("ggr", "gsl"),
            ("ggl", "gsr"),
        ] {
            assert_eq!(get(a).right.1, get(b).right.0, "{a} -> {b} right");
            assert_eq!(get(a).left.1, get(b).left.0, "{a} -> {b} left");
        }
        assert_eq!(cs.len(), 24);
    }

    #[test]
    fn joint_count_and_animated_joints() {
        let js = joints();
        assert_eq!(js.len(), 22);
        assert_eq!(js[LEFT_LEG[5]].name, "l_foot");
        assert_eq!(js[RIGHT_LEG[0]].name, "r_hip");
        assert_eq!(js[L_SHOULDER].name, "l_shoulder");
        assert_eq!(js[R_SHOULDER].name, "r_shoulder");
        let (_, _, rots) = clip_keys(&clips()[1]);
        assert_eq!(rots.len(), 15);
    }
}
