//! What more than one benchmark times with.
#![allow(dead_code)] // each benchmark uses some of these

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The value of the environment variable `name` as a number, else `default` (the knobs).
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The best of `reps` runs of `f` (at least one), and its last result.
pub fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

/// Builds the release binary and returns its path (`RIGTRIP_BENCH_BIN` instead, when set).
pub fn binary() -> PathBuf {
    if let Ok(b) = std::env::var("RIGTRIP_BENCH_BIN") {
        return PathBuf::from(b);
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--bin", "rigtrip"])
        .current_dir(&manifest)
        .status()
        .expect("cargo build --release");
    assert!(status.success(), "cargo build --release failed");
    // This benchmark runs from TARGET/release/deps/: the binary cargo just built is in
    // TARGET/release/, wherever CARGO_TARGET_DIR or a cargo config put TARGET.
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let release = exe.parent().and_then(Path::parent).map(Path::to_path_buf);
    let bin = release
        .unwrap_or_else(|| manifest.join("target").join("release"))
        .join("rigtrip");
    assert!(bin.exists(), "{} not found", bin.display());
    bin
}
