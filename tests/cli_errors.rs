//! Error messages as the command line prints them: every command on truncated, empty,
//! wrong-format and missing inputs, and on outputs it cannot write. Each layer says its own
//! clause once (`cannot write x.glb: Is a directory (os error 21)`, not the cause twice): no
//! clause of a message, the parts between `: `, appears twice in it.

mod common;

use std::collections::HashSet;
use std::path::Path;

// Each test has its own scratch folder and runs the binary in it, so messages name short
// relative paths.
use common::{run_in, scratch, text};

/// The clauses said more than once in `line` (split at `: `).
fn repeated_clauses(line: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    line.split(": ")
        .map(str::trim)
        .filter(|c| !c.is_empty() && !seen.insert(*c))
        .map(str::to_string)
        .collect()
}

/// Runs `args`; returns a description of what is wrong with the output, if anything: a panic,
/// an exit code other than 0, 1 or 2, a failure without a one-line `rigtrip: error:` message,
/// or any line that says a clause twice.
fn problems(dir: &Path, args: &[&str]) -> Vec<String> {
    let o = run_in(dir, args);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    let cmd = args.join(" ");
    let mut found = Vec::new();
    if err.contains("panicked") {
        found.push(format!("`{cmd}` panicked: {err}"));
    }
    match o.status.code() {
        Some(0) | Some(1) => {}
        Some(2) => {
            // verify and lint report each file on stdout (a rejected file, an unreadable or
            // non-glTF one) and go on with the others; the rest fail with one line on stderr.
            if !matches!(args[0], "verify" | "lint")
                && (err.lines().count() != 1 || !err.starts_with("rigtrip: error: "))
            {
                found.push(format!("`{cmd}` exit 2 without a one-line error: {err:?}"));
            }
        }
        c => found.push(format!("`{cmd}` exit {c:?}: {err}")),
    }
    for line in out.lines().chain(err.lines()) {
        let twice = repeated_clauses(line);
        if !twice.is_empty() {
            found.push(format!("`{cmd}` says {twice:?} twice: {line}"));
        }
    }
    found
}

/// Prefixes of `data` a truncated file could be: a byte, a header's worth, halves, all but one.
fn cuts(data: &[u8]) -> Vec<&[u8]> {
    let n = data.len();
    let mut at = vec![1, 8, 16, 64, 0x100, n / 4, n / 2, n - 1];
    at.retain(|&k| k > 0 && k < n);
    at.sort();
    at.dedup();
    at.into_iter().map(|k| &data[..k]).collect()
}

fn write(dir: &Path, name: &str, data: &[u8]) -> String {
    std::fs::write(dir.join(name), data).unwrap();
    name.to_string()
}

#[test]
fn no_message_says_a_clause_twice() {
    let dir = scratch("clauses");
    let db22 = rigtrip::synth::hie::sample_db22();
    let model = rigtrip::synth::dmc3::sample_mod();
    let stage = rigtrip::synth::dmc3::sample_scm();
    let (efm, offset, nodes) = rigtrip::synth::dmc3::sample_efm();
    let mech = rigtrip::synth::mech::sample_mech();
    let offset = format!("{offset:#x}");
    let nodes = nodes.to_string();
    let block = ["--block-at", offset.as_str(), "--nodes", nodes.as_str()];

    // Good inputs, to cut and to write from.
    write(&dir, "good_DB22HIE.BIN", &db22);
    let o = run_in(&dir, &["export", "good_DB22HIE.BIN", "-o", "good.glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = run_in(&dir, &["export", "good_DB22HIE.BIN", "-o", "good.gltf"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = run_in(&dir, &["dump", "good_DB22HIE.BIN", "-o", "good.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let glb = std::fs::read(dir.join("good.glb")).unwrap();
    let gltf = std::fs::read(dir.join("good.gltf")).unwrap();
    let dump = std::fs::read(dir.join("good.json")).unwrap();
    std::fs::create_dir(dir.join("a_folder")).unwrap();

    // Native inputs: truncated, empty, wrong format, missing, a folder.
    let mut native: Vec<(String, Vec<&str>)> = Vec::new();
    for (stem, data) in [
        ("DB22HIE.BIN", &db22),
        ("model.mod", &model),
        ("stage.scm", &stage),
    ] {
        for (i, cut) in cuts(data).into_iter().enumerate() {
            native.push((write(&dir, &format!("cut{i}_{stem}"), cut), vec![]));
        }
    }
    let mot = rigtrip::synth::motion::sample_mot();
    let pac = rigtrip::synth::motion::sample_pac();
    for (stem, data) in [("motion.mot", &mot), ("archive.pac", &pac)] {
        for (i, cut) in cuts(data).into_iter().enumerate() {
            native.push((write(&dir, &format!("cut{i}_{stem}"), cut), vec![]));
        }
    }
    native.push((write(&dir, "empty.mot", b""), vec![]));
    native.push((write(&dir, "empty.pac", b""), vec![]));
    for (i, cut) in cuts(&efm).into_iter().enumerate() {
        native.push((write(&dir, &format!("cut{i}.efm"), cut), block.to_vec()));
    }
    native.push((write(&dir, "empty.mod", b""), vec![]));
    native.push((write(&dir, "empty_DB01HIE.BIN", b""), vec![]));
    native.push((write(&dir, "empty.efm", b""), block.to_vec()));
    native.push((write(&dir, "wrong.mod", &mech), vec![]));
    native.push((write(&dir, "wrong_DB01HIE.BIN", b"not a rig\n"), vec![]));
    native.push(("good_DB22HIE.BIN".into(), vec!["--format", "dmc3"]));
    native.push((write(&dir, "as_hie.mod", &model), vec!["--format", "hie"]));
    native.push(("missing.mod".into(), vec![]));
    native.push(("a_folder".into(), vec!["--format", "hie"]));

    // glTF inputs.
    let mut gltfs: Vec<String> = Vec::new();
    for (stem, data) in [
        ("mech.glb", &mech),
        ("db22.glb", &glb),
        ("db22.gltf", &gltf),
    ] {
        for (i, cut) in cuts(data).into_iter().enumerate() {
            gltfs.push(write(&dir, &format!("cut{i}_{stem}"), cut));
        }
    }
    gltfs.push(write(&dir, "empty.glb", b""));
    gltfs.push(write(&dir, "empty.gltf", b""));
    gltfs.push(write(&dir, "wrong.glb", &model));
    gltfs.push(write(&dir, "wrong.gltf", br#"{"hello": 1}"#));
    gltfs.push("good.glb".into()); // a rig, not a mech: gait has nothing to do
    gltfs.push("missing.glb".into());
    gltfs.push("a_folder".into());

    // Dumps.
    let mut dumps: Vec<String> = Vec::new();
    for (i, cut) in cuts(&dump).into_iter().enumerate() {
        dumps.push(write(&dir, &format!("cut{i}.json"), cut));
    }
    dumps.push(write(&dir, "empty.json", b""));
    dumps.push(write(&dir, "wrong.json", &model));
    dumps.push(write(&dir, "gltf.json", &gltf));
    dumps.push("missing.json".into());
    dumps.push("a_folder".into());

    let mut found = Vec::new();
    let mut check = |args: &[&str]| found.extend(problems(&dir, args));
    for (file, flags) in &native {
        let f = file.as_str();
        for cmd in [
            vec!["inspect", f],
            vec!["inspect", "--json", f],
            vec!["inspect", "--coverage", f],
            vec!["verify", f],
            vec!["export", f, "-o", "out.glb", "--force"],
            vec!["dump", f],
        ] {
            check(&[cmd, flags.clone()].concat());
        }
    }
    for f in &gltfs {
        let f = f.as_str();
        check(&["import", f, "-o", "out.bin", "--force"]);
        check(&["lint", f]);
        check(&["gait", f]);
    }
    for f in &dumps {
        check(&["build", f.as_str(), "-o", "out.bin", "--force"]);
    }
    // Outputs that cannot be written: a folder, a folder that does not exist, the input.
    for out in ["a_folder", "no_folder/out.x"] {
        check(&["export", "good_DB22HIE.BIN", "-o", &format!("{out}.glb")]);
        check(&["import", "good.glb", "-o", out, "--force"]);
        check(&["dump", "good_DB22HIE.BIN", "-o", out, "--force"]);
        check(&["build", "good.json", "-o", out, "--force"]);
    }
    check(&["build", "good.json", "-o", "good_DB22HIE.BIN", "--force"]);
    write(&dir, "mech.glb", &mech);
    let demand = ["--demand", "0:0,2:12", "--force", "-o"];
    check(&[&["gait", "mech.glb"][..], &demand, &["a_folder"]].concat());
    check(&[&["gait", "mech.glb"][..], &demand, &["no_folder/p.glb"]].concat());

    assert!(found.is_empty(), "{}", found.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The messages the command line and `ops` make themselves, exactly.
#[test]
fn io_errors_name_the_file_and_the_cause_once() {
    let dir = scratch("io");
    std::fs::create_dir(dir.join("a_folder.glb")).unwrap();
    write(&dir, "DB22HIE.BIN", &rigtrip::synth::hie::sample_db22());
    let error = |args: &[&str]| {
        let o = run_in(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        text(&o.stderr)
    };
    for cmd in ["inspect", "dump", "export"] {
        assert_eq!(
            error(&[cmd, "missing.mod", "-o", "x.glb"][..if cmd == "export" { 4 } else { 2 }]),
            "rigtrip: error: cannot read missing.mod: No such file or directory (os error 2)\n",
            "{cmd}"
        );
    }
    assert_eq!(
        error(&["import", "missing.glb", "-o", "x.bin"]),
        "rigtrip: error: cannot read missing.glb: No such file or directory (os error 2)\n"
    );
    assert_eq!(
        error(&["build", "missing.json", "-o", "x.bin"]),
        "rigtrip: error: cannot read missing.json: No such file or directory (os error 2)\n"
    );
    assert_eq!(
        error(&["gait", "missing.glb"]),
        "rigtrip: error: cannot read missing.glb: No such file or directory (os error 2)\n"
    );
    let o = run_in(&dir, &["verify", "missing.mod"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stdout),
        "rejected   -     missing.mod: cannot read: No such file or directory (os error 2)\n\
         0 identical, 0 differ, 1 rejected\n"
    );
    assert_eq!(
        error(&["export", "DB22HIE.BIN", "-o", "a_folder.glb", "--force"]),
        "rigtrip: error: cannot write a_folder.glb: Is a directory (os error 21)\n"
    );
    assert_eq!(
        error(&["export", "DB22HIE.BIN", "-o", "no_folder/x.glb"]),
        "rigtrip: error: cannot write no_folder/x.glb: No such file or directory (os error 2)\n"
    );
    assert_eq!(
        error(&["export", "DB22HIE.BIN", "-o", "a_folder.glb"]),
        "rigtrip: error: a_folder.glb exists; pass --force to overwrite it\n"
    );
    assert_eq!(
        error(&["dump", "DB22HIE.BIN", "-o", "DB22HIE.BIN", "--force"]),
        "rigtrip: error: DB22HIE.BIN is the input file; rigtrip never modifies its input\n"
    );
    // import refuses an existing output before reading anything.
    assert_eq!(
        error(&["import", "missing.glb", "-o", "DB22HIE.BIN"]),
        "rigtrip: error: DB22HIE.BIN exists; pass --force to overwrite it\n"
    );
}

/// Every command on a truncated, empty, wrong-format, missing or folder input: exit 2, one
/// line (the error on stderr; verify's and lint's line for the file on stdout), no clause said
/// twice, and the hint that fits: the figures of a truncation, `empty`, the command or option
/// that reads the file.
#[test]
fn bad_inputs_exit_2_with_one_line_and_the_hint_that_fits() {
    let dir = scratch("hints");
    let db22 = rigtrip::synth::hie::sample_db22();
    let model = rigtrip::synth::dmc3::sample_mod();
    let (efm, _, _) = rigtrip::synth::dmc3::sample_efm();
    let mech = rigtrip::synth::mech::sample_mech();
    std::fs::create_dir(dir.join("a_folder")).unwrap();
    // (file, what the one line must say)
    let native = [
        (
            write(&dir, "cut_DB22HIE.BIN", &db22[..0x258]),
            "truncated DBnnHIE.BIN: the slot table needs 0x400 bytes but the file ends at 0x258",
        ),
        (
            write(&dir, "cut2_DB22HIE.BIN", &db22[..db22.len() - 1]),
            "truncated DBnnHIE.BIN: ",
        ),
        (
            write(&dir, "cut.mod", &model[..model.len() / 2]),
            "runs past the end of the file",
        ),
        (write(&dir, "empty.mod", b""), "the file is empty (0 bytes)"),
        (
            write(&dir, "wrong.mod", &mech),
            "not a native rig: lint, import or gait",
        ),
        (
            write(&dir, "effect.efm", &efm),
            "--block-at OFFSET --nodes N",
        ),
        (write(&dir, "text.bin", b"not a rig\n"), "--format hie|dmc3"),
        ("missing.mod".to_string(), "No such file or directory"),
    ];
    let gltf = [
        (write(&dir, "cut.glb", &mech[..100]), "the file has"),
        (write(&dir, "empty.glb", b""), "the file is empty (0 bytes)"),
        (
            write(&dir, "native.glb", &model),
            "not glTF: inspect reads it, export turns it into glTF",
        ),
        ("missing.glb".to_string(), "No such file or directory"),
        ("a_folder".to_string(), "Is a directory"),
    ];
    let mut found = Vec::new();
    let mut check = |args: &[&str], hint: &str| {
        let o = run_in(&dir, args);
        let cmd = args.join(" ");
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        if o.status.code() != Some(2) {
            found.push(format!("`{cmd}` exit {:?}, not 2", o.status.code()));
        }
        // verify reports the file and a count; lint the file alone.
        let line = match args[0] {
            "verify" | "lint" if err.is_empty() => out.lines().next().unwrap_or("").to_string(),
            _ => {
                if err.lines().count() != 1 {
                    found.push(format!("`{cmd}`: not one line: {err:?}"));
                }
                err.trim_end().to_string()
            }
        };
        if args[0] == "lint" && out.lines().count() != 1 {
            found.push(format!("`{cmd}`: not one line: {out:?}"));
        }
        if !line.contains(hint) {
            found.push(format!("`{cmd}`: no {hint:?} in {line:?}"));
        }
        let twice = repeated_clauses(&line);
        if !twice.is_empty() {
            found.push(format!("`{cmd}` says {twice:?} twice: {line}"));
        }
    };
    for (f, hint) in &native {
        let f = f.as_str();
        for cmd in [
            vec!["inspect", f],
            vec!["inspect", "--coverage", f],
            vec!["verify", f],
            vec!["export", f, "-o", "out.glb", "--force"],
            vec!["dump", f],
        ] {
            check(&cmd, hint);
        }
    }
    check(&["inspect", "a_folder"], "Is a directory");
    check(&["dump", "a_folder"], "Is a directory");
    check(
        &["export", "a_folder", "-o", "out.glb"],
        "a_folder is a folder: its rig files are exported into a folder (-o DIR), not into out.glb",
    );
    check(
        &["export", "empty.mod", "wrong.mod", "-o", "out.glb"],
        "out.glb: several inputs are exported into a folder (-o DIR), not into one file",
    );
    for (f, hint) in &gltf {
        let f = f.as_str();
        check(&["import", f, "-o", "out.bin", "--force"], hint);
        check(&["lint", f], hint);
        check(&["gait", f], hint);
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `import x.glb -o x.glb` names the real problem first, with or without --force; a pre-HD
/// DMC3 container is rejected as such; `gait` with a prefix nothing matches fails.
#[test]
fn oddities_say_the_right_thing() {
    let dir = scratch("oddities");
    write(&dir, "DB22HIE.BIN", &rigtrip::synth::hie::sample_db22());
    let o = run_in(&dir, &["export", "DB22HIE.BIN", "-o", "x.glb"]);
    assert_eq!(o.status.code(), Some(0));
    for force in [&[][..], &["--force"][..]] {
        let o = run_in(
            &dir,
            &[&["import", "x.glb", "-o", "x.glb"][..], force].concat(),
        );
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            text(&o.stderr),
            "rigtrip: error: x.glb is the input file; rigtrip never modifies its input\n"
        );
    }
    // A pre-HD-like container: u32 block offset at +0x1C, a 0x30-byte object at 0x30 whose u32
    // mesh pointer names 0x60.
    let mut old = vec![0u8; 0x200];
    old[..4].copy_from_slice(b"MOD ");
    old[0x10] = 1;
    old[0x11] = 2;
    old[0x1C..0x20].copy_from_slice(&0xB0u32.to_le_bytes());
    old[0x30] = 1;
    old[0x34..0x38].copy_from_slice(&0x60u32.to_le_bytes());
    write(&dir, "old.mod", &old);
    let o = run_in(&dir, &["inspect", "old.mod"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "rigtrip: error: old.mod: a pre-HD DMC3 container (the 2006 PC release: u32 block offset at +0x1C, 0x30-byte object records): only the HD Collection layout is supported\n"
    );
    write(&dir, "mech.glb", &rigtrip::synth::mech::sample_mech());
    assert_eq!(run_in(&dir, &["gait", "mech.glb"]).status.code(), Some(0));
    assert_eq!(
        run_in(&dir, &["gait", "mech.glb", "--prefix", "xyz"])
            .status
            .code(),
        Some(1)
    );
    // Too few names: a warning naming the skeleton and both counts.
    write(&dir, "few.json", br#"{"1": ["hips"]}"#);
    let o = run_in(
        &dir,
        &[
            "export",
            "DB22HIE.BIN",
            "-o",
            "n.glb",
            "--names",
            "few.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stderr),
        "rigtrip: warning: the names file gives 1 name(s) for skeleton slot1, which has 15 joints; the others keep generated names\n"
    );
    // A negative scale parses, and is refused with the reason.
    let o = run_in(
        &dir,
        &["export", "DB22HIE.BIN", "-o", "m.glb", "--scale", "-1"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("a negative scale would mirror the rig"));
    // The same file named twice is verified once.
    std::fs::create_dir(dir.join("v")).unwrap();
    write(&dir, "v/DB22HIE.BIN", &rigtrip::synth::hie::sample_db22());
    let o = run_in(&dir, &["verify", "v/DB22HIE.BIN", "v", "./v/DB22HIE.BIN"]);
    assert_eq!(
        text(&o.stdout),
        "identical  hie   v/DB22HIE.BIN\n1 identical, 0 differ, 0 rejected\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A damaged motion or archive: exit 2, one line naming the file, the track (node, channel) or
/// slot, and the byte offset.
#[test]
fn motion_errors_name_track_or_slot_and_offset() {
    let dir = scratch("motion");
    let mot = rigtrip::synth::motion::sample_mot();
    let m = rigtrip::native::dmc3::Mot::read(&mot).unwrap();
    let first = m.header.header_size as usize + 4;
    let second = first + m.tracks[0].head.span as usize;
    write(&dir, "cut.mot", &mot[..second + 3]);
    let o = run_in(&dir, &["inspect", "cut.mot"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!(
            "rigtrip: error: cut.mot: mot: track 1 (node 0 ty) at offset {second:#x}: track head (16 bytes at {second:#x}) runs past the end of the file ({:#x} bytes)\n",
            second + 3
        )
    );
    let o = run_in(&dir, &["verify", "cut.mot"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stdout).starts_with(&format!(
        "rejected   -     cut.mot: mot: track 1 (node 0 ty) at offset {second:#x}:"
    )));
    let mut pac = rigtrip::synth::motion::sample_pac();
    let len = pac.len() as u32;
    pac[8 + 4 * 3..8 + 4 * 4].copy_from_slice(&len.to_le_bytes());
    write(&dir, "bad.pac", &pac);
    let o = run_in(&dir, &["dump", "bad.pac"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!("rigtrip: error: bad.pac: pac: slot 3 (offset word at 0x14) names offset {len:#x}, at or past the end of the file ({len:#x} bytes)\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
