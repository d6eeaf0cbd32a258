//! Shadow models (`SHW `) by the public layout: generated members read as shadow models and
//! write back byte for byte, their hulls closed and manifold by a check of this test's own, a
//! member that does not fit stays opaque, and no cut of a member panics the reader.

mod common;

use proptest::prelude::*;
use rigtrip::native::dmc3::pac::{Member, MemberKind};
use rigtrip::native::dmc3::shadow::Shw;
use rigtrip::synth::shadow::{open_shw, random_shw};

/// The test's own reading of a hull's triangles straight from the bytes: record `h`'s vertex
/// and triangle counts and its triangle list.
fn triangles_of(data: &[u8], h: usize) -> (usize, Vec<[u32; 3]>) {
    let r = 0x20 + 0x40 * h;
    let v = u16::from_le_bytes([data[r], data[r + 1]]) as usize;
    let t = u16::from_le_bytes([data[r + 2], data[r + 3]]) as usize;
    let at = u64::from_le_bytes(data[r + 0x10..r + 0x18].try_into().unwrap()) as usize;
    let word = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
    let tris = (0..t)
        .map(|k| [0, 1, 2].map(|c| word(at + 16 * k + 4 * c)))
        .collect();
    (v, tris)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_generated_shadow_model_reads_and_writes_back_and_its_hulls_are_closed(seed in any::<u64>()) {
        let data = random_shw(seed);
        let MemberKind::Shadow(s) = Member::classify(&data) else {
            panic!("seed {seed}: not read as a shadow model");
        };
        prop_assert_eq!(s.write(), data.clone());
        prop_assert_eq!(s.hulls.len(), data[0x10] as usize);
        for (h, hull) in s.hulls.iter().enumerate() {
            let (v, t) = triangles_of(&data, h);
            prop_assert_eq!(usize::from(hull.vertices), v);
            prop_assert_eq!(&hull.triangles, &t);
            prop_assert!(common::closed_hull(v, &t), "hull {} not closed", h);
        }
    }

    #[test]
    fn no_cut_or_flip_of_a_shadow_model_panics_and_what_reads_writes_back(
        seed in any::<u64>(), cut in 0usize..2000, flip in 0usize..2000, bit in 0u8..8,
    ) {
        let mut data = random_shw(seed);
        if let Some(b) = data.get_mut(flip) {
            *b ^= 1 << bit;
        }
        data.truncate(cut.min(data.len()));
        if let Some(s) = Shw::read(&data) {
            prop_assert_eq!(s.write(), data);
        }
    }
}

#[test]
fn a_shadow_model_with_an_open_hull_stays_opaque() {
    let data = open_shw(7);
    assert!(Shw::read(&data).is_none());
    assert!(matches!(Member::classify(&data), MemberKind::Opaque(_)));
}

#[test]
fn a_coated_archive_shows_its_shadow_models_hull_by_hull_in_coverage_and_inspect() {
    let mut rng = rigtrip::synth::rng::Rng::new(0x5E1);
    let pac = rigtrip::synth::texture::coated_character_pac(
        &mut rng,
        rigtrip::synth::texture::sample_ptx(),
        rigtrip::synth::dmc3::sample_mod(),
        rigtrip::synth::dmc3::sample_coat(true),
    );
    let file = rigtrip::native::MotionFile::read(rigtrip::native::MotionFormat::Pac, &pac).unwrap();
    let c = rigtrip::ops::coverage::motion_coverage(&file, &pac);
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    let sum: u64 = c.entries.iter().map(|e| e.end - e.start).sum();
    assert_eq!(sum, pac.len() as u64);
    for slot in [8, 14] {
        let p = rigtrip::native::dmc3::Pac::read(&pac).unwrap();
        let (i, m) = p
            .members
            .iter()
            .enumerate()
            .find(|(_, m)| m.slots == [slot])
            .unwrap();
        let MemberKind::Shadow(s) = &m.kind else {
            panic!("slot {slot} is not read as a shadow model");
        };
        let hull0 = format!("member {i} hull 0 triangles");
        assert!(c.entries.iter().any(|e| e.what == hull0), "{hull0}");
        assert!(s.hulls.iter().all(|h| !h.triangles.is_empty()));
    }
    // inspect: each model member with its objects and meshes, each shadow hull by hull.
    let path = common::tmp("coated_shadows.pac");
    std::fs::write(&path, &pac).unwrap();
    let text = common::text(&common::run(&["inspect", path.to_str().unwrap()]).stdout);
    assert!(text.contains("slot(s) [12] (coat): mod"), "{text}");
    assert!(
        text.contains("      object 0: 1 mesh(es), vertex count 40"),
        "{text}"
    );
    assert!(text.contains("slot(s) [14] (coat shadow): shw"), "{text}");
    assert!(text.contains("      hull 0: "), "{text}");
}
