//! The command line as a user meets it: exact lines, exit codes, no clobbering, no panics.

mod common;

use std::path::Path;
use std::process::Command;

use common::{run, scratch, text, tmp};

#[test]
fn verify_samples_all_identical() {
    let o = run(&["verify", "samples/"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "identical  hie   samples/DB22HIE.BIN\n\
         identical  pac   samples/dmc3_character.pac\n\
         identical  pac   samples/dmc3_coated.pac\n\
         identical  mod   samples/dmc3_humanoid.mod\n\
         identical  mot   samples/dmc3_humanoid.mot\n\
         identical  pac   samples/dmc3_humanoid.pac\n\
         identical  scm   samples/dmc3_stage.scm\n\
         identical  ptx   samples/dmc3_textures.ptx\n\
         8 identical, 0 differ, 0 rejected, 4 skipped (not rig files; -v names them)\n"
    );
    let o = run(&[
        "verify",
        "--block-at",
        "0x35",
        "--nodes",
        "8",
        "samples/dmc3_effect.efm",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout),
        "identical  block samples/dmc3_effect.efm\n1 identical, 0 differ, 0 rejected\n"
    );
}

#[test]
fn verify_mixed_folder_reports_each_and_exits_2() {
    let dir = scratch("mixed");
    std::fs::write(dir.join("a_good.mod"), rigtrip::synth::dmc3::sample_mod()).unwrap();
    // A gate-failing HIE: first part at depth 2. Still round-trips.
    let mut bad_gate = rigtrip::synth::hie::sample_db22();
    let first = u32::from_le_bytes(bad_gate[4..8].try_into().unwrap()) as usize;
    bad_gate[first + 0x34 + 2] = 2;
    std::fs::write(dir.join("b_gate_DB01HIE.BIN"), &bad_gate).unwrap();
    let good = rigtrip::synth::hie::sample_db22();
    std::fs::write(dir.join("c_truncated_DB02HIE.BIN"), &good[..0x3ff]).unwrap();
    std::fs::write(dir.join("d_notes.txt"), b"not a rig").unwrap();
    let o = run(&["verify", dir.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("identical  mod"), "{out}");
    assert!(lines[1].starts_with("identical  hie"), "{out}");
    assert!(
        lines[2].contains("note: slot1: spatial gate: the first part has depth 1 does not hold"),
        "{out}"
    );
    assert!(
        lines[3].starts_with("rejected") && lines[3].contains("c_truncated_DB02HIE.BIN"),
        "{out}"
    );
    assert_eq!(
        lines[4],
        "2 identical, 0 differ, 1 rejected, 1 skipped (not rig files; -v names them)"
    );
    assert!(!text(&o.stderr).contains("panicked"));
}

#[test]
fn unreadable_and_unknown_inputs_exit_2_with_one_line() {
    let o = run(&["inspect", "no/such/file.mod"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
    assert!(text(&o.stderr).starts_with("rigtrip: error: cannot read no/such/file.mod"));
    let o = run(&["inspect", "samples/README.md"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a recognised format"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&["verify", "--nodes", "3", "samples/"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "--nodes without --block-at is a usage error"
    );
    let o = run(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_teaches_with_examples() {
    for cmd in ["inspect", "verify", "export"] {
        let o = run(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(0));
        assert!(text(&o.stdout).contains("Examples:"), "{cmd}");
    }
    let o = run(&["--help"]);
    assert!(text(&o.stdout).contains("Exit codes: 0 ok, 1 a check failed"));
}

#[test]
fn inspect_json_gives_world_positions_and_raw_fields() {
    let o = run(&["inspect", "--json", "samples/DB22HIE.BIN"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["path"], "samples/DB22HIE.BIN");
    assert_eq!(v["format"], "hie");
    let chuckie = v["skeletons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "slot1")
        .unwrap();
    // The head: chest (0,-160,0) + head (0,-240,0); the hips' own offset is not applied.
    assert_eq!(
        chuckie["joints"][2]["world"],
        serde_json::json!([0.0, -400.0, 0.0])
    );
    assert_eq!(
        chuckie["joints"][0]["native"]["root_offset"],
        serde_json::json!([0, -400, 0])
    );
    assert_eq!(chuckie["joints"][2]["native"]["model"], "0x00000102");
    let slots: Vec<u64> = v["slots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| v["skeletons"][s["skeleton"].as_u64().unwrap() as usize]["name"] == "slot1")
        .map(|s| s["slot"].as_u64().unwrap())
        .collect();
    assert_eq!(slots, vec![1, 7]);
}

#[test]
fn export_never_clobbers_and_refuses_gate_failures() {
    let out = tmp("db22.glb");
    let _ = std::fs::remove_file(&out);
    let o = run(&["export", "samples/DB22HIE.BIN", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with(&format!(
        "wrote {} ({} bytes): 3 skin(s), 19 joint(s)",
        out.display(),
        std::fs::metadata(&out).unwrap().len()
    )));
    let first = std::fs::read(&out).unwrap();
    std::fs::write(&out, b"keep me").unwrap();
    let o = run(&["export", "samples/DB22HIE.BIN", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("exists; pass --force"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    let o = run(&[
        "export",
        "samples/DB22HIE.BIN",
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        first,
        "export is deterministic"
    );

    let mut bad_gate = rigtrip::synth::hie::sample_db22();
    let first_h = u32::from_le_bytes(bad_gate[4..8].try_into().unwrap()) as usize;
    bad_gate[first_h + 0x34 + 2] = 2;
    let input = tmp("DB01HIE.BIN");
    std::fs::write(&input, &bad_gate).unwrap();
    let out2 = tmp("gate.glb");
    let _ = std::fs::remove_file(&out2);
    let o = run(&[
        "export",
        input.to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("the first part has depth 1"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        !Path::new(&out2).exists(),
        "no output left behind on failure"
    );
}

/// The shipped binary parses JSON numbers as the tests do. Test builds get serde_json's
/// `float_roundtrip` from a dev-dependency (jsonschema) whatever the library asks for, so only
/// the dependency graph without dev-dependencies shows whether the binary has it too.
#[test]
fn the_binary_reads_json_floats_as_the_tests_do() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,features",
            "-i",
            "serde_json",
        ])
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo tree: {}", text(&out.stderr));
    let tree = text(&out.stdout);
    assert!(
        tree.contains(r#"serde_json feature "float_roundtrip""#),
        "serde_json without float_roundtrip in the binary's build:\n{tree}"
    );
    // The same decimal reads to the same double in this process (the tests' build).
    let x: f64 = serde_json::from_str("4.055474706295447e-187").unwrap();
    assert_eq!(x, "4.055474706295447e-187".parse::<f64>().unwrap());
}

/// `verify --legs all`: the samples are in the retail layout (said only in the summary); a file
/// that is not gets a note with the first difference and the structure there, and the exit
/// status stays 0.
#[test]
fn verify_legs_all_notes_what_is_not_in_the_retail_layout() {
    let o = run(&["verify", "--legs", "all", "samples/"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).ends_with(
            "8 identical, 0 differ, 0 rejected, 4 skipped (not rig files; -v names them); \
             layout: 4 retail, 0 not retail, 4 without one\n"
        ),
        "{}",
        text(&o.stdout)
    );
    assert!(!text(&o.stdout).contains("note"), "{}", text(&o.stdout));
    // A generated MOD whose streams are not grouped by kind and whose +0x40 are random.
    let dir = scratch("verify_layout");
    let data = (0..40)
        .map(rigtrip::synth::dmc3::random_mod)
        .find(|d| {
            matches!(
                rigtrip::ops::layout_leg::layout_leg(None, d),
                Ok(rigtrip::ops::verify::LayoutLeg::NotRetail(_))
            ) && matches!(
                rigtrip::ops::verify::verify_bytes_legs(
                    None,
                    d,
                    rigtrip::ops::verify::Legs::Native
                ),
                rigtrip::ops::verify::Verdict::Identical { .. }
            )
        })
        .unwrap();
    let Ok(rigtrip::ops::verify::LayoutLeg::NotRetail(d)) =
        rigtrip::ops::layout_leg::layout_leg(None, &data)
    else {
        unreachable!()
    };
    std::fs::write(dir.join("odd.mod"), &data).unwrap();
    let o = run(&[
        "verify",
        "--legs",
        "layout",
        dir.join("odd.mod").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout),
        format!(
            "identical  mod   {}\n           note: layout: not in the retail layout: first difference at {:#x} ({}); {} bytes, {} laid out anew\n1 identical, 0 differ, 0 rejected; layout: 0 retail, 1 not retail, 0 without one\n",
            dir.join("odd.mod").display(),
            d.first,
            d.structure,
            d.original,
            d.retail
        )
    );
}

#[test]
fn help_says_what_the_commands_do_now() {
    let o = run(&["--help"]);
    let help = text(&o.stdout);
    for want in [
        "DMC3 .mot motions and .pac motion archives",
        "lint: an error finding; gait: a slot the loader needs is MISSING",
    ] {
        assert!(help.contains(want), "{want}: {help}");
    }
    let o = run(&["verify", "--help"]);
    for want in [
        "on both legs by default",
        "it does not change the exit status",
        "rigtrip verify --legs all samples/",
    ] {
        assert!(text(&o.stdout).contains(want), "{}", text(&o.stdout));
    }
    let o = run(&["export", "--help"]);
    let help = text(&o.stdout);
    assert!(help.contains("One path per --motions"), "{help}");
    assert!(help.contains("--motions <FILE|DIR>"), "{help}");
}

#[test]
fn motions_take_one_path_each_and_never_swallow_the_model() {
    let out = tmp("swallow.glb");
    let _ = std::fs::remove_file(&out);
    // The model after --motions is the model, not a motion.
    let o = run(&[
        "export",
        "--motions",
        "samples/dmc3_humanoid.pac",
        "samples/dmc3_humanoid.mod",
        "--motions",
        "samples/dmc3_humanoid.mot",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let lines: Vec<String> = text(&o.stdout).lines().map(str::to_string).collect();
    let animations: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("animation "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(
        animations,
        // In the order given: the archive's slots, then the lone motion.
        [
            "dmc3_humanoid_00",
            "dmc3_humanoid_01",
            "dmc3_humanoid_04",
            "dmc3_humanoid"
        ]
    );
    // A folder without motion files is refused by name.
    let empty = scratch("no_motions");
    let o = run(&[
        "export",
        "samples/dmc3_humanoid.mod",
        "--motions",
        empty.to_str().unwrap(),
        "-o",
        tmp("none.glb").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!(
            "rigtrip: error: --motions {}: no .mot or .pac file in the folder\n",
            empty.display()
        )
    );
}

#[test]
fn inspect_lists_objects_and_meshes() {
    let o = run(&["inspect", "samples/dmc3_humanoid.mod"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    let tail: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.ends_with(" object(s), 3 mesh(es)"))
        .collect();
    assert_eq!(tail.len(), 6, "{out}");
    assert_eq!(tail[0], "2 object(s), 3 mesh(es)");
    assert!(
        tail[1].starts_with("  object 0: 2 mesh(es), vertex count "),
        "{out}"
    );
    let o = run(&["inspect", "--json", "samples/dmc3_humanoid.mod"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Checked against the native reader itself.
    let data = common::sample("dmc3_humanoid.mod");
    let rigtrip::native::NativeFile::Dmc3(file) =
        rigtrip::native::NativeFile::read(None, &data).unwrap()
    else {
        panic!("not DMC3")
    };
    let objects = &file.container.unwrap().objects;
    assert_eq!(v["objects"].as_array().unwrap().len(), objects.len());
    for (o, obj) in objects.iter().enumerate() {
        let jo = &v["objects"][o];
        assert_eq!(jo["vertex_count"], obj.record.vertex_count);
        for (m, mesh) in obj.meshes.iter().enumerate() {
            let jm = &jo["meshes"][m];
            assert_eq!(jm["name"], format!("object{o}_mesh{m}"));
            assert_eq!(jm["vertices"], mesh.positions.len());
            assert_eq!(jm["triangles"], mesh.triangles().len());
            assert_eq!(jm["texture"], mesh.record.texture_index);
            let mut used: Vec<u64> = Vec::new();
            for (b, w) in mesh.bone_indices.iter().zip(&mesh.weights) {
                // Bytes 1..3 are joint × 4; the weight's three 5-bit fields go with them.
                for k in 0..3 {
                    if (w >> (5 * k)) & 31 != 0 {
                        used.push(u64::from(b[k + 1] / 4));
                    }
                }
            }
            used.sort();
            used.dedup();
            assert_eq!(jm["joints"], serde_json::json!(used), "object {o} mesh {m}");
            assert!(!used.is_empty());
        }
    }
    // SCM: meshes without joints.
    let o = run(&["inspect", "--json", "samples/dmc3_stage.scm"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["objects"][0]["meshes"][0]["joints"],
        serde_json::json!([])
    );
}

#[test]
fn dump_says_what_it_wrote_and_verify_names_skipped_files_with_v() {
    let out = tmp("dump.json");
    let _ = std::fs::remove_file(&out);
    let o = run(&["dump", "samples/DB22HIE.BIN", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let len = std::fs::metadata(&out).unwrap().len();
    assert_eq!(
        text(&o.stdout),
        format!("wrote {} ({len} bytes)\n", out.display())
    );
    let o = run(&[
        "-q",
        "dump",
        "samples/DB22HIE.BIN",
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), String::new()));
    let o = run(&["verify", "-v", "--legs", "native", "samples/"]);
    let out = text(&o.stdout);
    let skipped: Vec<&str> = out.lines().filter(|l| l.starts_with("skipped")).collect();
    assert_eq!(skipped.len(), 4, "{out}");
    assert!(skipped[0].ends_with(": not a rig file"), "{out}");
    assert!(
        out.ends_with("8 identical, 0 differ, 0 rejected, 4 skipped (not rig files)\n"),
        "{out}"
    );
}

#[test]
fn a_file_named_mod_without_its_magic_says_so_and_how_to_read_a_block() {
    let path = tmp("random.mod");
    std::fs::write(&path, [0x5Au8; 300]).unwrap();
    let want = "named .mod but not a DMC3 container: no \"MOD \" or \"SCM \" magic at offset 0x0. If it holds a DMC3 node-domain block (a skeleton inside another file, as .efm files do), read it with --block-at OFFSET --nodes N (the block's offset and node count); a format is forced with --format hie|dmc3";
    let p = path.to_str().unwrap();
    for cmd in ["inspect", "dump"] {
        let o = run(&[cmd, p]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            text(&o.stderr),
            format!("rigtrip: error: {p}: {want}\n"),
            "{cmd}"
        );
    }
    let o = run(&["verify", p]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stdout),
        format!("rejected   -     {p}: {want}\n0 identical, 0 differ, 1 rejected\n")
    );
    // Another name keeps the general hint.
    let other = tmp("random.bin");
    std::fs::write(&other, [0x5Au8; 300]).unwrap();
    let o = run(&["inspect", other.to_str().unwrap()]);
    assert!(
        text(&o.stderr).contains("not a recognised format"),
        "{}",
        text(&o.stderr)
    );
}

/// `onto-map` writes a map `import --onto --joint-map` takes, says how each joint matched, and
/// keeps a map that is there without --force.
#[test]
fn onto_map_suggests_a_map_import_takes() {
    let map = tmp("cesium.map.json");
    let _ = std::fs::remove_file(&map);
    let body = "tests/data/sample-assets/vulkan-assets/CesiumMan.gltf";
    let template = "samples/dmc3_humanoid.mod";
    let o = run(&["onto-map", body, template, "-o", map.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("leg_joint_L_2 -> mod_13 (along the chain, "),
        "{out}"
    );
    assert!(out.contains("19 of 19 glTF joint(s) matched"), "{out}");
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    assert_eq!(written.as_object().unwrap().len(), 19);
    assert_eq!(written["leg_joint_R_3"], "mod_27");
    let again = run(&["onto-map", body, template, "-o", map.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    let mod_out = tmp("cesium_onto.mod");
    let _ = std::fs::remove_file(&mod_out);
    let i = run(&[
        "import",
        body,
        "--onto",
        template,
        "--joint-map",
        map.to_str().unwrap(),
        "-o",
        mod_out.to_str().unwrap(),
    ]);
    assert_eq!(i.status.code(), Some(0), "{}", text(&i.stderr));
}
