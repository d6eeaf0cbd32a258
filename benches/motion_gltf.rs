//! Motions through glTF, in memory, one thread (release build: `cargo bench --bench
//! motion_gltf`):
//!
//! - export of the humanoid sample model with 100 motions (`synth::motion::motion_for_model`,
//!   49 nodes, 20..90 frames) as 100 animations: reading the motion files, `export_animated`
//!   and `to_glb`; then the import of that GLB (`import_slice`, model and 100 motion files
//!   rebuilt and compared track by track); and the same export and import with the motions
//!   lifted by the old reading (curves played exactly, no 16-bit angles), run in turn with the
//!   executable's so that both see the same load: what the game's reading costs;
//! - `verify` of 1,000 motions (24 nodes, as the census's player motions) on both legs
//!   (`verify_bytes`: native, IR and glTF on a bare skeleton) and on the native leg alone;
//! - a new motion of 60 seconds (3,600 frames, every joint of the humanoid turning): the import
//!   of a GLB whose animation came from no motion file (encoded as a new motion, its error per
//!   joint measured at every frame), against the same GLB with the animation still its
//!   motion's (compared track by track);
//! - an animation of another rig onto the humanoid: CesiumMan (vendored) with its walk
//!   stretched to 57.5 s (3,451 frames), `import_onto` with a motion template (the body
//!   re-posed, the walk played at every frame on both skeletons and encoded as a new motion).
//!
//! Best of `RIGTRIP_BENCH_REPS` (3) runs each. Knob: `RIGTRIP_BENCH_MOTIONS` (1000) for the
//! verify corpus.

mod common;
use common::env_usize;

use common::best;

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export_animated, to_glb, ExportOptions, MotionInput};
use rigtrip::ops::verify::{verify_bytes_legs, GltfLeg, Legs, Verdict};
use rigtrip::synth;

fn main() {
    let reps = env_usize("RIGTRIP_BENCH_REPS", 3);

    // Export of one model with 100 motions.
    let model = synth::dmc3::sample_mod();
    let rig = rigtrip::ops::load(None, &model).expect("the sample model reads");
    let rest = synth::motion::model_rest(&rig);
    let nodes = rest.len();
    let files: Vec<(String, Vec<u8>)> = (0..100u64)
        .map(|s| {
            let b = synth::motion::motion_for_model(1000 + s, &rest)
                .write()
                .expect("generated motions write");
            (format!("m{s:03}.mot"), b)
        })
        .collect();
    let motion_bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let (t_export, glb) = best(reps, || {
        let inputs: Vec<MotionInput> = files
            .iter()
            .map(|(n, b)| MotionInput::read(n, b.clone()).expect("motions read"))
            .collect();
        let e = export_animated(&rig, &inputs, &ExportOptions::default()).expect("exports");
        to_glb(&e).expect("fits a GLB")
    });
    let (t_import, imported) = best(reps, || {
        import_slice(&glb, None, &ImportOptions::default()).expect("imports")
    });
    assert_eq!(imported.bytes, model);
    assert!(imported
        .motions
        .iter()
        .zip(&files)
        .all(|(m, (_, b))| m.bytes.as_ref() == Some(b)));
    println!(
        "export, {nodes}-node model + 100 motions ({:.1} KB of .mot): {:.1} ms -> GLB {:.1} KB",
        motion_bytes as f64 / 1e3,
        t_export.as_secs_f64() * 1e3,
        glb.len() as f64 / 1e3
    );
    println!(
        "import of that GLB (model + 100 motion files, every track compared): {:.1} ms",
        t_import.as_secs_f64() * 1e3
    );

    reading_cost(reps, &rig, &files);
    new_motion_of_60_seconds(reps, &rig, &rest);
    walk_onto_the_humanoid(reps, &model);

    // Verify of many motions.
    let count = env_usize("RIGTRIP_BENCH_MOTIONS", 1000);
    let rest = synth::motion::chain_rest(24);
    let corpus: Vec<Vec<u8>> = (0..count as u64)
        .map(|s| {
            synth::motion::motion_for_model(s, &rest)
                .write()
                .expect("generated motions write")
        })
        .collect();
    let bytes: usize = corpus.iter().map(Vec::len).sum();
    for (legs, label) in [(Legs::Both, "both legs"), (Legs::Native, "native leg")] {
        let (t, identical) = best(reps, || {
            corpus
                .iter()
                .filter(|b| match verify_bytes_legs(None, b, legs) {
                    Verdict::Identical { gltf, .. } => {
                        legs == Legs::Native || gltf == GltfLeg::Identical
                    }
                    _ => false,
                })
                .count()
        });
        assert_eq!(identical, count, "{label}: every motion verifies");
        println!(
            "verify {count} motions ({:.1} MB), {label}: {:.1} ms, {:.0} files/s, {:.1} µs per file",
            bytes as f64 / 1e6,
            t.as_secs_f64() * 1e3,
            count as f64 / t.as_secs_f64(),
            t.as_secs_f64() * 1e6 / count as f64
        );
    }
}

/// Export and import of `files` on `rig`, the motions lifted by the executable's reading and by
/// the old one in turn (best of `reps` each).
fn reading_cost(reps: usize, rig: &rigtrip::rig::Rig, files: &[(String, Vec<u8>)]) {
    use rigtrip::rig::motion::{read_file_as, Reading};
    use std::time::{Duration, Instant};
    let readings = [Reading::Exe, Reading::Community];
    let mut export = [Duration::MAX; 2];
    let mut import = [Duration::MAX; 2];
    let mut sizes = [0usize; 2];
    for _ in 0..reps.max(1) {
        for (i, &r) in readings.iter().enumerate() {
            let t = Instant::now();
            let inputs: Vec<MotionInput> = files
                .iter()
                .map(|(n, b)| MotionInput {
                    file_name: n.clone(),
                    bytes: b.clone(),
                    file: read_file_as(b, r).expect("motions read"),
                })
                .collect();
            let e = export_animated(rig, &inputs, &ExportOptions::default()).expect("exports");
            let glb = to_glb(&e).expect("fits a GLB");
            export[i] = export[i].min(t.elapsed());
            let t = Instant::now();
            let back = import_slice(&glb, None, &ImportOptions::default()).expect("imports");
            import[i] = import[i].min(t.elapsed());
            assert!(back
                .motions
                .iter()
                .zip(files)
                .all(|(m, (_, b))| m.bytes.as_ref() == Some(b)));
            sizes[i] = glb.len();
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "the executable's reading against the old one (in turn): export {:.1} ms vs {:.1} ms, \
         import {:.1} ms vs {:.1} ms, GLB {} vs {} bytes",
        ms(export[0]),
        ms(export[1]),
        ms(import[0]),
        ms(import[1]),
        sizes[0],
        sizes[1]
    );
}

/// The import of a 60-second animation as a new motion, against the same animation imported
/// as the motion it came from.
fn new_motion_of_60_seconds(
    reps: usize,
    rig: &rigtrip::rig::Rig,
    rest: &[synth::motion::NodeRest],
) {
    use rigtrip::rig::motion::read_file;
    let short = synth::motion::motion_for_model(7, rest)
        .write()
        .expect("writes");
    // A generated motion stretched to 3,600 frames (its keys spread out, re-encoded).
    let mut long = read_file(
        &synth::motion::motion_for_model(8, rest)
            .write()
            .expect("writes"),
    )
    .expect("reads");
    let m = long.motions[0].motion.as_mut().expect("a motion");
    let factor = 3600.0 / m.last_frame();
    for t in &mut m.tracks {
        for k in &mut t.curve.keys {
            k.frame = (k.frame * factor).round();
            k.tangent_in /= factor;
            k.tangent_out /= factor;
        }
    }
    let long = long
        .write(&mut Vec::new())
        .expect("the stretched motion writes");
    let inputs = [
        MotionInput::read("template.mot", short).expect("reads"),
        MotionInput::read("long.mot", long).expect("reads"),
    ];
    let e = export_animated(rig, &inputs, &ExportOptions::default()).expect("exports");
    let own = to_glb(&e).expect("fits a GLB");
    // The same document, the long animation renamed: it came from no motion file now.
    let mut root = e.root.clone();
    for a in root.animations.iter_mut() {
        if a.name.as_deref() == Some("long") {
            a.name = Some("new_60s".into());
        }
    }
    let renamed = rigtrip::gltf::Exported {
        root,
        bin: e.bin.clone(),
        report: Default::default(),
    };
    let new = to_glb(&renamed).expect("fits a GLB");
    let (t_own, _) = best(reps, || {
        import_slice(&own, None, &ImportOptions::default()).expect("imports")
    });
    let (t_new, imported) = best(reps, || {
        import_slice(&new, None, &ImportOptions::default()).expect("imports")
    });
    let written = imported
        .motions
        .iter()
        .find(|m| m.file == "new_60s.mot")
        .expect("the new motion is written");
    let report = &written.report.motions[0];
    let worst = |f: fn(&rigtrip::gltf::import::motions::JointError) -> f64| {
        report.errors.iter().map(f).fold(0.0f64, f64::max)
    };
    println!(
        "new motion of 60 s ({} joints moving, {} keys, {:.1} KB): import {:.1} ms, the same \
         animation as its own motion {:.1} ms; within {:.4} deg and {:.4} mm of the samples",
        report.errors.len(),
        report.reencoded.iter().map(|r| r.keys).sum::<usize>(),
        written.bytes.as_ref().map_or(0, Vec::len) as f64 / 1e3,
        t_new.as_secs_f64() * 1e3,
        t_own.as_secs_f64() * 1e3,
        worst(|e| e.rotation_rad).to_degrees(),
        worst(|e| e.translation_m) * 1e3,
    );
}

/// CesiumMan's joints and the sample humanoid's (default names) a person maps them to.
const CESIUM_MAP: &str = r#"{"Skeleton_torso_joint_1": "mod_42", "Skeleton_torso_joint_2": "mod_2",
    "torso_joint_3": "mod_1", "Skeleton_neck_joint_1": "mod_21", "Skeleton_neck_joint_2": "mod_30",
    "Skeleton_arm_joint_L__4_": "mod_33", "Skeleton_arm_joint_L__3_": "mod_0",
    "Skeleton_arm_joint_L__2_": "mod_19", "Skeleton_arm_joint_R": "mod_26",
    "Skeleton_arm_joint_R__2_": "mod_28", "Skeleton_arm_joint_R__3_": "mod_24",
    "leg_joint_L_1": "mod_9", "leg_joint_L_2": "mod_13", "leg_joint_L_3": "mod_12",
    "leg_joint_L_5": "mod_39", "leg_joint_R_1": "mod_5", "leg_joint_R_2": "mod_14",
    "leg_joint_R_3": "mod_27", "leg_joint_R_5": "mod_34"}"#;

/// CesiumMan's walk, its key times taken 30x (about a minute), onto the humanoid sample.
fn walk_onto_the_humanoid(reps: usize, model: &[u8]) {
    use rigtrip::gltf::import::onto::{import_onto, JointMap, OntoMotions, OntoOptions};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sample-assets/vulkan-assets/CesiumMan.gltf"
    );
    let gltf = stretched(&std::fs::read(path).expect("CesiumMan is vendored"), 30.0);
    let opts = OntoOptions {
        joint_map: Some(JointMap::from_json(CESIUM_MAP).expect("the map reads")),
        motions: Some(OntoMotions {
            template_file: "dmc3_humanoid.mot".into(),
            template: synth::motion::sample_mot(),
            into: None,
        }),
        ..OntoOptions::default()
    };
    let template = || rigtrip::native::NativeFile::read(None, model).expect("reads");
    let (t, got) = best(reps, || {
        import_onto(&gltf, None, template(), &opts).expect("imports")
    });
    let m = &got.report.motions[0].motions[0];
    let worst = m
        .errors
        .iter()
        .map(|e| e.rotation_rad)
        .fold(0.0f64, f64::max);
    println!(
        "walk of another rig onto the humanoid ({} frames, {} joints moving): import_onto {:.1} \
         ms, plays within {:.4}°",
        m.template
            .as_deref()
            .and_then(|t| t.rsplit("end frame ").next())
            .unwrap_or("?"),
        m.errors.len(),
        t.as_secs_f64() * 1e3,
        worst.to_degrees()
    );
}

/// A glTF (embedded buffers) with every animation's key times taken `factor`x.
fn stretched(text: &[u8], factor: f32) -> Vec<u8> {
    use rigtrip::bytes::b64;
    use serde_json::Value;
    let mut doc: Value = serde_json::from_slice(text).expect("JSON");
    let mut buffers: Vec<Vec<u8>> = doc["buffers"]
        .as_array()
        .expect("buffers")
        .iter()
        .map(|b| {
            let uri = b["uri"].as_str().expect("a data URI");
            b64::decode(uri.split_once(',').expect("a data URI").1.as_bytes()).expect("base64")
        })
        .collect();
    let mut inputs: Vec<u64> = doc["animations"]
        .as_array()
        .expect("animations")
        .iter()
        .flat_map(|a| a["samplers"].as_array().expect("samplers"))
        .map(|s| s["input"].as_u64().expect("an input"))
        .collect();
    inputs.sort_unstable();
    inputs.dedup();
    for i in inputs {
        let acc = doc["accessors"][i as usize].clone();
        let view = &doc["bufferViews"][acc["bufferView"].as_u64().expect("a view") as usize];
        let at = view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0);
        let buf = &mut buffers[view["buffer"].as_u64().unwrap_or(0) as usize];
        for k in 0..acc["count"].as_u64().expect("a count") as usize {
            let o = at as usize + 4 * k;
            let t = f32::from_le_bytes(buf[o..o + 4].try_into().expect("4 bytes")) * factor;
            buf[o..o + 4].copy_from_slice(&t.to_le_bytes());
        }
        for key in ["min", "max"] {
            let v = acc[key][0].as_f64().expect("bounds") as f32 * factor;
            doc["accessors"][i as usize][key] = serde_json::json!([v]);
        }
    }
    for (b, data) in doc["buffers"]
        .as_array_mut()
        .expect("buffers")
        .iter_mut()
        .zip(&buffers)
    {
        b["uri"] = format!("data:application/octet-stream;base64,{}", b64::encode(data)).into();
    }
    serde_json::to_vec(&doc).expect("writes")
}
