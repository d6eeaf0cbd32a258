//! The loader's constants as the report gives them: value, status, quirks and the intended
//! formula. A leaf, shared by the loader that computes them and the machine that runs on them.

use serde::Serialize;

/// A quirk of the shipped loader, reproduced on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Quirk {
    /// Stable code.
    pub code: &'static str,
    /// What it means.
    pub note: &'static str,
}

/// Why a constant has no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConstantStatus {
    /// Computed from the clips.
    Measured,
    /// A clip it needs is missing: the original crashes on load; the reconstruction keeps its
    /// bring-up default.
    Missing,
    /// A figure it needs is not in the file (a speed cap without extras, a clip without root
    /// motion or keyframes).
    Unknown,
    /// The limp set is absent, so the loader never measures it.
    NotLoaded,
    /// The formula divides by zero (or gives a non-finite number).
    Degenerate,
}

/// What the intended formula would give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Intended {
    /// The intended formula.
    pub formula: &'static str,
    /// Its value.
    pub value: Option<f64>,
    /// Whether it differs from the shipped formula.
    pub differs: bool,
}

/// One loader constant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Constant {
    /// The member's name in the game.
    pub name: &'static str,
    /// What the figure really is (several names are historical and misleading).
    pub holds: &'static str,
    /// The shipped formula (s = stride, d = duration, cap = speed cap; numbers are slots).
    pub formula: &'static str,
    /// The slots it reads.
    pub slots: Vec<u8>,
    /// The value, when measured.
    pub value: Option<f64>,
    /// Measured, or why not.
    pub status: ConstantStatus,
    /// Specifics when not measured.
    pub detail: Option<String>,
    /// Quirks reproduced in this constant.
    pub quirks: Vec<Quirk>,
    /// With `--intended`: what the intended formula gives.
    pub intended: Option<Intended>,
}
