//! DMC3 lift/lower (STUB: being written; see the DMC3 helper's brief).

use super::{LowerError, Rig};
use crate::native::dmc3::Dmc3File;

/// File-level remainder of a DMC3 file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dmc3Shell {}

/// Per-block payload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dmc3Skeleton {}

/// Per-node payload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dmc3Joint {}

/// Native → IR.
pub fn lift(_file: Dmc3File) -> Rig {
    Rig {
        source: super::Source::Dmc3(Dmc3Shell::default()),
        skeletons: Vec::new(),
    }
}

/// IR → native.
pub fn lower(_rig: &Rig) -> Result<Dmc3File, LowerError> {
    Ok(Dmc3File::Stub)
}
