//! The native layer: one module per format, plain structs that represent every byte on disk.
//!
//! `read` is strict and bounds-checked; `write` is its exact inverse. Bytes that no structure
//! covers are kept as explicit [`crate::bytes::Gap`]s. No math happens here.

pub mod container_kind;
pub mod diagnose;
pub mod dmc3;
pub mod finding;
pub mod formats_doc;
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

impl ReadError {
    /// Said for the file at `path` (see [`diagnose::Unrecognised::named`]).
    pub fn named(self, path: &std::path::Path) -> ReadError {
        match self {
            ReadError::Unrecognised(u) => ReadError::Unrecognised(u.named(path)),
            e => e,
        }
    }
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

/// Which non-rig native format a file is read as: DMC3 motions, archives and textures hold
/// animation, members or pixels, not one skeleton, so they are kept apart from [`NativeFile`]
/// (which lifts into a rig).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MotionFormat {
    /// DMC3 motion (`.mot`).
    Mot,
    /// DMC3 archive (`.pac`): motions, or a character's models and textures.
    Pac,
    /// DMC3 PTX texture bundle (`.ptx`).
    Ptx,
    /// A single DMC3 gfxTexture entry (`.tm2`).
    Tm2,
}

/// Guesses a non-rig format from content: `"PAC\0"` at 0, `"MOT\0"` at +4, a PTX span table
/// whose first texture has its DDS magic, or a DDS magic at +0x70 (one gfxTexture entry).
pub fn detect_motion(data: &[u8]) -> Option<MotionFormat> {
    if dmc3::pac::has_pac_magic(data) {
        Some(MotionFormat::Pac)
    } else if dmc3::motion::has_mot_magic(data) {
        Some(MotionFormat::Mot)
    } else if dmc3::texture::looks_like_ptx(data) {
        Some(MotionFormat::Ptx)
    } else if dmc3::texture::looks_like_texture(data) {
        Some(MotionFormat::Tm2)
    } else {
        None
    }
}

/// [`detect_motion`], else the format a `.ptx` or `.tm2` name says (a texture whose DDS
/// header was zeroed has no magic to be recognised by).
pub fn detect_motion_named(path: &std::path::Path, data: &[u8]) -> Option<MotionFormat> {
    detect_motion(data).or_else(|| {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "ptx" => Some(MotionFormat::Ptx),
            "tm2" => Some(MotionFormat::Tm2),
            _ => None,
        }
    })
}

/// A native non-rig file of any supported format.
#[derive(Debug, Clone, PartialEq)]
pub enum MotionFile {
    /// A DMC3 motion.
    Mot(dmc3::Mot),
    /// A DMC3 archive.
    Pac(dmc3::Pac),
    /// A DMC3 PTX texture bundle.
    Ptx(dmc3::Ptx),
    /// A single DMC3 gfxTexture entry.
    Tm2(dmc3::Texture),
}

/// Why a non-rig file was not accepted or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionError {
    /// Motion reader or writer.
    #[error("mot")]
    Mot(#[source] dmc3::MotError),
    /// Archive reader or writer.
    #[error("pac")]
    Pac(#[source] dmc3::PacError),
    /// Texture reader or writer.
    #[error("texture")]
    Texture(#[source] dmc3::TextureError),
}

impl MotionFile {
    /// Reads `data` as `format`.
    pub fn read(format: MotionFormat, data: &[u8]) -> Result<Self, MotionError> {
        match format {
            MotionFormat::Mot => dmc3::Mot::read(data)
                .map(MotionFile::Mot)
                .map_err(MotionError::Mot),
            MotionFormat::Pac => dmc3::Pac::read(data)
                .map(MotionFile::Pac)
                .map_err(MotionError::Pac),
            MotionFormat::Ptx => dmc3::Ptx::read(data)
                .map(MotionFile::Ptx)
                .map_err(MotionError::Texture),
            MotionFormat::Tm2 => dmc3::Texture::read(data)
                .map(MotionFile::Tm2)
                .map_err(MotionError::Texture),
        }
    }

    /// [`MotionFile::read`] with the format detected from content; `None` when no magic is
    /// there.
    pub fn detect_read(data: &[u8]) -> Option<Result<Self, MotionError>> {
        detect_motion(data).map(|f| MotionFile::read(f, data))
    }

    /// [`MotionFile::detect_read`], falling back on the name ([`detect_motion_named`]).
    pub fn detect_read_named(
        path: &std::path::Path,
        data: &[u8],
    ) -> Option<Result<Self, MotionError>> {
        detect_motion_named(path, data).map(|f| MotionFile::read(f, data))
    }

    /// Writes the file into `out` (cleared first); for an unmodified read the exact bytes.
    pub fn write_into(&self, out: &mut Vec<u8>) -> Result<(), MotionError> {
        match self {
            MotionFile::Mot(m) => m.write_into(out).map_err(MotionError::Mot),
            MotionFile::Pac(p) => p.write_into(out).map_err(MotionError::Pac),
            MotionFile::Ptx(p) => {
                *out = p.write().map_err(MotionError::Texture)?;
                Ok(())
            }
            MotionFile::Tm2(t) => {
                out.clear();
                t.write_into(out);
                Ok(())
            }
        }
    }

    /// Writes the file back.
    pub fn write(&self) -> Result<Vec<u8>, MotionError> {
        let mut out = Vec::new();
        self.write_into(&mut out)?;
        Ok(out)
    }

    /// `mot`, `pac`, `ptx` or `tm2`.
    pub fn kind(&self) -> &'static str {
        match self {
            MotionFile::Mot(_) => "mot",
            MotionFile::Pac(_) => "pac",
            MotionFile::Ptx(_) => "ptx",
            MotionFile::Tm2(_) => "tm2",
        }
    }
}
