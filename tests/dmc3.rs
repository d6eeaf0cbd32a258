//! DMC3: exact-byte reads and writes of every field, round trips of generated files, the
//! rest-pose oracle, the EXE parent rule, the gate, rejections, and edits through the IR.

mod common;
#[path = "meshback/retail.rs"]
mod retail;
use common::assert_one_step_agrees;

use glam::{DMat3, DMat4, DQuat, DVec3, EulerRot};
use proptest::prelude::*;

use rigtrip::bytes::Gap;
use rigtrip::native::dmc3::*;
use rigtrip::native::{Format, NativeFile};
use rigtrip::rig::dmc3::{
    check_gate, euler_xyz, lift, local_rotation, lower, node_parents, Dmc3Joint,
};
use rigtrip::rig::{GateCondition, Joint, JointPayload, LowerError, Rig, SkeletonPayload};
use rigtrip::synth::dmc3::*;

// ---------------------------------------------------------------------------------------------
// Hand-built files

fn put(b: &mut Vec<u8>, at: usize, bytes: &[u8]) {
    if b.len() < at + bytes.len() {
        b.resize(at + bytes.len(), 0);
    }
    b[at..at + bytes.len()].copy_from_slice(bytes);
}

fn f(v: f32) -> [u8; 4] {
    v.to_le_bytes()
}

/// A record's 0x20 bytes from eight u32 bit patterns.
fn rec(bits: [u32; 8]) -> Vec<u8> {
    bits.iter().flat_map(|b| b.to_le_bytes()).collect()
}

fn fb(v: f32) -> u32 {
    v.to_bits()
}

/// The two transform records of the hand-built MOD's block.
const REC0: [u32; 8] = [
    0x3FC0_0000, // 1.5
    0xC010_0000, // -2.25
    0x3F00_0000, // 0.5
    0x4030_0000, // 2.75
    0x3DCC_CCCD, // 0.1
    0xBE4C_CCCD, // -0.2
    0x3E99_999A, // 0.3
    0x7FC0_1234, // NaN with a payload
];
const REC1: [u32; 8] = [
    0,
    0x4120_0000,
    0,
    0x4120_0000,
    0,
    0x3F00_0000,
    0x8000_0000,
    0x8000_0000,
];

/// A MOD with every field distinct:
/// 0x000 header, 0x040 object, 0x080 mesh record, 0x0D0 positions, 0x0F4 normals, 0x118 UVs,
/// 0x124 bone indices, 0x130 weights, 0x136 gap (10 bytes), 0x140 block (N = 2, canonical,
/// padding non-zero), 0x1B0 trailing 3 bytes.
fn hand_mod() -> Vec<u8> {
    let mut b = Vec::new();
    put(&mut b, 0x00, b"MOD ");
    put(&mut b, 0x04, &f(1.5));
    put(&mut b, 0x08, &[1, 2, 3, 4, 5, 6, 7, 8]);
    put(&mut b, 0x10, &[1, 2, 3, 0x44]);
    put(&mut b, 0x14, &0x5566_7788u32.to_le_bytes());
    put(&mut b, 0x18, &0x1122_3344_5566_7788u64.to_le_bytes());
    put(&mut b, 0x20, &0x140u64.to_le_bytes());
    put(&mut b, 0x28, &(0x90..0xA8).collect::<Vec<u8>>());
    // Object 0.
    put(&mut b, 0x40, &[1, 0x11]);
    put(&mut b, 0x42, &3u16.to_le_bytes());
    put(&mut b, 0x44, &0xDEAD_BEEFu32.to_le_bytes());
    put(&mut b, 0x48, &0x80u64.to_le_bytes());
    put(&mut b, 0x50, &0xCAFE_BABEu32.to_le_bytes());
    put(&mut b, 0x54, &(0x60..0x7C).collect::<Vec<u8>>());
    for (i, v) in [1.0f32, 2.0, 3.0, 4.5].iter().enumerate() {
        put(&mut b, 0x70 + 4 * i, &f(*v));
    }
    // Mesh 0.
    put(&mut b, 0x80, &3u16.to_le_bytes());
    put(&mut b, 0x82, &7u16.to_le_bytes());
    put(&mut b, 0x84, &(0xE0..0xEC).collect::<Vec<u8>>());
    for (i, o) in [0xD0u64, 0xF4, 0x118, 0x124, 0x130].iter().enumerate() {
        put(&mut b, 0x90 + 8 * i, &o.to_le_bytes());
    }
    put(
        &mut b,
        0xB8,
        &[0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7],
    );
    put(&mut b, 0xC0, &0x0102_0304_0506_0708u64.to_le_bytes());
    put(
        &mut b,
        0xC8,
        &[0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7],
    );
    // Streams.
    for (i, v) in (1..=9).enumerate() {
        put(&mut b, 0xD0 + 4 * i, &f(v as f32));
    }
    for (i, v) in [0.0f32, 1.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0]
        .iter()
        .enumerate()
    {
        put(&mut b, 0xF4 + 4 * i, &f(*v));
    }
    for (i, v) in [4096i16, -2048, 1, 2, -32768, 32767].iter().enumerate() {
        put(&mut b, 0x118 + 2 * i, &v.to_le_bytes());
    }
    put(&mut b, 0x124, &[9, 4, 8, 252, 0, 0, 4, 8, 1, 2, 3, 4]);
    for (i, w) in [
        0x8000u16 | 31,
        0x8000 | 10 | 11 << 5 | 10 << 10,
        5 | 6 << 5 | 20 << 10,
    ]
    .iter()
    .enumerate()
    {
        put(&mut b, 0x130 + 2 * i, &w.to_le_bytes());
    }
    put(&mut b, 0x136, &(0xA0..0xAA).collect::<Vec<u8>>());
    // Block at 0x140.
    let blk = 0x140;
    for (i, r) in [0x20u32, 0x24, 0x28, 0x30].iter().enumerate() {
        put(&mut b, blk + 4 * i, &r.to_le_bytes());
    }
    put(&mut b, blk + 0x10, &(0x30..0x40).collect::<Vec<u8>>());
    put(&mut b, blk + 0x20, &[0xFF, 0x01, 0xB1, 0xB2]);
    put(&mut b, blk + 0x24, &[0x01, 0x00, 0xB3, 0xB4]);
    put(
        &mut b,
        blk + 0x28,
        &[0x21, 0x22, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5],
    );
    put(&mut b, blk + 0x30, &rec(REC0));
    put(&mut b, blk + 0x50, &rec(REC1));
    put(&mut b, 0x1B0, &[0x77, 0x78, 0x79]);
    assert_eq!(b.len(), 0x1B3);
    b
}

/// The error chain of reading `hand_mod()` with `bytes` put at `at` (the read must fail).
fn hand_mod_error(at: usize, bytes: &[u8]) -> String {
    let mut b = hand_mod();
    put(&mut b, at, bytes);
    rigtrip::chain(&read_container(&b).unwrap_err())
}

/// An SCM with one object, one mesh of two vertices with colours, no block:
/// 0x000 header, 0x040 object, 0x080 mesh record, 0x0D0 positions (24), 0x0E8 normals (24),
/// 0x100 UVs (8), 0x108 colours (8).
fn hand_scm() -> Vec<u8> {
    let mut b = Vec::new();
    put(&mut b, 0x00, b"SCM ");
    put(&mut b, 0x04, &f(2.0));
    put(&mut b, 0x10, &[1, 0, 5, 0]);
    put(&mut b, 0x40, &[1, 0]);
    put(&mut b, 0x42, &2u16.to_le_bytes());
    put(&mut b, 0x48, &0x80u64.to_le_bytes());
    put(&mut b, 0x80, &2u16.to_le_bytes());
    put(&mut b, 0x82, &4u16.to_le_bytes());
    put(&mut b, 0x90, &0xD0u64.to_le_bytes());
    put(&mut b, 0x98, &0xE8u64.to_le_bytes());
    put(&mut b, 0xA0, &0x100u64.to_le_bytes());
    put(&mut b, 0xA8, &(0x50..0x60).collect::<Vec<u8>>());
    put(&mut b, 0xB8, &0x108u64.to_le_bytes());
    put(&mut b, 0xC0, &0xAABB_CCDDu64.to_le_bytes());
    put(&mut b, 0xC8, &[9; 8]);
    for (i, v) in [1.0f32, 0.0, -1.0, 2.0, 0.5, 3.0].iter().enumerate() {
        put(&mut b, 0xD0 + 4 * i, &f(*v));
    }
    for (i, v) in [0.0f32, 1.0, 0.0, 0.0, 1.0, 0.0].iter().enumerate() {
        put(&mut b, 0xE8 + 4 * i, &f(*v));
    }
    for (i, v) in [0i16, 4096, 2048, 0].iter().enumerate() {
        put(&mut b, 0x100 + 2 * i, &v.to_le_bytes());
    }
    put(&mut b, 0x108, &[10, 20, 30, 0x82, 40, 50, 60, 0x80]);
    b
}

/// A bare block at offset 0, canonical, with records whose translation is (k, 1, 0) and
/// rotation (0.1, 0.2, 0.3), +0x1C = 0.
fn block_bytes(parents: &[i8], order: &[u8], records: Option<Vec<[u32; 8]>>) -> Vec<u8> {
    let n = order.len();
    let a = n.div_ceil(4) * 4;
    let xf = (0x20 + 3 * a).div_ceil(16) * 16;
    let mut b = Vec::new();
    for (i, r) in [0x20, 0x20 + a, 0x20 + 2 * a, xf].iter().enumerate() {
        put(&mut b, 4 * i, &(*r as u32).to_le_bytes());
    }
    put(&mut b, 0x10, &[0; 16]);
    put(
        &mut b,
        0x20,
        &parents.iter().map(|&p| p as u8).collect::<Vec<_>>(),
    );
    put(&mut b, 0x20 + a, order);
    put(&mut b, 0x20 + 2 * a, &vec![0u8; n]);
    let records = records.unwrap_or_else(|| {
        (0..n)
            .map(|k| {
                [
                    fb(k as f32),
                    fb(1.0),
                    0,
                    fb(((k * k + 1) as f32).sqrt()),
                    fb(0.1),
                    fb(0.2),
                    fb(0.3),
                    0,
                ]
            })
            .collect()
    });
    for (k, r) in records.iter().enumerate() {
        put(&mut b, xf + 0x20 * k, &rec(*r));
    }
    b.resize(xf + 0x20 * n, 0);
    b
}

fn read_mod(b: &[u8]) -> Dmc3File {
    read_container(b).unwrap()
}

fn container(f: &Dmc3File) -> &Container {
    f.container.as_ref().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Exact bytes: every field

#[test]
fn mod_header_fields() {
    let f = read_mod(&hand_mod());
    assert_eq!(f.kind(), "mod");
    let h = &container(&f).header;
    assert_eq!(h.magic, ContainerKind::Mod);
    assert_eq!(h.version_bits, 0x3FC0_0000);
    assert_eq!(h.version(), 1.5);
    assert_eq!(h.unknown_08, [1, 2, 3, 4, 5, 6, 7, 8]);
    // The object count is the objects' number; the file stores it at +0x10.
    assert_eq!(container(&f).objects.len(), 1);
    let head: [u8; 0x40] = hand_mod()[..0x40].try_into().unwrap();
    let (_, counts) = Header::decode(&head, rigtrip::native::record::Ctx::default()).unwrap();
    assert_eq!(counts, HeaderCounts { object_count: 1 });
    assert_eq!(h.bone_count, 2);
    assert_eq!(h.texture_count, 3);
    assert_eq!(h.default_joint, 0x44);
    assert_eq!(h.resource_code, 0x5566_7788);
    assert_eq!(h.unknown_18, 0x1122_3344_5566_7788);
    assert_eq!(h.block_offset, 0x140);
    assert_eq!(h.unknown_28.to_vec(), (0x90..0xA8).collect::<Vec<u8>>());
}

#[test]
fn mod_object_fields() {
    let f = read_mod(&hand_mod());
    let o = &container(&f).objects;
    assert_eq!(o.len(), 1);
    let r = &o[0].record;
    // The mesh count is the meshes' number; the file stores it at +0x00.
    assert_eq!(o[0].meshes.len(), 1);
    assert_eq!(hand_mod()[0x40], 1);
    assert_eq!(r.alpha_control, 0x11);
    assert_eq!(r.vertex_count, 3);
    assert_eq!(r.unknown_04, 0xDEAD_BEEF);
    assert_eq!(r.mesh_offset, 0x80);
    assert_eq!(r.flags, 0xCAFE_BABE);
    assert_eq!(r.unknown_14, 0x6362_6160);
    assert_eq!(r.render_18, 0x6766_6564);
    assert_eq!(r.render_1c, 0x6B6A_6968);
    assert_eq!(r.unknown_20.to_vec(), (0x6C..0x7C).collect::<Vec<u8>>());
    assert_eq!(r.bounds(), [1.0, 2.0, 3.0, 4.5]);
    assert_eq!(r.bounds_bits[3], 0x4090_0000);
}

#[test]
fn mod_mesh_record_fields() {
    let f = read_mod(&hand_mod());
    let mesh = &container(&f).objects[0].meshes[0];
    let m = &mesh.record;
    // The vertex count is the positions' number; the file stores it at +0x00.
    assert_eq!(mesh.vertex_count(), 3);
    assert_eq!(hand_mod()[0x80..0x82], [3, 0]);
    assert_eq!(m.texture_index, 7);
    assert_eq!(
        [m.clamp_min_u, m.clamp_max_u, m.clamp_min_v, m.clamp_max_v],
        [0xE1E0, 0xE3E2, 0xE5E4, 0xE7E6]
    );
    assert_eq!(m.unknown_0c, 0xEBEA_E9E8);
    assert_eq!(m.positions_offset, 0xD0);
    assert_eq!(m.normals_offset, 0xF4);
    assert_eq!(m.uv_offset, 0x118);
    assert_eq!(
        m.variant,
        MeshVariant::Mod(ModStreams {
            bone_index_offset: 0x124,
            weight_offset: 0x130,
            auxiliary_offset: 0xF7F6_F5F4_F3F2_F1F0,
        })
    );
    assert_eq!(m.workspace_offset, 0x0102_0304_0506_0708);
    assert_eq!((m.index_count, m.unknown_4c), (0xD3D2_D1D0, 0xD7D6_D5D4));
    // +0x40 points past the file: no workspace.
    assert_eq!(mesh.workspace, rigtrip::native::dmc3::Workspace::Absent);
}

#[test]
fn mod_streams_and_accessors() {
    let f = read_mod(&hand_mod());
    let m = &container(&f).objects[0].meshes[0];
    assert_eq!(
        m.positions_f32(),
        vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    );
    assert_eq!(m.positions[0], [0x3F80_0000, 0x4000_0000, 0x4040_0000]);
    assert_eq!(
        m.normals_f32(),
        vec![[0.0, 1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]
    );
    assert_eq!(m.uvs, vec![[4096, -2048], [1, 2], [-32768, 32767]]);
    assert_eq!(
        m.uvs_f32(),
        vec![
            [1.0, -0.5],
            [1.0 / 4096.0, 2.0 / 4096.0],
            [-8.0, 32767.0 / 4096.0]
        ]
    );
    assert_eq!(
        m.bone_indices,
        vec![[9, 4, 8, 252], [0, 0, 4, 8], [1, 2, 3, 4]]
    );
    // Byte 0 is not a joint; bytes 1..3 are joint × 4.
    assert_eq!(m.joints(), vec![[1, 2, 63], [0, 1, 2], [0, 0, 1]]);
    assert_eq!(
        m.weights,
        vec![
            0x8000 | 31,
            0x8000 | 10 | 11 << 5 | 10 << 10,
            5 | 6 << 5 | 20 << 10
        ]
    );
    assert_eq!(
        m.weights_f32(),
        vec![
            [1.0, 0.0, 0.0],
            [10.0 / 31.0, 11.0 / 31.0, 10.0 / 31.0],
            [5.0 / 31.0, 6.0 / 31.0, 20.0 / 31.0]
        ]
    );
    assert_eq!(m.strip_flags(), vec![true, true, false]);
    assert_eq!(m.triangles(), vec![[0, 1, 2]]);
    assert!(m.colours.is_empty());
}

#[test]
fn mod_block_fields() {
    let f = read_mod(&hand_mod());
    let b = f.block.as_ref().unwrap();
    assert_eq!(b.offset, 0x140);
    assert_eq!(
        b.rels,
        BlockRels {
            parent: 0x20,
            order: 0x24,
            group: 0x28,
            transform: 0x30
        }
    );
    assert!(b.is_canonical());
    assert_eq!(b.unknown_10.to_vec(), (0x30..0x40).collect::<Vec<u8>>());
    assert_eq!(b.parents, vec![-1, 1]);
    assert_eq!(b.order, vec![1, 0]);
    assert_eq!(b.groups, vec![0x21, 0x22]);
    assert_eq!(b.extent(), 0x70);
    let t0 = b.transforms[0];
    assert_eq!(t0.translation(), [1.5, -2.25, 0.5]);
    assert_eq!(t0.magnitude(), 2.75);
    assert_eq!(t0.rotation(), [0.1, -0.2, 0.3]);
    assert_eq!(t0.w_bits, 0x7FC0_1234);
    assert!(t0.w().is_nan());
    let t1 = b.transforms[1];
    assert_eq!(t1.rz_bits, 0x8000_0000, "-0.0 kept as bits");
    assert_eq!(t1.w_bits, 0x8000_0000);
    assert_eq!(
        t1,
        NodeTransform {
            tx_bits: 0,
            ty_bits: 0x4120_0000,
            tz_bits: 0,
            magnitude_bits: 0x4120_0000,
            rx_bits: 0,
            ry_bits: 0x3F00_0000,
            rz_bits: 0x8000_0000,
            w_bits: 0x8000_0000,
        }
    );
    // Padding inside the block is the block's, relative to its start.
    assert_eq!(
        b.padding,
        vec![
            Gap {
                offset: 0x22,
                bytes: vec![0xB1, 0xB2]
            },
            Gap {
                offset: 0x26,
                bytes: vec![0xB3, 0xB4]
            },
            Gap {
                offset: 0x2A,
                bytes: vec![0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5]
            },
        ]
    );
}

#[test]
fn mod_gaps_are_absolute_and_exact() {
    let f = read_mod(&hand_mod());
    assert_eq!(
        f.gaps,
        vec![
            Gap {
                offset: 0x136,
                bytes: (0xA0..0xAA).collect()
            },
            Gap {
                offset: 0x1B0,
                bytes: vec![0x77, 0x78, 0x79]
            },
        ]
    );
    assert_eq!(write(&f).unwrap(), hand_mod());
}

#[test]
fn scm_fields() {
    let b = hand_scm();
    let f = read_mod(&b);
    assert_eq!(f.kind(), "scm");
    assert!(f.block.is_none(), "bone count 0 and offset 0: no block");
    let c = container(&f);
    assert_eq!(c.header.magic, ContainerKind::Scm);
    assert_eq!(c.header.version(), 2.0);
    assert_eq!(c.header.texture_count, 5);
    let m = &c.objects[0].meshes[0];
    assert_eq!(m.record.texture_index, 4);
    assert_eq!(
        m.record.variant,
        MeshVariant::Scm(ScmStreams {
            continuation: 0x5756_5554_5352_5150,
            unknown_30: 0x5F5E_5D5C_5B5A_5958,
            colour_offset: 0x108,
        })
    );
    assert_eq!(m.record.workspace_offset, 0xAABB_CCDD);
    assert_eq!(
        (m.record.index_count, m.record.unknown_4c),
        (0x0909_0909, 0x0909_0909)
    );
    // Two vertices need no workspace: it is present, and empty.
    assert_eq!(m.workspace, rigtrip::native::dmc3::Workspace::Fill);
    assert_eq!(m.positions_f32(), vec![[1.0, 0.0, -1.0], [2.0, 0.5, 3.0]]);
    assert_eq!(m.uvs_f32(), vec![[0.0, 1.0], [0.5, 0.0]]);
    assert_eq!(m.colours, vec![[10, 20, 30, 0x82], [40, 50, 60, 0x80]]);
    assert_eq!(m.strip_flags(), vec![true, false]);
    assert!(m.bone_indices.is_empty() && m.weights.is_empty() && m.joints().is_empty());
    assert!(f.gaps.is_empty());
    assert_eq!(write(&f).unwrap(), b);
}

/// Changes one field of the read structure and checks that writing changes exactly that
/// field's bytes, to exactly the new value.
fn field_lands_at(mutate: impl Fn(&mut Dmc3File), at: usize, new: &[u8]) {
    let orig = hand_mod();
    let mut f = read_mod(&orig);
    mutate(&mut f);
    let out = write(&f).unwrap();
    assert_eq!(out.len(), orig.len());
    let mut want = orig.clone();
    want[at..at + new.len()].copy_from_slice(new);
    let diff: Vec<usize> = (0..out.len()).filter(|&i| out[i] != want[i]).collect();
    assert!(
        diff.is_empty(),
        "field at {at:#x}: bytes differ at {diff:x?}"
    );
    assert_ne!(out, orig, "field at {at:#x} did not change");
}

fn c_mut(f: &mut Dmc3File) -> &mut Container {
    f.container.as_mut().unwrap()
}

#[test]
fn every_header_and_record_field_writes_to_its_offset() {
    field_lands_at(
        |f| c_mut(f).header.version_bits = 0x4049_0FDB,
        0x04,
        &0x4049_0FDBu32.to_le_bytes(),
    );
    field_lands_at(|f| c_mut(f).header.unknown_08[7] = 0xEE, 0x0F, &[0xEE]);
    field_lands_at(|f| c_mut(f).header.texture_count = 9, 0x12, &[9]);
    field_lands_at(|f| c_mut(f).header.default_joint = 0x99, 0x13, &[0x99]);
    field_lands_at(
        |f| c_mut(f).header.resource_code = 0x0BAD_F00D,
        0x14,
        &0x0BAD_F00Du32.to_le_bytes(),
    );
    field_lands_at(
        |f| c_mut(f).header.unknown_18 = 7,
        0x18,
        &7u64.to_le_bytes(),
    );
    field_lands_at(|f| c_mut(f).header.unknown_28[23] = 1, 0x3F, &[1]);
    fn o(f: &mut Dmc3File) -> &mut ObjectRecord {
        &mut c_mut(f).objects[0].record
    }
    field_lands_at(|f| o(f).alpha_control = 0x5A, 0x41, &[0x5A]);
    field_lands_at(|f| o(f).vertex_count = 0x1234, 0x42, &[0x34, 0x12]);
    field_lands_at(|f| o(f).unknown_04 = 1, 0x44, &1u32.to_le_bytes());
    field_lands_at(|f| o(f).flags = 2, 0x50, &2u32.to_le_bytes());
    field_lands_at(|f| o(f).unknown_14 = 0, 0x54, &[0; 4]);
    field_lands_at(|f| o(f).render_18 = 1, 0x58, &1u32.to_le_bytes());
    field_lands_at(|f| o(f).render_1c = 2, 0x5C, &2u32.to_le_bytes());
    field_lands_at(|f| o(f).unknown_20[15] = 0, 0x6F, &[0]);
    field_lands_at(|f| o(f).bounds_bits[3] = 5, 0x7C, &5u32.to_le_bytes());
    fn m(f: &mut Dmc3File) -> &mut MeshRecord {
        &mut c_mut(f).objects[0].meshes[0].record
    }
    field_lands_at(|f| m(f).texture_index = 0x0102, 0x82, &[2, 1]);
    field_lands_at(|f| m(f).clamp_min_u = 0x0102, 0x84, &[2, 1]);
    field_lands_at(|f| m(f).clamp_max_v = 0x0304, 0x8A, &[4, 3]);
    field_lands_at(|f| m(f).unknown_0c = 0, 0x8C, &[0; 4]);
    field_lands_at(|f| m(f).workspace_offset = 3, 0xC0, &3u64.to_le_bytes());
    field_lands_at(|f| m(f).index_count = 0x42, 0xC8, &0x42u32.to_le_bytes());
    field_lands_at(|f| m(f).unknown_4c = 0, 0xCC, &[0; 4]);
    field_lands_at(
        |f| {
            if let MeshVariant::Mod(v) = &mut m(f).variant {
                v.auxiliary_offset = 0x11;
            }
        },
        0xB8,
        &0x11u64.to_le_bytes(),
    );
    fn s(f: &mut Dmc3File) -> &mut Mesh {
        &mut c_mut(f).objects[0].meshes[0]
    }
    field_lands_at(|f| s(f).positions[2][2] = fb(-9.0), 0xF0, &f(-9.0));
    field_lands_at(|f| s(f).normals[1][0] = fb(0.5), 0x100, &f(0.5));
    field_lands_at(|f| s(f).uvs[1][1] = -1, 0x11E, &[0xFF, 0xFF]);
    field_lands_at(|f| s(f).bone_indices[2][0] = 0xAB, 0x12C, &[0xAB]);
    field_lands_at(|f| s(f).weights[2] = 0x7FFF, 0x134, &[0xFF, 0x7F]);
    // The block.
    fn b(f: &mut Dmc3File) -> &mut NodeBlock {
        f.block.as_mut().unwrap()
    }
    field_lands_at(|f| b(f).unknown_10[15] = 0, 0x15F, &[0]);
    field_lands_at(|f| b(f).parents[1] = 0, 0x161, &[0]);
    field_lands_at(|f| b(f).order[0] = 7, 0x164, &[7]);
    field_lands_at(|f| b(f).groups[1] = 0x33, 0x169, &[0x33]);
    field_lands_at(|f| b(f).padding[2].bytes[5] = 0, 0x16F, &[0]);
    type Field = fn(&mut NodeTransform) -> &mut u32;
    let fields: [(usize, Field); 8] = [
        (0x00, |t| &mut t.tx_bits),
        (0x04, |t| &mut t.ty_bits),
        (0x08, |t| &mut t.tz_bits),
        (0x0C, |t| &mut t.magnitude_bits),
        (0x10, |t| &mut t.rx_bits),
        (0x14, |t| &mut t.ry_bits),
        (0x18, |t| &mut t.rz_bits),
        (0x1C, |t| &mut t.w_bits),
    ];
    for (off, get) in fields {
        field_lands_at(
            |f| *get(&mut f.block.as_mut().unwrap().transforms[1]) = 0xA5A5_5A5A,
            0x140 + 0x50 + off,
            &0xA5A5_5A5Au32.to_le_bytes(),
        );
    }
    field_lands_at(|f| f.gaps[0].bytes[0] = 0, 0x136, &[0]);
}

/// The counts a container stores (header +0x10, each object's +0x00, each mesh's +0x00) are
/// the lists' lengths on write: lists changed in memory without any count give a file whose
/// counts are theirs, which reads back to the same lists.
#[test]
fn counts_are_derived_from_the_lists_on_write() {
    let mut f = read_mod(&hand_mod());
    {
        let c = c_mut(&mut f);
        // One vertex fewer in mesh 0; a second object holding two copies of that mesh.
        let m = &mut c.objects[0].meshes[0];
        m.positions.pop();
        m.normals.pop();
        m.uvs.pop();
        m.bone_indices.pop();
        m.weights.pop();
        let mut second = c.objects[0].clone();
        second.meshes.push(second.meshes[0].clone());
        c.objects.push(second);
    }
    let c = f.container.as_mut().unwrap();
    rigtrip::native::dmc3::layout::relayout(
        &mut c.header,
        &mut c.objects,
        f.block.as_mut(),
        &mut f.gaps,
    )
    .unwrap();
    let b = write(&f).unwrap();
    assert_eq!(b[0x10], 2, "object count");
    let c = container(&f);
    for (i, o) in c.objects.iter().enumerate() {
        assert_eq!(b[0x40 + 0x40 * i], i as u8 + 1, "object {i}'s mesh count");
        for j in 0..o.meshes.len() {
            let at = o.record.mesh_offset as usize + 0x50 * j;
            assert_eq!(b[at..at + 2], [2, 0], "object {i} mesh {j}'s vertex count");
        }
    }
    let back = read_mod(&b);
    assert_eq!(back.container, f.container);
    assert_eq!(write(&back).unwrap(), b);

    // Lists longer than their counts' fields are refused, named by the structure.
    let mut f = read_mod(&hand_mod());
    let o = c_mut(&mut f).objects[0].clone();
    c_mut(&mut f).objects.resize(256, o);
    assert_eq!(
        rigtrip::chain(&write(&f).unwrap_err()),
        "cannot write container header +0x10: 256 objects, but the object count is a u8"
    );
    let mut f = read_mod(&hand_mod());
    let m = &mut c_mut(&mut f).objects[0].meshes[0];
    m.positions.resize(0x10000, [0; 3]);
    assert_eq!(
        rigtrip::chain(&write(&f).unwrap_err()),
        "cannot write object 0 mesh 0: 65536 vertices, but the vertex count is a u16 (at most 65535)"
    );
}

#[test]
fn writer_refuses_inconsistent_structures() {
    let mut f = read_mod(&hand_mod());
    c_mut(&mut f).objects[0].meshes[0].positions.pop();
    assert_eq!(
        rigtrip::chain(&write(&f).unwrap_err()),
        "cannot write mesh record 0 of object 0 at 0x80: 2 positions but the normal stream holds 3 entries"
    );
    let mut f = read_mod(&hand_mod());
    c_mut(&mut f).header.bone_count = 3;
    assert_eq!(
        rigtrip::chain(&write(&f).unwrap_err()),
        "cannot write container header +0x11/+0x20: bone count 3 and block offset 0x140, but the block has 2 nodes at 0x140"
    );
    let mut f = read_mod(&hand_mod());
    f.gaps[0].offset = 0x134;
    assert_eq!(
        rigtrip::chain(&write(&f).unwrap_err()),
        "overlapping structures: weight stream of object 0 mesh 0 (0x130..0x136) overlaps gap at 0x134 (0x134..0x13e)"
    );
}

// ---------------------------------------------------------------------------------------------
// Strips

#[test]
fn strip_winding_parity_resets_at_a_restart() {
    let flags = [true, true, false, false, false, true, true, false, false];
    assert_eq!(
        strip_triangles(&flags),
        vec![[0, 1, 2], [2, 1, 3], [2, 3, 4], [5, 6, 7], [7, 6, 8]],
        "the strip restarted at 5 (an odd index) still starts with (i-2, i-1, i)"
    );
    // No flags at all: one strip from vertex 0.
    assert_eq!(
        strip_triangles(&[false; 5]),
        vec![[0, 1, 2], [2, 1, 3], [2, 3, 4]]
    );
    // A single flagged vertex restarts parity too; it completes no triangle itself.
    assert_eq!(
        strip_triangles(&[false, false, false, true, false, false]),
        vec![[0, 1, 2], [2, 3, 4], [4, 3, 5]]
    );
    assert!(strip_triangles(&[false, false]).is_empty());
}

#[test]
fn strip_flag_bits() {
    assert!(weight_strip_flag(0x8000));
    assert!(!weight_strip_flag(0x7FFF));
    assert!(colour_strip_flag([0, 0, 0, 0x02]));
    assert!(!colour_strip_flag([0xFF, 0xFF, 0xFF, 0xFD]));
    assert_eq!(weight_values(0x7FFF), [1.0, 1.0, 1.0]);
    assert_eq!(weight_values(31 << 10), [0.0, 0.0, 1.0]);
    assert_eq!(uv_value([-4096, 1]), [-1.0, 1.0 / 4096.0]);
    assert_eq!(joint_indices([255, 3, 7, 8]), [0, 1, 2]);
}

// ---------------------------------------------------------------------------------------------
// Block layout

#[test]
fn canonical_layout() {
    assert_eq!(
        BlockRels::canonical(5).unwrap(),
        BlockRels {
            parent: 0x20,
            order: 0x28,
            group: 0x30,
            transform: 0x40
        }
    );
    assert_eq!(
        BlockRels::canonical(49).unwrap(),
        BlockRels {
            parent: 0x20,
            order: 0x54,
            group: 0x88,
            transform: 0xC0
        }
    );
    assert_eq!(
        BlockRels::canonical(0).unwrap(),
        BlockRels {
            parent: 0x20,
            order: 0x20,
            group: 0x20,
            transform: 0x20
        }
    );
    assert_eq!(BlockRels::canonical(5).unwrap().extent(5), 0x40 + 5 * 0x20);
}

#[test]
fn non_canonical_rels_are_read_as_they_are() {
    // Transform records first, then groups, order, parents; odd offsets, padding between.
    let n = 3;
    let mut b = vec![0u8; 0x20];
    let (rt, rg, ro, rp) = (0x21usize, 0x21 + 0x60 + 1, 0x21 + 0x60 + 5, 0x21 + 0x60 + 9);
    for (i, r) in [rp, ro, rg, rt].iter().enumerate() {
        put(&mut b, 4 * i, &(*r as u32).to_le_bytes());
    }
    for k in 0..n {
        put(
            &mut b,
            rt + 0x20 * k,
            &rec([fb(k as f32), 0, 0, 0, 0, 0, 0, 0]),
        );
    }
    put(&mut b, rg, &[7, 8, 9]);
    put(&mut b, ro, &[2, 1, 0]);
    put(&mut b, rp, &[0xFF, 2, 1]);
    b[0x20] = 0x5E; // one padding byte between the header and the records
    let mut file = vec![0xEE; 3];
    file.extend_from_slice(&b);
    let f = read_block_in(&file, 3, n).unwrap();
    assert_eq!(f.kind(), "block");
    let blk = f.block.as_ref().unwrap();
    assert!(!blk.is_canonical());
    assert_eq!(
        blk.canonical_rels().unwrap(),
        BlockRels {
            parent: 0x20,
            order: 0x24,
            group: 0x28,
            transform: 0x30
        }
    );
    assert_eq!(blk.rels.transform, 0x21);
    assert_eq!(blk.order, vec![2, 1, 0]);
    assert_eq!(blk.groups, vec![7, 8, 9]);
    assert_eq!(blk.transforms[2].translation(), [2.0, 0.0, 0.0]);
    assert_eq!(
        blk.padding,
        vec![
            Gap {
                offset: 0x20,
                bytes: vec![0x5E]
            },
            Gap {
                offset: 0x81,
                bytes: vec![0]
            },
            Gap {
                offset: 0x85,
                bytes: vec![0]
            },
            Gap {
                offset: 0x89,
                bytes: vec![0]
            },
        ]
    );
    assert_eq!(
        f.gaps,
        vec![Gap {
            offset: 0,
            bytes: vec![0xEE; 3]
        }]
    );
    assert_eq!(write(&f).unwrap(), file);
}

#[test]
fn block_in_any_file_keeps_every_other_byte() {
    let (b, off, n) = sample_efm();
    assert_eq!((off, n), (0x35, 8));
    let f = NativeFile::read(
        Some(Format::Block {
            offset: off,
            nodes: n,
        }),
        &b,
    )
    .unwrap();
    assert_eq!(f.kind(), "block");
    let NativeFile::Dmc3(d) = &f else { panic!() };
    let blk = d.block.as_ref().unwrap();
    assert_eq!(blk.offset, 0x35);
    assert!(blk.is_canonical());
    assert_eq!(d.gaps.len(), 2);
    assert_eq!(d.gaps[0].offset, 0);
    assert_eq!(d.gaps[0].bytes, b[..0x35].to_vec());
    assert_eq!(d.gaps[1].offset, 0x35 + blk.extent());
    assert_eq!(f.write().unwrap(), b);
    let rig = lift(d.clone());
    assert!(rig.skeletons[0].gate.is_ok());
    assert_eq!(rig.skeletons[0].name, "block");
    assert_eq!(rig.skeletons[0].joints[3].name, "block_3");
}

// ---------------------------------------------------------------------------------------------
// Rejections

#[test]
fn rejects_truncated_header() {
    let e = read_container(b"MOD \0\0\x80\x3f\0\0").unwrap_err();
    assert_eq!(
        e.to_string(),
        "container header at offset 0x0 (64 bytes) runs past the end of the file (0xa bytes)"
    );
    let e = read_container(b"XYZ!").unwrap_err();
    assert_eq!(
        e.to_string(),
        "magic at offset 0x0 is 58595a21 (hex), expected \"MOD \" or \"SCM \""
    );
    let e = read_block_in(&[0; 0x1F], 0, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "node-domain block header at offset 0x0 (32 bytes) runs past the end of the file (0x1f bytes)"
    );
}

#[test]
fn rejects_offsets_past_the_end() {
    assert_eq!(
        hand_mod_error(0xA0, &0x1000u64.to_le_bytes()), // UV stream offset
        "UV stream of object 0 mesh 0 (3 vertices) at offset 0x1000 (12 bytes) runs past the end of the file (0x1b3 bytes)"
    );
    assert_eq!(
        hand_mod_error(0x48, &0x1B0u64.to_le_bytes()), // mesh records
        "mesh records of object 0 at offset 0x1b0 (80 bytes) runs past the end of the file (0x1b3 bytes)"
    );
    assert_eq!(
        hand_mod_error(0x20, &0x1A0u64.to_le_bytes()), // block offset
        "node-domain block header at offset 0x1a0 (32 bytes) runs past the end of the file (0x1b3 bytes)"
    );
    assert_eq!(
        hand_mod_error(0x10, &[9]), // nine object records do not fit
        "object record 5 at offset 0x180 (64 bytes) runs past the end of the file (0x1b3 bytes)"
    );
    assert_eq!(
        hand_mod_error(0x140 + 0x0C, &0xFFFF_FFF0u32.to_le_bytes()), // transform_rel
        "transform records of the block at 0x140 (rel 0xfffffff0) at offset 0x100000130 (64 bytes) runs past the end of the file (0x1b3 bytes)"
    );
}

#[test]
fn rejects_too_many_vertices_and_nodes_for_the_file() {
    assert_eq!(
        hand_mod_error(0x80, &60000u16.to_le_bytes()),
        "position stream of object 0 mesh 0 (60000 vertices) at offset 0xd0 (720000 bytes) runs past the end of the file (0x1b3 bytes)"
    );
    // A node count far beyond the input is refused before anything is allocated.
    let e = read_block_in(&[0x20; 64], 0, usize::MAX / 2).unwrap_err();
    assert!(
        e.to_string()
            .contains("runs past the end of the file (0x40 bytes)"),
        "{e}"
    );
}

#[test]
fn rejects_overlapping_regions() {
    // order_rel pointing into the parent array.
    assert_eq!(
        hand_mod_error(0x144, &0x21u32.to_le_bytes()),
        "overlapping structures: parent array (0x160..0x162) overlaps order array (0x161..0x163)"
    );
    // An array inside the block header.
    assert_eq!(
        hand_mod_error(0x148, &0x18u32.to_le_bytes()),
        "overlapping structures: block header (0x140..0x160) overlaps group array (0x158..0x15a)"
    );
    // A stream running into the mesh record.
    assert_eq!(
        hand_mod_error(0x98, &0xC4u64.to_le_bytes()),
        "overlapping structures: mesh record 0 of object 0 (0x80..0xd0) overlaps normal stream of object 0 mesh 0 (3 vertices) (0xc4..0xe8)"
    );
    // A stream inside the block.
    assert_eq!(
        hand_mod_error(0xA8 + 8, &0x160u64.to_le_bytes()),
        "overlapping structures: node-domain block at 0x140 (0x140..0x1b0) overlaps weight stream of object 0 mesh 0 (3 vertices) (0x160..0x166)"
    );
}

#[test]
fn shared_streams_are_read_once_other_overlaps_are_not() {
    // Two meshes naming the same position stream (same offset, length and kind).
    let mut b = hand_mod();
    b[0x40] = 2;
    let mut second = b[0x80..0xD0].to_vec();
    put(&mut second, 0x18, &0x400u64.to_le_bytes()); // own normals
    put(&mut second, 0x20, &0x430u64.to_le_bytes()); // own UVs
    put(&mut second, 0x28, &0x440u64.to_le_bytes()); // own bone indices
    put(&mut second, 0x30, &0x450u64.to_le_bytes()); // own weights
                                                     // Move mesh records to 0x300 (two in a row).
    let first = b[0x80..0xD0].to_vec();
    put(&mut b, 0x48, &0x300u64.to_le_bytes());
    put(&mut b, 0x300, &first);
    put(&mut b, 0x350, &second);
    b.resize(0x460, 0x11);
    let f = read_container(&b).unwrap();
    let ms = &container(&f).objects[0].meshes;
    assert_eq!(ms[0].positions, ms[1].positions);
    assert_eq!(write(&f).unwrap(), b);
    // The same offset as another KIND overlaps.
    let mut c = b.clone();
    put(&mut c, 0x350 + 0x18, &0xD0u64.to_le_bytes()); // normals onto the positions
    let e = rigtrip::chain(&read_container(&c).unwrap_err());
    assert!(
        e.contains("position stream of object 0 mesh 0")
            && e.contains("normal stream of object 0 mesh 1"),
        "{e}"
    );
    // A shifted copy overlaps.
    let mut c = b.clone();
    put(&mut c, 0x350 + 0x10, &0xDCu64.to_le_bytes());
    assert!(read_container(&c)
        .unwrap_err()
        .to_string()
        .starts_with("overlapping structures"));
    // An edit that makes shared copies disagree cannot be written.
    let mut g = read_container(&b).unwrap();
    c_mut(&mut g).objects[0].meshes[1].positions[0][0] = 0;
    assert_eq!(
        rigtrip::chain(&write(&g).unwrap_err()),
        "cannot write position stream of object 0 mesh 1 at 0xd0: shared with position stream of object 0 mesh 0 but holds other data"
    );
}

#[test]
fn shared_streams_cannot_amplify_memory() {
    // 255 meshes all naming one stream of 65535 vertices: ~0.8 MB of file, ~200 MB decoded.
    let vc = 65535usize;
    let stream = 0x40 + 0x40 + 255 * 0x50;
    let mut b = Vec::new();
    put(&mut b, 0, b"MOD ");
    b.resize(0x40, 0);
    put(&mut b, 0x10, &[1]);
    put(&mut b, 0x40, &[255]);
    put(&mut b, 0x48, &0x80u64.to_le_bytes());
    for j in 0..255 {
        let r = 0x80 + 0x50 * j;
        put(&mut b, r, &(vc as u16).to_le_bytes());
        for k in 0..5 {
            put(&mut b, r + 0x10 + 8 * k, &(stream as u64).to_le_bytes());
        }
    }
    b.resize(stream + vc * 12, 0);
    // Different kinds at one offset would overlap; that is found at the end, but the budget
    // stops the read first.
    let e = read_container(&b).unwrap_err();
    assert!(matches!(e, Dmc3Error::DecodeBudget { .. }), "{e}");
    assert!(e.to_string().contains("limit: 8x the file"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Round trips

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn mod_round_trips(seed in any::<u64>()) {
        let b = random_mod(seed);
        let f = read_container(&b).unwrap();
        prop_assert_eq!(f.kind(), "mod");
        prop_assert_eq!(write(&f).unwrap(), b);
    }

    #[test]
    fn scm_round_trips(seed in any::<u64>()) {
        let b = random_scm(seed);
        let f = read_container(&b).unwrap();
        prop_assert_eq!(f.kind(), "scm");
        prop_assert_eq!(write(&f).unwrap(), b);
    }

    #[test]
    fn block_file_round_trips(seed in any::<u64>()) {
        let (b, off, n) = random_block_file(seed);
        let f = read_block_in(&b, off, n).unwrap();
        prop_assert_eq!(write(&f).unwrap(), b);
    }

    #[test]
    fn mod_round_trips_through_the_rig(seed in any::<u64>()) {
        let b = random_mod(seed);
        let f = read_container(&b).unwrap();
        prop_assert_eq!(write(&lower(&lift(f.clone())).unwrap()).unwrap(), b);
        prop_assert_eq!(lower(&lift(f.clone())).unwrap(), f);
    }

    #[test]
    fn scm_round_trips_through_the_rig(seed in any::<u64>()) {
        let b = random_scm(seed);
        let f = read_container(&b).unwrap();
        prop_assert_eq!(write(&lower(&lift(f)).unwrap()).unwrap(), b);
    }

    #[test]
    fn block_file_round_trips_through_the_rig(seed in any::<u64>()) {
        let (b, off, n) = random_block_file(seed);
        let f = read_block_in(&b, off, n).unwrap();
        prop_assert_eq!(write(&lower(&lift(f)).unwrap()).unwrap(), b);
    }

    /// Lowering and writing in one step agrees with lower + write, for unedited and edited
    /// rigs (joints moved, added, removed: relayouts and refusals included).
    #[test]
    fn one_step_lower_write_agrees(seed in any::<u64>(), kind in 0..3u8, edit in 0..4u8) {
        let rig = match kind {
            0 => lift(read_container(&random_mod(seed)).unwrap()),
            1 => lift(read_container(&random_scm(seed)).unwrap()),
            _ => {
                let (b, off, n) = random_block_file(seed);
                lift(read_block_in(&b, off, n).unwrap())
            }
        };
        assert_one_step_agrees(&rig);
        let mut r = rig.clone();
        if let Some(s) = r.skeletons.first_mut() {
            match edit {
                0 => {
                    if let Some(j) = s.joints.last_mut() {
                        j.translation += DVec3::new(1.5, -2.0, 0.25);
                    }
                }
                1 => {
                    s.joints.pop();
                }
                2 => {
                    let parent = if s.joints.is_empty() { None } else { Some(0) };
                    s.joints.push(Joint {
                        name: "new".into(),
                        parent,
                        translation: DVec3::new(0.0, 1.0, 0.0),
                        rotation: DQuat::IDENTITY,
                        native: JointPayload::Dmc3(Dmc3Joint::default()),
                    });
                }
                _ => {
                    r.skeletons.clear();
                }
            }
        }
        assert_one_step_agrees(&r);
    }
}

/// Lowering does not depend on which rig was lifted last on the thread (lift remembers the
/// rotations it computed so that lower need not recompute them): interleaved lifts and
/// lowers, edited or not, give what a fresh lift and lower give.
#[test]
fn lowering_does_not_depend_on_the_last_lift() {
    let files: Vec<Vec<u8>> = (0..6u64).map(random_mod).collect();
    let rigs: Vec<Rig> = files
        .iter()
        .map(|b| lift(read_container(b).unwrap()))
        .collect();
    // Lowered in reverse order: every lower but the first follows another rig's lift.
    for (b, rig) in files.iter().zip(&rigs).rev() {
        assert_eq!(&lowered_bytes(rig), b);
    }
    for (i, rig) in rigs.iter().enumerate() {
        let mut edited = rig.clone();
        let Some(j) = edited.skeletons[0].joints.last_mut() else {
            continue;
        };
        j.rotation = DQuat::from_rotation_y(0.5) * j.rotation;
        let expect = lowered_bytes(&edited);
        // Lift another rig in between: same result.
        let _ = lift(read_container(&files[(i + 1) % files.len()]).unwrap());
        assert_eq!(lowered_bytes(&edited), expect);
        assert_ne!(&expect, &files[i]);
    }
}

/// The generators must actually produce what the round trips are meant to exercise.
#[test]
fn generators_cover_the_interesting_cases() {
    let (mut fails, mut passes, mut noncanon, mut nan_w, mut neg_zero_w) = (0, 0, 0, 0, 0);
    let (mut shared, mut gaps, mut noisy_pad, mut no_block, mut restarts) = (0, 0, 0, 0, 0);
    for seed in 0..300 {
        for f in [
            read_container(&random_mod(seed)).unwrap(),
            read_container(&random_scm(seed)).unwrap(),
            {
                let (b, o, n) = random_block_file(seed);
                read_block_in(&b, o, n).unwrap()
            },
        ] {
            if f.block.is_none() {
                no_block += 1;
            }
            if !f.gaps.is_empty() {
                gaps += 1;
            }
            if let Some(c) = &f.container {
                let ms: Vec<&Mesh> = c.objects.iter().flat_map(|o| &o.meshes).collect();
                for (i, a) in ms.iter().enumerate() {
                    for b in &ms[..i] {
                        if a.record.positions_offset == b.record.positions_offset
                            && a.vertex_count() == b.vertex_count()
                            && a.vertex_count() > 0
                            || a.record.uv_offset == b.record.uv_offset && a.vertex_count() > 0
                        {
                            shared += 1;
                        }
                    }
                    let fl = a.strip_flags();
                    if fl.iter().skip(2).any(|&x| x) {
                        restarts += 1;
                    }
                }
            }
            if let Some(b) = &f.block {
                if !b.is_canonical() {
                    noncanon += 1;
                }
                if b.padding.iter().any(|g| g.bytes.iter().any(|&x| x != 0)) {
                    noisy_pad += 1;
                }
                nan_w += b.transforms.iter().filter(|t| t.w().is_nan()).count();
                neg_zero_w += b
                    .transforms
                    .iter()
                    .filter(|t| t.w_bits == 0x8000_0000)
                    .count();
                match check_gate(&b.parents, &b.order, &b.transforms) {
                    Ok(()) => passes += 1,
                    Err(_) => fails += 1,
                }
            }
        }
    }
    for (what, n) in [
        ("gate failures", fails),
        ("gate passes", passes),
        ("non-canonical blocks", noncanon),
        ("NaN +0x1C", nan_w),
        ("-0.0 +0x1C", neg_zero_w),
        ("shared streams", shared),
        ("files with gaps", gaps),
        ("noisy padding", noisy_pad),
        ("files without a block", no_block),
        ("strip restarts", restarts),
    ] {
        assert!(n >= 10, "{what}: only {n}");
    }
    assert!(passes > 4 * fails);
}

// ---------------------------------------------------------------------------------------------
// Rotation convention

fn rx(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, c, s, 0.0, -s, c])
}
fn ry(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols_array(&[c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c])
}
fn rz(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols_array(&[c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0])
}

#[test]
fn rotation_is_rz_ry_rx_and_glam_agrees_with_intrinsic_zyx() {
    let (a, b, c) = (0.7f32, -0.4f32, 1.1f32);
    let t = NodeTransform {
        rx_bits: fb(a),
        ry_bits: fb(b),
        rz_bits: fb(c),
        ..Default::default()
    };
    let explicit = rz(c as f64) * ry(b as f64) * rx(a as f64);
    // The explicit matrices are the textbook ones: Rx turns +Y towards +Z.
    assert!((rx(std::f64::consts::FRAC_PI_2) * DVec3::Y).abs_diff_eq(DVec3::Z, 1e-15));
    let ours = DMat3::from_quat(local_rotation(&t));
    assert!(
        ours.abs_diff_eq(explicit, 1e-12),
        "{ours:?} vs {explicit:?}"
    );
    // X is applied first: a vector is turned about X, then Y, then Z.
    let v = DVec3::new(0.3, -1.2, 2.0);
    let stepwise = rz(c as f64) * (ry(b as f64) * (rx(a as f64) * v));
    assert!((local_rotation(&t) * v).abs_diff_eq(stepwise, 1e-12));
    // glam: intrinsic ZYX with angles (z, y, x) is the same rotation ...
    let g = DQuat::from_euler(EulerRot::ZYX, c as f64, b as f64, a as f64);
    assert!(DMat3::from_quat(g).abs_diff_eq(explicit, 1e-12));
    // ... and glam's XYZ with (x, y, z) is NOT (it is Rx·Ry·Rz), so the order matters here.
    let wrong = DMat3::from_quat(DQuat::from_euler(
        EulerRot::XYZ,
        a as f64,
        b as f64,
        c as f64,
    ));
    assert!(wrong.abs_diff_eq(rx(a as f64) * ry(b as f64) * rz(c as f64), 1e-12));
    assert!(!wrong.abs_diff_eq(explicit, 1e-3));
    // euler_xyz inverts it.
    let [x, y, z] = euler_xyz(local_rotation(&t));
    assert!(
        (x - a as f64).abs() < 1e-12
            && (y - b as f64).abs() < 1e-12
            && (z - c as f64).abs() < 1e-12
    );
}

// ---------------------------------------------------------------------------------------------
// Parents, world matrices, the rest-pose oracle

#[test]
fn parents_follow_the_exe_rule_not_the_inverse_permutation() {
    // Order position i: node order[i], parent parents[i] (a NODE index).
    let order = [2u8, 0, 3, 1];
    let parents = [-1i8, 2, 0, 3];
    let b = block_bytes(&parents, &order, None);
    let rig = lift(read_block_in(&b, 0, 4).unwrap());
    let s = &rig.skeletons[0];
    assert!(s.gate.is_ok(), "{:?}", s.gate);
    let ours: Vec<Option<usize>> = s.joints.iter().map(|j| j.parent).collect();
    assert_eq!(ours, vec![Some(2), Some(3), None, Some(0)]);
    // The rejected readings give other trees for this block.
    let mut inv = [0usize; 4];
    for (i, &n) in order.iter().enumerate() {
        inv[n as usize] = i;
    }
    let by_inverse: Vec<Option<usize>> = (0..4)
        .map(|k| {
            usize::try_from(parents[inv[k]])
                .ok()
                .map(|p| order[p] as usize)
        })
        .collect();
    let by_node_index: Vec<Option<usize>> =
        (0..4).map(|k| usize::try_from(parents[k]).ok()).collect();
    assert_ne!(ours, by_inverse);
    assert_ne!(ours, by_node_index);
    assert_eq!(node_parents(&parents, &order, 4), ours);
    // World positions follow our tree: node 1 = root + t0 + t3 + t1 (identity rotations).
    let mut recs = Vec::new();
    for k in 0..4 {
        recs.push([fb(10f32.powi(k)), 0, 0, 0, 0, 0, 0, 0]);
    }
    let b = block_bytes(&parents, &order, Some(recs));
    let rig = lift(read_block_in(&b, 0, 4).unwrap());
    let p = rig.skeletons[0].world_positions().unwrap();
    assert_eq!(p[2].x, 100.0);
    assert_eq!(p[0].x, 101.0);
    assert_eq!(p[3].x, 1101.0);
    assert_eq!(p[1].x, 1111.0);
}

type M4 = [[f64; 4]; 4];

fn mul(a: &M4, b: &M4) -> M4 {
    let mut r = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            r[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    r
}

/// The engine's row-vector local matrix from a raw record: v' = v · Rx · Ry · Rz · T.
fn row_local(t: &NodeTransform) -> M4 {
    let [x, y, z] = t.rotation().map(|v| v as f64);
    let [tx, ty, tz] = t.translation().map(|v| v as f64);
    let (sx, cx) = x.sin_cos();
    let (sy, cy) = y.sin_cos();
    let (sz, cz) = z.sin_cos();
    let rxr = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, cx, sx, 0.0],
        [0.0, -sx, cx, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let ryr = [
        [cy, 0.0, -sy, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [sy, 0.0, cy, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let rzr = [
        [cz, sz, 0.0, 0.0],
        [-sz, cz, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let tr = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [tx, ty, tz, 1.0],
    ];
    mul(&mul(&mul(&rxr, &ryr), &rzr), &tr)
}

/// world[node] = local[node] · world[parent], evaluated in the block's own order.
fn row_world(b: &NodeBlock) -> Vec<M4> {
    let mut w = vec![[[0.0; 4]; 4]; b.node_count()];
    for (i, &node) in b.order.iter().enumerate() {
        let node = node as usize;
        let local = row_local(&b.transforms[node]);
        w[node] = if b.parents[i] < 0 {
            local
        } else {
            mul(&local, &w[b.parents[i] as usize])
        };
    }
    w
}

fn check_rest_pose(f: Dmc3File) -> usize {
    let blk = f.block.clone().unwrap();
    let rig = lift(f);
    let s = &rig.skeletons[0];
    s.gate.clone().unwrap();
    let world = s.world_matrices().unwrap();
    let ibm = s.inverse_bind_matrices().unwrap();
    let rows = row_world(&blk);
    for k in 0..s.joints.len() {
        // skin = inverseRestWorld · currentWorld is the identity in the rest pose.
        assert!(
            (ibm[k] * world[k]).abs_diff_eq(DMat4::IDENTITY, 1e-5),
            "joint {k}"
        );
        // Column-form world == transpose of the row-form world; position = row 3.
        let pos = DVec3::new(rows[k][3][0], rows[k][3][1], rows[k][3][2]);
        let tol = 1e-9 * (1.0 + pos.length());
        assert!(
            world[k].w_axis.truncate().abs_diff_eq(pos, tol),
            "joint {k}: {:?} vs {pos:?}",
            world[k].w_axis
        );
        for (r, row) in rows[k].iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                assert!((world[k].col(r)[c] - v).abs() < tol, "joint {k} [{r}][{c}]");
            }
        }
    }
    s.joints.len()
}

#[test]
fn rest_pose_oracle_on_the_sample_humanoid() {
    let b = sample_mod();
    let f = read_mod(&b);
    let blk = f.block.clone().unwrap();
    assert!(blk.node_count() >= 40);
    assert!(blk.is_canonical());
    assert_ne!(
        blk.order,
        (0..blk.node_count() as u8).collect::<Vec<_>>(),
        "order is shuffled"
    );
    assert_ne!(blk.order[0], 0, "node 0 is not the root");
    assert!(blk
        .transforms
        .iter()
        .all(|t| t.rotation().iter().all(|&r| r != 0.0)));
    assert!(blk.transforms.iter().all(|t| t.w_bits == 0));
    let rig = lift(f.clone());
    let p = rig.skeletons[0].world_positions().unwrap();
    let top = p.iter().map(|v| v.y).fold(f64::MIN, f64::max);
    let bottom = p.iter().map(|v| v.y).fold(f64::MAX, f64::min);
    assert!((165.0..180.0).contains(&top), "height {top}");
    assert!(bottom.abs() < 1e-3);
    assert_eq!(check_rest_pose(f.clone()), 49);
    // Two skinned objects, strips with flags, weights summing to 31/31.
    let c = container(&f);
    assert_eq!(c.objects.len(), 2);
    for m in c.objects.iter().flat_map(|o| &o.meshes) {
        assert!(m.vertex_count() > 0);
        assert!(m
            .weights
            .iter()
            .all(|w| (w & 31) + (w >> 5 & 31) + (w >> 10 & 31) == 31));
        assert!(m
            .joints()
            .iter()
            .flatten()
            .all(|&j| (j as usize) < blk.node_count()));
        assert_eq!(m.triangles().len(), m.vertex_count() / 10 * 8);
    }
}

#[test]
fn rest_pose_oracle_on_random_blocks() {
    let mut checked = 0;
    for seed in 0..200 {
        let (b, o, n) = random_block_file(seed);
        let f = read_block_in(&b, o, n).unwrap();
        let blk = f.block.as_ref().unwrap();
        if check_gate(&blk.parents, &blk.order, &blk.transforms).is_ok() {
            checked += check_rest_pose(f);
        }
    }
    let (b, o, n) = sample_efm();
    checked += check_rest_pose(read_block_in(&b, o, n).unwrap());
    assert!(checked > 2000, "{checked}");
}

#[test]
fn sample_scm_is_a_coloured_stage_without_block() {
    let b = sample_scm();
    let f = read_mod(&b);
    assert_eq!(f.kind(), "scm");
    assert!(f.block.is_none());
    let rig = lift(f.clone());
    assert!(rig.skeletons.is_empty());
    assert_eq!(write(&lower(&rig).unwrap()).unwrap(), b);
    let m = &container(&f).objects[0].meshes;
    assert_eq!(m.len(), 2);
    assert_eq!(m[0].triangles().len(), 8 * 16);
    assert!(m.iter().all(|m| m.colours.len() == m.vertex_count()));
}

// ---------------------------------------------------------------------------------------------
// The gate: one test per condition, each still round-tripping

fn gate_of(
    parents: &[i8],
    order: &[u8],
    recs: Option<Vec<[u32; 8]>>,
) -> (rigtrip::rig::GateFailure, Rig) {
    let b = block_bytes(parents, order, recs);
    let f = read_block_in(&b, 0, order.len()).unwrap();
    let rig = lift(f);
    assert_eq!(
        write(&lower(&rig).unwrap()).unwrap(),
        b,
        "a failing block round-trips"
    );
    (rig.skeletons[0].gate.clone().unwrap_err(), rig)
}

#[test]
fn gate_order_must_be_a_permutation() {
    let (e, _) = gate_of(&[-1, 0, 0], &[0, 1, 1], None);
    assert_eq!(e.condition, GateCondition::OrderIsPermutation);
    assert_eq!((e.position, e.joint), (Some(2), Some(1)));
    assert_eq!(e.to_string(), "spatial gate: the order array is a full permutation does not hold at order position 2 (joint 1): node 1 stands at positions 1 and 2");
    let (e, _) = gate_of(&[-1, 0, 0], &[0, 1, 7], None);
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::OrderIsPermutation, Some(2), None)
    );
}

#[test]
fn gate_root_must_be_first() {
    let (e, _) = gate_of(&[-1, 0, -1], &[0, 1, 2], None);
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::RootFirst, Some(2), Some(2))
    );
}

#[test]
fn gate_root_parent_must_be_minus_one() {
    let (e, _) = gate_of(&[1, 0, 0], &[0, 1, 2], None);
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::RootParentNone, Some(0), Some(0))
    );
}

#[test]
fn gate_parent_must_be_evaluated_earlier() {
    // Node 1 (position 1) names node 2, which is evaluated at position 2; no cycle.
    let (e, rig) = gate_of(&[-1, 2, 0], &[0, 1, 2], None);
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::ParentEvaluatedEarlier, Some(1), Some(1))
    );
    assert_eq!(rig.skeletons[0].joints[1].parent, Some(2));
}

#[test]
fn gate_must_be_acyclic() {
    let (e, _) = gate_of(&[-1, 0, 3, 2], &[0, 1, 2, 3], None);
    assert_eq!(e.condition, GateCondition::Acyclic);
    assert!(
        matches!(
            (e.position, e.joint),
            (Some(2), Some(2)) | (Some(3), Some(3))
        ),
        "{e}"
    );
}

#[test]
fn gate_transforms_must_be_finite() {
    let mut recs: Vec<[u32; 8]> = (0..3).map(|_| [0; 8]).collect();
    recs[2][5] = 0x7F80_0000; // ry = +inf
    recs[1][7] = 0x7FC0_0001; // +0x1C NaN does not matter
    recs[0][3] = 0xFFC0_0000; // nor does a NaN magnitude
    let (e, _) = gate_of(&[-1, 0, 2], &[0, 2, 1], Some(recs));
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::FiniteTransforms, Some(1), Some(2))
    );
    assert_eq!(e.detail, "ry of node 2 is inf (bits 0x7f800000)");
}

#[test]
fn gate_parents_must_name_nodes() {
    let (e, _) = gate_of(&[-1, 0, 9], &[0, 1, 2], None);
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::ParentInRange, Some(2), Some(2))
    );
    let (e, _) = gate_of(&[-1, -3, 0], &[0, 1, 2], None);
    assert_eq!(
        (e.condition, e.position, e.joint),
        (GateCondition::ParentInRange, Some(1), Some(1))
    );
}

#[test]
fn gate_refuses_an_empty_block_and_passes_a_good_one() {
    let f = read_block_in(&block_bytes(&[], &[], None), 0, 0).unwrap();
    let rig = lift(f);
    assert_eq!(
        rig.skeletons[0].gate.clone().unwrap_err().condition,
        GateCondition::RootFirst
    );
    let f = read_block_in(&block_bytes(&[-1, 0, 2], &[0, 2, 1], None), 0, 3).unwrap();
    assert!(lift(f).skeletons[0].gate.is_ok());
}

// ---------------------------------------------------------------------------------------------
// Lowering edits

fn sample_rig() -> (Vec<u8>, Rig, u64) {
    let b = sample_mod();
    let f = read_mod(&b);
    let blk = f.block.as_ref().unwrap();
    let xf = blk.offset + blk.rels.transform as u64;
    (b, lift(f), xf)
}

fn lowered_bytes(rig: &Rig) -> Vec<u8> {
    assert_one_step_agrees(rig);
    write(&lower(rig).unwrap()).unwrap()
}

fn differing(a: &[u8], b: &[u8]) -> Vec<usize> {
    assert_eq!(a.len(), b.len());
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

fn word(b: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[test]
fn moving_a_joint_changes_only_its_translation_and_magnitude() {
    let (orig, mut rig, xf) = sample_rig();
    let k = 7;
    let t0 = rig.skeletons[0].joints[k].translation;
    rig.skeletons[0].joints[k].translation = t0 + DVec3::new(1.0, -2.0, 0.5);
    let out = lowered_bytes(&rig);
    let rec = xf + 0x20 * k as u64;
    let d = differing(&orig, &out);
    assert!(!d.is_empty());
    assert!(
        d.iter().all(|&i| (rec..rec + 0x10).contains(&(i as u64))),
        "{d:x?}"
    );
    let (tx, ty, tz) = (
        (t0.x + 1.0) as f32,
        (t0.y - 2.0) as f32,
        (t0.z + 0.5) as f32,
    );
    assert_eq!(word(&out, rec), tx.to_bits());
    assert_eq!(word(&out, rec + 4), ty.to_bits());
    assert_eq!(word(&out, rec + 8), tz.to_bits());
    let m = ((tx as f64).powi(2) + (ty as f64).powi(2) + (tz as f64).powi(2)).sqrt() as f32;
    assert_eq!(word(&out, rec + 12), m.to_bits());
}

#[test]
fn rotating_a_joint_changes_only_rx_ry_rz() {
    let (orig, mut rig, xf) = sample_rig();
    let k = 11;
    let (a, b, c) = (0.25f64, -0.5, 1.0);
    rig.skeletons[0].joints[k].rotation =
        DQuat::from_rotation_z(c) * DQuat::from_rotation_y(b) * DQuat::from_rotation_x(a);
    let out = lowered_bytes(&rig);
    let rec = xf + 0x20 * k as u64;
    let d = differing(&orig, &out);
    assert!(!d.is_empty());
    assert!(
        d.iter()
            .all(|&i| (rec + 0x10..rec + 0x1C).contains(&(i as u64))),
        "{d:x?}"
    );
    for (off, want) in [(0x10, a), (0x14, b), (0x18, c)] {
        let got = f32::from_bits(word(&out, rec + off)) as f64;
        assert!((got - want).abs() < 1e-6, "{off:#x}: {got} vs {want}");
    }
    // Lifting the result gives the edited rotation back (to f32 precision).
    let again = lift(read_mod(&out));
    assert!(again.skeletons[0].joints[k]
        .rotation
        .abs_diff_eq(rig.skeletons[0].joints[k].rotation, 1e-6));
}

#[test]
fn edits_never_touch_w_and_leave_other_records_bit_identical() {
    for seed in 0..100 {
        let (b, o, n) = random_block_file(seed);
        if n < 2 {
            continue;
        }
        let f = read_block_in(&b, o, n).unwrap();
        let blk = f.block.clone().unwrap();
        let mut rig = lift(f);
        let k = seed as usize % n;
        let j = &mut rig.skeletons[0].joints[k];
        j.translation = DVec3::new(3.0, 4.0, 12.0);
        j.rotation = DQuat::from_rotation_y(0.3);
        let out = lower(&rig).unwrap();
        let nb = out.block.as_ref().unwrap();
        for (i, (old, new)) in blk.transforms.iter().zip(&nb.transforms).enumerate() {
            assert_eq!(old.w_bits, new.w_bits, "seed {seed} node {i}");
            if i != k {
                assert_eq!(old, new, "seed {seed} node {i}");
            }
        }
        let r = nb.transforms[k];
        assert_eq!(r.translation(), [3.0, 4.0, 12.0]);
        assert_eq!(r.magnitude(), 13.0);
        let [x, y, z] = r.rotation();
        assert!(x.abs() < 1e-7 && (y - 0.3).abs() < 1e-7 && z.abs() < 1e-7);
        // Parents unchanged: raw arrays kept verbatim, failing gate or not.
        assert_eq!((&nb.parents, &nb.order), (&blk.parents, &blk.order));
        let bytes = write(&out).unwrap();
        let rec = o + blk.rels.transform as u64 + 0x20 * k as u64;
        let d = differing(&b, &bytes);
        assert!(
            d.iter().all(|&i| (rec..rec + 0x1C).contains(&(i as u64))),
            "seed {seed}: {d:x?}"
        );
    }
}

#[test]
fn reparenting_rewrites_the_arrays_stably() {
    let (orig, rig, _) = sample_rig();
    let f = read_mod(&orig);
    let blk = f.block.as_ref().unwrap();
    let n = blk.node_count();
    let pos = |order: &[u8], k: usize| order.iter().position(|&x| x as usize == k).unwrap();
    let has_child = |r: &Rig, k: usize| r.skeletons[0].joints.iter().any(|j| j.parent == Some(k));
    let root = rig.skeletons[0].roots().next().unwrap();

    // A leaf re-hung under the root: the old order is still valid, so it stays; only the
    // leaf's entry of the parent array changes.
    let mut r = rig.clone();
    let leaf = (0..n)
        .find(|&k| !has_child(&r, k) && r.skeletons[0].joints[k].parent != Some(root))
        .unwrap();
    r.skeletons[0].joints[leaf].parent = Some(root);
    let out = lower(&r).unwrap();
    let nb = out.block.as_ref().unwrap();
    assert_eq!(nb.order, blk.order);
    let i = pos(&blk.order, leaf);
    let changed: Vec<usize> = (0..n)
        .filter(|&p| nb.parents[p] != blk.parents[p])
        .collect();
    assert_eq!(changed, vec![i]);
    assert_eq!(nb.parents[i], root as i8);
    assert_eq!(nb.transforms, blk.transforms, "records untouched");

    // A leaf re-hung under a joint evaluated AFTER it: the order must change. The leaf moves
    // to right after its new parent; every other node keeps its sequence.
    let mut r = rig.clone();
    let (leaf, target) = (0..n)
        .filter(|&k| !has_child(&r, k))
        .find_map(|k| {
            let t = blk.order[pos(&blk.order, k) + 1..]
                .iter()
                .map(|&x| x as usize)
                .find(|&t| t != k)?;
            Some((k, t))
        })
        .unwrap();
    r.skeletons[0].joints[leaf].parent = Some(target);
    let out = lower(&r).unwrap();
    let nb = out.block.as_ref().unwrap();
    assert!(check_gate(&nb.parents, &nb.order, &nb.transforms).is_ok());
    assert_ne!(nb.order, blk.order);
    let rest = |o: &[u8]| {
        o.iter()
            .copied()
            .filter(|&x| x as usize != leaf)
            .collect::<Vec<u8>>()
    };
    assert_eq!(rest(&nb.order), rest(&blk.order));
    assert!(pos(&nb.order, leaf) > pos(&nb.order, target));
    assert_eq!(nb.transforms, blk.transforms, "records untouched");
    let again = lift(read_mod(&write(&out).unwrap()));
    assert!(again.skeletons[0].gate.is_ok());
    for (k, j) in again.skeletons[0].joints.iter().enumerate() {
        assert_eq!(j.parent, r.skeletons[0].joints[k].parent, "joint {k}");
    }
}

#[test]
fn adding_a_joint_to_a_block_at_the_end_of_the_file() {
    let (orig, mut rig, _) = sample_rig();
    let n = rig.skeletons[0].joints.len();
    let f = read_mod(&orig);
    let off = f.block.as_ref().unwrap().offset as usize;
    rig.skeletons[0].joints.push(Joint {
        name: "prop".into(),
        parent: Some(3),
        translation: DVec3::new(0.0, 5.0, 0.0),
        rotation: DQuat::IDENTITY,
        native: JointPayload::Dmc3(Dmc3Joint::default()),
    });
    let out = lowered_bytes(&rig);
    assert_eq!(out[0x11] as usize, n + 1, "header +0x11 follows");
    assert_eq!(out[..0x11], orig[..0x11]);
    // Before the block only the mesh records' +0x40 change: the workspaces after the block
    // moved with its growth, and the file is in the retail layout again.
    let unmoved = |b: &[u8]| {
        let mut b = b[0x12..off].to_vec();
        for o in &f.container.as_ref().unwrap().objects {
            for j in 0..o.meshes.len() {
                let at = o.record.mesh_offset as usize + 0x50 * j + 0x40 - 0x12;
                b[at..at + 8].fill(0);
            }
        }
        b
    };
    assert_eq!(unmoved(&out), unmoved(&orig));
    assert_ne!(out[..off], orig[..off]);
    retail::check(&out).unwrap();
    let g = read_mod(&out);
    let nb = g.block.as_ref().unwrap();
    assert!(nb.is_canonical());
    assert_eq!(nb.node_count(), n + 1);
    assert_eq!(nb.transforms[n].translation(), [0.0, 5.0, 0.0]);
    assert_eq!(nb.transforms[n].magnitude(), 5.0);
    assert_eq!(nb.transforms[n].w_bits, 0);
    let again = lift(g);
    assert!(again.skeletons[0].gate.is_ok());
    assert_eq!(again.skeletons[0].joints[n].parent, Some(3));
    // Removing it again gives the original file back.
    let mut back = again.clone();
    back.skeletons[0].joints.pop();
    // The parents differ from the raw arrays (one node fewer), so they are rewritten; the
    // stable rewrite puts the old order back.
    assert_eq!(lowered_bytes(&back), orig);
}

#[test]
fn node_count_changes_that_would_move_something_are_refused() {
    // A bare block followed by other bytes: growing it would overwrite them.
    let parents = [-1i8, 0, 0, 1, 1];
    let order = [0u8, 1, 2, 3, 4];
    let mut b = block_bytes(&parents, &order, None);
    let end = b.len();
    b.extend_from_slice(&[0xAB; 16]);
    let f = read_block_in(&b, 0, 5).unwrap();
    let mut rig = lift(f);
    let mut grown = rig.clone();
    grown.skeletons[0].joints.push(Joint {
        name: "x".into(),
        parent: Some(0),
        translation: DVec3::ZERO,
        rotation: DQuat::IDENTITY,
        native: JointPayload::Dmc3(Dmc3Joint::default()),
    });
    assert_eq!(
        lower(&grown).unwrap_err().to_string(),
        "skeleton 0: the block at 0x0 grows from 0xe0 to 0x100 bytes (5 -> 6 nodes) and would overwrite gap at 0xe0 at 0xe0; only a block that keeps its size or ends the file can gain nodes"
    );
    // Shrinking: node 4 is a leaf. The freed bytes become zeros; the trailing bytes stay.
    rig.skeletons[0].joints.pop();
    let out = lowered_bytes(&rig);
    assert_eq!(out.len(), b.len());
    assert_eq!(out[end..], b[end..]);
    let g = read_block_in(&out, 0, 4).unwrap();
    assert_eq!(g.block.as_ref().unwrap().extent(), 0x30 + 4 * 0x20);
    assert!(out[0xB0..end].iter().all(|&x| x == 0));
    let mut tail = vec![0; 0x30];
    tail.extend_from_slice(&[0xAB; 16]);
    assert_eq!(
        g.gaps,
        vec![Gap {
            offset: 0xB0,
            bytes: tail
        }]
    );
    // Without trailing bytes the file just ends earlier.
    let f = read_block_in(&b[..end], 0, 5).unwrap();
    let mut rig = lift(f);
    rig.skeletons[0].joints.pop();
    assert_eq!(lowered_bytes(&rig).len(), 0xB0);
}

#[test]
fn node_count_change_refuses_to_drop_non_zero_padding() {
    let b = hand_mod();
    let mut rig = lift(read_mod(&b));
    rig.skeletons[0].joints.push(Joint {
        name: "x".into(),
        parent: Some(1),
        translation: DVec3::ZERO,
        rotation: DQuat::IDENTITY,
        native: JointPayload::Dmc3(Dmc3Joint::default()),
    });
    assert_eq!(
        lower(&rig).unwrap_err().to_string(),
        "skeleton 0: block padding at 0x162 holds non-zero bytes that changing the node count (2 -> 3) would drop"
    );
}

#[test]
fn unrepresentable_values_are_refused_by_joint_and_field() {
    let (_, rig, _) = sample_rig();
    let mut r = rig.clone();
    r.skeletons[0].joints[3].translation.y = f64::NAN;
    assert_eq!(
        lower(&r).unwrap_err().to_string(),
        "skeleton 0, joint 3 (mod_3): translation.y (+0x04 ty): NaN is not finite"
    );
    let mut r = rig.clone();
    r.skeletons[0].joints[5].translation.z = 1e39;
    assert_eq!(
        lower(&r).unwrap_err().to_string(),
        "skeleton 0, joint 5 (mod_5): translation.z (+0x08 tz): 1000000000000000000000000000000000000000 is out of f32 range"
    );
    let mut r = rig.clone();
    r.skeletons[0].joints[2].rotation = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert!(lower(&r)
        .unwrap_err()
        .to_string()
        .starts_with("skeleton 0, joint 2 (mod_2): rotation (+0x10..+0x18): "));
    // Two roots cannot be a block.
    let mut r = rig.clone();
    let k = (0..r.skeletons[0].joints.len())
        .find(|&k| r.skeletons[0].joints[k].parent.is_some())
        .unwrap();
    r.skeletons[0].joints[k].parent = None;
    let e = lower(&r).unwrap_err();
    assert!(matches!(e, LowerError::Structure { .. }));
    assert!(e.to_string().contains("exactly one root"), "{e}");
    // A cycle.
    let mut r = rig.clone();
    let s = &mut r.skeletons[0];
    let a = (0..s.joints.len())
        .find(|&k| s.joints[k].parent.is_some())
        .unwrap();
    let pa = s.joints[a].parent.unwrap();
    if s.joints[pa].parent.is_some() {
        s.joints[pa].parent = Some(a);
        assert!(lower(&r).unwrap_err().to_string().contains("cycle"));
    }
    // A payload of another format.
    let mut r = rig.clone();
    r.skeletons[0].native = SkeletonPayload::Hie(Default::default());
    assert!(matches!(
        lower(&r).unwrap_err(),
        LowerError::WrongPayload { .. }
    ));
}

#[test]
fn unchanged_nan_records_pass_through_and_edited_ones_are_checked() {
    let mut recs: Vec<[u32; 8]> = (0..3)
        .map(|k| [fb(k as f32), 0, 0, 0, 0, 0, 0, 0x7FC0_0042])
        .collect();
    recs[1][0] = 0x7FC0_BEEF; // tx NaN with a payload
    let b = block_bytes(&[-1, 0, 0], &[0, 1, 2], Some(recs));
    let rig = lift(read_block_in(&b, 0, 3).unwrap());
    assert!(rig.skeletons[0].gate.is_err());
    assert_eq!(lowered_bytes(&rig), b);
}
