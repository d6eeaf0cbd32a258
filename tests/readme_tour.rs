//! The README's tour shows real output: every `$ rigtrip ...` block of "## A tour" (and of "##
//! Motions that do not fit their model", on the files it says it made) is run, in
//! order, in a scratch folder holding the samples, and its output must match what the README
//! shows (a line `…` stands for any lines, a `…` inside a line for any text there; a command
//! shown without output must succeed; one commented `# exit N` must exit N).
//! The steps that need Blender's edits (`import db22_moved.glb`, `import humanoid_edited.glb` and
//! the `verify` of its output, `import humanoid_sword.glb`, `import humanoid_keyed.glb`,
//! `import humanoid_new.glb`) are left out here: their inputs are made by Blender
//! (`tools/blender-roundtrip.py`), so they cannot be made without it (they are run through
//! Blender by `tests/meshback.rs`, `tests/motion_gltf.rs` and `tests/new_motions.rs`). So is the refusal of `import RiggedFigure.gltf --onto` (exit 2, its
//! message on stderr), which `tests/meshback.rs` and `tests/cli_json.rs` check.

mod common;

use std::path::Path;

/// A command of the README: the line after `rigtrip`, the lines shown for it, the exit code
/// it must end with (0 unless commented `# exit N`).
type Block = (String, Vec<String>, i32);

/// The commands of the tour.
fn tour() -> Vec<Block> {
    section("## A tour")
}

/// The commands of the section headed `heading`.
fn section(heading: &str) -> Vec<Block> {
    let readme = include_str!("../README.md");
    let start = readme
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("a section {heading}"));
    let rest = &readme[start + 1..];
    let end = rest[1..].find("\n## ").map_or(rest.len(), |e| e + 1);
    let mut blocks: Vec<Block> = Vec::new();
    let mut open = false;
    for line in rest[..end].lines() {
        if let Some(cmd) = line.strip_prefix("    $ rigtrip ") {
            let (cmd, comment) = cmd.split_once("  #").unwrap_or((cmd, ""));
            let exit = comment
                .trim()
                .strip_prefix("exit ")
                .and_then(|c| c.split(':').next())
                .map_or(0, |c| c.trim().parse().unwrap());
            blocks.push((cmd.trim().to_string(), Vec::new(), exit));
            open = true;
        } else if line.is_empty() && open {
            // A blank line inside the output (the text after a block closes it).
            if let Some(b) = blocks.last_mut() {
                b.1.push(String::new());
            }
        } else if line.starts_with("    $ ") || !line.starts_with("    ") {
            open = false;
        } else if open {
            if let Some(b) = blocks.last_mut() {
                b.1.push(line[4..].to_string());
            }
        }
    }
    for b in &mut blocks {
        while b.1.last().is_some_and(|l| l.is_empty()) {
            b.1.pop();
        }
    }
    blocks
}

/// A line with `…` in it stands for its text before and after, anything between.
fn line_matches(want: &str, got: &str) -> bool {
    match want.split_once('…') {
        Some((before, after)) => {
            got.len() >= before.len() + after.len()
                && got.starts_with(before)
                && got.ends_with(after)
        }
        None => want == got,
    }
}

/// Whether `got` is what `want` shows (a `…` line skips any lines, up to where the rest of
/// `want`, itself possibly with `…` lines, matches the rest of `got` to its end).
fn matches(want: &[String], got: &[&str]) -> bool {
    match want.iter().position(|l| l == "…") {
        None => want.len() == got.len() && want.iter().zip(got).all(|(w, g)| line_matches(w, g)),
        Some(k) => {
            let (head, tail) = (&want[..k], &want[k + 1..]);
            got.len() >= head.len()
                && head.iter().zip(got).all(|(w, g)| line_matches(w, g))
                && (head.len()..=got.len()).any(|i| matches(tail, &got[i..]))
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn readme_tour_output_is_real() {
    let dir = common::scratch("tour");
    copy_dir(&common::repo().join("samples"), &dir.join("samples"));
    // The animation onto the sample: CesiumMan and its joint map, where the README says.
    let cesium = "tests/data/sample-assets/vulkan-assets";
    std::fs::create_dir_all(dir.join(cesium)).unwrap();
    for f in [
        "tests/data/cesium_man.map.json",
        "tests/data/sample-assets/vulkan-assets/CesiumMan.gltf",
    ] {
        std::fs::copy(common::repo().join(f), dir.join(f)).unwrap();
    }
    let blocks = tour();
    assert!(blocks.len() >= 8, "{blocks:?}");
    let blocks: Vec<_> = blocks
        .into_iter()
        .filter(|(cmd, _, _)| {
            // These need Blender's edit: see the module comment.
            !(cmd.starts_with("import db22_moved.glb")
                || cmd.starts_with("import humanoid_edited.glb")
                || cmd.starts_with("verify humanoid_edited.mod")
                || cmd.starts_with("import humanoid_keyed.glb")
                || cmd.starts_with("import humanoid_new.glb")
                || cmd.starts_with("import humanoid_sword.glb")
                // A refusal (exit 2, on stderr): see the module comment.
                || cmd.starts_with("import RiggedFigure.gltf"))
        })
        .collect();
    run_blocks(&dir, &blocks);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The section on motions that do not fit, run on the files it says it made: the archive of
/// `synth::motion::pac_with_foreign_member` (seed 7, a member of 31 nodes) and a motion for the
/// humanoid at half its size (seed 9), in `motions/`.
#[test]
fn readme_motions_that_do_not_fit_output_is_real() {
    use rigtrip::synth::motion;
    let dir = common::scratch("fit");
    copy_dir(&common::repo().join("samples"), &dir.join("samples"));
    let rig = rigtrip::ops::load(None, &rigtrip::synth::dmc3::sample_mod()).unwrap();
    let rest = motion::model_rest(&rig);
    std::fs::create_dir(dir.join("motions")).unwrap();
    let pac = motion::pac_with_foreign_member(7, &rest, 31);
    std::fs::write(dir.join("motions/pl000_00_5.pac"), &pac).unwrap();
    let boss = motion::motion_for_model(9, &motion::scaled_rest(&rest, 0.5));
    std::fs::write(dir.join("motions/boss.mot"), boss.write().unwrap()).unwrap();
    let blocks = section("## Motions that do not fit their model");
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    run_blocks(&dir, &blocks);
    assert_eq!(std::fs::read(dir.join("back/pl000_00_5.pac")).unwrap(), pac);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs each block's command in `dir` and fails listing every one whose output is not what the
/// README shows.
fn run_blocks(dir: &Path, blocks: &[Block]) {
    let mut wrong = Vec::new();
    for (cmd, want, exit) in blocks {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let o = common::run_in(dir, &args);
        let out = common::text(&o.stdout);
        let got: Vec<&str> = out.lines().collect();
        // A command shown without output is checked for its exit code only.
        if o.status.code() != Some(*exit) || (!want.is_empty() && !matches(want, &got)) {
            wrong.push(format!(
                "$ rigtrip {cmd}\nREADME:\n{}\nreal (exit {:?}):\n{out}{}",
                want.join("\n"),
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
