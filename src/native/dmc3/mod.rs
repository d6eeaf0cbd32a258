//! DMC3 node-domain block and MOD/SCM container (STUB: being written; see the DMC3 helper's brief).

/// A DMC3 file: a MOD/SCM container, or any file holding a node-domain block.
#[derive(Debug, Clone, PartialEq)]
pub enum Dmc3File {
    /// Placeholder.
    Stub,
}

impl Dmc3File {
    /// `mod`, `scm` or `block`.
    pub fn kind(&self) -> &'static str {
        "block"
    }
}

/// Why a DMC3 file was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Dmc3Error {
    /// Placeholder.
    #[error("not implemented")]
    NotImplemented,
}

/// Whether `data` starts with `"MOD "` or `"SCM "`.
pub fn has_container_magic(data: &[u8]) -> bool {
    data.starts_with(b"MOD ") || data.starts_with(b"SCM ")
}

/// Reads a MOD or SCM container.
pub fn read_container(_data: &[u8]) -> Result<Dmc3File, Dmc3Error> {
    Err(Dmc3Error::NotImplemented)
}

/// Reads a node-domain block of `nodes` nodes at `offset` inside any file, keeping every other byte.
pub fn read_block_in(_data: &[u8], _offset: u64, _nodes: usize) -> Result<Dmc3File, Dmc3Error> {
    Err(Dmc3Error::NotImplemented)
}

/// Writes the file back.
pub fn write(_file: &Dmc3File) -> Result<Vec<u8>, Dmc3Error> {
    Err(Dmc3Error::NotImplemented)
}
