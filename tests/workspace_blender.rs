//! A MOD in the retail layout edited in Blender 4.5 as a modder would (its largest mesh
//! subdivided, a new mesh added under a new name), exported and imported: the result is a file
//! the game can load. The test's own checker (tests/meshback/retail.rs, written from the rule,
//! not the library's layout code) finds every index workspace where its mesh record's +0x40
//! points, of the size its vertex count needs, tiling the end of the file with the game's fill,
//! and the streams in the retail order; the test's own reader (tests/meshback/reader.rs) finds
//! the subdivided mesh grown and the new mesh in an object of its own; `rigtrip check` finds
//! nothing in it.

mod common;
#[path = "meshback/reader.rs"]
mod reader;
#[path = "meshback/retail.rs"]
mod retail;

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export, to_glb, ExportOptions};
use rigtrip::native::NativeFile;
use rigtrip::ops::verify::{verify_bytes_legs, LayoutLeg, Legs, Verdict};
use rigtrip::rig;

/// A real-layout MOD with a skeleton of at least three joints and two meshes of triangles in
/// its first object, identical on every leg: (seed, bytes).
fn pick() -> (u64, Vec<u8>) {
    (0..200u64)
        .map(|seed| (seed, rigtrip::synth::dmc3::real_layout(seed, false)))
        .find(|(_, data)| {
            let f = reader::read(data);
            let meshes: Vec<&reader::RMesh> = f.objects.iter().flat_map(|o| &o.meshes).collect();
            f.bones >= 3
                && f.objects.first().is_some_and(|o| o.meshes.len() >= 2)
                && meshes
                    .iter()
                    .all(|m| m.triangles().len() >= 3 || m.positions.len() < 3)
                && matches!(
                    verify_bytes_legs(None, data, Legs::All),
                    Verdict::Identical {
                        layout: LayoutLeg::Identical,
                        ..
                    }
                )
        })
        .unwrap()
}

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn a_subdivided_mesh_and_a_new_one_get_their_workspaces() {
    let (seed, data) = pick();
    edited_in_blender(&format!("real_layout seed {seed}"), &data);
    // The bundled humanoid, in the retail layout too, with meshes of a few hundred vertices.
    edited_in_blender("sample humanoid", &rigtrip::synth::dmc3::sample_mod());
}

/// `data` (a MOD in the retail layout) through Blender: its largest mesh subdivided once and a
/// box `prop` added on `mod_1`; the import checked as the module doc says.
fn edited_in_blender(label: &str, data: &[u8]) {
    let data = data.to_vec();
    let tag = label.replace(' ', "_");
    let before = reader::read(&data);
    retail::check(&data).unwrap();
    // The largest mesh, by its node name.
    let (o, m) = (0..before.objects.len())
        .flat_map(|o| (0..before.objects[o].meshes.len()).map(move |m| (o, m)))
        .max_by_key(|&(o, m)| before.objects[o].meshes[m].positions.len())
        .unwrap();
    let largest = format!("object{o}_mesh{m}");
    let rig = rig::lift(NativeFile::read(None, &data).unwrap());
    let src = common::tmp(&format!("workspace_blender/{tag}.glb"));
    std::fs::write(
        &src,
        to_glb(&export(&rig, &ExportOptions::default()).unwrap()).unwrap(),
    )
    .unwrap();
    let dst = common::tmp(&format!("workspace_blender/{tag}_edited.glb"));
    common::blender_roundtrip(
        &src,
        &dst,
        &["--subdivide", &largest, "1", "--add-mesh", "prop", "mod_1"],
    );
    let got = import_slice(
        &std::fs::read(&dst).unwrap(),
        None,
        &ImportOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{label}: {}", rigtrip::chain(&e)));
    println!("{label}, {largest}:\n{}", got.report.render_text());
    let out = &got.bytes;
    let after = reader::read(out);

    // The largest mesh grew, and the new mesh is in an object of its own.
    let grown = &after.objects[o].meshes[m];
    let was = before.objects[o].meshes[m].positions.len();
    assert!(
        grown.positions.len() > was,
        "{largest}: {was} -> {} vertices",
        grown.positions.len()
    );
    assert_eq!(after.objects.len(), before.objects.len() + 1);
    let prop = &after.objects.last().unwrap().meshes;
    assert_eq!(prop.len(), 1);
    assert!(prop[0].positions.len() >= 8 && prop[0].triangles().len() == 12);

    // The file is in the retail layout, every workspace in its place: what the game needs.
    let r = retail::check(out).unwrap_or_else(|e| panic!("{label}: {e}"));
    let meshes: usize = after.objects.iter().map(|o| o.meshes.len()).sum();
    assert_eq!(r.meshes, meshes);
    assert_eq!(r.carried, 0);
    assert!(
        r.vertex_sums,
        "every object's vertex count is its meshes' sum"
    );
    let needed: usize = after
        .objects
        .iter()
        .flat_map(|o| &o.meshes)
        .map(|m| (6 * m.positions.len().saturating_sub(2)).div_ceil(16) * 16)
        .sum();
    assert_eq!(r.workspace_bytes, needed);
    assert_eq!(&out[out.len() - 4..], &[0x12, 0x12, 0, 0]);
    println!(
        "{} bytes -> {} bytes; workspaces {} bytes over {meshes} meshes",
        data.len(),
        out.len(),
        r.workspace_bytes
    );

    // And it verifies: round trips identical, in the retail layout.
    assert!(matches!(
        verify_bytes_legs(None, out, Legs::All),
        Verdict::Identical {
            layout: LayoutLeg::Identical,
            ..
        }
    ));

    // `rigtrip check` (the game's loader model), run as a modder runs it, finds nothing.
    let written = common::tmp(&format!("workspace_blender/{tag}_edited.mod"));
    std::fs::write(&written, out).unwrap();
    let o = common::rigtrip()
        .args(["check", "--json"])
        .arg(&written)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{label}: {v}");
    assert_eq!(v["files"][0]["status"], "pass", "{label}: {v}");
    assert_eq!(
        v["files"][0]["findings"],
        serde_json::json!([]),
        "{label}: {v}"
    );
    assert_eq!(
        (&v["summary"]["stop_findings"], &v["summary"]["notes"]),
        (&serde_json::json!(0), &serde_json::json!(0)),
        "{label}: {v}"
    );
}
