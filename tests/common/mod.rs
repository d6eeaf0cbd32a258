//! Helpers shared by integration tests: the real clients (the Khronos glTF-Validator, Blender),
//! run through the scripts in the repository's `tools/`, which install them on first use.

// Each test crate uses its own subset.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Exit status of a `tools/` script when something it needs is missing (stderr says what).
const TOOL_MISSING: i32 = 3;

/// A script in the repository's `tools/`.
pub fn tool(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools")
        .join(name)
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
