//! The words of a verdict: what `verify` says of a file and of each leg, and where two byte
//! strings first differ. Shared by the checks of every kind of file (models, motions,
//! archives, textures).

use serde::Serialize;

use crate::rig;

/// The verdict on one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Verdict {
    /// Rebuilt bytes equal the input.
    Identical {
        /// `hie`, `mod`, `scm` or `block` (`format` in JSON, as in every command's).
        #[serde(rename = "format")]
        kind: &'static str,
        /// Skeletons that fail the spatial gate (still round-tripped), one message each.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        gate: Vec<String>,
        /// The native -> glTF -> native leg.
        gltf: GltfLeg,
        /// The layout leg: is the file in the game's retail layout (left out when not run).
        #[serde(skip_serializing_if = "LayoutLeg::not_run")]
        layout: LayoutLeg,
    },
    /// The reader accepted the file but the rebuilt bytes differ: a rigtrip bug.
    Differ {
        /// `hie`, `mod`, `scm` or `block` (`format` in JSON, as in every command's).
        #[serde(rename = "format")]
        kind: &'static str,
        /// What went wrong, with the first differing offset.
        message: String,
    },
    /// The file was not accepted (or could not be read); nothing was compared.
    Rejected {
        /// Why, in one line.
        message: String,
    },
    /// Found while walking a directory, not named like a rig file and not recognised by its
    /// content: not a rig file (a README, a texture). Named files are never skipped.
    Skipped,
}

/// What happened on the native -> glTF -> native leg of a file whose native leg was identical.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GltfLeg {
    /// The bytes rebuilt from the in-memory GLB equal the input.
    Identical,
    /// Not run: `--legs native`.
    NotRun,
    /// The rig has no glTF form (a skeleton fails the gate, a vertex names a joint the skeleton
    /// lacks, ...): the native leg alone counts.
    Skipped(String),
}

/// What the layout leg found: the file's decoded parts laid out anew by the game's retail rules
/// ([`crate::native::dmc3::layout`]), compared with the file. Information about the file, not
/// a check of the tool: a file that is not in the retail layout still verifies `identical`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LayoutLeg {
    /// Laid out anew, the file's bytes: it is in the retail layout.
    Identical,
    /// Not run: `--legs native` or `both`.
    NotRun,
    /// The file has no MOD/SCM layout (a hierarchy table, a motion, a texture, a block inside
    /// an unknown container, an archive without a model member): why.
    NotApplicable(String),
    /// Not in the retail layout: where laid out anew first differs.
    NotRetail(LayoutDifference),
    /// An archive: each MOD/SCM member's leg, in member order.
    Members(Vec<MemberLayout>),
}

impl LayoutLeg {
    /// Whether the leg was not run (then left out of the JSON).
    pub fn not_run(&self) -> bool {
        matches!(self, LayoutLeg::NotRun)
    }

    /// Whether the file (every model member of an archive) is in the retail layout.
    pub fn is_retail(&self) -> bool {
        match self {
            LayoutLeg::Identical => true,
            LayoutLeg::Members(m) => m.iter().all(|m| m.layout.is_retail()),
            _ => false,
        }
    }
}

/// Where a file laid out anew by the retail rules first differs from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayoutDifference {
    /// The first offset that differs (the shorter length when one is a prefix of the other).
    pub first: u64,
    /// The structure of the file that holds that byte, and where in it (`mesh record 0 of
    /// object 1 +0x40`); `past the end` when the file is shorter.
    pub structure: String,
    /// The file's length.
    pub original: u64,
    /// The length laid out anew.
    pub retail: u64,
}

impl std::fmt::Display for LayoutDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not in the retail layout: first difference at {:#x} ({}); {} bytes, {} laid out anew",
            self.first, self.structure, self.original, self.retail
        )
    }
}

/// One MOD/SCM member of an archive on the layout leg.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberLayout {
    /// The member's offset in the archive (nested archives: in the archive that holds it).
    pub offset: u32,
    /// The slots naming it.
    pub slots: Vec<usize>,
    /// `mod` or `scm`.
    pub format: &'static str,
    /// Its leg.
    pub layout: LayoutLeg,
}

/// Which legs `verify` runs. The native leg always runs: it is what reads the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legs {
    /// native -> IR -> native only.
    Native,
    /// Also native -> glTF (the real GLB serializer, in memory) -> native.
    Both,
    /// The native leg and the layout leg ([`LayoutLeg`]).
    Layout,
    /// All three.
    All,
}

impl Legs {
    /// Whether the glTF leg runs.
    pub fn gltf(self) -> bool {
        matches!(self, Legs::Both | Legs::All)
    }

    /// Whether the layout leg runs.
    pub fn layout(self) -> bool {
        matches!(self, Legs::Layout | Legs::All)
    }

    /// These legs without the layout leg (for the members of an archive, whose layout legs the
    /// archive's runs).
    pub fn without_layout(self) -> Legs {
        match self {
            Legs::Layout => Legs::Native,
            Legs::All => Legs::Both,
            other => other,
        }
    }
}

/// Says where two byte strings first differ.
pub fn describe_difference(original: &[u8], rebuilt: &[u8]) -> String {
    Difference::of(original, rebuilt).to_string()
}

/// Where two byte strings first differ, and their lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("first difference at {first:#x} (original {original} bytes, rebuilt {rebuilt} bytes)")]
pub struct Difference {
    /// The first offset that differs (the shorter length when one is a prefix of the other).
    pub first: usize,
    /// The original's length.
    pub original: usize,
    /// The rebuilt bytes' length.
    pub rebuilt: usize,
}

impl Difference {
    /// Where `rebuilt` first differs from `original`.
    pub fn of(original: &[u8], rebuilt: &[u8]) -> Difference {
        let first = original
            .iter()
            .zip(rebuilt)
            .position(|(a, b)| a != b)
            .unwrap_or(original.len().min(rebuilt.len()));
        Difference {
            first,
            original: original.len(),
            rebuilt: rebuilt.len(),
        }
    }
}

/// Why a glTF leg failed: a step of the round trip refused, or the bytes it gave back differ.
/// A step's error is shown with its whole chain of causes (the leg's message is one line).
#[derive(Debug, thiserror::Error)]
pub enum LegFailure {
    /// The motion file could not be read as a motion input.
    #[error("{}", crate::chain(.0.as_ref()))]
    Read(Box<rig::motion::MotionError>),
    /// Lowering the lifted motion file failed.
    #[error("lower failed: {}", crate::chain(.0.as_ref()))]
    Lower(Box<rig::motion::MotionError>),
    /// native -> IR -> native already differs.
    #[error("IR: {0}")]
    Ir(Difference),
    /// The character archive's tag could not be built.
    #[error("{}", crate::chain(.0.as_ref()))]
    Tag(Box<crate::rig::archive::ArchiveError>),
    /// The GLB serializer refused the export.
    #[error("{}", crate::chain(.0.as_ref()))]
    Glb(Box<crate::gltf::GlbError>),
    /// The import refused the GLB (`import failed: ` before its words, except in the
    /// archive's leg, whose message says the import already).
    #[error("{}{}", if *.prefixed { "import failed: " } else { "" }, crate::chain(.error.as_ref()))]
    Import {
        /// The import's error.
        error: Box<crate::gltf::ImportError>,
        /// Whether the words start with `import failed: `.
        prefixed: bool,
    },
    /// The bytes the import wrote differ from the input.
    #[error("{0}")]
    Differ(Difference),
    /// The import of a motion leg wrote no motion file.
    #[error("the import wrote no motion file")]
    NoMotionFile,
    /// A loose texture's PNG does not give its bytes back.
    #[error("texture {0}: its PNG does not give its bytes back")]
    TexturePng(usize),
}

impl LegFailure {
    /// The import's refusal, worded `import failed: ...`.
    pub(crate) fn import(error: crate::gltf::ImportError) -> LegFailure {
        LegFailure::Import {
            error: Box::new(error),
            prefixed: true,
        }
    }

    /// The GLB serializer's refusal.
    pub(crate) fn glb(error: crate::gltf::GlbError) -> LegFailure {
        LegFailure::Glb(Box::new(error))
    }
}
