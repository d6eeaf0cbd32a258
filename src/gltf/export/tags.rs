//! What the export writes under `extras.rigtrip`: one serialisable tag per kind of node and
//! the scene's, written straight into extras.

use super::*;
/// `v` serialised straight into glTF extras (no `serde_json::Value` tree on the way).
pub(super) fn extras<T: Serialize>(v: &T) -> json::Extras {
    serde_json::value::to_raw_value(v).ok()
}

/// Everything rigtrip writes into extras sits under this one key.
#[derive(Serialize)]
pub(super) struct Tagged<T> {
    pub(super) rigtrip: T,
}

/// `scene.extras.rigtrip`: the file.
#[derive(Serialize)]
pub(super) struct SceneTag<'a> {
    pub(super) format: &'a str,
    pub(super) schema: u32,
    pub(super) space: SpaceTag,
    pub(super) source: Native<'a, Source>,
    pub(super) skeletons: SkeletonTags<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) motions: Vec<MotionFileTag>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) archive: Option<&'a crate::rig::archive::ArchiveTag>,
}

/// `scene.extras.rigtrip.space` (the same value as [`Space::to_json`]).
#[derive(Serialize)]
pub(super) struct SpaceTag {
    pub(super) scale: f64,
    pub(super) rotation: &'static str,
}

/// `scene.extras.rigtrip.skeletons`: every skeleton's name, joint count and payload.
pub(super) struct SkeletonTags<'a>(pub(super) &'a [Skeleton]);

impl Serialize for SkeletonTags<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct One<'a> {
            name: &'a str,
            joints: usize,
            native: Native<'a, SkeletonPayload>,
        }
        s.collect_seq(self.0.iter().map(|sk| One {
            name: &sk.name,
            joints: sk.joints.len(),
            native: Native(&sk.native),
        }))
    }
}

/// A joint node's `extras.rigtrip`.
#[derive(Serialize)]
pub(super) struct JointTag<'a> {
    pub(super) skeleton: usize,
    pub(super) joint: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) offset: Option<[i32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) depth: Option<u16>,
    pub(super) native: Native<'a, JointPayload>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<&'a str>,
}

impl<'a> JointTag<'a> {
    /// The tag of joint `k` of skeleton `s`, with its stored placement when the format keeps
    /// one, in `part` (`None`: the model's own).
    pub(super) fn of(
        s: usize,
        k: usize,
        j: &'a crate::rig::Joint,
        placement: Option<&Placement>,
        part: Option<&'a str>,
    ) -> Self {
        JointTag {
            skeleton: s,
            joint: k,
            offset: placement.map(|p| p.offset),
            depth: placement.map(|p| p.depth),
            native: Native(&j.native),
            part,
        }
    }
}

/// A wrapper node's `extras.rigtrip`.
#[derive(Serialize)]
pub(super) struct WrapperTag<'a> {
    pub(super) skeleton: usize,
    pub(super) wrapper: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<&'a str>,
}

/// A rig mesh node's `extras.rigtrip`.
#[derive(Serialize)]
pub(super) struct MeshTag<'a> {
    pub(super) mesh: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<&'a str>,
}

/// A proxy mesh node's `extras.rigtrip` (a proxy always has its skeleton).
#[derive(Serialize)]
pub(super) struct ProxyTag<'a> {
    pub(super) proxy: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) skeleton: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<&'a str>,
}

/// The placeholder node's `extras.rigtrip`.
#[derive(Serialize)]
pub(super) struct PlaceholderTag {
    pub(super) placeholder: bool,
}
