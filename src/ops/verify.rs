//! `verify`: does every file come back byte for byte through native → IR → native?

use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::native::{Format, NativeFile};
use crate::rig;

/// The verdict on one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Verdict {
    /// Rebuilt bytes equal the input.
    Identical {
        /// `hie`, `mod`, `scm` or `block`.
        kind: &'static str,
        /// Skeletons that fail the spatial gate (still round-tripped), one message each.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        gate: Vec<String>,
    },
    /// The reader accepted the file but the rebuilt bytes differ: a rigtrip bug.
    Differ {
        /// `hie`, `mod`, `scm` or `block`.
        kind: &'static str,
        /// What went wrong, with the first differing offset.
        message: String,
    },
    /// The file was not accepted (or could not be read); nothing was compared.
    Rejected {
        /// Why, in one line.
        message: String,
    },
    /// Found while walking a directory, not named like a rig file and not recognised by its
    /// content: not a rig file (a README, a texture). Named files are never skipped.
    Skipped,
}

/// One file's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileResult {
    /// The path as given or found.
    pub path: PathBuf,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// Counts over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Files that came back identical.
    pub identical: usize,
    /// Files that differ.
    pub differ: usize,
    /// Files that were rejected.
    pub rejected: usize,
    /// Files found in directories that are not rig files.
    pub skipped: usize,
}

impl Summary {
    /// Adds one verdict.
    pub fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Identical { .. } => self.identical += 1,
            Verdict::Differ { .. } => self.differ += 1,
            Verdict::Rejected { .. } => self.rejected += 1,
            Verdict::Skipped => self.skipped += 1,
        }
    }

    /// 0 all identical, 1 some differ, 2 some rejected (rejection wins: the input needs a look).
    pub fn exit_code(&self) -> i32 {
        if self.rejected > 0 {
            2
        } else if self.differ > 0 {
            1
        } else {
            0
        }
    }
}

/// Checks one in-memory file: read, lift, lower, write, compare.
pub fn verify_bytes(format: Option<Format>, data: &[u8]) -> Verdict {
    let file = match NativeFile::read(format, data) {
        Ok(f) => f,
        Err(e) => {
            return Verdict::Rejected {
                message: e.to_string(),
            }
        }
    };
    let kind = file.kind();
    let rig = rig::lift(file);
    let gate = rig
        .skeletons
        .iter()
        .filter_map(|s| s.gate.as_ref().err().map(|g| format!("{}: {g}", s.name)))
        .collect();
    let written = rig::lower(&rig)
        .map_err(|e| format!("lower failed: {e}"))
        .and_then(|f| f.write().map_err(|e| format!("write failed: {e}")));
    match written {
        Ok(bytes) if bytes == data => Verdict::Identical { kind, gate },
        Ok(bytes) => Verdict::Differ {
            kind,
            message: describe_difference(data, &bytes),
        },
        Err(message) => Verdict::Differ { kind, message },
    }
}

/// Says where two byte strings first differ.
pub fn describe_difference(original: &[u8], rebuilt: &[u8]) -> String {
    let first = original
        .iter()
        .zip(rebuilt)
        .position(|(a, b)| a != b)
        .unwrap_or(original.len().min(rebuilt.len()));
    format!(
        "first difference at {first:#x} (original {} bytes, rebuilt {} bytes)",
        original.len(),
        rebuilt.len()
    )
}

/// A file to check, and whether the user named it (rather than it being found in a directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Where it is.
    pub path: PathBuf,
    /// Named on the command line: never skipped.
    pub named: bool,
}

/// Whether a file name says "rig file" even when its content is not recognised: such files are
/// rejected rather than skipped (a truncated `DB22HIE.BIN` must not pass unnoticed).
pub fn named_like_rig(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".mod") || name.ends_with(".scm") || name.ends_with("hie.bin")
}

/// Checks one file on disk. Without a forced format, a file found in a directory that is
/// neither recognised by content nor named like a rig file is skipped.
pub fn verify_candidate(format: Option<Format>, c: &Candidate) -> FileResult {
    let verdict = match std::fs::read(&c.path) {
        Ok(data)
            if format.is_none()
                && !c.named
                && crate::native::detect(&data).is_none()
                && !named_like_rig(&c.path) =>
        {
            Verdict::Skipped
        }
        Ok(data) => verify_bytes(format, &data),
        Err(e) => Verdict::Rejected {
            message: format!("cannot read: {e}"),
        },
    };
    FileResult {
        path: c.path.clone(),
        verdict,
    }
}

/// Expands the given paths: files as they are, directories recursed in name order.
pub fn collect_files(paths: &[PathBuf]) -> std::io::Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(Candidate {
                path: p.clone(),
                named: true,
            });
        }
    }
    Ok(out)
}

fn walk(p: &Path, out: &mut Vec<Candidate>) -> std::io::Result<()> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            walk(&e, out)?;
        }
    } else {
        out.push(Candidate {
            path: p.to_path_buf(),
            named: false,
        });
    }
    Ok(())
}
