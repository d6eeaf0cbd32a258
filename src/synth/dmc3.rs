//! Generators of DMC3 files: random MOD/SCM containers and bare node-domain blocks for property
//! tests, and three readable samples (a humanoid MOD, a stage SCM, an EFM-like block file).
//!
//! Everything is laid out here with its own little byte code, from the published layouts
//! (docs/formats.md: node-domain block, containers); nothing calls the reader or writer under test,
//! so `write(read(b)) == b` is a real check.

use glam::{DMat3, DVec3};

use super::rng::Rng;

pub mod coat;
mod real;
mod samples;
mod sized;
use samples::*;
pub use samples::{humanoid, sample_coat, sample_efm, sample_mod, sample_scm};

pub use sized::random_mod_sized;

/// A byte buffer that grows to fit whatever is put into it.
#[derive(Default)]
struct Buf(Vec<u8>);

impl Buf {
    fn put(&mut self, at: usize, b: &[u8]) {
        if self.0.len() < at + b.len() {
            self.0.resize(at + b.len(), 0);
        }
        self.0[at..at + b.len()].copy_from_slice(b);
    }
    fn u8(&mut self, at: usize, v: u8) {
        self.put(at, &[v]);
    }
    fn u16(&mut self, at: usize, v: u16) {
        self.put(at, &v.to_le_bytes());
    }
    fn u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_le_bytes());
    }
    fn u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_le_bytes());
    }
    fn f32(&mut self, at: usize, v: f32) {
        self.u32(at, v.to_bits());
    }
}

fn align_up(v: usize, a: usize) -> usize {
    v.div_ceil(a) * a
}

/// One node-domain block, before layout.
struct BlockSpec {
    parents: Vec<i8>,
    order: Vec<u8>,
    groups: Vec<u8>,
    /// tx ty tz magnitude rx ry rz w, as bits.
    records: Vec<[u32; 8]>,
    unknown_10: [u8; 16],
}

/// Lays a block out: canonical rels, or (when `shuffle`) the regions in a random order with
/// random distances. Padding is zero or random bytes. Returns the block's extent bytes.
fn layout_block(rng: &mut Rng, s: &BlockSpec, shuffle: bool, noisy_padding: bool) -> Vec<u8> {
    let n = s.records.len();
    let a4 = align_up(n, 4);
    let mut rels = [0x20, 0x20 + a4, 0x20 + 2 * a4, align_up(0x20 + 3 * a4, 16)];
    let lens = [n, n, n, 0x20 * n];
    if shuffle {
        if n == 0 {
            for r in &mut rels {
                *r = rng.range(0, 0x200) as usize;
            }
        } else {
            let mut ids = [0usize, 1, 2, 3];
            rng.shuffle(&mut ids);
            let mut pos = 0x20 + rng.range(0, 6) as usize;
            for id in ids {
                rels[id] = pos;
                pos += lens[id] + rng.range(0, 9) as usize;
            }
        }
    }
    let extent = (0..4)
        .filter(|&i| lens[i] > 0)
        .map(|i| rels[i] + lens[i])
        .max()
        .unwrap_or(0x20)
        .max(0x20);
    let mut b = Buf(if noisy_padding {
        rng.bytes(extent)
    } else {
        vec![0; extent]
    });
    for (i, r) in rels.iter().enumerate() {
        b.u32(i * 4, *r as u32);
    }
    b.put(0x10, &s.unknown_10);
    let parents: Vec<u8> = s.parents.iter().map(|&p| p as u8).collect();
    if n > 0 {
        b.put(rels[0], &parents);
        b.put(rels[1], &s.order);
        b.put(rels[2], &s.groups);
        for (k, r) in s.records.iter().enumerate() {
            for (f, v) in r.iter().enumerate() {
                b.u32(rels[3] + 0x20 * k + 4 * f, *v);
            }
        }
    }
    b.0
}

/// A +0x1C value: mostly 0.0 (every file seen), else -0.0, NaN payloads or random bits.
fn random_w(rng: &mut Rng) -> u32 {
    match rng.range(0, 5) {
        0 | 1 => 0,
        2 => 0x8000_0000,
        3 => [0x7FC0_1234, 0xFFA0_0001, 0x7F80_0001][rng.index(3)],
        _ => rng.next_u32(),
    }
}

fn random_angle(rng: &mut Rng) -> f32 {
    let a = (rng.unit() * 6.0 - 3.0) as f32;
    if a == 0.0 {
        0.25
    } else {
        a
    }
}

/// A random tree in a random evaluation order (passes the gate), or with one gate condition
/// broken when `break_gate`.
fn random_block_spec(rng: &mut Rng, n: usize, break_gate: bool) -> BlockSpec {
    let mut order: Vec<u8> = (0..n as u8).collect();
    rng.shuffle(&mut order);
    let mut parents = vec![-1i8; n];
    for i in 1..n {
        parents[i] = order[rng.index(i)] as i8;
    }
    let records: Vec<[u32; 8]> = (0..n)
        .map(|_| {
            let t = [0; 3].map(|_: i32| ((rng.unit() - 0.5) * 300.0) as f32);
            let m = ((t[0] as f64).powi(2) + (t[1] as f64).powi(2) + (t[2] as f64).powi(2)).sqrt()
                as f32;
            let m = if rng.chance(0.1) {
                rng.next_u32()
            } else {
                m.to_bits()
            };
            [
                t[0].to_bits(),
                t[1].to_bits(),
                t[2].to_bits(),
                m,
                random_angle(rng).to_bits(),
                random_angle(rng).to_bits(),
                random_angle(rng).to_bits(),
                random_w(rng),
            ]
        })
        .collect();
    let mut s = BlockSpec {
        parents,
        order,
        groups: rng.bytes(n),
        records,
        unknown_10: if rng.chance(0.5) {
            [0; 16]
        } else {
            let mut u = [0u8; 16];
            u.copy_from_slice(&rng.bytes(16));
            u
        },
    };
    if break_gate && n >= 3 {
        let i = 1 + rng.index(n - 1);
        match rng.range(0, 7) {
            0 => s.order[i] = s.order[rng.index(i)],
            1 => s.parents[i] = -1,
            2 => s.parents[0] = s.order[1 + rng.index(n - 1)] as i8,
            // A forward reference (the parent is evaluated at i or later).
            3 => s.parents[i] = s.order[i + rng.index(n - i)] as i8,
            4 => {
                let j = if i + 1 < n { i + 1 } else { i - 1 };
                if j >= 1 {
                    s.parents[i] = s.order[j] as i8;
                    s.parents[j] = s.order[i] as i8;
                }
            }
            5 => s.records[rng.index(n)][4 + rng.index(3)] = 0x7FC0_0001,
            _ => s.parents[i] = [-5i8, n as i8, 127][rng.index(3)],
        }
    }
    s
}

/// A bare file holding one random block between random bytes: (bytes, block offset, nodes).
pub fn random_block_file(seed: u64) -> (Vec<u8>, u64, usize) {
    let mut rng = Rng::new(seed ^ 0xB10C_F11E);
    let n = if rng.chance(0.05) {
        0
    } else {
        rng.range(1, 60) as usize
    };
    let broken = rng.chance(0.15);
    let spec = random_block_spec(&mut rng, n, broken);
    let shuffle = rng.chance(0.3);
    let noisy = rng.chance(0.5);
    let block = layout_block(&mut rng, &spec, shuffle, noisy);
    let prefix = rng.range(0, 200) as usize;
    let suffix = rng.range(0, 100) as usize;
    let mut out = rng.bytes(prefix);
    out.extend_from_slice(&block);
    out.extend(rng.bytes(suffix));
    (out, prefix as u64, n)
}

/// One vertex of a generated mesh.
#[derive(Clone, Copy, Default)]
struct Vert {
    pos: [u32; 3],
    nrm: [u32; 3],
    uv: [i16; 2],
    bones: [u8; 4],
    weight: u16,
    colour: [u8; 4],
}

/// One generated mesh: its record fields besides offsets, and its vertices.
struct MeshSpec {
    texture_index: u16,
    unknown_04: [u8; 12],
    unknown_tail: [u8; 16],
    unknown_40: u64,
    unknown_48: [u8; 8],
    verts: Vec<Vert>,
}

/// One generated object.
struct ObjectSpec {
    unknown_01: u8,
    vertex_count: u16,
    unknown_04: u32,
    flags: u32,
    unknown_14: [u8; 28],
    bounds: [f32; 4],
    meshes: Vec<MeshSpec>,
    /// Offset to write when the object has no meshes (then nothing is read there).
    empty_mesh_offset: u64,
}

/// Container-level fields.
struct ContainerSpec {
    scm: bool,
    version_bits: u32,
    unknown_08: [u8; 8],
    texture_count: u8,
    unknown_13: u8,
    unknown_14: u32,
    unknown_18: u64,
    unknown_28: [u8; 24],
    objects: Vec<ObjectSpec>,
}

impl ContainerSpec {
    /// The header of a sample file: version 1.0, two textures, every unknown zero.
    fn sample(scm: bool, objects: Vec<ObjectSpec>) -> Self {
        ContainerSpec {
            scm,
            version_bits: 1.0f32.to_bits(),
            unknown_08: [0; 8],
            texture_count: 2,
            unknown_13: 0,
            unknown_14: 0,
            unknown_18: 0,
            unknown_28: [0; 24],
            objects,
        }
    }

    /// A header with random unknowns and texture count (drawn in field order).
    fn random(rng: &mut Rng, scm: bool, version_bits: u32, objects: Vec<ObjectSpec>) -> Self {
        ContainerSpec {
            scm,
            version_bits,
            unknown_08: arr(rng),
            texture_count: rng.range(0, 12) as u8,
            unknown_13: rng.next_u32() as u8,
            unknown_14: rng.next_u32(),
            unknown_18: rng.next_u64(),
            unknown_28: arr(rng),
            objects,
        }
    }
}

/// A chunk to place after the object records.
enum Chunk {
    /// The mesh records of object i.
    MeshRecords(usize),
    /// Stream id (an index into `streams`).
    Stream(usize),
    /// The node-domain block.
    Block,
}

/// Where the stream kinds of a MOD / SCM mesh are; index into the per-mesh stream-id arrays.
const STREAMS_PER_MESH: usize = 5;

fn stream_bytes(v: &[Vert], kind: usize, scm: bool) -> Vec<u8> {
    let mut b = Vec::new();
    for x in v {
        match (kind, scm) {
            (0, _) => x
                .pos
                .iter()
                .for_each(|f| b.extend_from_slice(&f.to_le_bytes())),
            (1, _) => x
                .nrm
                .iter()
                .for_each(|f| b.extend_from_slice(&f.to_le_bytes())),
            (2, _) => {
                x.uv.iter()
                    .for_each(|f| b.extend_from_slice(&f.to_le_bytes()))
            }
            (3, false) => b.extend_from_slice(&x.bones),
            (4, false) => b.extend_from_slice(&x.weight.to_le_bytes()),
            (3, true) => b.extend_from_slice(&x.colour),
            _ => {}
        }
    }
    b
}

/// How a container's chunks are ordered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Every mesh-record run, then every stream, then the block, aligned to 16.
    Tidy,
    /// Random order with random gaps (zero or noise) and alignments.
    Shuffled,
    /// The retail layout (docs/formats.md, containers, "Retail layout"; see [`real`]): per
    /// object its mesh records then its meshes' streams grouped by kind, then the block, aligned
    /// to 16 with zero fill, then the index workspaces.
    Real,
}

/// Lays a container out. `shared` lists (mesh, kind, earlier mesh) stream shares; `block` is
/// the block's extent bytes and node count (None: no block, header +0x11/+0x20 zero); `order`
/// says where the chunks go. Meshes are numbered across objects in order.
fn layout_container(
    rng: &mut Rng,
    c: &ContainerSpec,
    shared: &[(usize, usize, usize)],
    block: Option<(Vec<u8>, usize)>,
    order: Order,
    trailing: Vec<u8>,
) -> Vec<u8> {
    let shuffle = order == Order::Shuffled;
    let kinds = if c.scm { 4 } else { STREAMS_PER_MESH };
    let meshes: Vec<&MeshSpec> = c.objects.iter().flat_map(|o| o.meshes.iter()).collect();
    // Streams: one per (mesh, kind) unless shared with an earlier mesh.
    let mut stream_of = vec![[usize::MAX; STREAMS_PER_MESH]; meshes.len()];
    let mut streams: Vec<Vec<u8>> = Vec::new();
    for (m, mesh) in meshes.iter().enumerate() {
        let mut ids = [usize::MAX; STREAMS_PER_MESH];
        for (k, id) in ids.iter_mut().enumerate().take(kinds) {
            if let Some(&(_, _, from)) = shared.iter().find(|s| s.0 == m && s.1 == k) {
                *id = stream_of[from][k];
                continue;
            }
            let bytes = stream_bytes(&mesh.verts, k, c.scm);
            if bytes.is_empty() {
                continue;
            }
            *id = streams.len();
            streams.push(bytes);
        }
        stream_of[m] = ids;
    }
    let mut chunks: Vec<Chunk> = Vec::new();
    if order == Order::Real {
        chunks = real::chunks(c, &stream_of, streams.len());
    } else {
        for (i, o) in c.objects.iter().enumerate() {
            if !o.meshes.is_empty() {
                chunks.push(Chunk::MeshRecords(i));
            }
        }
        chunks.extend((0..streams.len()).map(Chunk::Stream));
    }
    if shuffle {
        rng.shuffle(&mut chunks);
    }
    if block.is_some() {
        if shuffle {
            let at = rng.index(chunks.len() + 1);
            chunks.insert(at, Chunk::Block);
        } else {
            chunks.push(Chunk::Block);
        }
    }

    let mut out = Buf::default();
    let mut pos = 0x40 + 0x40 * c.objects.len();
    let mut mesh_rec_at = vec![0usize; c.objects.len()];
    let mut stream_at = vec![0usize; streams.len()];
    let mut block_at = 0usize;
    for ch in &chunks {
        let (len, align) = match ch {
            Chunk::MeshRecords(i) => (0x50 * c.objects[*i].meshes.len(), 16),
            Chunk::Stream(s) => (streams[*s].len(), 16),
            Chunk::Block => (block.as_ref().map(|b| b.0.len()).unwrap_or(0), 16),
        };
        let start = if shuffle {
            let a = [1, 2, 4, 16][rng.index(4)];
            align_up(pos + rng.range(0, 12) as usize, a)
        } else {
            align_up(pos, align)
        };
        if shuffle && start > pos {
            let fill = if rng.chance(0.5) {
                rng.bytes(start - pos)
            } else {
                vec![0; start - pos]
            };
            out.put(pos, &fill);
        }
        match ch {
            Chunk::MeshRecords(i) => mesh_rec_at[*i] = start,
            Chunk::Stream(s) => {
                stream_at[*s] = start;
                out.put(start, &streams[*s]);
            }
            Chunk::Block => {
                block_at = start;
                if let Some((b, _)) = &block {
                    out.put(start, b);
                }
            }
        }
        pos = start + len;
    }
    out.put(pos, &trailing);
    // The index workspaces end the file (real layout only; `trailing` is then empty).
    let workspace_at = match order {
        Order::Real => real::workspaces(c, pos, &mut out),
        _ => Vec::new(),
    };

    // Header.
    out.put(0, if c.scm { b"SCM " } else { b"MOD " });
    out.u32(0x04, c.version_bits);
    out.put(0x08, &c.unknown_08);
    out.u8(0x10, c.objects.len() as u8);
    out.u8(0x11, block.as_ref().map(|b| b.1 as u8).unwrap_or(0));
    out.u8(0x12, c.texture_count);
    out.u8(0x13, c.unknown_13);
    out.u32(0x14, c.unknown_14);
    out.u64(0x18, c.unknown_18);
    out.u64(0x20, if block.is_some() { block_at as u64 } else { 0 });
    out.put(0x28, &c.unknown_28);
    // Objects and mesh records.
    let mut m = 0;
    for (i, o) in c.objects.iter().enumerate() {
        let at = 0x40 + 0x40 * i;
        out.u8(at, o.meshes.len() as u8);
        out.u8(at + 1, o.unknown_01);
        out.u16(at + 2, o.vertex_count);
        out.u32(at + 4, o.unknown_04);
        let mo = if o.meshes.is_empty() {
            o.empty_mesh_offset
        } else {
            mesh_rec_at[i] as u64
        };
        out.u64(at + 8, mo);
        out.u32(at + 0x10, o.flags);
        out.put(at + 0x14, &o.unknown_14);
        for (f, v) in o.bounds.iter().enumerate() {
            out.f32(at + 0x30 + 4 * f, *v);
        }
        for (j, mesh) in o.meshes.iter().enumerate() {
            let r = mesh_rec_at[i] + 0x50 * j;
            let off = |k: usize| -> u64 {
                match stream_of[m][k] {
                    usize::MAX => (r as u64) * 3 % 0x1000, // no data: any value, never read
                    s => stream_at[s] as u64,
                }
            };
            out.u16(r, mesh.verts.len() as u16);
            out.u16(r + 2, mesh.texture_index);
            out.put(r + 4, &mesh.unknown_04);
            out.u64(r + 0x10, off(0));
            out.u64(r + 0x18, off(1));
            out.u64(r + 0x20, off(2));
            if c.scm {
                out.put(r + 0x28, &mesh.unknown_tail);
                if let Some(span) = real::continuation(&workspace_at, j, o.meshes.len()) {
                    out.u64(r + 0x28, span);
                }
                out.u64(r + 0x38, off(3));
            } else {
                out.u64(r + 0x28, off(3));
                out.u64(r + 0x30, off(4));
                out.put(r + 0x38, &mesh.unknown_tail[..8]);
            }
            out.u64(r + 0x40, mesh.unknown_40);
            out.put(r + 0x48, &mesh.unknown_48);
            if let Some(&at) = workspace_at.get(m) {
                // +0x40 relative to the record; +0x48, the index count, is the game's: 0 on disk.
                out.u64(r + 0x40, (at - r) as u64);
                out.u32(r + 0x48, 0);
            }
            m += 1;
        }
    }
    out.0
}

fn arr<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&rng.bytes(N));
    a
}

fn random_float_bits(rng: &mut Rng, scale: f64, wild: bool) -> u32 {
    if rng.chance(0.03) && wild {
        rng.next_u32()
    } else {
        (((rng.unit() - 0.5) * scale) as f32).to_bits()
    }
}

fn random_mesh(rng: &mut Rng, vc: usize, scm: bool, nodes: usize, wild: bool) -> MeshSpec {
    let verts = (0..vc)
        .map(|i| {
            let restart = i < 2 || rng.chance(0.15);
            let w = if rng.chance(0.9) {
                let a = rng.range(0, 31) as u16;
                let b = rng.range(0, (31 - a) as i64) as u16;
                a | b << 5 | (31 - a - b) << 10
            } else {
                rng.next_u32() as u16 & 0x7FFF
            };
            let joint = |rng: &mut Rng| -> u8 {
                if nodes > 0 && (rng.chance(0.9) || !wild) {
                    (rng.index(nodes.min(64)) * 4) as u8
                } else {
                    rng.next_u32() as u8
                }
            };
            let flag = rng.next_u32() as u8 & !2;
            Vert {
                pos: [0; 3].map(|_: u8| random_float_bits(rng, 400.0, wild)),
                nrm: [0; 3].map(|_: u8| random_float_bits(rng, 2.0, wild)),
                uv: [rng.next_u32() as i16, rng.next_u32() as i16],
                bones: [rng.next_u32() as u8, joint(rng), joint(rng), joint(rng)],
                weight: w | if restart { 0x8000 } else { 0 },
                colour: [
                    rng.next_u32() as u8,
                    rng.next_u32() as u8,
                    rng.next_u32() as u8,
                    flag | if restart { 2 } else { 0 },
                ],
            }
        })
        .collect();
    let _ = scm;
    MeshSpec {
        texture_index: rng.range(0, 8) as u16,
        unknown_04: arr(rng),
        unknown_tail: arr(rng),
        unknown_40: rng.next_u64() >> rng.range(0, 63),
        unknown_48: arr(rng),
        verts,
    }
}

fn random_container(seed: u64, scm: bool, wild: bool, real: bool) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ if scm { 0x5C3 } else { 0x30D });
    let has_block = if scm {
        rng.chance(0.4)
    } else {
        // A real-layout MOD always has its skeleton: its vertices name joints of it.
        rng.chance(0.9) || real
    };
    let nodes = if has_block {
        (rng.range(0, if scm { 20 } else { 60 }) as usize).max(usize::from(!wild))
    } else {
        0
    };
    let mut objects = Vec::new();
    let mut mesh_vcs: Vec<usize> = Vec::new();
    let mut shared = Vec::new();
    for _ in 0..rng.range(0, 3) {
        let mut meshes = Vec::new();
        for _ in 0..rng.range(0, 3) {
            let mut vc = if rng.chance(0.1) {
                0
            } else {
                rng.range(1, 24) as usize
            };
            let m = mesh_vcs.len();
            // Sometimes share one stream of an earlier mesh (same offset, length and kind).
            if m > 0 && rng.chance(0.2) {
                let from = rng.index(m);
                if mesh_vcs[from] > 0 {
                    vc = mesh_vcs[from];
                    shared.push((m, rng.index(if scm { 4 } else { 5 }), from));
                }
            }
            mesh_vcs.push(vc);
            meshes.push(random_mesh(&mut rng, vc, scm, nodes, wild));
        }
        let total: usize = meshes.iter().map(|m| m.verts.len()).sum();
        objects.push(ObjectSpec {
            unknown_01: rng.next_u32() as u8,
            vertex_count: if rng.chance(0.8) {
                total as u16
            } else {
                rng.next_u32() as u16
            },
            unknown_04: rng.next_u32(),
            flags: rng.next_u32(),
            unknown_14: arr(&mut rng),
            bounds: [0; 4].map(|_: u8| ((rng.unit() - 0.5) * 500.0) as f32),
            meshes,
            empty_mesh_offset: if rng.chance(0.5) { 0 } else { rng.next_u64() },
        });
    }
    // A shared stream's contents are the earlier mesh's; make the sharer's vertices agree so
    // that the spec describes one consistent file.
    let flat: Vec<(usize, usize)> = objects
        .iter()
        .enumerate()
        .flat_map(|(i, o)| (0..o.meshes.len()).map(move |j| (i, j)))
        .collect();
    for &(m, k, from) in &shared {
        let (fi, fj) = flat[from];
        let src = objects[fi].meshes[fj].verts.clone();
        let (ti, tj) = flat[m];
        for (d, s) in objects[ti].meshes[tj].verts.iter_mut().zip(src) {
            match k {
                0 => d.pos = s.pos,
                1 => d.nrm = s.nrm,
                2 => d.uv = s.uv,
                3 => {
                    d.bones = s.bones;
                    d.colour = s.colour
                }
                _ => d.weight = s.weight,
            }
        }
    }
    if real {
        real::retail_vertices(&mut objects, nodes);
    }
    let version_bits = if rng.chance(0.5) {
        1.0f32.to_bits()
    } else {
        rng.next_u32()
    };
    let spec = ContainerSpec::random(&mut rng, scm, version_bits, objects);
    let block = if has_block {
        let broken = rng.chance(0.1) && wild;
        let bs = random_block_spec(&mut rng, nodes, broken);
        let shuffle = rng.chance(0.25) && !real;
        let noisy = rng.chance(0.5) && !real;
        Some((layout_block(&mut rng, &bs, shuffle, noisy), nodes))
    } else {
        None
    };
    let shuffle = rng.chance(0.7);
    let trailing_len = if rng.chance(0.5) {
        rng.range(1, 40) as usize
    } else {
        0
    };
    let mut trailing = rng.bytes(trailing_len);
    let order = if real {
        // The real file ends with its meshes' index workspaces, nothing after them.
        trailing.clear();
        Order::Real
    } else if shuffle {
        Order::Shuffled
    } else {
        Order::Tidy
    };
    layout_container(&mut rng, &spec, &shared, block, order, trailing)
}

/// A random MOD: random objects, skinned strip meshes (flags, 5-bit weights), shared streams,
/// gaps with noise, trailing bytes, and usually a random block (sometimes gate-failing or
/// non-canonical).
pub fn random_mod(seed: u64) -> Vec<u8> {
    random_container(seed, false, true, false)
}

/// A random MOD (or SCM with `scm`) as [`random_mod`] but one a glTF can show: a block passes
/// the gate (at least one node), every vertex names joints of the skeleton, positions and
/// normals are finite. The native oddities (gaps, padding, unknowns, +0x1C bits, shared
/// streams, strip restarts) are all still there.
pub fn random_exportable(seed: u64, scm: bool) -> Vec<u8> {
    random_container(seed, scm, false, false)
}

/// An exportable MOD (or SCM) as [`random_exportable`], in the retail layout (docs/formats.md,
/// containers, "Retail layout"): header, object records, per object its mesh records then its
/// meshes' streams grouped by kind, 16-byte aligned with zero fill, then a canonical block, then
/// each mesh's index workspace (+0x40 pointing at it, +0x48 zero, an SCM's continuation spans
/// set), 0x12 fill ending in two zero bytes. A MOD always has its skeleton, and its vertices
/// the traits of retail ones (weights summing to 31, bone lanes inside the palette, byte 0
/// zero, each object's vertex count its meshes' sum), so `rigtrip check` finds nothing.
/// Streams may still be shared (placed with their first mesh); the undecoded fields stay
/// random.
pub fn real_layout(seed: u64, scm: bool) -> Vec<u8> {
    random_container(seed, scm, false, true)
}

/// A random SCM: like [`random_mod`] with vertex colours, and a block only sometimes.
pub fn random_scm(seed: u64) -> Vec<u8> {
    random_container(seed, true, true, false)
}
