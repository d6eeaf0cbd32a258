//! `verify`: does every file come back byte for byte through native → IR → native?

use serde::Serialize;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::native::{Format, NativeFile};
use crate::rig;

pub use super::verdict::{
    describe_difference, Difference, GltfLeg, LayoutLeg, LegFailure, Legs, Verdict,
};

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
    /// On the layout leg (left out when it did not run): files in the retail layout, not in
    /// it, and without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutCounts>,
}

/// How many files the layout leg found in the retail layout, not in it, and without one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LayoutCounts {
    /// Files (archives: every MOD/SCM member) in the retail layout.
    pub retail: usize,
    /// Files not in it (an archive with any member not in it).
    pub not_retail: usize,
    /// Files with no MOD/SCM layout.
    pub not_applicable: usize,
}

impl Summary {
    /// Adds one verdict.
    pub fn add(&mut self, v: &Verdict) {
        if let Verdict::Identical { layout, .. } = v {
            self.add_layout(layout);
        }
        match v {
            Verdict::Identical { .. } => self.identical += 1,
            Verdict::Differ { .. } => self.differ += 1,
            Verdict::Rejected { .. } => self.rejected += 1,
            Verdict::Skipped => self.skipped += 1,
        }
    }

    /// Counts one file's layout leg, if it ran.
    fn add_layout(&mut self, leg: &LayoutLeg) {
        let c = match leg {
            LayoutLeg::NotRun => return,
            _ => self.layout.get_or_insert_with(LayoutCounts::default),
        };
        match leg {
            LayoutLeg::NotApplicable(_) => c.not_applicable += 1,
            l if l.is_retail() => c.retail += 1,
            _ => c.not_retail += 1,
        }
    }

    /// 0 all identical, 1 some differ, 2 some rejected (rejection wins: the input needs a look).
    /// The layout leg never changes it: a file not in the retail layout is information.
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

/// A model member of an archive, verified as a loose DMC3 model is.
fn dmc3_model(bytes: &[u8], legs: Legs) -> Verdict {
    verify_bytes_legs(Some(Format::Dmc3), bytes, legs)
}

/// Checks one in-memory file on the given legs.
pub fn verify_bytes_legs(format: Option<Format>, data: &[u8], legs: Legs) -> Verdict {
    // Motions and archives are not rigs: their own path (found by content, never forced).
    if format.is_none() {
        if let Some(m) = crate::native::MotionFile::detect_read(data) {
            let verdict = crate::ops::motion::verify(m, data, legs.without_layout(), &dmc3_model);
            return with_layout_leg(verdict, format, data, legs);
        }
    }
    let verdict = verify_rig(format, data, legs);
    with_layout_leg(verdict, format, data, legs)
}

/// The layout leg added to a verdict whose round trips were identical, when `legs` asks for it
/// (see [`crate::ops::layout_leg`]): a file that cannot be laid out anew is a rigtrip bug.
fn with_layout_leg(verdict: Verdict, format: Option<Format>, data: &[u8], legs: Legs) -> Verdict {
    let Verdict::Identical {
        kind, gate, gltf, ..
    } = verdict
    else {
        return verdict;
    };
    if !legs.layout() {
        return Verdict::Identical {
            kind,
            gate,
            gltf,
            layout: LayoutLeg::NotRun,
        };
    }
    match crate::ops::layout_leg::layout_leg(format, data) {
        Ok(layout) => Verdict::Identical {
            kind,
            gate,
            gltf,
            layout,
        },
        Err(e) => Verdict::Differ {
            kind,
            message: format!("layout leg: the file cannot be laid out anew: {e}"),
        },
    }
}

/// The native and glTF legs of a rig file (not a motion, archive or texture).
fn verify_rig(format: Option<Format>, data: &[u8], legs: Legs) -> Verdict {
    let file = match NativeFile::read(format, data) {
        Ok(f) => f,
        Err(e) => {
            return Verdict::Rejected {
                message: crate::chain(&e),
            }
        }
    };
    let kind = file.kind();
    let (rig, memo) = rig::lift_with_memo(file);
    let gate = rig
        .skeletons
        .iter()
        .filter_map(|s| s.gate.as_ref().err().map(|g| format!("{}: {g}", s.name)))
        .collect();
    // The rebuilt bytes go into a buffer each thread keeps, so that checking many files does
    // not allocate (and fault in) a fresh output per file.
    let written = with_buffer(&WRITE_BUF, |buf| {
        rig::lower_write_into_with(&rig, &memo, buf)
            .map_err(|e| crate::chain(&e))
            .and_then(|()| match buf.as_slice() == data {
                true => Ok(()),
                false => Err(describe_difference(data, buf)),
            })
    });
    if let Err(message) = written {
        return Verdict::Differ { kind, message };
    }
    let gltf = match legs.gltf() {
        false => GltfLeg::NotRun,
        true => match gltf_leg(&rig, data) {
            Ok(leg) => leg,
            Err(message) => {
                return Verdict::Differ {
                    kind,
                    message: format!("glTF leg: {message}"),
                }
            }
        },
    };
    Verdict::Identical {
        kind,
        gate,
        gltf,
        layout: LayoutLeg::NotRun,
    }
}

/// native -> glTF -> native through the real GLB serializer and importer, with default options.
fn gltf_leg(rig: &rig::Rig, data: &[u8]) -> Result<GltfLeg, LegFailure> {
    use crate::gltf::{export, import, to_glb, ExportError, ExportOptions};
    let exported = match export(rig, &ExportOptions::default()) {
        Ok(e) => e,
        Err(ExportError::Gate { skeleton, failure }) => {
            return Ok(GltfLeg::Skipped(format!("{skeleton}: {failure}")))
        }
        Err(e) => return Ok(GltfLeg::Skipped(crate::chain(&e))),
    };
    let glb = to_glb(&exported).map_err(LegFailure::glb)?;
    let imported = import::import_slice(&glb, None, &import::ImportOptions::default())
        .map_err(LegFailure::import)?;
    if imported.bytes == data {
        Ok(GltfLeg::Identical)
    } else {
        Err(LegFailure::Differ(Difference::of(data, &imported.bytes)))
    }
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
    name.ends_with(".mod")
        || name.ends_with(".scm")
        || name.ends_with("hie.bin")
        || name.ends_with(".mot")
        || name.ends_with(".pac")
        || name.ends_with(".ptx")
        || name.ends_with(".tm2")
}

thread_local! {
    /// Per thread: the file being checked, and the bytes rebuilt from it.
    static READ_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static WRITE_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Buffers larger than this are given back after use rather than kept for the next file.
const KEEP_BUFFER_BYTES: usize = 16 << 20;

/// Runs `f` with this thread's buffer `key`, or with a fresh one if it is in use (a nested
/// call, e.g. a thread pool running another file's check while this one waits).
fn with_buffer<R>(
    key: &'static std::thread::LocalKey<RefCell<Vec<u8>>>,
    f: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            let r = f(&mut buf);
            if buf.capacity() > KEEP_BUFFER_BYTES {
                *buf = Vec::new();
            }
            r
        }
        Err(_) => f(&mut Vec::new()),
    })
}

/// Reads a whole file into `buf` (kept initialised to its full length, so only growth is
/// zeroed) and returns how many bytes it holds. Unlike `fs::read`, no `stat` for a size hint:
/// reads go into the spare room until one returns 0.
fn read_file(path: &Path, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    use std::io::Read;
    const FIRST: usize = 64 << 10;
    let mut f = std::fs::File::open(path)?;
    if buf.len() < FIRST {
        buf.resize(FIRST, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // Grows with what the file actually holds, never ahead of it by more than 2x.
            let grow = buf.len();
            buf.resize(buf.len() + grow, 0);
        }
        match f.read(&mut buf[filled..]) {
            Ok(0) => return Ok(filled),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Checks one file on disk. Without a forced format, a file found in a directory that is
/// neither recognised by content nor named like a rig file is skipped.
pub fn verify_candidate(format: Option<Format>, c: &Candidate, legs: Legs) -> FileResult {
    let verdict = with_buffer(&READ_BUF, |buf| {
        match read_file(&c.path, buf) {
            Ok(n) => {
                let data = &buf[..n];
                // Detected once here and handed on (reading with the detected format is what
                // reading with none does).
                let detected = match format {
                    None => crate::native::detect(data),
                    Some(_) => None,
                };
                // Motions, archives and textures are no rig formats but are recognised by
                // content (a texture whose DDS header was zeroed by its `.ptx`/`.tm2` name):
                // never skipped, checked on their own path.
                let motion = match format {
                    None => crate::native::detect_motion_named(&c.path, data),
                    Some(_) => None,
                };
                if format.is_none()
                    && !c.named
                    && detected.is_none()
                    && motion.is_none()
                    && !named_like_rig(&c.path)
                {
                    Verdict::Skipped
                } else if let Some(m) = motion {
                    let file = crate::native::MotionFile::read(m, data);
                    let verdict =
                        crate::ops::motion::verify(file, data, legs.without_layout(), &dmc3_model);
                    with_layout_leg(verdict, None, data, legs)
                } else if format.is_none() && detected.is_none() {
                    // Nothing recognised it: why, said for its name.
                    let e =
                        crate::native::ReadError::from(crate::native::diagnose::unrecognised(data))
                            .named(&c.path);
                    Verdict::Rejected {
                        message: crate::chain(&e),
                    }
                } else {
                    verify_bytes_legs(format.or(detected), data, legs)
                }
            }
            Err(e) => Verdict::Rejected {
                message: format!("cannot read: {e}"),
            },
        }
    });
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
    // One path alone cannot name a file twice (links aside); several can (`samples/ .`).
    if paths.len() > 1 {
        out = first_of_each_file(out, |c| &c.path);
    }
    Ok(out)
}

/// Keeps the first of the items that name the same file (compared by canonical path; a path
/// that cannot be resolved is compared as given), in order.
pub fn first_of_each_file<T>(items: Vec<T>, path: impl Fn(&T) -> &Path) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|item| {
            let p = path(item);
            seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
        })
        .collect()
}

/// Lists a directory in name order, recursing into subdirectories (symbolic links to
/// directories included). Entry types come from the directory listing itself, so there is no
/// `stat` per file; only links (and entries whose type the listing does not give) are
/// followed with one.
fn walk(dir: &Path, out: &mut Vec<Candidate>) -> std::io::Result<()> {
    let mut entries: Vec<(PathBuf, bool)> = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let path = e.path();
        let is_dir = match e.file_type() {
            Ok(t) if !t.is_symlink() => t.is_dir(),
            _ => path.is_dir(),
        };
        entries.push((path, is_dir));
    }
    // Every entry has the same parent, so its path is that prefix and its name: comparing the
    // paths' bytes compares the names, as sorting the paths by component does.
    entries.sort_by(|a, b| {
        a.0.as_os_str()
            .as_encoded_bytes()
            .cmp(b.0.as_os_str().as_encoded_bytes())
    });
    for (path, is_dir) in entries {
        if is_dir {
            walk(&path, out)?;
        } else {
            out.push(Candidate { path, named: false });
        }
    }
    Ok(())
}
