//! Motions through glTF, in memory, one thread (release build: `cargo bench --bench
//! motion_gltf`):
//!
//! - export of the humanoid sample model with 100 motions (`synth::motion::motion_for_model`,
//!   49 nodes, 20..90 frames) as 100 animations: reading the motion files, `export_animated`
//!   and `to_glb`; then the import of that GLB (`import_slice`, model and 100 motion files
//!   rebuilt and compared track by track);
//! - `verify` of 1,000 motions (24 nodes, as the census's player motions) on both legs
//!   (`verify_bytes`: native, IR and glTF on a bare skeleton) and on the native leg alone.
//!
//! Best of `RIGTRIP_BENCH_REPS` (3) runs each. Knob: `RIGTRIP_BENCH_MOTIONS` (1000) for the
//! verify corpus.

mod common;

use common::best;

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export_animated, to_glb, ExportOptions, MotionInput};
use rigtrip::ops::verify::{verify_bytes_legs, GltfLeg, Legs, Verdict};
use rigtrip::synth;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let reps = env("RIGTRIP_BENCH_REPS", 3);

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

    // Verify of many motions.
    let count = env("RIGTRIP_BENCH_MOTIONS", 1000);
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
