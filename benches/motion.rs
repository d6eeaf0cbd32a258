//! Benchmark: `verify` (native leg) of 1,000 generated DMC3 motions, in process
//! (`verify_bytes_legs`) and through the release binary (`rigtrip verify -q --legs native DIR`),
//! median of several repetitions.
//!
//! The corpus: half clean motions for the humanoid sample's node count
//! (`synth::motion::motion_for_model`), half random motions of every layout
//! (`synth::motion::random_mot`). Knobs: RIGTRIP_BENCH_FILES (1000), RIGTRIP_BENCH_REPS (5).

mod common;
use common::env_usize;

use std::process::Command;
use std::time::{Duration, Instant};

use rigtrip::ops::verify::{verify_bytes_legs, Legs, Verdict};
use rigtrip::synth::motion;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let files = env_usize("RIGTRIP_BENCH_FILES", 1000);
    let reps = env_usize("RIGTRIP_BENCH_REPS", 5).max(1);
    let rest = motion::humanoid_rest();
    let corpus: Vec<Vec<u8>> = (0..files as u64)
        .map(|i| {
            if i % 2 == 0 {
                motion::motion_for_model(i, &rest).write().unwrap()
            } else {
                motion::random_mot(i)
            }
        })
        .collect();
    let bytes: usize = corpus.iter().map(Vec::len).sum();
    let dir = std::env::temp_dir().join(format!("rigtrip-bench-motion-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (i, b) in corpus.iter().enumerate() {
        std::fs::write(dir.join(format!("m{i:05}.mot")), b).unwrap();
    }
    println!(
        "corpus: {files} motions, {:.1} MB, {} nodes for the model motions",
        bytes as f64 / 1e6,
        rest.len()
    );

    let mut lib = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        for b in &corpus {
            match verify_bytes_legs(None, b, Legs::Native) {
                Verdict::Identical { .. } => {}
                v => panic!("{v:?}"),
            }
        }
        lib.push(t.elapsed());
    }
    let m = median(lib);
    println!(
        "in process: verify (native leg) of {files} motions: median {:.3} s ({:.0} files/s, {:.0} MB/s)",
        m.as_secs_f64(),
        files as f64 / m.as_secs_f64(),
        bytes as f64 / 1e6 / m.as_secs_f64()
    );

    let mut cli = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let st = Command::new(env!("CARGO_BIN_EXE_rigtrip"))
            .args(["verify", "-q", "--legs", "native"])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(
            st.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&st.stdout)
        );
        cli.push(t.elapsed());
    }
    let m = median(cli);
    println!(
        "binary: rigtrip verify -q --legs native DIR ({files} motions): median {:.3} s ({:.0} files/s)",
        m.as_secs_f64(),
        files as f64 / m.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
