//! The native layer: one module per format, plain structs that represent every byte on disk.
//!
//! `read` is strict and bounds-checked; `write` is its exact inverse. Bytes that no structure
//! covers are kept as explicit [`crate::bytes::Gap`]s. No math happens here.

pub mod diagnose;
pub mod dmc3;
pub mod hie;
pub mod record;

use std::fmt;

/// Which native format a file is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PlayStation `DBnnHIE.BIN` hierarchy table.
    Hie,
    /// DMC3 `.mod` / `.scm` container (told apart by its magic).
    Dmc3,
    /// A DMC3 node-domain block of `nodes` nodes at byte `offset` of any file (EFM and others).
    Block {
        /// Absolute offset of the block header.
        offset: u64,
        /// Node count.
        nodes: usize,
    },
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Hie => f.write_str("hie"),
            Format::Dmc3 => f.write_str("dmc3"),
            Format::Block { offset, nodes } => write!(f, "block@{offset:#x}x{nodes}"),
        }
    }
}

/// A native file of any supported format.
#[derive(Debug, Clone, PartialEq)]
pub enum NativeFile {
    /// `DBnnHIE.BIN`.
    Hie(hie::HieFile),
    /// A DMC3 MOD/SCM container, or any file with a node-domain block inside.
    Dmc3(dmc3::Dmc3File),
}

/// Why a file was not accepted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// HIE reader.
    #[error("hie")]
    Hie(#[from] hie::HieError),
    /// DMC3 reader.
    #[error("dmc3")]
    Dmc3(#[from] dmc3::Dmc3Error),
    /// No format recognised the content: what it looks like, and what to do.
    #[error(transparent)]
    Unrecognised(#[from] diagnose::Unrecognised),
    /// A DMC3 container of the earlier PC release, which rigtrip does not read.
    #[error("a pre-HD DMC3 container (the 2006 PC release: u32 block offset at +0x1C, 0x30-byte object records): only the HD Collection layout is supported")]
    PreHd,
}

/// Why a (modified) structure cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// HIE writer.
    #[error("hie")]
    Hie(#[source] hie::HieError),
    /// DMC3 writer.
    #[error("dmc3")]
    Dmc3(#[source] dmc3::Dmc3Error),
}

/// Guesses the format from content: a MOD/SCM magic, else a plausible HIE slot table.
pub fn detect(data: &[u8]) -> Option<Format> {
    if dmc3::has_container_magic(data) {
        Some(Format::Dmc3)
    } else if hie::looks_like(data) {
        Some(Format::Hie)
    } else {
        None
    }
}

impl NativeFile {
    /// Reads `data` as `format` (or as the detected format when `None`).
    pub fn read(format: Option<Format>, data: &[u8]) -> Result<Self, ReadError> {
        match format.or_else(|| detect(data)) {
            Some(Format::Hie) => Ok(NativeFile::Hie(hie::read(data)?)),
            Some(Format::Dmc3) => match dmc3::read_container(data) {
                Ok(f) => Ok(NativeFile::Dmc3(f)),
                Err(_) if diagnose::pre_hd(data) => Err(ReadError::PreHd),
                Err(e) => Err(e.into()),
            },
            Some(Format::Block { offset, nodes }) => {
                Ok(NativeFile::Dmc3(dmc3::read_block_in(data, offset, nodes)?))
            }
            None => Err(diagnose::unrecognised(data).into()),
        }
    }

    /// Writes the file back; for an unmodified structure the exact bytes it was read from.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        match self {
            NativeFile::Hie(f) => hie::write(f).map_err(WriteError::Hie),
            NativeFile::Dmc3(f) => dmc3::write(f).map_err(WriteError::Dmc3),
        }
    }

    /// [`NativeFile::write`] into a caller's buffer (cleared first), so that a caller writing
    /// many files can reuse one allocation. On error `out` holds nothing useful.
    pub fn write_into(&self, out: &mut Vec<u8>) -> Result<(), WriteError> {
        match self {
            NativeFile::Hie(f) => hie::write_into(f, out).map_err(WriteError::Hie),
            NativeFile::Dmc3(f) => dmc3::write_into(f, out).map_err(WriteError::Dmc3),
        }
    }

    /// A short name of the file's kind: `hie`, `mod`, `scm` or `block`.
    pub fn kind(&self) -> &'static str {
        match self {
            NativeFile::Hie(_) => "hie",
            NativeFile::Dmc3(f) => f.kind(),
        }
    }
}
