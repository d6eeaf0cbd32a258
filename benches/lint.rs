//! Benchmark: `rigtrip lint` vs the Khronos glTF-Validator, each tool in one process, first on
//! the vendored conformance assets (every `.gltf`/`.glb` under `tests/data/`: the validator's
//! own test files and the real sample models; goal: lint at least 50x faster), then on a few
//! hundred rigtrip exports of generated rigs (GLB and embedded `.gltf`; goal 20x).
//!
//! `cargo bench --bench lint` (RIGTRIP_LINT_BENCH_FILES sets the export count, default 300; 0
//! runs only the vendored assets).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rigtrip::gltf::{export, to_glb, to_gltf, ExportOptions};
use rigtrip::native::Format;
use rigtrip::ops::load;
use rigtrip::rig::Rig;
use rigtrip::synth;

/// Rig number `seed` of the mix, when it passes the gate.
fn rig(seed: u64) -> Option<Rig> {
    let rig = match seed % 4 {
        0 | 1 => load(Some(Format::Hie), &synth::hie::random(seed)).ok()?,
        2 => load(
            Some(Format::Dmc3),
            &synth::dmc3::random_exportable(seed, false),
        )
        .ok()?,
        _ => load(
            Some(Format::Dmc3),
            &synth::dmc3::random_exportable(seed, true),
        )
        .ok()?,
    };
    rig.skeletons.iter().all(|s| s.gate.is_ok()).then_some(rig)
}

/// Writes `n` exports into `dir`; returns their paths and total size.
fn generate(dir: &Path, n: usize) -> (Vec<PathBuf>, u64) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("create the bench directory");
    let mut files = Vec::with_capacity(n);
    let mut bytes = 0u64;
    let mut seed = 0u64;
    while files.len() < n {
        let Some(rig) = rig(seed) else {
            seed += 1;
            continue;
        };
        let Ok(e) = export(&rig, &ExportOptions::default()) else {
            seed += 1;
            continue;
        };
        // Mostly GLB, every third an embedded .gltf (base64 decoding is part of the work).
        let (data, ext) = if files.len() % 3 == 2 {
            (to_gltf(&e).expect("an export has a JSON form"), "gltf")
        } else {
            (to_glb(&e).expect("an export has a JSON form"), "glb")
        };
        let path = dir.join(format!("rig_{seed:05}.{ext}"));
        std::fs::write(&path, &data).expect("write a bench file");
        bytes += data.len() as u64;
        files.push(path);
        seed += 1;
    }
    (files, bytes)
}

/// Lints every file once (reading included); returns the time and the problem count.
fn lint_all(files: &[PathBuf]) -> (Duration, usize) {
    let t = Instant::now();
    let mut problems = 0;
    for f in files {
        let r = rigtrip::lint::lint_path(f);
        problems += r.errors + r.warnings;
    }
    (t.elapsed(), problems)
}

/// Runs the validator on `files` in one process; `None` when it cannot run.
fn validate(tool: &Path, files: &[PathBuf]) -> Option<(Duration, bool, usize)> {
    let t = Instant::now();
    let out = Command::new(tool).args(files).output().ok()?;
    let elapsed = t.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    let reported = text.lines().filter(|l| l.contains(" errors=")).count();
    if reported != files.len() {
        eprintln!(
            "validator reported {reported} of {} files:\n{}\n{}",
            files.len(),
            text,
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    Some((elapsed, out.status.success(), reported))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Every `.gltf` and `.glb` under `dir`, sorted, and their total size.
fn vendored(dir: &Path) -> (Vec<PathBuf>, u64) {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "gltf" || x == "glb") {
                files.push(p);
            }
        }
    }
    files.sort();
    let bytes = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    (files, bytes)
}

/// Lint (best of five passes after a warm-up) against the validator (one process) on `files`;
/// prints both times and the ratio against `goal`.
fn compare(label: &str, files: &[PathBuf], bytes: u64, goal: f64) {
    let (_, problems) = lint_all(files);
    let runs: Vec<Duration> = (0..5).map(|_| lint_all(files).0).collect();
    let best = runs.iter().min().copied().unwrap_or_default();
    let mean = runs.iter().sum::<Duration>() / runs.len().max(1) as u32;
    println!(
        "{label}: rigtrip lint: best {:.1} ms, mean {:.1} ms over {} files, {:.2} MiB ({:.1} µs per file, {:.0} MiB/s); {} errors+warnings",
        ms(best),
        ms(mean),
        files.len(),
        bytes as f64 / (1024.0 * 1024.0),
        best.as_secs_f64() * 1e6 / files.len().max(1) as f64,
        bytes as f64 / (1024.0 * 1024.0) / best.as_secs_f64().max(1e-9),
        problems
    );

    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/validate-gltf");
    // One file first: installs the validator if needed and measures node's start-up.
    let Some((startup, _, _)) = files
        .first()
        .and_then(|f| validate(&tool, std::slice::from_ref(f)))
    else {
        println!(
            "{label}: validator: cannot run {}; no comparison",
            tool.display()
        );
        return;
    };
    let Some((v, clean, _)) = validate(&tool, files) else {
        println!("{label}: validator: failed on the bench files; no comparison");
        return;
    };
    println!(
        "{label}: khronos validator: {:.1} ms over the same files in one run ({:.0} µs per file; one-file run {:.0} ms); {}",
        ms(v),
        v.as_secs_f64() * 1e6 / files.len().max(1) as f64,
        ms(startup),
        if clean {
            "no errors or warnings"
        } else {
            "errors or warnings reported"
        }
    );
    let ratio = v.as_secs_f64() / best.as_secs_f64().max(1e-9);
    let net = v.saturating_sub(startup).as_secs_f64() / best.as_secs_f64().max(1e-9);
    println!(
        "{label}: ratio: lint is {ratio:.0}x faster than the validator ({net:.0}x without the validator's one-file start-up); goal >= {goal:.0}x: {}",
        if ratio >= goal { "met" } else { "NOT met" }
    );
}

fn main() {
    // The vendored conformance assets: the validator's test files and the real sample models.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let (files, bytes) = vendored(&data);
    compare("vendored assets", &files, bytes, 50.0);

    let n: usize = std::env::var("RIGTRIP_LINT_BENCH_FILES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    if n == 0 {
        return;
    }
    let dir = std::env::temp_dir().join("rigtrip-lint-bench");
    let t = Instant::now();
    let (files, bytes) = generate(&dir, n);
    println!(
        "generated {} files ({:.1} MiB) in {} in {:.0} ms",
        files.len(),
        bytes as f64 / (1024.0 * 1024.0),
        dir.display(),
        ms(t.elapsed())
    );
    compare("rig exports", &files, bytes, 20.0);
}
