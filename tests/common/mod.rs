//! Helpers shared by integration tests: the team's real client tools.

// Each test crate uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A tool under `../shared/tools` (beside the repository, as in CI).
pub fn tool(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/tools")
        .join(name)
}

/// Runs the Khronos validator once over `files` and asserts 0 errors and 0 warnings for every
/// one of them (it installs itself from npm on first use).
pub fn validate(files: &[PathBuf]) {
    let out = Command::new(tool("validate-gltf"))
        .args(files)
        .output()
        .unwrap();
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
