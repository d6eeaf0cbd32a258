//! A stand-in game folder for the `rigtrip game` tests (Linux, Wine, Blender): ZIP volumes
//! written by Python's zipfile through `tests/independent/nbzgame.py` (not by the library),
//! with mixed-case names, DEFLATE and STORE entries, another mod's volume, a loose folder, and
//! the independent model of the game's lookup and volume reader in the same script.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use serde_json::{json, Value};

/// The oracle script.
fn script() -> PathBuf {
    super::repo().join("tests/independent/nbzgame.py")
}

/// Runs `nbzgame.py ARGS`; its stdout, parsed as JSON when there is any.
pub fn oracle(args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(script())
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run python3 ({e}): tests/independent/nbzgame.py needs Python 3 (standard library only) on PATH")
        });
    assert!(
        out.status.success(),
        "nbzgame.py {args:?} failed:\n{}",
        super::text(&out.stderr)
    );
    let text = super::text(&out.stdout);
    match text.trim() {
        "" => Value::Null,
        t => serde_json::from_str(t).unwrap(),
    }
}

/// One entry of a stand-in volume: path, bytes, STORE (else DEFLATE).
pub type Entry = (&'static str, Vec<u8>, bool);

/// What a stand-in volume holds.
pub struct VolumeSpec {
    /// Its file name (any case).
    pub file: &'static str,
    /// Its ZIP comment.
    pub comment: &'static str,
    /// Its entries.
    pub entries: Vec<Entry>,
}

/// Writes `volumes` (with Python's zipfile) and the `loose` files (path under `dir`, bytes)
/// into `dir`.
pub fn make(dir: &Path, volumes: &[VolumeSpec], loose: &[(&str, Vec<u8>)]) {
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let spec = json!({
        "volumes": volumes.iter().map(|v| json!({
            "file": v.file,
            "comment": v.comment,
            "entries": v.entries.iter().map(|(n, d, store)| json!({
                "name": n, "data": b64(d), "method": if *store { "store" } else { "deflate" },
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "loose": loose.iter().map(|(p, d)| json!({"path": p, "data": b64(d)})).collect::<Vec<_>>(),
    });
    let spec_path = dir.with_extension("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
    oracle(&["make", spec_path.to_str().unwrap(), dir.to_str().unwrap()]);
    let _ = std::fs::remove_file(spec_path);
}

/// Random bytes (a stand-in for a file the tests do not read).
pub fn noise(seed: u64, n: usize) -> Vec<u8> {
    rigtrip::synth::rng::Rng::new(seed).bytes(n)
}

/// The retail volume's files: `GData.afs/pl000.pac` a generated character archive,
/// `GData.afs/PL000_00_0.pac` a generated motion archive, and others in every place the game
/// looks and one it never asks for.
pub fn retail() -> VolumeSpec {
    VolumeSpec {
        file: "DMC3-0.nbz",
        comment: "",
        entries: vec![
            (
                "GData.afs/pl000.pac",
                rigtrip::synth::texture::sample_character_pac(),
                false,
            ),
            (
                "GData.afs/PL000_00_0.pac",
                rigtrip::synth::motion::sample_pac(),
                false,
            ),
            ("GData.afs/em028.pac", noise(1, 3000), false),
            ("GData.afs/St000.PAC", noise(2, 700), false),
            ("GData.afs/obj/old.pac", noise(3, 50), false),
            ("Video/Intro.WMV", noise(4, 900), true),
            ("afs/sound/SE_00.snd", noise(5, 400), false),
        ],
    }
}

/// Another mod's volume (lower-case file name, STORE entries): its own em028 and a st000
/// under GDataX360.afs/, which comes before every GData.afs/ entry of any volume.
pub fn other_mod(file: &'static str) -> VolumeSpec {
    VolumeSpec {
        file,
        comment: "DMC3 test mod by someone else",
        entries: vec![
            ("GData.afs/EM028.pac", noise(11, 1200), true),
            ("GDataX360.afs/st000.pac", noise(12, 300), true),
        ],
    }
}

/// The loose files: a pl000.pac (never loaded: every volume comes first) and a save only the
/// loose folder has.
pub fn loose() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("Data/DMC3/GData.afs/pl000.pac", noise(21, 64)),
        ("Data/DMC3/SaveData/slot0.sav", noise(22, 32)),
    ]
}

/// The stand-in game folder: the retail volume, another mod's `dmc3-1.nbz`, the loose folder.
pub fn stand_in(dir: &Path) {
    make(dir, &[retail(), other_mod("dmc3-1.nbz")], &loose());
}

/// Every file under `dir` (relative path to bytes).
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The volume rigtrip wrote, read by the oracle: the entries' names and bytes; asserts it is
/// what the game's reader takes (flat names, DEFLATE or STORE, sizes in the local headers, no
/// data descriptor, no ZIP64, sorted by lower-cased name, rigtrip's mark).
pub fn read_ours(volume: &Path) -> BTreeMap<String, Vec<u8>> {
    let v = oracle(&["read", volume.to_str().unwrap()]);
    assert!(
        v["comment"]
            .as_str()
            .unwrap()
            .starts_with("rigtrip mod volume"),
        "{v}"
    );
    assert_eq!(v["zip64_end"], false);
    let entries = v["entries"].as_array().unwrap();
    let mut names = Vec::new();
    let mut out = BTreeMap::new();
    for e in entries {
        let name = e["name"].as_str().unwrap().to_string();
        assert_eq!(e["flags"], 0, "{name}: flags (bit 3: data descriptor)");
        assert_eq!(e["local_flags"], 0, "{name}");
        assert!(matches!(e["method"].as_u64(), Some(0 | 8)), "{name}");
        assert_eq!(e["zip64_extra"], false, "{name}");
        assert_eq!(e["sizes_in_local_header"], true, "{name}");
        assert_eq!(e["local_name_same"], true, "{name}");
        assert_eq!(e["crc_ok"], true, "{name}");
        let base = name
            .strip_prefix("GData.afs/")
            .unwrap_or_else(|| panic!("{name}"));
        assert!(
            !base.contains('/') && base == base.to_ascii_lowercase(),
            "{name}"
        );
        names.push(name.to_ascii_lowercase());
        let data = base64::engine::general_purpose::STANDARD
            .decode(e["data"].as_str().unwrap())
            .unwrap();
        out.insert(name, data);
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        names, sorted,
        "entries sorted and unique by lower-cased name"
    );
    out
}
