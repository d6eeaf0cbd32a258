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
mod sized;

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

/// Rz·Ry·Rx, column-vector convention (X applied first), as the block stores it.
fn rot_xyz(r: [f32; 3]) -> DMat3 {
    DMat3::from_rotation_z(r[2] as f64)
        * DMat3::from_rotation_y(r[1] as f64)
        * DMat3::from_rotation_x(r[0] as f64)
}

/// A hierarchy given as (parent, world position) in logical order, turned into a block:
/// node numbers shuffled, a random valid evaluation order, small non-zero local rotations, and
/// local translations chosen so the joints land at the given world positions. Returns the
/// spec and the world positions recomputed from the stored f32 values, by node.
fn posed_block(
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
fn tube(a: DVec3, b: DVec3, radius: f64, ja: usize, jb: usize) -> Vec<Vert> {
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

fn bounds_of(verts: &[Vert]) -> [f32; 4] {
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

fn plain_mesh(texture_index: u16, verts: Vec<Vert>) -> MeshSpec {
    MeshSpec {
        texture_index,
        unknown_04: [0; 12],
        unknown_tail: [0; 16],
        unknown_40: 0,
        unknown_48: [0; 8],
        verts,
    }
}

fn plain_object(meshes: Vec<MeshSpec>) -> ObjectSpec {
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
type HumanoidBlock = (
    Rng,
    Vec<(&'static str, Option<usize>, [f64; 3])>,
    BlockSpec,
    Vec<DVec3>,
    Vec<usize>,
);

fn humanoid_block() -> HumanoidBlock {
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
