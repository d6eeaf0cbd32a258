//! `import` runs `rigtrip check` ([`super::check`]) on what it is about to write: the output,
//! named as it will be, and each motion file of `--motions-out` against the output's node
//! count. An unedited glTF gives the file back as it was read, findings and all. An edited one
//! is refused when the edit leaves something that would stop the game; what the original file
//! (`--original`, or the `--onto` template) already had, in the same place and field, is not
//! the edit's doing: it is reported, and does not refuse the edit.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::check::{self, CheckOptions, FileCheck, Status};
use crate::gltf::import::{ImportReport, MeshStatus};
use crate::native::finding::{Finding, Severity};

/// What the check found in the files an import is about to write.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportCheck {
    /// One entry per file: the output, then the motion files.
    pub files: Vec<FileCheck>,
    /// Whether the glTF edited the file ([`import_edited`]).
    pub edited: bool,
    /// The original the output was compared with, when one was given.
    pub original: Option<PathBuf>,
    /// (place, field) of every finding in the original that would stop the game.
    known: HashSet<(String, String)>,
}

/// Whether an import changed anything of the file it rebuilds (a joint, a mesh, a texture, an
/// archive's other model).
pub fn import_edited(r: &ImportReport) -> bool {
    let joints = r.skeletons.iter().any(|s| {
        s.joints_before != s.joints_after
            || s.unchanged != s.joints_after
            || !s.removed.is_empty()
            || !s.rewritten.is_empty()
    });
    let meshes = matches!(r.meshes.status, MeshStatus::Written | MeshStatus::Replaced);
    joints || meshes || !r.textures.is_empty() || r.models.iter().any(|m| import_edited(&m.report))
}

/// Checks what an import is about to write: `out` with `bytes`, each motion file, and (the
/// findings to leave to the original) `original`'s bytes judged under the output's name.
pub fn import_check(
    out: &Path,
    bytes: &[u8],
    motions: &[(PathBuf, &[u8])],
    report: &ImportReport,
    original: Option<(&Path, &[u8])>,
) -> ImportCheck {
    let opts = CheckOptions {
        model_nodes: check::model_nodes_of(bytes),
        textures: None,
    };
    let mut files = vec![check::check_in_memory(out, bytes, &CheckOptions::default())];
    files.extend(
        motions
            .iter()
            .map(|(p, b)| check::check_in_memory(p, b, &opts)),
    );
    let known = original.map_or_else(HashSet::new, |(_, b)| {
        check::check_in_memory(out, b, &CheckOptions::default())
            .findings
            .into_iter()
            .filter(|f| f.severity == Severity::Stops)
            .map(|f| (f.place, f.field))
            .collect()
    });
    ImportCheck {
        files,
        edited: import_edited(report),
        original: original.map(|(p, _)| p.to_path_buf()),
        known,
    }
}

/// The file name `f` will have in place.
fn shown(f: &FileCheck) -> String {
    f.path
        .file_name()
        .map(|n| super::output::unstaged_name(&n.to_string_lossy()).to_string())
        .unwrap_or_default()
}

impl ImportCheck {
    /// Whether the finding `x` of file `k` would stop the game and the original did not have
    /// it (the output only: motion files have no original to compare with).
    fn is_new(&self, k: usize, x: &Finding) -> bool {
        x.severity == Severity::Stops
            && !(k == 0 && self.known.contains(&(x.place.clone(), x.field.clone())))
    }

    /// The findings that refuse an edit: each would stop the game, and the original (if any)
    /// had none in its place and field.
    pub fn new_stops(&self) -> Vec<(&FileCheck, &Finding)> {
        let mut out = Vec::new();
        for (k, f) in self.files.iter().enumerate() {
            out.extend(
                f.findings
                    .iter()
                    .filter(|x| self.is_new(k, x))
                    .map(|x| (f, x)),
            );
        }
        out
    }

    /// Why the files are not written (the glTF edited them, and the edit leaves something
    /// that would stop the game); `None` when they are written (`ignore`: --ignore-check).
    pub fn refusal(&self, ignore: bool) -> Option<String> {
        if ignore || !self.edited {
            return None;
        }
        let stops = self.new_stops();
        let (f, first) = stops.first()?;
        let place = match first.place.as_str() {
            "" => String::new(),
            p => format!("{p}: "),
        };
        let more = match stops.len() {
            1 => String::new(),
            n => format!(" (and {} more: see `rigtrip check`)", n - 1),
        };
        Some(format!(
            "not written: the game could not load the edited {}: {} finding(s) of rigtrip check \
             would stop it, first {place}{}: {}{more}; --ignore-check writes it anyway",
            shown(f),
            stops.len(),
            first.field,
            first.problem,
        ))
    }

    /// The report's lines: per file what would stop the game (and why it was written all the
    /// same), then its findings.
    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        for (k, f) in self.files.iter().enumerate() {
            let new = f.findings.iter().any(|x| self.is_new(k, x));
            let why = match (f.status, self.edited, &self.original) {
                (Status::Stops, false, _) => {
                    " (written as it was read: nothing was edited)".to_string()
                }
                (Status::Stops, true, Some(o)) if !new => format!(
                    " (as in {}: the edit added none)",
                    o.file_name().map_or(o.display().to_string(), |n| n
                        .to_string_lossy()
                        .into_owned())
                ),
                _ => String::new(),
            };
            let said = match check::counts(&f.findings).as_str() {
                "" if matches!(f.format, "hie" | "efm" | "-") => {
                    "no loader model is known for it".to_string()
                }
                "" => "nothing would stop the game".to_string(),
                c => c.to_string(),
            };
            let _ = writeln!(s, "check: {}: {said}{why}", f.path.display());
            for x in &f.findings {
                let _ = writeln!(s, "  {}", check::finding_line(x));
            }
        }
        s
    }
}
