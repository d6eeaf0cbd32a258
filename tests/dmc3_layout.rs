//! The MOD/SCM retail layout: on files in the retail layout (the generators' real-layout mode,
//! written from the rule without the library) the layout pass reproduces every byte; on
//! generated files with shared streams, shuffled chunks, gaps and stray +0x40 values it keeps
//! every decoded value, carries the bytes the retail layout has no place for, and its result
//! is in the retail layout, index workspaces included, as the test's own checker
//! (tests/meshback/retail.rs) and reader (tests/meshback/reader.rs) see it.

mod common;

#[path = "meshback/reader.rs"]
mod reader;
#[path = "meshback/retail.rs"]
mod retail;

use rigtrip::native::dmc3::layout::{laid_out_anew, relayout, tiles};
use rigtrip::native::dmc3::{read_container, write, Workspace};
use rigtrip::synth::dmc3::{random_exportable, random_mod, random_scm, real_layout};

fn relaid(data: &[u8]) -> Vec<u8> {
    let mut f = read_container(data).unwrap();
    assert!(tiles(f.parts()), "a read file tiles");
    let c = f.container.as_mut().unwrap();
    relayout(&mut c.header, &mut c.objects, f.block.as_mut(), &mut f.gaps).unwrap();
    f.gaps.sort_by_key(|g| g.offset);
    let out = write(&f).unwrap();
    assert!(tiles(read_container(&out).unwrap().parts()));
    // The one retail layout function, as verify calls it, gives the same bytes.
    let (anew, _) = laid_out_anew(&read_container(data).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(anew, out);
    out
}

#[test]
fn a_real_layout_comes_back_byte_for_byte() {
    let mut workspaces = 0;
    for seed in 0..200 {
        for scm in [false, true] {
            let data = real_layout(seed, scm);
            // Read and written as it is, and laid out anew: the same bytes.
            let f = read_container(&data).unwrap();
            assert_eq!(write(&f).unwrap(), data, "seed {seed} scm {scm}");
            assert_eq!(relaid(&data), data, "seed {seed} scm {scm}");
            // Every workspace is a structure of the file: none of its bytes is a gap.
            for m in f
                .container
                .iter()
                .flat_map(|c| &c.objects)
                .flat_map(|o| &o.meshes)
            {
                assert_eq!(m.workspace, Workspace::Fill, "seed {seed} scm {scm}");
                workspaces += 1;
            }
            assert!(f.gaps.iter().all(|g| g.bytes.iter().all(|&b| b == 0)));
        }
    }
    assert!(workspaces > 500, "{workspaces}");
}

/// The generator's real layout, as the test's own checker reads it: every workspace where
/// +0x40 points, the right size, 0x12 then two zero bytes at the end of the file.
#[test]
fn real_layouts_end_with_their_workspaces() {
    let mut with_block = 0;
    for seed in 0..100 {
        for scm in [false, true] {
            let data = real_layout(seed, scm);
            let r = retail::check(&data).unwrap_or_else(|e| panic!("seed {seed} scm {scm}: {e}"));
            assert_eq!(r.carried, 0);
            if r.workspace_bytes > 0 {
                assert_eq!(&data[data.len() - 4..], &[0x12, 0x12, 0, 0]);
            }
            with_block += usize::from(data[0x11] > 0);
        }
    }
    assert!(with_block > 80, "{with_block}");
}

/// Every decoded value but what the layout sets is kept; the bytes with no place in the retail
/// layout keep their non-fill bytes, in order; the result is in the retail layout.
#[test]
fn generated_layouts_keep_every_value() {
    let mut moved_gaps = 0;
    let mut carried = 0;
    for seed in 0..300u64 {
        let data = match seed % 3 {
            0 => random_mod(seed),
            1 => random_scm(seed),
            _ => random_exportable(seed, seed % 2 == 0),
        };
        let Ok(f) = read_container(&data) else {
            continue;
        };
        let out = relaid(&data);
        let (a, b) = (reader::read(&data), reader::read(&out));
        assert_eq!(a.objects, b.objects, "seed {seed}");
        assert_eq!(a.bones, b.bones);
        let back = read_container(&out).unwrap();
        if let (Some(x), Some(y)) = (&f.block, &back.block) {
            assert_eq!(
                (&x.parents, &x.order, &x.groups, &x.transforms),
                (&y.parents, &y.order, &y.groups, &y.transforms)
            );
            assert_eq!(y.offset % 16, 0);
        }
        // The bytes of gaps that are not fill (zero, 0x12) all come back, in order.
        let kept = |gaps: &[rigtrip::bytes::Gap]| -> Vec<u8> {
            gaps.iter()
                .filter(|g| g.bytes.iter().any(|&b| b != 0 && b != 0x12))
                .flat_map(|g| g.bytes.iter().copied())
                .filter(|&b| b != 0)
                .collect()
        };
        moved_gaps += f
            .gaps
            .iter()
            .filter(|g| g.bytes.iter().any(|&b| b != 0 && b != 0x12))
            .count();
        // Carried gaps may merge with the zero fill around them when read again.
        assert_eq!(kept(&f.gaps), kept(&back.gaps), "seed {seed}");
        let r = retail::check(&out).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        carried += r.carried;
        // Every mesh has its workspace now.
        for m in back
            .container
            .iter()
            .flat_map(|c| &c.objects)
            .flat_map(|o| &o.meshes)
        {
            assert_eq!(m.workspace, Workspace::Fill, "seed {seed}");
        }
    }
    assert!(moved_gaps > 50, "only {moved_gaps} non-fill gaps seen");
    assert!(carried > 500, "only {carried} carried bytes");
}

/// A file whose +0x40 points at free bytes of the right size keeps them as its workspace (read
/// as a structure, written back byte for byte), whatever they hold; one that points anywhere
/// else has none.
#[test]
fn workspaces_are_found_only_where_they_fit() {
    let data = real_layout(3, false);
    let f = read_container(&data).unwrap();
    let c = f.container.as_ref().unwrap();
    let (o, m) = (0..c.objects.len())
        .flat_map(|o| (0..c.objects[o].meshes.len()).map(move |m| (o, m)))
        .find(|&(o, m)| c.objects[o].meshes[m].vertex_count() >= 3)
        .unwrap();
    let rec = c.objects[o].record.mesh_offset as usize + 0x50 * m;
    let ws = rec + c.objects[o].meshes[m].record.workspace_offset as usize;
    // Other bytes in the workspace: carried as its bytes.
    let mut odd = data.clone();
    odd[ws + 3] = 0x77;
    let f = read_container(&odd).unwrap();
    let mesh = &f.container.as_ref().unwrap().objects[o].meshes[m];
    assert!(matches!(&mesh.workspace, Workspace::Bytes(b) if b[3] == 0x77));
    assert_eq!(write(&f).unwrap(), odd);
    // +0x40 pointing at the mesh's own record: no workspace, the fill becomes a gap.
    let mut stray = data.clone();
    stray[rec + 0x40..rec + 0x48].copy_from_slice(&0u64.to_le_bytes());
    let f = read_container(&stray).unwrap();
    let mesh = &f.container.as_ref().unwrap().objects[o].meshes[m];
    assert_eq!(mesh.workspace, Workspace::Absent);
    assert!(f.gaps.iter().any(|g| g.bytes.contains(&0x12)));
    assert_eq!(write(&f).unwrap(), stray);
    // Laid out anew, both are the retail file again.
    assert_eq!(relaid(&odd), data);
    assert_eq!(relaid(&stray), data);
}

/// `verify --legs layout|all`: every real-layout model is identical on all three legs and in
/// the retail layout; a generated file in another layout is identical but not retail (exit 0);
/// files without a MOD/SCM layout say so; an archive lists its model members.
#[test]
fn the_layout_leg_of_verify() {
    use rigtrip::ops::verify::{verify_bytes_legs, LayoutLeg, Legs, Summary, Verdict};
    let leg = |data: &[u8], legs| match verify_bytes_legs(None, data, legs) {
        Verdict::Identical { layout, .. } => layout,
        other => panic!("{other:?}"),
    };
    for seed in 0..100 {
        for scm in [false, true] {
            assert_eq!(
                leg(&real_layout(seed, scm), Legs::All),
                LayoutLeg::Identical,
                "seed {seed} scm {scm}"
            );
        }
    }
    let mut summary = Summary::default();
    let mut not_retail = 0;
    for seed in 0..40 {
        let data = random_exportable(seed, seed % 2 == 0);
        let v = verify_bytes_legs(None, &data, Legs::Layout);
        if let Verdict::Identical {
            layout: LayoutLeg::NotRetail(d),
            ..
        } = &v
        {
            not_retail += 1;
            assert!(d.first < d.original.max(d.retail), "{d:?}");
            assert!(!d.structure.is_empty());
        }
        summary.add(&v);
    }
    assert!(not_retail > 20, "{not_retail}");
    assert_eq!(summary.exit_code(), 0, "not retail is no failure");
    let counts = summary.layout.unwrap();
    assert_eq!(counts.retail + counts.not_retail, 40);
    // Without the leg, nothing is said.
    assert_eq!(leg(&real_layout(1, false), Legs::Both), LayoutLeg::NotRun);
    for data in [
        rigtrip::synth::hie::sample_db22(),
        rigtrip::synth::motion::sample_mot(),
        rigtrip::synth::texture::sample_ptx(),
    ] {
        assert!(matches!(leg(&data, Legs::All), LayoutLeg::NotApplicable(_)));
    }
    // The coated archive: the body and the coat, each in the retail layout (the body's member
    // ends in the archive's zero padding).
    let LayoutLeg::Members(m) = leg(&rigtrip::synth::texture::sample_coated_pac(), Legs::All)
    else {
        panic!()
    };
    assert_eq!(
        m.iter().map(|m| m.slots.clone()).collect::<Vec<_>>(),
        [vec![1], vec![12]]
    );
    assert!(m
        .iter()
        .all(|m| m.layout == LayoutLeg::Identical && m.format == "mod"));
}

/// `rigtrip check` (the game's loader model) finds nothing in a real-layout model: every
/// workspace present, sized and inside the file, each object's vertex count its meshes' sum.
/// Nor in the bundled model samples, loose or in the character archive.
#[test]
fn real_layouts_and_the_model_samples_pass_check() {
    use rigtrip::ops::check::{check_bytes, CheckOptions};
    use std::path::Path;
    let findings = |name: &str, data: &[u8]| {
        check_bytes(Path::new(name), data, &CheckOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: checked"))
            .findings
    };
    let mut checked = 0;
    for seed in 0..100 {
        for scm in [false, true] {
            let name = if scm { "m.scm" } else { "m.mod" };
            let f = findings(name, &real_layout(seed, scm));
            assert!(f.is_empty(), "seed {seed} scm {scm}: {f:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 200);
    for (name, data) in [
        ("dmc3_humanoid.mod", rigtrip::synth::dmc3::sample_mod()),
        ("dmc3_stage.scm", rigtrip::synth::dmc3::sample_scm()),
        (
            "dmc3_character.pac",
            rigtrip::synth::texture::sample_character_pac(),
        ),
    ] {
        let f = findings(name, &data);
        assert!(f.is_empty(), "{name}: {f:?}");
    }
}
