//! What the CLI commands do, as library functions: each command is a thin wrapper over these.

pub mod character;
pub mod check;
pub mod cloth;
pub mod coverage;
pub mod dump;
pub mod dump_schema;
pub mod game;
pub mod import_check;
pub mod inspect;
pub mod layout_leg;
pub mod motion;
pub mod names;
pub mod output;
pub mod shadow;
pub mod texture;
pub mod verdict;
pub mod verify;

use crate::native::{Format, NativeFile, ReadError};
use crate::rig::{self, Rig};

/// Reads `data` as `format` (detected when `None`) and lifts it into the IR.
pub fn load(format: Option<Format>, data: &[u8]) -> Result<Rig, ReadError> {
    NativeFile::read(format, data).map(rig::lift)
}
