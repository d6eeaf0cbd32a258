//! Motions as the game plays them (docs/formats.md, motions: the executable's channel table,
//! time offsets, interpolation per segment, the rounding of the pose):
//!
//! - generated motions whose nodes each animate one axis of a triple, with time offsets and
//!   Hermite and linear segments mixed, exported and checked against the tests' own reader and
//!   player (`common::motplay`, `common::pose`) at every frame: joint positions within 1 mm,
//!   local rotations within 0.01°; imported back byte for byte;
//! - the game's 16-bit angles cost the animation no key;
//! - a turn about one axis in an animation of a rig from elsewhere, retargeted (`import --onto`
//!   with a motion template), becomes that axis's track alone;
//! - a GLB written before rigtrip followed the executable (`tests/data/old-motions`, written by
//!   a rigtrip built before it: main at 37d1c23, whose motion code is 716ba18's) imports exactly
//!   as it did, unedited and edited;
//! - through Blender (ignored by default; `RIGTRIP_BLENDER=5.3` for Blender 5.3): a new action
//!   turning one bone about the axis of its rotation-Z channel becomes a motion whose mask holds
//!   that bone's 0x020 alone, and plays as Blender played the action.

mod common;
use common::motplay;
use common::pose::{
    gltf_joint_names, gltf_local_rotations, gltf_world, native_local_rotations, native_world,
};
use common::{glb, glb_split};

use glam::{DQuat, DVec3};
use serde_json::{json, Value};

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export_animated, to_glb, ExportOptions, MotionInput};
use rigtrip::rig::motion::{read_file_as, Reading};
use rigtrip::synth;
use rigtrip::synth::motion::NodeRest;

/// The models the motions go on: the humanoid sample and a generated model in the real file's
/// layout.
fn models() -> Vec<(&'static str, Vec<u8>, Vec<NodeRest>)> {
    let (real, real_rest) = synth::motion::real_layout_for_motions().expect("a real-layout model");
    vec![
        (
            "humanoid",
            synth::dmc3::sample_mod(),
            synth::motion::humanoid_rest(),
        ),
        ("real layout", real, real_rest),
    ]
}

/// `model` exported with the motion files `motions` (name, bytes, the reading they are lifted
/// by), as a GLB.
fn export_glb(model: &[u8], motions: &[(&str, Vec<u8>, Reading)]) -> Vec<u8> {
    export_rig(rigtrip::ops::load(None, model).unwrap(), motions)
}

/// [`export_glb`] of a rig.
fn export_rig(rig: rigtrip::rig::Rig, motions: &[(&str, Vec<u8>, Reading)]) -> Vec<u8> {
    let inputs: Vec<MotionInput> = motions
        .iter()
        .map(|(n, b, r)| MotionInput {
            file_name: n.to_string(),
            bytes: b.clone(),
            file: read_file_as(b, *r).unwrap(),
        })
        .collect();
    let e = export_animated(&rig, &inputs, &ExportOptions::default()).unwrap();
    to_glb(&e).unwrap()
}

/// The angle between two rotations, degrees.
fn degrees_between(a: DQuat, b: DQuat) -> f64 {
    (2.0 * a.normalize().dot(b.normalize()).abs().min(1.0).acos()).to_degrees()
}

/// What the motion `mot` (bytes) holds that the executable's reading changes, by the tests' own
/// reader: (nodes with one bit in every triple they animate, tracks with a single X or Z bit,
/// tracks with a time offset, compression-3 tracks mixing Hermite and linear segments).
fn what_it_exercises(mot: &[u8]) -> (usize, usize, usize, usize) {
    let m = motplay::read(mot);
    let single = m
        .masks
        .iter()
        .filter(|&&mask| (0..3).all(|k| ((mask >> (3 * k)) & 7).count_ones() <= 1))
        .count();
    let x_or_z = m.tracks.iter().filter(|t| t.channel % 3 != 1).count();
    let offset = m.tracks.iter().filter(|t| t.offset != 0).count();
    let mixed = m
        .tracks
        .iter()
        .filter(|t| {
            let segs = &t.keys[..t.keys.len().saturating_sub(1)];
            t.compression == 3 && segs.iter().any(|k| k.hermite) && segs.iter().any(|k| !k.hermite)
        })
        .count();
    (single, x_or_z, offset, mixed)
}

/// How far (metres) the old reading's pose of `mot` on `model` is from the game's, at worst
/// over frames 0 to `end`: what rigtrip showed before it followed the executable.
fn old_reading_off(model: &[u8], mot: &[u8], end: u32) -> f64 {
    let rig = rigtrip::ops::load(None, model).unwrap();
    let rest = rigtrip::rig::motion::rest_channels(&rig, 0);
    let file = read_file_as(mot, Reading::Community).unwrap();
    let old = file.motions[0].motion.as_ref().unwrap();
    let mut worst = 0.0f64;
    for f in 0..=end {
        let game = native_world(model, mot, f64::from(f));
        let shown = old
            .world_at(&rig.skeletons[0], &rest, f64::from(f))
            .unwrap();
        for (g, s) in game.iter().zip(&shown) {
            worst = worst.max(g.distance(s.w_axis.truncate() * 0.01));
        }
    }
    worst
}

#[test]
fn single_axes_time_offsets_and_mixed_segments_play_as_the_game_does_and_come_back() {
    let (mut frames, mut worst_m, mut worst_deg, mut old_off) = (0usize, 0.0f64, 0.0f64, 0.0f64);
    let mut exercised = (0, 0, 0, 0);
    for (name, model, rest) in models() {
        for seed in 0..3u64 {
            let mot = synth::motion::single_channel_motion(seed, &rest)
                .write()
                .unwrap();
            let (single, x_or_z, offset, mixed) = what_it_exercises(&mot);
            assert_eq!(
                single,
                rest.len(),
                "{name} seed {seed}: every node one bit per triple"
            );
            exercised = (
                exercised.0 + single,
                exercised.1 + x_or_z,
                exercised.2 + offset,
                exercised.3 + mixed,
            );
            let glb = export_glb(&model, &[("single.mot", mot.clone(), Reading::Exe)]);
            let end = motplay::read(&mot).end_frame as u32;
            for f in 0..=end {
                let (nf, t) = (f64::from(f), f64::from(f) / 60.0);
                let want = native_world(&model, &mot, nf);
                let got = gltf_world(&glb, "single", t);
                assert_eq!(want.len(), got.len());
                for (j, (a, b)) in want.iter().zip(&got).enumerate() {
                    let d = a.distance(*b);
                    worst_m = worst_m.max(d);
                    assert!(d < 1e-3, "{name} seed {seed} frame {f} joint {j}: {d} m");
                }
                let want = native_local_rotations(&model, &mot, nf);
                let got = gltf_local_rotations(&glb, "single", t);
                for (j, (a, b)) in want.iter().zip(&got).enumerate() {
                    let d = degrees_between(*a, *b);
                    worst_deg = worst_deg.max(d);
                    assert!(d < 0.01, "{name} seed {seed} frame {f} joint {j}: {d}°");
                }
                frames += 1;
            }
            // Back byte for byte.
            let i = import_slice(&glb, None, &ImportOptions::default()).unwrap();
            assert_eq!(i.motions.len(), 1);
            assert!(
                i.motions[0].bytes.as_deref() == Some(&mot[..]),
                "{name} seed {seed}: {}",
                i.report.render_text()
            );
            old_off = old_off.max(old_reading_off(&model, &mot, end));
        }
    }
    // The motions hold what the test is about.
    let (_, x_or_z, offset, mixed) = exercised;
    assert!(x_or_z > 20 && offset > 20 && mixed > 20, "{exercised:?}");
    // The old reading put these motions visibly elsewhere.
    assert!(old_off > 0.05, "{old_off} m");
    eprintln!(
        "{frames} frames: joints within {worst_m:e} m and {worst_deg:e}° of the tests' own \
         evaluation; the old reading was up to {old_off:.3} m off; exercised (nodes, single X/Z \
         tracks, offset tracks, mixed tracks) {exercised:?}"
    );
}

/// The GLB's animations: how many channels, and their keys in all.
fn animation_accessors(glb_bytes: &[u8]) -> (usize, usize) {
    let (json, _) = glb_split(glb_bytes);
    let mut keys = 0;
    let mut channels = 0;
    for a in json["animations"].as_array().unwrap() {
        for s in a["samplers"].as_array().unwrap() {
            let input = s["input"].as_u64().unwrap() as usize;
            keys += json["accessors"][input]["count"].as_u64().unwrap() as usize;
            channels += 1;
        }
    }
    (channels, keys)
}

/// The game's 16-bit angles change the rotation samples (each by less than a unit, 0.0055°)
/// and nothing else: the same channels, the same keys and the same GLB size as the exact curves
/// give (the old reading plays the sample motions' full triples the same way, exactly).
#[test]
fn the_games_angles_cost_the_animation_no_key() {
    let model = synth::dmc3::sample_mod();
    let files = [
        ("walk.mot", synth::motion::sample_mot()),
        ("p.pac", synth::motion::sample_pac()),
    ];
    let with = |r: Reading| {
        let motions: Vec<_> = files.iter().map(|(n, b)| (*n, b.clone(), r)).collect();
        export_glb(&model, &motions)
    };
    let (game, exact) = (with(Reading::Exe), with(Reading::Community));
    let (a, b) = (animation_accessors(&game), animation_accessors(&exact));
    assert_eq!(a, b);
    // The binary chunks are as long: the same floats, some rotation values other.
    let (bin_game, bin_exact) = (glb_split(&game).1, glb_split(&exact).1);
    assert_eq!(bin_game.len(), bin_exact.len());
    assert!(bin_game != bin_exact);
    let mut moved = 0.0f64;
    let mut changed = 0;
    for f in (0..=60).map(f64::from) {
        let r0 = gltf_local_rotations(&game, "walk", f / 60.0);
        let r1 = gltf_local_rotations(&exact, "walk", f / 60.0);
        for (x, y) in r0.iter().zip(&r1) {
            let d = degrees_between(*x, *y);
            moved = moved.max(d);
            changed += usize::from(d > 1e-4);
        }
    }
    assert!(changed > 100, "{changed}");
    // Up to one unit on each of three angles.
    assert!(moved < 3.0 * 0.0055, "{moved}°");
    eprintln!(
        "{} channels, {} keys either way; GLB {} bytes (exact curves: {}); rotations moved up \
         to {moved:.4}° ({changed} of 61 frames x 49 joints changed)",
        a.0,
        a.1,
        game.len(),
        exact.len()
    );
}

/// Drops every `extras` of a glTF's JSON: a model from elsewhere.
fn strip_extras(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("extras");
            m.values_mut().for_each(strip_extras);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_extras),
        _ => {}
    }
}

/// Appends `floats` to the binary chunk as an accessor of `count` elements of `kind`; returns
/// its index.
fn push_accessor(json: &mut Value, bin: &mut Vec<u8>, floats: &[f32], kind: &str) -> usize {
    let per = if kind == "VEC4" { 4 } else { 1 };
    let offset = bin.len();
    bin.extend(floats.iter().flat_map(|x| x.to_le_bytes()));
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": 4 * floats.len()}));
    let view = views.len() - 1;
    let mut acc = json!({"bufferView": view, "componentType": 5126,
        "count": floats.len() / per, "type": kind});
    if kind == "SCALAR" {
        let max = floats.iter().copied().fold(f32::MIN, f32::max);
        let min = floats.iter().copied().fold(f32::MAX, f32::min);
        acc["min"] = json!([min]);
        acc["max"] = json!([max]);
    }
    let accessors = json["accessors"].as_array_mut().unwrap();
    accessors.push(acc);
    json["buffers"][0]["byteLength"] = json!(bin.len());
    json["accessors"].as_array().unwrap().len() - 1
}

/// A rig from elsewhere (the humanoid exported, its rigtrip data dropped) with one animation that
/// turns one joint about its parent's Z axis, put onto the humanoid with a motion template
/// (`import --onto ... --motions-out`): the retargeted motion holds that joint's rotation-Z bit
/// (0x020) and no other bit for it or any joint, and plays the turn.
#[test]
fn a_turn_about_one_axis_from_another_rig_is_retargeted_onto_that_axis_bit_alone() {
    use rigtrip::gltf::import::onto::{import_onto, OntoMotions, OntoOptions};
    let model = synth::dmc3::sample_mod();
    let rig = rigtrip::ops::load(None, &model).unwrap();
    let e = rigtrip::gltf::export(&rig, &ExportOptions::default()).unwrap();
    let (mut json, mut bin) = glb_split(&to_glb(&e).unwrap());
    strip_extras(&mut json);
    // Joint 5 (mod_5 of the humanoid, a joint with a parent).
    let key = 5;
    assert!(rig.skeletons[0].joints[key].parent.is_some());
    let node = json["skins"][0]["joints"][key].as_u64().unwrap() as usize;
    let r = &json["nodes"][node]["rotation"];
    let rest = DQuat::from_array(
        [0, 1, 2, 3].map(|k| r[k].as_f64().unwrap_or(if k == 3 { 1.0 } else { 0.0 })),
    );
    let turned = DQuat::from_rotation_z(0.5) * rest;
    let quats: Vec<f32> = [rest, turned, rest]
        .iter()
        .flat_map(|q| q.to_array().map(|x| x as f32))
        .collect();
    let input = push_accessor(&mut json, &mut bin, &[0.0, 0.5, 1.0], "SCALAR");
    let output = push_accessor(&mut json, &mut bin, &quats, "VEC4");
    json["animations"] = json!([{
        "name": "turn",
        "samplers": [{"input": input, "output": output, "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": node, "path": "rotation"}}],
    }]);
    let opts = OntoOptions {
        motions: Some(OntoMotions {
            template_file: "dmc3_humanoid.mot".into(),
            template: synth::motion::sample_mot(),
            into: None,
        }),
        ..OntoOptions::default()
    };
    let template = rigtrip::native::NativeFile::read(None, &model).unwrap();
    let got = import_onto(&glb(&json, &bin), None, template, &opts).unwrap();
    let text = got.report.render_text();
    let mot = got
        .motions
        .iter()
        .find(|m| m.file == "turn.mot")
        .and_then(|m| m.bytes.clone())
        .unwrap_or_else(|| panic!("no turn.mot\n{text}"));
    let m = motplay::read(&mot);
    for (j, mask) in m.masks.iter().enumerate() {
        let want = if j == key { 0x020 } else { 0 };
        assert_eq!(*mask, want, "joint {j}: mask {mask:#05x}\n{text}");
    }
    // At 0.5 s the joint is turned by 0.5 rad (the game's angle, within a unit).
    let rest_z = common::pose::rest_channels(&model)[key][5];
    let z = common::pose::native_channels(&model, &mot, 30.0)[key][5];
    assert!((z - rest_z - 0.5).abs() < 2e-4, "{z} {rest_z}");
}

// ---------------------------------------------------------------------------------------------
// A GLB written before rigtrip followed the executable
// ---------------------------------------------------------------------------------------------

/// The committed GLB the old rigtrip wrote, and the motion file its import wrote after
/// [`turn_rotation`].
fn old_fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::repo().join("tests/data/old-motions").join(name)).unwrap()
}

/// The sample EFM's 8-node block as a rig (the old GLB's model: a skeleton and nothing else keeps
/// the fixture small).
fn effect_rig() -> rigtrip::rig::Rig {
    let (efm, offset, nodes) = synth::dmc3::sample_efm();
    let format = rigtrip::native::Format::Block { offset, nodes };
    rigtrip::ops::load(Some(format), &efm).unwrap()
}

/// The node (and joint) whose rotation [`turn_rotation`] edits: the first node with a rotation
/// track that carries a time offset in the fixture's motion.
fn edited_joint(mot: &[u8]) -> usize {
    let m = motplay::read(mot);
    m.tracks
        .iter()
        .find(|t| t.channel / 3 == 1 && t.offset != 0)
        .map(|t| t.node)
        .expect("a rotation track with a time offset")
}

/// The motion file carried in the GLB's scene extras (its first record's bytes).
fn carried_motion(glb_bytes: &[u8]) -> Vec<u8> {
    let (json, _) = glb_split(glb_bytes);
    let data = json["scenes"][0]["extras"]["rigtrip"]["motions"][0]["data"]
        .as_str()
        .unwrap();
    rigtrip::bytes::b64::decode(data.as_bytes()).unwrap()
}

/// The GLB with joint `joint`'s rotation in animation `anim` turned by 0.3 rad about Y from frame
/// 10 on, as an edit in Blender would.
fn turn_rotation(glb_bytes: &[u8], anim: &str, joint: usize) -> Vec<u8> {
    let (json, mut bin) = glb_split(glb_bytes);
    let a = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == anim)
        .unwrap();
    let node = json["skins"][0]["joints"][joint].as_u64().unwrap();
    let ch = a["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == node && c["target"]["path"] == "rotation")
        .unwrap();
    let sampler = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    let at = |i: &Value| {
        let acc = &json["accessors"][i.as_u64().unwrap() as usize];
        let view = &json["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let off =
            view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0);
        (off as usize, acc["count"].as_u64().unwrap() as usize)
    };
    let (t_off, count) = at(&sampler["input"]);
    let (q_off, _) = at(&sampler["output"]);
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
    glb(&json, &bin)
}

/// The GLB with `reading` named in its motion record.
fn with_reading(glb_bytes: &[u8], reading: &str) -> Vec<u8> {
    let (mut json, bin) = glb_split(glb_bytes);
    json["scenes"][0]["extras"]["rigtrip"]["motions"][0]["reading"] = json!(reading);
    glb(&json, &bin)
}

/// The motion file an import of `glb_bytes` writes.
fn imported_motion(glb_bytes: &[u8]) -> Vec<u8> {
    let i = import_slice(glb_bytes, None, &ImportOptions::default()).unwrap();
    assert_eq!(i.motions.len(), 1);
    i.motions[0].bytes.clone().unwrap()
}

/// `tests/data/old-motions/single.glb` is the sample EFM's block with a motion of single axes,
/// time offsets and mixed segments, exported by rigtrip before it followed the executable; `single_edited.mot` is what that rigtrip's import wrote for it after
/// [`turn_rotation`]. Today's import of both is the same, because the motion record carries no
/// reading; named as the executable's, the same glTF is another motion.
#[test]
fn a_glb_written_before_the_executables_reading_imports_exactly_as_it_did() {
    let old = old_fixture("single.glb");
    let (json, _) = glb_split(&old);
    let record = &json["scenes"][0]["extras"]["rigtrip"]["motions"][0];
    assert!(record.get("reading").is_none(), "{record}");
    let mot = carried_motion(&old);
    let (_, x_or_z, offset, mixed) = what_it_exercises(&mot);
    assert!(x_or_z > 0 && offset > 0 && mixed > 0);
    // Unedited: the motion's own bytes.
    assert!(imported_motion(&old) == mot);
    // Edited: exactly what the old rigtrip wrote.
    let edited = turn_rotation(&old, "single", edited_joint(&mot));
    let want = old_fixture("single_edited.mot");
    assert!(imported_motion(&edited) == want);
    assert!(imported_motion(&with_reading(&edited, "community")) == want);
    // Read the game's way, the old samples are edits: the same glTF writes another motion.
    assert!(imported_motion(&with_reading(&old, "exe")) != mot);
    assert!(imported_motion(&with_reading(&edited, "exe")) != want);
    // Today's export by the old reading, its record's reading left out, is the old GLB itself.
    let again = export_rig(
        effect_rig(),
        &[("single.mot", mot.clone(), Reading::Community)],
    );
    let (mut json, bin) = glb_split(&again);
    let record = &mut json["scenes"][0]["extras"]["rigtrip"]["motions"][0];
    assert_eq!(record["reading"], "community");
    record.as_object_mut().unwrap().remove("reading");
    assert!(glb_split(&old) == (json, bin));
}

/// Writes the fixtures of [`a_glb_written_before_the_executables_reading_imports_exactly_as_it_did`]
/// with the rigtrip binary `RIGTRIP_OLD` names (one built before the executable's reading: they
/// were written by main's build at 37d1c23): `RIGTRIP_OLD=... cargo test --features old-build
/// --test motion_exe old_fixtures`.
#[cfg(feature = "old-build")]
#[test]
fn old_fixtures() {
    let old = std::env::var_os("RIGTRIP_OLD").expect("RIGTRIP_OLD: an old rigtrip binary");
    let dir = common::scratch("old_fixtures");
    let rest = synth::motion::model_rest(&effect_rig());
    let mot = synth::motion::single_channel_motion(3, &rest)
        .write()
        .unwrap();
    std::fs::write(dir.join("single.mot"), &mot).unwrap();
    std::fs::write(dir.join("effect.efm"), synth::dmc3::sample_efm().0).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&old)
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::text(&out.stderr));
    };
    run(&[
        "export",
        "--block-at",
        "0x35",
        "--nodes",
        "8",
        "effect.efm",
        "--motions",
        "single.mot",
        "-o",
        "single.glb",
    ]);
    let glb_bytes = std::fs::read(dir.join("single.glb")).unwrap();
    let edited = turn_rotation(&glb_bytes, "single", edited_joint(&mot));
    std::fs::write(dir.join("edited.glb"), edited).unwrap();
    run(&[
        "import",
        "edited.glb",
        "-o",
        "back.efm",
        "--motions-out",
        "out",
    ]);
    let to = common::repo().join("tests/data/old-motions");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::write(to.join("single.glb"), &glb_bytes).unwrap();
    std::fs::copy(dir.join("out/single.mot"), to.join("single_edited.mot")).unwrap();
}

/// Against an old build (`RIGTRIP_OLD`, as for [`old_fixtures`]): for generated motions and
/// archives on the humanoid, the old build's GLB imported here writes what the old build's own
/// import writes, unedited and with [`turn_rotation`] on each joint in turn.
#[cfg(feature = "old-build")]
#[test]
fn old_builds_glbs_import_as_the_old_build_imports_them() {
    let old = std::env::var_os("RIGTRIP_OLD").expect("RIGTRIP_OLD: an old rigtrip binary");
    let dir = common::scratch("old_cross");
    std::fs::write(dir.join("model.mod"), synth::dmc3::sample_mod()).unwrap();
    let rest = synth::motion::humanoid_rest();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&old)
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::text(&out.stderr));
    };
    let mut compared = 0;
    for seed in 0..4u64 {
        let files = [
            (
                "single.mot",
                synth::motion::single_channel_motion(seed, &rest)
                    .write()
                    .unwrap(),
            ),
            (
                "walk.mot",
                synth::motion::motion_for_model(seed, &rest)
                    .write()
                    .unwrap(),
            ),
        ];
        for (name, mot) in files {
            std::fs::write(dir.join(name), &mot).unwrap();
            run(&[
                "export",
                "model.mod",
                "--motions",
                name,
                "-o",
                "old.glb",
                "--force",
            ]);
            let glb_bytes = std::fs::read(dir.join("old.glb")).unwrap();
            let anim = name.trim_end_matches(".mot");
            assert!(imported_motion(&glb_bytes) == mot, "{name} seed {seed}");
            for joint in (0..rest.len()).step_by(5) {
                let edited = turn_rotation(&glb_bytes, anim, joint);
                std::fs::write(dir.join("edited.glb"), &edited).unwrap();
                let _ = std::fs::remove_dir_all(dir.join("out"));
                run(&[
                    "import",
                    "edited.glb",
                    "-o",
                    "back.mod",
                    "--force",
                    "--motions-out",
                    "out",
                ]);
                let want = std::fs::read(dir.join("out").join(name)).unwrap();
                assert!(
                    imported_motion(&edited) == want,
                    "{name} seed {seed} joint {joint}"
                );
                compared += 1;
            }
        }
    }
    eprintln!("{compared} edited GLBs of the old build imported as the old build imports them");
}

// ---------------------------------------------------------------------------------------------
// Blender (ignored by default; run with --include-ignored, RIGTRIP_BLENDER=5.3 for Blender 5.3)
// ---------------------------------------------------------------------------------------------

/// The world rotation (glTF space) of node `n` of the GLB's JSON at rest.
fn rest_world_rotation(json: &Value, n: usize) -> DQuat {
    let nodes = json["nodes"].as_array().unwrap();
    let parent = nodes.iter().position(|p| {
        p["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c.as_u64() == Some(n as u64)))
    });
    let r = nodes[n]["rotation"]
        .as_array()
        .map_or(DQuat::IDENTITY, |r| {
            DQuat::from_array([0, 1, 2, 3].map(|k| r[k].as_f64().unwrap()))
        });
    parent.map_or(r, |p| rest_world_rotation(json, p) * r)
}

#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run"]
fn a_new_action_about_one_axis_is_written_on_that_axis_bit_alone() {
    let dir = common::scratch("new_action_about");
    let (model, rest) = synth::motion::real_layout_for_motions().unwrap();
    std::fs::write(dir.join("pl000.mod"), &model).unwrap();
    std::fs::write(
        dir.join("pl000_00_3.pac"),
        synth::motion::pac_for_model(5, &rest),
    )
    .unwrap();
    let out = common::rigtrip()
        .current_dir(&dir)
        .args([
            "export",
            "pl000.mod",
            "--motions",
            "pl000_00_3.pac",
            "-o",
            "in.glb",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    // A joint with a parent: turned about its parent's Z axis, only its rotation-Z angle moves
    // (Euler X, then Y, then Z: Rz(z + a)·Ry·Rx = Rz(a)·Rz(z)·Ry·Rx).
    let (json, _) = glb_split(&std::fs::read(dir.join("in.glb")).unwrap());
    let joints: Vec<usize> = json["skins"][0]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j.as_u64().unwrap() as usize)
        .collect();
    let key = rest.iter().position(|r| !r.root).unwrap();
    let node = joints[key];
    let bone = json["nodes"][node]["name"].as_str().unwrap().to_string();
    let parent = (0..joints.len())
        .map(|k| joints[k])
        .find(|&p| {
            json["nodes"][p]["children"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c.as_u64() == Some(node as u64)))
        })
        .expect("the joint's parent");
    let z = rest_world_rotation(&json, parent) * DVec3::Z;
    // glTF (x, y, z) is Blender's (x, -z, y).
    let axis = [z.x, -z.z, z.y].map(|x| format!("{x:.9}"));
    let mut edits = vec!["--new-action-about", "my_turn", &bone, "12", "0.5"];
    edits.extend(axis.iter().map(String::as_str));
    common::blender_roundtrip(&dir.join("in.glb"), &dir.join("out.glb"), &edits);
    let out = common::rigtrip()
        .current_dir(&dir)
        .args([
            "import",
            "out.glb",
            "-o",
            "back.mod",
            "--motions-out",
            "motions",
        ])
        .output()
        .unwrap();
    let text = common::text(&out.stdout);
    assert!(out.status.success(), "{text}{}", common::text(&out.stderr));
    let mot = std::fs::read(dir.join("motions/my_turn.mot")).unwrap();
    let m = motplay::read(&mot);
    for (j, mask) in m.masks.iter().enumerate() {
        let want = if j == key { 0x020 } else { 0 };
        assert_eq!(*mask, want, "joint {j}: mask {mask:#05x}\n{text}");
    }
    // The tests' evaluation of the motion plays Blender's action (Blender reorders the skin's
    // joints: they are matched by name).
    let blender = std::fs::read(dir.join("out.glb")).unwrap();
    let names = gltf_joint_names(&blender);
    let slot: Vec<usize> = joints
        .iter()
        .map(|&n| {
            let name = json["nodes"][n]["name"].as_str().unwrap();
            names.iter().position(|b| b == name).unwrap()
        })
        .collect();
    let (mut worst_m, mut worst_deg) = (0.0f64, 0.0f64);
    for f in 0..=m.end_frame as u32 {
        let (nf, t) = (f64::from(f), f64::from(f) / 60.0);
        let want = gltf_world(&blender, "my_turn", t);
        let got = native_world(&model, &mot, nf);
        for (j, b) in got.iter().enumerate() {
            let d = want[slot[j]].distance(*b);
            worst_m = worst_m.max(d);
            assert!(d < 1e-3, "frame {f} joint {j}: {d} m");
        }
        // Blender samples 24 times a second: every fifth frame is a sample of its own, where
        // the motion holds the sample's value (less thinning, quantisation and the game's
        // angles: within 0.0057° + 0.0004° + 0.0055°); between samples both are straight lines
        // through other points.
        if f % 5 == 0 {
            let want = gltf_local_rotations(&blender, "my_turn", t)[slot[key]];
            let got = native_local_rotations(&model, &mot, nf)[key];
            let d = degrees_between(want, got);
            worst_deg = worst_deg.max(d);
            assert!(d < 0.012, "frame {f}: {d}°");
        }
    }
    eprintln!(
        "{bone} (joint {key}): mask 0x020 alone; plays Blender's action within {worst_m:e} m, \
         and its samples within {worst_deg:e}°\n{text}"
    );
}
