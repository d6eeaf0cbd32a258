//! Motions and archives against an independent decoder and player: `tests/independent/motdecode.py`,
//! written from the motion and archive layouts alone (`docs/formats.md`, the executable's reading
//! included), decodes generated files; `rigtrip inspect --json` must agree with it key for key
//! (frame, bit 15, the frame it plays at, its segment's interpolation, value and tangents as f32
//! bit patterns), slot for slot and member for member; and the library's lifted curves must play
//! what it plays at every whole frame around their keys.

mod common;

use serde_json::Value;
use std::process::Command;

fn bits(v: &Value) -> Option<u32> {
    // serde_json writes a non-finite f32 as null.
    v.as_f64().map(|x| (x as f32).to_bits())
}

fn hex(v: &Value) -> u32 {
    u32::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

fn same_f32(ours: &Value, theirs: &Value) -> bool {
    let t = hex(theirs);
    match bits(ours) {
        Some(o) => o == t || (f32::from_bits(o).is_nan() && f32::from_bits(t).is_nan()),
        None => !f32::from_bits(t).is_finite(),
    }
}

/// Every track of the motion `mot` (bytes) as the library lifts it, played at the frames the
/// independent decoder played it at (`theirs`: its tracks), agrees within 1e-9 (relative beyond
/// 1); returns the values compared.
fn compare_plays(mot: &[u8], theirs: &Value, what: &str) -> usize {
    let file = rigtrip::rig::motion::read_file(mot).unwrap();
    let m = file.motions[0].motion.as_ref().unwrap();
    let tt = theirs["tracks"].as_array().unwrap();
    assert_eq!(m.tracks.len(), tt.len(), "{what}");
    let mut n = 0;
    for (i, (t, th)) in m.tracks.iter().zip(tt).enumerate() {
        for p in th["plays"].as_array().unwrap() {
            let f = p[0].as_f64().unwrap();
            let (Some(want), Some(got)) = (p[1].as_f64(), t.curve.value(f)) else {
                continue;
            };
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{what} track {i} frame {f}: library {got}, independent {want}"
            );
            n += 1;
        }
    }
    n
}

fn compare_mot(ours: &Value, theirs: &Value, what: &str) -> usize {
    let ot = ours["tracks"].as_array().unwrap();
    let tt = theirs["tracks"].as_array().unwrap();
    assert_eq!(ot.len(), tt.len(), "{what}: track count");
    let mut keys = 0;
    for (i, (o, t)) in ot.iter().zip(tt).enumerate() {
        assert_eq!(o["node"], t["node"], "{what} track {i}");
        assert_eq!(o["channel"], t["channel"], "{what} track {i}");
        assert_eq!(o["compression"], t["compression"], "{what} track {i}");
        assert_eq!(o["time_offset"], t["time_offset"], "{what} track {i}");
        let ok = o["keys"].as_array().unwrap();
        let tk = t["keys"].as_array().unwrap();
        assert_eq!(ok.len(), tk.len(), "{what} track {i}: key count");
        for (k, (a, b)) in ok.iter().zip(tk).enumerate() {
            assert_eq!(a["frame"], b[0], "{what} track {i} key {k}");
            assert_eq!(a["flag"], b[1], "{what} track {i} key {k}");
            assert_eq!(a["time"], b[2], "{what} track {i} key {k}");
            assert_eq!(a["segment"], b[3], "{what} track {i} key {k}");
            for (field, j) in [("value", 4), ("in", 5), ("out", 6)] {
                assert!(
                    same_f32(&a[field], &b[j]),
                    "{what} track {i} key {k} {field}: ours {} theirs {}",
                    a[field],
                    b[j]
                );
            }
            keys += 1;
        }
    }
    keys
}

#[test]
fn inspect_agrees_with_the_independent_decoder_key_for_key() {
    let dir = common::scratch("inspect");
    let mut paths = Vec::new();
    for seed in 0..30u64 {
        let p = dir.join(format!("r{seed}.mot"));
        std::fs::write(&p, rigtrip::synth::motion::random_mot(seed)).unwrap();
        paths.push(p);
        let p = dir.join(format!("r{seed}.pac"));
        std::fs::write(&p, rigtrip::synth::motion::random_pac(seed)).unwrap();
        paths.push(p);
    }
    let p = dir.join("sample.mot");
    std::fs::write(&p, rigtrip::synth::motion::sample_mot()).unwrap();
    paths.push(p);
    let p = dir.join("sample.pac");
    std::fs::write(&p, rigtrip::synth::motion::sample_pac()).unwrap();
    paths.push(p);
    let p = dir.join("single.mot");
    let rest = rigtrip::synth::motion::humanoid_rest();
    let single = rigtrip::synth::motion::single_channel_motion(7, &rest);
    std::fs::write(&p, single.write().unwrap()).unwrap();
    paths.push(p);

    let script = common::repo().join("tests/independent/motdecode.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(&paths)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run python3 ({e}): tests/independent/motdecode.py needs Python 3 on PATH"
            )
        });
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let theirs = theirs["files"].as_array().unwrap();
    assert_eq!(theirs.len(), paths.len());

    let (mut keys, mut members, mut opaque, mut played) = (0, 0, 0, 0);
    for (path, t) in paths.iter().zip(theirs) {
        let what = path.display().to_string();
        let o = common::rigtrip()
            .args(["inspect", "--json"])
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let ours: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(ours["format"], t["kind"], "{what}");
        if t["kind"] == "mot" {
            keys += compare_mot(&ours, t, &what);
            played += compare_plays(&std::fs::read(path).unwrap(), t, &what);
            continue;
        }
        let slots = ours["slots"].as_array().unwrap();
        let offsets = t["offsets"].as_array().unwrap();
        assert_eq!(slots.len(), offsets.len(), "{what}");
        for (s, o) in slots.iter().zip(offsets) {
            assert_eq!(hex(&s["offset"]) as u64, o.as_u64().unwrap(), "{what}");
        }
        let om = ours["members"].as_array().unwrap();
        let tm = t["members"].as_array().unwrap();
        assert_eq!(om.len(), tm.len(), "{what}: members");
        for (i, (a, b)) in om.iter().zip(tm).enumerate() {
            assert_eq!(a["offset"], b["offset"], "{what} member {i}");
            members += 1;
            if b["motion"] == "opaque" {
                assert_eq!(a["kind"], "opaque", "{what} member {i}");
                opaque += 1;
            } else {
                assert_eq!(a["kind"], "mot", "{what} member {i}");
                keys += compare_mot(&a["motion"], &b["motion"], &format!("{what} member {i}"));
            }
        }
    }
    // The corpus must exercise what it claims to.
    assert!(keys > 10_000, "{keys} keys");
    assert!(played > 10_000, "{played} values played");
    assert!(
        members > 50 && opaque > 0,
        "{members} members, {opaque} opaque"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
