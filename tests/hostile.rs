//! Hostile input: damaged, truncated and misidentified files, built in code from the generators
//! and samples. Each case asserts the exact error (or, for valid-but-odd files, that the file is
//! accepted, fails the spatial gate with the right condition, and still round-trips); then the
//! CLI's no-leftovers promise, allocation bounds, and randomly mutated files through `verify`.
//!
//! The big mutation run is `cargo test --release --test hostile -- --ignored --nocapture
//! mutation_big` (`RIGTRIP_MUTANTS` mutants, default 20000).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rigtrip::bytes::{OutOfBounds, Overlap};
use rigtrip::native::diagnose::Unrecognised;
use rigtrip::native::dmc3::{Dmc3Error, Label, Place, Problem};
use rigtrip::native::hie::{HieError, HEADER_LEN, PART_LEN};
use rigtrip::native::{Format, NativeFile, ReadError};
use rigtrip::ops::verify::{verify_bytes, Verdict};
use rigtrip::rig::{self, GateCondition, GateFailure, Rig};
use rigtrip::synth::rng::Rng;
use rigtrip::synth::{dmc3 as synth_dmc3, hie as synth_hie, motion as synth_motion};

// ---------------------------------------------------------------------------------------------
// Measuring what a call allocates (per thread: tests run in parallel)

/// The system allocator, with per-thread counters while [`measured`] runs on that thread.
struct Measuring;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize, grew: isize) {
    let _ = ARMED.try_with(|armed| {
        if armed.get() {
            let live = LIVE.with(|l| {
                l.set(l.get() + grew);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
            LARGEST.with(|m| m.set(m.get().max(size)));
        }
    });
}

// SAFETY: every call goes to `System` unchanged; only thread-local counters are touched.
unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            note(layout.size(), layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            note(layout.size(), layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        note(0, -(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            note(new_size, new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Measuring = Measuring;

/// (largest single allocation, most bytes live at once) while `f` ran on this thread.
fn measured<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    LARGEST.with(|m| m.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (
        r,
        LARGEST.with(Cell::get),
        PEAK.with(Cell::get).max(0) as usize,
    )
}

/// The fuzz targets' limits (fuzz/src/lib.rs): single allocations within 16x the input,
/// live memory within 64x, plus 64 KiB.
fn assert_bounded(what: &str, len: usize, largest: usize, peak: usize) {
    assert!(
        largest <= 16 * len + 65536,
        "{what}: single allocation of {largest} bytes for {len} input bytes"
    );
    assert!(
        peak <= 64 * len + 65536,
        "{what}: {peak} bytes live at once for {len} input bytes"
    );
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    b[at..at + bytes.len()].copy_from_slice(bytes);
}

fn put_u16(b: &mut [u8], at: usize, v: u16) {
    put(b, at, &v.to_le_bytes());
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    put(b, at, &v.to_le_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    put(b, at, &v.to_le_bytes());
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Reads `data`, expecting a rejection; checks that `verify` rejects it with the same one-line
/// message, and that the rejection allocated within bounds.
fn rejected(format: Option<Format>, data: &[u8]) -> ReadError {
    let (r, largest, peak) = measured(|| NativeFile::read(format, data));
    assert_bounded("rejection", data.len(), largest, peak);
    let e = match r {
        Ok(_) => panic!("accepted a hostile file"),
        Err(e) => e,
    };
    let msg = rigtrip::chain(&e);
    assert!(!msg.contains('\n'), "{msg}");
    assert_eq!(
        verify_bytes(format, data),
        Verdict::Rejected {
            message: msg.clone()
        }
    );
    e
}

/// Reads `data`, expecting it to be accepted: write(read(b)) == b, write(lower(lift(read(b))))
/// == b, and verify says identical. Returns the lifted rig.
fn accepted(format: Option<Format>, data: &[u8]) -> Rig {
    let (file, largest, peak) = measured(|| NativeFile::read(format, data).unwrap());
    assert_bounded("read", data.len(), largest, peak);
    assert_eq!(file.write().unwrap(), data, "write(read(b)) != b");
    let rig = rig::lift(file);
    let back = rig::lower(&rig).unwrap().write().unwrap();
    assert_eq!(back, data, "write(lower(lift(read(b)))) != b");
    assert!(
        matches!(verify_bytes(format, data), Verdict::Identical { .. }),
        "{:?}",
        verify_bytes(format, data)
    );
    rig
}

/// The gate failure of skeleton `s`, which must fail; export must refuse the rig with it.
fn gate_failure(rig: &Rig, s: usize) -> GateFailure {
    let g = rig.skeletons[s].gate.clone().unwrap_err();
    let e = rigtrip::gltf::export(rig, &rigtrip::gltf::ExportOptions::default()).unwrap_err();
    assert_eq!(
        e,
        rigtrip::gltf::ExportError::Gate {
            skeleton: rig.skeletons[s].name.clone(),
            failure: g.clone()
        }
    );
    assert!(rig.skeletons[s].world_matrices().is_err());
    g
}

fn oob(what: &str, offset: u64, len: u64, file_len: usize) -> OutOfBounds {
    OutOfBounds {
        what: what.into(),
        offset,
        len,
        file_len: file_len as u64,
    }
}

fn dmc3_err(e: Dmc3Error) -> ReadError {
    ReadError::Dmc3(e)
}

// ---------------------------------------------------------------------------------------------
// HIE

/// The DB22 sample and the offset of slot `s`'s hierarchy.
fn db22() -> Vec<u8> {
    synth_hie::sample_db22()
}

fn slot_offset(b: &[u8], s: usize) -> usize {
    u32::from_le_bytes([b[4 * s], b[4 * s + 1], b[4 * s + 2], b[4 * s + 3]]) as usize
}

#[test]
fn hie_truncated_table() {
    let b = db22();
    assert_eq!(
        rejected(Some(Format::Hie), &b[..0x3FF]),
        ReadError::Hie(HieError::TooShort { len: 0x3FF })
    );
    assert_eq!(
        rejected(Some(Format::Hie), &[]),
        ReadError::Hie(HieError::TooShort { len: 0 })
    );
    // Without a forced format a truncated table is not recognised at all.
    assert_eq!(
        rejected(None, &b[..0x3FF]),
        ReadError::Unrecognised(Unrecognised::Truncated(
            "truncated DBnnHIE.BIN: the slot table needs 0x400 bytes but the file ends at 0x3ff"
                .into()
        ))
    );
}

#[test]
fn hie_truncated_hierarchy() {
    let b = db22();
    let last = (0..256).map(|s| slot_offset(&b, s)).max().unwrap();
    let cut = &b[..b.len() - 1];
    let parts = i16::from_le_bytes([b[last], b[last + 1]]);
    let slot = (0..256).find(|&s| slot_offset(&b, s) == last).unwrap();
    assert_eq!(
        rejected(Some(Format::Hie), cut),
        ReadError::Hie(HieError::HierarchyPastEnd {
            slot,
            offset: last as u32,
            len: HEADER_LEN + PART_LEN * parts as u64,
            parts,
            file_len: cut.len() as u64,
        })
    );
}

#[test]
fn hie_slot_offsets_that_loop_into_the_table() {
    for target in [4u32, 0x10, 0x3FC] {
        let mut b = db22();
        put_u32(&mut b, 4 * 5, target);
        assert_eq!(
            rejected(Some(Format::Hie), &b),
            ReadError::Hie(HieError::SlotInTable {
                slot: 5,
                offset: target
            })
        );
    }
}

#[test]
fn hie_slot_offsets_at_and_past_the_end() {
    let b0 = db22();
    let len = b0.len();
    for target in [len as u32, len as u32 + 1, 0x7FFF_FFFF, 0xFFFF_FFFF] {
        let mut b = b0.clone();
        put_u32(&mut b, 4 * 200, target);
        assert_eq!(
            rejected(Some(Format::Hie), &b),
            ReadError::Hie(HieError::SlotPastEnd {
                slot: 200,
                offset: target,
                file_len: len as u64
            })
        );
    }
    // One byte before the end: the s16 count itself does not fit.
    let mut b = b0.clone();
    put_u32(&mut b, 4 * 200, len as u32 - 1);
    assert_eq!(
        rejected(Some(Format::Hie), &b),
        ReadError::Hie(HieError::HierarchyPastEnd {
            slot: 200,
            offset: len as u32 - 1,
            len: HEADER_LEN,
            parts: 0,
            file_len: len as u64
        })
    );
}

#[test]
fn hie_part_counts_near_the_type_limits() {
    let b0 = db22();
    let at = slot_offset(&b0, 2);
    for (count, expect) in [
        (
            i16::MAX,
            HieError::HierarchyPastEnd {
                slot: 2,
                offset: at as u32,
                len: HEADER_LEN + PART_LEN * 0x7FFF,
                parts: i16::MAX,
                file_len: b0.len() as u64,
            },
        ),
        (
            -1,
            HieError::NegativeParts {
                slot: 2,
                offset: at as u32,
                parts: -1,
            },
        ),
        (
            i16::MIN,
            HieError::NegativeParts {
                slot: 2,
                offset: at as u32,
                parts: i16::MIN,
            },
        ),
    ] {
        let mut b = b0.clone();
        put(&mut b, at, &count.to_le_bytes());
        assert_eq!(rejected(Some(Format::Hie), &b), ReadError::Hie(expect));
    }
}

#[test]
fn hie_overlapping_hierarchies() {
    let mut b = db22();
    let at = slot_offset(&b, 1);
    // Slot 9 points at slot 1's first part record, whose first u16 (unknown_00 = 0) reads as
    // an empty hierarchy inside slot 1's.
    put_u32(&mut b, 4 * 9, (at + HEADER_LEN as usize) as u32);
    let parts = i16::from_le_bytes([b[at], b[at + 1]]);
    assert_eq!(
        rejected(Some(Format::Hie), &b),
        ReadError::Hie(HieError::Overlap {
            first_slot: 1,
            first_offset: at as u32,
            first_end: (at as u64) + HEADER_LEN + PART_LEN * parts as u64,
            second_slot: 9,
            second_offset: at as u32 + HEADER_LEN as u32,
        })
    );
}

#[test]
fn hie_odd_depths_are_accepted_fail_the_gate_and_round_trip() {
    let b0 = db22();
    let at = slot_offset(&b0, 1);
    let depth_of = |k: usize| at + HEADER_LEN as usize + PART_LEN as usize * k + 2;
    let skeleton = |rig: &Rig| {
        rig.skeletons
            .iter()
            .position(|s| s.name == "slot1")
            .unwrap()
    };
    let cases: [(usize, u16, GateCondition, usize); 4] = [
        (0, 0, GateCondition::FirstDepthIsOne, 0),
        (3, 0, GateCondition::DepthAtLeastOne, 3),
        (3, 9, GateCondition::DepthStepAtMostOne, 3),
        (0, u16::MAX, GateCondition::FirstDepthIsOne, 0),
    ];
    for (part, depth, condition, joint) in cases {
        let mut b = b0.clone();
        put_u16(&mut b, depth_of(part), depth);
        let rig = accepted(Some(Format::Hie), &b);
        let g = gate_failure(&rig, skeleton(&rig));
        assert_eq!((g.condition, g.joint), (condition, Some(joint)), "{g}");
    }
}

// ---------------------------------------------------------------------------------------------
// DMC3 MOD/SCM containers

#[test]
fn dmc3_bad_magic_and_truncated_header() {
    let mut b = synth_dmc3::sample_mod();
    b[2] = b'X';
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::BadMagic { found: *b"MOX " })
    );
    // Misidentified: a MOD with its magic damaged is not recognised without --format.
    assert_eq!(
        rejected(None, &b),
        ReadError::Unrecognised(Unrecognised::Unknown)
    );
    let b = synth_dmc3::sample_mod();
    for len in [4usize, 0x3F] {
        assert_eq!(
            rejected(Some(Format::Dmc3), &b[..len]),
            dmc3_err(Dmc3Error::OutOfBounds(oob(
                "container header",
                0,
                0x40,
                len
            )))
        );
    }
}

#[test]
fn dmc3_counts_near_the_type_limits() {
    // 255 objects in a 0x1c70-byte SCM: record 112 is the first that does not fit.
    let mut b = synth_dmc3::sample_scm();
    assert_eq!(b.len(), 0x1c70);
    b[0x10] = 0xFF;
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            "object record 112",
            0x1c40,
            0x40,
            0x1c70
        )))
    );
    // 0xFFFF vertices in the first mesh.
    let mut b = synth_dmc3::sample_mod();
    let mesh = u64_at(&b, 0x48) as usize;
    let positions = u64_at(&b, mesh + 0x10);
    put_u16(&mut b, mesh, 0xFFFF);
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            "position stream of object 0 mesh 0 (65535 vertices)",
            positions,
            65535 * 12,
            b.len()
        )))
    );
    // 255 mesh records, in a file cut shorter than they are.
    let mut b = synth_dmc3::sample_mod();
    b[0x40] = 0xFF;
    b.truncate(0x4000);
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            "mesh records of object 0",
            mesh as u64,
            255 * 0x50,
            b.len()
        )))
    );
    // 255 bones for a 49-node block near the end of the file (its workspaces follow): the
    // arrays fit, the records not.
    let mut b = synth_dmc3::sample_mod();
    let block = u64_at(&b, 0x20);
    let rel = u32::from_le_bytes([
        b[block as usize + 0xC],
        b[block as usize + 0xD],
        b[block as usize + 0xE],
        b[block as usize + 0xF],
    ]) as u64;
    b[0x11] = 0xFF;
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            &format!("transform records of the block at {block:#x} (rel {rel:#x})"),
            block + rel,
            255 * 0x20,
            b.len()
        )))
    );
}

#[test]
fn dmc3_offsets_near_the_type_limits() {
    let b0 = synth_dmc3::sample_mod();
    let len = b0.len();
    let mesh = u64_at(&b0, 0x48) as usize;
    for far in [u64::MAX, u64::MAX - 0x10, 1 << 63, len as u64] {
        // Mesh records of object 0.
        let mut b = b0.clone();
        put_u64(&mut b, 0x48, far);
        assert_eq!(
            rejected(Some(Format::Dmc3), &b),
            dmc3_err(Dmc3Error::OutOfBounds(oob(
                "mesh records of object 0",
                far,
                2 * 0x50,
                len
            )))
        );
        // The normal stream of object 0 mesh 0.
        let mut b = b0.clone();
        put_u64(&mut b, mesh + 0x18, far);
        let vc = u16::from_le_bytes([b[mesh], b[mesh + 1]]);
        assert_eq!(
            rejected(Some(Format::Dmc3), &b),
            dmc3_err(Dmc3Error::OutOfBounds(oob(
                &format!("normal stream of object 0 mesh 0 ({vc} vertices)"),
                far,
                vc as u64 * 12,
                len
            )))
        );
        // The block.
        let mut b = b0.clone();
        put_u64(&mut b, 0x20, far);
        assert_eq!(
            rejected(Some(Format::Dmc3), &b),
            dmc3_err(Dmc3Error::OutOfBounds(oob(
                "node-domain block header",
                far,
                0x20,
                len
            )))
        );
    }
}

#[test]
fn dmc3_offsets_that_loop_back() {
    let b0 = synth_dmc3::sample_mod();
    let mesh = u64_at(&b0, 0x48);
    let vc = u16::from_le_bytes([b0[mesh as usize], b0[mesh as usize + 1]]) as u64;
    // A stream pointing at the container header.
    let mut b = b0.clone();
    put_u64(&mut b, mesh as usize + 0x10, 0);
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::Overlap(Overlap {
            first: "container header".into(),
            first_start: 0,
            first_end: 0x40,
            second: format!("position stream of object 0 mesh 0 ({vc} vertices)"),
            second_start: 0,
            second_end: vc * 12,
        }))
    );
    // A stream pointing at its own mesh record.
    let mut b = b0.clone();
    put_u64(&mut b, mesh as usize + 0x20, mesh);
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::Overlap(Overlap {
            first: "mesh record 0 of object 0".into(),
            first_start: mesh,
            first_end: mesh + 0x50,
            second: format!("UV stream of object 0 mesh 0 ({vc} vertices)"),
            second_start: mesh,
            second_end: mesh + vc * 4,
        }))
    );
    // The block named at the object records: its rels are object-record bytes, so it is the
    // block's own bounds check that refuses it.
    let mut b = b0.clone();
    put_u64(&mut b, 0x20, 0x40);
    let rel = u32::from_le_bytes([b[0x40], b[0x41], b[0x42], b[0x43]]) as u64;
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            &format!("parent array of the block at 0x40 (rel {rel:#x})"),
            0x40 + rel,
            49,
            b.len()
        )))
    );
}

#[test]
fn dmc3_objects_sharing_mesh_records_are_refused_before_decoding() {
    // 255 objects that all name the same 255 mesh records: before the fix the reader built
    // 65025 meshes (~20 MB) from a 36 KB file, and only then found the overlap.
    let records = 0x40 + 255 * 0x40;
    let mut b = vec![0u8; records + 255 * 0x50];
    put(&mut b, 0, b"MOD ");
    b[0x10] = 0xFF;
    for i in 0..255 {
        let at = 0x40 + 0x40 * i;
        b[at] = 0xFF;
        put_u64(&mut b, at + 8, records as u64);
    }
    let end = records as u64 + 255 * 0x50;
    assert_eq!(
        rejected(Some(Format::Dmc3), &b),
        dmc3_err(Dmc3Error::Overlap(Overlap {
            first: "mesh records of object 0".into(),
            first_start: records as u64,
            first_end: end,
            second: "mesh records of object 1".into(),
            second_start: records as u64,
            second_end: end,
        }))
    );
}

/// A MOD/SCM with one mesh whose strip flags are all set: accepted, no triangles, round trip.
#[test]
fn dmc3_strips_with_every_flag_set() {
    // MOD: bit 15 of every weight (and every other bit too: 0xFFFF).
    let mut b = synth_dmc3::sample_mod();
    let f = NativeFile::read(Some(Format::Dmc3), &b).unwrap();
    let NativeFile::Dmc3(f) = f else { panic!() };
    let c = f.container.unwrap();
    for obj in &c.objects {
        for m in &obj.meshes {
            let rigtrip::native::dmc3::MeshVariant::Mod(v) = &m.record.variant else {
                panic!()
            };
            for k in 0..m.vertex_count() {
                put_u16(&mut b, v.weight_offset as usize + 2 * k, 0xFFFF);
            }
        }
    }
    let rig = accepted(Some(Format::Dmc3), &b);
    assert!(rig.skeletons[0].gate.is_ok());
    let meshes = rig.meshes();
    assert_eq!(meshes.len(), 3);
    assert!(meshes.iter().all(|m| m.triangles.is_empty()));
    let e = rigtrip::gltf::export(&rig, &rigtrip::gltf::ExportOptions::default()).unwrap();
    assert!(e.report.meshes[..3].iter().all(|m| m.gltf_mesh.is_none()));

    // SCM: every colour flag byte 0xFF.
    let mut b = synth_dmc3::sample_scm();
    let NativeFile::Dmc3(f) = NativeFile::read(Some(Format::Dmc3), &b).unwrap() else {
        panic!()
    };
    for obj in &f.container.unwrap().objects {
        for m in &obj.meshes {
            let rigtrip::native::dmc3::MeshVariant::Scm(v) = &m.record.variant else {
                panic!()
            };
            for k in 0..m.vertex_count() {
                b[v.colour_offset as usize + 4 * k + 3] = 0xFF;
            }
        }
    }
    let rig = accepted(Some(Format::Dmc3), &b);
    assert!(rig.meshes().iter().all(|m| m.triangles.is_empty()));
    assert!(rig.skeletons.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Bare node-domain blocks (the EFM sample: 8 nodes at 0x35)

const EFM_AT: usize = 0x35;

fn efm() -> (Vec<u8>, Format) {
    let (b, offset, nodes) = synth_dmc3::sample_efm();
    assert_eq!((offset, nodes), (EFM_AT as u64, 8));
    (b, Format::Block { offset, nodes })
}

/// Absolute offsets of the EFM block's arrays: (parent, order, transforms).
fn efm_regions(b: &[u8]) -> (usize, usize, usize) {
    let rel = |k: usize| {
        u32::from_le_bytes([
            b[EFM_AT + 4 * k],
            b[EFM_AT + 4 * k + 1],
            b[EFM_AT + 4 * k + 2],
            b[EFM_AT + 4 * k + 3],
        ]) as usize
            + EFM_AT
    };
    (rel(0), rel(1), rel(3))
}

#[test]
fn block_counts_and_offsets_near_the_type_limits() {
    let (b, _) = efm();
    let len = b.len();
    assert_eq!(
        rejected(
            Some(Format::Block {
                offset: EFM_AT as u64,
                nodes: usize::MAX
            }),
            &b
        ),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            "parent array of the block at 0x35 (rel 0x20)",
            0x55,
            usize::MAX as u64,
            len
        )))
    );
    assert_eq!(
        rejected(
            Some(Format::Block {
                offset: u64::MAX,
                nodes: 8
            }),
            &b
        ),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            "node-domain block header",
            u64::MAX,
            0x20,
            len
        )))
    );
    // A rel field of 0xFFFFFFFF.
    let mut m = b.clone();
    put_u32(&mut m, EFM_AT + 0x0C, u32::MAX);
    assert_eq!(
        rejected(
            Some(Format::Block {
                offset: EFM_AT as u64,
                nodes: 8
            }),
            &m
        ),
        dmc3_err(Dmc3Error::OutOfBounds(oob(
            "transform records of the block at 0x35 (rel 0xffffffff)",
            EFM_AT as u64 + 0xFFFF_FFFF,
            0x100,
            len
        )))
    );
}

#[test]
fn block_regions_that_overlap_or_loop_into_the_header() {
    let (b, format) = efm();
    let (parent, _, _) = efm_regions(&b);
    // The order array four bytes into the parent array.
    let mut m = b.clone();
    put_u32(&mut m, EFM_AT + 4, (parent - EFM_AT + 4) as u32);
    let p = parent as u64;
    assert_eq!(
        rejected(Some(format), &m),
        dmc3_err(Dmc3Error::Overlap(Overlap {
            first: "parent array".into(),
            first_start: p,
            first_end: p + 8,
            second: "order array".into(),
            second_start: p + 4,
            second_end: p + 12,
        }))
    );
    // The parent array pointing back at the block header.
    let mut m = b.clone();
    put_u32(&mut m, EFM_AT, 0);
    let h = EFM_AT as u64;
    assert_eq!(
        rejected(Some(format), &m),
        dmc3_err(Dmc3Error::Overlap(Overlap {
            first: "parent array".into(),
            first_start: h,
            first_end: h + 8,
            second: "block header".into(),
            second_start: h,
            second_end: h + 0x20,
        }))
    );
}

#[test]
fn block_nan_and_inf_transforms_are_accepted_and_fail_the_gate() {
    let (b, format) = efm();
    let (_, _, transforms) = efm_regions(&b);
    for (node, field, bits, name) in [
        (3usize, 0usize, 0x7FC0_0001u32, "tx"),
        (5, 0x14, 0x7F80_0000, "ry"),
        (0, 0x18, 0xFF80_0000, "rz"),
        (7, 0x08, 0xFFFF_FFFF, "tz"),
    ] {
        let mut m = b.clone();
        put_u32(&mut m, transforms + 0x20 * node + field, bits);
        let rig = accepted(Some(format), &m);
        let g = gate_failure(&rig, 0);
        assert_eq!(
            (g.condition, g.joint),
            (GateCondition::FiniteTransforms, Some(node)),
            "{g}"
        );
        assert!(
            g.detail.starts_with(&format!("{name} of node {node} is ")),
            "{g}"
        );
        assert!(g.detail.ends_with(&format!("(bits {bits:#010x})")), "{g}");
    }
    // The magnitude (+0x0C) and +0x1C are not part of the local transform: NaN there passes.
    let mut m = b.clone();
    put_u32(&mut m, transforms + 0x0C, 0x7FC0_0000);
    put_u32(&mut m, transforms + 0x1C, 0xFF80_0000);
    assert!(accepted(Some(format), &m).skeletons[0].gate.is_ok());
}

#[test]
fn block_nan_angles_of_different_payloads_round_trip() {
    // Found by the mutation run: rx a positive quiet NaN and ry a negative signalling NaN.
    // The lift's quaternion arithmetic can give such a joint a NaN of another sign or payload
    // at another call site, so lowering took the unchanged joint for an edit and refused it
    // ("DQuat(NaN, NaN, NaN, NaN) is not a finite non-zero quaternion"): verify said "differ".
    let (b, format) = efm();
    let (_, _, transforms) = efm_regions(&b);
    let nans = [
        0x7FD4_5543u32,
        0xFFB3_35BF,
        0x7F80_0001,
        0xFFC0_0000,
        0x7FC0_0000,
    ];
    let mut cases = vec![[0x7FD4_5543, 0xFFB3_35BF, 0x85E7_9A1A]];
    for (i, &x) in nans.iter().enumerate() {
        for &y in &nans[i..] {
            cases.push([x, y, 0x3F00_0000]);
            cases.push([0x3F00_0000, x, y]);
            cases.push([y, 0xBF00_0000, x]);
        }
    }
    for angles in cases {
        for node in [0usize, 3] {
            let mut m = b.clone();
            for (k, a) in angles.iter().enumerate() {
                put_u32(&mut m, transforms + 0x20 * node + 0x10 + 4 * k, *a);
            }
            // Translations NaN as well, with different payloads.
            put_u32(&mut m, transforms + 0x20 * node, 0xFFB3_35BF);
            put_u32(&mut m, transforms + 0x20 * node + 4, 0x7FD4_5543);
            let rig = accepted(Some(format), &m);
            let g = gate_failure(&rig, 0);
            assert_eq!(
                g.condition,
                GateCondition::FiniteTransforms,
                "{angles:x?}: {g}"
            );
        }
    }
}

#[test]
fn block_parent_cycles_and_bad_orders_are_accepted_and_fail_the_gate() {
    let (b, format) = efm();
    let (parent, order, _) = efm_regions(&b);
    let node_at = |i: usize| b[order + i] as i8;
    // Positions 1 and 2 name each other's nodes as parents: a cycle.
    let mut m = b.clone();
    m[parent + 1] = node_at(2) as u8;
    m[parent + 2] = node_at(1) as u8;
    let rig = accepted(Some(format), &m);
    let g = gate_failure(&rig, 0);
    assert_eq!(g.condition, GateCondition::Acyclic, "{g}");
    assert!(g.detail.ends_with("is its own ancestor"), "{g}");
    // A node its own parent.
    let mut m = b.clone();
    m[parent + 4] = node_at(4) as u8;
    let g = gate_failure(&accepted(Some(format), &m), 0);
    assert_eq!(
        (g.condition, g.joint),
        (GateCondition::Acyclic, Some(node_at(4) as usize)),
        "{g}"
    );
    // An order array that is not a permutation: a repeat, and an index past the node count.
    let mut m = b.clone();
    m[order + 2] = m[order + 1];
    let g = gate_failure(&accepted(Some(format), &m), 0);
    assert_eq!(
        (g.condition, g.position),
        (GateCondition::OrderIsPermutation, Some(2)),
        "{g}"
    );
    let mut m = b.clone();
    m[order + 6] = 200;
    let g = gate_failure(&accepted(Some(format), &m), 0);
    assert_eq!(
        (g.condition, g.position, g.detail.as_str()),
        (
            GateCondition::OrderIsPermutation,
            Some(6),
            "node 200 at position 6, but there are 8 nodes"
        ),
        "{g}"
    );
    // Parents that name no node.
    for p in [8i8, 127, -2, -128] {
        let mut m = b.clone();
        m[parent + 3] = p as u8;
        let g = gate_failure(&accepted(Some(format), &m), 0);
        assert_eq!(
            (g.condition, g.position),
            (GateCondition::ParentInRange, Some(3)),
            "{p}: {g}"
        );
    }
    // Every byte of both arrays 0xFF.
    let mut m = b.clone();
    m[parent..parent + 8].fill(0xFF);
    m[order..order + 8].fill(0xFF);
    let g = gate_failure(&accepted(Some(format), &m), 0);
    assert_eq!(g.condition, GateCondition::OrderIsPermutation, "{g}");
}

#[test]
fn block_with_zero_nodes_is_accepted_and_fails_the_gate() {
    let (b, _) = efm();
    let rig = accepted(
        Some(Format::Block {
            offset: EFM_AT as u64,
            nodes: 0,
        }),
        &b,
    );
    assert_eq!(rig.skeletons[0].joints.len(), 0);
    let g = rig.skeletons[0].gate.clone().unwrap_err();
    assert_eq!(g.condition, GateCondition::RootFirst);
}

#[test]
fn lowering_a_payload_with_a_far_extent_does_not_allocate_it() {
    // A payload whose rels put the old extent 4 GiB past the block (as a glTF's extras can),
    // with a joint removed so that the block is laid out anew, and something after the old
    // extent: before the fix the freed 4 GiB became a zero gap, allocated.
    let (b, format) = efm();
    let mut rig = rigtrip::ops::load(Some(format), &b).unwrap();
    assert!(rig.skeletons[0].joints.iter().all(|j| j.parent != Some(7)));
    rig.skeletons[0].joints.pop();
    let rigtrip::rig::SkeletonPayload::Dmc3(p) = &mut rig.skeletons[0].native else {
        panic!()
    };
    p.rels.transform = 0xFFFF_FF00;
    let rigtrip::rig::Source::Dmc3(shell) = &mut rig.source else {
        panic!()
    };
    shell.file.gaps.push(rigtrip::bytes::Gap {
        offset: 0x2_0000_0000,
        bytes: vec![1],
    });
    let (r, largest, peak) = measured(|| rig::lower(&rig));
    assert_bounded("lower", b.len(), largest, peak);
    assert_eq!(
        r.unwrap_err(),
        rig::LowerError::Structure {
            skeleton: 0,
            problem: "the block at 0x35 shrinks from 0x100000000 to 0x120 bytes (8 -> 7 nodes); \
                      the freed bytes would be zero-filled"
                .into()
        }
    );
}

// ---------------------------------------------------------------------------------------------
// glTF import: broken extras, wrong types, missing buffers, far offsets

use rigtrip::gltf::import::{import_slice, ContainerProblem, ImportError, ImportOptions};
use rigtrip::gltf::DataError;
use rigtrip::native::WriteError;
use rigtrip::rig::extras::ExtrasError;
use serde_json::{json, Value};

/// The export of a native file as glTF JSON (buffer embedded).
fn gltf_of(format: Option<Format>, native: &[u8]) -> Value {
    let rig = rigtrip::ops::load(format, native).unwrap();
    let e = rigtrip::gltf::export(&rig, &rigtrip::gltf::ExportOptions::default()).unwrap();
    serde_json::from_slice(&rigtrip::gltf::to_gltf(&e).unwrap()).unwrap()
}

/// The export of a native file as GLB.
fn glb_of(format: Option<Format>, native: &[u8]) -> Vec<u8> {
    let rig = rigtrip::ops::load(format, native).unwrap();
    rigtrip::gltf::to_glb(
        &rigtrip::gltf::export(&rig, &rigtrip::gltf::ExportOptions::default()).unwrap(),
    )
    .unwrap()
}

/// Imports `bytes`, expecting a refusal with a one-line message and bounded allocations.
fn import_refused(bytes: &[u8]) -> ImportError {
    let (r, largest, peak) = measured(|| import_slice(bytes, None, &ImportOptions::default()));
    assert_bounded("import", bytes.len(), largest, peak);
    let e = match r {
        Ok(i) => panic!("imported a hostile glTF ({} bytes)", i.bytes.len()),
        Err(e) => e,
    };
    assert!(!e.to_string().contains('\n'), "{e}");
    e
}

fn import_json_refused(v: &Value) -> ImportError {
    import_refused(&serde_json::to_vec(v).unwrap())
}

fn extras_err(pointer: &str, problem: &str) -> ImportError {
    ImportError::Extras(ExtrasError {
        pointer: pointer.into(),
        problem: problem.into(),
    })
}

fn scene_extras(v: &mut Value) -> &mut Value {
    &mut v["scenes"][0]["extras"]["rigtrip"]
}

#[test]
fn gltf_unedited_exports_import_to_the_same_bytes() {
    // The baseline the refusals below are measured against.
    let (efm, offset, nodes) = synth_dmc3::sample_efm();
    for (format, native) in [
        (None, db22()),
        (None, synth_dmc3::sample_mod()),
        (Some(Format::Block { offset, nodes }), efm),
    ] {
        let j = serde_json::to_vec(&gltf_of(format, &native)).unwrap();
        let i = import_slice(&j, None, &ImportOptions::default()).unwrap();
        assert_eq!(i.bytes, native);
        let i = import_slice(&glb_of(format, &native), None, &ImportOptions::default()).unwrap();
        assert_eq!(i.bytes, native);
    }
}

#[test]
fn gltf_broken_extras() {
    let j = gltf_of(None, &db22());
    let mut m = j.clone();
    *scene_extras(&mut m) = json!("garbage");
    assert_eq!(
        import_json_refused(&m),
        extras_err(
            "/scenes/0/extras/rigtrip",
            "expected an object, found \"garbage\""
        )
    );
    let mut m = j.clone();
    m["scenes"][0].as_object_mut().unwrap().remove("extras");
    assert_eq!(import_json_refused(&m), ImportError::NoSceneExtras);
    for n in m["nodes"].as_array_mut().unwrap() {
        n.as_object_mut().unwrap().remove("extras");
    }
    assert_eq!(import_json_refused(&m), ImportError::NoExtras);
    for (schema, found) in [
        (json!(2), "2"),
        (json!("one"), "\"one\""),
        (json!(null), "null"),
    ] {
        let mut m = j.clone();
        scene_extras(&mut m)["schema"] = schema;
        assert_eq!(
            import_json_refused(&m),
            ImportError::Schema {
                found: found.into()
            }
        );
    }
}

#[test]
fn gltf_wrong_types_in_extras() {
    let j = gltf_of(None, &db22());
    let mut m = j.clone();
    scene_extras(&mut m)["format"] = json!(7);
    assert_eq!(
        import_json_refused(&m),
        extras_err("/scenes/0/extras/rigtrip/format", "missing or not a string")
    );
    let mut m = j.clone();
    scene_extras(&mut m)["source"]["slots"] = json!("x");
    assert_eq!(
        import_json_refused(&m),
        extras_err(
            "/scenes/0/extras/rigtrip/source",
            "invalid type: string \"x\", expected a sequence"
        )
    );
    // A joint's u32 payload field as a JSON number instead of a 0x-hex string.
    let mut m = j.clone();
    let node = m["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["extras"]["rigtrip"].get("joint").is_some())
        .unwrap();
    m["nodes"][node]["extras"]["rigtrip"]["native"]["model"] = json!(12);
    assert_eq!(
        import_json_refused(&m),
        extras_err(
            &format!("/nodes/{node}/extras/rigtrip/native"),
            "invalid type: integer `12`, expected a string"
        )
    );
}

#[test]
fn gltf_missing_and_short_buffers() {
    let native = synth_dmc3::sample_mod();
    let j = gltf_of(None, &native);
    let len = j["buffers"][0]["byteLength"].as_u64().unwrap();
    let mut m = j.clone();
    m.as_object_mut().unwrap().remove("buffers");
    assert_eq!(
        import_json_refused(&m),
        ImportError::Data(DataError::Accessor {
            accessor: 1,
            problem: "buffer view 1: buffer 0 does not exist".into()
        })
    );
    let buffer = |problem: String| ImportError::Data(DataError::Buffer { buffer: 0, problem });
    let mut m = j.clone();
    m["buffers"][0].as_object_mut().unwrap().remove("uri");
    assert_eq!(
        import_json_refused(&m),
        buffer("has no URI and is not the binary chunk of a GLB (buffer 0 of a .glb)".into())
    );
    let mut m = j.clone();
    m["buffers"][0]["uri"] = json!("x.bin");
    assert_eq!(
        import_json_refused(&m),
        buffer(
            "the data is in the separate file \"x.bin\", but no folder was given to find it in"
                .into()
        )
    );
    let mut m = j.clone();
    m["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,AAAA");
    assert_eq!(
        import_json_refused(&m),
        buffer(format!("holds 3 bytes, but its byteLength is {len}"))
    );
    // GLB: cut short, of another version, and without its binary chunk.
    let glb = glb_of(None, &native);
    assert_eq!(
        import_refused(&glb[..glb.len() - 1]),
        ImportError::Container(ContainerProblem::GlbLength {
            declared: glb.len(),
            file: glb.len() - 1
        })
    );
    let mut v1 = glb.clone();
    v1[4] = 1;
    assert_eq!(
        import_refused(&v1),
        ImportError::Container(ContainerProblem::GlbVersion(1))
    );
    let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    let mut no_bin = glb[..20 + json_len].to_vec();
    let total = no_bin.len() as u32;
    no_bin[8..12].copy_from_slice(&total.to_le_bytes());
    assert_eq!(
        import_refused(&no_bin),
        buffer("has no URI and is not the binary chunk of a GLB (buffer 0 of a .glb)".into())
    );
}

#[test]
fn gltf_extras_with_far_offsets_are_refused_without_allocating() {
    // Before the fixes: a 4 GiB file (hierarchy at 0xfffffff0), an abort (gap at 2^48), an
    // overflow panic (padding at u64::MAX), a 4 GiB block (transform rel 0xffffffff).
    let j = gltf_of(None, &db22());
    let hie = |e: HieError| ImportError::Write(WriteError::Hie(e));
    let mut m = j.clone();
    scene_extras(&mut m)["skeletons"][0]["native"]["offset"] = json!("0xfffffff0");
    assert_eq!(
        scene_extras(&mut m)["skeletons"][0]["native"]["span"],
        "0x000000ac"
    );
    assert_eq!(
        import_json_refused(&m),
        hie(HieError::Holes {
            covered: 0x79C,
            end: 0xFFFF_FFF0 + 0xAC
        })
    );
    for (offset, len, b64, covered, end) in [
        (
            "0xfffffffffff0",
            1,
            "AA==",
            0x79C - 8 + 1,
            0xFFFF_FFFF_FFF1u64,
        ),
        ("0xffffffffffffffff", 2, "AAA=", 0x79C - 8 + 2, u64::MAX),
    ] {
        let mut m = j.clone();
        assert_eq!(
            scene_extras(&mut m)["source"]["gaps"],
            json!([{"bytes": "AAAAAAAAAAA=", "offset": "0x738"}])
        );
        scene_extras(&mut m)["source"]["gaps"] = json!([{ "offset": offset, "bytes": b64 }]);
        assert_eq!(
            import_json_refused(&m),
            hie(HieError::Holes { covered, end }),
            "{len}"
        );
    }

    let (efm, offset, nodes) = synth_dmc3::sample_efm();
    let j = gltf_of(Some(Format::Block { offset, nodes }), &efm);
    let dmc3 = |what: Place, problem: Problem, text: &str| {
        assert_eq!(problem.to_string(), text);
        ImportError::Write(WriteError::Dmc3(Dmc3Error::Inconsistent { what, problem }))
    };
    let mut m = j.clone();
    scene_extras(&mut m)["skeletons"][0]["native"]["offset"] = json!("0xfffffffffffff000");
    assert_eq!(
        import_json_refused(&m),
        dmc3(
            Place::File,
            Problem::Holes {
                covered: 0x1b8,
                end: 0xfffffffffffff140
            },
            "structures cover 0x1b8 bytes but end at 0xfffffffffffff140; the holes would be zero-filled"
        )
    );
    let mut m = j.clone();
    scene_extras(&mut m)["skeletons"][0]["native"]["padding"] =
        json!([{"offset": "0xffffffffffffffff", "bytes": "AA=="}]);
    assert_eq!(
        import_json_refused(&m),
        dmc3(
            Place::Is(Label::Block(0x35)),
            Problem::PaddingOutside {
                index: 0,
                start: u64::MAX,
                end: u64::MAX,
                extent: 0x140
            },
            "padding at rel 0xffffffffffffffff..0xffffffffffffffff lies outside the block's extent 0x140"
        )
    );
    let mut m = j.clone();
    scene_extras(&mut m)["source"]["file"]["gaps"] =
        json!([{"offset": "0xffffffffffffffff", "bytes": "AA=="}]);
    assert_eq!(
        import_json_refused(&m),
        dmc3(
            Place::File,
            Problem::Holes {
                covered: 0x141,
                end: u64::MAX
            },
            "structures cover 0x141 bytes but end at 0xffffffffffffffff; the holes would be zero-filled"
        )
    );
    let mut m = j.clone();
    scene_extras(&mut m)["skeletons"][0]["native"]["rels"]["transform"] = json!("0xffffffff");
    assert_eq!(
        import_json_refused(&m),
        dmc3(
            Place::Is(Label::Block(0x35)),
            Problem::BlockHoles {
                covered: 0x140,
                extent: 0x1000000ff
            },
            "its regions and padding cover 0x140 bytes but its extent is 0x1000000ff; the holes would be zero-filled"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// The CLI: a failed export leaves nothing behind and never touches its input

/// Runs the binary with a deadline; a hang or a signal fails the test.
fn run_bin(args: &[&str], deadline: Duration) -> (i32, String, String) {
    let out = common::output_within(common::rigtrip().args(args), deadline);
    match out.status.code() {
        Some(c) => (c, common::text(&out.stdout), common::text(&out.stderr)),
        None => panic!(
            "rigtrip {args:?} died by a signal: {:?}\n{}",
            out.status,
            common::text(&out.stderr)
        ),
    }
}

/// `export` of `input` must exit 2 with one error line, leave `dir` holding only the input,
/// and leave the input's bytes as they were.
fn export_fails_cleanly(dir: &Path, input: &Path, extra: &[&str], expect: &str) {
    let before = std::fs::read(input).unwrap();
    for out in ["out.glb", "out.gltf"] {
        let out = dir.join(out);
        let mut args = vec![
            "export",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run_bin(&args, Duration::from_secs(60));
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert_eq!(stdout, "");
        assert!(
            stderr.starts_with("rigtrip: error: ") && stderr.contains(expect),
            "{stderr}"
        );
        assert!(!out.exists(), "{} was left behind", out.display());
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            vec![input.file_name().unwrap().to_string_lossy().into_owned()]
        );
        assert_eq!(std::fs::read(input).unwrap(), before, "the input changed");
    }
}

#[test]
fn cli_export_of_a_gate_failing_file_leaves_nothing() {
    let dir = common::scratch("gate");
    let (mut b, _) = efm();
    let (_, _, transforms) = efm_regions(&b);
    put_u32(&mut b, transforms + 0x20 * 3, 0x7FC0_0001);
    let input = dir.join("effect.efm");
    std::fs::write(&input, &b).unwrap();
    export_fails_cleanly(
        &dir,
        &input,
        &["--block-at", "0x35", "--nodes", "8"],
        "spatial gate: every local transform is complete and finite does not hold",
    );
    // A HIE whose depths fail the gate.
    let dir = common::scratch("gate-hie");
    let mut b = db22();
    let at = slot_offset(&b, 1);
    put_u16(&mut b, at + HEADER_LEN as usize + 2, 0);
    let input = dir.join("DB22HIE.BIN");
    std::fs::write(&input, &b).unwrap();
    export_fails_cleanly(
        &dir,
        &input,
        &[],
        "the first part has depth 1 does not hold",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_export_of_a_malformed_file_leaves_nothing() {
    let dir = common::scratch("malformed");
    let b = db22();
    let input = dir.join("DB22HIE.BIN");
    std::fs::write(&input, &b[..b.len() - 1]).unwrap();
    export_fails_cleanly(
        &dir,
        &input,
        &["--format", "hie"],
        "runs past the end of the file",
    );
    let mut m = synth_dmc3::sample_mod();
    put_u64(&mut m, 0x20, u64::MAX);
    let input2 = dir.join("x.mod");
    std::fs::remove_file(&input).unwrap();
    std::fs::write(&input2, &m).unwrap();
    export_fails_cleanly(
        &dir,
        &input2,
        &[],
        "node-domain block header at offset 0xffffffffffffffff",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Random mutants through verify

/// Values a u32 field is most likely to mishandle.
const BOUNDARY: [u32; 18] = [
    0,
    1,
    2,
    3,
    4,
    0x20,
    0x7F,
    0x80,
    0xFF,
    0x3FF,
    0x400,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

/// Applies one to three random mutations: bit flips, byte sets, truncation, insertion, and u32
/// overwrites with near-boundary values (constants, and values near the file length or the
/// field's own offset). Half of them aim at the first 0x440 bytes, where tables and headers are.
pub fn mutate(rng: &mut Rng, data: &[u8]) -> Vec<u8> {
    let mut b = data.to_vec();
    for _ in 0..1 + rng.index(3) {
        let len = b.len();
        let pos = |rng: &mut Rng, len: usize| {
            if len == 0 {
                0
            } else if rng.chance(0.5) {
                rng.index(len.min(0x440))
            } else {
                rng.index(len)
            }
        };
        match rng.index(6) {
            0 if len > 0 => {
                let p = pos(rng, len);
                b[p] ^= 1 << rng.index(8);
            }
            1 if len > 0 => {
                let p = pos(rng, len);
                b[p] = [0, 0xFF, 0x7F, 0x80, 1, rng.next_u32() as u8][rng.index(6)];
            }
            2 => {
                let keep = if rng.chance(0.5) {
                    len.saturating_sub(1 + rng.index(16))
                } else {
                    rng.index(len + 1)
                };
                b.truncate(keep);
            }
            3 => {
                let p = if len == 0 {
                    0
                } else {
                    pos(rng, len + 1).min(len)
                };
                let n = 1 + rng.index(8);
                let ins = rng.bytes(n);
                b.splice(p..p, ins);
            }
            _ if len >= 4 => {
                let p = pos(rng, len - 3);
                let v = match rng.index(4) {
                    0 | 1 => BOUNDARY[rng.index(BOUNDARY.len())],
                    2 => (len as u32).wrapping_add(rng.range(-4, 4) as u32),
                    _ => (p as u32).wrapping_add(rng.range(-4, 4) as u32),
                };
                b[p..p + 4].copy_from_slice(&v.to_le_bytes());
            }
            _ => b.push(rng.next_u32() as u8),
        }
    }
    b
}

/// The valid files mutants are made from: (name suffix for the CLI, format, bytes).
fn mutant_sources() -> Vec<(&'static str, Option<Format>, Vec<u8>)> {
    let (efm, offset, nodes) = synth_dmc3::sample_efm();
    let block = Some(Format::Block { offset, nodes });
    let mut v = vec![
        ("DB22HIE.BIN", None, synth_hie::sample_db22()),
        ("mod", None, synth_dmc3::sample_mod()),
        ("scm", None, synth_dmc3::sample_scm()),
        ("efm", block, efm),
    ];
    v.push(("mot", None, synth_motion::sample_mot()));
    v.push(("pac", None, synth_motion::sample_pac()));
    for seed in 0..6 {
        v.push(("mot", None, synth_motion::random_mot(seed)));
        v.push(("pac", None, synth_motion::random_pac(seed)));
        v.push(("HIE.BIN", None, synth_hie::random(seed)));
        v.push(("mod", None, synth_dmc3::random_mod(seed)));
        v.push(("scm", None, synth_dmc3::random_scm(seed)));
    }
    v
}

/// Counts over a mutation run.
#[derive(Debug, Default)]
struct Tally {
    identical: usize,
    rejected: usize,
}

/// Feeds `per_source` mutants of every source to `verify_bytes`; any "differ" fails.
fn mutate_through_library(seed: u64, per_source: usize) -> Tally {
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for (name, format, data) in mutant_sources() {
        for k in 0..per_source {
            let m = mutate(&mut rng, &data);
            match verify_bytes(format, &m) {
                Verdict::Identical { .. } => tally.identical += 1,
                Verdict::Rejected { message } => {
                    assert!(!message.is_empty() && !message.contains('\n'));
                    tally.rejected += 1;
                }
                v => {
                    let path = common::tmp(&format!("mutant-{seed}-{k}-{name}"));
                    std::fs::write(&path, &m).unwrap();
                    panic!("{name} mutant {k} (saved as {}): {v:?}", path.display());
                }
            }
        }
    }
    tally
}

/// Writes `per_source` mutants of every source into folders of at most `batch_size` files (one
/// per format kind and batch) and runs one `verify --json` per folder: exit 0 or 2, one result
/// per file, none "differ". Returns the tally and the number of processes run.
fn mutate_through_binary(
    seed: u64,
    per_source: usize,
    batch_size: usize,
    dir: &Path,
) -> (Tally, usize) {
    let mut rng = Rng::new(seed);
    let mut batches: Vec<(PathBuf, Option<Format>, usize)> = Vec::new();
    let mut written = [0usize; 2];
    for (i, (name, format, data)) in mutant_sources().into_iter().enumerate() {
        let kind = usize::from(matches!(format, Some(Format::Block { .. })));
        for k in 0..per_source {
            let batch = dir.join(format!("{kind}-{}", written[kind] / batch_size));
            written[kind] += 1;
            std::fs::create_dir_all(&batch).unwrap();
            let m = mutate(&mut rng, &data);
            std::fs::write(batch.join(format!("m{i:02}_{k:06}.{name}")), &m).unwrap();
            match batches.iter_mut().find(|b| b.0 == batch) {
                Some(b) => b.2 += 1,
                None => batches.push((batch, format, 1)),
            }
        }
    }
    let mut tally = Tally::default();
    for (batch, format, count) in &batches {
        let mut args = vec!["verify".to_string(), "--json".into(), "-q".into()];
        if let Some(Format::Block { offset, nodes }) = format {
            args.extend([
                "--block-at".into(),
                format!("{offset:#x}"),
                "--nodes".into(),
                nodes.to_string(),
            ]);
        }
        args.push(batch.to_string_lossy().into_owned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run_bin(&args, Duration::from_secs(600));
        let doc: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
        let files = doc["files"].as_array().unwrap();
        assert_eq!(files.len(), *count, "{stderr}");
        let mut identical = 0;
        let mut rejected = 0;
        for f in files {
            match f["status"].as_str().unwrap() {
                "identical" => identical += 1,
                "rejected" => {
                    assert!(!f["message"].as_str().unwrap().is_empty());
                    rejected += 1;
                }
                s => panic!("{s}: {f}"),
            }
        }
        assert_eq!(doc["summary"]["differ"], 0);
        assert_eq!(code, if rejected > 0 { 2 } else { 0 }, "{stderr}");
        tally.identical += identical;
        tally.rejected += rejected;
    }
    (tally, batches.len())
}

#[test]
fn mutants_are_identical_or_rejected_never_differ() {
    let t = mutate_through_library(0x0405_711E, 20);
    assert_eq!(t.identical + t.rejected, 20 * mutant_sources().len());
    // The mutator must produce both outcomes, or this test checks nothing.
    assert!(t.identical >= 20, "{t:?}");
    assert!(t.rejected >= 100, "{t:?}");
}

#[test]
fn mutants_through_the_binary_exit_0_or_2() {
    let dir = common::scratch("mutants");
    let (t, processes) = mutate_through_binary(0x000B_14A2, 6, 100, &dir);
    // 35 sources of detected formats (210 mutants: 3 folders of at most 100) and the EFM block.
    assert_eq!(processes, 4);
    assert_eq!(t.identical + t.rejected, 6 * mutant_sources().len());
    assert!(t.rejected > 0 && t.identical > 0, "{t:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The big run for the report: `RIGTRIP_MUTANTS` mutants (default 20000) through the library,
/// and a tenth of that through the binary in batches of at most 5000 files per process.
#[test]
#[ignore]
fn mutation_big() {
    let total: usize = std::env::var("RIGTRIP_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20000);
    let sources = mutant_sources().len();
    let per = total.div_ceil(sources);
    let start = Instant::now();
    let t = mutate_through_library(0xB160_0001, per);
    println!(
        "library: {} mutants, {} identical, {} rejected, 0 differ, 0 panics, {:.1?}",
        t.identical + t.rejected,
        t.identical,
        t.rejected,
        start.elapsed()
    );
    let dir = common::scratch("mutants-big");
    let start = Instant::now();
    let (t, processes) = mutate_through_binary(0xB160_0002, (per / 10).max(1), 5000, &dir);
    println!(
        "binary: {} mutants in {processes} processes, {} identical, {} rejected, 0 differ, exit codes 0/2 only, {:.1?}",
        t.identical + t.rejected,
        t.identical,
        t.rejected,
        start.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// DMC3 motions and archives

use rigtrip::native::dmc3::motion::{Mot, MotError, TrackProblem};
use rigtrip::native::dmc3::pac::{Pac, PacError};

/// Track start offsets of a motion read from `data`.
fn track_offsets(data: &[u8]) -> Vec<usize> {
    let m = Mot::read(data).unwrap();
    let mut at = m.header.header_size as usize + 4;
    let mut v = Vec::new();
    for t in &m.tracks {
        v.push(at);
        at += t.head.span as usize;
    }
    v
}

#[test]
fn mot_cut_at_every_track_boundary_is_rejected_naming_the_track() {
    for seed in 0..40 {
        let data = synth_motion::random_mot(seed);
        let m = Mot::read(&data).unwrap();
        let offs = track_offsets(&data);
        for (i, &at) in offs.iter().enumerate() {
            // Cut inside track i's head: the track is named with its offset.
            for cut in [at + 1, at + 15] {
                if cut >= data.len() {
                    continue;
                }
                let (r, largest, peak) = measured(|| Mot::read(&data[..cut]));
                assert_bounded("mot cut", cut, largest, peak);
                match r {
                    Err(MotError::Track {
                        index,
                        offset,
                        problem: TrackProblem::Truncated { .. },
                        ..
                    }) => {
                        assert_eq!((index, offset), (i, at as u64), "seed {seed}");
                    }
                    other => panic!("seed {seed} cut {cut}: {other:?}"),
                }
            }
            // Cut exactly at track i's start: the previous tracks are fine, track i is missing.
            if let Err(MotError::Track { index, offset, .. }) = Mot::read(&data[..at]) {
                assert_eq!((index, offset), (i, at as u64));
            } else {
                panic!("seed {seed}: a cut before track {i} was accepted");
            }
        }
        // verify through the library: rejected, never differ
        if let Some(&last) = offs.last() {
            match verify_bytes(None, &data[..last + 1]) {
                Verdict::Rejected { message } => {
                    assert!(
                        message.contains(&format!("at offset {last:#x}")),
                        "{message}"
                    )
                }
                v => panic!("{v:?}"),
            }
        }
        assert_eq!(m.write().unwrap(), data);
    }
}

#[test]
fn mot_flipped_counts_spans_and_masks_are_rejected_or_identical() {
    let mut rng = Rng::new(7);
    for seed in 0..60 {
        let data = synth_motion::random_mot(seed);
        let m = Mot::read(&data).unwrap();
        let hsize = m.header.header_size as usize;
        let mut fields: Vec<(usize, usize)> = vec![(0, 4), (0x1C, 2), (hsize, 4)];
        fields.extend((0..m.masks.len()).map(|n| (0x1E + 2 * n, 2)));
        for at in track_offsets(&data) {
            fields.extend([(at, 2), (at + 2, 2), (at + 4, 2)]);
        }
        for &(at, len) in &fields {
            for _ in 0..3 {
                let mut b = data.clone();
                let bit = rng.index(len * 8);
                b[at + bit / 8] ^= 1 << (bit % 8);
                let (r, largest, peak) = measured(|| Mot::read(&b));
                assert_bounded("mot flip", b.len(), largest, peak);
                match r {
                    Ok(m) => assert_eq!(m.write().unwrap(), b, "seed {seed} flip at {at:#x}"),
                    Err(e) => assert!(!e.to_string().is_empty()),
                }
                match verify_bytes(None, &b) {
                    Verdict::Identical { .. } | Verdict::Rejected { .. } => {}
                    v => panic!("seed {seed} flip at {at:#x}: {v:?}"),
                }
            }
        }
    }
}

#[test]
fn mot_huge_counts_allocate_by_the_input() {
    let data = synth_motion::random_mot(3);
    let mut b = data.clone();
    put_u16(&mut b, 0x1C, 0xFFFF); // node count: the header size cannot hold it
    assert!(matches!(
        Mot::read(&b),
        Err(MotError::HeaderSize { nodes: 0xFFFF, .. })
    ));
    put_u32(&mut b, 0, 0xFFFF_FFF0); // now it can, but the file cannot
    let (r, largest, peak) = measured(|| Mot::read(&b));
    assert_bounded("mot huge", b.len(), largest, peak);
    assert!(matches!(r, Err(MotError::OutOfBounds(_))), "{r:?}");
    let offs = track_offsets(&data);
    let mut b = data.clone();
    put_u16(&mut b, offs[0] + 2, 0xFFFF); // key count: span too short
    assert!(matches!(
        Mot::read(&b),
        Err(MotError::Track {
            index: 0,
            problem: TrackProblem::SpanTooShort { .. },
            ..
        })
    ));
    put_u16(&mut b, offs[0], 0xFFFF); // span that can hold them, past the end
    let (r, largest, peak) = measured(|| Mot::read(&b));
    assert_bounded("mot huge keys", b.len(), largest, peak);
    assert!(matches!(r, Err(MotError::Track { index: 0, .. })), "{r:?}");
}

#[test]
fn pac_offsets_past_the_end_or_into_the_table_are_rejected() {
    for seed in 0..40 {
        let data = synth_motion::random_pac(seed);
        let p = Pac::read(&data).unwrap();
        for s in 0..p.offsets.len() {
            let at = 8 + 4 * s;
            for (bad, past) in [(data.len() as u32, true), (u32::MAX, true), (4, false)] {
                let mut b = data.clone();
                put_u32(&mut b, at, bad);
                let (r, largest, peak) = measured(|| Pac::read(&b));
                assert_bounded("pac offset", b.len(), largest, peak);
                match (r, past) {
                    (Err(PacError::PastEnd { slot, at: a, .. }), true)
                    | (Err(PacError::InsideTable { slot, at: a, .. }), false) => {
                        assert_eq!((slot, a), (s, at as u64))
                    }
                    (r, _) => panic!("seed {seed} slot {s} = {bad:#x}: {r:?}"),
                }
            }
        }
        // A slot count the file cannot hold.
        let mut b = data.clone();
        put_u32(&mut b, 4, 0x4000_0000);
        let (r, largest, peak) = measured(|| Pac::read(&b));
        assert_bounded("pac slots", b.len(), largest, peak);
        assert!(matches!(r, Err(PacError::OutOfBounds(_))), "{r:?}");
        // Cuts anywhere: rejected or read, never a panic, and a read one writes back.
        for cut in 0..data.len().min(300) {
            if let Ok(p) = Pac::read(&data[..cut]) {
                assert_eq!(p.write().unwrap(), &data[..cut]);
            }
        }
    }
}

#[test]
fn pac_of_many_one_byte_members_allocates_by_the_input() {
    // 20,000 slots, each naming its own one-byte member: 5 bytes on disk per member.
    let n = 20_000usize;
    let table_end = 8 + 4 * n;
    let mut b = b"PAC\0".to_vec();
    b.extend_from_slice(&(n as u32).to_le_bytes());
    for s in 0..n {
        b.extend_from_slice(&((table_end + s) as u32).to_le_bytes());
    }
    b.extend(std::iter::repeat_n(0xAB, n));
    let (r, largest, peak) = measured(|| Pac::read(&b));
    assert_bounded("pac one-byte members", b.len(), largest, peak);
    let p = r.unwrap();
    assert_eq!(p.members.len(), n);
    assert_eq!(p.write().unwrap(), b);
}
