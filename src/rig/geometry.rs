//! Lifting native geometry into format-neutral meshes (STUB until the DMC3 container lands).

use super::dmc3::Dmc3Shell;
use super::mesh::Mesh;

/// The meshes of a MOD/SCM container, in native units.
pub(crate) fn dmc3_meshes(_shell: &Dmc3Shell) -> Vec<Mesh> {
    Vec::new()
}

/// `mod`, `scm` or `block`.
pub(crate) fn dmc3_kind(_shell: &Dmc3Shell) -> &'static str {
    "dmc3"
}
