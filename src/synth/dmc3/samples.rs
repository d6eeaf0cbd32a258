//! The bundled sample models: a humanoid posed on its skeleton (tubes around its bones), the
//! coat, a stage SCM and an EFM, all built from the specs of [`super`].

use super::*;
/// Rz·Ry·Rx, column-vector convention (X applied first), as the block stores it.
pub(super) fn rot_xyz(r: [f32; 3]) -> DMat3 {
    DMat3::from_rotation_z(r[2] as f64)
        * DMat3::from_rotation_y(r[1] as f64)
        * DMat3::from_rotation_x(r[0] as f64)
}

/// A hierarchy given as (parent, world position) in logical order, turned into a block:
/// node numbers shuffled, a random valid evaluation order, small non-zero local rotations, and
/// local translations chosen so the joints land at the given world positions. Returns the
/// spec and the world positions recomputed from the stored f32 values, by node.
pub(super) fn posed_block(
    rng: &mut Rng,
    joints: &[(Option<usize>, [f64; 3])],
    groups: &[u8],
) -> (BlockSpec, Vec<DVec3>, Vec<usize>) {
    let n = joints.len();
    let mut node_of: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut node_of);
    // Random topological order over logical ids.
    let mut placed = vec![false; n];
    let mut eval = Vec::with_capacity(n);
    while eval.len() < n {
        let ready: Vec<usize> = (0..n)
            .filter(|&l| !placed[l] && joints[l].0.is_none_or(|p| placed[p]))
            .collect();
        let l = ready[rng.index(ready.len())];
        placed[l] = true;
        eval.push(l);
    }
    let mut world_rot = vec![DMat3::IDENTITY; n];
    let mut world_pos = vec![DVec3::ZERO; n];
    let mut records = vec![[0u32; 8]; n];
    for &l in &eval {
        let k = l as f64;
        let r = [
            (0.05 + 0.1 * (1.3 * k).sin()) as f32,
            (0.03 + 0.07 * (0.7 * k).cos()) as f32,
            (0.04 + 0.08 * (2.1 * k + 0.5).sin()) as f32,
        ];
        let target = DVec3::from_array(joints[l].1);
        let (prot, ppos) = match joints[l].0 {
            Some(p) => (world_rot[p], world_pos[p]),
            None => (DMat3::IDENTITY, DVec3::ZERO),
        };
        let t = prot.transpose() * (target - ppos);
        let t32 = [t.x as f32, t.y as f32, t.z as f32];
        let m = ((t32[0] as f64).powi(2) + (t32[1] as f64).powi(2) + (t32[2] as f64).powi(2)).sqrt()
            as f32;
        world_pos[l] = ppos + prot * DVec3::new(t32[0] as f64, t32[1] as f64, t32[2] as f64);
        world_rot[l] = prot * rot_xyz(r);
        records[node_of[l]] = [
            t32[0].to_bits(),
            t32[1].to_bits(),
            t32[2].to_bits(),
            m.to_bits(),
            r[0].to_bits(),
            r[1].to_bits(),
            r[2].to_bits(),
            0,
        ];
    }
    let order: Vec<u8> = eval.iter().map(|&l| node_of[l] as u8).collect();
    let parents = eval
        .iter()
        .map(|&l| joints[l].0.map(|p| node_of[p] as i8).unwrap_or(-1))
        .collect();
    let mut g = vec![0u8; n];
    for l in 0..n {
        g[node_of[l]] = groups[l];
    }
    let mut by_node = vec![DVec3::ZERO; n];
    for l in 0..n {
        by_node[node_of[l]] = world_pos[l];
    }
    (
        BlockSpec {
            parents,
            order,
            groups: g,
            records,
            unknown_10: [0; 16],
        },
        by_node,
        node_of,
    )
}

/// The humanoid: (name, parent, world position in cm, Y up, facing +Z, left = +X).
pub fn humanoid() -> Vec<(&'static str, Option<usize>, [f64; 3])> {
    let mut j: Vec<(&'static str, Option<usize>, [f64; 3])> = vec![
        ("root", None, [0.0, 0.0, 0.0]),
        ("hips", Some(0), [0.0, 95.0, 0.0]),
        ("spine0", Some(1), [0.0, 105.0, -1.0]),
        ("spine1", Some(2), [0.0, 117.0, -2.0]),
        ("chest", Some(3), [0.0, 130.0, -2.0]),
        ("neck", Some(4), [0.0, 147.0, -1.0]),
        ("head", Some(5), [0.0, 156.0, 1.0]),
        ("head_top", Some(6), [0.0, 172.0, 1.0]),
        ("jaw", Some(6), [0.0, 152.0, 5.0]),
        ("eye_l", Some(6), [3.2, 162.0, 8.0]),
        ("eye_r", Some(6), [-3.2, 162.0, 8.0]),
    ];
    let arm: [(&str, &str, usize, [f64; 3]); 14] = [
        ("clavicle_l", "clavicle_r", 4, [3.0, 142.0, 0.0]),
        ("upperarm_l", "upperarm_r", 0, [17.0, 141.0, -2.0]),
        ("forearm_l", "forearm_r", 1, [44.0, 136.0, -3.0]),
        ("hand_l", "hand_r", 2, [69.0, 132.0, -1.0]),
        ("thumb1_l", "thumb1_r", 3, [72.0, 130.0, 4.0]),
        ("thumb2_l", "thumb2_r", 4, [76.0, 129.0, 7.0]),
        ("index1_l", "index1_r", 3, [79.0, 132.0, 3.0]),
        ("index2_l", "index2_r", 6, [84.0, 132.0, 3.5]),
        ("middle1_l", "middle1_r", 3, [80.0, 131.5, 1.0]),
        ("middle2_l", "middle2_r", 8, [85.5, 131.0, 1.0]),
        ("ring1_l", "ring1_r", 3, [79.5, 131.0, -1.2]),
        ("ring2_l", "ring2_r", 10, [84.5, 130.5, -1.4]),
        ("pinky1_l", "pinky1_r", 3, [78.5, 130.5, -3.0]),
        ("pinky2_l", "pinky2_r", 12, [82.0, 130.0, -3.2]),
    ];
    let leg: [(&str, &str, usize, [f64; 3]); 5] = [
        ("thigh_l", "thigh_r", 1, [9.0, 93.0, 0.0]),
        ("knee_l", "knee_r", 0, [10.0, 50.0, 1.0]),
        ("ankle_l", "ankle_r", 1, [10.0, 8.0, -3.0]),
        ("ball_l", "ball_r", 2, [10.0, 2.0, 9.0]),
        ("toe_l", "toe_r", 3, [10.0, 1.5, 16.0]),
    ];
    for side in [1.0, -1.0] {
        let base = j.len();
        for (k, (l, r, p, pos)) in arm.iter().enumerate() {
            // The clavicle hangs off the chest (logical 4); the rest off the arm's own joints.
            let parent = if k == 0 { *p } else { base + p };
            let name = if side > 0.0 { *l } else { *r };
            j.push((name, Some(parent), [pos[0] * side, pos[1], pos[2]]));
        }
    }
    for side in [1.0, -1.0] {
        let base = j.len();
        for (k, (l, r, p, pos)) in leg.iter().enumerate() {
            let parent = if k == 0 { *p } else { base + p };
            let name = if side > 0.0 { *l } else { *r };
            j.push((name, Some(parent), [pos[0] * side, pos[1], pos[2]]));
        }
    }
    j
}

/// A four-sided tube from `a` to `b` as one strip of 10 vertices (first two flagged),
/// skinned: the ring at `a` fully to `ja`, the ring at `b` 16/31 to `ja` and 15/31 to `jb`.
pub(super) fn tube(a: DVec3, b: DVec3, radius: f64, ja: usize, jb: usize) -> Vec<Vert> {
    let d = (b - a).normalize_or(DVec3::Y);
    let helper = if d.y.abs() < 0.9 { DVec3::Y } else { DVec3::X };
    let u = d.cross(helper).normalize();
    let v = d.cross(u);
    let mut out = Vec::with_capacity(10);
    for s in 0..=4 {
        let ang = std::f64::consts::FRAC_PI_2 * s as f64 + std::f64::consts::FRAC_PI_4;
        let radial = u * ang.cos() + v * ang.sin();
        for (end, p) in [(0, a), (1, b)] {
            let pos = p + radial * radius;
            let i = out.len();
            let weight: u16 = if end == 0 { 31 } else { 16 | 15 << 5 };
            out.push(Vert {
                pos: [pos.x as f32, pos.y as f32, pos.z as f32].map(f32::to_bits),
                nrm: [radial.x as f32, radial.y as f32, radial.z as f32].map(f32::to_bits),
                uv: [(s as i16) * 1024, end as i16 * 4096],
                bones: [0, (ja * 4) as u8, (jb * 4) as u8, 0],
                weight: weight | if i < 2 { 0x8000 } else { 0 },
                colour: [0; 4],
            });
        }
    }
    out
}

pub(super) fn bounds_of(verts: &[Vert]) -> [f32; 4] {
    if verts.is_empty() {
        return [0.0; 4];
    }
    let p: Vec<DVec3> = verts
        .iter()
        .map(|v| DVec3::from_array(v.pos.map(|b| f32::from_bits(b) as f64)))
        .collect();
    let c = p.iter().copied().sum::<DVec3>() / p.len() as f64;
    let r = p.iter().map(|q| q.distance(c)).fold(0.0, f64::max);
    [c.x as f32, c.y as f32, c.z as f32, r as f32]
}

pub(super) fn plain_mesh(texture_index: u16, verts: Vec<Vert>) -> MeshSpec {
    MeshSpec {
        texture_index,
        unknown_04: [0; 12],
        unknown_tail: [0; 16],
        unknown_40: 0,
        unknown_48: [0; 8],
        verts,
    }
}

pub(super) fn plain_object(meshes: Vec<MeshSpec>) -> ObjectSpec {
    let all: Vec<Vert> = meshes.iter().flat_map(|m| m.verts.clone()).collect();
    ObjectSpec {
        // Alpha control 0x80, as in every retail object.
        unknown_01: 0x80,
        vertex_count: all.len() as u16,
        unknown_04: 0,
        flags: 0,
        unknown_14: [0; 28],
        bounds: bounds_of(&all),
        meshes,
        empty_mesh_offset: 0,
    }
}

/// A synthetic humanoid MOD: 49 joints (~172 cm, Y up, centimetres) in a shuffled evaluation
/// order with non-zero rest rotations; two objects (body: torso/head and legs meshes; arms)
/// of skinned four-sided tubes around the bones, weights summing to 31/31. In the retail layout
/// ([`Order::Real`]): canonical block with zero padding after the streams, then the index
/// workspaces.
pub fn sample_mod() -> Vec<u8> {
    let (mut rng, h, spec, world, node_of) = humanoid_block();
    let mut torso = Vec::new();
    let mut legs = Vec::new();
    let mut arms = Vec::new();
    for (l, j) in h.iter().enumerate() {
        let Some(p) = j.1 else { continue };
        if h[p].1.is_none() {
            continue; // root to hips: no bone to wrap
        }
        let (a, b) = (world[node_of[p]], world[node_of[l]]);
        let len = a.distance(b);
        let radius = (len * 0.2).clamp(0.5, 9.0);
        let verts = tube(a, b, radius, node_of[p], node_of[l]);
        let name = j.0;
        if name.starts_with("thigh")
            || ["knee", "ankle", "ball", "toe"]
                .iter()
                .any(|s| name.starts_with(s))
        {
            legs.extend(verts);
        } else if name.ends_with("_l") || name.ends_with("_r") {
            arms.extend(verts);
        } else {
            torso.extend(verts);
        }
    }
    let c = ContainerSpec::sample(
        false,
        vec![
            plain_object(vec![plain_mesh(0, torso), plain_mesh(0, legs)]),
            plain_object(vec![plain_mesh(1, arms)]),
        ],
    );
    let n = spec.records.len();
    let block = layout_block(&mut rng, &spec, false, false);
    layout_container(&mut rng, &c, &[], Some((block, n)), Order::Real, Vec::new())
}

/// The humanoid's block as [`sample_mod`] stores it: the generator after drawing it, the
/// joints, the block, the world positions by node and the node of each logical joint.
pub(super) type HumanoidBlock = (
    Rng,
    Vec<(&'static str, Option<usize>, [f64; 3])>,
    BlockSpec,
    Vec<DVec3>,
    Vec<usize>,
);

pub(super) fn humanoid_block() -> HumanoidBlock {
    let mut rng = Rng::new(0x5A3D_1E00);
    let h = humanoid();
    let joints: Vec<(Option<usize>, [f64; 3])> = h.iter().map(|j| (j.1, j.2)).collect();
    let groups: Vec<u8> = h
        .iter()
        .map(|j| match j.0 {
            n if n.ends_with("_l") => 1,
            n if n.ends_with("_r") => 2,
            _ => 0,
        })
        .collect();
    let (spec, world, node_of) = posed_block(&mut rng, &joints, &groups);
    (rng, h, spec, world, node_of)
}

/// A long coat for [`sample_mod`]. With `shared`, on the humanoid's own skeleton (its block
/// byte for byte): wide tubes from the chest down past the knees. Else on a coat skeleton of
/// its own ([`coat::own_coat`]: a root, the waist and six tails, 32 nodes). Texture index 1.
pub fn sample_coat(shared: bool) -> Vec<u8> {
    if !shared {
        return coat::own_coat();
    }
    let (mut rng, h, spec, world, node_of) = humanoid_block();
    let logical = |name: &str| h.iter().position(|j| j.0 == name).unwrap_or(0);
    let bone = |a: &str, b: &str, r: f64| (node_of[logical(a)], node_of[logical(b)], r);
    let bones = [
        bone("chest", "spine1", 15.0),
        bone("spine1", "hips", 16.0),
        bone("thigh_l", "knee_l", 11.0),
        bone("thigh_r", "knee_r", 11.0),
    ];
    let verts: Vec<Vert> = bones
        .iter()
        .flat_map(|&(a, b, r)| tube(world[a], world[b], r, a, b))
        .collect();
    let mut c = ContainerSpec::sample(false, vec![plain_object(vec![plain_mesh(1, verts)])]);
    c.unknown_14 = 0xC0A7;
    let n = spec.records.len();
    let block = layout_block(&mut rng, &spec, false, false);
    layout_container(&mut rng, &c, &[], Some((block, n)), Order::Real, Vec::new())
}

/// A small SCM stage: a 10 m floor as row strips in a checker of colours, and four pillars;
/// no node-domain block; in the retail layout ([`Order::Real`]).
pub fn sample_scm() -> Vec<u8> {
    let mut rng = Rng::new(0x5C3_57A6E);
    let cells = 8;
    let size = 1000.0 / cells as f64;
    let mut floor = Vec::new();
    for row in 0..cells {
        for col in 0..=cells {
            for dz in [0, 1] {
                let x = -500.0 + col as f64 * size;
                let z = -500.0 + (row + dz) as f64 * size;
                let i = floor.len() % (2 * (cells + 1));
                let light = (row + col) % 2 == 0;
                let shade = if light { 200 } else { 90 };
                floor.push(Vert {
                    pos: [x as f32, 0.0, z as f32].map(f32::to_bits),
                    nrm: [0.0f32, 1.0, 0.0].map(f32::to_bits),
                    uv: [(col * 512) as i16, ((row + dz) * 512) as i16],
                    bones: [0; 4],
                    weight: 0,
                    colour: [shade, shade, shade + 20, 0x80 | if i < 2 { 2 } else { 0 }],
                });
            }
        }
    }
    let mut pillars = Vec::new();
    for (x, z) in [
        (-300.0, -300.0),
        (300.0, -300.0),
        (-300.0, 300.0),
        (300.0, 300.0),
    ] {
        let t = tube(DVec3::new(x, 0.0, z), DVec3::new(x, 400.0, z), 40.0, 0, 0);
        pillars.extend(t.into_iter().enumerate().map(|(i, mut v)| {
            v.bones = [0; 4];
            v.weight = 0;
            v.colour = [150, 120, 90, 0x80 | if i < 2 { 2 } else { 0 }];
            v
        }));
    }
    let c = ContainerSpec::sample(
        true,
        vec![plain_object(vec![
            plain_mesh(0, floor),
            plain_mesh(1, pillars),
        ])],
    );
    layout_container(&mut rng, &c, &[], None, Order::Real, Vec::new())
}

/// An EFM-like file: opaque container bytes with an 8-node block at 0x35 (odd, so nothing in
/// it is aligned in the file), then more opaque data. Returns (bytes, offset, nodes).
pub fn sample_efm() -> (Vec<u8>, u64, usize) {
    let mut rng = Rng::new(0xEF_4E);
    let joints: Vec<(Option<usize>, [f64; 3])> = vec![
        (None, [0.0, 0.0, 0.0]),
        (Some(0), [0.0, 20.0, 0.0]),
        (Some(1), [0.0, 45.0, 5.0]),
        (Some(2), [0.0, 70.0, 12.0]),
        (Some(1), [15.0, 30.0, 0.0]),
        (Some(4), [32.0, 36.0, 0.0]),
        (Some(1), [-15.0, 30.0, 0.0]),
        (Some(6), [-32.0, 36.0, 0.0]),
    ];
    let (spec, _, _) = posed_block(&mut rng, &joints, &[0, 0, 0, 0, 1, 1, 2, 2]);
    let block = layout_block(&mut rng, &spec, false, false);
    let offset = 0x35usize;
    let mut out = Buf::default();
    out.put(0, b"EFX\0");
    out.u32(4, 0x0001_0002);
    out.u32(8, offset as u32);
    out.u32(12, 8);
    out.put(16, &rng.bytes(offset - 16));
    out.put(offset, &block);
    let end = out.0.len();
    out.put(end, &rng.bytes(0x43));
    (out.0, offset as u64, 8)
}
