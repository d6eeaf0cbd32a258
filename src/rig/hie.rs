//! HIE lift/lower (STUB: being written; see the HIE helper's brief).

use super::{LowerError, Rig};
use crate::native::hie::HieFile;

/// File-level remainder of a HIE file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HieShell {}

/// Per-hierarchy payload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HieSkeleton {}

/// Per-part payload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HieJoint {}

/// Native → IR.
pub fn lift(_file: HieFile) -> Rig {
    Rig {
        source: super::Source::Hie(HieShell::default()),
        skeletons: Vec::new(),
    }
}

/// IR → native.
pub fn lower(_rig: &Rig) -> Result<HieFile, LowerError> {
    Ok(HieFile::default())
}
