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
        /// The native -> glTF -> native leg.
        gltf: GltfLeg,
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

/// What happened on the native -> glTF -> native leg of a file whose native leg was identical.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GltfLeg {
    /// The bytes rebuilt from the in-memory GLB equal the input.
    Identical,
    /// Not run: `--legs native`.
    NotRun,
    /// The rig has no glTF form (a skeleton fails the gate, a vertex names a joint the skeleton
    /// lacks, ...): the native leg alone counts.
    Skipped(String),
}

/// Which legs `verify` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legs {
    /// native -> IR -> native only.
    Native,
    /// Also native -> glTF (the real GLB serializer, in memory) -> native.
    Both,
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

/// Checks one in-memory file on both legs: read, lift, lower, write, compare; then export to a
/// GLB in memory, import it, compare.
pub fn verify_bytes(format: Option<Format>, data: &[u8]) -> Verdict {
    verify_bytes_legs(format, data, Legs::Both)
}

/// Checks one in-memory file on the given legs.
pub fn verify_bytes_legs(format: Option<Format>, data: &[u8], legs: Legs) -> Verdict {
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
        Ok(bytes) if bytes == data => {}
        Ok(bytes) => {
            return Verdict::Differ {
                kind,
                message: describe_difference(data, &bytes),
            }
        }
        Err(message) => return Verdict::Differ { kind, message },
    }
    let gltf = match legs {
        Legs::Native => GltfLeg::NotRun,
        Legs::Both => match gltf_leg(&rig, data) {
            Ok(leg) => leg,
            Err(message) => {
                return Verdict::Differ {
                    kind,
                    message: format!("glTF leg: {message}"),
                }
            }
        },
    };
    Verdict::Identical { kind, gate, gltf }
}

/// native -> glTF -> native through the real GLB serializer and importer, with default options.
fn gltf_leg(rig: &rig::Rig, data: &[u8]) -> Result<GltfLeg, String> {
    use crate::gltf::{export, import, to_glb, ExportError, ExportOptions};
    let exported = match export(rig, &ExportOptions::default()) {
        Ok(e) => e,
        Err(ExportError::Gate { skeleton, failure }) => {
            return Ok(GltfLeg::Skipped(format!("{skeleton}: {failure}")))
        }
        Err(e) => return Ok(GltfLeg::Skipped(e.to_string())),
    };
    let glb = to_glb(&exported);
    let imported = import::import_slice(&glb, None, &import::ImportOptions::default())
        .map_err(|e| format!("import failed: {e}"))?;
    if imported.bytes == data {
        Ok(GltfLeg::Identical)
    } else {
        Err(describe_difference(data, &imported.bytes))
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
pub fn verify_candidate(format: Option<Format>, c: &Candidate, legs: Legs) -> FileResult {
    let verdict = match std::fs::read(&c.path) {
        Ok(data)
            if format.is_none()
                && !c.named
                && crate::native::detect(&data).is_none()
                && !named_like_rig(&c.path) =>
        {
            Verdict::Skipped
        }
        Ok(data) => verify_bytes_legs(format, &data, legs),
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
