//! New motions: an animation that came from no motion file is written as a new motion where
//! its name says (`<archive>_<slot>`, the archive growing past its table), into the archive
//! `--new-motions-into` names, or as `NAME.mot`; the new motion plays like the animation
//! (`common::pose`, the tests' own evaluators of native keys and GLB samplers, within 1 mm at
//! every frame); the archive's other members keep their bytes; every animation not written is
//! named with its reason; a slot that is taken or a frame the format cannot hold is refused.
//! Through Blender (ignored by default): the guide's new actions (`guide/modders/motions.md`,
//! `tools/blender-roundtrip.py --new-action`) land as the guide shows, each turning its joint by the keyed angle.

mod common;
use common::pose::{gltf_world, native_world};
use common::{glb, glb_split};

use serde_json::{json, Value};

use rigtrip::gltf::import::motions::MotionStatus;
use rigtrip::gltf::import::{import_slice, ImportError, ImportOptions, Imported};
use rigtrip::gltf::{export_animated, to_glb, ExportOptions, MotionInput};
use rigtrip::native::dmc3::pac::Pac;
use rigtrip::synth;

/// The sample model exported with `walk.mot` and `p.pac` (slots 0, 1 and 4 motions, 3 opaque,
/// 2 and 5 empty), as JSON and binary chunk.
fn exported() -> (Value, Vec<u8>) {
    let rig = rigtrip::ops::load(None, &synth::dmc3::sample_mod()).unwrap();
    let inputs = [
        MotionInput::read("walk.mot", synth::motion::sample_mot()).unwrap(),
        MotionInput::read("p.pac", synth::motion::sample_pac()).unwrap(),
    ];
    let e = export_animated(&rig, &inputs, &ExportOptions::default()).unwrap();
    glb_split(&to_glb(&e).unwrap())
}

/// Adds a copy of animation `of` named `name` (`None`: unnamed).
fn add_copy(json: &mut Value, of: &str, name: Option<&str>) {
    let list = json["animations"].as_array_mut().unwrap();
    let mut a = list.iter().find(|a| a["name"] == of).unwrap().clone();
    match name {
        Some(n) => a["name"] = json!(n),
        None => {
            a.as_object_mut().unwrap().remove("name");
        }
    }
    list.push(a);
}

fn import_with(json: &Value, bin: &[u8], into: Option<&str>) -> Result<Imported, ImportError> {
    let opts = ImportOptions {
        new_motions_into: into.map(str::to_string),
        ..ImportOptions::default()
    };
    import_slice(&glb(json, bin), None, &opts)
}

fn file<'a>(i: &'a Imported, name: &str) -> &'a [u8] {
    let f = i.motions.iter().find(|m| m.file == name).unwrap();
    f.bytes.as_deref().unwrap()
}

/// The motion `mot` (its bytes) on the sample model plays animation `anim` of `glb_bytes` within
/// 1 mm per joint at every frame to its end; returns the worst distance.
fn assert_plays_like(mot: &[u8], glb_bytes: &[u8], anim: &str) -> f64 {
    let model = synth::dmc3::sample_mod();
    let last = common::motplay::read(mot).end_frame as u32;
    assert!(last > 10, "end frame {last}");
    let mut worst = 0.0f64;
    for f in 0..=last {
        let want = gltf_world(glb_bytes, anim, f64::from(f) / 60.0);
        let got = native_world(&model, mot, f64::from(f));
        for (j, (a, b)) in want.iter().zip(&got).enumerate() {
            let d = a.distance(*b);
            worst = worst.max(d);
            assert!(d < 1e-3, "frame {f} joint {j}: {a} vs {b} ({d} m)");
        }
    }
    worst
}

#[test]
fn a_new_animation_lands_in_the_slot_its_name_gives_and_as_a_mot_of_its_own() {
    let (mut json, bin) = exported();
    add_copy(&mut json, "walk", Some("p_09"));
    add_copy(&mut json, "walk", Some("my taunt"));
    let i = import_with(&json, &bin, None).unwrap();
    let pac = synth::motion::sample_pac();
    let written = file(&i, "p.pac");
    common::assert_members_kept(&pac, written);
    // The archive grew to ten slots; slot 9 holds the new motion, 6 to 8 stay empty.
    let p = Pac::read(written).unwrap();
    assert_eq!(p.offsets.len(), 10);
    assert_eq!(&p.offsets[5..9], &[0, 0, 0, 0]);
    let g = glb(&json, &bin);
    let worst = assert_plays_like(&common::member_motion(written, 9), &g, "walk");
    assert_plays_like(file(&i, "my taunt.mot"), &g, "walk");
    // walk.mot is as it was.
    assert_eq!(file(&i, "walk.mot"), &synth::motion::sample_mot()[..]);
    // The report: new, where, its template, its error per joint.
    let reports: Vec<_> = i.report.motions.iter().flat_map(|f| &f.motions).collect();
    let new: Vec<_> = reports
        .iter()
        .filter(|m| m.status == MotionStatus::New)
        .collect();
    assert_eq!(new.len(), 2);
    assert_eq!(new[0].slots, vec![9]);
    assert!(new[0]
        .template
        .as_ref()
        .unwrap()
        .starts_with("from p.pac slot 0 (p_00)"));
    assert!(!new[0].errors.is_empty());
    assert!(new[0]
        .errors
        .iter()
        .all(|e| e.rotation_rad < 1e-3 && e.translation_m < 1e-4));
    let text = i.report.render_text();
    assert!(text.contains("  p_09 (slot 9): new motion, "), "{text}");
    assert!(i.report.animations_not_written.is_empty());
    eprintln!("new motion within {worst:e} m of the animation");
}

#[test]
fn new_motions_into_an_archive_take_its_first_free_slot() {
    let (mut json, bin) = exported();
    add_copy(&mut json, "walk", Some("taunt"));
    add_copy(&mut json, "p_01", Some("block"));
    let i = import_with(&json, &bin, Some("some/folder/P.PAC")).unwrap();
    let written = file(&i, "p.pac");
    common::assert_members_kept(&synth::motion::sample_pac(), written);
    let p = Pac::read(written).unwrap();
    assert_eq!(p.offsets.len(), 6);
    let g = glb(&json, &bin);
    assert_plays_like(&common::member_motion(written, 2), &g, "walk");
    assert_plays_like(&common::member_motion(written, 5), &g, "p_01");
    assert!(i.motions.iter().all(|m| !m.file.ends_with("taunt.mot")));
    // Full: the table grows.
    add_copy(&mut json, "walk", Some("kick"));
    let i = import_with(&json, &bin, Some("p.pac")).unwrap();
    assert_eq!(Pac::read(file(&i, "p.pac")).unwrap().offsets.len(), 7);
    // An archive the glTF does not carry is refused with those it does.
    let e = import_with(&json, &bin, Some("q.pac")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--new-motions-into q.pac: the glTF carries no motion archive of that name (it carries p.pac)"
    );
}

#[test]
fn every_animation_not_written_is_named_with_its_reason() {
    let (mut json, bin) = exported();
    add_copy(&mut json, "walk", None);
    add_copy(&mut json, "walk", Some("p_01"));
    add_copy(&mut json, "walk", Some("a/b"));
    // One that animates a node that is no joint (the mesh node).
    let mesh_node = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n.get("mesh").is_some())
        .unwrap();
    let list = json["animations"].as_array_mut().unwrap();
    let mut a = list[0].clone();
    a["name"] = json!("wobble");
    a["channels"] = json!([{"sampler": 0, "target": {"node": mesh_node, "path": "rotation"}}]);
    list.push(a);
    let n = list.len();
    let i = import_with(&json, &bin, None).unwrap();
    let not: Vec<String> = i
        .report
        .animations_not_written
        .iter()
        .map(|x| x.to_string())
        .collect();
    assert_eq!(
        not,
        vec![
            format!("animation {}: not written: it has no name (a new motion is written under its animation's name)", n - 4),
            format!("animation {} (p_01): not written: an earlier animation is named p_01 too; only the first of a name is read", n - 3),
            format!("animation {} (a/b): not written: its name is not a plain file name, so it cannot be written as a/b.mot", n - 2),
            format!("animation {} (wobble): not written: it animates no joint of the rig", n - 1),
        ]
    );
    let text = i.report.render_text();
    for line in &not {
        assert!(text.contains(line.as_str()), "{text}");
    }
    let v = serde_json::to_value(&i.report).unwrap();
    assert_eq!(v["animations_not_written"][3]["name"], "wobble");
    // Nothing else was written: the files are the ones read.
    assert_eq!(i.motions.len(), 2);
}

#[test]
fn a_taken_slot_and_a_frame_past_the_format_are_refused_by_name() {
    let (mut json, bin) = exported();
    add_copy(&mut json, "walk", Some("p_03"));
    let e = import_with(&json, &bin, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "animation p_03: its name gives slot 3 of p.pac, which holds a member that is not a motion (opaque); nothing was written"
    );
    let (mut json, mut bin) = exported();
    add_copy(&mut json, "walk", Some("p_4096"));
    let e = import_with(&json, &bin, None).unwrap_err();
    assert!(e.to_string().contains("past the 4096 slots"), "{e}");
    // A sample at 10 minutes: past frame 32767.
    add_copy(&mut json, "walk", Some("long"));
    json["animations"]
        .as_array_mut()
        .unwrap()
        .retain(|a| a["name"] != "p_4096");
    let long = json["animations"].as_array().unwrap().len() - 1;
    let input = json["animations"][long]["samplers"][0]["input"]
        .as_u64()
        .unwrap() as usize;
    let mut times = json["accessors"][input].clone();
    let count = times["count"].as_u64().unwrap() as usize;
    let off = bin.len();
    for k in 0..count {
        bin.extend_from_slice(&(600.0f32 * (k as f32 + 1.0) / count as f32).to_le_bytes());
    }
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": off, "byteLength": 4 * count}));
    times["bufferView"] = json!(views.len() - 1);
    times["min"] = json!([600.0 / count as f32]);
    times["max"] = json!([600.0]);
    json["buffers"][0]["byteLength"] = json!(bin.len());
    let accessors = json["accessors"].as_array_mut().unwrap();
    accessors.push(times);
    json["animations"][long]["samplers"][0]["input"] = json!(accessors.len() - 1);
    let e = import_with(&json, &bin, None).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("animation long: joint "), "{msg}");
    assert!(msg.contains("past frame 32767, the last a motion holds (546 s at 60 frames per second); nothing was written"), "{msg}");
}

/// The lines the guide's motions chapter shows for the command line that starts with `$ start` (its indented
/// block, up to the next command or blank line), `…` lines left out.
fn readme_lines(start: &str) -> Vec<String> {
    let readme = include_str!("../guide/modders/motions.md");
    let at = readme
        .find(&format!("    $ {start}"))
        .expect("the command in guide/modders/motions.md");
    readme[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("    ") && !l.starts_with("    $ "))
        .map(|l| l[4..].to_string())
        .filter(|l| l != "…")
        .collect()
}

#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run"]
fn readmes_new_actions_made_in_blender_land_as_it_shows() {
    let dir = common::scratch("new_motions_readme");
    let glb_in = dir.join("humanoid_anim.glb");
    let model = common::sample("dmc3_humanoid.mod");
    let out = common::rigtrip()
        .current_dir(common::repo())
        .args([
            "export",
            "samples/dmc3_humanoid.mod",
            "--motions",
            "samples/dmc3_humanoid.mot",
        ])
        .args(["--motions", "samples/dmc3_humanoid.pac", "-o"])
        .arg(&glb_in)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let edits = [
        "--new-action",
        "dmc3_humanoid_07",
        "mod_5",
        "12",
        "0.5",
        "--new-action",
        "my_taunt",
        "mod_5",
        "12",
        "0.5",
    ];
    let glb = dir.join("humanoid_new.glb");
    common::blender_roundtrip(&glb_in, &glb, &edits);
    let out = common::rigtrip()
        .current_dir(&dir)
        .args([
            "import",
            "humanoid_new.glb",
            "-o",
            "humanoid_new.mod",
            "--motions-out",
            "motions_new",
        ])
        .output()
        .unwrap();
    let text = common::text(&out.stdout);
    assert!(out.status.success(), "{text}{}", common::text(&out.stderr));
    // Every line the guide shows, in its order.
    let got: Vec<&str> = text.lines().collect();
    let mut from = 0;
    for want in readme_lines("rigtrip import humanoid_new.glb") {
        let k = got[from..]
            .iter()
            .position(|l| *l == want)
            .unwrap_or_else(|| panic!("guide line not in the output: {want}\n{text}"));
        from += k + 1;
    }
    assert!(std::fs::read(dir.join("humanoid_new.mod")).unwrap() == model);
    let pac = std::fs::read(dir.join("motions_new/dmc3_humanoid.pac")).unwrap();
    common::assert_members_kept(&common::sample("dmc3_humanoid.pac"), &pac);
    common::pose::assert_keyed_action(&model, &common::member_motion(&pac, 7), 5);
    let lone = std::fs::read(dir.join("motions_new/my_taunt.mot")).unwrap();
    common::pose::assert_keyed_action(&model, &lone, 5);
}
