//! The joint names file kept beside a native file (`DB22HIE.BIN` -> `DB22HIE.names.json`):
//! native files hold no joint names, so `import` writes the glTF's names there and `export`
//! reads them back from there. The Blender add-on relies on the same two rules.

use std::path::{Path, PathBuf};

/// The names file beside `native`: its file name up to the last dot, then `.names.json`
/// (a name without a dot, or only a leading one, keeps all of it).
pub fn names_path(native: &Path) -> PathBuf {
    let base = native
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = match base.trim_start_matches('.').rsplit_once('.') {
        Some(_) => base.rsplit_once('.').map_or(base.as_str(), |(s, _)| s),
        None => base.as_str(),
    };
    native.with_file_name(format!("{stem}.names.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_files_sit_beside_their_native_file() {
        let p = |s: &str| names_path(Path::new(s)).display().to_string();
        assert_eq!(p("samples/DB22HIE.BIN"), "samples/DB22HIE.names.json");
        assert_eq!(p("a.b/x.mod"), "a.b/x.names.json");
        assert_eq!(p("x.tar.mod"), "x.tar.names.json");
        assert_eq!(p("noext"), "noext.names.json");
        assert_eq!(p(".hidden"), ".hidden.names.json");
    }
}
