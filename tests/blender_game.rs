//! The add-on's game folder in Blender 4.5 and 5.3, as a modder uses it: pl000.pac opened from a
//! stand-in game folder (tests/common/game.rs) through File > Import > Game rig from the game, a
//! vertex moved, the export with Install into the game: the installed entry is the exported
//! file byte for byte, the game's and another mod's volumes keep their bytes, the Info area
//! says which volume holds what; Remove my mods takes rigtrip's volume out again.
//!
//! Runs `blender/tests/game_test.py` under `tools/blender-python`; ignored by default (needs
//! Blender): `cargo test --test blender_game -- --include-ignored`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::game::{read_ours, snapshot, stand_in};
use common::{repo, scratch, tool};
use serde_json::Value;

/// Runs the driver under Blender `version`: its RESULT object and the Info lines. With
/// `bundled`, the add-on must find its own program: no RIGTRIP_BIN, no rigtrip on PATH.
fn driver(version: &str, args: &[&str], user: &Path, bundled: bool) -> (Value, Vec<String>) {
    let mut cmd = Command::new(tool("blender-python"));
    cmd.args(["--blender", version])
        .arg(repo().join("blender/tests/game_test.py"))
        .args(args)
        .env("BLENDER_USER_RESOURCES", user);
    if bundled {
        let path = std::env::var("PATH").unwrap_or_default();
        let clean: Vec<&str> = path
            .split(':')
            .filter(|d| !Path::new(d).join("rigtrip").exists())
            .collect();
        cmd.env_remove("RIGTRIP_BIN").env("PATH", clean.join(":"));
    } else {
        cmd.env("RIGTRIP_BIN", env!("CARGO_BIN_EXE_rigtrip"));
    }
    common::driver_output(&mut cmd, args, Duration::from_secs(900))
}

/// The modder's trip in Blender `version`, with the add-on from this repository or (`zip`)
/// the release zip installed from disk.
fn modder_installs_and_removes(version: &str, zip: Option<&Path>) {
    let root = scratch(&format!("blender-game-{version}-{}", zip.is_some()));
    let game = root.join("Devil May Cry HD Collection");
    let work = root.join("work");
    let kept = root.join("kept");
    let user = root.join("blender-user");
    for d in [&game, &user] {
        std::fs::create_dir_all(d).unwrap();
    }
    stand_in(&game);
    let before = snapshot(&game);
    let pac = rigtrip::synth::texture::sample_character_pac();
    let mut args = vec![
        "modder",
        game.to_str().unwrap(),
        work.to_str().unwrap(),
        "pl000.pac",
        "PL000_00_0.pac",
        kept.to_str().unwrap(),
    ];
    args.extend(zip.and_then(|z| z.to_str()));
    let (got, info) = driver(version, &args, &user, zip.is_some());
    assert_eq!(got["error"], Value::Null, "{info:#?}");
    match zip {
        Some(_) => {
            assert_eq!(got["module"], "bl_ext.user_default.rigtrip");
            assert_eq!(got["program"][1], "bundled");
        }
        None => assert_eq!(got["program"][1], "RIGTRIP_BIN"),
    }
    assert_eq!(got["removed"], serde_json::json!(["FINISHED"]));
    assert_eq!(
        got["offered"],
        serde_json::json!(["pl000.pac", "pl000_00_0.pac"])
    );
    let source = work.join("pl000.pac");
    assert_eq!(got["state"]["source"], source.to_str().unwrap());
    assert_eq!(got["state"]["game_name"], "pl000.pac");
    assert_eq!(got["state"]["game_folder"], game.to_str().unwrap());
    assert_eq!(
        got["state"]["motions"],
        serde_json::json!([work.join("pl000_00_0.pac").to_str().unwrap()])
    );
    // The motion archive was copied as the game loads it.
    assert!(
        std::fs::read(work.join("pl000_00_0.pac")).unwrap() == rigtrip::synth::motion::sample_pac()
    );
    // The exported archive: edited, and what the install put into rigtrip's volume, byte for byte.
    let exported = std::fs::read(&source).unwrap();
    assert!(
        exported != pac,
        "the moved vertex is not in the exported file"
    );
    assert_eq!(
        read_ours(&kept.join("DMC3-2.nbz")),
        BTreeMap::from([("GData.afs/pl000.pac".to_string(), exported)])
    );
    // The game's volume and the other mod's kept their bytes while the mod was installed.
    for name in ["DMC3-0.nbz", "dmc3-1.nbz"] {
        assert!(
            std::fs::read(kept.join(name)).unwrap() == before[name],
            "{name} changed"
        );
    }
    for line in [
        "installed pl000.pac into DMC3-2.nbz as GData.afs/pl000.pac (the game loaded \
         DMC3-0.nbz:GData.afs/pl000.pac before)",
        "DMC3-2.nbz (new) now holds 1 file(s) rigtrip installed",
        "removed pl000.pac: the game loads DMC3-0.nbz:GData.afs/pl000.pac again",
        "deleted DMC3-2.nbz, rigtrip's volume",
    ] {
        assert!(info.iter().any(|l| l == line), "{line:?} not in {info:#?}");
    }
    // Remove my mods left the game folder as it was.
    assert_eq!(snapshot(&game), before);
}

#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run"]
fn a_modder_opens_pl000_from_the_game_and_installs_the_edit_blender_4_5() {
    modder_installs_and_removes("4.5", None);
}

#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run"]
fn a_modder_opens_pl000_from_the_game_and_installs_the_edit_blender_5_3() {
    modder_installs_and_removes("5.3", None);
}

#[test]
#[ignore = "needs Blender and a release build: run tools/blender-python once, or .ci/run"]
fn the_same_through_the_linux_release_zip() {
    // tools/dist builds only what changed (the release build that blender_addon's zip tests
    // make as well).
    let out = Command::new(tool("dist"))
        .args(["--platform", "linux-x64"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tools/dist failed\n{}",
        common::text(&out.stderr)
    );
    let zip = repo().join(format!(
        "dist/rigtrip-blender-{}-linux-x64.zip",
        env!("CARGO_PKG_VERSION")
    ));
    modder_installs_and_removes("4.5", Some(&zip));
}
