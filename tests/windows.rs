//! The Windows program, tested: `rigtrip.exe` (built by `tools/build-windows`) run under Wine
//! (`tools/wine`) on the bundled samples and generated real-layout files, in folders a Windows
//! user has (spaces, non-ASCII letters, backslashes, a drive letter, paths past MAX_PATH), and
//! held to the Linux build of the same source: the same GLB bytes, the same reports (paths
//! aside), the same exit codes, no CR in any output.
//!
//! These tests are ignored by default (they need Wine and the exe, listed as `ignored, needs
//! Wine`); `.ci/run` builds the exe and runs them. Run by hand with
//!
//!     tools/build-windows && cargo test --test windows -- --include-ignored
//!
//! Wine maps `/` to the drive `Z:`, so `/tmp/x` is `Z:\tmp\x` to the exe.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{repo, rigtrip, scratch, target_dir, text, tool};
use serde_json::Value;

/// The exe under test: `$RIGTRIP_WIN_EXE`, else the one `tools/build-windows` writes into this
/// build's target folder (`CARGO_TARGET_DIR` honoured).
fn exe() -> PathBuf {
    let path = std::env::var_os("RIGTRIP_WIN_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("x86_64-pc-windows-gnu/release/rigtrip.exe"));
    assert!(
        path.is_file(),
        "{} does not exist: build it with tools/build-windows (or set RIGTRIP_WIN_EXE)",
        path.display()
    );
    path
}

/// `path` as the exe sees it: on drive Z:, with backslashes.
fn win(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

/// Runs `rigtrip.exe ARGS` under Wine in `dir`; panics when Wine cannot run (exit 3 of
/// tools/wine, saying what is missing).
fn wine(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(tool("wine"))
        .arg(exe())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("tools/wine is a bash script: bash must be on PATH");
    assert_ne!(
        out.status.code(),
        Some(3),
        "tools/wine cannot run here:\n{}",
        text(&out.stderr)
    );
    assert_no_cr(&out);
    out
}

/// Runs the Linux build with the same arguments in `dir`.
fn linux(dir: &Path, args: &[&str]) -> Output {
    rigtrip().args(args).current_dir(dir).output().unwrap()
}

fn assert_no_cr(out: &Output) {
    for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !bytes.contains(&b'\r'),
            "CR in the exe's {what}: {:?}",
            text(bytes)
        );
    }
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The bundled samples, copied into `dir`.
fn copy_samples(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(repo().join("samples")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn verify_samples_in_a_folder_a_windows_user_has() {
    let version = ok(&wine(repo(), &["--version"]));
    assert_eq!(
        version,
        format!("rigtrip {}\n", env!("CARGO_PKG_VERSION")),
        "the exe is not of this source: run tools/build-windows"
    );
    let root = scratch("Моды Dante");
    let dir = root.join("game files");
    copy_samples(&dir);
    let out = ok(&wine(&root, &["verify", &win(&dir)]));
    let base = win(&dir);
    let expected: String = [
        ("hie", "DB22HIE.BIN"),
        ("pac", "dmc3_character.pac"),
        ("pac", "dmc3_coated.pac"),
        ("mod", "dmc3_humanoid.mod"),
        ("mot", "dmc3_humanoid.mot"),
        ("pac", "dmc3_humanoid.pac"),
        ("scm", "dmc3_stage.scm"),
        ("ptx", "dmc3_textures.ptx"),
    ]
    .iter()
    .map(|(f, n)| format!("identical  {f:<5} {base}\\{n}\n"))
    .collect();
    assert_eq!(
        out,
        expected + "8 identical, 0 differ, 0 rejected, 4 skipped (not rig files; -v names them)\n"
    );
    // A relative path with backslashes, from the folder above.
    let rel = ok(&wine(&root, &["verify", "game files\\dmc3_humanoid.mod"]));
    assert_eq!(
        rel,
        "identical  mod   game files\\dmc3_humanoid.mod\n1 identical, 0 differ, 0 rejected\n"
    );
    // --json: the same document as the Linux build's, paths aside.
    let w = ok(&wine(&root, &["verify", "--json", &win(&dir)]));
    let l = ok(&linux(&root, &["verify", "--json", dir.to_str().unwrap()]));
    let json_path = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap();
    let win_json = serde_json::to_string(&format!("{}\\", win(&dir))).unwrap();
    let lin_json = json_path(&dir.join(""));
    let w = w.replace(win_json.trim_matches('"'), lin_json.trim_matches('"'));
    let wv: serde_json::Value = serde_json::from_str(&w).unwrap();
    let lv: serde_json::Value = serde_json::from_str(&l).unwrap();
    assert_eq!(wv, lv);
    assert_eq!(wv["status"], "ok");
}

/// Exports `native` (in `dir`) with the exe and the Linux build, checks both GLBs are the same
/// bytes, imports the exe's GLB back with the exe (`-o` a relative path with a backslash) and
/// checks the native file comes back byte for byte. `extra` are export arguments.
fn round_trip(dir: &Path, native: &str, extra: &[&str]) {
    let stem = native;
    let ext = native.rsplit_once('.').map_or("", |(_, e)| e);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let glb = format!("out\\{stem}.glb");
    let mut args = vec!["export", native, "-o", &glb];
    args.extend_from_slice(extra);
    ok(&wine(dir, &args));
    let lin_glb = format!("out/{stem}.linux.glb");
    let mut args = vec!["export", native, "-o", &lin_glb];
    args.extend_from_slice(extra);
    ok(&linux(dir, &args));
    let w = std::fs::read(dir.join(format!("out/{stem}.glb"))).unwrap();
    let l = std::fs::read(dir.join(&lin_glb)).unwrap();
    assert!(
        w == l,
        "{native}: the exe's GLB differs from the Linux build's"
    );
    let back = format!("out\\{stem}.back.{ext}");
    ok(&wine(dir, &["import", &glb, "-o", &back]));
    let original = std::fs::read(dir.join(native)).unwrap();
    let got = std::fs::read(dir.join(format!("out/{stem}.back.{ext}"))).unwrap();
    assert!(
        got == original,
        "{native}: not byte-identical after the exe's round trip"
    );
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn every_bundled_sample_round_trips_through_the_exe() {
    let dir = scratch("samples round trip/Ünïcödé");
    copy_samples(&dir);
    for native in [
        "DB22HIE.BIN",
        "dmc3_humanoid.mod",
        "dmc3_stage.scm",
        "dmc3_character.pac",
    ] {
        round_trip(&dir, native, &[]);
    }
    round_trip(
        &dir,
        "dmc3_effect.efm",
        &["--block-at", "0x35", "--nodes", "8"],
    );
    // Motions ride along, and come back beside the model.
    let glb = "out\\anim.glb";
    ok(&wine(
        &dir,
        &[
            "export",
            "dmc3_humanoid.mod",
            "--motions",
            "dmc3_humanoid.mot",
            "--motions",
            "dmc3_humanoid.pac",
            "-o",
            glb,
        ],
    ));
    ok(&wine(
        &dir,
        &[
            "import",
            glb,
            "-o",
            "out\\anim.mod",
            "--motions-out",
            "out\\motions",
        ],
    ));
    for name in ["dmc3_humanoid.mot", "dmc3_humanoid.pac"] {
        let got = std::fs::read(dir.join("out/motions").join(name)).unwrap();
        assert!(got == std::fs::read(dir.join(name)).unwrap(), "{name}");
    }
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn generated_real_layout_files_round_trip_through_the_exe() {
    let dir = scratch("real layout");
    let mut names = Vec::new();
    for seed in 0..3 {
        for scm in [false, true] {
            let name = format!("r{seed}.{}", if scm { "scm" } else { "mod" });
            std::fs::write(
                dir.join(&name),
                rigtrip::synth::dmc3::real_layout(seed, scm),
            )
            .unwrap();
            names.push(name);
        }
        // A character archive around a real-layout body, as the game ships one.
        use rigtrip::synth::texture as tex;
        let mut rng = rigtrip::synth::rng::Rng::new(seed);
        let ptx = tex::random_ptx(rng.next_u64());
        let body = rigtrip::synth::dmc3::real_layout(seed + 10, false);
        let name = format!("pl{seed:03}.pac");
        std::fs::write(dir.join(&name), tex::character_pac(&mut rng, ptx, body)).unwrap();
        names.push(name);
    }
    for name in &names {
        round_trip(&dir, name, &[]);
    }
    let out = ok(&wine(&dir, &["verify", "-q", "."]));
    assert!(
        out.starts_with(&format!(
            "{} identical, 0 differ, 0 rejected",
            names.len() * 2
        )),
        "{out}"
    );
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn exit_codes_and_error_lines_match_the_linux_build() {
    let dir = scratch("exit codes");
    std::fs::write(dir.join("notes.mod"), b"not a model at all").unwrap();
    std::fs::write(dir.join("pl.mod"), rigtrip::synth::dmc3::sample_mod()).unwrap();
    let cases: &[&[&str]] = &[
        &["verify", "notes.mod"],
        &["inspect", "missing.mod"],
        &["export", "notes.mod", "-o", "x.glb"],
        &["verify", "--json", "notes.mod"],
        &["inspect", "--json", "missing.mod"],
        &["export", "pl.mod", "-o", "pl.glb", "--no-such-flag"],
        &["verify", "pl.mod"],
    ];
    for args in cases {
        let w = wine(&dir, args);
        let l = linux(&dir, args);
        assert_eq!(w.status.code(), l.status.code(), "{args:?}");
        assert_eq!(
            os_words_out(&text(&w.stdout)),
            os_words_out(&text(&l.stdout)),
            "{args:?}"
        );
        // clap names the program as it was called (rigtrip.exe): the rest is the same.
        // The system's words for an I/O error differ ("File not found." on Windows, "No such
        // file or directory" on Linux); its code does not.
        assert_eq!(
            os_words_out(&text(&w.stderr).replace("rigtrip.exe", "rigtrip")),
            os_words_out(&text(&l.stderr)),
            "{args:?}"
        );
    }
    assert_eq!(wine(&dir, &["verify", "notes.mod"]).status.code(), Some(2));
}

/// `text` with the system's description of each I/O error cut out, its `(os error N)` kept.
fn os_words_out(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" (os error ") {
            Some(end) => {
                let start = line[..end].rfind(": ").map_or(0, |i| i + 2);
                format!("{}{}", &line[..start], &line[end + 1..])
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn an_existing_output_is_replaced_only_with_force() {
    let dir = scratch("force");
    std::fs::write(dir.join("pl.mod"), rigtrip::synth::dmc3::sample_mod()).unwrap();
    std::fs::write(dir.join("pl.glb"), b"keep me").unwrap();
    let out = wine(&dir, &["export", "pl.mod", "-o", "pl.glb"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "rigtrip: error: pl.glb exists; pass --force to overwrite it\n"
    );
    assert_eq!(std::fs::read(dir.join("pl.glb")).unwrap(), b"keep me");
    ok(&wine(
        &dir,
        &["export", "pl.mod", "-o", "pl.glb", "--force"],
    ));
    assert_eq!(&std::fs::read(dir.join("pl.glb")).unwrap()[..4], b"glTF");
    // The input, named in another case (Windows names are case-insensitive), is still the input.
    let out = wine(&dir, &["import", "pl.glb", "-o", "PL.GLB", "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("is the input file; rigtrip never modifies its input"),
        "{}",
        text(&out.stderr)
    );
    assert_no_temp_left(&dir);
}

fn assert_no_temp_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn reserved_device_names_are_refused_by_name() {
    let dir = scratch("reserved");
    std::fs::write(dir.join("pl.mod"), rigtrip::synth::dmc3::sample_mod()).unwrap();
    for name in [
        "CON.glb",
        "nul.glb",
        "out\\Aux.model.glb",
        "COM1.glb",
        "lpt9.gltf",
    ] {
        let out = wine(&dir, &["export", "pl.mod", "-o", name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let base = name.rsplit('\\').next().unwrap();
        assert_eq!(
            text(&out.stderr),
            format!(
                "rigtrip: error: cannot write {name}: {base} is a device name on Windows (CON, \
                 PRN, AUX, NUL, COM1-9, LPT1-9, whatever the extension), not a file; choose \
                 another name\n"
            ),
            "{name}"
        );
    }
    // A name that only starts like one is a file.
    ok(&wine(&dir, &["export", "pl.mod", "-o", "console.glb"]));
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn an_output_held_open_by_another_program_is_refused_and_kept() {
    let dir = scratch("held open");
    std::fs::write(dir.join("pl.mod"), rigtrip::synth::dmc3::sample_mod()).unwrap();
    std::fs::write(dir.join("pl.glb"), b"in use").unwrap();
    let hold = text(
        &Command::new(tool("wine"))
            .arg("--hold")
            .output()
            .unwrap()
            .stdout,
    );
    let mut holder = Command::new(tool("wine"))
        .args([hold.trim(), &win(&dir.join("pl.glb")), "30"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "holding");
    let out = wine(&dir, &["export", "pl.mod", "-o", "pl.glb", "--force"]);
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stderr),
        "rigtrip: error: cannot replace pl.glb: another program has it open (the game, a \
         viewer, Blender); close it and run again. Nothing was written\n"
    );
    assert_eq!(std::fs::read(dir.join("pl.glb")).unwrap(), b"in use");
    assert_no_temp_left(&dir);
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn paths_longer_than_max_path_work() {
    let mut dir = scratch("long");
    while dir.as_os_str().len() < 300 {
        dir = dir.join("a folder of a modder with a long name");
    }
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pl.mod"), rigtrip::synth::dmc3::sample_mod()).unwrap();
    let native = win(&dir.join("pl.mod"));
    let glb = win(&dir.join("pl.glb"));
    let back = win(&dir.join("back.mod"));
    assert!(glb.len() > 260);
    ok(&wine(&dir, &["export", &native, "-o", &glb]));
    ok(&wine(&dir, &["import", &glb, "-o", &back]));
    assert_eq!(
        std::fs::read(dir.join("back.mod")).unwrap(),
        std::fs::read(dir.join("pl.mod")).unwrap()
    );
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn text_files_written_have_no_cr() {
    let dir = scratch("line endings");
    std::fs::copy(repo().join("samples/DB22HIE.BIN"), dir.join("DB22HIE.BIN")).unwrap();
    std::fs::copy(
        repo().join("samples/DB22HIE.names.json"),
        dir.join("DB22HIE.names.json"),
    )
    .unwrap();
    ok(&wine(&dir, &["export", "DB22HIE.BIN", "-o", "db22.glb"]));
    std::fs::create_dir_all(dir.join("back")).unwrap();
    ok(&wine(
        &dir,
        &["import", "db22.glb", "-o", "back\\DB22HIE.BIN"],
    ));
    ok(&wine(&dir, &["dump", "DB22HIE.BIN", "-o", "db22.json"]));
    for name in ["back/DB22HIE.names.json", "db22.json"] {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!bytes.contains(&b'\r'), "CR in {name}");
    }
}

/// A fresh folder on Wine's drive C: (inside the test prefix), as (path on Linux, path the exe
/// sees: `C:\rigtrip-tests\...`).
fn drive_c(name: &str) -> (PathBuf, String) {
    let tools = std::env::var_os("RIGTRIP_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/rigtrip-tools")
        });
    // tools/wine makes the prefix (and drive C:) on first use.
    ok(&wine(repo(), &["--version"]));
    let rel = format!("rigtrip-tests/{}/{name}", std::process::id());
    let dir = tools.join("wine-prefix/drive_c").join(&rel);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    (dir, format!("C:\\{}", rel.replace('/', "\\")))
}

/// Runs the exe with `args` in `dir` and expects exit `code`: its stdout.
fn wine_code(dir: &Path, args: &[&str], code: i32) -> String {
    let out = wine(dir, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}\nstdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn the_game_commands_work_on_a_game_folder_under_c() {
    use common::game::{noise, oracle, read_ours, snapshot, stand_in};
    let (root, c) = drive_c("game");
    let game = root.join("Devil May Cry HD Collection");
    std::fs::create_dir_all(&game).unwrap();
    stand_in(&game);
    let before = snapshot(&game);
    let g = format!("{c}\\Devil May Cry HD Collection");
    // The folder named in another case, as Windows allows.
    let g_case = format!("{}\\devil may cry hd COLLECTION", c.to_uppercase());
    // list: the same files, places and overrides as the independent model (and as the Linux
    // build), whatever case the folder is named in.
    let listing: Value = serde_json::from_str(&wine_code(
        &root,
        &["game", "list", "--json", "--game", &g_case],
        0,
    ))
    .unwrap();
    let model = oracle(&["lookup", game.to_str().unwrap()]);
    for f in listing["files"].as_array().unwrap() {
        let m = &model["files"][f["name"].as_str().unwrap()];
        assert_eq!(
            (&f["from"], &f["overrides"]),
            (&m["from"], &m["overrides"]),
            "{}",
            f["name"]
        );
    }
    assert_eq!(
        listing["files"].as_array().unwrap().len(),
        model["files"].as_object().unwrap().len()
    );
    let linux: Value = serde_json::from_str(&ok(&linux(
        &root,
        &["game", "list", "--json", "--game", game.to_str().unwrap()],
    )))
    .unwrap();
    assert_eq!(listing["files"], linux["files"]);
    // extract, into a C:\ folder given with backslashes.
    let out = wine_code(
        &root,
        &[
            "game",
            "extract",
            "--game",
            &g,
            "GData.afs\\PL000.PAC",
            "-o",
            &format!("{c}\\out"),
        ],
        0,
    );
    let pac = rigtrip::synth::texture::sample_character_pac();
    assert_eq!(
        out,
        format!(
            "wrote {c}\\out\\pl000.pac ({} bytes) from DMC3-0.nbz:GData.afs/pl000.pac\n",
            pac.len()
        )
    );
    assert!(std::fs::read(root.join("out/pl000.pac")).unwrap() == pac);
    // install twice (the second updates the same volume), then uninstall.
    std::fs::create_dir_all(root.join("work")).unwrap();
    std::fs::write(root.join("work/Pl000.pac"), noise(61, 3000)).unwrap();
    std::fs::write(root.join("work/em.bin"), noise(62, 30)).unwrap();
    let out = wine_code(
        &root,
        &[
            "game",
            "install",
            "--game",
            &g_case,
            &format!("{c}\\work\\Pl000.pac"),
        ],
        0,
    );
    assert!(out.starts_with(&format!("installed {c}\\work\\Pl000.pac as DMC3-2.nbz:GData.afs/pl000.pac (3000 bytes)\n  overrides DMC3-0.nbz:GData.afs/pl000.pac\n")), "{out}");
    wine_code(
        &root,
        &[
            "game",
            "install",
            "--game",
            &g,
            "work\\em.bin",
            "--as",
            "em028.pac",
        ],
        0,
    );
    assert_eq!(
        read_ours(&game.join("DMC3-2.nbz")),
        std::collections::BTreeMap::from([
            ("GData.afs/em028.pac".to_string(), noise(62, 30)),
            ("GData.afs/pl000.pac".to_string(), noise(61, 3000)),
        ])
    );
    let mut rest = snapshot(&game);
    rest.remove("DMC3-2.nbz");
    assert_eq!(rest, before);
    let out = wine_code(&root, &["game", "uninstall", "--game", &g], 0);
    assert!(
        out.ends_with("deleted DMC3-2.nbz (rigtrip's volume)\n"),
        "{out}"
    );
    assert_eq!(snapshot(&game), before);
    assert_no_temp_left(&game);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
#[ignore = "needs Wine and tools/build-windows: run .ci/run, or see the module doc"]
fn a_volume_held_open_by_the_game_is_refused_and_left_whole() {
    use common::game::{noise, snapshot, stand_in};
    let (root, c) = drive_c("held");
    let game = root.join("DMC3");
    std::fs::create_dir_all(&game).unwrap();
    stand_in(&game);
    let g = format!("{c}\\DMC3");
    std::fs::write(root.join("pl000.pac"), noise(71, 500)).unwrap();
    std::fs::write(root.join("em028.pac"), noise(72, 500)).unwrap();
    wine_code(
        &root,
        &["game", "install", "--game", &g, "pl000.pac", "em028.pac"],
        0,
    );
    let before = snapshot(&game);
    let hold = text(
        &Command::new(tool("wine"))
            .arg("--hold")
            .output()
            .unwrap()
            .stdout,
    );
    let volume = format!("{g}\\DMC3-2.nbz");
    let mut holder = Command::new(tool("wine"))
        .args([hold.trim(), &volume, "60"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "holding");
    let install = wine(&root, &["game", "install", "--game", &g, "em028.pac"]);
    let by_name = wine(&root, &["game", "uninstall", "--game", &g, "pl000.pac"]);
    let whole = wine(&root, &["game", "uninstall", "--game", &g]);
    let _ = holder.kill();
    let _ = holder.wait();
    for (what, out) in [("install", &install), ("uninstall by name", &by_name)] {
        assert_eq!(out.status.code(), Some(2), "{what}: {}", text(&out.stdout));
        assert_eq!(
            text(&out.stderr),
            format!("rigtrip: error: cannot replace {volume}: another program has it open (the game, a viewer, Blender); close it and run again. Nothing was written\n"),
            "{what}"
        );
    }
    assert_eq!(whole.status.code(), Some(2));
    assert_eq!(
        text(&whole.stderr),
        format!("rigtrip: error: cannot remove {volume}: another program has it open (the game?); close it and run again. Nothing was removed\n")
    );
    assert_eq!(
        snapshot(&game),
        before,
        "a volume changed, or a temporary file was left"
    );
    let _ = std::fs::remove_dir_all(&root);
}
