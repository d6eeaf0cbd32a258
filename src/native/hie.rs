//! PlayStation `DBnnHIE.BIN` (STUB: being written; see the HIE helper's brief).

/// A whole DBnnHIE.BIN file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HieFile {}

/// Why a HIE file was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HieError {
    /// Placeholder.
    #[error("not implemented")]
    NotImplemented,
}

/// Whether `data` plausibly starts with a HIE slot table.
pub fn looks_like(_data: &[u8]) -> bool {
    false
}

/// Reads a whole file.
pub fn read(_data: &[u8]) -> Result<HieFile, HieError> {
    Err(HieError::NotImplemented)
}

/// Writes a whole file.
pub fn write(_file: &HieFile) -> Result<Vec<u8>, HieError> {
    Err(HieError::NotImplemented)
}
