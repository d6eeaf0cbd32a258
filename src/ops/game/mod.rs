//! The game's own files (Devil May Cry 3, HD Collection, PC): what it loads from its ZIP
//! volumes (`DMC3-N.nbz`) and its loose folder by its own lookup, the bytes it would load for
//! a name, and a volume of rigtrip's own that edited files are installed into and removed
//! from again (`rigtrip game list|extract|install|uninstall`).
//!
//! Only rigtrip's volume is ever written, renamed or deleted: it is recognised by the mark in
//! its ZIP comment ([`volume::MARK`]), and replaced by writing a new file and renaming it over.

pub mod folder;
pub mod install;
pub mod list;
pub mod lookup;
pub mod volume;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use folder::GameFolder;
pub use lookup::{request_name, Hit, Index, Source};
pub use volume::Volume;

use crate::ops::output::OutputError;

/// Why a `game` command could not do what it was asked; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// `--game` is not a folder.
    #[error("{0} is not a folder: --game is the game's folder, the one holding DMC3-0.nbz")]
    NotAFolder(PathBuf),
    /// The folder holds no `DMC3-0.nbz`.
    #[error(
        "no DMC3-0.nbz in {0}: --game is the game's folder, the one holding DMC3-0.nbz (the \
         HD Collection's install folder)"
    )]
    NoVolumes(PathBuf),
    /// Two files stand for one volume (names differing only in case).
    #[error(
        "two files stand for volume {number}: {a} and {b} (Windows cannot tell them apart); \
         keep one"
    )]
    TwoFiles {
        /// The volume number.
        number: u32,
        /// One file.
        a: String,
        /// The other.
        b: String,
    },
    /// A volume is not a readable ZIP archive.
    #[error("{volume} is damaged: {why}; it was left as it is")]
    Damaged {
        /// The volume's file name.
        volume: String,
        /// What the ZIP reader said.
        why: String,
    },
    /// An entry of a volume cannot be read.
    #[error("{volume}: entry {entry} cannot be read: {why}")]
    EntryDamaged {
        /// The volume's file name.
        volume: String,
        /// The entry's path.
        entry: String,
        /// Why.
        why: String,
    },
    /// A request names no file.
    #[error("{0:?} names no file")]
    BadName(String),
    /// The game would find no file for a name.
    #[error("the game has no {0}: no volume and no loose file holds it (`rigtrip game list` lists what it has)")]
    NotFound(String),
    /// A volume holds a name twice (in two cases): which the game takes is not defined.
    #[error(
        "{volume} holds {name} {count} times in different cases ({entries}): the game's \
         lookup may take any of them"
    )]
    Ambiguous {
        /// The volume's file name.
        volume: String,
        /// The name.
        name: String,
        /// How many entries.
        count: usize,
        /// Their paths.
        entries: String,
    },
    /// A damaged volume comes before the one a name was found in.
    #[error(
        "{name}: {volume} is damaged and comes first in the game's lookup, so what the game \
         loads for it cannot be told ({why})"
    )]
    Uncertain {
        /// The name.
        name: String,
        /// The damaged volume.
        volume: String,
        /// Why it cannot be read.
        why: String,
    },
    /// A file is too large for a volume without ZIP64.
    #[error("{name} is {bytes} bytes: a volume entry holds less than 4 GiB")]
    TooLarge {
        /// The name.
        name: String,
        /// Its size.
        bytes: u64,
    },
    /// Refused by a rule of install or uninstall (the message says which and what to do).
    #[error("{0}")]
    Refused(String),
    /// The ZIP writer failed.
    #[error("cannot write the volume: {0}")]
    Write(String),
    /// The volume could not be replaced or written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A file or folder could not be read or removed.
    #[error("{path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl GameError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> GameError {
        GameError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where a file the game loads comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    /// The volume's file name, or the loose folder (`data/dmc3`).
    pub source: String,
    /// The volume's number; `null` for the loose folder.
    pub volume: Option<u32>,
    /// The file's path in the volume (or under the loose folder).
    pub entry: String,
    /// Its size.
    pub bytes: u64,
}

/// A game folder read: its volumes' directories and its loose files, indexed for the lookup.
#[derive(Debug)]
pub struct Game {
    /// The folder.
    pub folder: GameFolder,
    /// The volumes the game mounts, by number (a damaged one holds no entries).
    pub volumes: Vec<Volume>,
    /// The sources as the lookup sees them.
    pub index: Index,
    /// The loose files: path under the loose folder (`/`-separated) and path on disk.
    loose: Vec<PathBuf>,
}

impl Game {
    /// Reads the game folder `dir`: every volume's central directory and the loose folder.
    pub fn open(dir: &Path) -> Result<Game, GameError> {
        let folder = GameFolder::open(dir)?;
        let volumes: Vec<Volume> = folder.volumes.iter().map(Volume::open).collect();
        let (loose_entries, loose) = match &folder.loose {
            Some(d) => loose_files(d),
            None => (Vec::new(), Vec::new()),
        };
        Ok(Game::assemble(folder, volumes, loose_entries, loose))
    }

    /// A game of `volumes` (replacing what was read), for what an install or uninstall
    /// would leave.
    pub(crate) fn with_volumes(&self, volumes: Vec<Volume>) -> Game {
        let entries = self
            .index
            .sources
            .iter()
            .find(|s| s.volume.is_none())
            .map(|s| s.entries.clone())
            .unwrap_or_default();
        Game::assemble(self.folder.clone(), volumes, entries, self.loose.clone())
    }

    fn assemble(
        folder: GameFolder,
        volumes: Vec<Volume>,
        loose_entries: Vec<(String, u64)>,
        loose: Vec<PathBuf>,
    ) -> Game {
        let mut sources: Vec<Source> = volumes
            .iter()
            .map(|v| Source {
                label: v.file.file.clone(),
                volume: Some(v.file.number),
                entries: v.entries.iter().map(|e| (e.name.clone(), e.size)).collect(),
            })
            .collect();
        if folder.loose.is_some() {
            sources.push(Source {
                label: "data/dmc3".into(),
                volume: None,
                entries: loose_entries,
            });
        }
        Game {
            folder,
            volumes,
            index: Index::new(sources),
            loose,
        }
    }

    /// rigtrip's volume among those the game mounts: the highest one with the mark.
    pub fn ours(&self) -> Option<&Volume> {
        self.volumes.iter().rev().find(|v| v.ours)
    }

    /// Where candidate `hit`'s first entry is.
    pub fn located(&self, hit: &Hit) -> Located {
        self.located_entry(hit.source, hit.entries.first().copied().unwrap_or(0))
    }

    /// Where entry `entry` of source `source` is.
    pub fn located_entry(&self, source: usize, entry: usize) -> Located {
        let s = &self.index.sources[source];
        let (path, bytes) = s.entries.get(entry).cloned().unwrap_or_default();
        Located {
            source: s.label.clone(),
            volume: s.volume,
            entry: path,
            bytes,
        }
    }

    /// The volume a source is, when it is one.
    fn volume_of(&self, source: usize) -> Option<&Volume> {
        let n = self.index.sources[source].volume?;
        self.volumes.get(n as usize)
    }

    /// What the game loads for `request`: the first candidate, refused when that is
    /// ambiguous or when a damaged volume comes before it.
    pub fn resolve(&self, request: &str) -> Result<Hit, GameError> {
        let name = request_name(request).ok_or_else(|| GameError::BadName(request.into()))?;
        let first = self.index.candidates(&name).into_iter().next();
        let Some(hit) = first else {
            return Err(match self.damaged_above(None) {
                Some(v) => uncertain(&name, v),
                None => GameError::NotFound(name),
            });
        };
        if let Some(v) = self.damaged_above(self.index.sources[hit.source].volume) {
            return Err(uncertain(&name, v));
        }
        if hit.entries.len() > 1 {
            let s = &self.index.sources[hit.source];
            let paths: Vec<&str> = hit
                .entries
                .iter()
                .filter_map(|&e| s.entries.get(e).map(|(p, _)| p.as_str()))
                .collect();
            return Err(GameError::Ambiguous {
                volume: s.label.clone(),
                name,
                count: paths.len(),
                entries: paths.join(", "),
            });
        }
        Ok(hit)
    }

    /// A damaged volume numbered above `volume` (`None`: the loose folder, below them all).
    fn damaged_above(&self, volume: Option<u32>) -> Option<&Volume> {
        self.volumes
            .iter()
            .rev()
            .filter(|v| volume.is_none_or(|n| v.file.number > n))
            .find(|v| v.damaged.is_some())
    }

    /// The bytes of candidate `hit` (its first entry), exactly as stored once inflated.
    pub fn read(&self, hit: &Hit) -> Result<Vec<u8>, GameError> {
        let entry = hit.entries.first().copied().unwrap_or(0);
        match self.volume_of(hit.source) {
            Some(v) => {
                let e = v
                    .entries
                    .get(entry)
                    .ok_or_else(|| GameError::EntryDamaged {
                        volume: v.file.file.clone(),
                        entry: format!("#{entry}"),
                        why: "no such entry".into(),
                    })?;
                v.read(e)
            }
            None => {
                let path = self.loose.get(entry).cloned().unwrap_or_default();
                std::fs::read(&path).map_err(|e| GameError::io(&path, e))
            }
        }
    }
}

fn uncertain(name: &str, v: &Volume) -> GameError {
    GameError::Uncertain {
        name: name.into(),
        volume: v.file.file.clone(),
        why: v.damaged.clone().unwrap_or_default(),
    }
}

/// The files of the loose folder `dir` the lookup can reach (at most three folders deep:
/// `afs/sound/NAME`): their paths under it, `/`-separated, with sizes, and their paths on disk.
fn loose_files(dir: &Path) -> (Vec<(String, u64)>, Vec<PathBuf>) {
    let mut entries = Vec::new();
    let mut paths = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new(), 0usize)];
    while let Some((d, rel, depth)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut children: Vec<_> = read.flatten().collect();
        children.sort_by_key(|e| e.file_name());
        for e in children {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            let rel = format!("{rel}{name}");
            if path.is_dir() && depth < 2 {
                stack.push((path, format!("{rel}/"), depth + 1));
            } else if path.is_file() {
                let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                entries.push((rel, size));
                paths.push(path);
            }
        }
    }
    (entries, paths)
}
