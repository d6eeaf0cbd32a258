//! Re-posing a body bound to another rig onto the template's rest pose (`import --onto`).
//!
//! The body is taken where the glTF draws it at rest (`Σ w · joint world · inverse bind`: the
//! node transforms above the skin included, an armature scaled 0.01 or rotated comes out in
//! metres and upright). Each mapped source joint `j` then gets a rigid-plus-stretch transform
//! `M_j = T(A_j) · R_j · S_j · T(−s_j)`:
//!
//! - `s_j`: its rest position in the glTF; `A_j`: the template joint's rest position, scaled
//!   about the template's origin by `σ` (the ratio of the two skeletons' heights over the
//!   mapped joints, so the body keeps its own height; [`Fit`] scales the result after);
//! - `R_j`: the rotation that turns its bones (towards its nearest mapped descendants) into the
//!   template's (shortest arc for one, the best fit of all of them, Horn's quaternion method,
//!   for several; a joint with none takes its parent's);
//! - `S_j`: for one bone, a stretch along it by the ratio of the two bones' lengths, so that the
//!   segment ends where the template's does; none otherwise.
//!
//! A vertex is moved by its joints' transforms, linearly blended by its weights (as the game
//! skins). A joint mapped to nothing moves (and gives its weight) with its nearest mapped
//! ancestor.

use std::collections::HashMap;

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4};

use super::graph::Graph;
use super::joints::Identities;

/// How the body's size is chosen (the re-posed body scaled about the template's origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fit {
    /// Its own height exactly: re-posed on the template's skeleton taken to the body's scale
    /// (the two skeletons' heights over the mapped joints), then scaled by what re-posing
    /// changed of its height.
    #[default]
    Source,
    /// The template's meshes' height exactly (its joints off the template's where the two
    /// bodies' proportions differ).
    Height,
    /// On the template's bones (its height what its proportions make of them).
    Bones,
}

impl Fit {
    /// The uniform scale that takes the body re-posed at its own scale (`sigma`: its skeleton
    /// over the template's, `height`: its height then) to this fit; `source`: its height in
    /// the glTF, `template`: the template's meshes' height.
    pub(super) fn factor(self, sigma: f64, height: f64, source: f64, template: f64) -> f64 {
        match self {
            Fit::Source => snap(ratio(source, height), 1e-9),
            Fit::Height => ratio(template, height),
            Fit::Bones => ratio(1.0, sigma),
        }
    }
}

/// How far one mapped bone's rest direction is from the template's.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LimbAngle {
    /// Source joint node.
    pub node: usize,
    /// Template joint it maps to: (skeleton, joint).
    pub target: (usize, usize),
    /// Angle between the two bones, radians.
    pub angle: f64,
}

/// The transforms of a re-posing (see the module doc).
pub(super) struct Pose {
    /// Per node: the mapped node whose transform moves it (itself, or its nearest mapped
    /// ancestor); `None` above every mapped joint.
    pub owner: Vec<Option<usize>>,
    /// Per mapped node, `M_j`.
    pub m: HashMap<usize, DMat4>,
    /// Per mapped node, `R_j`.
    pub r: HashMap<usize, DQuat>,
    /// Template skeleton positions scaled by this: the source's skeleton height over the
    /// template's (the mapped joints).
    pub sigma: f64,
    /// Per mapped bone, the angle between its rest direction and the template's.
    pub limbs: Vec<LimbAngle>,
}

impl Pose {
    /// The re-posing of the glTF's joints onto `rest` (the template's joint world matrices in
    /// glTF space, per skeleton and joint) through `ids`.
    pub fn new(graph: &Graph, ids: &Identities, rest: &[Vec<DMat4>]) -> Pose {
        let target = |n: usize| -> Option<((usize, usize), DVec3)> {
            let j = ids.nodes.get(n)?.as_ref()?;
            let super::joints::JointKey::Old(k) = j.key else {
                return None;
            };
            let m = rest.get(j.skeleton)?.get(k)?;
            Some(((j.skeleton, k), m.w_axis.truncate()))
        };
        let n = graph.nodes.len();
        let mapped: Vec<bool> = (0..n).map(|i| target(i).is_some()).collect();
        let owner = owners(graph, &mapped);
        let src = |i: usize| graph.world[i].w_axis.truncate();
        let sigma = {
            let all: Vec<usize> = (0..n).filter(|&i| mapped[i]).collect();
            let h_src = extent_y(all.iter().map(|&i| src(i)));
            let h_t = extent_y(all.iter().filter_map(|&i| target(i).map(|t| t.1)));
            snap(ratio(h_src, h_t), 1e-5)
        };
        let anchor = |i: usize| target(i).map(|t| t.1 * sigma);
        // Nearest mapped descendants: the mapped nodes whose owner above them is `j`.
        let mut below: HashMap<usize, Vec<usize>> = HashMap::new();
        for &i in &graph.preorder {
            if !mapped[i] {
                continue;
            }
            let up = graph.parent[i].and_then(|p| owner[p]);
            if let Some(p) = up {
                below.entry(p).or_default().push(i);
            }
        }
        let mut pose = Pose {
            owner,
            m: HashMap::new(),
            r: HashMap::new(),
            sigma,
            limbs: Vec::new(),
        };
        for &j in &graph.preorder {
            let (Some((t, a_j)), true) = (target(j), mapped[j]) else {
                continue;
            };
            let a_j = a_j * sigma;
            let s_j = src(j);
            let pairs: Vec<(DVec3, DVec3)> = below
                .get(&j)
                .into_iter()
                .flatten()
                .filter_map(|&c| Some((src(c) - s_j, anchor(c)? - a_j)))
                .filter(|(a, b)| a.length() > 1e-6 && b.length() > 1e-6)
                .collect();
            let inherited = graph.parent[j]
                .and_then(|p| pose.owner[p])
                .and_then(|p| pose.r.get(&p).copied())
                .unwrap_or(DQuat::IDENTITY);
            let (r, stretch) = match pairs.as_slice() {
                [] => (inherited, DMat3::IDENTITY),
                [(a, b)] => {
                    let (ua, ub) = (a.normalize(), b.normalize());
                    pose.limbs.push(LimbAngle {
                        node: j,
                        target: t,
                        angle: ua.dot(ub).clamp(-1.0, 1.0).acos(),
                    });
                    let lambda = snap((b.length() / a.length()).clamp(0.2, 5.0), 1e-4);
                    let s = DMat3::IDENTITY
                        + DMat3::from_cols(ua * ua.x, ua * ua.y, ua * ua.z) * (lambda - 1.0);
                    (DQuat::from_rotation_arc(ua, ub), s)
                }
                many => (best_rotation(many), DMat3::IDENTITY),
            };
            let agree = pairs
                .iter()
                .all(|(a, b)| a.normalize().dot(b.normalize()) > AGREE_COS);
            let r = if agree && !pairs.is_empty() {
                DQuat::IDENTITY
            } else {
                r
            };
            let m = DMat4::from_translation(a_j)
                * DMat4::from_mat3(DMat3::from_quat(r) * stretch)
                * DMat4::from_translation(-s_j);
            pose.r.insert(j, r);
            pose.m.insert(j, m);
        }
        pose
    }

    /// The transform that moves node `node`'s weight: its owner's.
    pub fn of(&self, node: usize) -> Option<&DMat4> {
        self.m.get(&(*self.owner.get(node)?)?)
    }
}

/// Bones whose directions agree within this cosine (0.0001 rad: the rounding of a glTF's
/// single-precision transforms on a short bone) are not turned, so that a body bound to the
/// template's own rest pose is moved by translations alone.
const AGREE_COS: f64 = 0.999_999_995;

/// `a / b` within 1/1000 to 1000, 1 when either is not a length.
fn ratio(a: f64, b: f64) -> f64 {
    if a > 1e-6 && b > 1e-6 {
        (a / b).clamp(1e-3, 1e3)
    } else {
        1.0
    }
}

/// `x`, or 1 when it is within `eps` of it (rounding, not a difference).
fn snap(x: f64, eps: f64) -> f64 {
    if (x - 1.0).abs() < eps {
        1.0
    } else {
        x
    }
}

/// Per node, itself when mapped, else its nearest mapped ancestor (parents before children).
fn owners(graph: &Graph, mapped: &[bool]) -> Vec<Option<usize>> {
    let mut owner: Vec<Option<usize>> = vec![None; graph.nodes.len()];
    for &i in &graph.preorder {
        owner[i] = if mapped[i] {
            Some(i)
        } else {
            graph.parent[i].and_then(|p| owner[p])
        };
    }
    owner
}

/// Vertical extent (glTF Y) of some points; 0 for none.
pub(super) fn extent_y(points: impl Iterator<Item = DVec3>) -> f64 {
    let (lo, hi) = points.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    if hi >= lo {
        hi - lo
    } else {
        0.0
    }
}

/// The rotation that best turns each `a` into its `b` (least squares over the unit
/// directions; Horn 1987: the principal eigenvector of his 4×4 matrix, by power iteration on
/// the matrix shifted to be positive).
fn best_rotation(pairs: &[(DVec3, DVec3)]) -> DQuat {
    let mut s = [[0.0f64; 3]; 3];
    for (a, b) in pairs {
        let (a, b) = (a.normalize().to_array(), b.normalize().to_array());
        for (r, row) in s.iter_mut().enumerate() {
            for (c, x) in row.iter_mut().enumerate() {
                *x += a[r] * b[c];
            }
        }
    }
    let [[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]] = s;
    let shift = pairs.len() as f64;
    let n = [
        DVec4::new(xx + yy + zz + shift, yz - zy, zx - xz, xy - yx),
        DVec4::new(yz - zy, xx - yy - zz + shift, xy + yx, zx + xz),
        DVec4::new(zx - xz, xy + yx, -xx + yy - zz + shift, yz + zy),
        DVec4::new(xy - yx, zx + xz, yz + zy, -xx - yy + zz + shift),
    ];
    // Start from the first pair's shortest arc: near the answer, never orthogonal to it.
    let first = pairs
        .first()
        .map(|(a, b)| DQuat::from_rotation_arc(a.normalize(), b.normalize()))
        .unwrap_or(DQuat::IDENTITY);
    let mut q = DVec4::new(first.w, first.x, first.y, first.z) + DVec4::splat(1e-3);
    for _ in 0..200 {
        let next = DVec4::new(n[0].dot(q), n[1].dot(q), n[2].dot(q), n[3].dot(q));
        let len = next.length();
        if len.is_nan() || len <= 1e-12 {
            break;
        }
        q = next / len;
    }
    let r = DQuat::from_xyzw(q.y, q.z, q.w, q.x);
    if r.is_finite() && r.length() > 0.5 {
        r.normalize()
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_rotation_recovers_a_rotation() {
        let truth = DQuat::from_euler(glam::EulerRot::ZYX, 0.7, -0.4, 1.9);
        let a = [
            DVec3::X,
            DVec3::new(0.0, 1.0, 0.3),
            DVec3::new(-0.5, -0.2, 1.0),
        ];
        let pairs: Vec<(DVec3, DVec3)> = a.iter().map(|&v| (v, truth * v)).collect();
        let got = best_rotation(&pairs);
        assert!(got.angle_between(truth) < 1e-9, "{got:?} vs {truth:?}");
        let two = best_rotation(&pairs[..2]);
        assert!(two.angle_between(truth) < 1e-9);
    }

    #[test]
    fn extent_of_nothing_is_zero() {
        assert_eq!(extent_y(std::iter::empty()), 0.0);
        assert_eq!(extent_y([DVec3::Y, DVec3::NEG_Y].into_iter()), 2.0);
    }
}
