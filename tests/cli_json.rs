//! Every command's `--json` document, from real runs of the binary, validates against its
//! definition in schema/cli.schema.json (one `$defs` entry per command, the common head in
//! each); failures print the `error` document on stdout; one top-level object per call.

mod common;

use serde_json::{json, Value};
use std::path::Path;

/// The schema with its root pointed at `$defs/name`.
fn validator(name: &str) -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/cli.schema.json");
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::meta::validate(&schema).unwrap();
    let obj = schema.as_object_mut().unwrap();
    obj.remove("oneOf");
    obj.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
    jsonschema::validator_for(&schema).unwrap()
}

/// Runs rigtrip in `dir`; the exit code and stdout parsed as one JSON value (which must start
/// with the head's first key, `status`).
fn run(dir: &Path, args: &[&str]) -> (i32, Value) {
    let o = common::run_in(dir, args);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("{\n  \"status\": \""), "{args:?}: {out}");
    let v: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON value ({e}): {out}"));
    (o.status.code().unwrap(), v)
}

/// Checks `args`' output against `$defs/def`, its exit code, and that `status` says it.
fn check(dir: &Path, def: &str, args: &[&str], code: i32) -> Value {
    let (got, v) = run(dir, args);
    assert_eq!(got, code, "{args:?}: {v}");
    let errors: Vec<String> = validator(def)
        .iter_errors(&v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{args:?} against {def}:\n{}",
        errors.join("\n")
    );
    let status = ["ok", "failed", "error"][code as usize];
    assert_eq!(v["status"], status, "{args:?}");
    v
}

#[test]
fn every_command_json_validates_against_its_schema() {
    let dir = common::scratch("every_command");
    let db22 = rigtrip::synth::hie::sample_db22();
    let model = rigtrip::synth::dmc3::sample_mod();
    let (efm, offset, nodes) = rigtrip::synth::dmc3::sample_efm();
    let mech = rigtrip::synth::mech::sample_mech();
    for (name, data) in [
        ("DB22HIE.BIN", &db22),
        ("m.mod", &model),
        ("e.efm", &efm),
        ("mech.glb", &mech),
    ] {
        std::fs::write(dir.join(name), data).unwrap();
    }
    std::fs::create_dir(dir.join("in")).unwrap();
    std::fs::create_dir(dir.join("empty_folder")).unwrap();
    std::fs::write(dir.join("in/DB22HIE.BIN"), &db22).unwrap();
    std::fs::write(dir.join("in/bad.mod"), b"MOD ").unwrap();
    let (offset, nodes) = (format!("{offset:#x}"), nodes.to_string());
    let block = ["--block-at", offset.as_str(), "--nodes", nodes.as_str()];

    for f in ["DB22HIE.BIN", "m.mod"] {
        let v = check(&dir, "inspect", &["inspect", "--json", f], 0);
        assert_eq!(v["path"], f);
        assert_eq!(v["skeletons"][0]["gate"], "ok");
        // A model's objects and meshes; none in a HIE table.
        let meshes = v["objects"].as_array().map_or(0, |o| {
            o.iter()
                .map(|x| x["meshes"].as_array().unwrap().len())
                .sum()
        });
        assert_eq!(meshes, if f == "m.mod" { 3 } else { 0 }, "{f}");
        check(&dir, "coverage", &["inspect", "--coverage", "--json", f], 0);
    }
    check(
        &dir,
        "inspect",
        &[&["inspect", "--json", "e.efm"][..], &block].concat(),
        0,
    );
    // Motions and archives: their own inspect shape, the same coverage and verify shapes.
    std::fs::write(dir.join("m.mot"), rigtrip::synth::motion::sample_mot()).unwrap();
    std::fs::write(dir.join("m.pac"), rigtrip::synth::motion::sample_pac()).unwrap();
    // Textures and a character archive; the .tm2's DDS header is zeroed: known by its name.
    use rigtrip::synth::texture as tex;
    std::fs::write(dir.join("c.pac"), tex::sample_character_pac()).unwrap();
    let mut rng = rigtrip::synth::rng::Rng::new(12);
    let coat = rigtrip::synth::dmc3::random_mod(rng.next_u64());
    let coated = tex::coated_character_pac(
        &mut rng,
        tex::sample_ptx(),
        rigtrip::synth::dmc3::sample_mod(),
        coat,
    );
    std::fs::write(dir.join("coat.pac"), coated).unwrap();
    std::fs::write(dir.join("t.ptx"), tex::sample_ptx()).unwrap();
    let mut rng = rigtrip::synth::rng::Rng::new(29);
    let spec = tex::EntrySpec {
        format: rigtrip::native::dmc3::texture::PixelFormat::Dxt5,
        width: 8,
        height: 4,
        levels: 4,
        declared: 4,
        headers: tex::Headers::ZeroedDds,
    };
    std::fs::write(dir.join("t.tm2"), tex::entry(&mut rng, &spec)).unwrap();
    let non_rig = [
        ("m.mot", "mot"),
        ("m.pac", "pac"),
        ("c.pac", "pac"),
        ("t.ptx", "ptx"),
        ("t.tm2", "tm2"),
    ];
    for (f, format) in non_rig {
        let v = check(&dir, "inspect_motion", &["inspect", "--json", f], 0);
        assert_eq!(
            (&v["path"], &v["format"]),
            (&Value::from(f), &Value::from(format))
        );
        let v = check(&dir, "coverage", &["inspect", "--coverage", "--json", f], 0);
        assert_eq!(v["format"], format);
    }
    let v = check(&dir, "inspect_motion", &["inspect", "--json", "c.pac"], 0);
    let m = &v["members"];
    assert_eq!(
        (&m[0]["kind"], &m[0]["names"][0]),
        (&json!("ptx"), &json!("textures"))
    );
    assert_eq!(m[0]["textures"][1]["differences"][0]["field"], "mip chain");
    assert_eq!(
        (&m[1]["kind"], &m[1]["model"]["texture_count"]),
        (&json!("mod"), &json!(2))
    );
    assert_eq!(
        (&m[2]["kind"], &m[2]["align16"]),
        (&json!("shw"), &json!(8))
    );
    let v = check(&dir, "inspect_motion", &["inspect", "--json", "t.tm2"], 0);
    assert_eq!(
        (&v["pixel_format"], &v["geometry_from"], &v["levels"][3]),
        (
            &json!("DXT5"),
            &json!("descriptor"),
            &json!([1, 1, 0xF0 + 32 + 16 + 16, 16])
        )
    );
    let v = check(
        &dir,
        "verify",
        &[
            "verify",
            "--json",
            "DB22HIE.BIN",
            "m.mod",
            "m.mot",
            "m.pac",
            "c.pac",
            "t.ptx",
            "t.tm2",
        ],
        0,
    );
    assert_eq!(v["files"][0]["format"], "hie");
    assert_eq!(v["files"][2]["format"], "mot");
    assert_eq!(
        (&v["files"][4]["format"], &v["files"][4]["gltf"]),
        (&json!("pac"), &json!("identical"))
    );
    assert_eq!(v["files"][6]["format"], "tm2");
    // The layout leg: a leg per file, each archive's model members, and the counts.
    let v = check(
        &dir,
        "verify",
        &[
            "verify",
            "--json",
            "--legs",
            "all",
            "DB22HIE.BIN",
            "m.mod",
            "m.mot",
            "c.pac",
            "coat.pac",
            "t.ptx",
        ],
        0,
    );
    assert_eq!(v["files"][1]["layout"], "identical");
    assert!(v["files"][2]["layout"]["notapplicable"].is_string());
    assert_eq!(v["files"][3]["layout"]["members"][0]["layout"], "identical");
    // The random coat is not in the retail layout: information, exit 0.
    let coat = &v["files"][4]["layout"]["members"][1];
    assert_eq!(coat["slots"], json!([12]));
    assert!(coat["layout"]["notretail"]["structure"].is_string());
    assert_eq!(
        v["summary"]["layout"],
        json!({"retail": 2, "not_retail": 1, "not_applicable": 3})
    );
    check(&dir, "verify", &["verify", "--json", "in"], 2);
    // The game's loader model: the sample model (its index workspaces in place) passes; the
    // same model with its first mesh's +0x40 zeroed would stop the game (the game would write
    // the mesh's indices over its own record), and a 4-byte `MOD ` file too (its header is
    // cut); the PTX and the HIE table pass.
    let mut no_workspace = model.clone();
    let mesh = usize::try_from(u64::from_le_bytes(model[0x48..0x50].try_into().unwrap())).unwrap();
    no_workspace[mesh + 0x40..mesh + 0x48].fill(0);
    std::fs::write(dir.join("w.mod"), &no_workspace).unwrap();
    let v = check(
        &dir,
        "check",
        &[
            "check",
            "--json",
            "DB22HIE.BIN",
            "m.mod",
            "w.mod",
            "m.mot",
            "m.pac",
            "c.pac",
            "t.ptx",
            "t.tm2",
        ],
        1,
    );
    let status = |k: usize| {
        (
            v["files"][k]["format"].clone(),
            v["files"][k]["status"].clone(),
        )
    };
    assert_eq!(status(0), (json!("hie"), json!("pass")));
    assert_eq!(status(1), (json!("mod"), json!("pass")));
    assert_eq!(status(2), (json!("mod"), json!("stops")));
    assert_eq!(status(6), (json!("ptx"), json!("pass")));
    assert_eq!(
        v["files"][2]["findings"][0]["field"],
        "+0x40 index workspace offset"
    );
    let v = check(&dir, "check", &["check", "--json", "in"], 1);
    assert_eq!(v["files"][1]["findings"][0]["place"], "header");
    check(&dir, "check", &["check", "--json", "t.ptx"], 0);
    check(
        &dir,
        "error",
        &["check", "--json", "--model", "t.ptx", "m.mot"],
        2,
    );

    let v = check(
        &dir,
        "export",
        &["export", "--json", "DB22HIE.BIN", "-o", "x.glb"],
        0,
    );
    assert_eq!(v["output"], "x.glb");
    assert_eq!(
        v["bytes"],
        std::fs::metadata(dir.join("x.glb")).unwrap().len()
    );
    check(
        &dir,
        "export",
        &[&["export", "--json", "e.efm", "-o", "e.gltf"][..], &block].concat(),
        0,
    );
    // A character archive: its body model and one image per texture.
    let v = check(
        &dir,
        "export",
        &["export", "--json", "c.pac", "-o", "c.glb"],
        0,
    );
    assert_eq!(v["format"], "pac");
    let t = &v["textures"];
    assert_eq!(t.as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(t[0]["material"], "texture_0");
    assert_eq!(t[0]["alpha"], "binary");
    assert_eq!(t[1]["alpha"], "graded");
    assert_eq!(
        (t[1]["width"].as_u64(), t[1]["height"].as_u64()),
        (Some(16), Some(8))
    );
    // An edited body: the archive's shadow model named, carried as it was.
    let mut glb = std::fs::read(dir.join("c.glb")).unwrap();
    common::shrink_first_mesh(&mut glb);
    std::fs::write(dir.join("c.edited.glb"), glb).unwrap();
    // The edited body is laid out anew with its index workspaces: check passes it.
    let v = check(
        &dir,
        "import",
        &["import", "--json", "c.edited.glb", "-o", "c.new.pac"],
        0,
    );
    assert_eq!(v["check"][0]["status"], "pass", "{v}");
    assert_eq!(v["stale_shadows"][0]["slots"], json!([8, 14]), "{v}");
    // Without it the edit is refused: the error document carries what check found (the body
    // mesh shown with texture_2, past the PTX's 2, among it), nothing is written.
    let (mut json, bin) = common::glb_split(&std::fs::read(dir.join("c.glb")).unwrap());
    let materials = json["materials"].as_array_mut().unwrap();
    materials.push(json!({ "name": "texture_2" }));
    let m = materials.len() - 1;
    json["meshes"][0]["primitives"][0]["material"] = json!(m);
    std::fs::write(dir.join("c.texture2.glb"), common::glb(&json, &bin)).unwrap();
    let v = check(
        &dir,
        "error",
        &["import", "--json", "c.texture2.glb", "-o", "c.texture2.pac"],
        2,
    );
    let fields: Vec<&Value> = v["check"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["field"])
        .collect();
    assert!(fields.contains(&&json!("+0x02 texture slot")), "{v}");
    assert!(!dir.join("c.texture2.pac").exists());
    // An archive with a coat: the coat shown beside the body, and imported as its own model.
    let v = check(
        &dir,
        "export",
        &["export", "--json", "coat.pac", "-o", "coat.glb"],
        0,
    );
    assert_eq!(v["parts"], json!(["coat"]), "{v}");
    assert_eq!(v["skins"][1]["part"], "coat", "{v}");
    let v = check(
        &dir,
        "import",
        &["import", "--json", "coat.glb", "-o", "coat.new.pac"],
        0,
    );
    assert_eq!(v["models"][0]["name"], "coat", "{v}");
    // A repainted texture (its image without the native chunk): re-encoded, with its error.
    let mut glb = std::fs::read(dir.join("c.glb")).unwrap();
    common::drop_first_texture_chunk(&mut glb);
    std::fs::write(dir.join("c.painted.glb"), glb).unwrap();
    let v = check(
        &dir,
        "import",
        &["import", "--json", "c.painted.glb", "-o", "c.painted.pac"],
        0,
    );
    let t = &v["textures"][0];
    assert_eq!(
        (t["index"].as_u64(), t["image"].as_str()),
        (Some(0), Some("texture_0")),
        "{v}"
    );
    assert_eq!(
        (t["format"].as_str(), t["levels"].as_u64()),
        (Some("dxt1"), Some(5)),
        "{v}"
    );
    let v = check(
        &dir,
        "export_folder",
        &["export", "--json", "in", "m.mod", "-o", "out"],
        2,
    );
    assert_eq!(v["files"][0]["output"], "out/DB22HIE.BIN.glb");
    assert_eq!(v["files"][1]["status"], "rejected");
    assert_eq!(v["summary"]["exported"], 2);

    let v = check(
        &dir,
        "import",
        &["import", "--json", "x.glb", "-o", "back.BIN"],
        0,
    );
    assert_eq!(v["bytes"], db22.len());
    assert_eq!(std::fs::read(dir.join("back.BIN")).unwrap(), db22);

    // With motions: the animations in the export report, the rebuilt files in the import's;
    // an archive with a member of another node count (carried) and a motion made for a
    // skeleton twice the size (warned about by joint).
    let rest = rigtrip::synth::motion::model_rest(&rigtrip::ops::load(None, &model).unwrap());
    let odd = rigtrip::synth::motion::pac_with_foreign_member(3, &rest, 31);
    std::fs::write(dir.join("odd.pac"), odd).unwrap();
    let big = rigtrip::synth::motion::scaled_rest(&rest, 2.0);
    let big = rigtrip::synth::motion::motion_for_model(4, &big);
    std::fs::write(dir.join("big.mot"), big.write().unwrap()).unwrap();
    let mut args = vec!["export", "--json", "m.mod", "-o", "anim.glb"];
    for m in ["m.mot", "m.pac", "odd.pac", "big.mot"] {
        args.extend(["--motions", m]);
    }
    let v = check(&dir, "export", &args, 0);
    assert_eq!(v["animations"][0]["name"], "m");
    assert_eq!(v["animations"][1]["file"], "m.pac");
    assert_eq!(v["carried_motions"][0]["name"], "odd_01");
    assert_eq!(v["carried_motions"][0]["slots"], serde_json::json!([1]));
    assert_eq!(v["motion_misfits"][0]["name"], "big");
    assert_eq!(v["motion_misfits"][0]["joints"][0]["joint"], 0);
    std::fs::create_dir(dir.join("motions")).unwrap();
    let v = check(
        &dir,
        "import",
        &[
            "import",
            "--json",
            "anim.glb",
            "-o",
            "anim.mod",
            "--motions-out",
            "motions",
        ],
        0,
    );
    assert_eq!(v["motions"][0]["file"], "m.mot");
    assert_eq!(v["motions"][1]["motions"][0]["status"], "unchanged");
    assert_eq!(v["motions"][2]["motions"][1]["status"], "carried");
    for f in ["m.mot", "m.pac", "odd.pac", "big.mot"] {
        assert_eq!(
            std::fs::read(dir.join("motions").join(f)).unwrap(),
            std::fs::read(dir.join(f)).unwrap()
        );
    }

    // Onto a template: a third-party rig refused naming its joints, then mapped onto it.
    let figure = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sample-assets/RiggedFigure.gltf"
    );
    let v = check(
        &dir,
        "error",
        &[
            "import", "--json", figure, "--onto", "m.mod", "-o", "onto.mod",
        ],
        2,
    );
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("\"torso_joint_1\" (node 2)"));
    let map: Vec<String> = (1..=3)
        .map(|k| format!("\"torso_joint_{k}\": 0"))
        .chain(["neck_joint_1", "neck_joint_2"].map(|n| format!("\"{n}\": 1")))
        .chain(["arm", "leg"].iter().flat_map(|limb| {
            ["L", "R"].iter().flat_map(move |side| {
                (1..=5).map(move |k| format!("\"{limb}_joint_{side}_{k}\": 2"))
            })
        }))
        .collect();
    std::fs::write(dir.join("map.json"), format!("{{{}}}", map.join(", "))).unwrap();
    let v = check(
        &dir,
        "import",
        &[
            "import",
            "--json",
            figure,
            "--onto",
            "m.mod",
            "--joint-map",
            "map.json",
            "-o",
            "onto.mod",
        ],
        0,
    );
    assert_eq!(v["meshes"]["status"], "replaced");

    check(&dir, "lint", &["lint", "--json", "x.glb"], 0);
    let v = check(
        &dir,
        "lint_files",
        &["lint", "--json", "x.glb", "mech.glb", "m.mod"],
        2,
    );
    assert_eq!(v["files"][2]["path"], "m.mod");

    check(&dir, "gait", &["gait", "--json", "mech.glb"], 0);
    let v = check(
        &dir,
        "gait",
        &["gait", "--json", "mech.glb", "--prefix", "xyz"],
        1,
    );
    assert!(!v["missing"].as_array().unwrap().is_empty());

    // Failures of the call as a whole: the error document, on stdout.
    for args in [
        &["inspect", "--json", "missing.mod"][..],
        &["verify", "--json", "empty_folder"],
        &["export", "--json", "m.mod", "-o", "m.mod.txt"],
        &["import", "--json", "x.glb", "-o", "x.glb"],
        &["import", "--json", "m.mod", "-o", "y.BIN"],
        &["gait", "--json", "x.glb", "--forward", "up"],
    ] {
        let v = check(&dir, "error", args, 2);
        assert!(!v["message"].as_str().unwrap().starts_with("rigtrip:"));
    }
    let (_, v) = run(&dir, &["import", "--json", "x.glb", "-o", "x.glb"]);
    assert_eq!(
        v["message"],
        "x.glb is the input file; rigtrip never modifies its input"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn game_commands_json_validates_against_its_schema() {
    let dir = common::scratch("game");
    let g = dir.join("game");
    std::fs::create_dir(&g).unwrap();
    common::game::stand_in(&g);
    let whole = std::fs::read(g.join("dmc3-1.nbz")).unwrap();
    // What is installed passes rigtrip check (install runs it): the sample texture bundle.
    std::fs::write(dir.join("st000.ptx"), rigtrip::synth::texture::sample_ptx()).unwrap();
    let v = check(
        &dir,
        "game_list",
        &["game", "list", "--json", "--game", "game"],
        0,
    );
    assert_eq!(
        (v["path"].as_str(), v["loose"].as_str()),
        (Some("game"), Some("data/dmc3"))
    );
    assert!(v["files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| !f["overrides"].as_array().unwrap().is_empty()));
    let v = check(
        &dir,
        "game_extract",
        &[
            "game",
            "extract",
            "--json",
            "--game",
            "game",
            "pl000.pac",
            "-o",
            "out",
        ],
        0,
    );
    assert_eq!(v["files"][0]["from"]["source"], "DMC3-0.nbz");
    let v = check(
        &dir,
        "game_install",
        &["game", "install", "--json", "--game", "game", "st000.ptx"],
        0,
    );
    assert_eq!(v["volume"]["file"], "DMC3-2.nbz");
    let v = check(
        &dir,
        "game_uninstall",
        &["game", "uninstall", "--json", "--game", "game", "st000.ptx"],
        0,
    );
    // No other copy of it: the game no longer finds the name.
    assert_eq!(
        (v["removed"][0]["name"].as_str(), &v["removed"][0]["now"]),
        (Some("st000.ptx"), &Value::Null)
    );
    let v = check(
        &dir,
        "game_uninstall",
        &["game", "uninstall", "--json", "--game", "game"],
        0,
    );
    assert_eq!(v["volume"], Value::Null);
    // A damaged volume: the listing fails (exit 1) and says why.
    std::fs::write(g.join("DMC3-2.nbz"), &whole[..40]).unwrap();
    let v = check(
        &dir,
        "game_list",
        &["game", "list", "--json", "--game", "game"],
        1,
    );
    assert!(v["volumes"][2]["damaged"].is_string());
    for args in [
        &["game", "list", "--json", "--game", "missing"][..],
        &[
            "game",
            "extract",
            "--json",
            "--game",
            "game",
            "pl999.pac",
            "-o",
            "out",
        ],
        &["game", "uninstall", "--json", "--game", "game", "pl000.pac"],
    ] {
        let v = check(&dir, "error", args, 2);
        assert!(!v["message"].as_str().unwrap().starts_with("rigtrip:"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
