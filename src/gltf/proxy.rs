//! Proxy solids for skeletons without geometry of their own (HIE parts, bare node blocks): one
//! small solid per joint, rigidly skinned to it, so that moving a bone in Blender visibly moves
//! something and the armature is easy to see and pick.
//!
//! A joint with a child gets an octahedral bone shape (Blender's own bone display) from the joint
//! toward its first child; a joint without one (or whose first child sits on it) gets a small
//! octahedron centred on it.

use glam::DVec3;

use crate::rig::mesh::Mesh;
use crate::rig::{GateFailure, Skeleton};

/// Width of a bone shape relative to its length.
const BONE_WIDTH: f64 = 0.1;
/// Where along the bone the shape is widest.
const BONE_WAIST: f64 = 0.15;
/// Radius of a leaf octahedron relative to the skeleton's typical bone length.
const LEAF_RADIUS: f64 = 0.1;
/// The thinnest bone relative to the typical bone length, so long chains of tiny bones stay visible.
const MIN_WIDTH: f64 = 0.03;

/// The proxy mesh of skeleton `index` in native units and bind (model) space, or `None` for a
/// skeleton without joints. `min_size` (native units) bounds widths and radii from below; the
/// export passes 5 mm.
pub fn skeleton_proxy(
    index: usize,
    skeleton: &Skeleton,
    min_size: f64,
) -> Result<Option<Mesh>, GateFailure> {
    if skeleton.joints.is_empty() {
        return Ok(None);
    }
    let world = skeleton.world_positions()?;
    let mut first_child: Vec<Option<usize>> = vec![None; skeleton.joints.len()];
    for (k, j) in skeleton.joints.iter().enumerate() {
        if let Some(slot) = j.parent.and_then(|p| first_child.get_mut(p)) {
            if slot.is_none() {
                *slot = Some(k);
            }
        }
    }
    let bone = |k: usize| -> Option<(DVec3, DVec3)> {
        let c = first_child.get(k).copied().flatten()?;
        Some((*world.get(k)?, *world.get(c)?))
    };
    let lengths: Vec<f64> = (0..skeleton.joints.len())
        .filter_map(bone)
        .map(|(a, b)| (b - a).length())
        .filter(|l| l.is_finite() && *l > 0.0)
        .collect();
    let typical = median(lengths).unwrap_or_else(|| extent(&world));
    let min_size = if min_size.is_finite() && min_size > 0.0 {
        min_size
    } else {
        1.0
    };
    let min_width = (typical * MIN_WIDTH).max(min_size);
    let leaf_radius = (typical * LEAF_RADIUS).max(min_size);

    let mut mesh = Mesh {
        name: format!("{}_proxy", skeleton.name),
        skeleton: Some(index),
        ..Mesh::default()
    };
    // 6 shared vertices and 8 triangles per joint; no normals, so that readers shade the
    // faces flat (glTF: flat normals when NORMAL is absent).
    let n = world.len();
    mesh.positions.reserve_exact(6 * n);
    mesh.joints.reserve_exact(6 * n);
    mesh.weights.reserve_exact(6 * n);
    mesh.triangles.reserve_exact(8 * n);
    for (k, &at) in world.iter().enumerate() {
        let shape = match bone(k) {
            Some((head, tail)) if (tail - head).length() > 2.0 * min_width => {
                octahedral_bone(head, tail, min_width)
            }
            _ => octahedron(at, leaf_radius),
        };
        push_solid(&mut mesh, &shape, k as u16);
    }
    Ok(Some(mesh))
}

/// Six corners: head, tail, then the waist ring.
fn octahedral_bone(head: DVec3, tail: DVec3, min_width: f64) -> [DVec3; 6] {
    let d = tail - head;
    let len = d.length();
    let axis = d / len;
    let (u, v) = axis.any_orthonormal_pair();
    let w = (len * BONE_WIDTH).max(min_width);
    let waist = head + d * BONE_WAIST;
    [
        head,
        tail,
        waist + u * w,
        waist + v * w,
        waist - u * w,
        waist - v * w,
    ]
}

/// Six corners of a regular octahedron, in the same apex/apex/ring order.
fn octahedron(c: DVec3, r: f64) -> [DVec3; 6] {
    [
        c - DVec3::Y * r,
        c + DVec3::Y * r,
        c + DVec3::X * r,
        c + DVec3::Z * r,
        c - DVec3::X * r,
        c - DVec3::Z * r,
    ]
}

/// Eight faces over the six corners (shared), wound counter-clockwise seen from outside.
fn push_solid(mesh: &mut Mesh, p: &[DVec3; 6], joint: u16) {
    let base = mesh.positions.len() as u32;
    mesh.positions.extend(p.iter().map(|v| v.to_array()));
    mesh.joints.extend_from_slice(&[[joint, 0, 0, 0]; 6]);
    mesh.weights.extend_from_slice(&[[1.0, 0.0, 0.0, 0.0]; 6]);
    // The waist centre lies inside the (convex) solid, so it tells outside from inside.
    let inside = (p[2] + p[4]) * 0.5;
    for i in 0..4 {
        let (a, b) = (2 + i, 2 + (i + 1) % 4);
        for apex in [0, 1] {
            let mut tri = [apex, a, b];
            let corner = |k: usize| p.get(tri[k]).copied().unwrap_or(DVec3::ZERO);
            let n = (corner(1) - corner(0)).cross(corner(2) - corner(0));
            let centroid = (corner(0) + corner(1) + corner(2)) / 3.0;
            if n.dot(centroid - inside) < 0.0 {
                tri.swap(1, 2);
            }
            mesh.triangles
                .push(tri.map(|k| base.wrapping_add(k as u32)));
        }
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// The diagonal of the joints' bounding box (0 for a single point).
fn extent(points: &[DVec3]) -> f64 {
    let lo = points.iter().copied().fold(DVec3::INFINITY, DVec3::min);
    let hi = points.iter().copied().fold(DVec3::NEG_INFINITY, DVec3::max);
    let d = (hi - lo).length();
    if d.is_finite() {
        d
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::plain_skeleton as skeleton;

    #[test]
    fn bone_runs_from_joint_to_first_child_and_leaf_is_centred() {
        let sk = skeleton(&[
            (None, [0.0; 3]),
            (Some(0), [0.0, 100.0, 0.0]),
            (Some(0), [50.0, 0.0, 0.0]),
        ]);
        let m = skeleton_proxy(4, &sk, 1.0).unwrap().unwrap();
        assert_eq!(m.name, "s_proxy");
        assert_eq!(m.skeleton, Some(4));
        assert_eq!(m.positions.len(), 3 * 6);
        assert_eq!(m.triangles.len(), 3 * 8);
        assert!(m.normals.is_empty());
        // Joint 0: head at the joint, tail at its first child (joint 1), not joint 2.
        let j0: Vec<DVec3> = m.positions[..6]
            .iter()
            .map(|p| DVec3::from_array(*p))
            .collect();
        assert!(j0.contains(&DVec3::ZERO));
        assert!(j0.contains(&DVec3::new(0.0, 100.0, 0.0)));
        let max_y = j0.iter().map(|p| p.y).fold(f64::MIN, f64::max);
        assert_eq!(max_y, 100.0);
        // Width 10% of the 100-unit bone, at 15% of its length.
        let ring: Vec<&DVec3> = j0.iter().filter(|p| p.y == 15.0).collect();
        assert!(!ring.is_empty());
        for p in ring {
            assert!((DVec3::new(p.x, 0.0, p.z).length() - 10.0).abs() < 1e-12);
        }
        // Leaves: octahedra of radius 10% of the median bone length (100) around the joint.
        let j1: Vec<DVec3> = m.positions[6..12]
            .iter()
            .map(|p| DVec3::from_array(*p))
            .collect();
        assert!(j1.contains(&DVec3::new(0.0, 110.0, 0.0)));
        assert!(j1.contains(&DVec3::new(0.0, 90.0, 0.0)));
        assert!(j1.contains(&DVec3::new(10.0, 100.0, 0.0)));
        // Rigid: every vertex of solid k is bound to joint k with weight 1.
        for (v, (j, w)) in m.joints.iter().zip(&m.weights).enumerate() {
            assert_eq!(*j, [(v / 6) as u16, 0, 0, 0]);
            assert_eq!(*w, [1.0, 0.0, 0.0, 0.0]);
        }
    }

    #[test]
    fn faces_point_outward() {
        let sk = skeleton(&[(None, [0.0; 3]), (Some(0), [30.0, -70.0, 20.0])]);
        let m = skeleton_proxy(0, &sk, 1.0).unwrap().unwrap();
        for (s, centre) in [
            (0usize, DVec3::new(4.5, -10.5, 3.0)),
            (1, DVec3::new(30.0, -70.0, 20.0)),
        ] {
            for t in &m.triangles[s * 8..s * 8 + 8] {
                let [a, b, c] = t.map(|i| DVec3::from_array(m.positions[i as usize]));
                let n = (b - a).cross(c - a);
                assert!(
                    n.dot((a + b + c) / 3.0 - centre) > 0.0,
                    "solid {s} triangle {t:?}"
                );
                assert!(t.iter().all(|&i| (i as usize) / 6 == s), "{t:?}");
            }
            // Closed and consistently wound: every edge once each way.
            let edges: std::collections::BTreeSet<(u32, u32)> = m.triangles[s * 8..s * 8 + 8]
                .iter()
                .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
                .collect();
            assert_eq!(edges.len(), 24);
            assert!(edges.iter().all(|&(a, b)| edges.contains(&(b, a))));
        }
    }

    #[test]
    fn degenerate_skeletons_get_minimum_sizes() {
        // All joints on one point: no bone length, no extent -> the minimum size.
        let sk = skeleton(&[(None, [0.0; 3]), (Some(0), [0.0; 3])]);
        let m = skeleton_proxy(0, &sk, 5.0).unwrap().unwrap();
        for p in &m.positions {
            assert_eq!(DVec3::from_array(*p).length(), 5.0);
        }
        let empty = skeleton(&[]);
        assert_eq!(skeleton_proxy(0, &empty, 5.0).unwrap(), None);
    }
}
