//! DBnnHIE.BIN: reader/writer, lift/lower and generators, through the public API only.

mod common;
use common::assert_one_step_agrees;

use glam::{DQuat, DVec3};
use proptest::prelude::*;
use rigtrip::bytes::Gap;
use rigtrip::native::hie::{self, ByteLists, HieError, HieFile, Hierarchy, Part};
use rigtrip::rig::hie::{self as rig_hie, HieJoint, RawPlacement};
use rigtrip::rig::{GateCondition, JointPayload, LowerError, Rig, SkeletonPayload, Source};
use rigtrip::synth::hie as synth;

// ---------------------------------------------------------------------------------------------
// Hand-built bytes (independent of the crate's writer)

/// One part's 0x28 bytes, laid out here field by field.
fn part_bytes(p: &Part) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&p.unknown_00.to_le_bytes());
    b.extend_from_slice(&p.depth.to_le_bytes());
    b.extend_from_slice(&p.runtime);
    for v in p.offset {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&p.unknown_20.to_le_bytes());
    b.extend_from_slice(&p.model.to_le_bytes());
    assert_eq!(b.len(), 0x28);
    b
}

/// A hierarchy: count, zero byte area, parts at the given depths and offsets.
fn hier_bytes(count: i16, parts: &[(u16, [i32; 3])]) -> Vec<u8> {
    let mut b = count.to_le_bytes().to_vec();
    b.extend_from_slice(&[0u8; 0x32]);
    for (k, &(d, o)) in parts.iter().enumerate() {
        b.extend_from_slice(&part_bytes(&Part {
            depth: d,
            offset: o,
            model: k as u32,
            ..Part::default()
        }));
    }
    b
}

/// A file of `len` zero bytes with the given slot offsets.
fn table(len: usize, slots: &[(usize, u32)]) -> Vec<u8> {
    let mut b = vec![0u8; len];
    for &(s, o) in slots {
        b[4 * s..4 * s + 4].copy_from_slice(&o.to_le_bytes());
    }
    b
}

/// A file whose only slot in use, `slot`, points at 0x400, where `bytes` follow the table.
fn in_slot(slot: usize, bytes: &[u8]) -> Vec<u8> {
    let mut b = table(0x400, &[(slot, 0x400)]);
    b.extend_from_slice(bytes);
    b
}

/// A file with one hierarchy in slot 1 at 0x400.
fn one(parts: &[(u16, [i32; 3])]) -> Vec<u8> {
    in_slot(1, &hier_bytes(parts.len() as i16, parts))
}

/// The two parts of hierarchy B in `hand_file`, every field set.
fn hand_parts() -> [Part; 2] {
    [
        Part {
            unknown_00: 0x1234,
            depth: 1,
            runtime: core::array::from_fn(|i| i as u8 * 3),
            offset: [1, -2, 3],
            unknown_20: 0xDEAD_BEEF,
            model: 0x42,
        },
        Part {
            unknown_00: 0,
            depth: 2,
            runtime: [0; 16],
            offset: [-100, 200, -300],
            unknown_20: 0,
            model: 7,
        },
    ]
}

/// The hand-made file of `every_field_is_read_exactly`.
fn hand_file() -> Vec<u8> {
    let mut b = table(0x400, &[(2, 0x401), (0, 0x438), (5, 0x438)]);
    b.push(0x77); // gap at 0x400
                  // Hierarchy A at 0x401: no parts, area without any 0xFF.
    b.extend_from_slice(&[0, 0]);
    b.extend((0..0x32).map(|i| i as u8 + 1));
    assert_eq!(b.len(), 0x435);
    b.extend_from_slice(&[0xAA, 0xBB, 0xCC]); // gap at 0x435
                                              // Hierarchy B at 0x438: two parts, lists [1,2] [3], tail of 0x2D bytes with a 9 in it.
    b.extend_from_slice(&[2, 0]);
    let mut area = vec![1, 2, 0xFF, 3, 0xFF];
    area.extend_from_slice(&[0; 0x2D]);
    area[10] = 9;
    b.extend_from_slice(&area);
    for p in &hand_parts() {
        b.extend_from_slice(&part_bytes(p));
    }
    assert_eq!(b.len(), 0x4BC);
    b.extend_from_slice(&[0xEE, 0xEF]); // trailing
    b
}

// ---------------------------------------------------------------------------------------------
// Exact fields

#[test]
fn every_field_is_read_exactly() {
    let data = hand_file();
    let f = hie::read(&data).unwrap();
    assert_eq!(f.slots.len(), 256);
    assert_eq!(f.slots[0], Some(1));
    assert_eq!(f.slots[2], Some(0));
    assert_eq!(f.slots[5], Some(1));
    assert_eq!(f.slots.iter().filter(|s| s.is_some()).count(), 3);
    assert_eq!(f.hierarchies.len(), 2);

    let a = &f.hierarchies[0];
    assert_eq!((a.offset, a.span), (0x401, 0x34));
    assert!(a.parts.is_empty());
    assert!(a.byte_lists.lists.is_empty());
    assert_eq!(a.byte_lists.tail, (1..=0x32).collect::<Vec<u8>>());

    let b = &f.hierarchies[1];
    assert_eq!((b.offset, b.span), (0x438, 0x84));
    assert_eq!(b.byte_lists.lists, vec![vec![1, 2], vec![3]]);
    let mut tail = vec![0u8; 0x2D];
    tail[5] = 9;
    assert_eq!(b.byte_lists.tail, tail);
    assert_eq!(b.parts, hand_parts());
    assert_eq!(
        f.gaps,
        vec![
            Gap {
                offset: 0x400,
                bytes: vec![0x77]
            },
            Gap {
                offset: 0x435,
                bytes: vec![0xAA, 0xBB, 0xCC]
            },
            Gap {
                offset: 0x4BC,
                bytes: vec![0xEE, 0xEF]
            },
        ]
    );
    assert_eq!(hie::write(&f).unwrap(), data);
    assert!(hie::looks_like(&data));
}

#[test]
fn empty_table_is_a_valid_file_but_not_detected() {
    let data = vec![0u8; 0x400];
    let f = hie::read(&data).unwrap();
    assert!(f.hierarchies.is_empty() && f.gaps.is_empty());
    assert_eq!(f.slots, vec![None; 256]);
    assert_eq!(hie::write(&f).unwrap(), data);
    assert!(!hie::looks_like(&data));
}

// ---------------------------------------------------------------------------------------------
// Rejections

/// Reads `data`, which must be refused, asserts that the error's message names each of
/// `mentions`, and returns the error.
#[track_caller]
fn read_error(data: &[u8], mentions: &[&str]) -> HieError {
    let e = hie::read(data).unwrap_err();
    let m = e.to_string();
    for part in mentions {
        assert!(m.contains(part), "{m:?} does not name {part:?}");
    }
    e
}

/// The fields of a `HierarchyPastEnd` error: (slot, offset, len, parts, file_len).
#[track_caller]
fn past_end_fields(e: HieError) -> (usize, u32, u64, i16, u64) {
    match e {
        HieError::HierarchyPastEnd {
            slot,
            offset,
            len,
            parts,
            file_len,
        } => (slot, offset, len, parts, file_len),
        e => panic!("{e:?}"),
    }
}

#[test]
fn rejects_short_file() {
    let e = read_error(&[0u8; 0x3FF], &["0x3ff"]);
    assert_eq!(e, HieError::TooShort { len: 0x3FF });
    assert!(!hie::looks_like(&[0u8; 0x3FF]));
}

#[test]
fn rejects_slot_past_end() {
    let mut data = one(&[(1, [0; 3])]);
    let len = data.len() as u32;
    data[16..20].copy_from_slice(&len.to_le_bytes());
    let e = read_error(&data, &["slot 4", &format!("{len:#x}")]);
    assert!(
        matches!(e, HieError::SlotPastEnd { slot: 4, offset, .. } if offset == len),
        "{e:?}"
    );
    assert!(!hie::looks_like(&data));
}

#[test]
fn rejects_slot_inside_table() {
    let mut data = one(&[(1, [0; 3])]);
    data[12..16].copy_from_slice(&0x10u32.to_le_bytes());
    let e = read_error(&data, &["slot 3", "0x10", "inside the slot table"]);
    assert_eq!(
        e,
        HieError::SlotInTable {
            slot: 3,
            offset: 0x10
        }
    );
    assert!(!hie::looks_like(&data));
}

#[test]
fn rejects_negative_parts() {
    let data = in_slot(6, &hier_bytes(-1, &[]));
    let e = read_error(&data, &["slot 6", "0x400", "-1"]);
    assert_eq!(
        e,
        HieError::NegativeParts {
            slot: 6,
            offset: 0x400,
            parts: -1
        }
    );
    assert!(!hie::looks_like(&data));
}

#[test]
fn rejects_hierarchy_past_end() {
    let data = in_slot(8, &hier_bytes(2, &[(1, [0; 3])]));
    let e = read_error(&data, &["slot 8", "0x400", "0x45c"]);
    assert_eq!(past_end_fields(e), (8, 0x400, 0x84, 2, 0x45C));
    assert!(!hie::looks_like(&data));
    // A header cut short: the count is there but not the byte lists.
    let (slot, offset, len, ..) = past_end_fields(read_error(&in_slot(9, &[0, 0, 1, 2]), &[]));
    assert_eq!((slot, offset, len), (9, 0x400, 0x34));
    // Not even the count.
    let (slot, offset, ..) = past_end_fields(read_error(&in_slot(9, &[0]), &[]));
    assert_eq!((slot, offset), (9, 0x400));
}

#[test]
fn rejects_overlapping_hierarchies() {
    let mut data = table(0x400, &[(10, 0x400), (11, 0x420)]);
    data.extend_from_slice(&hier_bytes(1, &[(1, [0; 3])]));
    data.extend_from_slice(&[0u8; 0x40]);
    let e = read_error(&data, &["slot 10", "0x400", "slot 11", "0x420"]);
    assert_eq!(
        e,
        HieError::Overlap {
            first_slot: 10,
            first_offset: 0x400,
            first_end: 0x45C,
            second_slot: 11,
            second_offset: 0x420
        }
    );
    // The sniff does not look for overlaps; the reader does.
    assert!(hie::looks_like(&data));
}

/// An edit of a parsed file.
type Edit = fn(&mut HieFile);

/// Writes a copy of `base` after `edit`, which the writer must refuse; returns its error.
#[track_caller]
fn write_error(base: &HieFile, edit: impl FnOnce(&mut HieFile)) -> HieError {
    let mut f = base.clone();
    edit(&mut f);
    hie::write(&f).unwrap_err()
}

#[test]
fn writer_refuses_what_it_cannot_encode() {
    use rigtrip::native::hie::ByteListPart;
    let base = hie::read(&hand_file()).unwrap();

    // Edits of the hand file, each with the error it must give.
    let refused: [(Edit, HieError); 6] = [
        (
            |f| {
                f.slots.pop();
            },
            HieError::SlotCount { len: 255 },
        ),
        (
            |f| f.slots[9] = Some(2),
            HieError::SlotIndex {
                slot: 9,
                index: 2,
                count: 2,
            },
        ),
        (
            |f| {
                f.hierarchies[0].byte_lists.tail.pop();
            },
            HieError::ByteListLength {
                hierarchy: 0,
                offset: 0x401,
                len: 0x31,
            },
        ),
        (
            |f| f.hierarchies[0].byte_lists.tail[3] = 0xFF,
            HieError::ByteListTerminator {
                hierarchy: 0,
                offset: 0x401,
                which: ByteListPart::Tail,
            },
        ),
        (
            |f| f.slots[2] = None,
            HieError::Unreferenced {
                hierarchy: 0,
                offset: 0x401,
            },
        ),
        (
            |f| f.hierarchies[0].offset = 0x3F0,
            HieError::OffsetInTable {
                hierarchy: 0,
                offset: 0x3F0,
            },
        ),
    ];
    for (edit, want) in refused {
        assert_eq!(write_error(&base, edit), want);
    }

    let e = write_error(&base, |f| f.hierarchies[1].byte_lists.lists[1][0] = 0xFF);
    assert_eq!(
        e,
        HieError::ByteListTerminator {
            hierarchy: 1,
            offset: 0x438,
            which: ByteListPart::List(1)
        }
    );
    assert!(e.to_string().contains("list 1 contains 0xff"), "{e}");

    // The second gap grown into hierarchy 1 at 0x438.
    let e = write_error(&base, |f| f.gaps[1].bytes.push(0x55));
    assert!(
        matches!(
            e,
            HieError::WriteOverlap {
                first_start: 0x435,
                second_start: 0x438,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("gap at 0x435") && e.to_string().contains("hierarchy 1"),
        "{e}"
    );

    let mut f = base.clone();
    f.hierarchies[1].parts = vec![Part::default(); 32768];
    assert_eq!(
        hie::write(&f).unwrap_err(),
        HieError::TooManyParts {
            hierarchy: 1,
            offset: 0x438,
            parts: 32768
        }
    );
    f.hierarchies[1].parts.pop();
    let big = hie::write(&f).unwrap();
    assert_eq!(hie::read(&big).unwrap().hierarchies[1].parts.len(), 32767);
}

// ---------------------------------------------------------------------------------------------
// Round trips

/// Checks that the table, the hierarchies and the gaps tile the file exactly.
fn assert_tiles(f: &HieFile, len: usize) {
    let mut regions: Vec<(u64, u64)> = vec![(0, 0x400)];
    regions.extend(
        f.hierarchies
            .iter()
            .map(|h| (h.offset as u64, h.offset as u64 + h.span as u64)),
    );
    regions.extend(f.gaps.iter().map(|g| (g.offset, g.end())));
    regions.sort();
    let mut pos = 0;
    for (s, e) in regions {
        assert_eq!(s, pos, "regions must be contiguous");
        assert!(e > s, "no empty regions");
        pos = e;
    }
    assert_eq!(pos, len as u64);
    for h in &f.hierarchies {
        assert_eq!(h.span as u64, 0x34 + 0x28 * h.parts.len() as u64);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn write_read_is_identity(seed in any::<u64>()) {
        let data = synth::random(seed);
        let f = hie::read(&data).unwrap();
        prop_assert_eq!(hie::write(&f).unwrap(), data);
    }

    #[test]
    fn lower_lift_is_identity(seed in any::<u64>()) {
        let data = synth::random(seed);
        let f = hie::read(&data).unwrap();
        let rig = rig_hie::lift(f.clone());
        let back = rig_hie::lower(&rig).unwrap();
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(hie::write(&back).unwrap(), data);
    }

    /// Lowering and writing in one step (what verify uses: no copy of the shell) agrees with
    /// lower + write, bytes or error, for unedited and edited rigs.
    #[test]
    fn one_step_lower_write_agrees(seed in any::<u64>(), edit in 0..4u8) {
        let data = synth::random(seed);
        let rig = rig_hie::lift(hie::read(&data).unwrap());
        assert_one_step_agrees(&rig);
        let mut r = rig.clone();
        if let Some(s) = r.skeletons.first_mut() {
            match edit {
                0 => {
                    if let Some(j) = s.joints.iter_mut().find(|j| j.parent.is_some()) {
                        j.translation += DVec3::new(3.0, -1.0, 2.0);
                    }
                }
                1 => {
                    s.joints.pop();
                }
                2 => {
                    if let Some(j) = s.joints.last().cloned() {
                        s.joints.push(j);
                    }
                }
                _ => {
                    if let Some(j) = s.joints.first_mut() {
                        j.rotation = DQuat::from_rotation_z(0.5);
                    }
                }
            }
        }
        assert_one_step_agrees(&r);
    }

    #[test]
    fn regions_cover_the_file(seed in any::<u64>()) {
        let data = synth::random(seed);
        let f = hie::read(&data).unwrap();
        assert_tiles(&f, data.len());
        prop_assert_eq!(hie::looks_like(&data), f.slots.iter().any(|s| s.is_some()));
    }
}

#[test]
fn generator_covers_what_it_promises() {
    let (mut alias, mut unaligned, mut trailing, mut odd_gap, mut unknowns, mut runtime) =
        (false, false, false, false, false, false);
    let (mut no_ff, mut tail, mut empty, mut big, mut forest, mut bad, mut out_of_order) =
        (false, false, false, false, false, false, false);
    for seed in 0..500u64 {
        let data = synth::random(seed);
        let f = hie::read(&data).unwrap();
        let slots = f.slots_of();
        alias |= slots.iter().any(|s| s.len() > 1);
        out_of_order |= slots.windows(2).any(|w| w[0].first() > w[1].first());
        unaligned |= f.hierarchies.iter().any(|h| h.offset % 4 != 0);
        trailing |= f.gaps.last().is_some_and(|g| g.end() == data.len() as u64);
        odd_gap |= f.gaps.iter().any(|g| g.bytes.len() % 2 == 1);
        for h in &f.hierarchies {
            no_ff |= h.byte_lists.lists.is_empty();
            tail |= !h.byte_lists.lists.is_empty() && h.byte_lists.tail.iter().any(|&b| b != 0);
            empty |= h.parts.is_empty();
            big |= h.parts.len() > 100;
            unknowns |= h
                .parts
                .iter()
                .any(|p| p.unknown_00 != 0 && p.unknown_20 != 0);
            runtime |= h.parts.iter().any(|p| p.runtime != [0; 16]);
            forest |= h.parts.len() > 1
                && h.parts[0].depth == 1
                && h.parts.iter().filter(|p| p.depth == 1).count() > 1;
        }
        let rig = rig_hie::lift(f);
        bad |= rig.skeletons.iter().any(|s| s.gate.is_err());
    }
    assert!(alias && unaligned && trailing && odd_gap && unknowns && runtime);
    assert!(no_ff && tail && empty && big && forest && bad && out_of_order);
}

// ---------------------------------------------------------------------------------------------
// Modified files

/// A file with two hierarchies (slots 1 and 4 -> A, slot 2 -> B), a gap and odd trailing bytes.
fn two() -> Vec<u8> {
    let mut b = table(0x400, &[(2, 0x400), (1, 0x45D), (4, 0x45D)]);
    b.extend_from_slice(&hier_bytes(1, &[(1, [5, 6, 7])]));
    b.push(0x99); // gap at 0x45c
    b.extend_from_slice(&hier_bytes(2, &[(1, [1, 1, 1]), (2, [2, 2, 2])]));
    b.extend_from_slice(&[1, 2]); // trailing, so the file ends unaligned
    assert_eq!(b.len(), 0x4E3);
    b
}

#[test]
fn grown_hierarchy_moves_to_the_aligned_end() {
    let data = two();
    let mut f = hie::read(&data).unwrap();
    assert_eq!(f.hierarchies[1].offset, 0x45D);
    let new_part = Part {
        depth: 3,
        offset: [3, 3, 3],
        model: 99,
        ..Part::default()
    };
    f.hierarchies[1].parts.push(new_part.clone());
    let out = hie::write(&f).unwrap();

    let at = (data.len() as u32 + 3) & !3;
    assert_eq!(at, 0x4E4);
    assert_eq!(hie::layout(&f).unwrap(), vec![0x400, at]);
    assert_eq!(out.len(), at as usize + 0x34 + 3 * 0x28);
    let slot = |s: usize| u32::from_le_bytes(out[4 * s..4 * s + 4].try_into().unwrap());
    assert_eq!((slot(1), slot(4), slot(2)), (at, at, 0x400));
    // Hierarchy B, the gap and the trailing bytes are untouched.
    assert_eq!(&out[0x400..0x45D], &data[0x400..0x45D]);
    assert_eq!(
        &out[0x4E1..0x4E4],
        &[1, 2, 0],
        "trailing bytes, then alignment padding"
    );
    // The old span is zero now.
    assert!(out[0x45D..0x4E1].iter().all(|&b| b == 0));

    let g = hie::read(&out).unwrap();
    assert_eq!(g.hierarchies.len(), 2);
    assert_eq!(g.hierarchies[0], f.hierarchies[0]);
    assert_eq!(g.hierarchies[1].offset, at);
    assert_eq!(g.hierarchies[1].parts, f.hierarchies[1].parts);
    assert_eq!(g.hierarchies[1].parts[2], new_part);
    assert_eq!(g.hierarchies[1].byte_lists, f.hierarchies[1].byte_lists);
    assert_eq!(
        (g.slots[1], g.slots[4], g.slots[2]),
        (Some(1), Some(1), Some(0))
    );
    // Writing the re-read file is stable.
    assert_eq!(hie::write(&g).unwrap(), out);
}

#[test]
fn shrunk_hierarchy_stays() {
    let data = two();
    let mut f = hie::read(&data).unwrap();
    f.hierarchies[1].parts.pop();
    let out = hie::write(&f).unwrap();
    assert_eq!(out.len(), data.len());
    assert_eq!(&out[..0x45D], &data[..0x45D]);
    assert_eq!(u16::from_le_bytes([out[0x45D], out[0x45E]]), 1);
    assert_eq!(&out[0x45F..0x45D + 0x5C], &data[0x45F..0x45D + 0x5C]);
    assert!(out[0x45D + 0x5C..0x45D + 0x84].iter().all(|&b| b == 0));
    assert_eq!(&out[0x45D + 0x84..], &[1, 2]);
    let g = hie::read(&out).unwrap();
    assert_eq!(g.hierarchies[1].offset, 0x45D);
    assert_eq!(g.hierarchies[1].parts, f.hierarchies[1].parts);
}

#[test]
fn new_hierarchy_goes_to_the_end() {
    let data = two();
    let mut f = hie::read(&data).unwrap();
    f.hierarchies.push(Hierarchy {
        offset: 0,
        span: 0,
        byte_lists: ByteLists::with_zero_tail(vec![vec![0]]).unwrap(),
        parts: vec![Part {
            depth: 1,
            model: 5,
            ..Part::default()
        }],
    });
    f.slots[200] = Some(2);
    let out = hie::write(&f).unwrap();
    assert_eq!(
        &out[..data.len()],
        &{
            let mut d = data.clone();
            d[800..804].copy_from_slice(&0x4E4u32.to_le_bytes());
            d
        }[..]
    );
    assert_eq!(out[0x4E3], 0);
    let g = hie::read(&out).unwrap();
    assert_eq!(g.hierarchies[2].offset, 0x4E4);
    assert_eq!(g.hierarchies[2].parts, f.hierarchies[2].parts);
    assert_eq!(g.slots[200], Some(2));
}

#[test]
fn grown_random_files_keep_everything_else() {
    for seed in 0..200u64 {
        let data = synth::random(seed);
        let mut f = hie::read(&data).unwrap();
        if f.hierarchies.is_empty() {
            continue;
        }
        let k = (seed as usize) % f.hierarchies.len();
        f.hierarchies[k].parts.push(Part {
            depth: 1,
            unknown_20: 7,
            ..Part::default()
        });
        let out = hie::write(&f).unwrap();
        let at = (data.len() + 3) & !3;
        assert_eq!(
            out.len(),
            at + f.hierarchies[k].encoded_len() as usize,
            "seed {seed}"
        );
        for (i, h) in f.hierarchies.iter().enumerate() {
            let o = h.offset as usize;
            if i != k {
                assert_eq!(
                    &out[o..o + h.span as usize],
                    &data[o..o + h.span as usize],
                    "seed {seed}"
                );
            }
        }
        for g in &f.gaps {
            let o = g.offset as usize;
            assert_eq!(&out[o..o + g.bytes.len()], &g.bytes[..], "seed {seed}");
        }
        let g = hie::read(&out).unwrap();
        for s in 0..256 {
            let (a, b) = (f.slots[s], g.slots[s]);
            assert_eq!(a.is_some(), b.is_some());
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(
                    g.hierarchies[b].parts, f.hierarchies[a].parts,
                    "seed {seed} slot {s}"
                );
                assert_eq!(g.hierarchies[b].byte_lists, f.hierarchies[a].byte_lists);
                let expect = if a == k {
                    at as u32
                } else {
                    f.hierarchies[a].offset
                };
                assert_eq!(g.hierarchies[b].offset, expect, "seed {seed} slot {s}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lift, lower and the rest pose

/// World positions straight from the parts: walk back to the nearest earlier part one level up,
/// summing offsets, leaving the root's own offset out.
fn positions_from_parts(parts: &[Part]) -> Vec<[i64; 3]> {
    (0..parts.len())
        .map(|k| {
            let mut sum = [0i64; 3];
            let mut j = k;
            loop {
                let d = parts[j].depth;
                if d == 1 {
                    break;
                }
                for (acc, v) in sum.iter_mut().zip(parts[j].offset) {
                    *acc += i64::from(v);
                }
                j = (0..j).rev().find(|&i| parts[i].depth == d - 1).unwrap();
            }
            sum
        })
        .collect()
}

#[test]
fn rest_pose_is_the_sum_of_offsets_without_the_root() {
    let mut checked = 0;
    for seed in 0..300u64 {
        let f = hie::read(&synth::random(seed)).unwrap();
        let parts: Vec<Vec<Part>> = f.hierarchies.iter().map(|h| h.parts.clone()).collect();
        let rig = rig_hie::lift(f);
        for (s, p) in rig.skeletons.iter().zip(&parts) {
            if s.gate.is_err() {
                continue;
            }
            let w = s.world_positions().unwrap();
            let expect = positions_from_parts(p);
            for (a, e) in w.iter().zip(&expect) {
                assert_eq!(*a, DVec3::new(e[0] as f64, e[1] as f64, e[2] as f64));
            }
            checked += w.len();
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn lift_names_parents_and_payloads() {
    let f = hie::read(&hand_file()).unwrap();
    let rig = rig_hie::lift(f);
    let Source::Hie(shell) = &rig.source else {
        panic!()
    };
    assert_eq!(shell.slots[5], Some(1));
    assert_eq!(shell.gaps.len(), 3);
    assert_eq!(rig.skeletons[0].name, "slot2");
    assert_eq!(rig.skeletons[1].name, "slot0");
    let s = &rig.skeletons[1];
    assert_eq!(s.gate, Ok(()));
    assert_eq!(s.joints[0].name, "slot0_0");
    assert_eq!(s.joints[1].name, "slot0_1");
    assert_eq!(s.joints[0].parent, None);
    assert_eq!(s.joints[1].parent, Some(0));
    assert_eq!(s.joints[0].translation, DVec3::ZERO);
    assert_eq!(s.joints[1].translation, DVec3::new(-100.0, 200.0, -300.0));
    assert_eq!(s.joints[0].rotation, DQuat::IDENTITY);
    assert_eq!(
        s.joints[0].native,
        JointPayload::Hie(HieJoint {
            unknown_00: 0x1234,
            runtime: core::array::from_fn(|i| i as u8 * 3),
            unknown_20: 0xDEAD_BEEF,
            model: 0x42,
            root_offset: Some([1, -2, 3]),
            raw: None,
        })
    );
    let JointPayload::Hie(j1) = &s.joints[1].native else {
        panic!()
    };
    assert_eq!((j1.root_offset, j1.raw, j1.model), (None, None, 7));
    let SkeletonPayload::Hie(n) = &s.native else {
        panic!()
    };
    assert_eq!((n.offset, n.span), (0x438, 0x84));
    assert!(rig.skeletons[0].joints.is_empty());
    assert_eq!(rig.skeletons[0].gate, Ok(()));
}

#[test]
fn forest_has_several_roots_at_the_origin() {
    let data = one(&[
        (1, [9, 9, 9]),
        (2, [1, 0, 0]),
        (1, [8, 8, 8]),
        (2, [0, 2, 0]),
        (3, [0, 0, 3]),
    ]);
    let rig = rig_hie::lift(hie::read(&data).unwrap());
    let s = &rig.skeletons[0];
    assert_eq!(s.gate, Ok(()));
    let parents: Vec<_> = s.joints.iter().map(|j| j.parent).collect();
    assert_eq!(parents, vec![None, Some(0), None, Some(2), Some(3)]);
    let w = s.world_positions().unwrap();
    assert_eq!(w[0], DVec3::ZERO);
    assert_eq!(w[2], DVec3::ZERO);
    assert_eq!(w[4], DVec3::new(0.0, 2.0, 3.0));
    assert_eq!(hie::write(&rig_hie::lower(&rig).unwrap()).unwrap(), data);
}

fn gate_of(parts: &[(u16, [i32; 3])]) -> (Rig, Vec<u8>) {
    let data = one(parts);
    (rig_hie::lift(hie::read(&data).unwrap()), data)
}

#[test]
fn gate_names_the_failing_joint_and_still_round_trips() {
    let cases: &[(&[u16], GateCondition, usize, &[&str])] = &[
        (&[2, 3], GateCondition::FirstDepthIsOne, 0, &["depth 2"]),
        (&[0], GateCondition::FirstDepthIsOne, 0, &["depth 0"]),
        (
            &[1, 2, 0, 1],
            GateCondition::DepthAtLeastOne,
            2,
            &["joint 2", "depth 0"],
        ),
        (
            &[1, 2, 4],
            GateCondition::DepthStepAtMostOne,
            2,
            &["joint 2", "depth 4", "depth 2"],
        ),
        (
            &[1, 2, 2, 1, 3],
            GateCondition::DepthStepAtMostOne,
            4,
            &["joint 4", "depth 3", "depth 1"],
        ),
    ];
    for &(depths, cond, joint, words) in cases {
        let parts: Vec<(u16, [i32; 3])> = depths
            .iter()
            .enumerate()
            .map(|(k, &d)| (d, [k as i32, -(k as i32), 7]))
            .collect();
        let (rig, data) = gate_of(&parts);
        let s = &rig.skeletons[0];
        let e = s.gate.clone().unwrap_err();
        assert_eq!(e.condition, cond, "{depths:?}");
        assert_eq!(e.joint, Some(joint), "{depths:?}");
        let m = e.to_string();
        for w in words {
            assert!(m.contains(w), "{m} lacks {w}");
        }
        assert!(s.world_positions().is_err());
        for (k, j) in s.joints.iter().enumerate() {
            assert_eq!(j.parent, None);
            assert_eq!(j.translation, DVec3::new(k as f64, -(k as f64), 7.0));
            let JointPayload::Hie(p) = &j.native else {
                panic!()
            };
            assert_eq!(
                p.raw,
                Some(RawPlacement {
                    depth: depths[k],
                    offset: [k as i32, -(k as i32), 7]
                })
            );
            assert_eq!(p.root_offset, None);
        }
        assert_eq!(hie::write(&rig_hie::lower(&rig).unwrap()).unwrap(), data);
    }
}

#[test]
fn gate_helper_gives_nearest_earlier_parent() {
    assert_eq!(
        rig_hie::parents_from_depths(&[1, 2, 3, 2, 3, 1, 2]).unwrap(),
        vec![None, Some(0), Some(1), Some(0), Some(3), None, Some(5)]
    );
    assert_eq!(rig_hie::parents_from_depths(&[]).unwrap(), vec![]);
    // Deep hierarchies: a chain of 100, back up to depth 50, down again; then a second root
    // whose chain re-visits the deep levels.
    let mut depths: Vec<u16> = (1..=100).collect();
    depths.extend([50, 51, 1, 2]);
    depths.extend(3..=70);
    let p = rig_hie::parents_from_depths(&depths).unwrap();
    for (k, parent) in p.iter().enumerate().take(100).skip(1) {
        assert_eq!(*parent, Some(k - 1));
    }
    assert_eq!(
        (p[100], p[101], p[102], p[103]),
        (Some(48), Some(100), None, Some(102))
    );
    assert_eq!(p[104], Some(103));
    assert_eq!(p[depths.len() - 1], Some(depths.len() - 2));
    let e = rig_hie::parents_from_depths(&[1, 2, 3, 5]).unwrap_err();
    assert_eq!(e.condition, GateCondition::DepthStepAtMostOne);
}

/// The sample, lifted.
fn sample_rig() -> Rig {
    rig_hie::lift(hie::read(&synth::sample_db22()).unwrap())
}

fn unrepresentable(e: LowerError) -> (usize, usize, String, &'static str, String) {
    match e {
        LowerError::Unrepresentable {
            skeleton,
            joint,
            name,
            field,
            problem,
        } => (skeleton, joint, name, field, problem),
        other => panic!("expected Unrepresentable, got {other:?}"),
    }
}

#[test]
fn lower_refuses_what_hie_cannot_hold() {
    // Skeleton 1 is the character (file order: lamp, character, prop).
    let mut rig = sample_rig();
    rig.skeletons[1].joints[4].rotation = DQuat::from_rotation_y(0.1);
    let (s, j, name, field, _) = unrepresentable(rig_hie::lower(&rig).unwrap_err());
    assert_eq!((s, j, name.as_str(), field), (1, 4, "slot1_4", "rotation"));

    let mut rig = sample_rig();
    rig.skeletons[1].joints[0].translation = DVec3::new(0.0, 1.0, 0.0);
    let e = rig_hie::lower(&rig).unwrap_err();
    assert!(
        e.to_string().contains("slot1_0") && e.to_string().contains("not zero"),
        "{e}"
    );
    let (_, j, _, field, _) = unrepresentable(e);
    assert_eq!((j, field), (0, "translation"));

    for bad in [f64::NAN, f64::INFINITY, 3e9, -2147483649.0] {
        let mut rig = sample_rig();
        rig.skeletons[1].joints[2].translation.z = bad;
        let (_, j, _, field, _) = unrepresentable(rig_hie::lower(&rig).unwrap_err());
        assert_eq!((j, field), (2, "translation"), "{bad}");
    }

    // Head re-parented to the hips while stored after the chest: depth 2 after chest makes it a
    // child of the hips, fine; but the left upper arm (depth 3) then follows the head, not the chest.
    let mut rig = sample_rig();
    rig.skeletons[1].joints[2].parent = Some(0);
    let e = rig_hie::lower(&rig).unwrap_err();
    assert!(
        matches!(e, LowerError::Structure { skeleton: 1, .. }),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("joint 3") && e.to_string().contains("depth-first"),
        "{e}"
    );

    // A parent that the depths give differently (joint 3) and, later, a depth jump (joint 5):
    // the depths are checked first, so the jump is what is reported.
    let mut rig = sample_rig();
    let parents = [None, Some(0), Some(0), Some(1), None, Some(3)];
    let sk = &mut rig.skeletons[1];
    sk.joints.truncate(parents.len());
    for (j, p) in sk.joints.iter_mut().zip(parents) {
        j.parent = p;
        j.translation = if p.is_some() { DVec3::X } else { DVec3::ZERO };
        if let JointPayload::Hie(h) = &mut j.native {
            h.root_offset = None;
        }
    }
    let e = rig_hie::lower(&rig).unwrap_err().to_string();
    assert!(
        e.contains("computed depths do not define parents") && e.contains("joint 5"),
        "{e}"
    );
    // Without the jump, the differing parent is reported.
    rig.skeletons[1].joints.truncate(5);
    let e = rig_hie::lower(&rig).unwrap_err().to_string();
    assert!(
        e.contains("joint 3") && e.contains("makes it a child of Some(2)"),
        "{e}"
    );

    // A parent stored after its child.
    let mut rig = sample_rig();
    rig.skeletons[1].joints[1].parent = Some(2);
    let e = rig_hie::lower(&rig).unwrap_err();
    assert!(
        matches!(e, LowerError::Structure { skeleton: 1, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("joint 1"), "{e}");

    // Root offset on a joint that stopped being a root would be lost.
    let mut rig = sample_rig();
    let JointPayload::Hie(p) = &mut rig.skeletons[1].joints[5].native else {
        panic!()
    };
    p.root_offset = Some([1, 0, 0]);
    let (_, j, _, field, _) = unrepresentable(rig_hie::lower(&rig).unwrap_err());
    assert_eq!((j, field), (5, "root_offset"));
}

#[test]
fn lower_refuses_edits_to_raw_skeletons() {
    let (rig, _) = gate_of(&[(2, [1, 2, 3]), (3, [4, 5, 6])]);
    let mut r = rig.clone();
    r.skeletons[0].joints[1].translation.x = 40.0;
    let (_, j, _, field, problem) = unrepresentable(rig_hie::lower(&r).unwrap_err());
    assert_eq!((j, field), (1, "translation"));
    assert!(problem.contains("raw.offset"), "{problem}");
    let mut r = rig.clone();
    r.skeletons[0].joints[1].parent = Some(0);
    let (_, j, _, field, _) = unrepresentable(rig_hie::lower(&r).unwrap_err());
    assert_eq!((j, field), (1, "parent"));
    let mut r = rig.clone();
    let JointPayload::Hie(p) = &mut r.skeletons[0].joints[0].native else {
        panic!()
    };
    p.raw = None;
    assert!(matches!(
        rig_hie::lower(&r).unwrap_err(),
        LowerError::Structure { skeleton: 0, .. }
    ));
    // Editing raw.offset is how such a part moves.
    let mut r = rig;
    let JointPayload::Hie(p) = &mut r.skeletons[0].joints[1].native else {
        panic!()
    };
    p.raw = Some(RawPlacement {
        depth: 3,
        offset: [40, 5, 6],
    });
    r.skeletons[0].joints[1].translation.x = 40.0;
    let f = rig_hie::lower(&r).unwrap();
    assert_eq!(f.hierarchies[0].parts[1].offset, [40, 5, 6]);
}

#[test]
fn an_edit_lands_in_exactly_its_bytes() {
    let data = synth::sample_db22();
    let mut rig = sample_rig();
    // Left forearm (part 4 of the character at 0x4AC) moves; a tiny rotation is identity.
    rig.skeletons[1].joints[4].translation = DVec3::new(41.4, 119.6, -1.0);
    rig.skeletons[1].joints[4].rotation = DQuat::from_rotation_x(1e-12);
    let out = hie::write(&rig_hie::lower(&rig).unwrap()).unwrap();
    let at = 0x4AC + 0x34 + 4 * 0x28 + 0x14;
    let mut expect = data.clone();
    expect[at..at + 12].copy_from_slice(&[41, 0, 0, 0, 120, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert_eq!(out, expect);
}

#[test]
fn empty_skeleton_and_new_skeleton_lower() {
    let mut rig = sample_rig();
    rig.skeletons[2].joints.clear();
    let f = rig_hie::lower(&rig).unwrap();
    assert!(f.hierarchies[2].parts.is_empty());
    let out = hie::write(&f).unwrap();
    let g = hie::read(&out).unwrap();
    assert!(g.hierarchies[g.slots[2].unwrap()].parts.is_empty());
}

// ---------------------------------------------------------------------------------------------
// The bundled sample

#[test]
fn sample_db22_is_a_chuckie_like_character() {
    let data = synth::sample_db22();
    assert!(hie::looks_like(&data));
    let f = hie::read(&data).unwrap();
    assert_eq!(hie::write(&f).unwrap(), data);
    assert_eq!(f.slots[7], f.slots[1]);
    let (c, p, l) = (
        f.slots[1].unwrap(),
        f.slots[2].unwrap(),
        f.slots[3].unwrap(),
    );
    assert_eq!((l, c, p), (0, 1, 2), "hierarchies are not in slot order");
    assert_eq!(f.slots.iter().filter(|s| s.is_some()).count(), 4);
    assert_eq!(f.hierarchies[c].parts.len(), 15);
    assert_eq!(f.hierarchies[p].parts.len(), 1);
    assert_eq!(f.hierarchies[l].parts.len(), 3);
    assert_eq!(
        f.gaps,
        vec![Gap {
            offset: 0x738,
            bytes: vec![0; 8]
        }]
    );
    let mut models: Vec<u32> = f
        .hierarchies
        .iter()
        .flat_map(|h| h.parts.iter().map(|p| p.model))
        .collect();
    models.sort();
    models.dedup();
    assert_eq!(models.len(), 19);
    for h in &f.hierarchies {
        for q in &h.parts {
            assert_eq!((q.unknown_00, q.unknown_20, q.runtime), (0, 0, [0; 16]));
        }
        assert!(h.byte_lists.tail.iter().all(|&b| b == 0));
    }
    assert_eq!(
        f.hierarchies[c].byte_lists.lists,
        vec![
            vec![0, 1, 2],
            vec![3, 4, 5],
            vec![6, 7, 8],
            vec![9, 10, 11],
            vec![12, 13, 14]
        ]
    );

    let rig = rig_hie::lift(f);
    let s = &rig.skeletons[c];
    assert_eq!(s.name, "slot1");
    assert_eq!(s.gate, Ok(()));
    let parents: Vec<_> = s.joints.iter().map(|j| j.parent).collect();
    assert_eq!(
        parents,
        vec![
            None,    // hips
            Some(0), // chest
            Some(1), // head
            Some(1), // left upper arm
            Some(3),
            Some(4),
            Some(1), // right upper arm
            Some(6),
            Some(7),
            Some(0), // left thigh
            Some(9),
            Some(10),
            Some(0), // right thigh
            Some(12),
            Some(13),
        ]
    );
    let w = s.world_positions().unwrap();
    assert_eq!(w[0], DVec3::ZERO, "the root's own offset is not applied");
    let JointPayload::Hie(hips) = &s.joints[0].native else {
        panic!()
    };
    assert_eq!(hips.root_offset, Some([0, -400, 0]));
    let ys: Vec<f64> = w.iter().map(|p| p.y).collect();
    let top = ys.iter().cloned().fold(f64::MAX, f64::min);
    let bottom = ys.iter().cloned().fold(f64::MIN, f64::max);
    assert_eq!(top, w[2].y, "the head is highest (Y down)");
    assert!(
        w[2].y < w[1].y && w[1].y < 0.0,
        "chest and head above the hips"
    );
    assert!(w[11].y > 300.0 && w[14].y > 300.0, "feet below the hips");
    assert!(
        (700.0..=900.0).contains(&(bottom - top)),
        "{}",
        bottom - top
    );
    assert!(
        w[5].x > 0.0 && w[8].x < 0.0 && w[11].x > 0.0 && w[14].x < 0.0,
        "left +X, right -X"
    );
    assert_eq!(rig.skeletons[l].gate, Ok(()));
    assert_eq!(rig.skeletons[p].gate, Ok(()));
    assert_eq!(hie::write(&rig_hie::lower(&rig).unwrap()).unwrap(), data);
}

#[test]
fn sample_names_match_the_sample() {
    let v: serde_json::Value = serde_json::from_str(&synth::sample_db22_names()).unwrap();
    let m = v.as_object().unwrap();
    assert_eq!(m.keys().cloned().collect::<Vec<_>>(), vec!["1", "2", "3"]);
    let c = m["1"].as_array().unwrap();
    assert_eq!(c.len(), 15);
    assert_eq!(c[0], "hips");
    assert_eq!(c[1], "chest");
    assert_eq!(c[2], "head");
    assert_eq!(c[9], "left_thigh");
    assert_eq!(m["2"].as_array().unwrap().len(), 1);
    assert_eq!(m["3"].as_array().unwrap().len(), 3);
}

#[test]
fn json_dump_round_trips() {
    let f = hie::read(&hand_file()).unwrap();
    let j = serde_json::to_string(&f).unwrap();
    let g: HieFile = serde_json::from_str(&j).unwrap();
    assert_eq!(g, f);
    assert_eq!(hie::write(&g).unwrap(), hand_file());
}
