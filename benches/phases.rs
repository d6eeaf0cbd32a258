//! Benchmark: where one file's time goes in `verify`, phase by phase, in process, one thread.
//!
//! Generates the same kind of files as `benches/verify.rs` (HIE tables whose hierarchies pass
//! the gate, exportable MODs of 200..800 vertices) in memory, then for each family times
//! `NativeFile::read`, `rig::lift_with_memo`, `rig::lower_with` + `write` (the lift's memo
//! passed on, as verify does), `gltf::export`, `to_glb` and `gltf::import_slice`, each summed
//! over the corpus, best of several repetitions. Prints microseconds per file and the JSON /
//! BIN chunk sizes of the GLB.
//!
//! Then one large MOD (RIGTRIP_BENCH_LARGE_VERTICES, 60,000 vertices: about 2 MB): `export` +
//! `to_glb` and `import_slice` of its GLB, best of the repetitions.
//!
//! Knobs (environment): RIGTRIP_BENCH_FILES (1000 per family), RIGTRIP_BENCH_REPS (3),
//! RIGTRIP_BENCH_LARGE_VERTICES (60000).

mod common;
use common::env_usize;

use std::time::{Duration, Instant};

use rigtrip::gltf::{export, import, to_glb, ExportOptions};
use rigtrip::native::NativeFile;
use rigtrip::rig;
use rigtrip::synth;
use rigtrip::synth::rng::Rng;

const PHASES: [&str; 6] = ["read", "lift", "lower+write", "export", "to_glb", "import"];

fn hie_corpus(n: usize, rng: &mut Rng) -> Vec<Vec<u8>> {
    let opts = synth::hie::Opts {
        bad_depth_chance: 0.0,
        ..synth::hie::Opts::default()
    };
    (0..n)
        .map(|_| loop {
            let b = synth::hie::random_with(&mut Rng::new(rng.next_u64()), &opts);
            if rigtrip::native::detect(&b).is_some() {
                break b;
            }
        })
        .collect()
}

fn mod_corpus(n: usize, rng: &mut Rng) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let verts = rng.range(200, 800) as usize;
            synth::dmc3::random_mod_sized(rng.next_u64(), verts)
        })
        .collect()
}

/// One pass over the corpus: time per phase, and (native, JSON chunk, BIN chunk) bytes.
fn pass(files: &[Vec<u8>]) -> ([Duration; 6], [usize; 3]) {
    let mut t = [Duration::ZERO; 6];
    let mut sizes = [0usize; 3];
    let mut lap = |i: usize, since: &mut Instant| {
        let now = Instant::now();
        t[i] += now - *since;
        *since = now;
    };
    for f in files {
        let mut s = Instant::now();
        let native = NativeFile::read(None, f).expect("generated file reads");
        lap(0, &mut s);
        let (r, memo) = rig::lift_with_memo(native);
        lap(1, &mut s);
        let back = rig::lower_with(&r, &memo)
            .expect("lowers")
            .write()
            .expect("writes");
        lap(2, &mut s);
        let e = export(&r, &ExportOptions::default()).expect("exports");
        lap(3, &mut s);
        let glb = to_glb(&e).expect("an export has a JSON form");
        lap(4, &mut s);
        let im =
            import::import_slice(&glb, None, &import::ImportOptions::default()).expect("imports");
        lap(5, &mut s);
        assert!(
            back == *f && im.bytes == *f,
            "a generated file did not round-trip"
        );
        sizes[0] += f.len();
        sizes[1] += glb.len() - e.bin.len();
        sizes[2] += e.bin.len();
    }
    (t, sizes)
}

fn main() {
    let n = env_usize("RIGTRIP_BENCH_FILES", 1000);
    let reps = env_usize("RIGTRIP_BENCH_REPS", 3).max(1);
    let mut rng = Rng::new(0xBE7C_4001);
    let families = [
        ("HIE", hie_corpus(n, &mut rng)),
        ("MOD", mod_corpus(n, &mut rng)),
    ];
    for (name, files) in &families {
        let mut best = [Duration::MAX; 6];
        let mut sizes = [0usize; 3];
        for _ in 0..reps {
            let (t, s) = pass(files);
            for (b, t) in best.iter_mut().zip(t) {
                *b = (*b).min(t);
            }
            sizes = s;
        }
        let per = |d: Duration| d.as_secs_f64() * 1e6 / files.len() as f64;
        let total: f64 = best.iter().map(|d| per(*d)).sum();
        println!(
            "{name}: {} files, native {:.0} B, GLB JSON {:.0} B + BIN {:.0} B per file",
            files.len(),
            sizes[0] as f64 / files.len() as f64,
            sizes[1] as f64 / files.len() as f64,
            sizes[2] as f64 / files.len() as f64
        );
        for (p, d) in PHASES.iter().zip(best) {
            println!("  {p:<12} {:8.1} us/file", per(d));
        }
        println!("  {:<12} {:8.1} us/file (best of {reps})", "total", total);
    }
    large(
        env_usize("RIGTRIP_BENCH_LARGE_VERTICES", 60_000),
        reps,
        &mut rng,
    );
}

/// Export and import of one large MOD, best of `reps`.
fn large(vertices: usize, reps: usize, rng: &mut Rng) {
    let f = synth::dmc3::random_mod_sized(rng.next_u64(), vertices);
    let r = rig::lift(NativeFile::read(None, &f).expect("generated file reads"));
    let (mut export_best, mut import_best) = (Duration::MAX, Duration::MAX);
    let mut glb = Vec::new();
    for _ in 0..reps {
        let s = Instant::now();
        let e = export(&r, &ExportOptions::default()).expect("exports");
        glb = to_glb(&e).expect("an export has a JSON form");
        export_best = export_best.min(s.elapsed());
        let s = Instant::now();
        let im =
            import::import_slice(&glb, None, &import::ImportOptions::default()).expect("imports");
        import_best = import_best.min(s.elapsed());
        assert!(im.bytes == f, "the large file did not round-trip");
    }
    let mb = |n: usize| n as f64 / 1e6;
    println!(
        "large MOD: {vertices} vertices, native {:.2} MB, GLB {:.2} MB; export + to_glb {:.1} ms, import {:.1} ms (best of {reps})",
        mb(f.len()),
        mb(glb.len()),
        export_best.as_secs_f64() * 1e3,
        import_best.as_secs_f64() * 1e3
    );
}
