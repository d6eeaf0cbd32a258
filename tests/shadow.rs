//! Shadow models (`SHW `) by the full layout: generated members (written byte by byte by the
//! generator, not the library's writer) read with their vertices and selectors as this test's
//! own reader finds them and write back byte for byte; a member that does not fit stays
//! opaque; no cut of a member panics the reader; the library's rules (`rigtrip check`) find each
//! defect of a deliberately broken shadow; and `import --rebuild-shadows` through the CLI, on a
//! character archive whose body was edited, writes shadows this test's own check finds closed,
//! adjacent, on the right joints and within both budgets, and creates a coat's missing slot 14.

mod common;

use common::shw::{encloses, member, mod_vertices, problems, read_shadow};
use proptest::prelude::*;
use rigtrip::native::dmc3::pac::{Member, MemberKind};
use rigtrip::native::dmc3::shadow::{Shw, Solid};
use rigtrip::native::finding::{Finding, Severity};
use rigtrip::synth::shadow::{open_shw, random_shw};
use std::path::Path;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_generated_shadow_model_reads_its_four_lists_and_writes_back(seed in any::<u64>()) {
        let data = random_shw(seed);
        let MemberKind::Shadow(s) = Member::classify(&data) else {
            panic!("seed {seed}: not read as a shadow model");
        };
        prop_assert_eq!(s.write(), data.clone());
        let own = read_shadow(&data);
        prop_assert_eq!(s.hulls.len(), own.hulls.len());
        prop_assert_eq!(usize::from(s.node_count()), own.nodes);
        for (h, (hull, mine)) in s.hulls.iter().zip(&own.hulls).enumerate() {
            let tri: Vec<[u32; 3]> = mine.tri.iter().map(|x| [x[0], x[1], x[2]]).collect();
            prop_assert_eq!(&hull.triangles, &tri);
            prop_assert_eq!(&hull.points(), &mine.pos);
            prop_assert_eq!(&hull.selectors, &mine.sel);
            prop_assert!(common::closed_hull(mine.pos.len(), &tri), "hull {} not closed", h);
            prop_assert!(mine.sel.iter().all(|&j| usize::from(j) < own.nodes));
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
            prop_assert_eq!(s.write(), data.clone());
        }
        let _ = rigtrip::native::dmc3::shadow_rules::findings(&data, Some(24));
    }
}

#[test]
fn a_shadow_model_with_an_open_hull_stays_opaque_and_check_says_why() {
    let data = open_shw(7);
    assert!(Shw::read(&data).is_none());
    assert!(matches!(Member::classify(&data), MemberKind::Opaque(_)));
    let f = rigtrip::native::dmc3::shadow_rules::findings(&data, None);
    assert!(
        f.iter().any(|f| f.place == "hull 0"
            && f.problem
                .contains("edge(s) not shared by exactly two triangles")),
        "{f:?}"
    );
}

/// A tetrahedron of radius 1 around `c` on `joint`.
fn tetra(joint: u8, c: f32) -> Solid {
    let corners = [
        [1.0, 1.0, 1.0],
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0],
    ];
    Solid {
        joint,
        corners: corners
            .iter()
            .map(|p: &[f32; 3]| p.map(|x| x + c))
            .collect(),
        triangles: vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
    }
}

#[test]
fn the_library_writes_new_hulls_by_the_retail_layout_as_this_tests_reader_finds_it() {
    let s = Shw::of_solids(None, 24, &[tetra(3, 0.0), tetra(21, 5.0)]);
    let bytes = s.write();
    let own = read_shadow(&bytes);
    assert_eq!(problems(&own, 24), Vec::<String>::new());
    assert_eq!((own.version, bytes[0x12], bytes[0x14]), (0.5, 1, 2));
    assert_eq!(own.hulls[0].sel, [3; 4]);
    assert_eq!(own.hulls[1].sel, [21; 4]);
    assert_eq!(own.hulls[1].pos[0], [6.0, 6.0, 6.0, 1.0]);
    assert_eq!(bytes.len() % 16, 0);
    assert_eq!(Shw::read(&bytes).as_ref(), Some(&s));
}

/// The findings of `bytes` edited by `edit`, for a model of 24 nodes.
fn findings_after(edit: impl Fn(&mut Vec<u8>)) -> Vec<Finding> {
    let mut b = Shw::of_solids(None, 24, &[tetra(3, 0.0), tetra(21, 5.0)]).write();
    edit(&mut b);
    rigtrip::native::dmc3::shadow_rules::findings(&b, Some(24))
}

/// The one finding of `f`: its place, field and severity.
fn one(f: &[Finding]) -> (&str, &str, Severity) {
    assert_eq!(f.len(), 1, "{f:#?}");
    (&f[0].place, &f[0].field, f[0].severity)
}

#[test]
fn check_finds_each_defect_of_a_broken_shadow_by_the_games_rules() {
    use Severity::{Note, Stops};
    let hull1 = 0x20 + 0x40;
    let off = |b: &[u8], k: usize| {
        u64::from_le_bytes(
            b[hull1 + 0x10 + 8 * k..hull1 + 0x18 + 8 * k]
                .try_into()
                .unwrap(),
        ) as usize
    };
    assert_eq!(findings_after(|_| {}), []);
    // A selector past +0x11.
    let f = findings_after(|b| {
        let at = off(b, 3);
        b[at + 2] = 24;
    });
    assert_eq!(one(&f), ("hull 1", "+0x28 selector list", Stops));
    // +0x11 other than the model's node count.
    let f = findings_after(|b| b[0x11] = 30);
    assert_eq!(one(&f), ("", "+0x11 node count", Stops));
    let f = findings_after(|b| b[0x11] = 22);
    assert_eq!(one(&f), ("", "+0x11 node count", Note));
    // The selector list moved past the member's end.
    let f = findings_after(|b| {
        let len = b.len() as u64;
        b[hull1 + 0x28..hull1 + 0x30].copy_from_slice(&len.to_le_bytes());
    });
    assert_eq!(one(&f), ("hull 1", "+0x28 selector list", Stops));
    // A triangle naming a vertex past V.
    let f = findings_after(|b| {
        let at = off(b, 0);
        b[at..at + 4].copy_from_slice(&9u32.to_le_bytes());
    });
    assert_eq!(one(&f), ("hull 1", "+0x10 triangle list", Stops));
    // Two corners of a triangle swapped: the hull is open.
    let f = findings_after(|b| {
        let at = off(b, 0);
        b.copy_within(at..at + 4, at + 4);
        b[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
    });
    assert!(
        f.iter().any(|x| x.field == "+0x10 triangle list"
            && x.severity == Note
            && x.problem.contains("not shared by exactly two")),
        "{f:#?}"
    );
    // An adjacency entry naming the wrong neighbour, and one past T.
    let f = findings_after(|b| {
        let at = off(b, 1);
        let x = u16::from_le_bytes([b[at], b[at + 1]]);
        b[at..at + 2].copy_from_slice(&((x + 1) % 4).to_le_bytes());
    });
    assert_eq!(one(&f), ("hull 1", "+0x18 adjacency list", Note));
    let f = findings_after(|b| {
        let at = off(b, 1);
        b[at..at + 2].copy_from_slice(&4u16.to_le_bytes());
    });
    assert_eq!(one(&f), ("hull 1", "+0x18 adjacency list", Stops));
    // w other than 1.
    let f = findings_after(|b| {
        let at = off(b, 2) + 12;
        b[at..at + 4].copy_from_slice(&2.0f32.to_le_bytes());
    });
    assert_eq!(one(&f), ("hull 1", "+0x20 vertex list", Note));
    // A vertex count the game reads as negative (the lists then run past the member, too).
    let f = findings_after(|b| b[hull1 + 1] = 0x80);
    assert!(
        f.iter()
            .any(|x| x.field == "+0x00 vertex count" && x.severity == Stops),
        "{f:#?}"
    );
    // A list not 16-aligned.
    let f = findings_after(|b| {
        let at = off(b, 3) as u64 + 1;
        b[hull1 + 0x28..hull1 + 0x30].copy_from_slice(&at.to_le_bytes());
    });
    assert_eq!(one(&f), ("hull 1", "+0x28 selector list", Note));
}

#[test]
fn check_holds_a_shadow_to_both_budgets() {
    // 40 octahedra-like hulls of 24 triangles: 960 triangles, past the draw budget.
    let big: Vec<Solid> = (0..40)
        .map(|k| {
            let (v, t) = rigtrip::rig::hull::padded_box(
                glam::DVec3::splat(k as f64),
                glam::DVec3::splat(k as f64 + 1.0),
                0.1,
            );
            let mut t2 = t.clone();
            t2.extend(t.iter().map(|x| x.map(|i| i + 8)));
            let mut v2: Vec<[f32; 3]> = v.iter().map(|p| p.map(|x| x as f32)).collect();
            v2.extend(v.iter().map(|p| p.map(|x| x as f32 + 0.25)));
            Solid {
                joint: 0,
                corners: v2,
                triangles: t2,
            }
        })
        .collect();
    let f = Shw::of_solids(None, 1, &big).findings(Some(1));
    let draw: Vec<_> = f.iter().filter(|x| x.field == "draw groups").collect();
    assert_eq!(draw.len(), 1, "{f:#?}");
    assert_eq!(draw[0].severity, Severity::Stops);
    assert!(
        draw[0].problem.starts_with("960 triangles"),
        "{}",
        draw[0].problem
    );
}

#[test]
fn a_coated_archive_shows_its_shadow_models_hull_by_hull_with_their_joints() {
    let pac = rigtrip::synth::texture::sample_coated_pac();
    let file = rigtrip::native::MotionFile::read(rigtrip::native::MotionFormat::Pac, &pac).unwrap();
    let c = rigtrip::ops::coverage::motion_coverage(&file, &pac);
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    let sum: u64 = c.entries.iter().map(|e| e.end - e.start).sum();
    assert_eq!(sum, pac.len() as u64);
    for (slot, owner) in [(8, 1), (14, 12)] {
        let p = rigtrip::native::dmc3::Pac::read(&pac).unwrap();
        let i = p.members.iter().position(|m| m.slots == [slot]).unwrap();
        assert!(
            matches!(p.members[i].kind, MemberKind::Shadow(_)),
            "slot {slot}"
        );
        for list in ["triangles", "adjacency", "vertices", "selectors"] {
            let what = format!("member {i} hull 0 {list}");
            let e = c
                .entries
                .iter()
                .find(|e| e.what == what)
                .unwrap_or_else(|| panic!("{what}"));
            assert_eq!(e.kind, rigtrip::native::record::Kind::Decoded);
        }
        // The sample's shadows are what the game needs of them, by this test's own check.
        let (nodes, _) = mod_vertices(member(&pac, owner).unwrap());
        let own = read_shadow(member(&pac, slot).unwrap());
        assert_eq!(problems(&own, nodes), Vec::<String>::new(), "slot {slot}");
    }
    let path = common::tmp("coated_shadows.pac");
    std::fs::write(&path, &pac).unwrap();
    let text = common::text(&common::run(&["inspect", path.to_str().unwrap()]).stdout);
    assert!(text.contains("slot(s) [14] (coat shadow): shw"), "{text}");
    assert!(text.contains("node count 49 (its model's: 49)"), "{text}");
    let line = text.lines().find(|l| l.contains("hull 0: joint ")).unwrap();
    assert!(line.contains(" mod_"), "{line}");
}

/// `rigtrip ARGS` in `dir`, which must succeed; its stdout.
fn rigtrip_ok(dir: &Path, args: &[&str]) -> String {
    let out = common::run_in(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        common::text(&out.stderr)
    );
    common::text(&out.stdout)
}

/// What this test's own check finds wrong with the shadow `s` for the model `model` (MOD
/// bytes): the layout's rules, one joint per hull, and every hull on the joint whose vertices
/// it encloses (on its surface or inside): at least 90% of the vertices a hull's joint
/// dominates lie in that hull, and 90% of the vertices of a joint without a hull (folded into
/// another's) lie in some hull. (A plain count of the vertices inside a hull would not do: a
/// forearm's hull takes in the roots of the five fingers at the wrist, more vertices than the
/// forearm's own.)
fn own_check(shadow: &[u8], model: &[u8]) -> Vec<String> {
    let (nodes, vertices) = mod_vertices(model);
    let s = read_shadow(shadow);
    let mut out = problems(&s, nodes);
    let inside = |h: &common::shw::Hull, p: [f32; 3]| encloses(&h.pos, &h.tri, p, 1.02);
    let mut joints = std::collections::BTreeMap::<usize, (usize, usize)>::new();
    for (p, j) in &vertices {
        let own = s.hulls.iter().find(|h| usize::from(h.sel[0]) == *j);
        let held = match own {
            Some(h) => inside(h, *p),
            None => s.hulls.iter().any(|h| inside(h, *p)),
        };
        let e = joints.entry(*j).or_default();
        *e = (e.0 + held as usize, e.1 + 1);
    }
    for (j, (held, all)) in joints {
        if held * 10 < all * 9 {
            out.push(format!(
                "joint {j}: {held} of its {all} vertices in its hull"
            ));
        }
    }
    for (i, h) in s.hulls.iter().enumerate() {
        if h.sel.iter().any(|&j| j != h.sel[0]) {
            out.push(format!("hull {i} on joints {:?}", h.sel));
        }
    }
    out
}

/// `shadow` with the selectors of its first two hulls swapped (each hull on the other's joint).
fn swapped(shadow: &[u8]) -> Vec<u8> {
    let s = read_shadow(shadow);
    let (a, b) = (s.hulls[0].sel[0], s.hulls[1].sel[0]);
    let mut out = shadow.to_vec();
    for (h, j) in [(0, b), (1, a)] {
        let at = s.hulls[h].offsets[3];
        out[at..at + s.hulls[h].sel.len()].fill(j);
    }
    out
}

#[test]
fn rebuild_shadows_through_the_cli_writes_hulls_on_their_joints_within_the_budgets() {
    let dir = common::scratch("shadow_rebuild");
    let pac = common::sample("dmc3_coated.pac");
    std::fs::write(dir.join("pl000.pac"), &pac).unwrap();
    rigtrip_ok(&dir, &["export", "pl000.pac", "-o", "pl000.glb"]);
    let mut glb = std::fs::read(dir.join("pl000.glb")).unwrap();
    common::shrink_first_mesh(&mut glb);
    std::fs::write(dir.join("edited.glb"), &glb).unwrap();
    let args = ["import", "edited.glb", "-o", "out.pac", "--rebuild-shadows"];
    let text = rigtrip_ok(&dir, &args);
    // The game is the judge of the edited archive: rigtrip check finds nothing in it.
    let check = rigtrip_ok(&dir, &["check", "out.pac"]);
    assert!(check.starts_with("pass    pac  out.pac"), "{check}");
    let out = std::fs::read(dir.join("out.pac")).unwrap();
    assert_eq!(common::changed_members(&pac, &out), [vec![1], vec![8]]);
    let (shadow, body) = (member(&out, 8).unwrap(), member(&out, 1).unwrap());
    assert_eq!(own_check(shadow, body), Vec::<String>::new());
    assert_ne!(own_check(&swapped(shadow), body), Vec::<String>::new());
    let s = read_shadow(member(&out, 8).unwrap());
    assert!(s.hulls.len() >= 10, "{} hulls", s.hulls.len());
    let note = text
        .lines()
        .find(|l| l.contains("shadow rebuilt from the new meshes"))
        .unwrap();
    let t: usize = s.hulls.iter().map(|h| h.tri.len()).sum();
    for want in [
        format!("{} closed hull(s), one per joint: ", s.hulls.len()),
        format!(" triangles ({t} of the 910 the draw budget allows)"),
        "node count 49".into(),
    ] {
        assert!(note.contains(&want), "{want:?} in {note}");
    }
    // The sample's own shadows and the rebuilt one pass the library's rules too.
    let p = rigtrip::native::dmc3::Pac::read(&out).unwrap();
    let MemberKind::Shadow(shw) = &p.member_of(8).unwrap().kind else {
        panic!("slot 8 does not read as a shadow model");
    };
    assert_eq!(shw.findings(Some(49)), []);
}

#[test]
fn a_coat_without_its_shadow_gets_slot_14_from_the_coat_on_request_only() {
    let dir = common::scratch("shadow_slot14");
    let full = common::sample("dmc3_coated.pac");
    // The coated sample without slot 14 (its member is the last: cut it off).
    let at = u32::from_le_bytes(full[8 + 4 * 14..12 + 4 * 14].try_into().unwrap()) as usize;
    assert!(member(&full, 14).unwrap().len() == full.len() - at);
    let mut pac = full[..at].to_vec();
    pac[8 + 4 * 14..12 + 4 * 14].fill(0);
    std::fs::write(dir.join("pl011.pac"), &pac).unwrap();
    rigtrip_ok(&dir, &["export", "pl011.pac", "-o", "pl011.glb"]);
    let text = rigtrip_ok(&dir, &["import", "pl011.glb", "-o", "same.pac"]);
    assert!(std::fs::read(dir.join("same.pac")).unwrap() == pac);
    assert!(text.contains("slot 14 (its shadow) is empty"), "{text}");
    let args = [
        "import",
        "pl011.glb",
        "-o",
        "fixed.pac",
        "--rebuild-shadows",
    ];
    let text = rigtrip_ok(&dir, &args);
    let fixed = std::fs::read(dir.join("fixed.pac")).unwrap();
    assert!(
        text.contains("slot 14 (coat shadow) created from the coat"),
        "{text}"
    );
    // Every member as it was, the new one after them.
    assert_eq!(&fixed[..8 + 4 * 14], &pac[..8 + 4 * 14]);
    assert_eq!(&fixed[12 + 4 * 14..pac.len()], &pac[12 + 4 * 14..]);
    assert_eq!(
        member(&fixed, 14).unwrap().as_ptr(),
        fixed[pac.len().next_multiple_of(16)..].as_ptr()
    );
    let (shadow, coat) = (member(&fixed, 14).unwrap(), member(&fixed, 12).unwrap());
    assert_eq!(own_check(shadow, coat), Vec::<String>::new());
    assert_ne!(own_check(&swapped(shadow), coat), Vec::<String>::new());
}
