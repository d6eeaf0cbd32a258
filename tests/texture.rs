//! DMC3 textures (PTX bundles, gfxTexture entries) and character archives: byte-exact round
//! trips of generated files, an independent reader of the descriptor and DDS fields, the
//! canonical-form report, and archives whose members are read by their own magic.

mod common;

use proptest::prelude::*;
use rigtrip::native::dmc3::pac::{MemberKind, Pac};
use rigtrip::native::dmc3::texture::{Ptx, Texture};
use rigtrip::native::{detect_motion, MotionFile, MotionFormat};
use rigtrip::ops::verify::{verify_bytes, GltfLeg, Verdict};
use rigtrip::synth::texture as synth;

/// A reader written for this test from the published layout alone (no library code): the
/// fields of one entry's descriptor and DDS header, and where its chain ends.
mod independent {
    pub fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    pub fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
    }

    #[derive(Debug, PartialEq)]
    pub struct Fields {
        pub encoding: u32,
        pub width: u16,
        pub height: u16,
        pub row_bytes: u32,
        pub payload: u32,
        pub half: (u16, u16),
        pub inv_half: (f32, f32),
        pub format: u32,
        pub dds_bytes: u32,
        pub dds_magic: [u8; 4],
        pub dds_size: u32,
        pub dds_flags: u32,
        pub dds_height: u32,
        pub dds_width: u32,
        pub pitch: u32,
        pub mips: u32,
        pub four_cc: [u8; 4],
        pub caps: u32,
    }

    pub fn fields(e: &[u8]) -> Fields {
        let d = 0x70;
        Fields {
            encoding: u32_at(e, 0x08),
            width: u16_at(e, 0x10),
            height: u16_at(e, 0x12),
            row_bytes: u32_at(e, 0x18),
            payload: u32_at(e, 0x38),
            half: (u16_at(e, 0x44), u16_at(e, 0x46)),
            inv_half: (
                f32::from_bits(u32_at(e, 0x48)),
                f32::from_bits(u32_at(e, 0x4C)),
            ),
            format: u32_at(e, 0x60),
            dds_bytes: u32_at(e, 0x64),
            dds_magic: e[d..d + 4].try_into().unwrap(),
            dds_size: u32_at(e, d + 4),
            dds_flags: u32_at(e, d + 8),
            dds_height: u32_at(e, d + 12),
            dds_width: u32_at(e, d + 16),
            pitch: u32_at(e, d + 20),
            mips: u32_at(e, d + 28),
            four_cc: e[d + 84..d + 88].try_into().unwrap(),
            caps: u32_at(e, d + 108),
        }
    }

    /// Bytes of a BC level: whole 4x4 blocks, at least one.
    pub fn level_bytes(w: u32, h: u32, block: u64) -> u64 {
        u64::from(w.div_ceil(4).max(1)) * u64::from(h.div_ceil(4).max(1)) * block
    }

    /// Where the chain ends (bytes after 0xF0), from the DDS header when it names DXT1/DXT5,
    /// else from the descriptor: whole levels up to the declared count that fit.
    pub fn chain_len(e: &[u8]) -> usize {
        let f = fields(e);
        let (w, h, block, mips) = if &f.dds_magic == b"DDS "
            && f.dds_width > 0
            && f.dds_height > 0
            && (&f.four_cc == b"DXT1" || &f.four_cc == b"DXT5")
        {
            let block = if &f.four_cc == b"DXT1" { 8 } else { 16 };
            (f.dds_width, f.dds_height, block, f.mips.max(1))
        } else if f.width > 0 && f.height > 0 && (f.format == 0 || f.format == 4) {
            let block = if f.format == 0 { 8 } else { 16 };
            let mips = ((f.encoding >> 8) & 0xFF).max(1);
            (u32::from(f.width), u32::from(f.height), block, mips)
        } else {
            return 0;
        };
        let avail = (e.len() - 0xF0) as u64;
        let mut total = 0u64;
        for i in 0..mips.min(32) {
            let l = level_bytes((w >> i).max(1), (h >> i).max(1), block);
            if total + l > avail {
                break;
            }
            total += l;
        }
        total as usize
    }

    /// The entries of a bundle: (offset, bytes) from the count and the span table.
    pub fn entries(b: &[u8]) -> Vec<&[u8]> {
        let n = u32_at(b, 0) as usize;
        let mut at = (4 + 4 * n).div_ceil(0x800) * 0x800;
        (0..n)
            .map(|i| {
                let len = u32_at(b, 4 + 4 * i) as usize * 0x800;
                let e = &b[at..at + len];
                at += len;
                e
            })
            .collect()
    }
}

/// The library's values of an entry, in the independent reader's shape.
fn library_fields(t: &Texture) -> independent::Fields {
    let (d, h) = (&t.descriptor, &t.dds);
    independent::Fields {
        encoding: d.encoding,
        width: d.width,
        height: d.height,
        row_bytes: d.row_bytes,
        payload: d.payload_bytes,
        half: (d.half_width, d.half_height),
        inv_half: (
            f32::from_bits(d.inv_half_width_bits),
            f32::from_bits(d.inv_half_height_bits),
        ),
        format: d.format,
        dds_bytes: d.dds_bytes,
        dds_magic: h.magic,
        dds_size: h.size,
        dds_flags: h.flags,
        dds_height: h.height,
        dds_width: h.width,
        pitch: h.pitch,
        mips: h.mip_count,
        four_cc: h.four_cc,
        caps: h.caps,
    }
}

fn check_entry(t: &Texture, bytes: &[u8]) {
    let mine = library_fields(t);
    let theirs = independent::fields(bytes);
    // f32 compared by bits (NaN patterns from random fields).
    assert_eq!(format!("{mine:?}"), format!("{theirs:?}"));
    assert_eq!(t.chain.len(), independent::chain_len(bytes));
    assert_eq!(t.chain[..], bytes[0xF0..0xF0 + t.chain.len()]);
    assert_eq!(t.padding[..], bytes[0xF0 + t.chain.len()..]);
}

/// The file dumped to JSON and built back into bytes.
fn dump_and_build(file: MotionFile) -> Vec<u8> {
    use rigtrip::ops::dump::{build, dump_motion};
    build(&dump_motion(&file)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn ptx_write_read_is_identity_and_fields_agree(seed in any::<u64>()) {
        let data = synth::random_ptx(seed);
        let p = Ptx::read(&data).unwrap();
        prop_assert_eq!(p.write().unwrap(), data.clone());
        let entries = independent::entries(&data);
        prop_assert_eq!(entries.len(), p.textures.len());
        for (t, e) in p.textures.iter().zip(entries) {
            check_entry(t, e);
        }
        prop_assert_eq!(detect_motion(&data), Some(MotionFormat::Ptx));
        prop_assert_eq!(dump_and_build(MotionFile::Ptx(p)), data);
    }

    #[test]
    fn tm2_write_read_is_identity_and_fields_agree(seed in any::<u64>()) {
        let data = synth::random_tm2(seed);
        let t = Texture::read(&data).unwrap();
        prop_assert_eq!(t.write(), data.clone());
        check_entry(&t, &data);
        prop_assert_eq!(dump_and_build(MotionFile::Tm2(t)), data);
    }

    #[test]
    fn character_pac_write_read_is_identity(seed in any::<u64>()) {
        let data = synth::random_character_pac(seed);
        let p = Pac::read(&data).unwrap();
        prop_assert_eq!(p.write().unwrap(), data.clone());
        let kinds: Vec<_> = p.members.iter().map(|m| (m.slots.clone(), m.kind.name())).collect();
        prop_assert_eq!(kinds, vec![(vec![0], "ptx"), (vec![1], "mod"), (vec![8, 14], "shw")]);
        prop_assert_eq!(p.members[2].offset % 16, 8);
        prop_assert_eq!(dump_and_build(MotionFile::Pac(p)), data);
    }
}

#[test]
fn sample_ptx_reports_its_departures_from_the_canonical_form() {
    let data = synth::sample_ptx();
    assert_eq!(data.len(), 3 * 0x800);
    let p = Ptx::read(&data).unwrap();
    // 16x16 DXT1, full chain: 128 + 32 + 8 + 8 + 8 bytes, canonical headers.
    let t0 = &p.textures[0];
    assert_eq!(t0.chain.len(), 184);
    assert_eq!(t0.differences(), vec![]);
    assert_eq!(
        t0.levels()
            .iter()
            .map(|l| (l.width, l.height, l.len))
            .collect::<Vec<_>>(),
        vec![(16, 16, 128), (8, 8, 32), (4, 4, 8), (2, 2, 8), (1, 1, 8)]
    );
    // 16x8 DXT5 with 3 of 5 levels (128 + 32 + 16) and a descriptor zeroed but for the five
    // fields the game's loader reads (width, height, +0x20, +0x64, +0x68): 304 DDS bytes.
    let t1 = &p.textures[1];
    assert_eq!(t1.chain.len(), 176);
    let d: Vec<(String, String, String)> = t1
        .differences()
        .into_iter()
        .map(|d| (d.field, d.found, d.canonical))
        .collect();
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        d,
        vec![
            s("mip chain", "3 levels", "5 levels (down to 1x1)"),
            s("descriptor +0x08 encoding word", "0x0", "0x20588"),
            s("descriptor +0x0C +0x0C", "0x0", "0xaae4"),
            s("descriptor +0x14 +0x14", "0x0", "0x1"),
            s("descriptor +0x18 row bytes", "0x0", "0x40"),
            s("descriptor +0x38 payload bytes", "0x0", "0xd0"),
            s("descriptor +0x44 w2", "0x0", "0x8"),
            s("descriptor +0x46 h2", "0x0", "0x4"),
            s("descriptor +0x48 1/w2", "0x0", "0x3e000000"),
            s("descriptor +0x4C 1/h2", "0x0", "0x3e800000"),
            s("descriptor +0x60 format", "0x0", "0x4"),
            s("descriptor +0x64 DDS bytes", "0x130", "0x150"),
            s("DDS +0x1C mip count", "0x3", "0x5"),
        ]
    );
}

#[test]
fn character_archive_members_are_read_by_their_magic() {
    let data = synth::sample_character_pac();
    let p = Pac::read(&data).unwrap();
    assert!(p.has_model());
    assert_eq!(p.offsets.len(), 16);
    assert_eq!(p.gap.len(), 8);
    assert!(p.gap.iter().all(|&b| b != 0));
    assert_eq!(p.members[0].offset, 0x50);
    assert!(matches!(&p.members[0].kind, MemberKind::Ptx(x) if x.textures.len() == 2));
    match &p.members[1].kind {
        MemberKind::Model(m) => {
            assert_eq!(m.kind(), "mod");
            // The header's texture count mirrors the PTX's.
            assert_eq!(m.container.as_ref().unwrap().header.texture_count, 2);
        }
        k => panic!("slot 1: {}", k.name()),
    }
    assert_eq!(p.members[2].slots, vec![8, 14]);
    assert_eq!(p.members[2].offset % 16, 8);
    assert_eq!(p.members[2].kind.name(), "shw");
    assert_eq!(p.empty_slots().count(), 12);
    assert_eq!(p.write().unwrap(), data);
    // The model member is the humanoid sample, padded to 8 past a 16-byte boundary.
    let model = p.members[1].bytes().unwrap();
    let sample = rigtrip::synth::dmc3::sample_mod();
    assert_eq!(model.len(), sample.len().div_ceil(16) * 16 + 8);
    assert_eq!(model[..0x12], sample[..0x12]);
    assert_eq!(model[0x13..sample.len()], sample[0x13..]);
}

#[test]
fn verify_descends_into_the_model_member() {
    let data = synth::sample_character_pac();
    match verify_bytes(None, &data) {
        Verdict::Identical { kind, gltf, .. } => {
            assert_eq!(kind, "pac");
            // No motion: the model member's glTF leg speaks for the archive.
            assert_eq!(gltf, GltfLeg::Identical);
        }
        v => panic!("{v:?}"),
    }
    // A model member whose bytes read back but whose block is broken is opaque, and named so.
    let mut broken = data.clone();
    let p = Pac::read(&data).unwrap();
    let at = p.members[1].offset as usize;
    broken[at + 0x20..at + 0x28].copy_from_slice(&u64::MAX.to_le_bytes());
    let q = Pac::read(&broken).unwrap();
    assert_eq!(q.members[1].kind.name(), "mod?");
    assert!(!q.has_model());
}

/// Every generated character archive verifies: its own bytes, and its model member as a loose
/// model on both legs (a random model may fail the spatial gate: its glTF leg is skipped, never
/// different).
#[test]
fn generated_character_archives_verify() {
    for seed in 0..12 {
        let data = synth::random_character_pac(seed);
        match verify_bytes(None, &data) {
            Verdict::Identical {
                kind: "pac", gltf, ..
            } => {
                assert!(
                    matches!(gltf, GltfLeg::Identical | GltfLeg::Skipped(_)),
                    "seed {seed}: {gltf:?}"
                )
            }
            v => panic!("seed {seed}: {v:?}"),
        }
    }
    for seed in 0..12 {
        let data = synth::random_ptx(seed);
        assert!(
            matches!(
                verify_bytes(None, &data),
                Verdict::Identical { kind: "ptx", .. }
            ),
            "seed {seed}"
        );
    }
}

#[test]
fn ptx_rejections_name_the_field() {
    let data = synth::sample_ptx();
    let mut zero = data.clone();
    zero[0..4].fill(0);
    assert_eq!(
        Ptx::read(&zero).unwrap_err().to_string(),
        "texture count at offset 0x0 is 0: a PTX bundle holds at least one texture"
    );
    let mut span = data.clone();
    span[8..12].fill(0);
    assert_eq!(
        Ptx::read(&span).unwrap_err().to_string(),
        "texture 1: span word at 0x8 is 0 sectors"
    );
    assert_eq!(
        Ptx::read(&data[..0x1000]).unwrap_err().to_string(),
        "texture 1 at offset 0x1000 (2048 bytes) runs past the end of the file (0x1000 bytes)"
    );
    assert_eq!(
        Texture::read(&data[0x800..0x8F0 - 1])
            .unwrap_err()
            .to_string(),
        "DDS header at offset 0x70 (128 bytes) runs past the end of the file (0xef bytes)"
    );
}

#[test]
fn coverage_of_a_character_archive_covers_every_byte() {
    let data = synth::sample_character_pac();
    let file = MotionFile::read(MotionFormat::Pac, &data).unwrap();
    let c = rigtrip::ops::coverage::motion_coverage(&file, &data);
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    let sum: u64 = c.entries.iter().map(|e| e.end - e.start).sum();
    assert_eq!(sum, data.len() as u64);
    let find = |what: &str| {
        c.entries
            .iter()
            .find(|e| e.what == what)
            .map(|e| (e.start, e.end, e.record))
    };
    // PTX at 0x50: texture 0 at +0x800, its descriptor's width at +0x10, mip 1 after mip 0;
    // the model member's header at its offset.
    let (ptx, model_at) = (0x50, 0x50 + 3 * 0x800);
    for (what, want) in [
        (
            "member 0 texture 0 descriptor width",
            (0x860, 0x862, "gfxTexture descriptor"),
        ),
        (
            "member 0 texture 1 DDS mip count",
            (
                ptx + 0x1000 + 0x70 + 0x1C,
                ptx + 0x1000 + 0x70 + 0x20,
                "DDS header",
            ),
        ),
        (
            "member 0 texture 0 mip 1 (8x8)",
            (
                ptx + 0x800 + 0xF0 + 128,
                ptx + 0x800 + 0xF0 + 160,
                "mip level",
            ),
        ),
        (
            "member 1 container header texture count",
            (model_at + 0x12, model_at + 0x13, "container header"),
        ),
    ] {
        assert_eq!(find(what), Some(want), "{what}");
    }
}

/// A dump's counts are checked in archive members as in loose files: a model member's object
/// count and a motion member's track count that disagree with their lists are refused at
/// their pointers.
#[test]
fn build_checks_the_counts_inside_archive_members() {
    use rigtrip::ops::dump::{build, dump_motion};
    let data = synth::sample_character_pac();
    let mut v = dump_motion(&MotionFile::Pac(Pac::read(&data).unwrap()));
    assert_eq!(build(&v).unwrap(), data);
    let model = &mut v["file"]["members"][1]["kind"]["model"];
    model["container"]["header"]["object_count"] = 3.into();
    assert_eq!(
        build(&v).unwrap_err().to_string(),
        "/file/members/1/kind/model/container/header/object_count: cannot write: is 3 but \
         /file/members/1/kind/model/container/objects holds 2"
    );
    let data = rigtrip::synth::motion::sample_pac();
    let mut v = dump_motion(&MotionFile::Pac(Pac::read(&data).unwrap()));
    v["file"]["members"][0]["kind"]["mot"]["trackCount"] = 1.into();
    let e = build(&v).unwrap_err().to_string();
    assert!(
        e.starts_with("/file/members/0/kind/mot/trackCount: cannot write: is 1 but /file/members/0/kind/mot/tracks holds "),
        "{e}"
    );
}
