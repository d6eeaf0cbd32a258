//! What differs per native format, behind one trait: the default space conversion, the joint
//! limit, the extras payloads, the integer placements recorded beside the float transforms,
//! how an incoming (possibly edited) joint is told apart from float noise, what renumbering
//! would break, and which native fields lowering recomputed. The glTF layer calls only these
//! methods, so a new format is one more implementation in `rig/` and one more entry in
//! [`FORMATS`](super::formats::FORMATS) (and in [`Source::format`]), in `rig/formats.rs`.

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extras::ExtrasError;
use super::mesh::{IncomingMesh, Mesh, MeshRefusal, MeshWrite};
use super::space::{Space, TransformProblem};
use super::{
    JointPayload, LiftMemo, LowerError, RebuildError, Rig, Skeleton, SkeletonPayload, Source,
};
use crate::native::NativeFile;

/// A joint's integer placement as a format stores it: its depth in the hierarchy and its
/// offset from the parent. The export records it beside the float transform where the float
/// cannot hold every stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Placement {
    /// Depth in the hierarchy (1 for a root).
    pub depth: u16,
    /// Offset from the parent, native units.
    pub offset: [i32; 3],
}

/// What a joint node's extras recorded of its [`Placement`] (each part may be missing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Recorded {
    /// The recorded depth.
    pub depth: Option<u16>,
    /// The recorded offset.
    pub offset: Option<[i32; 3]>,
}

/// One incoming joint as the format sees it.
#[derive(Debug, Clone, Copy)]
pub struct IncomingJoint<'a> {
    /// Its payload (read from the extras, or the format's default for an added joint).
    pub payload: &'a JointPayload,
    /// Its original index, `None` for an added joint.
    pub original: Option<usize>,
    /// Whether no joint of its skeleton is above it.
    pub root: bool,
    /// What its node's extras recorded of its stored placement.
    pub recorded: Recorded,
}

/// How far an incoming value is from a candidate, and how far it may be to still be noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deviation {
    /// The distance (metres or radians, as the glTF measures it).
    pub value: f64,
    /// The tolerance that applies.
    pub tolerance: f64,
}

impl Deviation {
    /// Whether the deviation is within the tolerance (false for NaN).
    pub fn within(self) -> bool {
        self.value <= self.tolerance
    }

    /// Whether the deviation is beyond the tolerance (false for NaN).
    pub fn exceeds(self) -> bool {
        self.value > self.tolerance
    }
}

/// The incoming transform of one joint and the yardstick for it, provided by the reader of the
/// edited document: the format proposes native candidates, the reader says how far the incoming
/// values are from what it would have written for them, and keeps account of accepted noise.
pub trait Judge {
    /// The incoming local translation as the document holds it (metres), for messages.
    fn translation_m(&self) -> DVec3;
    /// The incoming local translation in native space and units.
    fn translation(&self) -> DVec3;
    /// The incoming local rotation in native space.
    fn rotation(&self) -> DQuat;
    /// The incoming translation against what the export writes for native translation `t`;
    /// `Err` when `t` cannot be written at all.
    fn translation_off(&self, t: DVec3) -> Result<Deviation, TransformProblem>;
    /// The incoming rotation against what the export writes for native rotation `q`.
    fn rotation_off(&self, q: DQuat) -> Result<Deviation, TransformProblem>;
    /// Records a translation deviation accepted as noise.
    fn translation_noise(&mut self, d: Deviation);
    /// Records a rotation deviation accepted as noise.
    fn rotation_noise(&mut self, d: Deviation);
}

/// What the format made of an incoming joint.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Restored {
    /// Local translation, native units: the original bits where the incoming value is noise.
    pub translation: DVec3,
    /// Local rotation, the same way.
    pub rotation: DQuat,
    /// The translation is an edit.
    pub moved: bool,
    /// The rotation is an edit.
    pub rotated: bool,
    /// Changes to report besides moved/rotated/added (e.g. `now a root`).
    pub changes: Vec<String>,
    /// Native fields set to documented defaults.
    pub defaults: Vec<String>,
    /// Precision lost storing the value, when worth reporting.
    pub rounding: Option<String>,
    /// A note for the whole import that this joint calls for (reported once).
    pub note: Option<&'static str>,
}

/// Why an incoming joint cannot be restored.
#[derive(Debug, Clone, PartialEq)]
pub enum JointProblem {
    /// The native format cannot hold it: refused, with the field named (the import goes on to
    /// collect every refusal).
    Refused {
        /// The native field concerned.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The incoming value cannot be judged at all: the import stops at this joint.
    Broken(BrokenJoint),
}

/// Why an incoming joint cannot be judged at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrokenJoint {
    /// A transform the export could not write.
    #[error(transparent)]
    Transform(#[from] TransformProblem),
    /// A payload of another format than the one restoring it (`a DMC3 node`).
    #[error("the joint's payload is not {0}'s")]
    ForeignPayload(&'static str),
}

impl From<TransformProblem> for JointProblem {
    fn from(p: TransformProblem) -> JointProblem {
        JointProblem::Broken(p.into())
    }
}

impl JointProblem {
    /// A refusal of `field`.
    pub(crate) fn refused(field: &'static str, problem: String) -> JointProblem {
        JointProblem::Refused { field, problem }
    }

    /// A payload of another format than the one restoring it (`owner`: "a DMC3 node").
    pub(crate) fn foreign_payload(owner: &'static str) -> JointProblem {
        JointProblem::Broken(BrokenJoint::ForeignPayload(owner))
    }
}

/// Something outside the joints that names joints by index and would change meaning when they
/// are renumbered or removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The original joint index concerned.
    pub joint: usize,
    /// The native field that holds the reference.
    pub field: &'static str,
    /// What would break.
    pub problem: String,
}

/// Per skeleton, the joints as the writer wrote them.
pub type Written = [Vec<WrittenJoint>];

/// One written joint of an imported skeleton, as the import decided it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WrittenJoint {
    /// Its original index, `None` for an added joint.
    pub original: Option<usize>,
    /// Whether its translation was edited.
    pub moved: bool,
    /// What its node's extras recorded of its stored placement.
    pub recorded: Recorded,
}

/// The native fields lowering recomputed for one skeleton.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Recomputed {
    /// Per written joint, the fields recomputed.
    pub joints: Vec<Vec<String>>,
    /// Skeleton-level fields rewritten (arrays, layout).
    pub rewritten: Vec<String>,
}

/// What differs per native format. Implemented once per format family in `rig/`.
pub trait RigFormat: Sync + std::fmt::Debug {
    /// The format names of `scene.extras.rigtrip.format` this family reads (`Rig::kind`).
    fn names(&self) -> &'static [&'static str];
    /// The short name of the file a source describes (one of [`RigFormat::names`]).
    fn kind(&self, source: &Source) -> &'static str;
    /// The space conversion rigtrip exports the format with.
    fn default_space(&self) -> Space;
    /// The most joints one skeleton can hold (bounds joint counts read from extras).
    fn max_joints(&self) -> usize;
    /// The rig's geometry in native units.
    fn meshes(&self, rig: &Rig) -> Vec<Mesh>;
    /// What a material name means to the format, as a canonical key (DMC3: `texture_N` for a
    /// texture index, a copy's `.001` suffix dropped); `None` when it means nothing (another
    /// tool's default material): then it changes nothing.
    fn material_key(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
    /// The material name that gives a new mesh the format's material number `i` (DMC3:
    /// `texture_i`), for a mesh whose own material means nothing to the format (`import
    /// --onto`: glTF material index order); `None` when the format has no such numbers.
    fn material_for_index(&self, i: usize) -> Option<String> {
        let _ = i;
        None
    }
    /// Sets the texture count the rig's file keeps (textures were added to the archive it
    /// comes in), giving the count before and where it is kept (`"+0x12"`); `None` for a
    /// format without one.
    fn set_texture_count(&self, rig: &mut Rig, count: u8) -> Option<(u8, &'static str)> {
        let _ = (rig, count);
        None
    }
    /// Writes the meshes of an edited document into the rig's file-level remainder: every
    /// original mesh not listed is removed, listed ones are kept or rebuilt, new ones added.
    /// What the format cannot hold is refused by mesh (`space` shows points as the user sees
    /// them).
    fn write_meshes(
        &self,
        rig: &mut Rig,
        incoming: &[IncomingMesh],
        space: Space,
    ) -> Result<MeshWrite, MeshRefusal>;
    /// Lowers a rig of this format back to its native file (`memo`: what the lift of the same
    /// rig kept, possibly nothing).
    fn lower(&self, rig: &Rig, memo: &LiftMemo) -> Result<NativeFile, LowerError>;
    /// `lower(rig)?.write_into(out)`, without copying what lowering leaves unchanged.
    fn lower_write_into(
        &self,
        rig: &Rig,
        memo: &LiftMemo,
        out: &mut Vec<u8>,
    ) -> Result<(), RebuildError>;

    /// The file-level remainder back from extras JSON; `pointer` names where `v` was found.
    fn source_from_json(&self, v: &Value, pointer: &str) -> Result<Source, ExtrasError>;
    /// A skeleton payload back from extras JSON.
    fn skeleton_from_json(&self, v: &Value, pointer: &str) -> Result<SkeletonPayload, ExtrasError>;
    /// A joint payload back from extras JSON.
    fn joint_from_json(&self, v: &Value, pointer: &str) -> Result<JointPayload, ExtrasError>;
    /// The file-level remainder read typed from extras JSON text, in the form the export writes
    /// it; `None` for anything else (then read by [`RigFormat::source_from_json`]).
    fn source_from_str(&self, text: &str) -> Option<Source>;
    /// A skeleton payload read typed from extras JSON text (see [`RigFormat::source_from_str`]).
    /// (A joint's payload is read typed with its node's tag, as the type of the format's
    /// [`JointPayload`] variant: see [`RigFormat::new_joint`].)
    fn skeleton_from_str(&self, text: &str) -> Option<SkeletonPayload>;

    /// The stored placement of every joint of skeleton `s`, exactly as lowering writes it, for
    /// formats whose stored values a float transform cannot always hold (`None`: not needed,
    /// or the skeleton does not lower).
    fn placements(&self, s: usize, skeleton: &Skeleton) -> Option<Vec<Placement>>;
    /// The payload of a joint added in the glTF.
    fn new_joint(&self) -> JointPayload;
    /// Which variant the format's payloads are (for reading them typed).
    fn payloads(&self) -> Payloads;
    /// The local translation and rotation a joint's payload holds (its rest pose as read), for
    /// formats whose payload keeps the whole transform; `None` otherwise.
    fn payload_transform(&self, payload: &JointPayload) -> Option<(DVec3, DQuat)> {
        let _ = payload;
        None
    }
    /// The parents of the original joints, from the skeleton payload or from the depths the
    /// joint nodes recorded (indexed by original joint); `None` when they are not known.
    fn original_parents(
        &self,
        skeleton: &SkeletonPayload,
        joints: usize,
        recorded_depths: &[Option<u16>],
    ) -> Option<Vec<Option<usize>>>;
    /// An incoming joint's native transform: the original bits where the incoming values are
    /// noise, the edit where they are not, or why the format cannot hold it.
    fn restore(
        &self,
        joint: IncomingJoint<'_>,
        judge: &mut dyn Judge,
    ) -> Result<Restored, JointProblem>;
    /// The order the joints must be stored in, given each joint's parent (indices into the
    /// same list), when it is not the given one, with the note saying why.
    fn storage_order(&self, parents: &[Option<usize>]) -> Option<(Vec<usize>, &'static str)>;
    /// The first reference outside the joints that the new numbering breaks: original joint
    /// `k` becomes `map[k]` (`None`: removed), and `joints_after` joints are written.
    fn renumbering_conflict(
        &self,
        source: &Source,
        skeleton: &SkeletonPayload,
        map: &[Option<usize>],
        joints_after: usize,
        removal: bool,
    ) -> Option<Conflict>;
    /// A joint's rest rotation as Euler angles X, Y, Z (applied in that order, radians): the
    /// values a motion channel without a track keeps. Formats that store angles give the stored
    /// ones (another triple can give the same rotation but not the same pose once a motion
    /// replaces one of its angles); the default decomposes the rotation.
    fn rest_euler(&self, joint: &super::Joint) -> [f64; 3] {
        super::space::euler_xyz(joint.rotation)
    }
    /// The native fields lowering recomputed, per skeleton of `rig`, from the lowered `native`
    /// file and what the import decided per written joint.
    fn recomputed(&self, rig: &Rig, native: &NativeFile, written: &Written) -> Vec<Recomputed>;
    /// What the import should say about the lowered `native` file as a whole (a file laid out
    /// again, and how); none by default.
    fn layout_notes(&self, rig: &Rig, native: &NativeFile) -> Vec<String> {
        let _ = (rig, native);
        Vec::new()
    }
}

/// Which variant of [`Source`], [`SkeletonPayload`] and [`JointPayload`] a format's payloads
/// are: for typed reads that must know the payload type before they meet the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payloads {
    /// [`Source::Hie`], [`SkeletonPayload::Hie`], [`JointPayload::Hie`].
    Hie,
    /// [`Source::Dmc3`], [`SkeletonPayload::Dmc3`], [`JointPayload::Dmc3`].
    Dmc3,
}

/// The methods of a [`RigFormat`] impl that only wrap the format's payload types in its variant
/// `$v` of [`Source`], [`SkeletonPayload`] and [`JointPayload`]: the payloads back from extras
/// JSON, an added joint's default payload, and which variant they are. `$upgrade` turns the
/// source JSON of an older document into the current form (the typed fast path fails on the old
/// form, and the import falls back to this one).
macro_rules! payload_methods {
    ($v:ident) => {
        $crate::rig::format::payload_methods!($v, std::borrow::Cow::Borrowed);
    };
    ($v:ident, $upgrade:path) => {
        fn source_from_json(
            &self,
            v: &serde_json::Value,
            pointer: &str,
        ) -> Result<Source, $crate::rig::extras::ExtrasError> {
            $crate::rig::extras::from_json(&$upgrade(v), pointer).map(Source::$v)
        }

        fn skeleton_from_json(
            &self,
            v: &serde_json::Value,
            pointer: &str,
        ) -> Result<SkeletonPayload, $crate::rig::extras::ExtrasError> {
            $crate::rig::extras::from_json(v, pointer).map(SkeletonPayload::$v)
        }

        fn joint_from_json(
            &self,
            v: &serde_json::Value,
            pointer: &str,
        ) -> Result<JointPayload, $crate::rig::extras::ExtrasError> {
            $crate::rig::extras::from_json(v, pointer).map(JointPayload::$v)
        }

        fn source_from_str(&self, text: &str) -> Option<Source> {
            $crate::rig::extras::from_str(text).map(Source::$v)
        }

        fn skeleton_from_str(&self, text: &str) -> Option<SkeletonPayload> {
            $crate::rig::extras::from_str(text).map(SkeletonPayload::$v)
        }

        fn new_joint(&self) -> JointPayload {
            JointPayload::$v(Default::default())
        }

        fn payloads(&self) -> $crate::rig::format::Payloads {
            $crate::rig::format::Payloads::$v
        }
    };
}
pub(crate) use payload_methods;

/// A typed read that needs the joint payload type before it meets the value (a node's tag read
/// in one pass with its payload): [`Payloads::read_joint`] calls [`JointReader::read`] with the
/// format's payload type and the function that wraps it in its [`JointPayload`] variant.
pub trait JointReader {
    /// What the read gives.
    type Out;
    /// Reads with payload type `P`, wrapped by `wrap`.
    fn read<P: serde::de::DeserializeOwned>(self, wrap: fn(P) -> JointPayload) -> Self::Out;
}

impl Payloads {
    /// `reader` run with this format's joint payload type.
    pub fn read_joint<R: JointReader>(self, reader: R) -> R::Out {
        match self {
            Payloads::Hie => reader.read(JointPayload::Hie),
            Payloads::Dmc3 => reader.read(JointPayload::Dmc3),
        }
    }
}
