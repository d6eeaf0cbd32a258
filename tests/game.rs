//! `rigtrip game` on a stand-in game folder (tests/common/game.rs: volumes written by Python's
//! zipfile, mixed-case names, another mod's volume, a loose folder, a damaged volume): `list`
//! agrees with the independent model of the game's lookup (tests/independent/nbzgame.py),
//! `extract` gives the exact bytes, `install` writes the next volume and a second install
//! updates it, `uninstall` removes it, a volume rigtrip did not write keeps its bytes in every
//! case, and every volume rigtrip writes is read back by the oracle's own ZIP reader.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::game::{self, make, noise, oracle, read_ours, snapshot, stand_in};
use common::{scratch, text};
use serde_json::Value;

/// Runs `rigtrip ARGS`; (exit code, stdout, stderr).
fn rigtrip(args: &[&str]) -> (i32, String, String) {
    let o = common::rigtrip().args(args).output().unwrap();
    (o.status.code().unwrap(), text(&o.stdout), text(&o.stderr))
}

/// Runs `rigtrip ARGS --json` and expects `code`: the document.
fn json(args: &[&str], code: i32) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (got, out, err) = rigtrip(&all);
    assert_eq!(got, code, "{args:?}\n{out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

/// `rigtrip game list --json` held to the oracle's lookup: the same names, each from the same
/// place, overriding the same copies in the same order.
fn assert_list_agrees(dir: &Path, code: i32) -> Value {
    let d = dir.to_str().unwrap();
    let ours = json(&["game", "list", "--game", d], code);
    let model = oracle(&["lookup", d]);
    let mine: BTreeMap<String, Value> = ours["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let v = serde_json::json!({"from": f["from"], "overrides": f["overrides"]});
            (f["name"].as_str().unwrap().to_string(), v)
        })
        .collect();
    let theirs: BTreeMap<String, Value> = model["files"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(
        mine, theirs,
        "rigtrip's listing and the model's lookup differ"
    );
    let volumes: Vec<&Value> = ours["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["file"])
        .collect();
    let expected: Vec<&Value> = model["volumes"].as_array().unwrap().iter().collect();
    assert_eq!(volumes, expected);
    ours
}

/// The files of `dir` that are not `except`: what must never change.
fn others(dir: &Path, except: &str) -> BTreeMap<String, Vec<u8>> {
    let mut s = snapshot(dir);
    s.remove(except);
    s
}

#[test]
fn list_follows_the_games_lookup_and_extract_gives_its_bytes() {
    let dir = scratch("list");
    stand_in(&dir);
    let d = dir.to_str().unwrap();
    let v = assert_list_agrees(&dir, 0);
    let from = |name: &str| -> String {
        let f = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        format!(
            "{}:{}",
            f["from"]["source"].as_str().unwrap(),
            f["from"]["entry"].as_str().unwrap()
        )
    };
    // The values the lookup gives, spelled out (the oracle agrees with each).
    assert_eq!(from("pl000.pac"), "DMC3-0.nbz:GData.afs/pl000.pac");
    assert_eq!(
        from("pl000_00_0.pac"),
        "DMC3-0.nbz:GData.afs/PL000_00_0.pac"
    );
    assert_eq!(from("em028.pac"), "dmc3-1.nbz:GData.afs/EM028.pac");
    assert_eq!(from("st000.pac"), "dmc3-1.nbz:GDataX360.afs/st000.pac");
    assert_eq!(from("intro.wmv"), "DMC3-0.nbz:Video/Intro.WMV");
    assert_eq!(from("slot0.sav"), "data/dmc3:SaveData/slot0.sav");
    assert_eq!(v["unreachable"][0]["entry"], "GData.afs/obj/old.pac");
    assert_eq!(v["files"].as_array().unwrap().len(), 7);
    // A filter: a part of a name, or a glob.
    let f = json(&["game", "list", "--game", d, "PL000"], 0);
    let names: Vec<&str> = f["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["pl000.pac", "pl000_00_0.pac"]);
    let f = json(&["game", "list", "--game", d, "*.wmv", "s?000.pac"], 0);
    let names: Vec<&str> = f["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["intro.wmv", "st000.pac"]);

    // extract: the bytes the game loads, under the name it asks for.
    let before = snapshot(&dir);
    let out = scratch("list-out");
    let o = out.to_str().unwrap();
    let (code, stdout, err) = rigtrip(&[
        "game",
        "extract",
        "--game",
        d,
        "GData.afs/PL000.PAC",
        "em028.pac",
        "ST000.pac",
        "-o",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        stdout,
        format!(
            "wrote {o}/pl000.pac ({} bytes) from DMC3-0.nbz:GData.afs/pl000.pac\n\
             wrote {o}/em028.pac (1200 bytes) from dmc3-1.nbz:GData.afs/EM028.pac\n\
             wrote {o}/st000.pac (300 bytes) from dmc3-1.nbz:GDataX360.afs/st000.pac\n",
            rigtrip::synth::texture::sample_character_pac().len()
        )
    );
    assert!(
        std::fs::read(out.join("pl000.pac")).unwrap()
            == rigtrip::synth::texture::sample_character_pac()
    );
    assert_eq!(
        std::fs::read(out.join("em028.pac")).unwrap(),
        noise(11, 1200)
    );
    assert_eq!(
        std::fs::read(out.join("st000.pac")).unwrap(),
        noise(12, 300)
    );
    // Never over a file without --force; a name the game does not have is named.
    let (code, _, err) = rigtrip(&["game", "extract", "--game", d, "em028.pac", "-o", o]);
    assert_eq!(
        (code, err.trim()),
        (
            2,
            format!("rigtrip: error: {o}/em028.pac exists; pass --force to overwrite it").as_str()
        )
    );
    let (code, _, err) = rigtrip(&["game", "extract", "--game", d, "pl999.pac", "-o", o]);
    assert_eq!(code, 2);
    assert!(err.contains("the game has no pl999.pac"), "{err}");
    assert_eq!(
        snapshot(&dir),
        before,
        "list and extract wrote into the game folder"
    );
}

#[test]
fn install_writes_the_next_volume_updates_it_and_uninstall_removes_it() {
    let dir = scratch("install");
    stand_in(&dir);
    let d = dir.to_str().unwrap();
    let before = snapshot(&dir);
    let work = scratch("install-work");
    let mine = noise(31, 5000);
    std::fs::write(work.join("PL000.pac"), &mine).unwrap();
    let p = work.join("PL000.pac");
    let v = json(&["game", "install", "--game", d, p.to_str().unwrap()], 0);
    assert_eq!(v["volume"]["file"], "DMC3-2.nbz");
    assert_eq!(v["volume"]["new"], true);
    let f = &v["files"][0];
    assert_eq!(
        (f["name"].as_str(), f["entry"].as_str()),
        (Some("pl000.pac"), Some("GData.afs/pl000.pac"))
    );
    let over: Vec<String> = f["overrides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            format!(
                "{}:{}",
                o["source"].as_str().unwrap(),
                o["entry"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        over,
        [
            "DMC3-0.nbz:GData.afs/pl000.pac",
            "data/dmc3:GData.afs/pl000.pac"
        ]
    );
    // No check ran (this build has none): the report says so, it does not pretend.
    assert_eq!(f["checked"], false);
    let vol = dir.join("DMC3-2.nbz");
    assert_eq!(
        read_ours(&vol),
        BTreeMap::from([("GData.afs/pl000.pac".to_string(), mine.clone())])
    );
    assert_eq!(others(&dir, "DMC3-2.nbz"), before);
    let listing = assert_list_agrees(&dir, 0);
    assert_eq!(listing["volumes"][2]["rigtrip"], true);

    // A second install updates the same volume: a new file and pl000.pac replaced.
    let again = noise(32, 777);
    std::fs::write(work.join("pl000.pac"), &again).unwrap();
    std::fs::write(work.join("edit.bin"), noise(33, 40)).unwrap();
    let (code, out, err) = rigtrip(&[
        "game",
        "install",
        "--game",
        d,
        work.join("pl000.pac").to_str().unwrap(),
        work.join("edit.bin").to_str().unwrap(),
        "--as",
        "em028.pac",
    ]);
    assert_eq!(code, 2, "--as with two files: {out}");
    assert!(err.contains("--as names one file"), "{err}");
    let (code, out, err) = rigtrip(&[
        "game",
        "install",
        "--game",
        d,
        work.join("pl000.pac").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(", replacing the one installed before"),
        "{out}"
    );
    let (code, out, err) = rigtrip(&[
        "game",
        "install",
        "--game",
        d,
        work.join("edit.bin").to_str().unwrap(),
        "--as",
        "GData.afs/EM028.PAC",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("overrides dmc3-1.nbz:GData.afs/EM028.pac"),
        "{out}"
    );
    assert_eq!(
        read_ours(&vol),
        BTreeMap::from([
            ("GData.afs/em028.pac".to_string(), noise(33, 40)),
            ("GData.afs/pl000.pac".to_string(), again.clone()),
        ])
    );
    assert!(!dir.join("DMC3-3.nbz").exists());
    assert_eq!(others(&dir, "DMC3-2.nbz"), before);
    assert_list_agrees(&dir, 0);

    // Uninstall by name, then the whole volume; the game's own copies come back.
    let v = json(&["game", "uninstall", "--game", d, "EM028.PAC"], 0);
    assert_eq!(v["removed"][0]["now"]["source"], "dmc3-1.nbz");
    assert_eq!(read_ours(&vol).len(), 1);
    let (code, _, err) = rigtrip(&["game", "uninstall", "--game", d, "st000.pac"]);
    assert_eq!(code, 2);
    assert!(err.contains("st000.pac is not installed by rigtrip: rigtrip's DMC3-2.nbz does not hold it; the game loads it from dmc3-1.nbz:GDataX360.afs/st000.pac, which rigtrip did not write"), "{err}");
    let (code, out, err) = rigtrip(&["game", "uninstall", "--game", d]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "removed pl000.pac: the game loads DMC3-0.nbz:GData.afs/pl000.pac again\ndeleted DMC3-2.nbz (rigtrip's volume)\n");
    assert_eq!(snapshot(&dir), before, "the game folder is as it was");
    let (code, out, _) = rigtrip(&["game", "uninstall", "--game", d]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "note: no volume in the game folder was written by rigtrip: nothing to remove\n"
        )
    );
}

#[test]
fn a_later_volume_is_never_cut_off_and_a_copy_loaded_first_is_refused() {
    let dir = scratch("later");
    // rigtrip's volume 1, another mod's volume 2 after it that holds pl000.pac too.
    make(&dir, &[game::retail()], &[]);
    let d = dir.to_str().unwrap();
    let work = scratch("later-work");
    std::fs::write(work.join("pl000.pac"), noise(41, 100)).unwrap();
    std::fs::write(work.join("em028.pac"), noise(42, 100)).unwrap();
    let file = |n: &str| work.join(n).display().to_string();
    assert_eq!(
        rigtrip(&["game", "install", "--game", d, &file("em028.pac")]).0,
        0
    );
    make(
        &dir,
        &[game::VolumeSpec {
            file: "DMC3-2.nbz",
            comment: "",
            entries: vec![("GData.afs/PL000.PAC", noise(43, 10), false)],
        }],
        &[],
    );
    let before = snapshot(&dir);
    let (code, _, err) = rigtrip(&["game", "install", "--game", d, &file("pl000.pac")]);
    assert_eq!(code, 2);
    assert_eq!(err, "rigtrip: error: pl000.pac: the game would still load DMC3-2.nbz:GData.afs/PL000.PAC, not rigtrip's DMC3-1.nbz:GData.afs/pl000.pac (that volume comes after rigtrip's and is searched first); nothing was installed. Remove that file or volume (another mod's) first, or --force to install all the same\n");
    assert_eq!(snapshot(&dir), before);
    // Forced: installed, and said to be not loaded.
    let v = json(
        &[
            "game",
            "install",
            "--game",
            d,
            &file("pl000.pac"),
            "--force",
        ],
        0,
    );
    assert_eq!(v["files"][0]["loaded"], false);
    assert_eq!(v["volume"]["file"], "DMC3-1.nbz");
    assert!(snapshot(&dir)["DMC3-2.nbz"] == before["DMC3-2.nbz"]);
    // The whole volume cannot go while DMC3-2.nbz follows it.
    let before = snapshot(&dir);
    let (code, _, err) = rigtrip(&["game", "uninstall", "--game", d]);
    assert_eq!(code, 2);
    assert!(err.starts_with("rigtrip: error: DMC3-2.nbz come(s) after rigtrip's DMC3-1.nbz: removing DMC3-1.nbz would leave a gap"), "{err}");
    assert_eq!(snapshot(&dir), before);
    // By name it can: the volume stays, empty.
    let v = json(
        &["game", "uninstall", "--game", d, "pl000.pac", "em028.pac"],
        0,
    );
    assert_eq!(
        (
            v["volume"]["entries"].as_u64(),
            v["volume"]["deleted"].as_bool()
        ),
        (Some(0), Some(false))
    );
    assert!(read_ours(&dir.join("DMC3-1.nbz")).is_empty());
    assert!(snapshot(&dir)["DMC3-2.nbz"] == before["DMC3-2.nbz"]);
    assert_list_agrees(&dir, 0);
}

#[test]
fn a_numbered_volume_past_a_gap_is_not_brought_back_by_an_install() {
    let dir = scratch("gap");
    make(&dir, &[game::retail(), game::other_mod("DMC3-2.nbz")], &[]);
    let d = dir.to_str().unwrap();
    let v = json(&["game", "list", "--game", d], 0);
    assert_eq!(v["beyond_gap"], serde_json::json!(["DMC3-2.nbz"]));
    assert_list_agrees(&dir, 0);
    let before = snapshot(&dir);
    let f = scratch("gap-work").join("pl000.pac");
    std::fs::write(&f, b"x").unwrap();
    let (code, _, err) = rigtrip(&["game", "install", "--game", d, f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("DMC3-2.nbz is there past the missing DMC3-1.nbz"),
        "{err}"
    );
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_damaged_volume_is_named_and_nothing_is_lost() {
    let dir = scratch("damaged");
    stand_in(&dir);
    let d = dir.to_str().unwrap();
    // DMC3-2.nbz: another mod's volume cut short (no central directory).
    let whole = std::fs::read(dir.join("dmc3-1.nbz")).unwrap();
    std::fs::write(dir.join("DMC3-2.nbz"), &whole[..whole.len() / 2]).unwrap();
    let before = snapshot(&dir);
    let v = assert_list_agrees(&dir, 1);
    assert_eq!(v["status"], "failed");
    assert!(v["volumes"][2]["damaged"].is_string(), "{v}");
    assert!(
        v["problems"][0]
            .as_str()
            .unwrap()
            .starts_with("DMC3-2.nbz is damaged"),
        "{v}"
    );
    let out = scratch("damaged-out");
    let (code, _, err) = rigtrip(&[
        "game",
        "extract",
        "--game",
        d,
        "pl000.pac",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(
            "rigtrip: error: pl000.pac: DMC3-2.nbz is damaged and comes first in the game's lookup"
        ),
        "{err}"
    );
    // Install goes past it into DMC3-3.nbz, the damaged volume untouched.
    let f = out.join("x.pac");
    std::fs::write(&f, b"mine").unwrap();
    assert_eq!(
        rigtrip(&["game", "install", "--game", d, f.to_str().unwrap()]).0,
        0
    );
    assert_eq!(others(&dir, "DMC3-3.nbz"), before);
    assert_eq!(read_ours(&dir.join("DMC3-3.nbz")).len(), 1);

    // An entry whose bytes were damaged: its CRC no longer holds.
    let dir = scratch("damaged-entry");
    stand_in(&dir);
    let mut bytes = std::fs::read(dir.join("dmc3-1.nbz")).unwrap();
    let at = bytes.windows(9).position(|w| w == b"EM028.pac").unwrap() + 9;
    bytes[at + 5] ^= 0xFF;
    std::fs::write(dir.join("dmc3-1.nbz"), &bytes).unwrap();
    let (code, _, err) = rigtrip(&[
        "game",
        "extract",
        "--game",
        dir.to_str().unwrap(),
        "em028.pac",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("rigtrip: error: dmc3-1.nbz: entry GData.afs/EM028.pac cannot be read:"),
        "{err}"
    );
    assert!(!out.join("em028.pac").exists());

    // A volume that holds one path twice: which the game would take is not defined.
    let dir = scratch("damaged-twice");
    let twice = game::VolumeSpec {
        file: "DMC3-1.nbz",
        comment: "",
        entries: vec![
            ("GData.afs/a.pac", noise(91, 10), false),
            ("GData.afs/a.pac", noise(92, 10), false),
        ],
    };
    make(&dir, &[game::retail(), twice], &[]);
    let v = json(&["game", "list", "--game", dir.to_str().unwrap()], 1);
    assert_eq!(
        v["volumes"][1]["damaged"],
        "its directory holds a path twice (the game's lookup may take either)"
    );
}

#[test]
fn folder_names_in_any_case_and_clear_refusals() {
    let dir = scratch("case");
    make(
        &dir,
        &[game::VolumeSpec {
            file: "dmc3-0.NBZ",
            ..game::retail()
        }],
        &[],
    );
    let d = dir.to_str().unwrap();
    assert_list_agrees(&dir, 0);
    let f = scratch("case-work").join("pl000.pac");
    std::fs::write(&f, b"x").unwrap();
    assert_eq!(
        rigtrip(&["game", "install", "--game", d, f.to_str().unwrap()]).0,
        0
    );
    assert!(dir.join("DMC3-1.nbz").is_file());
    // Not a game folder; no --game.
    let empty = scratch("case-empty");
    let (code, _, err) = rigtrip(&["game", "list", "--game", empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no DMC3-0.nbz in"), "{err}");
    let (code, _, err) = rigtrip(&["game", "list"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "rigtrip: error: --game DIR is needed: the game's folder, the one holding DMC3-0.nbz\n"
        )
    );
}

#[test]
fn a_full_disk_leaves_the_volume_as_it_was() {
    // A file-size limit stands in for a full disk: the write of the new volume fails part way.
    let dir = scratch("full");
    stand_in(&dir);
    let d = dir.to_str().unwrap();
    let small = scratch("full-work").join("pl000.pac");
    std::fs::write(&small, noise(51, 100)).unwrap();
    assert_eq!(
        rigtrip(&["game", "install", "--game", d, small.to_str().unwrap()]).0,
        0
    );
    let before = snapshot(&dir);
    let big = small.with_file_name("em028.pac");
    std::fs::write(&big, noise(52, 200_000)).unwrap();
    let o = Command::new("bash")
        .args(["-c", "trap '' XFSZ; ulimit -f 64; exec \"$@\"", "limit"])
        .arg(env!("CARGO_BIN_EXE_rigtrip"))
        .args(["game", "install", "--game", d, big.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).starts_with(&format!("rigtrip: error: cannot write {d}/DMC3-2.nbz: ")),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        snapshot(&dir),
        before,
        "the volume changed, or a temporary file was left"
    );
}

#[test]
fn the_check_gate_refuses_a_file_that_would_stop_the_game_unless_forced() {
    use rigtrip::native::finding::Finding;
    use rigtrip::native::record::Evidence;
    use rigtrip::ops::game::install::{install, InstallFile};
    use rigtrip::ops::game::Game;
    let dir = scratch("gate");
    stand_in(&dir);
    let before = snapshot(&dir);
    let file = |findings: Vec<Finding>| InstallFile {
        path: "work/pl000.pac".into(),
        name: "PL000.PAC".into(),
        bytes: noise(81, 64),
        findings: Some(findings),
    };
    let stops = Finding::stops(
        "",
        "slot 14",
        "absent: the coat's shadow is used without a null check",
        Evidence::ExeConfirmed,
    );
    let note = Finding::note(
        "slot 1 (body)",
        "+0x11",
        "departs",
        Evidence::CorpusConfirmed,
    );
    let game = Game::open(&dir).unwrap();
    let err = install(&game, vec![file(vec![note.clone(), stops.clone()])], false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "work/pl000.pac: rigtrip check finds what would stop the game: slot 14: absent: the \
         coat's shadow is used without a null check; nothing was installed (--force installs it \
         all the same)"
    );
    assert_eq!(snapshot(&dir), before);
    // A note alone does not refuse; forced, a finding that stops is installed and reported.
    let r = install(&game, vec![file(vec![note.clone()])], false).unwrap();
    assert_eq!((r.files[0].checked, r.files[0].findings.len()), (true, 1));
    let game = Game::open(&dir).unwrap();
    let r = install(&game, vec![file(vec![stops.clone()])], true).unwrap();
    assert_eq!(r.files[0].findings, [stops]);
    assert_eq!(r.files[0].name, "pl000.pac");
    assert!(r.files[0].replaced);
    assert_eq!(read_ours(&dir.join("DMC3-2.nbz")).len(), 1);
}

#[test]
fn install_runs_rigtrip_check_and_refuses_what_would_stop_the_game() {
    let dir = scratch("gate-cli");
    stand_in(&dir);
    let d = dir.to_str().unwrap();
    let before = snapshot(&dir);
    // The sample model with its node-domain block offset (header +0x20) past the file's end:
    // the game relocates it there and reads garbage.
    let mut model = rigtrip::synth::dmc3::sample_mod();
    let past = (model.len() as u64 + 0x100).to_le_bytes();
    model[0x20..0x28].copy_from_slice(&past);
    let work = scratch("gate-cli-work");
    let file = work.join("pl000.mod");
    std::fs::write(&file, &model).unwrap();
    let f = file.to_str().unwrap();
    let (code, out, err) = rigtrip(&["game", "install", "--game", d, f]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.starts_with(&format!(
            "rigtrip: error: {f}: rigtrip check finds what would stop the game: "
        )),
        "{err}"
    );
    assert!(err.contains("+0x20"), "the finding names the field: {err}");
    assert!(
        err.contains("nothing was installed (--force installs it all the same)"),
        "{err}"
    );
    assert_eq!(snapshot(&dir), before, "a refused install wrote something");
    // Forced, it is installed, and the report still carries the finding.
    let v = json(&["game", "install", "--game", d, f, "--force"], 0);
    let findings = v["files"][0]["findings"].as_array().unwrap();
    assert!(findings.iter().any(|x| x["severity"] == "stops"), "{v}");
    assert_eq!(read_ours(&dir.join("DMC3-2.nbz")).len(), 1);
}

#[test]
fn every_game_command_teaches_with_examples() {
    for args in [
        &["game", "--help"][..],
        &["game", "list", "--help"],
        &["game", "extract", "--help"],
        &["game", "install", "--help"],
        &["game", "uninstall", "--help"],
    ] {
        let (code, out, _) = rigtrip(args);
        assert_eq!(code, 0, "{args:?}");
        assert!(
            out.contains("Examples:\n  rigtrip game "),
            "{args:?}: {out}"
        );
    }
}
