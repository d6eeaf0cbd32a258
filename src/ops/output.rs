//! Writing output files safely: atomically (temp file + rename in the same folder) and never
//! over an existing file unless asked, so a failed command leaves nothing half-written; and the
//! one JSON shape every command's `--json` document has ([`Head`] + the command's own keys).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The keys every `--json` document starts with, the same in every command (the guide's "JSON
/// output", `guide/researchers/json.md`); absent keys are left out. The command's own keys follow.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Head {
    /// How the call ended, as the exit code says: `ok` (0), `failed` (1: a check failed) or
    /// `error` (2: bad input or usage).
    pub status: &'static str,
    /// Why the call failed as a whole (with `status` `error`), one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The input file, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The input's format (`hie`, `mod`, `scm`, `block`, `glb`, `gltf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The file or folder written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The size in bytes of `output` (of the input, for commands that write nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
}

impl Head {
    /// A head whose `status` follows the exit `code`.
    pub fn exit(code: i32) -> Self {
        Head {
            status: match code {
                0 => "ok",
                1 => "failed",
                _ => "error",
            },
            ..Head::default()
        }
    }
}

/// The body of a document about several files: one entry per file, then the counts (if any).
#[derive(Debug, serde::Serialize)]
pub struct Files<'a, T, S = ()> {
    /// One entry per file.
    pub files: &'a [T],
    /// Counts over the files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'a S>,
}

/// `head`'s keys, then `body`'s (a struct or map; `()` for none), as one pretty-printed JSON
/// object ending in a newline.
pub fn json_doc(head: &Head, body: &impl serde::Serialize) -> String {
    #[derive(serde::Serialize)]
    struct Envelope<'a, T> {
        #[serde(flatten)]
        head: &'a Head,
        #[serde(flatten)]
        body: &'a T,
    }
    let mut s = serde_json::to_string_pretty(&Envelope { head, body }).unwrap_or_default();
    s.push('\n');
    s
}

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The target exists and overwriting was not asked for.
    #[error("{0} exists; pass --force to overwrite it")]
    Exists(PathBuf),
    /// The output would replace the input.
    #[error("{0} is the input file; rigtrip never modifies its input")]
    IsInput(PathBuf),
    /// The output's name is a Windows device (`CON`, `NUL`, ...): writing to it would write to
    /// the device, not to a file.
    #[error(
        "cannot write {0}: {1} is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, \
         LPT1-9, whatever the extension), not a file; choose another name"
    )]
    DeviceName(PathBuf, String),
    /// The target exists and another program holds it open, so it cannot be replaced (Windows).
    #[error(
        "cannot replace {0}: another program has it open (the game, a viewer, Blender); close \
         it and run again. Nothing was written"
    )]
    InUse(PathBuf),
    /// An I/O error.
    #[error("cannot write {path}")]
    Io {
        /// The target.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Writes `bytes` to `path` atomically; refuses an existing `path` unless `force`, and any path
/// that is the same file as `input`.
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    force: bool,
    input: Option<&Path>,
) -> Result<(), OutputError> {
    check_target(path, force, input)?;
    let io = |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.rigtrip-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        replace(&tmp, path)
    })();
    match result {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            if held_open(&e) && path.exists() {
                return Err(OutputError::InUse(path.to_path_buf()));
            }
            Err(io(e))
        }
    }
}

/// The file name a staged output will have once moved into place: `.NAME.rigtrip-TAG.tmp` (how
/// [`write_atomic`] and the Blender add-on stage a file beside its destination) gives `NAME`;
/// any other name is its own. What a file is called can matter to what is in it (`rigtrip
/// check` judges `pl000.pac` as Dante's costume archive).
pub fn unstaged_name(name: &str) -> &str {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once(".rigtrip-"))
        .map_or(name, |(base, _)| base)
}

/// Moves the staged `tmp` over `path`. Windows refuses while another program has `path` open;
/// a virus scanner or indexer holds a new file for a moment, so a refusal is tried again a few
/// times (half a second in all) before it is reported.
fn replace(tmp: &Path, path: &Path) -> std::io::Result<()> {
    let mut tries = 0;
    loop {
        match std::fs::rename(tmp, path) {
            Err(e) if held_open(&e) && tries < 5 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            done => return done,
        }
    }
}

/// Whether `e` is Windows' refusal to replace a file another program has open (access denied,
/// sharing violation); never on other systems, where an open file can be replaced.
pub(crate) fn held_open(e: &std::io::Error) -> bool {
    cfg!(windows) && matches!(e.raw_os_error(), Some(5) | Some(32))
}

/// The Windows device `path`'s file name stands for, if any: `CON`, `PRN`, `AUX`, `NUL`,
/// `COM1`-`COM9`, `LPT1`-`LPT9` (any case), with or without an extension, and with the
/// trailing dots and spaces Windows ignores. Checked on every system, so that an output
/// written on Linux is one a Windows user can copy.
pub fn device_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    let stem = name
        .split('.')
        .next()
        .unwrap_or("")
        .trim_end_matches([' ', '.']);
    let upper = stem.to_ascii_uppercase();
    let numbered = |p: &str| {
        upper.len() == 4 && upper.starts_with(p) && matches!(upper.as_bytes()[3], b'1'..=b'9')
    };
    let device = matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || numbered("COM")
        || numbered("LPT");
    device.then_some(name)
}

/// The refusal [`write_atomic`] would give before any work is done: `path` is the input, or
/// exists without `force`. Commands call it first so a long run is not wasted.
pub fn check_target(path: &Path, force: bool, input: Option<&Path>) -> Result<(), OutputError> {
    if let Some(name) = device_name(path) {
        return Err(OutputError::DeviceName(path.to_path_buf(), name));
    }
    if let Some(input) = input {
        if same_file(path, input) {
            return Err(OutputError::IsInput(path.to_path_buf()));
        }
    }
    if path.exists() && !force {
        return Err(OutputError::Exists(path.to_path_buf()));
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Reports as the `--json` document (one object, the CLI's common head first): the report's
/// keys for one file (fields in declaration order, `path` first), a `files` array for several.
pub fn lint_json(reports: &[rigtrip_lint::LintReport]) -> String {
    let head = Head::exit(rigtrip_lint::exit_code(reports));
    match reports {
        [one] => json_doc(&head, one),
        many => json_doc(
            &head,
            &Files::<_, ()> {
                files: many,
                summary: None,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_existing_and_input_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("rigtrip-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.bin");
        write_atomic(&p, b"one", false, None).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        assert!(matches!(
            write_atomic(&p, b"two", false, None),
            Err(OutputError::Exists(_))
        ));
        assert!(matches!(
            write_atomic(&p, b"two", true, Some(&p)),
            Err(OutputError::IsInput(_))
        ));
        write_atomic(&p, b"two", true, None).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let missing = dir.join("no/such/dir/x.bin");
        assert!(write_atomic(&missing, b"x", false, None).is_err());
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_staged_name_is_the_name_it_will_have() {
        assert_eq!(
            unstaged_name(".pl000.pac.rigtrip-6a4e75721990.tmp"),
            "pl000.pac"
        );
        assert_eq!(unstaged_name(".x.mod.rigtrip-123.tmp"), "x.mod");
        for own in [
            "pl000.pac",
            ".hidden.tmp",
            ".a.rigtrip.tmp",
            "a.rigtrip-1.tmp",
        ] {
            assert_eq!(unstaged_name(own), own);
        }
    }

    #[test]
    fn windows_device_names_are_known_whatever_the_case_and_extension() {
        for name in [
            "CON",
            "con.mod",
            "Nul.glb",
            "aux.model.glb",
            "COM1.mod",
            "lpt9",
            "PRN .x",
        ] {
            assert_eq!(
                device_name(Path::new(name)).as_deref(),
                Some(name),
                "{name}"
            );
        }
        for name in [
            "console.glb",
            "COM0.mod",
            "COM10",
            "LPT",
            "nul_dante.mod",
            "a/b.glb",
            ".",
        ] {
            assert_eq!(device_name(Path::new(name)), None, "{name}");
        }
        assert!(matches!(
            check_target(Path::new("out/CON.glb"), true, None),
            Err(OutputError::DeviceName(..))
        ));
    }
}
