//! glTF import: export -> (edit) -> import gives back the native bytes, edits land only in the
//! fields they touch, and what the format cannot hold is refused with the joint and field named.
//! The Blender round trips are ignored by default (they need Blender, which
//! `tools/blender-python` installs); `.ci/run` runs them.

mod common;
use common::{load, tmp};

use std::path::PathBuf;

use rigtrip::gltf::import::{import_path, import_slice, ImportError, ImportOptions, Imported};
use rigtrip::gltf::{export, to_glb, to_gltf, ExportOptions};
use rigtrip::native::{Format, NativeFile};
use rigtrip::rig::{self, Rig};

fn opts() -> ImportOptions {
    ImportOptions::default()
}

/// The four samples as (name, bytes, format).
fn samples() -> Vec<(&'static str, Vec<u8>, Option<Format>)> {
    let (efm, offset, nodes) = rigtrip::synth::dmc3::sample_efm();
    vec![
        (
            "DB22HIE.BIN",
            rigtrip::synth::hie::sample_db22(),
            Some(Format::Hie),
        ),
        (
            "dmc3_humanoid.mod",
            rigtrip::synth::dmc3::sample_mod(),
            Some(Format::Dmc3),
        ),
        (
            "dmc3_stage.scm",
            rigtrip::synth::dmc3::sample_scm(),
            Some(Format::Dmc3),
        ),
        (
            "dmc3_effect.efm",
            efm,
            Some(Format::Block { offset, nodes }),
        ),
    ]
}

fn exported(data: &[u8], format: Option<Format>) -> (Vec<u8>, Vec<u8>) {
    let rig = load(format, data);
    let e = export(&rig, &ExportOptions::default()).unwrap();
    (to_glb(&e).unwrap(), to_gltf(&e).unwrap())
}

fn import(bytes: &[u8]) -> Result<Imported, ImportError> {
    import_slice(bytes, None, &opts())
}

#[test]
fn samples_come_back_exactly() {
    for (name, data, format) in samples() {
        let (glb, gltf) = exported(&data, format);
        for (what, bytes) in [("glb", &glb), ("gltf", &gltf)] {
            let got = import(bytes).unwrap_or_else(|e| panic!("{name} {what}: {e}"));
            assert!(got.bytes == data, "{name} {what}: bytes differ");
            println!("{name} {what}:\n{}", got.report.render_text());
        }
    }
}

/// Gate-passing generated files: HIE (default knobs, gate failures skipped; full-range offsets
/// included) and DMC3 exportable MOD/SCM, as (label, bytes, format).
fn generated() -> Vec<(String, Vec<u8>, Option<Format>)> {
    let mut out = Vec::new();
    let mut seed = 0u64;
    let mut hie = 0;
    while hie < 30 {
        let data = rigtrip::synth::hie::random(seed);
        let rig = load(Some(Format::Hie), &data);
        if rig.skeletons.iter().all(|s| s.gate.is_ok()) {
            out.push((format!("hie seed {seed}"), data, Some(Format::Hie)));
            hie += 1;
        }
        seed += 1;
    }
    for seed in 0..30u64 {
        let scm = seed % 3 == 2;
        let data = rigtrip::synth::dmc3::random_exportable(seed, scm);
        out.push((
            format!("dmc3 seed {seed} scm {scm}"),
            data,
            Some(Format::Dmc3),
        ));
    }
    out
}

#[test]
fn generated_files_come_back_exactly() {
    let files = generated();
    assert!(files.len() >= 50);
    // Offsets beyond 2^24 units, which a glTF float cannot hold: they come back from the
    // native offsets the export stores in the joint extras.
    let wide = files
        .iter()
        .filter(|(_, data, format)| {
            load(*format, data)
                .skeletons
                .iter()
                .flat_map(|s| &s.joints)
                .any(|j| j.translation.abs().max_element() > 16_777_216.0)
        })
        .count();
    assert!(
        wide >= 1,
        "no generated file with offsets beyond 2^24 units"
    );
    for (name, data, format) in files {
        let (glb, gltf) = exported(&data, format);
        for (what, bytes) in [("glb", &glb), ("gltf", &gltf)] {
            let got = import(bytes).unwrap_or_else(|e| panic!("{name} {what}: {e}"));
            assert!(got.bytes == data, "{name} {what}: bytes differ");
            assert!(
                got.report
                    .skeletons
                    .iter()
                    .all(|s| s.joints.is_empty() && s.removed.is_empty() && s.rewritten.is_empty()),
                "{name}: {}",
                got.report.render_text()
            );
        }
    }
}

/// The glTF JSON of an export (buffers embedded).
fn gltf_json(data: &[u8], format: Option<Format>) -> serde_json::Value {
    serde_json::from_slice(&exported(data, format).1).unwrap()
}

fn import_json(v: &serde_json::Value) -> Result<Imported, ImportError> {
    import(&serde_json::to_vec(v).unwrap())
}

/// Imports the document with `ignore_mesh_edits`, which must succeed.
fn import_ignoring_mesh_edits(v: &serde_json::Value) -> Imported {
    let opts = ImportOptions {
        ignore_mesh_edits: true,
        ..opts()
    };
    import_slice(&serde_json::to_vec(v).unwrap(), None, &opts).unwrap()
}

fn is_joint(n: &serde_json::Value) -> bool {
    n["extras"]["rigtrip"].get("joint").is_some()
}

/// Multiplies every joint translation and rotation component by 1 +- 1e-7 (alternating) and
/// gives every joint an explicit scale of 1 +- 1e-7: what DCC tools do to unedited values.
fn add_noise(v: &mut serde_json::Value) {
    let mut sign = 1.0;
    for n in v["nodes"].as_array_mut().unwrap() {
        if !is_joint(n) {
            continue;
        }
        for key in ["translation", "rotation"] {
            if let Some(a) = n.get_mut(key).and_then(|a| a.as_array_mut()) {
                for x in a {
                    sign = -sign;
                    let f = x.as_f64().unwrap();
                    *x = (f * (1.0 + sign * 1e-7) + sign * 1e-9).into();
                }
            }
        }
        n["scale"] = serde_json::json!([1.0 + 1e-7, 1.0 - 1e-7, 1.0 + 1e-7]);
    }
}

#[test]
fn float_noise_is_not_an_edit() {
    let files = samples()
        .into_iter()
        .map(|(n, d, f)| (n.to_string(), d, f))
        .chain(generated());
    for (name, data, format) in files {
        let mut v = gltf_json(&data, format);
        add_noise(&mut v);
        let got = import_json(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(got.bytes == data, "{name}: bytes differ");
        let joints = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| is_joint(n))
            .count();
        if joints > 0 {
            assert!(got.report.noise.scale > 0.0, "{name}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Blender (ignored by default; run with --include-ignored)

/// Exports `data` to `<name>.glb`, runs it through Blender (import, optional edits, export with
/// custom properties) into `<name>_blender.<ext>`, and returns that path.
fn blender_round_trip(
    data: &[u8],
    format: Option<Format>,
    name: &str,
    ext: &str,
    edits: &[&str],
) -> PathBuf {
    let rig = load(format, data);
    let e = export(&rig, &ExportOptions::default()).unwrap();
    let src = tmp(&format!("{name}.glb"));
    std::fs::write(&src, to_glb(&e).unwrap()).unwrap();
    let dst = tmp(&format!("{name}_blender.{ext}"));
    common::blender_roundtrip(&src, &dst, edits);
    dst
}

/// The samples and three generated files (a HIE file and two DMC3 MODs).
fn blender_files() -> Vec<(String, Vec<u8>, Option<Format>)> {
    let mut files: Vec<(String, Vec<u8>, Option<Format>)> = samples()
        .into_iter()
        .map(|(n, d, f)| (n.replace('.', "_"), d, f))
        .collect();
    let gen = generated();
    let hie = gen
        .iter()
        .find(|g| g.0.starts_with("hie") && g.1.len() > 0x800)
        .unwrap()
        .clone();
    files.push((hie.0.replace(' ', "_"), hie.1, hie.2));
    for seed in [3u64, 7] {
        let data = rigtrip::synth::dmc3::random_exportable(seed, false);
        files.push((format!("dmc3_seed_{seed}"), data, Some(Format::Dmc3)));
    }
    files
}

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn blender_round_trip_gives_the_original_bytes() {
    for (name, data, format) in blender_files() {
        for ext in ["glb", "gltf"] {
            let path = blender_round_trip(&data, format, &name, ext, &[]);
            let got = import_path(&path, &opts()).unwrap_or_else(|e| panic!("{name} {ext}: {e}"));
            assert!(
                got.bytes == data,
                "{name} {ext}: bytes differ\n{}",
                got.report.render_text()
            );
            let n = got.report.noise;
            println!(
                "{name} {ext}: noise {:.2e} m {:.2e} rad scale {:.2e}; meshes {:?} {}/{} vertices {}/{} triangles",
                n.translation_m, n.rotation_rad, n.scale, got.report.meshes.status,
                got.report.meshes.expected_vertices, got.report.meshes.incoming_vertices,
                got.report.meshes.expected_triangles, got.report.meshes.incoming_triangles
            );
        }
    }
}

/// World positions of every joint of every skeleton, in glTF metres.
fn worlds(native: &NativeFile) -> Vec<Vec<glam::DVec3>> {
    let rig = rig::lift(native.clone());
    let space = rigtrip::gltf::Space::default_for(&rig);
    rig.skeletons
        .iter()
        .map(|s| {
            s.world_positions()
                .unwrap()
                .into_iter()
                .map(|p| space.point(p))
                .collect()
        })
        .collect()
}

/// Moves joint `k` of skeleton `s` by `d` (Blender Z-up metres) in Blender's edit mode and
/// checks that only its record and its direct children's records change, and where it lands.
fn blender_move(name: &str, data: &[u8], format: Option<Format>, s: usize, k: usize, d: [f64; 3]) {
    let original = NativeFile::read(format, data).unwrap();
    let rig = rig::lift(original.clone());
    let sk = &rig.skeletons[s];
    let bone = sk.joints[k].name.clone();
    let children: Vec<usize> = (0..sk.joints.len())
        .filter(|&c| sk.joints[c].parent == Some(k))
        .collect();
    assert!(
        sk.joints[k].parent.is_some() && !children.is_empty(),
        "{name}: pick a joint with a parent and children"
    );
    let args: Vec<String> = ["--move".to_string(), bone.clone()]
        .into_iter()
        .chain(d.iter().map(|x| x.to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let path = blender_round_trip(data, format, &format!("{name}_move"), "glb", &args);
    let got = import_path(&path, &opts()).unwrap_or_else(|e| panic!("{name}: {e}"));
    println!("{name} move {bone}:\n{}", got.report.render_text());

    // Where it landed: Blender's (x, y, z) is glTF's (x, z, -y).
    let before = worlds(&original);
    let after = worlds(&got.native);
    let want = before[s][k] + glam::DVec3::new(d[0], d[2], -d[1]);
    assert!(
        (after[s][k] - want).abs().max_element() < 1e-4,
        "{name}: joint {k} at {} instead of {want}",
        after[s][k]
    );
    for (j, (a, b)) in before[s].iter().zip(&after[s]).enumerate() {
        if j != k {
            assert!(
                (*a - *b).abs().max_element() < 1e-4,
                "{name}: joint {j} moved from {a} to {b}"
            );
        }
    }

    // Which bytes changed: HIE only the offsets (+0x14..+0x20) of the parts, DMC3 the records.
    let hie = matches!(original, NativeFile::Hie(_));
    let ranges: Vec<std::ops::Range<usize>> = common::joint_records(&original)[s]
        .iter()
        .map(|r| match hie {
            true => r.start + 0x14..r.start + 0x20,
            false => r.clone(),
        })
        .collect();
    let touched: Vec<usize> = std::iter::once(k).chain(children.iter().copied()).collect();
    common::assert_only_records_changed(name, data, &got.bytes, &ranges, &touched);
    let sr = &got.report.skeletons[s];
    if let NativeFile::Dmc3(_) = original {
        let moved = sr.joints.iter().find(|j| j.joint == k).unwrap();
        assert_eq!(moved.changes, ["moved"]);
        assert_eq!(
            moved.recomputed,
            [
                "tx (+0x00)",
                "ty (+0x04)",
                "tz (+0x08)",
                "magnitude (+0x0C)"
            ]
        );
        assert_eq!(sr.joints.len(), 1 + children.len(), "{:?}", sr.joints);
        for j in &sr.joints {
            assert!(j.joint == k || children.contains(&j.joint));
        }
    } else {
        // The export stores each part's native offset beside the float TRS, so a move by whole
        // units is told from float noise and reported, with the offset recomputed.
        let moved = sr.joints.iter().find(|j| j.joint == k).unwrap();
        assert_eq!(moved.changes, ["moved"], "{:?}", sr.joints);
        assert!(
            moved
                .recomputed
                .iter()
                .any(|f| f.starts_with("offset (+0x14)")),
            "{:?}",
            moved
        );
        assert!(!got
            .report
            .notes
            .iter()
            .any(|n| n.contains("cannot be told from an unchanged one")));
    }
}

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn blender_moved_joint_lands_and_nothing_else_changes() {
    // DMC3 humanoid: the joint with the most children.
    let data = rigtrip::synth::dmc3::sample_mod();
    let rig = load(Some(Format::Dmc3), &data);
    let sk = &rig.skeletons[0];
    let kids = |k: usize| sk.joints.iter().filter(|j| j.parent == Some(k)).count();
    let k = (0..sk.joints.len())
        .filter(|&k| sk.joints[k].parent.is_some())
        .max_by_key(|&k| kids(k))
        .unwrap();
    blender_move(
        "humanoid",
        &data,
        Some(Format::Dmc3),
        0,
        k,
        [0.03, -0.02, 0.05],
    );

    // HIE character (slot 1, skeleton 1): a non-root part with children.
    let data = rigtrip::synth::hie::sample_db22();
    let rig = load(Some(Format::Hie), &data);
    let s = rig
        .skeletons
        .iter()
        .position(|s| s.name == "slot1")
        .unwrap();
    let sk = &rig.skeletons[s];
    let k = (0..sk.joints.len())
        .find(|&k| sk.joints[k].parent.is_some() && sk.joints.iter().any(|j| j.parent == Some(k)))
        .unwrap();
    blender_move("db22", &data, Some(Format::Hie), s, k, [0.05, 0.0, -0.02]);
}

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn blender_rename_changes_no_byte() {
    for (name, data, format, bone) in [
        (
            "humanoid_rename",
            rigtrip::synth::dmc3::sample_mod(),
            Some(Format::Dmc3),
            "mod_7",
        ),
        (
            "db22_rename",
            rigtrip::synth::hie::sample_db22(),
            Some(Format::Hie),
            "slot1_4",
        ),
    ] {
        let path = blender_round_trip(
            &data,
            format,
            name,
            "gltf",
            &["--rename", bone, "a renamed bone"],
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("a renamed bone"),
            "{name}: the rename did not happen"
        );
        let got = import_path(&path, &opts()).unwrap();
        assert!(got.bytes == data, "{name}: bytes differ");
    }
}

// ---------------------------------------------------------------------------------------------
// Edits made in the JSON

use serde_json::{json, Value};

fn nodes(v: &Value) -> &Vec<Value> {
    v["nodes"].as_array().unwrap()
}

/// Node index of joint `k` of skeleton `s`.
fn joint_node(v: &Value, s: usize, k: usize) -> usize {
    nodes(v)
        .iter()
        .position(|n| {
            n["extras"]["rigtrip"]["skeleton"] == s && n["extras"]["rigtrip"]["joint"] == k
        })
        .unwrap()
}

fn detach(v: &mut Value, node: usize) {
    for n in v["nodes"].as_array_mut().unwrap() {
        if let Some(c) = n.get_mut("children").and_then(|c| c.as_array_mut()) {
            c.retain(|x| x != node);
        }
    }
}

fn attach(v: &mut Value, node: usize, parent: usize) {
    let p = &mut v["nodes"][parent];
    if p.get("children").is_none() {
        p["children"] = json!([]);
    }
    p["children"].as_array_mut().unwrap().push(json!(node));
}

/// Adds a node without rigtrip extras under `parent` and to the skin holding `parent`.
fn add_leaf(v: &mut Value, parent: usize, name: &str, t: [f64; 3]) -> usize {
    let n = nodes(v).len();
    v["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": name, "translation": t}));
    attach(v, n, parent);
    for skin in v["skins"].as_array_mut().unwrap() {
        if skin["joints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == parent)
        {
            skin["joints"].as_array_mut().unwrap().push(json!(n));
        }
    }
    n
}

fn refusal(v: &Value) -> String {
    match import_json(v) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("the import was expected to refuse"),
    }
}

/// The refusal of `v` with field `field` of joint `k` of skeleton `s` set to `value`: the
/// joint's node and the message.
fn refused_edit(v: &Value, (s, k): (usize, usize), field: &str, value: Value) -> (usize, String) {
    let mut v = v.clone();
    let n = joint_node(&v, s, k);
    v["nodes"][n][field] = value;
    (n, refusal(&v))
}

/// The last joint of the rig's first skeleton that is no joint's parent.
fn last_leaf(rig: &Rig) -> usize {
    let sk = &rig.skeletons[0];
    (0..sk.joints.len())
        .rev()
        .find(|&k| !sk.joints.iter().any(|j| j.parent == Some(k)))
        .unwrap()
}

#[test]
fn added_leaf_joints_get_defaults_and_survive_a_second_round_trip() {
    // DMC3 humanoid: a leaf under joint 5; HIE character: a leaf under the root of slot 1.
    let cases = [
        (
            "humanoid",
            rigtrip::synth::dmc3::sample_mod(),
            Some(Format::Dmc3),
            0usize,
            5usize,
            [0.05, -0.02, 0.1],
        ),
        (
            "db22",
            rigtrip::synth::hie::sample_db22(),
            Some(Format::Hie),
            1,
            0,
            [0.012, -0.034, 0.005],
        ),
    ];
    for (name, data, format, s, parent, t) in cases {
        let mut v = gltf_json(&data, format);
        let p = joint_node(&v, s, parent);
        let new = add_leaf(&mut v, p, "new_leaf", t);
        let first = import_json(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = first.report.render_text();
        let sr = &first.report.skeletons[s];
        assert_eq!(sr.joints_after, sr.joints_before + 1, "{name}: {text}");
        let added = sr.joints.iter().find(|j| j.original.is_none()).unwrap();
        assert_eq!(
            (added.node, added.name.as_str(), added.changes.clone()),
            (new, "new_leaf", vec!["added".to_string()])
        );
        let defaults: Vec<&str> = added.defaults.iter().map(String::as_str).collect();
        match format {
            Some(Format::Hie) => assert_eq!(
                defaults,
                [
                    "unknown_00 = 0",
                    "runtime = 0",
                    "unknown_20 = 0",
                    "model = 0"
                ]
            ),
            _ => assert_eq!(defaults, ["+0x1C = 0.0", "group = 0"]),
        }
        // The new joint hangs under its parent where the glTF put it.
        let k = added.joint;
        let rig = rig::lift(first.native.clone());
        let space = rigtrip::gltf::Space::default_for(&rig);
        let j = &rig.skeletons[s].joints[k];
        assert_eq!(j.parent, Some(parent));
        let local = space.point(j.translation);
        assert!(
            (local - glam::DVec3::from_array(t)).abs().max_element() < 1e-6,
            "{name}: {local}"
        );
        // Export the rebuilt file and import it again: the same bytes.
        let (glb, _) = exported(&first.bytes, format);
        let second = import(&glb).unwrap_or_else(|e| panic!("{name} second: {e}"));
        assert!(
            second.bytes == first.bytes,
            "{name}: the second import differs"
        );
        assert!(first.bytes != data);
    }
}

#[test]
fn dmc3_reparent_rewrites_only_the_arrays() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let rig = load(Some(Format::Dmc3), &data);
    let sk = &rig.skeletons[0];
    // A leaf, moved under the root's first child (keeping its local transform).
    let leaf = (0..sk.joints.len())
        .find(|&k| sk.joints[k].parent.is_some() && !sk.joints.iter().any(|j| j.parent == Some(k)))
        .unwrap();
    let root = sk.roots().next().unwrap();
    let target = (0..sk.joints.len())
        .find(|&k| sk.joints[k].parent == Some(root) && Some(k) != sk.joints[leaf].parent)
        .unwrap();
    let mut v = gltf_json(&data, Some(Format::Dmc3));
    let n = joint_node(&v, 0, leaf);
    detach(&mut v, n);
    let t = joint_node(&v, 0, target);
    attach(&mut v, n, t);
    let got = import_json(&v).unwrap();
    let new = rig::lift(got.native.clone());
    assert_eq!(new.skeletons[0].joints[leaf].parent, Some(target));
    assert!(new.skeletons[0].gate.is_ok());
    let sr = &got.report.skeletons[0];
    let j = sr.joints.iter().find(|j| j.joint == leaf).unwrap();
    assert_eq!(
        j.changes,
        [format!(
            "reparented (parent was joint {}, now joint {target})",
            sk.joints[leaf].parent.unwrap()
        )]
    );
    assert!(j.recomputed.is_empty());
    // The evaluation order may stay: the leaf is evaluated last either way when it can be.
    assert_eq!(sr.rewritten[0], "parent array (by order position)");
    assert!(
        sr.rewritten.len() == 1 || sr.rewritten[1] == "order array",
        "{:?}",
        sr.rewritten
    );
    // Only bytes of the parent and order arrays differ.
    let NativeFile::Dmc3(f) = &got.native else {
        panic!()
    };
    let b = f.block.as_ref().unwrap();
    let arrays = (b.offset + u64::from(b.rels.parent)) as usize
        ..(b.offset + u64::from(b.rels.group)) as usize;
    for i in (0..data.len()).filter(|&i| data[i] != got.bytes[i]) {
        assert!(
            arrays.contains(&i),
            "byte {i:#x} changed outside the arrays"
        );
    }
}

#[test]
fn dmc3_rotation_edit_recomputes_the_angles_only() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let mut v = gltf_json(&data, Some(Format::Dmc3));
    let n = joint_node(&v, 0, 9);
    let q = glam::DQuat::from_rotation_y(0.3) * {
        let r = &v["nodes"][n]["rotation"];
        glam::DQuat::from_xyzw(
            r[0].as_f64().unwrap(),
            r[1].as_f64().unwrap(),
            r[2].as_f64().unwrap(),
            r[3].as_f64().unwrap(),
        )
    };
    v["nodes"][n]["rotation"] = json!([q.x, q.y, q.z, q.w]);
    let got = import_json(&v).unwrap();
    let j = &got.report.skeletons[0].joints;
    assert_eq!(j.len(), 1);
    assert_eq!(j[0].changes, ["rotated"]);
    assert_eq!(
        j[0].recomputed
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["rx (+0x10)", "ry (+0x14)", "rz (+0x18)"]
    );
    let r = rig::lift(got.native.clone());
    assert!(r.skeletons[0].joints[9].rotation.abs_diff_eq(q, 1e-6));
}

/// A one-hierarchy HIE file built by hand: parts at depths 1, 2, 3, 2 and the given byte lists.
fn hie_file(lists: Vec<Vec<u8>>) -> Vec<u8> {
    use rigtrip::native::hie::{ByteLists, HieFile, Hierarchy, Part};
    let parts = [
        (1u16, [0, 0, 0]),
        (2, [0, -100, 0]),
        (3, [0, -80, 10]),
        (2, [60, 20, 0]),
    ]
    .iter()
    .enumerate()
    .map(|(k, &(depth, offset))| Part {
        depth,
        offset,
        model: k as u32,
        ..Part::default()
    })
    .collect::<Vec<_>>();
    let mut slots = vec![None; 256];
    slots[1] = Some(0);
    let f = HieFile {
        slots,
        hierarchies: vec![Hierarchy {
            offset: 0x400,
            span: 0x34 + 0x28 * 4,
            byte_lists: ByteLists::with_zero_tail(lists).unwrap(),
            parts,
        }],
        gaps: Vec::new(),
    };
    NativeFile::Hie(f).write().unwrap()
}

#[test]
fn hie_reparent_reorders_depth_first_unless_byte_lists_name_the_parts() {
    // Part 2 (under 1) goes under part 3: stored order becomes 0, 1, 3, 2.
    let reparent = |data: &[u8]| {
        let mut v = gltf_json(data, Some(Format::Hie));
        let two = joint_node(&v, 0, 2);
        let three = joint_node(&v, 0, 3);
        detach(&mut v, two);
        attach(&mut v, two, three);
        import_json(&v)
    };
    let data = hie_file(vec![vec![0, 1]]);
    let got = reparent(&data).unwrap();
    let NativeFile::Hie(f) = &got.native else {
        panic!()
    };
    let parts = &f.hierarchies[0].parts;
    assert_eq!(
        parts.iter().map(|p| (p.model, p.depth)).collect::<Vec<_>>(),
        [(0, 1), (1, 2), (3, 2), (2, 3)]
    );
    // Its offset is now relative to part 3 (the glTF kept its local translation).
    assert_eq!(parts[3].offset, [0, -80, 10]);
    let sr = &got.report.skeletons[0];
    assert_eq!(
        sr.rewritten,
        ["parts reordered depth first (the order is what gives HIE parts their parents)"]
    );
    let moved: Vec<(usize, Option<usize>)> =
        sr.joints.iter().map(|j| (j.joint, j.original)).collect();
    assert_eq!(moved, [(2, Some(3)), (3, Some(2))]);

    let data = hie_file(vec![vec![0, 1], vec![2]]);
    assert_eq!(
        reparent(&data).unwrap_err().to_string(),
        "skeleton slot1, joint 2 (slot1_2, node 2): byte lists: entry 0 of byte list 1 names part 2, which would become part 3; the byte lists (part groups) reference parts by index and are not rewritten, so this reordering is refused"
    );
}

#[test]
fn hie_stored_offsets_in_the_extras_tell_whole_unit_moves_from_noise() {
    // What the export could record next to `native`: the stored offset and depth of each part.
    let data = hie_file(vec![]);
    let NativeFile::Hie(f) = NativeFile::read(Some(Format::Hie), &data).unwrap() else {
        panic!()
    };
    let mut v = gltf_json(&data, Some(Format::Hie));
    for (k, p) in f.hierarchies[0].parts.iter().enumerate() {
        let n = joint_node(&v, 0, k);
        v["nodes"][n]["extras"]["rigtrip"]["offset"] = json!(p.offset);
        v["nodes"][n]["extras"]["rigtrip"]["depth"] = json!(p.depth);
    }
    let plain = import_json(&v).unwrap();
    assert!(plain.bytes == data);
    assert!(plain
        .report
        .notes
        .iter()
        .all(|n| !n.contains("cannot be told")));
    // Part 3 moved by exactly 7 units along x.
    let n = joint_node(&v, 0, 3);
    let x = v["nodes"][n]["translation"][0].as_f64().unwrap();
    v["nodes"][n]["translation"][0] = json!(x + 0.007);
    let got = import_json(&v).unwrap();
    let NativeFile::Hie(g) = &got.native else {
        panic!()
    };
    assert_eq!(g.hierarchies[0].parts[3].offset, [67, 20, 0]);
    let j = &got.report.skeletons[0].joints;
    assert_eq!(
        (
            j.len(),
            j[0].joint,
            j[0].changes.clone(),
            j[0].recomputed.clone()
        ),
        (
            1,
            3,
            vec!["moved".to_string()],
            vec!["offset (+0x14)".to_string()]
        )
    );
}

#[test]
fn refusals_name_the_joint_and_field() {
    let humanoid = rigtrip::synth::dmc3::sample_mod();
    let db22 = rigtrip::synth::hie::sample_db22();
    let mod_json = gltf_json(&humanoid, Some(Format::Dmc3));
    let hie_json = gltf_json(&db22, Some(Format::Hie));

    // Scale.
    let (n, e) = refused_edit(&mod_json, (0, 5), "scale", json!([1.5, 1.0, 1.0]));
    assert_eq!(
        e,
        format!("skeleton mod, joint 5 (mod_5, node {n}): scale: (1.5, 1, 1) is not 1 (tolerance 0.001); native joints carry no scale")
    );

    // A moved HIE root (slot 1's root part).
    let (n, e) = refused_edit(&hie_json, (1, 0), "translation", json!([0.25, 0.0, 0.0]));
    assert_eq!(
        e,
        format!("skeleton slot1, joint 0 (slot1_0, node {n}): translation: the root moved to (250, 0, 0) mm; the game does not apply a HIE root's own offset (the root joint is the object's position), so a moved root cannot be stored")
    );

    // A rotated HIE part.
    let turned = json!([0.0, 0.0, 0.38268343, 0.9238795]);
    let (n, e) = refused_edit(&hie_json, (1, 3), "rotation", turned);
    assert_eq!(
        e,
        format!(
            "skeleton slot1, joint 3 (slot1_3, node {n}): rotation: rotated by 45°; HIE rest rotations are identity (a part has no rotation field on disc)"
        )
    );

    // Removing a DMC3 joint a vertex references (a leaf of the humanoid).
    let leaf = last_leaf(&load(Some(Format::Dmc3), &humanoid));
    let mut v = mod_json.clone();
    let n = joint_node(&v, 0, leaf);
    detach(&mut v, n);
    let e = refusal(&v);
    assert!(e.starts_with("skeleton mod, joint "), "{e}");
    assert!(
        e.contains("vertex joint indices: vertex ")
            && e.ends_with("the mesh streams are not rewritten, so the removal is refused"),
        "{e}"
    );

    // Several refusals at once: all are collected, the first is shown.
    let mut v = mod_json.clone();
    for k in [3, 4] {
        let n = joint_node(&v, 0, k);
        v["nodes"][n]["scale"] = json!([2.0, 2.0, 2.0]);
    }
    let Err(ImportError::Refused(r)) = import_json(&v) else {
        panic!()
    };
    assert_eq!(r.0.len(), 2);
    assert!(r.to_string().ends_with("(and 1 more refusals)"));
}

#[test]
fn removing_an_unreferenced_joint_is_allowed() {
    // The effect file's block has no meshes: its last leaf can go.
    let (data, offset, nodes) = rigtrip::synth::dmc3::sample_efm();
    let format = Some(Format::Block { offset, nodes });
    let leaf = last_leaf(&load(format, &data));
    let mut v = gltf_json(&data, format);
    let n = joint_node(&v, 0, leaf);
    detach(&mut v, n);
    let got = import_json(&v).unwrap();
    let sr = &got.report.skeletons[0];
    assert_eq!(
        (sr.removed.clone(), sr.joints_after),
        (vec![leaf], nodes - 1)
    );
    let NativeFile::Dmc3(f) = &got.native else {
        panic!()
    };
    assert_eq!(f.block.as_ref().unwrap().node_count(), nodes - 1);
    // The file keeps its length (the freed block bytes become a zero gap) and reads back.
    assert_eq!(got.bytes.len(), data.len());
    let back = load(
        Some(Format::Block {
            offset,
            nodes: nodes - 1,
        }),
        &got.bytes,
    );
    assert!(back.skeletons[0].gate.is_ok());
}

#[test]
fn broken_or_foreign_gltf_gives_errors() {
    let humanoid = rigtrip::synth::dmc3::sample_mod();
    // No extras at all (exported without custom properties).
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("extras");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    let e = refusal(&v);
    assert!(matches!(import_json(&v), Err(ImportError::NoExtras)));
    assert!(
        e.contains("File > Export > glTF 2.0 > Include > Custom Properties"),
        "{e}"
    );

    // Wrong types in extras.
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    let n = joint_node(&v, 0, 2);
    v["nodes"][n]["extras"]["rigtrip"]["joint"] = json!("two");
    assert_eq!(
        refusal(&v),
        format!("node {n} (mod_2): extras.rigtrip.joint is \"two\", expected a joint index")
    );
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    v["nodes"][n]["extras"]["rigtrip"]["native"]["record"]["tx_bits"] = json!(5);
    let e = refusal(&v);
    assert!(
        e.starts_with(&format!(
            "rigtrip extras at /nodes/{n}/extras/rigtrip/native: invalid type: integer `5`"
        )),
        "{e}"
    );
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    v["scenes"][0]["extras"]["rigtrip"]["space"]["scale"] = json!("big");
    assert_eq!(refusal(&v), "rigtrip extras at /scenes/0/extras/rigtrip/space/scale: missing or not a number greater than zero");
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    v["scenes"][0]["extras"]["rigtrip"]["schema"] = json!(2);
    assert_eq!(
        refusal(&v),
        "scene.extras.rigtrip.schema is 2; this rigtrip reads schema 1"
    );
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    v["scenes"][0]["extras"]["rigtrip"]["source"]["file"]["gaps"] = json!({"a": 1});
    assert!(refusal(&v).starts_with("rigtrip extras at /scenes/0/extras/rigtrip/source: "));
    // Node extras without scene extras.
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    v["scenes"][0].as_object_mut().unwrap().remove("extras");
    assert!(matches!(import_json(&v), Err(ImportError::NoSceneExtras)));

    // A separate .bin next to the .gltf, then missing.
    let (_, gltf) = exported(&humanoid, Some(Format::Dmc3));
    let mut v: Value = serde_json::from_slice(&gltf).unwrap();
    let uri = v["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bin = base64_decode(uri.split_once(',').unwrap().1);
    v["buffers"][0]["uri"] = json!("humanoid%20data.bin");
    let path = tmp("separate.gltf");
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    std::fs::write(tmp("humanoid data.bin"), &bin).unwrap();
    assert!(import_path(&path, &opts()).unwrap().bytes == humanoid);
    std::fs::remove_file(tmp("humanoid data.bin")).unwrap();
    let e = import_path(&path, &opts()).unwrap_err().to_string();
    assert!(
        e.starts_with("buffer 0: cannot read ") && e.contains("humanoid data.bin"),
        "{e}"
    );
    // ... and when read from memory without a folder.
    let e = import_slice(&serde_json::to_vec(&v).unwrap(), None, &opts())
        .unwrap_err()
        .to_string();
    assert_eq!(e, "buffer 0: the data is in the separate file \"humanoid data.bin\", but no folder was given to find it in");
    // A GLB cut short.
    let (glb, _) = exported(&humanoid, Some(Format::Dmc3));
    let e = import(&glb[..glb.len() - 100]).unwrap_err().to_string();
    assert!(e.starts_with("not a usable glTF: GLB header says"), "{e}");
    // Not JSON.
    assert!(import(b"hello")
        .unwrap_err()
        .to_string()
        .starts_with("not a usable glTF: not glTF JSON"));
    // A bad tolerance.
    let e = import_slice(
        &glb,
        None,
        &ImportOptions {
            tolerance: Some(f64::NAN),
            ..opts()
        },
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "tolerance NaN is not a finite number >= 0");
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[test]
fn mesh_edits_are_written_unless_ignored() {
    let data = rigtrip::synth::dmc3::sample_scm();
    let (_, gltf) = exported(&data, Some(Format::Dmc3));
    let mut v: Value = serde_json::from_slice(&gltf).unwrap();
    // Move the stage object: its (unskinned) vertices move 50 cm up, and are written so.
    v["nodes"][0]["translation"] = json!([0.0, 0.5, 0.0]);
    let written = import_json(&v).unwrap();
    let m = &written.report.meshes;
    assert_eq!(m.status, rigtrip::gltf::import::MeshStatus::Written);
    let w = m.written.as_ref().unwrap();
    assert_eq!(w.meshes.len(), 1, "{}", written.report.render_text());
    assert_eq!(
        (w.meshes[0].name.as_str(), w.meshes[0].change.as_str()),
        ("object0_mesh0", "edited")
    );
    let before = rig::lift(NativeFile::read(None, &data).unwrap()).meshes();
    let after = rig::lift(NativeFile::read(None, &written.bytes).unwrap()).meshes();
    let lowest =
        |m: &rigtrip::rig::mesh::Mesh| m.positions.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
    assert!((lowest(&after[0]) - lowest(&before[0]) - 50.0).abs() < 1e-3);
    assert_eq!(after[1], before[1]);
    let got = import_ignoring_mesh_edits(&v);
    assert!(got.bytes == data);
    assert_eq!(
        got.report.meshes.status,
        rigtrip::gltf::import::MeshStatus::EditedIgnored
    );
    assert!(got.report.meshes.difference_count > 0);

    // Merging all primitives into one mesh is not an edit.
    let mut v: Value = serde_json::from_slice(&gltf).unwrap();
    let second = v["meshes"][1]["primitives"][0].clone();
    v["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(second);
    v["nodes"].as_array_mut().unwrap().remove(1);
    v["scenes"][0]["nodes"] = json!([0]);
    assert!(import_json(&v).unwrap().bytes == data);

    // Dropping a triangle is an edit.
    let mut v: Value = serde_json::from_slice(&gltf).unwrap();
    let acc = v["meshes"][0]["primitives"][0]["indices"].as_u64().unwrap() as usize;
    let count = v["accessors"][acc]["count"].as_u64().unwrap();
    v["accessors"][acc]["count"] = json!(count - 3);
    let dropped = import_json(&v).unwrap();
    let w = &dropped.report.meshes.written.as_ref().unwrap().meshes[0];
    assert_eq!(w.triangles + 1, before[0].triangles.len());
    let got = import_ignoring_mesh_edits(&v);
    let m = &got.report.meshes;
    assert_eq!((m.expected_triangles, m.incoming_triangles), (160, 159));
    assert!(
        m.differences
            .iter()
            .any(|d| d.starts_with("original triangle (") && d.ends_with(" m is missing")),
        "{:?}",
        m.differences
    );
}

/// The import compares unedited geometry bit for bit in order, and anything else as sets of
/// distinct vertices and triangles: both must report the same counts for the same geometry.
#[test]
fn in_order_and_reordered_geometry_report_the_same_counts() {
    for data in [
        rigtrip::synth::dmc3::sample_scm(),
        rigtrip::synth::dmc3::sample_mod(),
        rigtrip::synth::dmc3::random_mod_sized(11, 300),
    ] {
        let (_, gltf) = exported(&data, Some(Format::Dmc3));
        let v: Value = serde_json::from_slice(&gltf).unwrap();
        let direct = import_json(&v).unwrap();
        // The mesh nodes listed in the opposite order: the same sets, read in another order.
        let mut r = v.clone();
        let list = r["scenes"][0]["nodes"].as_array_mut().unwrap();
        list.reverse();
        let reordered = import_json(&r).unwrap();
        assert!(direct.bytes == data && reordered.bytes == data);
        let (a, b) = (&direct.report.meshes, &reordered.report.meshes);
        assert_eq!(a, b);
        assert_eq!(a.status, rigtrip::gltf::import::MeshStatus::Unchanged);
        assert!(a.expected_vertices > 0 && a.expected_triangles > 0, "{a:?}");
        assert_eq!(
            (a.expected_vertices, a.expected_triangles),
            (a.incoming_vertices, a.incoming_triangles)
        );
    }
}

#[test]
fn mangled_input_never_panics() {
    let mut rng = rigtrip::synth::rng::Rng::new(7);
    let (glb, gltf) = exported(&rigtrip::synth::dmc3::sample_mod(), Some(Format::Dmc3));
    let (hglb, _) = exported(&rigtrip::synth::hie::sample_db22(), Some(Format::Hie));
    for round in 0..600 {
        let mut b = match round % 3 {
            0 => glb.clone(),
            1 => gltf.clone(),
            _ => hglb.clone(),
        };
        for _ in 0..1 + rng.index(8) {
            let i = rng.index(b.len());
            match rng.index(3) {
                0 => b[i] = rng.next_u32() as u8,
                1 => b.truncate(i.max(1)),
                _ => b[i] = b"0123456789-.e\"[]{},:"[rng.index(20)],
            }
        }
        let _ = import(&b);
    }
}

#[test]
fn a_joint_that_lost_its_extras_is_matched_by_name_and_refused_with_a_reason() {
    let humanoid = rigtrip::synth::dmc3::sample_mod();
    let mut v = gltf_json(&humanoid, Some(Format::Dmc3));
    let n = joint_node(&v, 0, 12);
    v["nodes"][n].as_object_mut().unwrap().remove("extras");
    assert_eq!(
        refusal(&v),
        format!("rigtrip extras at /nodes/{n}/extras/rigtrip/native: missing: node {n} (mod_12) was matched to joint 12 of mod by its name, but it has no rigtrip custom properties, so its native fields are unknown; export with custom properties")
    );
}

#[test]
fn the_report_serialises_and_renders() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let mut v = gltf_json(&data, Some(Format::Dmc3));
    let n = joint_node(&v, 0, 9);
    let x = v["nodes"][n]["translation"][0].as_f64().unwrap();
    v["nodes"][n]["translation"][0] = json!(x + 0.01);
    let got = import_json(&v).unwrap();
    let j = serde_json::to_value(&got.report).unwrap();
    assert_eq!(j["format"], "mod");
    assert_eq!(j["tolerance"]["translation_m"], 1e-4);
    assert_eq!(j["meshes"]["status"], "unchanged");
    let joints = j["skeletons"][0]["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 1);
    assert_eq!(joints[0]["joint"], 9);
    assert_eq!(joints[0]["changes"], json!(["moved"]));
    let text = got.report.render_text();
    assert!(
        text.contains(&format!(
            "  joint 9 mod_9 [node {n}]: moved; recomputed tx (+0x00), magnitude (+0x0C)\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("skeleton 0 (mod): 49 joints -> 49, "),
        "{text}"
    );
}
