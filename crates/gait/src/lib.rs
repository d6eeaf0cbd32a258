//! `rigtrip gait`: the 1995 mech simulator's gait clip loader and leg-channel transition machine
//! (the game's `mech2.cpp`, as public research describes it), run on glTF animations named like the game's clips.
//!
//! What it does, in the order the report lists it:
//! 1. inventory: the 0x21-slot `animationClips` table filled from animations named
//!    prefix + code, missing mandatory clips, the optional limp set (probed by `wgl`), the bump
//!    slot, and animations that look like gait clips but fill no slot;
//! 2. per clip: duration, the root joint's displacement along the forward axis, the stride
//!    (the distance along the clip's direction of travel; `extras.rigtrip.stride` overrides) and
//!    the speed cap (`extras.rigtrip.speedCap`; never invented);
//! 3. the loader's constants with its quirks reproduced and marked ([`loader`]);
//! 4. the leg channel's transition machine driven by a demand timeline ([`machine`]);
//! 5. a preview GLB: the input plus one animation playing the chosen clips ([`preview`]).
//!
//! The game's keyframe format is not public: rigtrip works on glTF only, and every place where
//! that description is silent and we had to choose is named in the report's notes.

mod constant;
mod doc;
pub mod loader;
pub mod machine;
pub mod preview;
mod render;
pub mod slots;

use rigtrip_gltf::DataError;
use std::path::Path;

use serde::Serialize;

pub use constant::{Constant, ConstantStatus, Intended, Quirk};
pub use machine::{parse_demand, Demand, MachineParams, Segment, Simulation};
pub use preview::preview_glb;
pub use slots::{Family, Hand, Role, SlotSet, SLOT_COUNT};

/// Why the gait tools could not do their job.
#[derive(Debug, thiserror::Error)]
pub enum GaitError {
    /// The input file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The GLB container is malformed.
    #[error("GLB at offset {offset:#x}: {problem}")]
    Glb {
        /// Byte offset in the file.
        offset: u64,
        /// What is wrong.
        problem: String,
    },
    /// The glTF JSON could not be parsed.
    #[error("glTF JSON: {0}")]
    Json(String),
    /// A buffer's data could not be loaded, or an accessor cannot be read.
    #[error(transparent)]
    Data(#[from] DataError),
    /// No animation is named like a gait clip, so no prefix can be detected.
    #[error("no animation name ends with a gait code (swr, wwr, ..., bmp); pass --prefix")]
    NoGaitClips,
    /// Several prefixes fit equally well.
    #[error("the clip prefix is ambiguous ({}); pass --prefix", .0.join(", "))]
    AmbiguousPrefix(Vec<String>),
    /// The demand timeline is malformed.
    #[error("demand: {0}")]
    Demand(String),
    /// The axis is not one of x, y, z with an optional sign.
    #[error("axis '{0}': expected x, y or z with an optional + or - sign (e.g. +z, -x)")]
    Axis(String),
    /// The preview cannot be built.
    #[error("preview: {0}")]
    Preview(String),
}

/// A coordinate axis with a sign: the mech's forward direction in the clips' root space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Axis {
    /// +X.
    PosX,
    /// -X.
    NegX,
    /// +Y.
    PosY,
    /// -Y.
    NegY,
    /// +Z, glTF's "front of the asset" and the default.
    #[default]
    PosZ,
    /// -Z.
    NegZ,
}

impl Axis {
    /// Index of the coordinate (0 = x) and the sign (+1 or -1).
    pub fn parts(self) -> (usize, f64) {
        match self {
            Axis::PosX => (0, 1.0),
            Axis::NegX => (0, -1.0),
            Axis::PosY => (1, 1.0),
            Axis::NegY => (1, -1.0),
            Axis::PosZ => (2, 1.0),
            Axis::NegZ => (2, -1.0),
        }
    }

    /// The component of `v` along the axis (exact: a coordinate, possibly negated).
    pub fn along(self, v: [f64; 3]) -> f64 {
        let (i, s) = self.parts();
        match v.get(i) {
            Some(&x) if s < 0.0 => -x,
            Some(&x) => x,
            None => 0.0,
        }
    }

    /// `+x`, `-z`, ...
    pub fn label(self) -> &'static str {
        match self {
            Axis::PosX => "+x",
            Axis::NegX => "-x",
            Axis::PosY => "+y",
            Axis::NegY => "-y",
            Axis::PosZ => "+z",
            Axis::NegZ => "-z",
        }
    }
}

impl Serialize for Axis {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// Parses `+z`, `-x`, `z`, `Y` ... (sign optional, `+` by default).
pub fn parse_axis(s: &str) -> Result<Axis, GaitError> {
    let t = s.trim().to_ascii_lowercase();
    let (neg, letter) = match t.as_bytes() {
        [b'+', c] => (false, *c),
        [b'-', c] => (true, *c),
        [c] => (false, *c),
        _ => return Err(GaitError::Axis(s.to_string())),
    };
    Ok(match (letter, neg) {
        (b'x', false) => Axis::PosX,
        (b'x', true) => Axis::NegX,
        (b'y', false) => Axis::PosY,
        (b'y', true) => Axis::NegY,
        (b'z', false) => Axis::PosZ,
        (b'z', true) => Axis::NegZ,
        _ => return Err(GaitError::Axis(s.to_string())),
    })
}

/// What the caller may choose.
#[derive(Debug, Clone, Default)]
pub struct GaitOptions {
    /// The clip prefix (e.g. `mad`); detected from the animation names when `None`.
    pub prefix: Option<String>,
    /// The mech's forward axis in root space (default +Z).
    pub forward: Axis,
    /// The demand timeline driving the transition machine; no simulation when `None`.
    pub demand: Option<Demand>,
    /// Also give each constant as the intended formula would compute it.
    pub intended: bool,
}

/// Where the prefix came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrefixSource {
    /// `--prefix`.
    Given,
    /// The one prefix that names the most distinct gait codes.
    Detected,
}

/// The joint whose translation is the clips' root motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootJoint {
    /// Node index.
    pub node: usize,
    /// Node name.
    pub name: Option<String>,
    /// How it was chosen.
    pub how: &'static str,
}

/// A slot's state after loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlotStatus {
    /// An animation fills it.
    Filled,
    /// The loader resolves it but no animation has the name (the original crashes on load).
    Missing,
    /// A limp slot left empty because the `wgl` probe failed.
    NotLoaded,
    /// This loader never fills the slot.
    NotFilled,
}

/// Where a clip's stride came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StrideSource {
    /// The root joint's translation, first to last keyframe.
    RootMotion,
    /// `animation.extras.rigtrip.stride`.
    Extras,
    /// Neither is available.
    None,
}

/// What was measured on one clip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipMeasure {
    /// Animation index.
    pub animation: usize,
    /// Animation name.
    pub name: String,
    /// Time of the earliest keyframe of any channel, seconds.
    pub start: Option<f64>,
    /// Duration d: latest minus earliest keyframe time over all channels, seconds.
    pub duration: Option<f64>,
    /// Keyframes of the root joint's translation channel.
    pub root_keyframes: Option<usize>,
    /// The root joint's translation, last keyframe minus first.
    pub root_motion: Option<[f64; 3]>,
    /// `root_motion` along the forward axis.
    pub displacement: Option<f64>,
    /// +1 for clips that travel forward, -1 for the reverse gait's clips (authored backward).
    pub direction: f64,
    /// Stride s: the distance along the clip's direction of travel (`direction * displacement`),
    /// or the extras override. The game's clip data holds it positive.
    pub stride: Option<f64>,
    /// Where `stride` came from.
    pub stride_source: StrideSource,
    /// `extras.rigtrip.speedCap` (the game reads it one entry past the last keyframe).
    pub speed_cap: Option<f64>,
    /// What is odd about the clip.
    pub problems: Vec<String>,
}

/// One of the 0x21 slots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlotReport {
    /// Slot index.
    pub slot: u8,
    /// The code the loader appends to the prefix (`None` for slots it never fills).
    pub code: Option<&'static str>,
    /// The animation name the loader looks for.
    pub expected: Option<String>,
    /// What the clip does.
    pub meaning: &'static str,
    /// The foot it steps with.
    pub hand: Option<Hand>,
    /// How the loader treats the slot.
    pub set: SlotSet,
    /// The constants measured from it.
    pub measures: Vec<&'static str>,
    /// Filled, missing, not loaded or never filled.
    pub status: SlotStatus,
    /// The measured clip, when filled.
    pub clip: Option<ClipMeasure>,
}

/// A mandatory (or probed limp) clip that no animation provides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingClip {
    /// Slot index.
    pub slot: u8,
    /// Code.
    pub code: &'static str,
    /// The animation name looked for.
    pub name: String,
}

/// The optional limp set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimpSet {
    /// The animation the loader probes (prefix + `wgl`).
    pub probe: String,
    /// Whether the probe found it (then slots 22-27 are loaded).
    pub present: bool,
}

/// The bump slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BumpSlot {
    /// 0x20: why the table has 0x21 slots.
    pub slot: u8,
    /// The animation that fills it.
    pub animation: Option<String>,
}

/// An animation that looks like a gait clip but fills no slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unmatched {
    /// Animation index.
    pub animation: usize,
    /// Its name.
    pub name: String,
    /// Why it looks like a gait clip and why it fills no slot.
    pub reason: String,
}

/// Everything `rigtrip gait` reports; `--json` prints it as is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GaitReport {
    /// The clip prefix.
    pub prefix: String,
    /// Given or detected.
    pub prefix_source: PrefixSource,
    /// The forward axis used for strides.
    pub forward: Axis,
    /// The root joint whose translation is the root motion.
    pub root_joint: Option<RootJoint>,
    /// 0x21.
    pub slot_count: usize,
    /// All 0x21 slots in order.
    pub slots: Vec<SlotReport>,
    /// Clips the loader resolves that no animation provides (the original crashes on load).
    pub missing: Vec<MissingClip>,
    /// The optional limp set.
    pub limp_set: LimpSet,
    /// The bump slot.
    pub bump: BumpSlot,
    /// Animations that look like gait clips but fill no slot.
    pub unmatched: Vec<Unmatched>,
    /// The loader's constants, in the loader's order.
    pub constants: Vec<Constant>,
    /// Whether `constants[].intended` was asked for.
    pub intended: bool,
    /// The transition machine's run, when a demand was given.
    pub simulation: Option<Simulation>,
    /// Things worth knowing about this file.
    pub notes: Vec<String>,
}

impl GaitReport {
    /// The report as text for a terminal.
    pub fn render_text(&self) -> String {
        render::text(self)
    }

    /// The slot with index `slot`.
    pub fn slot(&self, slot: u8) -> Option<&SlotReport> {
        self.slots.get(usize::from(slot))
    }

    /// The constant called `name` (e.g. `gimpStrideLength`).
    pub fn constant(&self, name: &str) -> Option<&Constant> {
        self.constants.iter().find(|c| c.name == name)
    }
}

/// Reads `path` (GLB or glTF; external buffers relative to its folder) and analyses it.
pub fn analyse_path(path: &Path, opts: &GaitOptions) -> Result<GaitReport, GaitError> {
    let bytes = std::fs::read(path).map_err(|source| GaitError::Io {
        path: path.display().to_string(),
        source,
    })?;
    analyse_slice(&bytes, path.parent(), opts)
}

/// Analyses a GLB or glTF held in memory; external files are resolved against `base_dir`.
pub fn analyse_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    opts: &GaitOptions,
) -> Result<GaitReport, GaitError> {
    let (doc, _) = doc::load(bytes, base_dir)?;
    let validation = doc::lint_errors(bytes, base_dir);
    loader::analyse(&doc, validation.as_deref(), opts)
}
