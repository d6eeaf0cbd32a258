//! A generated MOD of a chosen size, for benchmarks (see [`random_mod_sized`]).

use super::{
    arr, layout_block, layout_container, random_block_spec, random_mesh, ContainerSpec, MeshSpec,
    ObjectSpec, Order,
};
use crate::synth::rng::Rng;

/// An exportable MOD (as [`super::random_exportable`]) holding about `vertices` vertices over one to
/// three objects of one to three meshes (at most 65535 a mesh): streams take 34 bytes a
/// vertex, so benchmarks can ask for realistic file sizes.
pub fn random_mod_sized(seed: u64, vertices: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ 0x512E_D30D);
    let nodes = rng.range(1, 60) as usize;
    let objects_n = rng.range(1, 3) as usize;
    let meshes_n: Vec<usize> = (0..objects_n).map(|_| rng.range(1, 3) as usize).collect();
    let total_meshes: usize = meshes_n.iter().sum();
    let per_mesh = (vertices / total_meshes).clamp(1, u16::MAX as usize);
    let mut objects = Vec::with_capacity(objects_n);
    for &m in &meshes_n {
        let meshes: Vec<MeshSpec> = (0..m)
            .map(|_| random_mesh(&mut rng, per_mesh, false, nodes, false))
            .collect();
        let total: usize = meshes.iter().map(|m| m.verts.len()).sum();
        objects.push(ObjectSpec {
            unknown_01: rng.next_u32() as u8,
            vertex_count: total.min(u16::MAX as usize) as u16,
            unknown_04: rng.next_u32(),
            flags: rng.next_u32(),
            unknown_14: arr(&mut rng),
            bounds: [0; 4].map(|_: u8| ((rng.unit() - 0.5) * 500.0) as f32),
            meshes,
            empty_mesh_offset: 0,
        });
    }
    let spec = ContainerSpec::random(&mut rng, false, 1.0f32.to_bits(), objects);
    let bs = random_block_spec(&mut rng, nodes, false);
    let noisy = rng.chance(0.5);
    let block = layout_block(&mut rng, &bs, false, noisy);
    let shuffle = rng.chance(0.5);
    layout_container(
        &mut rng,
        &spec,
        &[],
        Some((block, nodes)),
        if shuffle {
            Order::Shuffled
        } else {
            Order::Tidy
        },
        Vec::new(),
    )
}
