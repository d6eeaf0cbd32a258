//! Helpers shared by integration tests: the repository and its samples, this build's binary,
//! temporary folders, small byte and GLB packers, and the real clients (the Khronos
//! glTF-Validator, Blender), run through the scripts in the repository's `tools/`, which install
//! them on first use.

// Each test crate uses its own subset.
#![allow(dead_code)]

pub mod game;
pub mod motplay;
pub mod pose;
pub mod shw;

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Exit status of a `tools/` script when something it needs is missing (stderr says what).
const TOOL_MISSING: i32 = 3;

/// The repository's root (where `cargo test` runs the tests).
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The bytes of the committed sample `samples/NAME`.
pub fn sample(name: &str) -> Vec<u8> {
    let path = repo().join("samples").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A script in the repository's `tools/`.
pub fn tool(name: &str) -> PathBuf {
    repo().join("tools").join(name)
}

/// The build's target folder (`target/`, or wherever `CARGO_TARGET_DIR` or a cargo config put
/// it): the folder above the profile folder that holds this build's `rigtrip`.
pub fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_rigtrip"));
    bin.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| repo().join("target"))
}

/// This build's `rigtrip` binary as a command to add arguments to, run in the repository's root
/// unless given another folder.
pub fn rigtrip() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rigtrip"));
    cmd.current_dir(repo());
    cmd
}

/// Runs `rigtrip ARGS` in the repository's root to its end: its output, whatever its exit.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    run_in(repo(), args)
}

/// Runs `rigtrip ARGS` in `dir` to its end: its output, whatever its exit.
pub fn run_in<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Output {
    rigtrip().args(args).current_dir(dir).output().unwrap()
}

/// Runs `cmd` to its end and returns its stdout; panics, showing the command, its stdout and
/// its stderr, unless it exits 0.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}): {}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A program's output as text, invalid UTF-8 replaced.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// This test binary's own folder, `rigtrip-tests/TEST-PID` under the system temp dir, made on
/// first use: the test binary's name keeps binaries apart, the process id keeps runs at the same
/// time (another checkout, another job) apart. It is left behind for a look after a failure,
/// until the same test binary runs again (see [`sweep_ended_runs`]).
fn temp_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let parent = std::env::temp_dir().join("rigtrip-tests");
        let prefix = format!("{}-", env!("CARGO_CRATE_NAME"));
        sweep_ended_runs(&parent, &prefix);
        let dir = parent.join(format!("{prefix}{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Removes the folders `PREFIX` + process id in `parent` that earlier runs of this test binary
/// left, once their process has ended, so that runs do not pile up in the temp dir. Whether a
/// process still runs is read from `/proc`; where there is none, nothing is removed.
fn sweep_ended_runs(parent: &Path, prefix: &str) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let ended =
            pid.parse::<u32>().is_ok_and(|p| p != std::process::id()) && !proc.join(pid).exists();
        if ended {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The path `name` (which may hold `/`) in this test binary's temp folder, for a file a test
/// writes; the folders above it are made, nothing is removed, so tests running in parallel give
/// distinct names.
pub fn tmp(name: &str) -> PathBuf {
    let path = temp_root().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    path
}

/// A fresh, empty folder `name` in this test binary's temp folder (what it held before is
/// removed); tests running in parallel give distinct names.
pub fn scratch(name: &str) -> PathBuf {
    let dir = temp_root().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The rig of a native file (`format` as `--format` gives it, `None` to detect it).
pub fn load(format: Option<rigtrip::native::Format>, data: &[u8]) -> rigtrip::rig::Rig {
    rigtrip::ops::load(format, data).unwrap()
}

/// Little-endian bytes of `v`, one after the other.
pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Little-endian bytes of `v`, one after the other.
pub fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `tools/NAME ARGS...` and returns its output; panics, saying what is missing and how to
/// get it, when the tool cannot start or reports a missing prerequisite.
pub fn run_tool<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(name: &str, args: I) -> Output {
    let path = tool(name);
    let out = Command::new(&path).args(args).output().unwrap_or_else(|e| {
        panic!(
            "cannot run {}: {e}; the tools in tools/ are bash scripts and need bash on PATH",
            path.display()
        )
    });
    if out.status.code() == Some(TOOL_MISSING) {
        panic!(
            "this test needs tools/{name}, which cannot run here:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Installs a tool once per test process (`tools/NAME --install`), so that parallel tests do not
/// all start the same download; panics with the tool's explanation when it cannot.
fn install_once(name: &str, done: &'static OnceLock<Result<(), String>>) {
    let result = done.get_or_init(|| {
        let out = Command::new(tool(name))
            .arg("--install")
            .output()
            .map_err(|e| format!("cannot run tools/{name}: {e} (it is a bash script)"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        }
    });
    if let Err(why) = result {
        panic!("this test needs tools/{name}, which cannot run here:\n{why}");
    }
}

/// The Khronos validator's summary output over `files` (`FILE errors=E warnings=W ...` lines).
pub fn validator(files: &[PathBuf]) -> Output {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    install_once("validate-gltf", &INSTALLED);
    run_tool("validate-gltf", files)
}

/// Runs the Khronos validator once over `files` and asserts 0 errors and 0 warnings for every
/// one of them.
pub fn validate(files: &[PathBuf]) {
    let out = validator(files);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.starts_with(' ')) {
        let Some((file, counts)) = line.rsplit_once(" errors=") else {
            continue;
        };
        seen += 1;
        assert!(
            counts.starts_with("0 warnings=0 "),
            "{file}: errors={counts}\n{text}"
        );
    }
    assert_eq!(
        seen,
        files.len(),
        "validator output:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
}

/// Runs Python with Blender's `bpy` (`tools/blender-python ARGS...`) and returns its output.
pub fn blender_python<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> Output {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    install_once("blender-python", &INSTALLED);
    run_tool("blender-python", args)
}

/// Takes `src` through Blender as a user does (`tools/blender-roundtrip.py SRC DST EDITS...`:
/// import, the edits, export) and asserts that it wrote `dst` (removed first).
pub fn blender_roundtrip(src: &Path, dst: &Path, edits: &[&str]) {
    let _ = std::fs::remove_file(dst);
    let script = tool("blender-roundtrip.py");
    let mut args = vec![script.as_os_str(), src.as_os_str(), dst.as_os_str()];
    args.extend(edits.iter().map(OsStr::new));
    let out = blender_python(args);
    assert!(
        out.status.success() && dst.exists(),
        "blender failed on {}: {}\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Byte range of each joint's whole native record, per skeleton: DMC3 transform records (0x20
/// bytes, indexed by node), HIE parts (0x28 bytes, per hierarchy).
pub fn joint_records(native: &rigtrip::native::NativeFile) -> Vec<Vec<std::ops::Range<usize>>> {
    use rigtrip::native::NativeFile;
    let rows = |base: usize, n: usize, size: usize| -> Vec<std::ops::Range<usize>> {
        (0..n)
            .map(|k| base + size * k..base + size * (k + 1))
            .collect()
    };
    match native {
        NativeFile::Dmc3(f) => {
            let b = f.block.as_ref().expect("a DMC3 file with a block");
            let base = (b.offset + u64::from(b.rels.transform)) as usize;
            vec![rows(base, b.transforms.len(), 0x20)]
        }
        NativeFile::Hie(f) => f
            .hierarchies
            .iter()
            .map(|h| rows(h.offset as usize + 0x34, h.parts.len(), 0x28))
            .collect(),
    }
}

/// Asserts that `before` and `after` (same length) differ only inside `ranges[j]` for the
/// `joints` given, and inside each of those.
pub fn assert_only_records_changed(
    name: &str,
    before: &[u8],
    after: &[u8],
    ranges: &[std::ops::Range<usize>],
    joints: &[usize],
) {
    assert_eq!(before.len(), after.len(), "{name}: the length changed");
    let diff: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    for i in &diff {
        assert!(
            joints.iter().any(|&j| ranges[j].contains(i)),
            "{name}: byte {i:#x} changed outside the records of joints {joints:?}"
        );
    }
    for &j in joints {
        assert!(
            diff.iter().any(|i| ranges[j].contains(i)),
            "{name}: joint {j}'s record did not change"
        );
    }
}

/// Asserts that the motion `after` differs from `before` only in rotation tracks of `node`, and
/// in at least one (masks and header equal); returns how many differ.
pub fn assert_only_rotations_of(node: usize, before: &[u8], after: &[u8]) -> usize {
    use rigtrip::native::dmc3::motion::{mask_targets, Mot};
    let (a, b) = (Mot::read(before).unwrap(), Mot::read(after).unwrap());
    assert_eq!(a.masks, b.masks);
    assert_eq!(a.header, b.header);
    let changed: Vec<(usize, &str)> = mask_targets(&a.masks)
        .zip(a.tracks.iter().zip(&b.tracks))
        .filter(|(_, (x, y))| x != y)
        .map(|((n, c), _)| (n, c.name()))
        .collect();
    assert!(!changed.is_empty(), "no track changed");
    assert!(
        changed
            .iter()
            .all(|(n, c)| *n == node && c.starts_with('r')),
        "{changed:?}"
    );
    changed.len()
}

/// Asserts that archive `after` is `before` with the member of `slots` deleted: those slots
/// empty, the slot table's length and the gap kept, every other member's bytes and slots kept.
pub fn assert_member_deleted(before: &[u8], after: &[u8], slots: &[usize]) {
    use rigtrip::native::dmc3::pac::Pac;
    let (p, after) = (Pac::read(before).unwrap(), Pac::read(after).unwrap());
    for &s in slots {
        assert_eq!(after.offsets[s], 0, "slot {s}");
    }
    assert_eq!(after.offsets.len(), p.offsets.len());
    assert_eq!(after.gap, p.gap);
    for m in p.members.iter().filter(|m| m.slots != slots) {
        let now = after.member_of(m.slots[0]).unwrap();
        assert_eq!(now.slots, m.slots);
        assert!(
            now.bytes().unwrap() == m.bytes().unwrap(),
            "slots {:?}",
            m.slots
        );
    }
}

/// Every member of archive `before` is in `after` at its slots with its bytes (the last one, no
/// longer last, padded with zeros to 16 bytes as archive members are).
pub fn assert_members_kept(before: &[u8], after: &[u8]) {
    let (b, a) = (
        rigtrip::native::dmc3::pac::Pac::read(before).unwrap(),
        rigtrip::native::dmc3::pac::Pac::read(after).unwrap(),
    );
    // The gap keeps its bytes; a grown table may pad it to keep the first member aligned.
    assert_eq!(&a.gap[..b.gap.len()], &b.gap[..]);
    assert!(a.gap[b.gap.len()..].iter().all(|&x| x == 0));
    for (k, m) in b.members.iter().enumerate() {
        let now = a.member_of(m.slots[0]).unwrap();
        assert_eq!(now.slots, m.slots);
        let (was, is) = (m.bytes().unwrap(), now.bytes().unwrap());
        if k + 1 == b.members.len() {
            assert_eq!(&is[..was.len()], &was[..], "{:?}", m.slots);
            assert!(is[was.len()..].iter().all(|&x| x == 0) && is.len() - was.len() < 16);
        } else {
            assert!(is == was, "{:?}", m.slots);
        }
    }
}

/// The bytes of the motion in slot `slot` of archive `bytes`.
pub fn member_motion(bytes: &[u8], slot: usize) -> Vec<u8> {
    use rigtrip::native::dmc3::pac::{MemberKind, Pac};
    let pac = Pac::read(bytes).unwrap();
    let member = pac.member_of(slot).unwrap();
    match &member.kind {
        MemberKind::Mot(_) => member.bytes().unwrap().to_vec(),
        k => panic!("slot {slot} holds a {} member", k.name()),
    }
}

/// The slots of the first motion member of archive `pac`, and the name `export` gives its
/// animation when the archive's file stem is `stem` (`pl000` slot 3 -> `pl000_03`).
pub fn first_motion(pac: &[u8], stem: &str) -> (Vec<usize>, String) {
    use rigtrip::native::dmc3::pac::{MemberKind, Pac};
    let p = Pac::read(pac).unwrap();
    let first = p
        .members
        .iter()
        .find(|m| matches!(m.kind, MemberKind::Mot(_)))
        .expect("the archive holds a motion");
    let name = format!("{stem}_{:02}", first.slots[0]);
    (first.slots.clone(), name)
}

/// `rig::lower_write_into` (what verify uses: no copy of the shell) gives exactly what
/// `rig::lower` then `write` give: the same bytes, or the same error.
pub fn assert_one_step_agrees(rig: &rigtrip::rig::Rig) {
    use rigtrip::rig::RebuildError;
    let two = rigtrip::rig::lower(rig)
        .map_err(RebuildError::Lower)
        .and_then(|f| f.write().map_err(RebuildError::Write));
    // Stale bytes in the buffer must not survive.
    let mut out = vec![0xA5; 7];
    let one = rigtrip::rig::lower_write_into(rig, &mut out).map(|()| out);
    assert_eq!(one, two);
}

/// Runs `cmd` (stdin empty) to its end and returns its output; panics when it has not ended
/// within `limit` (after killing it), so that a hang fails the test instead of stalling CI.
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} did not end within {limit:?}\n{}\n{}",
                String::from_utf8_lossy(&stdout.join().unwrap()),
                String::from_utf8_lossy(&stderr.join().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Every finding of a lint report as `severity code pointer`.
pub fn findings(r: &rigtrip::lint::LintReport) -> Vec<String> {
    r.findings
        .iter()
        .map(|f| format!("{} {} {}", f.severity.as_str(), f.code, f.pointer))
        .collect()
}

/// The GLB's JSON and where its BIN chunk's data starts.
pub fn glb_parts(glb: &[u8]) -> (serde_json::Value, usize) {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    (
        serde_json::from_slice(&glb[20..20 + len]).unwrap(),
        20 + len + 8,
    )
}

/// The GLB's JSON and its BIN chunk's data.
pub fn glb_split(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let (json, bin) = glb_parts(glb);
    let len = u32::from_le_bytes(glb[bin - 8..bin - 4].try_into().unwrap()) as usize;
    (json, glb[bin..bin + len].to_vec())
}

/// A GLB written here, not by the library: the header, the JSON chunk padded with spaces, the
/// BIN chunk padded with zeros.
pub fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&b);
    out
}

/// Every position of mesh 0 scaled by 0.9 in place (the body's first mesh edited).
pub fn shrink_first_mesh(glb: &mut [u8]) {
    let (v, bin) = glb_parts(glb);
    let acc = &v["accessors"][v["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize];
    let view = &v["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let start = bin
        + view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let stride = view["byteStride"].as_u64().unwrap_or(12) as usize;
    for i in 0..acc["count"].as_u64().unwrap() as usize {
        for c in 0..3 {
            let at = start + i * stride + c * 4;
            let f = f32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) * 0.9;
            glb[at..at + 4].copy_from_slice(&f.to_le_bytes());
        }
    }
}

/// The first image's `rgTX` chunk renamed `rgTx` in place (its CRC fixed): a PNG whose pixels
/// are unchanged but which no longer carries its native bytes, as an editor writes a repainted
/// image.
pub fn drop_first_texture_chunk(glb: &mut [u8]) {
    let at = glb
        .windows(4)
        .position(|w| w == b"rgTX")
        .expect("an image with the rgTX chunk");
    let len = u32::from_be_bytes(glb[at - 4..at].try_into().unwrap()) as usize;
    glb[at + 3] = b'x';
    let crc = crc32(&glb[at..at + 4 + len]);
    glb[at + 4 + len..at + 8 + len].copy_from_slice(&crc.to_be_bytes());
}

/// CRC-32 (ISO 3309, as PNG chunks use), bit by bit.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Holds the committed file at `path` (from the repository root) to `generated`, what the code
/// builds from its declarations; with `RIGTRIP_BLESS` set it writes the file first. `bless`
/// names the test that rewrites it (`NAME [FILTER]` of `cargo test --test`).
pub fn assert_generated(path: &str, generated: &str, bless: &str) {
    let full = repo().join(path);
    if std::env::var_os("RIGTRIP_BLESS").is_some() {
        std::fs::write(&full, generated).unwrap();
    }
    let committed = std::fs::read_to_string(&full).unwrap_or_default();
    assert!(
        committed == generated,
        "{path} is stale: run RIGTRIP_BLESS=1 cargo test --test {bless}"
    );
}

/// Closed and manifold, checked here: every undirected edge in exactly two triangles, once in
/// each direction, and Euler's V - E + F = 2 per piece.
pub fn closed_hull(v: usize, t: &[[u32; 3]]) -> bool {
    let mut directed = std::collections::BTreeMap::new();
    for x in t {
        for e in 0..3 {
            *directed.entry((x[e], x[(e + 1) % 3])).or_insert(0) += 1;
        }
    }
    let edges = directed.len() / 2;
    let paired = directed
        .iter()
        .all(|(&(a, b), &n)| n == 1 && directed.get(&(b, a)) == Some(&1));
    // Pieces by flood fill over shared vertices.
    let mut piece = vec![usize::MAX; v];
    let mut pieces = 0;
    for start in 0..v {
        if piece[start] != usize::MAX {
            continue;
        }
        let mut stack = vec![start];
        piece[start] = pieces;
        while let Some(p) = stack.pop() {
            for x in t.iter().filter(|x| x.contains(&(p as u32))) {
                for &q in x {
                    if piece[q as usize] == usize::MAX {
                        piece[q as usize] = pieces;
                        stack.push(q as usize);
                    }
                }
            }
        }
        pieces += 1;
    }
    paired && v as i64 - edges as i64 + t.len() as i64 == 2 * pieces as i64
}

/// The slots of the members whose bytes differ between two archives with the same slots.
pub fn changed_members(before: &[u8], after: &[u8]) -> Vec<Vec<usize>> {
    use rigtrip::native::dmc3::Pac;
    let (b, a) = (Pac::read(before).unwrap(), Pac::read(after).unwrap());
    assert_eq!(a.offsets.len(), b.offsets.len());
    b.members
        .iter()
        .filter(|m| a.member_of(m.slots[0]).unwrap().bytes().unwrap() != m.bytes().unwrap())
        .map(|m| m.slots.clone())
        .collect()
}

/// Runs the driver command `cmd` (with `args`) within `limit`: its RESULT object and the Info
/// lines; panics with its output when it failed.
pub fn driver_output(
    cmd: &mut std::process::Command,
    args: &[&str],
    limit: std::time::Duration,
) -> (serde_json::Value, Vec<String>) {
    let out = output_within(cmd, limit);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find_map(|l| l.strip_prefix("RESULT "));
    let info = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("Info: "))
        .map(str::to_string)
        .collect();
    match (out.status.success(), line) {
        (true, Some(line)) => (serde_json::from_str(line).unwrap(), info),
        _ => panic!(
            "driver {args:?} failed ({})\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}
