//! `rigtrip game install` and `uninstall`: rigtrip's own volume, the next number after the
//! volumes the game mounts (or the one rigtrip wrote before), written whole to a new file and
//! renamed over; entries flat as `GData.afs/<name>`. No other volume is ever written, renamed
//! or deleted, and the numbering is never left with a gap.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::folder::{volume_name, VolumeFile};
use super::list::place;
use super::volume::{self, Entry, Volume};
use super::{request_name, Game, GameError, Located};
use crate::native::finding::{Finding, Severity};
use crate::ops::output::{held_open, write_atomic};

/// Where rigtrip puts an installed file in its volume (the retail volume's one folder).
pub const FOLDER: &str = "GData.afs/";

/// A file to install, as its caller read and checked it.
#[derive(Debug, Clone)]
pub struct InstallFile {
    /// The file as given (for messages).
    pub path: PathBuf,
    /// The name it is installed as (`--as`, else the file's name); cut to its base name and
    /// lower-cased as the game asks for it.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// What `rigtrip check` found in it; `None` when it was not checked. A finding that
    /// stops the game refuses the install unless forced.
    pub findings: Option<Vec<Finding>>,
}

/// One installed file, as the report gives it.
#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    /// The name the game asks for.
    pub name: String,
    /// The file installed, as given.
    pub path: String,
    /// Its entry in rigtrip's volume.
    pub entry: String,
    /// Its size.
    pub bytes: u64,
    /// Whether `rigtrip check` ran on it.
    pub checked: bool,
    /// What the check found (installed all the same: notes, or forced).
    pub findings: Vec<Finding>,
    /// Whether it replaced a file rigtrip had installed under that name.
    pub replaced: bool,
    /// Whether the game loads it (false only when forced past a copy that comes first).
    pub loaded: bool,
    /// What the game loaded for the name before, and the other copies the lookup now meets
    /// after it, in its order.
    pub overrides: Vec<Located>,
}

/// rigtrip's volume after a command.
#[derive(Debug, Clone, Serialize)]
pub struct VolumeWritten {
    /// Its number.
    pub number: u32,
    /// Its file name.
    pub file: String,
    /// Whether the command made it (it did not exist before).
    pub new: bool,
    /// How many files it holds now.
    pub entries: usize,
    /// Whether it was deleted (uninstall of its last file).
    pub deleted: bool,
}

/// What `rigtrip game install` did.
#[derive(Debug, Clone, Serialize)]
pub struct InstallReport {
    /// rigtrip's volume, as written.
    pub volume: VolumeWritten,
    /// The files installed.
    pub files: Vec<Installed>,
    /// What else to know.
    pub notes: Vec<String>,
}

/// Installs `files` into rigtrip's volume in the game folder (`force`: past findings that
/// stop the game, and past a copy the game would load first). Nothing is written when
/// anything is refused.
pub fn install(
    game: &Game,
    files: Vec<InstallFile>,
    force: bool,
) -> Result<InstallReport, GameError> {
    let files = named(files)?;
    gate(&files, force)?;
    let mut notes = Vec::new();
    let (file, existing, new) = target(game, &mut notes)?;
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut replaced = Vec::new();
    for (path, bytes) in existing {
        let base = request_name(&path).unwrap_or_default();
        match files.iter().any(|f| f.name == base) {
            true => replaced.push(base),
            false => entries.push((path, bytes)),
        }
    }
    for f in &files {
        entries.push((format!("{FOLDER}{}", f.name), f.bytes.clone()));
    }
    let bytes = volume::write(&entries)?;
    volume::check_written(&bytes, &entries)?;
    let after = game.with_volumes(planned(game, &file, &entries));
    let mut installed = Vec::new();
    for f in &files {
        let entry = format!("{FOLDER}{}", f.name);
        let hits = after.index.candidates(&f.name);
        let mut located: Vec<Located> = hits.iter().map(|h| after.located(h)).collect();
        let loaded = located
            .first()
            .is_some_and(|l| l.volume == Some(file.number) && l.entry == entry);
        if !loaded {
            shadowed(f, located.first(), &file, force, &mut notes)?;
        }
        located.retain(|l| !(l.volume == Some(file.number) && l.entry == entry));
        installed.push(Installed {
            name: f.name.clone(),
            path: f.path.display().to_string(),
            entry,
            bytes: f.bytes.len() as u64,
            checked: f.findings.is_some(),
            findings: f.findings.clone().unwrap_or_default(),
            replaced: replaced.contains(&f.name),
            loaded,
            overrides: located,
        });
    }
    write_atomic(&file.path, &bytes, !new, None)?;
    Ok(InstallReport {
        volume: VolumeWritten {
            number: file.number,
            file: file.file,
            new,
            entries: entries.len(),
            deleted: false,
        },
        files: installed,
        notes,
    })
}

/// The files with their game names, each once.
fn named(files: Vec<InstallFile>) -> Result<Vec<InstallFile>, GameError> {
    let mut out: Vec<InstallFile> = Vec::with_capacity(files.len());
    for mut f in files {
        f.name = request_name(&f.name).ok_or_else(|| GameError::BadName(f.name.clone()))?;
        if f.name.chars().any(|c| c.is_control()) || matches!(f.name.as_str(), "." | "..") {
            return Err(GameError::BadName(f.name));
        }
        if f.bytes.len() as u64 >= u64::from(u32::MAX) {
            return Err(GameError::TooLarge {
                name: f.name,
                bytes: f.bytes.len() as u64,
            });
        }
        if let Some(twin) = out.iter().find(|o| o.name == f.name) {
            return Err(GameError::Refused(format!(
                "{} and {} would both be installed as {}: the game loads one file per name \
                 (give one of them another name with --as, one file at a time)",
                twin.path.display(),
                f.path.display(),
                f.name
            )));
        }
        out.push(f);
    }
    Ok(out)
}

/// Refuses a file whose check found what would stop the game, unless `force`.
fn gate(files: &[InstallFile], force: bool) -> Result<(), GameError> {
    if force {
        return Ok(());
    }
    for f in files {
        let stops: Vec<String> = f
            .findings
            .iter()
            .flatten()
            .filter(|x| x.severity == Severity::Stops)
            .map(|x| {
                let at: Vec<&str> = [x.place.as_str(), x.field.as_str()]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect();
                format!("{}: {}", at.join(", "), x.problem)
            })
            .collect();
        if !stops.is_empty() {
            return Err(GameError::Refused(format!(
                "{}: rigtrip check finds what would stop the game: {}; nothing was installed \
                 (--force installs it all the same)",
                f.path.display(),
                stops.join("; ")
            )));
        }
    }
    Ok(())
}

/// A volume's files: stored path and bytes.
type Files = Vec<(String, Vec<u8>)>;

/// rigtrip's volume to write: its file, what it holds now, and whether it is new. A new one
/// takes the next number, refused when a numbered file past the gap would then be mounted.
fn target(game: &Game, notes: &mut Vec<String>) -> Result<(VolumeFile, Files, bool), GameError> {
    if let Some(v) = game.ours() {
        let later: Vec<&str> = later_volumes(game, v.file.number);
        if !later.is_empty() {
            notes.push(format!(
                "{} come(s) after rigtrip's {} and are searched first: a file they hold wins \
                 over rigtrip's",
                later.join(", "),
                v.file.file
            ));
        }
        return Ok((v.file.clone(), v.read_all()?, false));
    }
    let number = game.volumes.len() as u32;
    if let Some(next) = game.folder.beyond(number + 1) {
        return Err(GameError::Refused(format!(
            "{} is there past the missing {}: once rigtrip writes {} the game would load it \
             too (and any volume after it). Move it out of the game folder first; nothing was \
             written",
            next.file,
            volume_name(number),
            volume_name(number)
        )));
    }
    let file = VolumeFile {
        number,
        path: game.folder.new_volume_path(number),
        file: volume_name(number),
    };
    Ok((file, Vec::new(), true))
}

/// The names of the mounted volumes numbered above `number`.
fn later_volumes(game: &Game, number: u32) -> Vec<&str> {
    game.volumes
        .iter()
        .filter(|v| v.file.number > number)
        .map(|v| v.file.file.as_str())
        .collect()
}

/// The game's volumes with rigtrip's as `entries` would make it (appended when new).
fn planned(game: &Game, file: &VolumeFile, entries: &[(String, Vec<u8>)]) -> Vec<Volume> {
    let mine = Volume {
        file: file.clone(),
        entries: entries
            .iter()
            .enumerate()
            .map(|(index, (name, bytes))| Entry {
                name: name.clone(),
                size: bytes.len() as u64,
                method: 8,
                index,
            })
            .collect(),
        ours: true,
        damaged: None,
    };
    let mut volumes: Vec<Volume> = game
        .volumes
        .iter()
        .filter(|v| v.file.number != file.number)
        .cloned()
        .collect();
    volumes.push(mine);
    volumes.sort_by_key(|v| v.file.number);
    volumes
}

/// An installed file the game would not load, because `first` comes before it: refused,
/// or a note when forced.
fn shadowed(
    f: &InstallFile,
    first: Option<&Located>,
    file: &VolumeFile,
    force: bool,
    notes: &mut Vec<String>,
) -> Result<(), GameError> {
    let by = first.map(place).unwrap_or_default();
    let why = match first {
        Some(l) if l.entry.to_ascii_lowercase().starts_with("gdatax360.afs/") => {
            "the game tries GDataX360.afs/ in every volume before GData.afs/ in any"
        }
        _ => "that volume comes after rigtrip's and is searched first",
    };
    let line = format!(
        "{}: the game would still load {by}, not rigtrip's {}:{FOLDER}{} ({why})",
        f.name, file.file, f.name
    );
    if force {
        notes.push(line);
        return Ok(());
    }
    Err(GameError::Refused(format!(
        "{line}; nothing was installed. Remove that file or volume (another mod's) first, or \
         --force to install all the same"
    )))
}

/// One file `uninstall` removed.
#[derive(Debug, Clone, Serialize)]
pub struct Removed {
    /// The name.
    pub name: String,
    /// Its entry in rigtrip's volume.
    pub entry: String,
    /// What the game loads for the name now; `null` when nothing.
    pub now: Option<Located>,
}

/// What `rigtrip game uninstall` did.
#[derive(Debug, Clone, Serialize)]
pub struct UninstallReport {
    /// rigtrip's volume; `null` when the folder has none.
    pub volume: Option<VolumeWritten>,
    /// The files removed.
    pub removed: Vec<Removed>,
    /// What else to know.
    pub notes: Vec<String>,
}

/// Removes `requests` from rigtrip's volume, or the whole volume when none are named.
pub fn uninstall(game: &Game, requests: &[String]) -> Result<UninstallReport, GameError> {
    let Some(ours) = game.ours() else {
        if let Some(r) = requests.first() {
            return Err(not_ours(game, r, None));
        }
        return Ok(UninstallReport {
            volume: None,
            removed: Vec::new(),
            notes: vec![
                "no volume in the game folder was written by rigtrip: nothing to remove".into(),
            ],
        });
    };
    let existing = ours.read_all()?;
    let mut names = Vec::new();
    for r in requests {
        let name = request_name(r).ok_or_else(|| GameError::BadName(r.clone()))?;
        if !existing
            .iter()
            .any(|(p, _)| request_name(p).as_deref() == Some(&name))
        {
            return Err(not_ours(game, r, Some(ours)));
        }
        names.push(name);
    }
    let whole = requests.is_empty();
    let (gone, kept): (Vec<_>, Vec<_>) = existing
        .into_iter()
        .partition(|(p, _)| whole || names.contains(&request_name(p).unwrap_or_default()));
    let later = later_volumes(game, ours.file.number);
    let mut notes = Vec::new();
    let deleted = kept.is_empty() && later.is_empty();
    if whole && !later.is_empty() {
        return Err(GameError::Refused(format!(
            "{} come(s) after rigtrip's {}: removing {} would leave a gap, and the game would \
             stop loading every volume after it. Remove those volumes first (they are another \
             mod's: its own uninstall), or remove your files by name (`rigtrip game uninstall \
             NAME...`), which keeps {} with what else it holds. Nothing was removed",
            later.join(", "),
            ours.file.file,
            ours.file.file,
            ours.file.file
        )));
    }
    if deleted {
        remove_volume(&ours.file.path)?;
    } else {
        if kept.is_empty() {
            notes.push(format!(
                "{} is kept with no file in it: removing it would leave a gap before {}",
                ours.file.file,
                later.join(", ")
            ));
        }
        let bytes = volume::write(&kept)?;
        volume::check_written(&bytes, &kept)?;
        write_atomic(&ours.file.path, &bytes, true, None)?;
    }
    let volumes = match deleted {
        true => game
            .volumes
            .iter()
            .filter(|v| v.file.number != ours.file.number)
            .cloned()
            .collect(),
        false => planned(game, &ours.file, &kept),
    };
    let after = game.with_volumes(volumes);
    let removed = gone
        .into_iter()
        .map(|(entry, _)| {
            let name = request_name(&entry).unwrap_or_default();
            let now = after
                .index
                .candidates(&name)
                .first()
                .map(|h| after.located(h));
            Removed { name, entry, now }
        })
        .collect();
    Ok(UninstallReport {
        volume: Some(VolumeWritten {
            number: ours.file.number,
            file: ours.file.file.clone(),
            new: false,
            entries: kept.len(),
            deleted,
        }),
        removed,
        notes,
    })
}

/// The refusal for a name rigtrip did not install, saying where the game has it.
fn not_ours(game: &Game, request: &str, ours: Option<&Volume>) -> GameError {
    let name = request_name(request).unwrap_or_else(|| request.to_string());
    let mine = match ours {
        Some(v) => format!("rigtrip's {} does not hold it", v.file.file),
        None => "no volume in the game folder was written by rigtrip".to_string(),
    };
    let there = match game.index.candidates(&name).first() {
        Some(h) => format!(
            "; the game loads it from {}, which rigtrip did not write",
            place(&game.located(h))
        ),
        None => String::new(),
    };
    GameError::Refused(format!(
        "{name} is not installed by rigtrip: {mine}{there}; nothing was removed"
    ))
}

/// Deletes rigtrip's volume; a volume another program holds open (the running game) is
/// refused with what to do.
fn remove_volume(path: &Path) -> Result<(), GameError> {
    let mut tries = 0;
    loop {
        match std::fs::remove_file(path) {
            Err(e) if held_open(&e) && tries < 5 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) if held_open(&e) => {
                return Err(GameError::Refused(format!(
                    "cannot remove {}: another program has it open (the game?); close it and \
                     run again. Nothing was removed",
                    path.display()
                )))
            }
            Err(e) => return Err(GameError::io(path, e)),
            Ok(()) => return Ok(()),
        }
    }
}
