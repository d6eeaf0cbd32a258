//! The game's folder as the game mounts it: the volumes `DMC3-0.nbz`, `DMC3-1.nbz`, ... (any
//! case: Windows names are case-insensitive, and a copy on Linux may be lower-cased), numbered
//! from 0 without a gap, and the loose folder `data\dmc3\`.

use std::path::{Path, PathBuf};

use super::GameError;

/// Volume numbers above this are not looked for (the game mounts a handful; a name with a
/// number this long is not one of its volumes).
const MAX_VOLUME: u32 = 9_999;

/// One volume file: its number, and its path and name as found in the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeFile {
    /// The number N of `DMC3-N.nbz`.
    pub number: u32,
    /// The file's path.
    pub path: PathBuf,
    /// The file's name as the folder spells it (`DMC3-0.nbz`, `dmc3-0.nbz`).
    pub file: String,
}

/// The game's folder: what the game mounts, and the numbered files it does not.
#[derive(Debug, Clone)]
pub struct GameFolder {
    /// The folder, as given.
    pub dir: PathBuf,
    /// The volumes the game mounts, numbers 0, 1, ... up to the first missing one.
    pub volumes: Vec<VolumeFile>,
    /// Volume files past the first missing number: the game never opens them.
    pub beyond_gap: Vec<VolumeFile>,
    /// The loose folder `data\dmc3\`, when there is one.
    pub loose: Option<PathBuf>,
}

impl GameFolder {
    /// Finds the volumes and the loose folder in `dir`; refuses a folder without `DMC3-0.nbz`
    /// and two files for one volume number (names that differ only in case).
    pub fn open(dir: &Path) -> Result<GameFolder, GameError> {
        let io = |source| GameError::Io {
            path: dir.to_path_buf(),
            source,
        };
        if !dir.is_dir() {
            return Err(GameError::NotAFolder(dir.to_path_buf()));
        }
        let mut found: Vec<VolumeFile> = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(number) = volume_number(&name) else {
                continue;
            };
            if !entry.path().is_file() {
                continue;
            }
            if let Some(twin) = found.iter().find(|v| v.number == number) {
                return Err(GameError::TwoFiles {
                    number,
                    a: twin.file.clone(),
                    b: name,
                });
            }
            found.push(VolumeFile {
                number,
                path: entry.path(),
                file: name,
            });
        }
        found.sort_by_key(|v| v.number);
        let contiguous = found
            .iter()
            .enumerate()
            .take_while(|(i, v)| v.number as usize == *i)
            .count();
        if contiguous == 0 {
            return Err(GameError::NoVolumes(dir.to_path_buf()));
        }
        let beyond_gap = found.split_off(contiguous);
        let loose = child_dir(dir, "data").and_then(|d| child_dir(&d, "dmc3"));
        Ok(GameFolder {
            dir: dir.to_path_buf(),
            volumes: found,
            beyond_gap,
            loose,
        })
    }

    /// The path a volume numbered `number` gets when rigtrip writes a new one.
    pub fn new_volume_path(&self, number: u32) -> PathBuf {
        self.dir.join(volume_name(number))
    }

    /// A numbered volume file past the gap, if one is numbered `number`.
    pub fn beyond(&self, number: u32) -> Option<&VolumeFile> {
        self.beyond_gap.iter().find(|v| v.number == number)
    }
}

/// The name rigtrip gives volume `number`: the retail spelling.
pub fn volume_name(number: u32) -> String {
    format!("DMC3-{number}.nbz")
}

/// The N of a file named `DMC3-N.nbz` in any case, N written as the game writes it (decimal,
/// no leading zero).
pub fn volume_number(name: &str) -> Option<u32> {
    let lower = name.to_ascii_lowercase();
    let digits = lower.strip_prefix("dmc3-")?.strip_suffix(".nbz")?;
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && digits.len() <= 4;
    let n: u32 = digits.parse().ok().filter(|_| canonical)?;
    (n <= MAX_VOLUME).then_some(n)
}

/// The sub-folder of `dir` named `name` in any case (of two that differ only in case, which
/// Windows cannot hold, the first by name).
pub(crate) fn child_dir(dir: &Path, name: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(name))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volume_names_in_any_case_with_the_games_numbers_only() {
        for (name, n) in [
            ("DMC3-0.nbz", Some(0)),
            ("dmc3-0.nbz", Some(0)),
            ("Dmc3-12.NBZ", Some(12)),
            ("DMC3-01.nbz", None),
            ("DMC3-.nbz", None),
            ("DMC3-1.nbz.tmp", None),
            ("DMC3-+1.nbz", None),
            ("DMC3-99999.nbz", None),
            ("DMC4-0.nbz", None),
        ] {
            assert_eq!(volume_number(name), n, "{name}");
        }
    }
}
