//! Writing output files safely: atomically (temp file + rename in the same folder) and never
//! over an existing file unless asked, so a failed command leaves nothing half-written.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The target exists and overwriting was not asked for.
    #[error("{0} exists; pass --force to overwrite it")]
    Exists(PathBuf),
    /// The output would replace the input.
    #[error("{0} is the input file; rigtrip never modifies its input")]
    IsInput(PathBuf),
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
    if let Some(input) = input {
        if same_file(path, input) {
            return Err(OutputError::IsInput(path.to_path_buf()));
        }
    }
    if path.exists() && !force {
        return Err(OutputError::Exists(path.to_path_buf()));
    }
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
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
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
}
