//! One volume (`DMC3-N.nbz`, a ZIP archive): its entries read from the central directory, an
//! entry's bytes, and the writing of rigtrip's own volume (flat DEFLATE entries, sizes in the
//! local headers, no ZIP64, the mark in the archive comment).

use std::fs::File;
use std::io::{BufReader, Cursor, Read, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::folder::VolumeFile;
use super::GameError;

/// How rigtrip's volume starts its ZIP comment: the mark it knows its own volume by (it never
/// writes, renames or deletes a volume without it).
pub const MARK: &str = "rigtrip mod volume";

/// The whole comment rigtrip writes into its volume: the mark, and what it is for a person
/// who opens the volume in a ZIP tool.
pub fn comment() -> String {
    format!(
        "{MARK}: files installed by `rigtrip game install`; `rigtrip game uninstall` removes \
         them"
    )
}

/// DEFLATE can grow data at most about 1032 times (a run of one byte); a size that claims
/// more than this of its compressed bytes is a damaged directory, not data.
const MAX_RATIO: u64 = 1100;

/// ZIP's method numbers for the two methods the game's reader takes.
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// One entry of a volume's central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its path as stored (`GData.afs/pl000.pac`).
    pub name: String,
    /// Its size once read.
    pub size: u64,
    /// Its ZIP compression method (0 STORE, 8 DEFLATE; the game reads no other).
    pub method: u16,
    /// Its place in the central directory.
    pub index: usize,
}

/// A volume as read: its entries, or why it cannot be read.
#[derive(Debug, Clone)]
pub struct Volume {
    /// The file.
    pub file: VolumeFile,
    /// Its entries (directories left out), in central-directory order.
    pub entries: Vec<Entry>,
    /// Whether rigtrip wrote it (its comment starts with [`MARK`]).
    pub ours: bool,
    /// Why it could not be read as a ZIP archive, when it could not.
    pub damaged: Option<String>,
}

impl Volume {
    /// Reads `file`'s central directory; a volume that is not a readable ZIP archive is kept
    /// with the reason in [`Volume::damaged`].
    pub fn open(file: &VolumeFile) -> Volume {
        let mut v = Volume {
            file: file.clone(),
            entries: Vec::new(),
            ours: false,
            damaged: None,
        };
        match directory(&file.path) {
            Ok((entries, comment)) => {
                v.entries = entries;
                v.ours = comment.starts_with(MARK.as_bytes());
            }
            Err(why) => v.damaged = Some(why),
        }
        v
    }

    /// Refuses a damaged volume, naming it and why.
    pub fn readable(&self) -> Result<(), GameError> {
        match &self.damaged {
            Some(why) => Err(GameError::Damaged {
                volume: self.file.file.clone(),
                why: why.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The bytes of the entry at central-directory index `index`, checked against its CRC.
    pub fn read(&self, entry: &Entry) -> Result<Vec<u8>, GameError> {
        self.readable()?;
        let damaged = |why: String| GameError::EntryDamaged {
            volume: self.file.file.clone(),
            entry: entry.name.clone(),
            why,
        };
        if entry.method != STORED && entry.method != DEFLATED {
            return Err(damaged(format!(
                "compression method {} (the game reads only DEFLATE and STORE)",
                entry.method
            )));
        }
        let f = File::open(&self.file.path).map_err(|e| GameError::io(&self.file.path, e))?;
        let mut zip = ZipArchive::new(BufReader::new(f)).map_err(|e| damaged(e.to_string()))?;
        let mut z = zip
            .by_index(entry.index)
            .map_err(|e| damaged(e.to_string()))?;
        let mut bytes = Vec::new();
        (&mut z)
            .take(entry.size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| damaged(e.to_string()))?;
        if bytes.len() as u64 != entry.size {
            return Err(damaged(format!(
                "{} bytes read, the directory says {}",
                bytes.len(),
                entry.size
            )));
        }
        Ok(bytes)
    }

    /// Every entry's path and bytes (rigtrip's own volume, to be written again).
    pub fn read_all(&self) -> Result<Vec<(String, Vec<u8>)>, GameError> {
        self.entries
            .iter()
            .map(|e| Ok((e.name.clone(), self.read(e)?)))
            .collect()
    }
}

/// The entries and the archive comment of the ZIP archive at `path`, or why it cannot be read.
fn directory(path: &Path) -> Result<(Vec<Entry>, Vec<u8>), String> {
    let f = File::open(path).map_err(|e| e.to_string())?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let zip = ZipArchive::new(BufReader::new(f)).map_err(|e| e.to_string())?;
    if zip.has_duplicate_names() {
        return Err("its directory holds a path twice (the game's lookup may take either)".into());
    }
    let mut entries = Vec::with_capacity(zip.len());
    // The central directory alone: no local header is read (a retail volume is gigabytes).
    for index in 0..zip.len() {
        let z = zip.by_index_data(index).map_err(|e| e.to_string())?;
        if z.is_dir() {
            continue;
        }
        let name = z.name().map_err(|e| e.to_string())?.into_owned();
        let (size, packed) = (z.size(), z.compressed_size());
        if packed > len || size > packed.saturating_mul(MAX_RATIO).saturating_add(1024) {
            return Err(format!(
                "entry {name}: sizes {size} and {packed} do not fit a {len}-byte file"
            ));
        }
        let method = method_number(z.compression());
        entries.push(Entry {
            name,
            size,
            method,
            index,
        });
    }
    Ok((entries, zip.comment().to_vec()))
}

/// ZIP's number for a compression method.
fn method_number(m: CompressionMethod) -> u16 {
    #[allow(deprecated)]
    match m {
        CompressionMethod::Stored => STORED,
        CompressionMethod::Deflated => DEFLATED,
        CompressionMethod::Unsupported(n) => n,
        _ => u16::MAX,
    }
}

/// rigtrip's volume holding `entries` (path, bytes), sorted by their lower-cased path (the
/// game looks names up by a binary search), DEFLATE, dated 1980-01-01 (the ZIP epoch: the
/// same files give the same volume), with [`comment`]. Refuses an entry of 4 GiB or more,
/// which would need ZIP64.
pub fn write(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, GameError> {
    let mut sorted: Vec<&(String, Vec<u8>)> = entries.iter().collect();
    sorted.sort_by_key(|(name, _)| name.to_ascii_lowercase());
    let zip_err = |e: zip::result::ZipError| GameError::Write(e.to_string());
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    w.set_comment(comment()).map_err(zip_err)?;
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .large_file(false);
    for (name, bytes) in sorted {
        if bytes.len() as u64 >= u64::from(u32::MAX) {
            return Err(GameError::TooLarge {
                name: name.clone(),
                bytes: bytes.len() as u64,
            });
        }
        w.start_file(name.as_str(), options).map_err(zip_err)?;
        w.write_all(bytes)
            .map_err(|e| GameError::Write(e.to_string()))?;
    }
    Ok(w.finish().map_err(zip_err)?.into_inner())
}

/// Reads `bytes` (a volume just made by [`write`]) back and checks it holds exactly
/// `entries`, before it replaces anything on disk.
pub fn check_written(bytes: &[u8], entries: &[(String, Vec<u8>)]) -> Result<(), GameError> {
    let fail = |why: String| GameError::Write(format!("the volume made does not read back: {why}"));
    let mut zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| fail(e.to_string()))?;
    if zip.len() != entries.len() {
        return Err(fail(format!(
            "{} entries, {} given",
            zip.len(),
            entries.len()
        )));
    }
    for (name, expected) in entries {
        let mut z = zip
            .by_name(name)
            .map_err(|e| fail(format!("{name}: {e}")))?;
        let mut got = Vec::new();
        z.read_to_end(&mut got)
            .map_err(|e| fail(format!("{name}: {e}")))?;
        if &got != expected {
            return Err(fail(format!("{name}: other bytes")));
        }
    }
    Ok(())
}
