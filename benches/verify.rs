//! Benchmark: `rigtrip verify -q` against `md5sum` over the same corpus, and in-process glTF
//! export throughput.
//!
//! Generates a mixed corpus of HIE and MOD files (default 10,000 files, about 100 MB: MOD files
//! carry a few hundred skinned vertices each) into a temp dir, builds the release binary,
//! then times, several repetitions each, interleaved, median reported (wall time, and the
//! children's CPU time, which other load on the machine does not inflate):
//! `rigtrip verify -q DIR` and `find DIR -type f -print0 | xargs -0 md5sum > /dev/null`, at
//! 1,000 and at all files; peak RSS of verify via `/usr/bin/time -v` (or /proc polling).
//! Then `gltf::export` + `to_glb` over every file in memory.
//!
//! Knobs (environment): RIGTRIP_BENCH_FILES (10000), RIGTRIP_BENCH_REPS (5),
//! RIGTRIP_BENCH_KEEP=1 keeps the corpus and prints where it is, RIGTRIP_BENCH_BIN=PATH times
//! that binary instead of building one, RIGTRIP_BENCH_BASE=PATH also times another binary (a
//! build from before a change) in the same alternation, for an A/B on a shared machine.

mod common;
use common::binary;
use common::env_usize;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rigtrip::gltf::{export, to_glb, ExportOptions};
use rigtrip::native::NativeFile;
use rigtrip::synth;
use rigtrip::synth::rng::Rng;

/// CPU time (user + system) of every child this process has waited for, from /proc/self/stat
/// (clock ticks of 1/100 s, the Linux default): wall time on a shared machine includes waiting
/// for other people's processes, CPU time does not.
fn children_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // Fields 16 and 17 of stat (cutime, cstime); `after` starts at field 3.
    let ticks = f.get(13).copied().unwrap_or(0) + f.get(14).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// Runs `f` and returns (wall time, children's CPU time).
fn timed(f: impl FnOnce()) -> (Duration, Duration) {
    let c = children_cpu();
    let t = Instant::now();
    f();
    (t.elapsed(), children_cpu().saturating_sub(c))
}

fn secs(v: &[Duration]) -> String {
    let s: Vec<String> = v
        .iter()
        .map(|d| format!("{:.3}", d.as_secs_f64()))
        .collect();
    s.join(" ")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The corpus: file `i` goes to subdirectory `i / 1000`, so that the first subdirectory is the
/// 1,000-file corpus. Even files are HIE tables (every hierarchy passing the gate), odd ones
/// exportable MOD containers of 200..=800 vertices.
fn generate(dir: &Path, files: usize) -> (Vec<PathBuf>, u64) {
    let mut rng = Rng::new(0xBE7C_4001);
    // Every hierarchy passes the gate, so that the export timing covers every file (verify
    // does the same work either way).
    let hie_opts = synth::hie::Opts {
        bad_depth_chance: 0.0,
        ..synth::hie::Opts::default()
    };
    let mut paths = Vec::with_capacity(files);
    let mut total = 0u64;
    for i in 0..files {
        let sub = dir.join(format!("d{:02}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir_all(&sub).unwrap();
        }
        let (name, bytes) = if i % 2 == 0 {
            // A table with no hierarchy is valid but only read with --format hie; a directory
            // walk would reject it, so draw again.
            let bytes = loop {
                let b = synth::hie::random_with(&mut Rng::new(rng.next_u64()), &hie_opts);
                if rigtrip::native::detect(&b).is_some() {
                    break b;
                }
            };
            (format!("DB{i:05}HIE.BIN"), bytes)
        } else {
            let verts = rng.range(200, 800) as usize;
            (
                format!("m{i:05}.mod"),
                synth::dmc3::random_mod_sized(rng.next_u64(), verts),
            )
        };
        total += bytes.len() as u64;
        let p = sub.join(name);
        std::fs::write(&p, &bytes).unwrap();
        paths.push(p);
    }
    (paths, total)
}

/// The first three fields of /proc/loadavg (how busy the shared machine was).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn run_verify(bin: &Path, extra: &[&str], dir: &Path) {
    let out = Command::new(bin)
        .args(["verify", "-q"])
        .args(extra)
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "verify failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_md5(dir: &Path) {
    let status = Command::new("sh")
        .arg("-c")
        .arg("find \"$1\" -type f -print0 | xargs -0 md5sum > /dev/null")
        .arg("sh")
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success(), "md5sum failed");
}

/// Peak RSS of one verify run, in KiB: `/usr/bin/time -v` when present, else the child's
/// VmHWM polled from /proc (may miss growth in the last poll interval).
fn peak_rss_kib(bin: &Path, extra: &[&str], dir: &Path) -> (u64, &'static str) {
    if Path::new("/usr/bin/time").exists() {
        let out = Command::new("/usr/bin/time")
            .arg("-v")
            .arg(bin)
            .args(["verify", "-q"])
            .args(extra)
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        if let Some(kib) = text
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("Maximum resident set size (kbytes): ")
            })
            .and_then(|v| v.trim().parse().ok())
        {
            return (kib, "/usr/bin/time -v");
        }
    }
    let mut child = Command::new(bin)
        .args(["verify", "-q"])
        .args(extra)
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(v) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(v);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    (peak, "/proc VmHWM polling")
}

fn main() {
    let files = env_usize("RIGTRIP_BENCH_FILES", 10_000).max(1);
    let reps = env_usize("RIGTRIP_BENCH_REPS", 5).max(1);
    let keep = std::env::var("RIGTRIP_BENCH_KEEP").is_ok_and(|v| v == "1");
    let dir = std::env::temp_dir().join(format!("rigtrip-bench-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let bin = binary();
    let t = Instant::now();
    let (paths, total) = generate(&dir, files);
    println!(
        "corpus: {} files ({} HIE, {} MOD), {:.1} MB, {:.1} KB average, generated in {:.1} s, in {}",
        files,
        files.div_ceil(2),
        files / 2,
        total as f64 / 1e6,
        total as f64 / 1e3 / files as f64,
        t.elapsed().as_secs_f64(),
        dir.display()
    );
    println!(
        "threads available: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // `verify -q` as shipped (both legs where the binary has them), and the native leg alone.
    let help = Command::new(&bin)
        .args(["verify", "--help"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut variants: Vec<(PathBuf, Vec<&str>, String)> =
        vec![(bin.clone(), vec![], "verify -q".into())];
    if help.contains("--legs") {
        variants.push((
            bin.clone(),
            vec!["--legs", "native"],
            "verify -q --legs native".into(),
        ));
    }
    if let Ok(base) = std::env::var("RIGTRIP_BENCH_BASE") {
        variants.push((PathBuf::from(&base), vec![], format!("verify -q ({base})")));
    }

    let mut sizes = vec![files.min(1000)];
    if files > 1000 {
        sizes.push(files);
    }
    for &n in &sizes {
        let target = if n == files && files > 1000 {
            dir.clone()
        } else {
            dir.join("d00")
        };
        let bytes: u64 = paths[..n]
            .iter()
            .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .sum();
        // Warm the page cache, then interleave so that drift hits every command alike.
        run_md5(&target);
        let mut md5 = (vec![], vec![]);
        let mut ver: Vec<(Vec<Duration>, Vec<Duration>)> =
            variants.iter().map(|_| (vec![], vec![])).collect();
        for (b, extra, _) in &variants {
            run_verify(b, extra, &target);
        }
        for _ in 0..reps {
            for ((b, extra, _), r) in variants.iter().zip(&mut ver) {
                let (w, c) = timed(|| run_verify(b, extra, &target));
                r.0.push(w);
                r.1.push(c);
            }
            let (w, c) = timed(|| run_md5(&target));
            md5.0.push(w);
            md5.1.push(c);
        }
        let (mt, mct) = (median(md5.0.clone()), median(md5.1.clone()));
        println!(
            "{n} files ({:.1} MB): md5sum median {:.3} s wall ({:.0} files/s), {:.3} s CPU; runs {}",
            bytes as f64 / 1e6,
            mt.as_secs_f64(),
            n as f64 / mt.as_secs_f64(),
            mct.as_secs_f64(),
            secs(&md5.0)
        );
        for ((b, extra, name), r) in variants.iter().zip(&ver) {
            let (vt, vct) = (median(r.0.clone()), median(r.1.clone()));
            let (rss, how) = peak_rss_kib(b, extra, &target);
            println!(
                "  {name}: median {:.3} s wall ({:.0} files/s, {:.1} MB/s), {:.3} s CPU; vs md5sum {:.2}x wall, {:.2}x CPU; peak RSS {:.1} MB ({how}); runs {}",
                vt.as_secs_f64(),
                n as f64 / vt.as_secs_f64(),
                bytes as f64 / 1e6 / vt.as_secs_f64(),
                vct.as_secs_f64(),
                vt.as_secs_f64() / mt.as_secs_f64(),
                vct.as_secs_f64() / mct.as_secs_f64().max(0.01),
                rss as f64 / 1024.0,
                secs(&r.0)
            );
        }
        println!("  load average after: {}", load_average());
    }

    // Export throughput, in process, one thread, inputs already in memory.
    let inputs: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let opts = ExportOptions::default();
    let mut runs = Vec::with_capacity(reps);
    let (mut exported, mut refused, mut glb_bytes) = (0usize, 0usize, 0u64);
    // GLB bytes and files by format (HIE, MOD).
    let mut by_format = [(0u64, 0usize); 2];
    for _ in 0..reps.min(3) {
        exported = 0;
        refused = 0;
        glb_bytes = 0;
        by_format = [(0, 0); 2];
        let t = Instant::now();
        for data in &inputs {
            let file = NativeFile::read(None, data).unwrap();
            let slot = usize::from(matches!(file, NativeFile::Dmc3(_)));
            let rig = rigtrip::rig::lift(file);
            match export(&rig, &opts) {
                Ok(e) => {
                    let n = to_glb(&e).expect("an export has a JSON form").len() as u64;
                    glb_bytes += n;
                    by_format[slot].0 += n;
                    by_format[slot].1 += 1;
                    exported += 1;
                }
                Err(_) => refused += 1,
            }
        }
        runs.push(t.elapsed());
    }
    let et = median(runs).as_secs_f64();
    println!(
        "export (read + lift + gltf::export + to_glb, 1 thread): {} files in {:.3} s median: {:.0} files/s, {:.1} MB/s in, {:.1} MB/s GLB out; {} exported, {} refused (gate)",
        inputs.len(),
        et,
        inputs.len() as f64 / et,
        total as f64 / 1e6 / et,
        glb_bytes as f64 / 1e6 / et,
        exported,
        refused
    );
    for ((bytes, n), name) in by_format.iter().zip(["HIE", "MOD"]) {
        println!(
            "  {name}: {n} GLBs, {:.0} bytes on average",
            *bytes as f64 / (*n).max(1) as f64
        );
    }

    if keep {
        println!("kept the corpus in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
