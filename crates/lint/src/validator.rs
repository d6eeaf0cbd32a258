//! The one table of how lint stands to the Khronos glTF-Validator's codes: which ones lint
//! covers (the same situation reported at the same place, under one of its own finding codes,
//! with lint's own severity rule), and which it leaves to the validator, with the reason.
//!
//! `tests/lint_conformance.rs` reads the validator's own reports (`.report.json`, vendored beside
//! its test assets under `tests/data/`) and holds lint to this table: every message of a covered
//! code has its lint finding, every code in a vendored report is in the table, and every entry
//! of the table is triggered by at least one vendored asset.

use super::Finding;

/// Where lint's finding for a validator message is, relative to the message's JSON pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The same pointer, or one inside the other (`/nodes/0` and `/nodes/0/skin`), or another
    /// `JOINTS_n`/`WEIGHTS_n` set of the same primitive (lint reports a primitive's weight sums
    /// once, at its first set, where the validator names every set).
    Same,
    /// The same top-level object (`/skins/0`): lint names the part, e.g. the joint whose
    /// inverse bind matrix is bad, where the validator names the accessor.
    Object,
    /// Anywhere in the file: lint reports the situation once, where it shows (a node loop where
    /// it closes, the accessors that read past a buffer view).
    File,
}

/// How lint stands to one validator code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidatorCode {
    /// The validator's code, e.g. `SKIN_NO_COMMON_ROOT`.
    pub code: &'static str,
    /// Lint finding codes, one of which reports the message's situation at its place (the part
    /// of the document the message is about).
    /// Empty: lint leaves the code to the validator.
    pub lint: &'static [&'static str],
    /// Where lint covers it: JSON pointer patterns, `*` standing for one segment. Empty:
    /// everywhere. Messages elsewhere are left to the validator.
    pub within: &'static [&'static str],
    /// Where lint's finding is, relative to the message.
    pub place: Place,
    /// What lint checks for it, or why it is (there) left to the validator.
    pub why: &'static str,
}

impl ValidatorCode {
    /// Whether lint reports a message of this code at `pointer`.
    pub fn covers(&self, pointer: &str) -> bool {
        !self.lint.is_empty()
            && (self.within.is_empty() || self.within.iter().any(|p| pointer_matches(p, pointer)))
    }

    /// Whether `finding` is lint's report of this code's message at `pointer`: one of its lint
    /// codes, at its place.
    pub fn reported_by(&self, pointer: &str, finding: &Finding) -> bool {
        let f = finding.pointer.as_str();
        self.lint.contains(&finding.code)
            && match self.place {
                Place::Same => {
                    let (a, b) = (primitive_sets(pointer), primitive_sets(f));
                    inside(a, b) || inside(b, a)
                }
                Place::Object => top_object(pointer) == top_object(f),
                Place::File => true,
            }
    }

    const fn at(self, place: Place) -> Self {
        ValidatorCode { place, ..self }
    }
}

/// A primitive's `.../attributes/JOINTS_n` or `WEIGHTS_n` cut to `.../attributes/`.
fn primitive_sets(pointer: &str) -> &str {
    let Some((head, last)) = pointer.rsplit_once('/') else {
        return pointer;
    };
    let set = ["JOINTS_", "WEIGHTS_"].iter().any(|k| {
        last.strip_prefix(k)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if set && head.ends_with("/attributes") {
        pointer.get(..head.len() + 1).unwrap_or(pointer)
    } else {
        pointer
    }
}

/// Whether pointer `inner` is `outer` or inside it.
fn inside(inner: &str, outer: &str) -> bool {
    inner == outer
        || (inner.starts_with(outer)
            && (outer.ends_with('/') || inner.as_bytes().get(outer.len()) == Some(&b'/')))
}

/// `/skins/0/joints/1` → `/skins/0`.
fn top_object(pointer: &str) -> &str {
    let end = pointer
        .match_indices('/')
        .nth(2)
        .map_or(pointer.len(), |(i, _)| i);
    pointer.get(..end).unwrap_or(pointer)
}

/// `pattern` against `pointer`, segment by segment; `*` matches any one segment.
fn pointer_matches(pattern: &str, pointer: &str) -> bool {
    let (mut a, mut b) = (pattern.split('/'), pointer.split('/'));
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(p), Some(s)) if p == "*" || p == s => {}
            _ => return false,
        }
    }
}

/// The entry for a validator code, when the table has one.
pub fn validator_code(code: &str) -> Option<&'static ValidatorCode> {
    VALIDATOR_CODES.iter().find(|c| c.code == code)
}

const fn covered(
    code: &'static str,
    lint: &'static [&'static str],
    within: &'static [&'static str],
    why: &'static str,
) -> ValidatorCode {
    ValidatorCode {
        code,
        lint,
        within,
        place: Place::Same,
        why,
    }
}

const fn left(code: &'static str, why: &'static str) -> ValidatorCode {
    ValidatorCode {
        code,
        lint: &[],
        within: &[],
        place: Place::Same,
        why,
    }
}

const SKINNING_DATA: &str =
    "data checks outside skinning (vertex positions, normals, tangents, colours, indices) are the validator's: they do not decide how a rig deforms";
const SCHEMA: &str =
    "the JSON schema in full is the validator's; lint reads only the fields skinning needs and reports those it cannot read";
const SAMPLERS: &str =
    "animation sampler formats, counts and bounds are the validator's; lint reads a channel's first key only, through the checked accessor reader";

/// Every validator code met in the vendored reports, covered or left (errors, warnings and
/// infos; hints are not judged).
pub const VALIDATOR_CODES: &[ValidatorCode] = &[
    // Skins.
    covered("SKIN_IBM_INVALID_FORMAT", &["ibm-type"], &[], "IBMs must be MAT4 FLOAT"),
    covered("INVALID_IBM_ACCESSOR_COUNT", &["ibm-count"], &[], "one IBM per joint"),
    covered(
        "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE",
        &["ibm-strided"],
        &[],
        "IBMs must be tightly packed",
    ),
    covered(
        "ACCESSOR_INVALID_IBM",
        &["ibm-not-affine", "ibm-not-invertible"],
        &[],
        "an IBM's last row must be 0 0 0 1 (lint: a warning, loaders drop the row), and it must be invertible; lint names the joint",
    )
    .at(Place::Object),
    covered(
        "SKIN_NO_COMMON_ROOT",
        &["skin-no-common-root", "index-invalid"],
        &[],
        "the joints must share a root; where a joint index does not resolve, lint names it instead",
    ),
    covered(
        "SKIN_SKELETON_INVALID",
        &["skin-skeleton-not-ancestor"],
        &[],
        "skin.skeleton must be an ancestor of every joint",
    ),
    // Nodes and skinned meshes.
    covered(
        "NODE_SKIN_NO_SCENE",
        &["skin-joints-not-in-scene"],
        &[],
        "a skinned mesh's joints must be in its scene",
    ),
    covered(
        "NODE_SKINNED_MESH_WITHOUT_SKIN",
        &["node-joints-without-skin"],
        &[],
        "a mesh with JOINTS shown by a node without a skin",
    ),
    covered(
        "NODE_SKIN_WITH_NON_SKINNED_MESH",
        &["node-skin-without-joints"],
        &[],
        "a node with a skin whose mesh has no JOINTS",
    ),
    covered(
        "NODE_SKINNED_MESH_NON_ROOT",
        &["skinned-mesh-transformed"],
        &[],
        "one info for a skinned mesh node whose world transform is not the identity (parent or local): the spec ignores it",
    ),
    covered(
        "NODE_SKINNED_MESH_LOCAL_TRANSFORMS",
        &["skinned-mesh-transformed"],
        &[],
        "as NODE_SKINNED_MESH_NON_ROOT",
    ),
    covered(
        "NODE_SKINNED_MESH_PARENT_TRANSFORMS",
        &["skinned-mesh-transformed"],
        &[],
        "as NODE_SKINNED_MESH_NON_ROOT",
    ),
    covered(
        "UNSATISFIED_DEPENDENCY",
        &["node-skin-without-mesh"],
        &["/nodes/*/skin"],
        "a node's skin needs a mesh; the schema's other dependencies (a node's morph weights) are the validator's",
    ),
    covered(
        "EMPTY_ENTITY",
        &["skin-joints-empty"],
        &["/skins/*/joints"],
        "a skin needs joints; other empty arrays and objects are schema matters, the validator's",
    ),
    covered(
        "NODE_LOOP",
        &["node-hierarchy"],
        &[],
        "the node hierarchy must be a forest: lint builds world matrices from it, and reports a loop once, where it closes",
    )
    .at(Place::File),
    covered(
        "NODE_PARENT_OVERRIDE",
        &["node-hierarchy"],
        &[],
        "a node may have one parent",
    ),
    covered(
        "ROTATION_NON_UNIT",
        &["node-transform-invalid"],
        &[],
        "world matrices need unit rotations",
    ),
    covered(
        "UNRESOLVED_REFERENCE",
        &["index-invalid"],
        &[
            "/skins/*/joints/*",
            "/skins/*/skeleton",
            "/skins/*/inverseBindMatrices",
            "/nodes/*/children/*",
            "/nodes/*/skin",
            "/nodes/*/mesh",
            "/animations/*/channels/*/target/node",
        ],
        "the indices lint follows; the rest (cameras, materials, the samplers and accessors of channels on nodes that are no joints) are the validator's",
    ),
    // Animations.
    covered(
        "ANIMATION_CHANNEL_TARGET_NODE_SKIN",
        &["skinned-mesh-animated"],
        &[],
        "animating a skinned mesh node does nothing by the spec",
    ),
    left("ANIMATION_CHANNEL_TARGET_NODE_MATRIX", SAMPLERS),
    left("ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS", "morph targets are the validator's"),
    left("ANIMATION_DUPLICATE_TARGETS", SAMPLERS),
    left("ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", SAMPLERS),
    left("ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", SAMPLERS),
    left("ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS", SAMPLERS),
    left("ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS", SAMPLERS),
    left("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", SAMPLERS),
    left("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", SAMPLERS),
    // Skinning attributes.
    covered(
        "ACCESSOR_JOINTS_INDEX_OOB",
        &["joints-out-of-range"],
        &[],
        "a JOINTS value past the skin's joints",
    ),
    covered(
        "ACCESSOR_JOINTS_INDEX_DUPLICATE",
        &["joint-repeated"],
        &[],
        "a vertex naming a joint twice, across every set: Blender's importer keeps only the last weight",
    ),
    covered(
        "ACCESSOR_JOINTS_USED_ZERO_WEIGHT",
        &["joint-zero-weight"],
        &[],
        "an info: harmless to every loader",
    ),
    covered(
        "ACCESSOR_WEIGHTS_NEGATIVE",
        &["weights-invalid"],
        &[],
        "weights must be finite and not negative",
    ),
    covered(
        "ACCESSOR_WEIGHTS_NON_NORMALIZED",
        &["weights-not-normalized", "weights-zero-sum"],
        &[],
        "the sum over every WEIGHTS_n set; lint's tolerance is 0.97..1.03, the validator's about one float step per weight",
    ),
    covered(
        "BUFFER_VIEW_TOO_LONG",
        &["accessor-invalid", "buffer-too-short"],
        &[],
        "lint reads accessor data only within its buffer, and names the accessors that would read past it",
    )
    .at(Place::File),
    // Left: schema, data outside skinning, objects lint does not judge.
    left("ACCESSOR_INDEX_OOB", SKINNING_DATA),
    left("ACCESSOR_INDEX_PRIMITIVE_RESTART", SKINNING_DATA),
    left("ACCESSOR_INDEX_TRIANGLE_DEGENERATE", SKINNING_DATA),
    left("ACCESSOR_INVALID_SIGN", SKINNING_DATA),
    left("ACCESSOR_NON_CLAMPED", SKINNING_DATA),
    left("ACCESSOR_VECTOR3_NON_UNIT", SKINNING_DATA),
    left("NODE_EMPTY", "a node with nothing in it harms no rig"),
    left(
        "NODE_MATRIX_DEFAULT",
        "an identity matrix written out is legal and harmless",
    ),
    left(
        "NODE_MATRIX_NON_TRS",
        "lint reads matrices as they are; whether one decomposes to TRS is the validator's",
    ),
    left("NODE_MATRIX_TRS", SCHEMA),
    left("NODE_WEIGHTS_INVALID", "morph targets are the validator's"),
    left("UNUSED_MESH_WEIGHTS", "morph targets are the validator's"),
    left("UNUSED_MESH_TANGENT", SKINNING_DATA),
    left(
        "SCENE_NON_ROOT_NODE",
        "scene membership is judged only for a skinned mesh's joints (NODE_SKIN_NO_SCENE)",
    ),
    left("UNDEFINED_PROPERTY", SCHEMA),
    left("UNEXPECTED_PROPERTY", SCHEMA),
    left("VALUE_NOT_IN_LIST", SCHEMA),
    left("VALUE_NOT_IN_RANGE", SCHEMA),
    left(
        "UNUSED_OBJECT",
        "lint reports only unused skins (skin-unused); other unused objects harm no rig",
    ),
    left(
        "UNSUPPORTED_EXTENSION",
        "extensions are the validator's, except noticing compressed data",
    ),
    left(
        "INCOMPLETE_EXTENSION_SUPPORT",
        "extensions are the validator's, except noticing compressed data",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Severity;

    fn finding(code: &'static str, pointer: &str) -> Finding {
        Finding {
            severity: Severity::Error,
            code,
            pointer: pointer.to_string(),
            message: String::new(),
        }
    }

    #[test]
    fn pointer_patterns_match_whole_segments() {
        assert!(pointer_matches("/skins/*/joints/*", "/skins/0/joints/12"));
        assert!(!pointer_matches("/skins/*/joints/*", "/skins/0/joints"));
        assert!(!pointer_matches("/skins/*/joints", "/skins/0/joints/1"));
        assert!(!pointer_matches("/nodes/*/skin", "/nodes/0/skins"));
    }

    #[test]
    fn places() {
        let sums = validator_code("ACCESSOR_WEIGHTS_NON_NORMALIZED").unwrap();
        let prim = "/meshes/0/primitives/1/attributes";
        let f = finding("weights-not-normalized", &format!("{prim}/WEIGHTS_0"));
        assert!(sums.reported_by(&format!("{prim}/WEIGHTS_1"), &f));
        assert!(!sums.reported_by("/meshes/0/primitives/0/attributes/WEIGHTS_1", &f));
        assert!(!sums.reported_by(
            &format!("{prim}/WEIGHTS_1"),
            &finding("weights-invalid", &format!("{prim}/WEIGHTS_0"))
        ));
        // One inside the other, at a segment boundary.
        let dep = validator_code("NODE_SKIN_WITH_NON_SKINNED_MESH").unwrap();
        let f = finding("node-skin-without-joints", "/nodes/1/skin");
        assert!(dep.reported_by("/nodes/1", &f));
        assert!(!dep.reported_by(
            "/nodes/10",
            &finding("node-skin-without-joints", "/nodes/1")
        ));
        assert!(!dep.reported_by("/nodes/2", &f));
        // The same object; anywhere.
        let ibm = validator_code("ACCESSOR_INVALID_IBM").unwrap();
        let f = finding("ibm-not-invertible", "/skins/0/joints/3");
        assert!(ibm.reported_by("/skins/0/inverseBindMatrices", &f));
        assert!(!ibm.reported_by("/skins/1/inverseBindMatrices", &f));
        let unused = validator_code("UNUSED_OBJECT").unwrap();
        assert!(!unused.covers("/nodes/0"));
        let scoped = validator_code("EMPTY_ENTITY").unwrap();
        assert!(scoped.covers("/skins/0/joints") && !scoped.covers("/nodes"));
    }
}
