//! The README's tour and the user's guide (`guide/`, an mdBook) show real commands with their
//! real output. Every line `    $ COMMAND` of README.md and of every chapter of
//! `guide/SUMMARY.md` is run, in that order (README first, then the chapters as the book lists
//! them, as a reader following the book would), in one scratch folder holding the samples, by
//! `sh` with this build's `rigtrip` first on `PATH`; what it prints must be what the page shows
//! (a line `…` stands for any lines, a `…` inside a line for any text there; a command shown
//! without output must succeed; one commented `# exit N` must exit N, and then its stderr
//! counts as output too, after its stdout).
//!
//! A block that cannot run here (it needs Blender, or the game's folder) follows a line
//! `<!-- not run: WHY -->` in the page: its commands are counted and reported with the reason,
//! never skipped in silence; those whose WHY starts `needs Blender` are run, through
//! `tools/blender-python`, by the ignored test (`--include-ignored`, as `.ci/run` does). A line `<!-- setup: NAME -->` makes files the following commands
//! need (see [`setup`]). Commands in fenced code blocks are refused: they would not be run.
//!
//! The links: every relative link and image of README.md and of every page under `guide/`
//! resolves to a file (a page's inside `guide/`, since the book holds only that folder), and
//! every `#anchor` to a heading of its page; every `{{#include FILE:ANCHOR}}` to a file and
//! its anchor. And the add-on's panel pictures are what `tools/panel-svg.py` draws today.

mod common;

use std::path::{Path, PathBuf};

/// A command of a page: where it is, the command line, the lines shown for it, the exit code
/// it must end with (0 unless commented `# exit N`), and why it is not run here (its block's
/// `<!-- not run: WHY -->`), if it is not.
struct Cmd {
    at: String,
    line: String,
    want: Vec<String>,
    exit: i32,
    not_run: Option<String>,
}

/// What a page asks of the test, in its order.
enum Step {
    Run(Cmd),
    Setup { at: String, name: String },
}

/// The pages whose commands run, in order: README.md, then the chapters of guide/SUMMARY.md.
fn pages() -> Vec<PathBuf> {
    let repo = common::repo();
    let summary = std::fs::read_to_string(repo.join("guide/SUMMARY.md")).unwrap();
    let mut pages = vec![repo.join("README.md")];
    for (target, _) in links(&summary) {
        pages.push(repo.join("guide").join(target));
    }
    pages
}

/// The text of `<!-- KEY: VALUE -->` when `line` is such a marker.
fn marker<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    inner.strip_prefix(key)?.strip_prefix(':').map(str::trim)
}

/// The exit code a command line's comment `# exit N[: why]` asks for (0 without one), and the
/// command without its comment.
fn split_exit(line: &str) -> (String, i32) {
    let (cmd, comment) = line.split_once("  #").unwrap_or((line, ""));
    let exit = comment
        .trim()
        .strip_prefix("exit ")
        .and_then(|c| c.split(':').next())
        .map_or(0, |c| c.trim().parse().expect("# exit N"));
    (cmd.trim().to_string(), exit)
}

/// The steps of the page `name` with text `md`.
fn steps(name: &str, md: &str) -> Vec<Step> {
    let lines: Vec<&str> = md.lines().collect();
    let mut steps = Vec::new();
    let (mut not_run, mut fenced, mut open) = (None::<String>, false, false);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = format!("{name}:{}", i + 1);
        i += 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        assert!(
            !(fenced && line.trim_start().starts_with("$ ")),
            "{at}: a command in a fenced block would not be run: indent it by four spaces"
        );
        if let Some(why) = marker(line, "not run") {
            not_run = Some(why.to_string());
        } else if let Some(name) = marker(line, "setup") {
            let name = name.split_whitespace().next().unwrap_or("").to_string();
            steps.push(Step::Setup { at, name });
        } else if let Some(cmd) = line.strip_prefix("    $ ") {
            let mut cmd = cmd.to_string();
            while cmd.ends_with('\\') && i < lines.len() {
                cmd.pop();
                cmd.push(' ');
                cmd.push_str(lines[i].trim());
                i += 1;
            }
            let (line, exit) = split_exit(&cmd);
            steps.push(Step::Run(Cmd {
                at,
                line,
                want: Vec::new(),
                exit,
                not_run: not_run.clone(),
            }));
            open = true;
        } else if line.is_empty() {
            // A blank line inside the output (the text after a block closes it).
            if let (true, Some(Step::Run(c))) = (open, steps.last_mut()) {
                c.want.push(String::new());
            }
        } else if let Some(out) = line.strip_prefix("    ").filter(|_| open) {
            if let Some(Step::Run(c)) = steps.last_mut() {
                c.want.push(out.to_string());
            }
        } else {
            // Text: it closes the block, and a not-run marker ends with its block.
            if open {
                not_run = None;
            }
            open = false;
        }
    }
    for s in &mut steps {
        if let Step::Run(c) = s {
            while c.want.last().is_some_and(|l| l.is_empty()) {
                c.want.pop();
            }
        }
    }
    steps
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

/// The scratch folder `name` the pages' commands start in: the samples, CesiumMan and its joint
/// map where the guide says, Khronos' RiggedFigure beside them.
fn start_folder(name: &str) -> PathBuf {
    let dir = common::scratch(name);
    let repo = common::repo();
    copy_dir(&repo.join("samples"), &dir.join("samples"));
    std::fs::create_dir_all(dir.join("tests/data/sample-assets/vulkan-assets")).unwrap();
    for f in [
        "tests/data/cesium_man.map.json",
        "tests/data/sample-assets/vulkan-assets/CesiumMan.gltf",
    ] {
        std::fs::copy(repo.join(f), dir.join(f)).unwrap();
    }
    let figure = "tests/data/sample-assets/RiggedFigure.gltf";
    std::fs::copy(repo.join(figure), dir.join("RiggedFigure.gltf")).unwrap();
    dir
}

/// Makes the files a `<!-- setup: NAME -->` promises. `misfit-motions`: in `misfit/`, the
/// archive of `synth::motion::pac_with_foreign_member` (seed 7, a member of 31 nodes) and a
/// motion for the humanoid at half its size (seed 9).
fn setup(dir: &Path, name: &str) -> Result<(), String> {
    use rigtrip::synth::motion;
    match name {
        "misfit-motions" => {
            let rig = rigtrip::ops::load(None, &rigtrip::synth::dmc3::sample_mod()).unwrap();
            let rest = motion::model_rest(&rig);
            std::fs::create_dir_all(dir.join("misfit")).unwrap();
            let pac = motion::pac_with_foreign_member(7, &rest, 31);
            std::fs::write(dir.join("misfit/pl000_00_5.pac"), &pac).unwrap();
            let boss = motion::motion_for_model(9, &motion::scaled_rest(&rest, 0.5));
            std::fs::write(dir.join("misfit/boss.mot"), boss.write().unwrap()).unwrap();
            Ok(())
        }
        _ => Err(format!("no setup named {name:?}")),
    }
}

/// Runs `cmd` by `sh` in `dir`, this build's `rigtrip` first on `PATH`: what it printed (its
/// stderr too when it must fail), or what is wrong.
fn run(dir: &Path, cmd: &Cmd) -> Result<(), String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_rigtrip")).parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let o = std::process::Command::new("sh")
        .args(["-c", &cmd.line])
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .output()
        .unwrap();
    let mut out = common::text(&o.stdout);
    let err = common::text(&o.stderr);
    if cmd.exit != 0 {
        out.push_str(&err);
    }
    let got: Vec<&str> = out.lines().collect();
    if o.status.code() == Some(cmd.exit) && (cmd.want.is_empty() || matches(&cmd.want, &got)) {
        return Ok(());
    }
    Err(format!(
        "{}: $ {}\nthe page shows:\n{}\nreal (exit {:?}):\n{out}{}",
        cmd.at,
        cmd.line,
        cmd.want.join("\n"),
        o.status.code(),
        if cmd.exit == 0 { err } else { String::new() }
    ))
}

/// Runs the pages' commands, those marked not run too when `blender` is set and they need
/// Blender: (commands run, what went wrong, what was not run and why).
fn walk(blender: bool) -> (usize, Vec<String>, Vec<String>) {
    let dir = start_folder(if blender { "guide_blender" } else { "guide" });
    let repo = common::repo();
    if blender {
        // tools/blender-python and tools/blender-roundtrip.py, where the pages call them.
        std::os::unix::fs::symlink(repo.join("tools"), dir.join("tools")).unwrap();
    }
    let (mut ran, mut wrong, mut not_run) = (0, Vec::new(), Vec::new());
    for page in pages() {
        let name = page.strip_prefix(repo).unwrap().display().to_string();
        let md = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{name}: {e}"));
        for step in steps(&name, &md) {
            match step {
                Step::Run(cmd) => match &cmd.not_run {
                    Some(why) if !(blender && why.starts_with("needs Blender")) => {
                        not_run.push(format!("{}: $ {}  ({why})", cmd.at, cmd.line))
                    }
                    _ => {
                        ran += 1;
                        if let Err(e) = run(&dir, &cmd) {
                            wrong.push(e);
                        }
                    }
                },
                Step::Setup { at, name } => {
                    if let Err(e) = setup(&dir, &name) {
                        wrong.push(format!("{at}: {e}"));
                    }
                }
            }
        }
    }
    if wrong.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    (ran, wrong, not_run)
}

/// What [`walk`] found, for people.
fn report(ran: usize, not_run: &[String]) -> String {
    format!(
        "{ran} command(s) run, {} not run (marked in the page):\n  {}",
        not_run.len(),
        not_run.join("\n  ")
    )
}

#[test]
fn readme_and_guide_commands_show_real_output() {
    let (ran, wrong, not_run) = walk(false);
    let report = report(ran, &not_run);
    println!("{report}");
    assert!(wrong.is_empty(), "{}\n\n{report}", wrong.join("\n\n"));
    // The pages run what they show: a page marked not run wholesale would show here.
    assert!(ran >= 30, "{report}");
    assert!(
        not_run.len() <= 20,
        "keep the blocks that do not run few: {report}"
    );
}

/// The same walk with the blocks that need Blender run too, through `tools/blender-python`: what
/// the pages show for Blender's edits is what they give today.
#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run"]
fn readme_and_guide_blender_blocks_show_real_output() {
    let (ran, wrong, not_run) = walk(true);
    let report = report(ran, &not_run);
    println!("{report}");
    assert!(wrong.is_empty(), "{}\n\n{report}", wrong.join("\n\n"));
    assert!(
        not_run.iter().all(|n| !n.contains("(needs Blender")),
        "{report}"
    );
}

/// The walker reads what the pages mean: outputs with blank lines and `…`, exit comments,
/// continued lines, not-run blocks ending with their block, fenced commands refused.
#[test]
fn the_walker_reads_blocks_as_the_pages_mean_them() {
    let md = "text\n\n    $ rigtrip a  # exit 1: why\n    out 1\n\n    out 2\n\nmore\n\n\
              <!-- not run: needs Blender -->\n\n    $ tools/x \\\n        --y\n    $ rigtrip b\n    shown\n\n\
              after\n\n    $ rigtrip c\n";
    let s = steps("t.md", md);
    let [Step::Run(a), Step::Run(x), Step::Run(b), Step::Run(c)] = &s[..] else {
        panic!("{} steps", s.len());
    };
    assert_eq!(
        (a.line.as_str(), a.exit, &a.not_run),
        ("rigtrip a", 1, &None)
    );
    assert_eq!(a.want, ["out 1", "", "out 2"]);
    let blender = Some("needs Blender".to_string());
    assert_eq!((x.line.as_str(), &x.not_run), ("tools/x  --y", &blender));
    assert_eq!(
        (b.want.as_slice(), &b.not_run),
        (&["shown".to_string()][..], &blender)
    );
    assert_eq!(
        (c.line.as_str(), c.want.len(), &c.not_run),
        ("rigtrip c", 0, &None)
    );
    let fenced = std::panic::catch_unwind(|| steps("f.md", "```\n$ rigtrip x\n```\n"));
    assert!(fenced.is_err());
    assert!(matches(
        &["a…".into(), "…".into(), "z".into()],
        &["ab", "q", "z"]
    ));
    assert!(!matches(&["a".into()], &["a", "b"]));
}

/// The inline links and images of `md` outside code (`[text](target)`, `![alt](target)`):
/// each target with its line number.
fn links(md: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        // Code spans hold no links.
        let text: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = text.as_str();
        while let Some(k) = rest.find("](") {
            rest = &rest[k + 2..];
            if let Some(end) = rest.find(')') {
                out.push((rest[..end].trim().to_string(), n + 1));
                rest = &rest[end..];
            }
        }
    }
    out
}

/// A heading's anchor as mdBook (and GitHub) make it: lower case, letters, digits, `-` and
/// `_` kept, spaces to `-`, the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of the headings of the Markdown file at `path`.
fn anchors(path: &Path) -> Vec<String> {
    let md = std::fs::read_to_string(path).unwrap_or_default();
    md.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#').trim()))
        .collect()
}

/// Every Markdown file under `dir`.
fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(markdown_under(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// What is wrong with the link `target` of `page` (None when it resolves).
fn broken(repo: &Path, page: &Path, target: &str) -> Option<String> {
    let guide = repo.join("guide");
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
    let path = if file.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().unwrap().join(file)
    };
    let Ok(path) = path.canonicalize() else {
        return Some("no such file".into());
    };
    if page.starts_with(&guide) && !path.starts_with(guide.canonicalize().unwrap()) {
        return Some("outside guide/: the book does not hold it".into());
    }
    if !anchor.is_empty() && !anchors(&path).iter().any(|a| a == anchor) {
        return Some(format!("no heading #{anchor} in {}", path.display()));
    }
    None
}

#[test]
fn readme_and_guide_links_resolve() {
    let repo = common::repo();
    let mut pages = vec![repo.join("README.md")];
    pages.extend(markdown_under(&repo.join("guide")));
    let (mut checked, mut wrong) = (0, Vec::new());
    for page in &pages {
        let md = std::fs::read_to_string(page).unwrap();
        let name = page.strip_prefix(repo).unwrap().display().to_string();
        for (target, line) in links(&md) {
            checked += 1;
            if let Some(why) = broken(repo, page, &target) {
                wrong.push(format!("{name}:{line}: ({target}): {why}"));
            }
        }
        for (n, l) in md.lines().enumerate() {
            let Some(inc) = l
                .split("{{#include ")
                .nth(1)
                .and_then(|r| r.split("}}").next())
            else {
                continue;
            };
            checked += 1;
            let (file, anchor) = inc.trim().split_once(':').unwrap_or((inc.trim(), ""));
            let text = std::fs::read_to_string(page.parent().unwrap().join(file));
            let ok =
                text.is_ok_and(|t| anchor.is_empty() || t.contains(&format!("ANCHOR: {anchor}")));
            if !ok {
                wrong.push(format!("{name}:{}: include {inc} does not resolve", n + 1));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked >= 40, "{checked} links");
}

/// Every page under guide/ is a chapter of the book (so its commands run and mdbook builds it).
#[test]
fn every_guide_page_is_in_the_summary() {
    let repo = common::repo();
    let listed = pages();
    let missing: Vec<_> = markdown_under(&repo.join("guide"))
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md") && !listed.contains(p))
        .collect();
    assert!(missing.is_empty(), "not in guide/SUMMARY.md: {missing:?}");
}

/// The add-on's panel pictures are what `tools/panel-svg.py` draws from the add-on's source
/// today (run `tools/panel-svg.py` to draw them again).
#[test]
fn addon_panel_pictures_are_current() {
    let repo = common::repo();
    let dir = common::scratch("panels");
    let o = std::process::Command::new("python3")
        .arg(repo.join("tools/panel-svg.py"))
        .arg(&dir)
        .output()
        .expect("python3 (tools/panel-svg.py)");
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    let mut drawn = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let committed = repo.join("guide/images").join(&name);
        let want = std::fs::read(&committed).unwrap_or_default();
        assert!(
            std::fs::read(e.path()).unwrap() == want,
            "{} is not what tools/panel-svg.py draws: run it",
            committed.display()
        );
        drawn += 1;
    }
    assert!(drawn >= 4, "{drawn} panels");
    let _ = std::fs::remove_dir_all(&dir);
}
