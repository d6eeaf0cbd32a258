//! The sample coat on a skeleton of its own, as a player archive's coat is made
//! (`docs/formats.md`, "Cloth"): node 0 the root with the identity local transform (the game
//! forces it and makes it follow body joint 3), node 1 the waist, then six tails around the
//! waist (open in front), each an anchor on the waist and four hanging joints. The hanging
//! joints are the simulated ones: each has a bone of its own (a non-zero local translation)
//! and its rest local +Y pointing at its parent, as retail simulated bones do. 32 nodes, within
//! the 39 the game allocates. Node numbers are the logical order (no shuffle: node 0 must be
//! the root).

use glam::{DMat3, DQuat, DVec3, EulerRot};

use super::{
    layout_block, layout_container, plain_mesh, plain_object, rot_xyz, tube, BlockSpec,
    ContainerSpec, Order, Rng, Vert,
};

/// Tails around the waist, degrees from the front (+Z) towards the left (+X).
const TAILS: [f64; 6] = [60.0, 105.0, 150.0, 210.0, 255.0, 300.0];
/// Hanging joints per tail.
const HANGING: usize = 4;
/// The waist's height, cm.
const WAIST: f64 = 102.0;

/// The coat's joints: (parent, world position in cm, whether simulated), in node order.
pub fn coat_joints() -> Vec<(Option<usize>, [f64; 3], bool)> {
    let mut j = vec![(None, [0.0; 3], false), (Some(0), [0.0, WAIST, 0.0], false)];
    for a in TAILS {
        let (s, c) = a.to_radians().sin_cos();
        let anchor = j.len();
        j.push((Some(1), [18.0 * s, WAIST, 18.0 * c], false));
        for k in 1..=HANGING {
            let r = 18.0 + 3.5 * k as f64;
            let y = WAIST - 16.0 * k as f64;
            j.push((Some(anchor + k - 1), [r * s, y, r * c], true));
        }
    }
    j
}

/// The coat's simulated nodes with the axis their cloth rows name (`Y`: the rest local axis
/// pointing at the parent).
pub fn coat_rows() -> Vec<(usize, &'static str)> {
    coat_joints()
        .iter()
        .enumerate()
        .filter(|(_, j)| j.2)
        .map(|(n, _)| (n, "Y"))
        .collect()
}

/// The coat's block: node 0 the identity, the simulated joints turned so that their local +Y
/// points at their parent, the others with small rotations. Returns the spec and the world
/// position (from the stored f32 values) and rotation of every node.
fn coat_block() -> (BlockSpec, Vec<DVec3>, Vec<DMat3>) {
    let joints = coat_joints();
    let n = joints.len();
    let mut world_rot = vec![DMat3::IDENTITY; n];
    let mut world_pos = vec![DVec3::ZERO; n];
    let mut records = vec![[0u32; 8]; n];
    for (l, &(parent, at, simulated)) in joints.iter().enumerate() {
        let Some(p) = parent else {
            continue; // the root: identity, at the origin
        };
        let (prot, ppos) = (world_rot[p], world_pos[p]);
        let target = DVec3::from_array(at);
        let t = prot.transpose() * (target - ppos);
        let t32 = t.to_array().map(|x| x as f32);
        let here = ppos + prot * DVec3::from_array(t32.map(f64::from));
        let r: [f32; 3] = match simulated {
            true => {
                let up = (ppos - here).normalize();
                let world = DQuat::from_rotation_arc(DVec3::Y, up);
                let local = DQuat::from_mat3(&prot).inverse() * world;
                let (z, y, x) = local.to_euler(EulerRot::ZYX);
                [x as f32, y as f32, z as f32]
            }
            false => {
                let k = l as f64;
                [(0.05 * k.sin()) as f32, (0.04 * k.cos()) as f32, 0.02]
            }
        };
        let m = t32
            .iter()
            .map(|&x| f64::from(x).powi(2))
            .sum::<f64>()
            .sqrt() as f32;
        world_pos[l] = here;
        world_rot[l] = prot * rot_xyz(r);
        let [tx, ty, tz] = t32.map(f32::to_bits);
        let [rx, ry, rz] = r.map(f32::to_bits);
        records[l] = [tx, ty, tz, m.to_bits(), rx, ry, rz, 0];
    }
    let spec = BlockSpec {
        parents: joints.iter().map(|j| j.0.map_or(-1, |p| p as i8)).collect(),
        order: (0..n as u8).collect(),
        groups: vec![0; n],
        records,
        unknown_10: [0; 16],
    };
    (spec, world_pos, world_rot)
}

/// The sample coat on its own skeleton ([`coat_joints`]): a four-sided tube around every bone
/// of each tail (texture index 1), skinned to the bone's two joints; one object, one mesh, in
/// the retail layout (its index workspace at the end).
pub fn own_coat() -> Vec<u8> {
    let mut rng = Rng::new(0xC0A7_0032);
    let (spec, world, _) = coat_block();
    let joints = coat_joints();
    let verts: Vec<Vert> = joints
        .iter()
        .enumerate()
        .filter_map(|(l, j)| Some((j.0?, l, j.2)))
        .filter(|&(p, _, _)| joints[p].0 == Some(1) || joints[p].2)
        .filter(|&(_, _, simulated)| simulated)
        .flat_map(|(p, l, _)| tube(world[p], world[l], 5.0, p, l))
        .collect();
    let mut c = ContainerSpec::sample(false, vec![plain_object(vec![plain_mesh(1, verts)])]);
    c.unknown_14 = 0xC0A7;
    let n = spec.records.len();
    let block = layout_block(&mut rng, &spec, false, false);
    layout_container(&mut rng, &c, &[], Some((block, n)), Order::Real, Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coat_is_within_the_game_s_limits_and_its_simulated_bones_point_y_at_their_parent() {
        let joints = coat_joints();
        assert!(joints.len() <= 39, "{} nodes", joints.len());
        let (spec, world, rot) = coat_block();
        assert_eq!(spec.records[0], [0; 8], "node 0 is the identity");
        for (l, &(parent, _, simulated)) in joints.iter().enumerate() {
            let Some(p) = parent else { continue };
            let t = &spec.records[l][..3];
            assert!(
                t.iter().any(|&b| f32::from_bits(b) != 0.0),
                "node {l}: zero bone"
            );
            if simulated {
                let to_parent = rot[l].transpose() * (world[p] - world[l]).normalize();
                assert!(to_parent.y > 0.999, "node {l}: {to_parent}");
            }
        }
        assert_eq!(coat_rows().len(), TAILS.len() * HANGING);
    }
}
