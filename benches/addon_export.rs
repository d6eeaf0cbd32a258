//! The modder's wait: the Blender add-on's export of a model with a whole motion set, one pose
//! of one motion keyed (`cargo bench --bench addon_export`; needs Blender, see
//! tools/blender-python).
//!
//! Generates the real-layout model (`synth::motion::real_layout_for_motions`) and a motion set
//! shaped like the real player set (`synth::motion::motion_set`: 25 archives of 16 motions,
//! 400 in all), then runs `blender/tests/addon_test.py motion-set`: the import through the
//! add-on, a rotation keyed at frame 10 of one action, then the export with every action
//! through Blender's glTF exporter (Only changed actions off: the export before fingerprints)
//! and with only the changed one (the default). Prints the seconds of each and their ratio;
//! both exports must write the same files (checked). Knobs: `RIGTRIP_BENCH_ARCHIVES` (25),
//! `RIGTRIP_BENCH_PER` (16), `RIGTRIP_BLENDER` (4.5; or 5.3), `RIGTRIP_BENCH_BIN`.

mod common;
use common::env_usize;

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let (archives, per) = (
        env_usize("RIGTRIP_BENCH_ARCHIVES", 25),
        env_usize("RIGTRIP_BENCH_PER", 16).max(6),
    );
    let bin = common::binary();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (model, rest) =
        rigtrip::synth::motion::real_layout_for_motions().expect("a real-layout model");
    let set = rigtrip::synth::motion::motion_set(0x5E7, &rest, archives, per);
    let dir = std::env::temp_dir().join(format!("rigtrip-addon-bench-{}", std::process::id()));
    let (game, every, fast) = (dir.join("game"), dir.join("every"), dir.join("fast"));
    for d in [&game, &every, &fast] {
        std::fs::create_dir_all(d).expect("a scratch folder");
    }
    let input = game.join("pl000.mod");
    std::fs::write(&input, &model).expect("writes");
    let mut bytes = 0;
    for (name, b) in &set {
        std::fs::write(game.join(name), b).expect("writes");
        bytes += b.len();
    }
    println!(
        "model {} bytes, {} joints; {} motions in {archives} archives, {:.1} MB",
        model.len(),
        rest.len(),
        archives * per,
        bytes as f64 / 1e6
    );
    let out = Command::new(repo.join("tools/blender-python"))
        .arg(repo.join("blender/tests/addon_test.py"))
        .args(["motion-set".as_ref(), input.as_os_str(), game.as_os_str()])
        .args([every.as_os_str(), fast.as_os_str()])
        .args(["1", "pl000_00_03_05"])
        .env("RIGTRIP_BIN", &bin)
        .output()
        .expect("tools/blender-python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("RESULT ")) else {
        panic!(
            "the driver failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let got: serde_json::Value = serde_json::from_str(line).expect("a RESULT line");
    assert_eq!(got["errors"], serde_json::json!([null, null]), "{stdout}");
    for (name, _) in &set {
        let (a, b) = (
            std::fs::read(every.join(name)),
            std::fs::read(fast.join(name)),
        );
        assert!(a.expect("written") == b.expect("written"), "{name} differs");
    }
    let secs = |k: &str| got[k].as_f64().expect("seconds");
    println!(
        "Blender {}: import {:.2} s; export, every action {:.2} s, only the changed one {:.2} s \
         ({:.1}x faster, {:.0}% of the time)",
        std::env::var("RIGTRIP_BLENDER").unwrap_or_else(|_| "4.5".into()),
        secs("import_s"),
        secs("every_s"),
        secs("fast_s"),
        secs("every_s") / secs("fast_s"),
        100.0 * secs("fast_s") / secs("every_s")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
