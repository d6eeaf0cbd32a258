//! Motions in the IR and as glTF animations: `write(lower(lift(read(b)))) == b` over the
//! generator; exported animations checked against an independent evaluation (`common::pose`:
//! the tests' own Hermite, Euler and hierarchy code, reading the native keys and the GLB's
//! samplers itself, CUBICSPLINE included) at every frame within 1 mm; the Khronos validator; import back byte
//! for byte; an edited rotation changing only its joint's tracks; a deleted animation leaving
//! its slot empty; a motion of the wrong node count named and carried back byte for byte; a
//! motion of another skeleton warned about by joint.

mod common;
use common::pose::{gltf_world, native_world};
use common::{rigtrip, scratch, stdout_of, tmp};

use glam::DQuat;
use serde_json::{json, Value};

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export_animated, to_glb, ExportError, ExportOptions, MotionInput};
use rigtrip::native::dmc3::pac::{MemberKind, Pac};
use rigtrip::native::NativeFile;
use rigtrip::rig::motion::{read_file, MotionFile};
use rigtrip::synth;

#[test]
fn lower_of_lift_writes_every_generated_file_back() {
    let mut files = 0;
    for seed in 0..300u64 {
        for b in [
            synth::motion::random_mot(seed),
            synth::motion::random_pac(seed),
        ] {
            let f: MotionFile = read_file(&b).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
            let mut reencoded = Vec::new();
            assert_eq!(f.write(&mut reencoded).unwrap(), b, "seed {seed}");
            assert!(reencoded.is_empty(), "seed {seed}");
            files += 1;
        }
    }
    assert_eq!(files, 600);
}

/// The `i`-th generated model (from seed `i` on) that exports (passes the gate, binds its
/// vertices to joints it has).
fn model(i: u64) -> Vec<u8> {
    (i * 1000..)
        .map(synth::dmc3::random_mod)
        .find(|b| {
            rigtrip::ops::load(None, b).is_ok_and(|rig| {
                rig.skeletons.len() == 1
                    && !rig.skeletons[0].joints.is_empty()
                    && rigtrip::gltf::export(&rig, &ExportOptions::default()).is_ok()
            })
        })
        .unwrap()
}

/// The nodes of `model` as the motion generator takes them.
fn rest(model: &[u8]) -> Vec<synth::motion::NodeRest> {
    synth::motion::model_rest(&rigtrip::ops::load(None, model).unwrap())
}

fn node_count(model: &[u8]) -> usize {
    match NativeFile::read(None, model).unwrap() {
        NativeFile::Dmc3(f) => f.block.unwrap().transforms.len(),
        _ => unreachable!(),
    }
}

/// Exports `model` with `motions` (name, bytes) to a GLB.
fn export_glb(model: &[u8], motions: &[(&str, Vec<u8>)]) -> Result<Vec<u8>, ExportError> {
    let rig = rigtrip::ops::load(None, model).unwrap();
    let inputs: Vec<MotionInput> = motions
        .iter()
        .map(|(n, b)| MotionInput::read(n, b.clone()).unwrap())
        .collect();
    let e = export_animated(&rig, &inputs, &ExportOptions::default())?;
    Ok(to_glb(&e).unwrap())
}

#[test]
fn animations_put_every_joint_within_a_millimetre_of_the_native_curves_at_every_frame() {
    let mut checked = 0usize;
    let mut worst = 0.0f64;
    for seed in 0..6u64 {
        let model = model(seed);
        let mot = synth::motion::motion_for_model(seed, &rest(&model));
        let bytes = mot.write().unwrap();
        let glb = export_glb(&model, &[("m.mot", bytes.clone())]).unwrap();
        let last = f32::from_bits(mot.header.end_frame_bits) as u32;
        for f in 0..=last {
            let want = native_world(&model, &bytes, f64::from(f));
            let got = gltf_world(&glb, "m", f64::from(f) / 60.0);
            assert_eq!(want.len(), got.len());
            for (j, (a, b)) in want.iter().zip(&got).enumerate() {
                let d = a.distance(*b);
                worst = worst.max(d);
                assert!(
                    d < 1e-3,
                    "seed {seed} frame {f} joint {j}: {a} vs {b} ({d} m)"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
    // The rest is f32 rounding of the stored times and values (measured 7.4e-5 m).
    assert!(worst < 1e-4, "{worst}");
    eprintln!("{checked} joint positions checked, worst {worst:e} m");
}

fn sample_model() -> Vec<u8> {
    synth::dmc3::sample_mod()
}

/// Per motion file: its name and bytes (`None`: not written).
type Files = Vec<(String, Option<Vec<u8>>)>;

/// Imports `glb` and returns the model bytes, the motion files and the report.
fn import(glb: &[u8]) -> (Vec<u8>, Files, rigtrip::gltf::ImportReport) {
    let i = import_slice(glb, None, &ImportOptions::default()).unwrap();
    let motions = i
        .motions
        .iter()
        .map(|m| (m.file.clone(), m.bytes.clone()))
        .collect();
    (i.bytes, motions, i.report)
}

#[test]
fn export_validates_and_imports_back_byte_for_byte() {
    let model = sample_model();
    let mot = synth::motion::sample_mot();
    let pac = synth::motion::sample_pac();
    let glb = export_glb(
        &model,
        &[("walk.mot", mot.clone()), ("pl000_00_3.pac", pac.clone())],
    )
    .unwrap();
    let path = tmp("sample.glb");
    std::fs::write(&path, &glb).unwrap();
    common::validate(&[path]);
    let g = gltf::Gltf::from_slice(&glb).unwrap();
    let names: Vec<&str> = g.animations().filter_map(|a| a.name()).collect();
    let p = Pac::read(&pac).unwrap();
    let mut want = vec!["walk".to_string()];
    for m in &p.members {
        if let MemberKind::Mot(_) = m.kind {
            want.push(format!("pl000_00_3_{:02}", m.slots[0]));
        }
    }
    assert_eq!(names, want);
    let (back, motions, report) = import(&glb);
    assert_eq!(back, model);
    assert_eq!(
        motions,
        vec![
            ("walk.mot".to_string(), Some(mot)),
            ("pl000_00_3.pac".to_string(), Some(pac))
        ]
    );
    assert!(report.motions.iter().all(|f| f
        .motions
        .iter()
        .all(|m| m.status == rigtrip::gltf::import::motions::MotionStatus::Unchanged)));
}

#[test]
fn generated_motions_on_generated_models_come_back_exactly() {
    for seed in 0..20u64 {
        let model = model(seed);
        let mot = synth::motion::motion_for_model(seed + 100, &rest(&model))
            .write()
            .unwrap();
        let glb = export_glb(&model, &[("x.mot", mot.clone())]).unwrap();
        let (back, motions, _) = import(&glb);
        assert_eq!(back, model, "seed {seed}");
        assert_eq!(
            motions,
            vec![("x.mot".to_string(), Some(mot))],
            "seed {seed}"
        );
    }
}

#[test]
fn archives_with_a_member_of_another_node_count_come_back_exactly_on_generated_models() {
    for seed in 0..12u64 {
        let model = model(seed);
        let rest = rest(&model);
        // Another node count, 1..=40, never the model's.
        let other = 1 + (rest.len() + 1 + seed as usize * 7) % 40;
        let other = if other == rest.len() {
            other % 40 + 1
        } else {
            other
        };
        let pac = synth::motion::pac_with_foreign_member(seed, &rest, other);
        let (glb, report) = export_report(&model, &[("a.pac", pac.clone())]);
        assert_eq!(report.animations.len(), 2, "seed {seed}");
        assert_eq!(
            report.carried_motions[0].reason,
            format!(
                "the motion animates {other} nodes, the model has {}",
                rest.len()
            ),
            "seed {seed}"
        );
        let (back, motions, _) = import(&glb);
        assert_eq!(back, model, "seed {seed}");
        assert_eq!(
            motions,
            vec![("a.pac".to_string(), Some(pac))],
            "seed {seed}"
        );
    }
}

/// Exports `model` with `motions` and returns the GLB and the export report.
fn export_report(
    model: &[u8],
    motions: &[(&str, Vec<u8>)],
) -> (Vec<u8>, rigtrip::gltf::ExportReport) {
    let rig = rigtrip::ops::load(None, model).unwrap();
    let inputs: Vec<MotionInput> = motions
        .iter()
        .map(|(n, b)| MotionInput::read(n, b.clone()).unwrap())
        .collect();
    let e = export_animated(&rig, &inputs, &ExportOptions::default()).unwrap();
    (to_glb(&e).unwrap(), e.report)
}

#[test]
fn an_archive_member_of_another_node_count_is_named_carried_and_comes_back_byte_for_byte() {
    // The real set's case: one member animates 31 nodes where the model has 24 (here 49).
    let model = sample_model();
    let n = node_count(&model);
    assert_eq!(n, 49);
    let pac = synth::motion::pac_with_foreign_member(7, &rest(&model), 31);
    let mot = synth::motion::sample_mot();
    let (glb, report) = export_report(
        &model,
        &[("pl000_00_5.pac", pac.clone()), ("walk.mot", mot.clone())],
    );
    let names: Vec<&str> = report.animations.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["pl000_00_5_00", "pl000_00_5_02", "walk"]);
    assert_eq!(
        serde_json::to_value(&report.carried_motions).unwrap(),
        json!([{
            "name": "pl000_00_5_01",
            "file": "pl000_00_5.pac",
            "slots": [1],
            "reason": "the motion animates 31 nodes, the model has 49"
        }])
    );
    let path = tmp("carried.glb");
    std::fs::write(&path, &glb).unwrap();
    common::validate(&[path]);
    let g = gltf::Gltf::from_slice(&glb).unwrap();
    assert_eq!(g.animations().count(), 3);
    let (back, motions, report) = import(&glb);
    assert_eq!(back, model);
    assert_eq!(
        motions,
        vec![
            ("pl000_00_5.pac".to_string(), Some(pac)),
            ("walk.mot".to_string(), Some(mot))
        ]
    );
    let statuses: Vec<Value> = report.motions[0]
        .motions
        .iter()
        .map(|m| json!([m.animation, m.status]))
        .collect();
    assert_eq!(
        statuses,
        [
            json!(["pl000_00_5_00", "unchanged"]),
            json!(["pl000_00_5_01", "carried"]),
            json!(["pl000_00_5_02", "unchanged"])
        ]
    );
    let mut text = Vec::new();
    report.motions[0].render_text(0.01, &mut |l| text.push(l));
    assert_eq!(
        text,
        [
            "motion file pl000_00_5.pac (".to_string()
                + &report.motions[0].bytes.unwrap().to_string()
                + " bytes): 2 unchanged, 0 edited, 0 deleted, 1 carried (noise up to 0% of the tolerance)",
            "  pl000_00_5_01 (slot 1): carried as it was (it had no animation: it does not fit the model)".into()
        ]
    );
}

#[test]
fn a_carried_motion_stays_carried_when_an_animation_takes_its_name() {
    // An animation named like the carried motion (made in Blender, say) is not that motion.
    let model = sample_model();
    let pac = synth::motion::pac_with_foreign_member(8, &rest(&model), 31);
    let (glb, _) = export_report(&model, &[("p.pac", pac.clone())]);
    let (mut json, bin) = split(&glb);
    let first = json["animations"][0].clone();
    let mut copy = first.clone();
    copy["name"] = json!("p_01");
    json["animations"].as_array_mut().unwrap().push(copy);
    let (_, motions, report) = import(&join(&json, &bin));
    assert_eq!(motions, vec![("p.pac".to_string(), Some(pac))]);
    assert_eq!(report.motions[0].motions[1].animation, "p_01");
    assert_eq!(
        serde_json::to_value(&report.motions[0].motions[1].status).unwrap(),
        "carried"
    );
}

#[test]
fn a_motion_of_another_skeleton_is_warned_about_by_joint_and_the_models_own_are_not() {
    let model = sample_model();
    let rig = rigtrip::ops::load(None, &model).unwrap();
    let own = rest(&model);
    // The generator's translation tracks sit on node 0; here it is a bone, not the root.
    let node0 = &rig.skeletons[0].joints[0];
    assert!(node0.parent.is_some());
    let length = node0.translation.length();
    let (_, report) = export_report(
        &model,
        &[
            ("walk.mot", synth::motion::sample_mot()),
            ("pl.pac", synth::motion::sample_pac()),
        ],
    );
    assert_eq!(report.animations.len(), 4);
    assert_eq!(report.motion_misfits, []);
    for factor in [0.5, 2.0] {
        let other = synth::motion::motion_for_model(9, &synth::motion::scaled_rest(&own, factor))
            .write()
            .unwrap();
        let (_, report) = export_report(&model, &[("boss.mot", other)]);
        assert_eq!(report.carried_motions, []);
        let [m] = report.motion_misfits.as_slice() else {
            panic!("{:?}", report.motion_misfits)
        };
        assert_eq!((m.name.as_str(), m.file.as_str()), ("boss", "boss.mot"));
        let [j] = m.joints.as_slice() else {
            panic!("{:?}", m.joints)
        };
        assert_eq!((j.misfit.joint, j.misfit.root), (0, false));
        assert_eq!(j.name, node0.name);
        assert_eq!(j.misfit.rest, length);
        // Each axis within 2% of the offset's length of the scaled offset: the length too.
        let r = j.misfit.ratio();
        assert!((r - factor).abs() <= 0.02 * factor * 3f64.sqrt(), "{r}");
    }
    // Generated models with their own motions: no warning.
    for seed in 0..10u64 {
        let generated = self::model(seed);
        let mot = synth::motion::motion_for_model(seed, &rest(&generated))
            .write()
            .unwrap();
        let (_, report) = export_report(&generated, &[("m.mot", mot)]);
        assert_eq!(report.motion_misfits, [], "seed {seed}");
    }
}

#[test]
fn root_motion_at_another_height_is_warned_about_and_travel_is_not() {
    use rigtrip::rig::motion::fit::misfits;
    // A chain of 3 whose root stands 100 units up (Y); root motion travels ±300 in X and Z.
    let rig = rigtrip::rig::motion::bare_rig(3).unwrap();
    let mut own = synth::motion::model_rest(&rig);
    own[0].offset = [0.0, 100.0, 0.0];
    let mut skeleton = rig.skeletons[0].clone();
    skeleton.joints[0].translation = glam::DVec3::new(0.0, 100.0, 0.0);
    let rest = {
        let mut r = rigtrip::rig::motion::rest_channels(&rig, 0);
        r[0][1] = 100.0;
        r
    };
    let motion = |r: &[synth::motion::NodeRest]| {
        let b = synth::motion::motion_for_model(5, r).write().unwrap();
        read_file(&b).unwrap().motions.remove(0).motion.unwrap()
    };
    assert_eq!(misfits(&motion(&own), &skeleton, &rest, glam::DVec3::Y), []);
    let small = motion(&synth::motion::scaled_rest(&own, 0.5));
    let found = misfits(&small, &skeleton, &rest, glam::DVec3::Y);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].joint, found[0].root, found[0].rest),
        (0, true, 100.0)
    );
    assert!((found[0].motion - 50.0).abs() <= 5.0, "{found:?}");
    // Seen with another up axis, the same root's height is 0: nothing to compare.
    assert_eq!(misfits(&small, &skeleton, &rest, glam::DVec3::Z), []);
}

#[test]
fn export_names_carried_motions_and_misfits_in_text_and_takes_folders() {
    let dir = scratch("cli_fit");
    let model = sample_model();
    std::fs::write(dir.join("h.mod"), &model).unwrap();
    std::fs::create_dir(dir.join("motions")).unwrap();
    let pac = synth::motion::pac_with_foreign_member(7, &rest(&model), 31);
    std::fs::write(dir.join("motions/pl000_00_5.pac"), &pac).unwrap();
    let other = synth::motion::motion_for_model(9, &synth::motion::scaled_rest(&rest(&model), 0.5))
        .write()
        .unwrap();
    std::fs::write(dir.join("motions/boss.MOT"), &other).unwrap();
    std::fs::write(dir.join("motions/notes.txt"), b"not a motion").unwrap();
    let text = stdout_of(rigtrip().current_dir(&dir).args([
        "export",
        "--motions",
        "motions",
        "h.mod",
        "-o",
        "h.glb",
    ]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("wrote h.glb ("), "{text}");
    assert_eq!(lines[1].split(':').next(), Some("animation boss"));
    assert_eq!(lines[2].split(':').next(), Some("animation pl000_00_5_00"));
    assert_eq!(lines[3].split(':').next(), Some("animation pl000_00_5_02"));
    assert_eq!(
        lines[4],
        "motion pl000_00_5_01 (pl000_00_5.pac slot 1): not on this model: the motion animates 31 nodes, the model has 49; carried as it is (import --motions-out writes it back)"
    );
    assert_eq!(
        lines[5],
        "warning: motion boss (boss.MOT) looks made for another skeleton: 1 joint(s) do not fit"
    );
    assert!(lines[6].starts_with("  joint 0 "), "{text}");
    assert!(lines[6].contains(" (bone length): "), "{text}");
    assert!(lines[6].ends_with(" at rest (x0.5)"), "{text}");
    assert_eq!(lines.len(), 7, "{text}");
    // And back: the archive byte for byte.
    stdout_of(rigtrip().current_dir(&dir).args([
        "import",
        "h.glb",
        "-o",
        "back.mod",
        "--motions-out",
        "out",
    ]));
    assert_eq!(std::fs::read(dir.join("out/pl000_00_5.pac")).unwrap(), pac);
    assert_eq!(std::fs::read(dir.join("out/boss.MOT")).unwrap(), other);
    assert_eq!(std::fs::read(dir.join("back.mod")).unwrap(), model);
}

/// The GLB's JSON and binary chunk.
fn split(glb: &[u8]) -> (Value, Vec<u8>) {
    let g = gltf::Gltf::from_slice(glb).unwrap();
    let json = serde_json::to_value(g.document.into_json()).unwrap();
    (json, g.blob.unwrap())
}

fn join(json: &Value, bin: &[u8]) -> Vec<u8> {
    let root: gltf_json::Root = serde_json::from_value(json.clone()).unwrap();
    let e = rigtrip::gltf::Exported {
        root,
        bin: bin.to_vec(),
        report: Default::default(),
    };
    to_glb(&e).unwrap()
}

#[test]
fn an_edited_rotation_changes_only_its_joints_tracks_and_a_deleted_animation_empties_its_slot() {
    let model = sample_model();
    let mot = synth::motion::sample_mot();
    let pac = synth::motion::sample_pac();
    let glb = export_glb(&model, &[("walk.mot", mot.clone()), ("p.pac", pac.clone())]).unwrap();
    let (mut json, mut bin) = split(&glb);
    // Joint 5's rotation in "walk": turn every sample by 0.3 rad about Y from frame 10 on.
    let anim = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .position(|a| a["name"] == "walk")
        .unwrap();
    let joint_node = json["skins"][0]["joints"][5].as_u64().unwrap();
    let a = &json["animations"][anim];
    let ch = a["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == joint_node && c["target"]["path"] == "rotation")
        .unwrap();
    let sampler = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    let acc = |i: &Value| {
        let acc = &json["accessors"][i.as_u64().unwrap() as usize];
        let view = &json["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        (
            view["byteOffset"].as_u64().unwrap() as usize,
            acc["count"].as_u64().unwrap() as usize,
        )
    };
    let (t_off, count) = acc(&sampler["input"]);
    let (q_off, _) = acc(&sampler["output"]);
    let f32_at = |b: &[u8], o: usize| f32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    for k in 0..count {
        if f32_at(&bin, t_off + 4 * k) * 60.0 < 10.0 {
            continue;
        }
        let o = q_off + 16 * k;
        let q = DQuat::from_array([0, 1, 2, 3].map(|c| f64::from(f32_at(&bin, o + 4 * c))));
        let q = (DQuat::from_rotation_y(0.3) * q).normalize();
        for (c, x) in q.to_array().iter().enumerate() {
            bin[o + 4 * c..o + 4 * c + 4].copy_from_slice(&(*x as f32).to_le_bytes());
        }
    }
    // Delete the first archive animation.
    let (slots, gone) = common::first_motion(&pac, "p");
    json["animations"]
        .as_array_mut()
        .unwrap()
        .retain(|a| a["name"] != gone.as_str());
    let (back, motions, report) = import(&join(&json, &bin));
    assert_eq!(back, model);
    // walk.mot: only joint 5's rotation tracks differ.
    let changed = common::assert_only_rotations_of(5, &mot, motions[0].1.as_ref().unwrap());
    let walk = &report.motions[0].motions[0];
    assert_eq!(
        walk.status,
        rigtrip::gltf::import::motions::MotionStatus::Edited
    );
    assert_eq!(walk.reencoded.len(), changed);
    // p.pac: the deleted animation's slots are empty, every other member as it was.
    common::assert_member_deleted(&pac, motions[1].1.as_ref().unwrap(), &slots);
}

// ---------------------------------------------------------------------------------------------
// Blender (ignored by default; run with --include-ignored)

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn blender_round_trip_gives_the_motion_bytes_back_and_edits_land_where_made() {
    let dir = scratch("blender");
    let model = sample_model();
    let mot = synth::motion::motion_for_model(41, &rest(&model))
        .write()
        .unwrap();
    let pac = synth::motion::sample_pac();
    let p = Pac::read(&pac).unwrap();
    assert!(p.empty_slots().count() > 0, "the archive has an empty slot");
    let files = [("h.mod", &model), ("walk.mot", &mot), ("pl000.pac", &pac)];
    for (name, data) in files {
        std::fs::write(dir.join(name), data).unwrap();
    }
    let glb = dir.join("h.glb");
    stdout_of(
        rigtrip()
            .arg("export")
            .arg(dir.join("h.mod"))
            .arg("--motions")
            .arg(dir.join("walk.mot"))
            .arg("--motions")
            .arg(dir.join("pl000.pac"))
            .arg("-o")
            .arg(&glb),
    );
    let blender = |out: &str, edits: &[&str]| -> std::path::PathBuf {
        let dst = dir.join(out);
        common::blender_roundtrip(&glb, &dst, edits);
        dst
    };
    let import = |glb: &std::path::Path, name: &str| -> std::path::PathBuf {
        let out = scratch(name);
        stdout_of(
            rigtrip()
                .arg("import")
                .arg(glb)
                .arg("-o")
                .arg(out.join("h.mod"))
                .arg("--motions-out")
                .arg(&out),
        );
        out
    };
    let read = |d: &std::path::Path, f: &str| std::fs::read(d.join(f)).unwrap();

    // No edit: the model and both motion files come back exactly.
    let plain = import(&blender("plain.glb", &[]), "plain");
    assert!(read(&plain, "h.mod") == model, "model differs");
    assert!(read(&plain, "walk.mot") == mot, "walk.mot differs");
    assert!(read(&plain, "pl000.pac") == pac, "pl000.pac differs");

    // A rotation keyed on joint 5 of `walk` at Blender frame 10 (native frame 25), and the
    // archive's first motion deleted.
    let (slots, gone) = common::first_motion(&pac, "pl000");
    let edited = import(
        &blender(
            "edited.glb",
            &[
                "--key-rotation",
                "walk",
                "mod_5",
                "10",
                "0.3",
                "0.2",
                "0.1",
                "--delete-animation",
                &gone,
            ],
        ),
        "edited",
    );
    assert!(read(&edited, "h.mod") == model, "model differs");
    let _ = common::assert_only_rotations_of(5, &mot, &read(&edited, "walk.mot"));
    common::assert_member_deleted(&pac, &read(&edited, "pl000.pac"), &slots);
}

#[test]
fn verify_runs_the_gltf_leg_of_motions_on_a_bare_skeleton() {
    use rigtrip::ops::verify::{verify_bytes, GltfLeg, Verdict};
    let mut identical = 0;
    let mut skipped = Vec::new();
    let clean = (0..20u64).map(|s| {
        synth::motion::motion_for_model(s, &synth::motion::chain_rest(1 + s as usize * 7))
            .write()
            .unwrap()
    });
    let random =
        (0..150u64).flat_map(|s| [synth::motion::random_mot(s), synth::motion::random_pac(s)]);
    for (i, b) in clean.chain(random).enumerate() {
        match verify_bytes(None, &b) {
            Verdict::Identical {
                gltf: GltfLeg::Identical,
                ..
            } => identical += 1,
            Verdict::Identical {
                gltf: GltfLeg::Skipped(why),
                ..
            } => {
                assert!(i >= 20, "clean motion {i} skipped: {why}");
                skipped.push(why);
            }
            other => panic!("file {i}: {other:?}"),
        }
    }
    // Random files hold NaN tangents, keys that go back in time and archives without motions:
    // those are skipped with the reason; the rest come back through the GLB.
    assert!(
        identical >= 120,
        "{identical} identical, skipped: {skipped:?}"
    );
    assert!(skipped.iter().all(|w| w.contains("motion")), "{skipped:?}");
}

#[test]
fn broken_motion_records_are_refused_with_their_place() {
    let model = sample_model();
    let glb = export_glb(&model, &[("walk.mot", synth::motion::sample_mot())]).unwrap();
    let (json, bin) = split(&glb);
    let cases: [(&str, Value, &str); 10] = [
        (
            "file",
            json!("../walk.mot"),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/file: missing or not a plain file name",
        ),
        (
            "data",
            json!("@@@"),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/data: not base64: Invalid symbol 64, offset 0.",
        ),
        (
            "data",
            json!("AAAA"),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/data: not a motion file: not a motion file (no \"MOT\\0\" at offset 0x4) nor a motion archive (no \"PAC\\0\" at offset 0x0)",
        ),
        (
            "animations",
            json!(["walk", "again"]),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/animations: missing, or not 1 names",
        ),
        (
            "animations",
            json!("walk"),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/animations: missing, or not 1 names",
        ),
        (
            "carried",
            json!([1]),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/carried: not a list of motion indices below 1",
        ),
        (
            "carried",
            json!("0"),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/carried: not a list of motion indices below 1",
        ),
        (
            "unexported",
            json!([0, 1]),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/unexported: not a list of motion indices below 1",
        ),
        (
            "reading",
            json!("game"),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/reading: not \"exe\" or \"community\"",
        ),
        (
            "reading",
            json!(1),
            "rigtrip extras at /scenes/0/extras/rigtrip/motions/0/reading: not \"exe\" or \"community\"",
        ),
    ];
    for (key, value, want) in cases {
        let mut bad = json.clone();
        bad["scenes"][0]["extras"]["rigtrip"]["motions"][0][key] = value;
        let e = import_slice(&join(&bad, &bin), None, &ImportOptions::default()).unwrap_err();
        assert_eq!(rigtrip::chain(&e), want, "{key}");
    }
    // A channel whose sampler does not exist names the animation.
    let mut bad = json.clone();
    bad["animations"][0]["channels"][0]["sampler"] = json!(999);
    let e = import_slice(&join(&bad, &bin), None, &ImportOptions::default()).unwrap_err();
    assert_eq!(
        rigtrip::chain(&e),
        "animation 0 (walk): a channel names a sampler that does not exist"
    );
}

#[test]
fn motions_left_unexported_as_unchanged_come_back_as_read_and_an_animation_there_after_all_is_compared(
) {
    // The Blender add-on leaves the animations of unchanged actions out of the glTF and lists
    // their motions under `unexported`: the import keeps them without an animation.
    let model = sample_model();
    let pac = synth::motion::sample_pac();
    let mot = synth::motion::sample_mot();
    let glb = export_glb(&model, &[("walk.mot", mot.clone()), ("p.pac", pac.clone())]).unwrap();
    let (mut json, bin) = split(&glb);
    let names: Vec<String> = json["scenes"][0]["extras"]["rigtrip"]["motions"][1]["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["p_00", "p_01", "p_04"]);
    // Motion 0 left out, motion 1 listed but still in the glTF, the others exported as usual.
    json["scenes"][0]["extras"]["rigtrip"]["motions"][1]["unexported"] = json!([0, 1]);
    json["animations"]
        .as_array_mut()
        .unwrap()
        .retain(|a| a["name"] != names[0].as_str());
    let (back, motions, report) = import(&join(&json, &bin));
    assert_eq!(back, model);
    assert_eq!(
        motions,
        vec![
            ("walk.mot".to_string(), Some(mot)),
            ("p.pac".to_string(), Some(pac))
        ]
    );
    let status: Vec<Value> = report.motions[1]
        .motions
        .iter()
        .map(|m| serde_json::to_value(&m.status).unwrap())
        .collect();
    assert_eq!(
        status,
        [json!("unexported"), json!("unchanged"), json!("unchanged")]
    );
    let mut lines = Vec::new();
    report.motions[1].render_text(0.01, &mut |l| lines.push(l));
    assert!(
        lines[0].contains(
            ": 2 unchanged, 0 edited, 0 deleted, 1 not exported (unchanged in Blender) ("
        ),
        "{lines:?}"
    );
}

#[test]
fn a_motion_that_would_need_too_many_keys_is_carried() {
    use rigtrip::native::dmc3::motion::{Compression, KeyIn, Track};
    // 256 nodes, each rotating over the whole 15-bit frame range: 256 × 32,768 samples.
    let mut mot = synth::motion::motion_for_model(1, &synth::motion::chain_rest(256));
    let key = |frame: u16, value: f32| KeyIn {
        frame,
        flag: false,
        value,
        in_tangent: 0.0,
        out_tangent: 0.0,
    };
    mot.masks = vec![0x020; 256];
    mot.tracks = (0..256)
        .map(|_| {
            Track::encode(Compression::U16Linear, 0, &[key(0, 0.0), key(0x7FFF, 1.0)]).unwrap()
        })
        .collect();
    let bytes = mot.write().unwrap();
    let input = MotionInput::read("long.mot", bytes.clone()).unwrap();
    let rig = rigtrip::rig::motion::bare_rig(256).unwrap();
    let e = export_animated(&rig, &[input], &ExportOptions::default()).unwrap();
    assert_eq!(e.report.animations, []);
    assert_eq!(
        serde_json::to_value(&e.report.carried_motions).unwrap(),
        json!([{
            "name": "long",
            "file": "long.mot",
            "reason": "it needs more than 2097152 animation keys (one per frame where a channel moves)"
        }])
    );
    match rigtrip::ops::verify::verify_bytes(None, &bytes) {
        rigtrip::ops::verify::Verdict::Identical {
            gltf: rigtrip::ops::verify::GltfLeg::Skipped(why),
            ..
        } => assert!(why.contains("animation keys"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_motion_alone_is_refused_with_the_way_to_export_it() {
    let dir = scratch("alone");
    std::fs::write(dir.join("walk.mot"), synth::motion::sample_mot()).unwrap();
    let o = common::run_in(&dir, &["export", "walk.mot", "-o", "walk.glb"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "rigtrip: error: walk.mot: a motion, not a rig: export it with the model it animates (rigtrip export MODEL --motions walk.mot -o OUT.glb)\n"
    );
    assert!(!dir.join("walk.glb").exists());
}
