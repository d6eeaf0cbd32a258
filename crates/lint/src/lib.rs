//! `rigtrip lint`: the skin-contract diagnosis for any glTF or GLB, ours or not.
//!
//! The input is read without the `gltf` crate's validating loader, because broken files are the
//! point: the JSON is parsed with serde_json, the GLB header and chunks are read by
//! the read model's container reader ([`rigtrip_gltf::glb`]), the buffers (BIN chunk, `data:` URIs, files next to the
//! input, at most `byteLength` bytes of each) by the shared loader and accessor data by the
//! shared checked reader, with every offset, stride and count checked first. Every problem goes
//! to the findings (`out::Out`, the linter's diagnostics sink), and the reading goes on.
//! Nothing in the input can make the linter panic; an unreadable file is a report with an error
//! finding.
//!
//! What is checked: skins vs skinned mesh nodes, each skin's joints,
//! common root and `skeleton`; inverse bind matrices (present, MAT4 FLOAT, one per joint,
//! invertible) and bind vs rest pose per joint; first keyframe vs rest pose; JOINTS/WEIGHTS
//! pairs, node ↔ skin ↔ JOINTS in both directions, slots in range, slots written as node
//! indices, weight sums, repeated joints, more than four influences; node names Blender would
//! change.
//!
//! Severities follow one rule: **error**, a loader will draw it wrong or refuse it;
//! **warning**, legal, but Blender or another major loader will likely change or mis-show it;
//! **info**, worth knowing. The CLI exits 2 when a file cannot be read or is not glTF/GLB
//! ([`LintReport::not_gltf`]), else 1 when a file has an error finding.
//!
//! Finding codes (E error, W warning, I info):
//! - reading: `unreadable` E, `glb-invalid` E/W, `glb-alignment` W, `json-invalid` E,
//!   `json-schema` E, `asset-version` E, `buffer-missing` E (I when no buffer view reads it, or
//!   for an `EXT_meshopt_compression` fallback), `buffer-invalid` E, `buffer-too-short` E,
//!   `buffer-unresolved` W, `accessor-invalid` E, `accessor-no-data` I, `data-compressed` I,
//!   `index-invalid` E, `node-hierarchy` E, `node-transform-invalid` E;
//! - skins: `no-skins` I, `skin-unused` I, `skin-joints-empty` E, `skin-joint-duplicate` E,
//!   `skin-no-common-root` E, `skin-skeleton-not-ancestor` E, `ibm-missing` E/I, `ibm-type` E,
//!   `ibm-strided` E, `ibm-count` E, `ibm-not-invertible` E, `ibm-not-affine` W,
//!   `bind-rest-mismatch` W (I for a joint an animation drives: the file was saved posed),
//!   `bind-pose-offset` I, `first-key-snap` I, `skinned-mesh-animated` W
//!   (bind vs rest compares world · IBM with the identity or with the world matrix of a mesh
//!   node showing the skin: either puts the surface where it was modelled);
//! - primitives and nodes: `joints-weights-unpaired` E, `attribute-count` E, `joints-type` E,
//!   `weights-type` E, `weights-invalid` E, `weights-zero-sum` E, `weights-not-normalized` E
//!   (the sum over every `WEIGHTS_n` set), `joint-repeated` E (a vertex naming a joint twice,
//!   in one set or across two), `joint-zero-weight` I, `influences-over-4` I (valid glTF that runtimes reading only
//!   `JOINTS_0` draw otherwise),
//!   `node-joints-without-skin` W, `node-skin-without-joints` E, `node-skin-without-mesh` E,
//!   `skin-joints-not-in-scene` E, `primitive-not-skinned` W, `skinned-mesh-transformed` I,
//!   `joints-out-of-range` E, `joint-slot-as-node-index` E;
//! - names: `name-duplicate` W (I when neither node is a joint; with the `.001`, `.002`, … name
//!   Blender gives), `name-too-long` W.
//!
//! How lint stands to each Khronos glTF-Validator code, covered (under which finding codes,
//! where) or left to the validator (and why), is one table, [`VALIDATOR_CODES`];
//! `tests/lint_conformance.rs` holds lint to it on the validator's own test assets and reports.
//! Lint adds what the validator does not judge: bind vs rest pose, first keyframes, JOINTS
//! written as node indices, Blender's renames. Left to the validator on purpose: the JSON schema
//! in full, materials, textures and images, cameras, morph targets, animation sampler formats
//! and counts, accessor `min`/`max`, buffer view targets and alignment hints, extensions other
//! than noticing compression, and every data check outside skinning.

mod container;
mod doc;
mod json_without_extras;
mod names;
mod out;
mod prim;
mod render;
mod skin;
mod validator;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use doc::Doc;
use out::Out;
pub use out::{Finding, Severity};
use rigtrip_gltf::buffers::Policy;
pub use validator::{validator_code, ValidatorCode, VALIDATOR_CODES};

/// Per-vertex weight sums of a primitive, bucketed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WeightSums {
    /// Sum exactly 0: bound to no joint.
    pub zero: usize,
    /// Sum in (0, 0.97).
    pub below: usize,
    /// Sum in [0.97, 0.999).
    pub low: usize,
    /// Sum in [0.999, 1.001].
    pub unit: usize,
    /// Sum in (1.001, 1.03].
    pub high: usize,
    /// Sum above 1.03.
    pub above: usize,
    /// A weight is negative or not finite.
    pub invalid: usize,
}

/// Inventory of one skin.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SkinSummary {
    /// Index in `skins`.
    pub index: usize,
    /// Skin name.
    pub name: Option<String>,
    /// Joint count (`joints.length`).
    pub joints: usize,
    /// Closest common ancestor of the joints (`None` when they have none).
    pub root: Option<usize>,
    /// Name of that node.
    pub root_name: Option<String>,
    /// `skin.skeleton`.
    pub skeleton: Option<usize>,
    /// Whether `skeleton` is an ancestor-or-self of every joint (`None` without `skeleton`).
    pub skeleton_is_common_ancestor: Option<bool>,
    /// IBM accessor index.
    pub inverse_bind_matrices: Option<usize>,
    /// IBMs present, MAT4 FLOAT, one per joint, all invertible.
    pub ibm_ok: bool,
    /// Largest deviation of world(joint) · IBM from the identity (relative), over the joints.
    pub max_bind_error: Option<f64>,
    /// Nodes that show a mesh with this skin.
    pub mesh_nodes: usize,
    /// Joints targeted by an animation channel.
    pub animated_joints: usize,
}

/// Inventory of one primitive with JOINTS or WEIGHTS.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PrimitiveSummary {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index in the mesh.
    pub primitive: usize,
    /// Skinned nodes showing it.
    pub nodes: Vec<usize>,
    /// Skins it is bound with.
    pub skins: Vec<usize>,
    /// Vertex count.
    pub vertices: usize,
    /// Number of JOINTS_n/WEIGHTS_n sets (more than 1: more than 4 influences).
    pub influence_sets: usize,
    /// Largest JOINTS value with non-zero weight.
    pub max_joint: Option<u32>,
    /// Histogram of weight sums (when the data could be read).
    pub weight_sums: Option<WeightSums>,
    /// Vertices whose weights sum to zero.
    pub zero_sum_vertices: usize,
    /// Vertices whose weight sum is outside 0.97..1.03 (zero sums not included).
    pub sums_outside_tolerance: usize,
}

/// The lint of one file: inventory, findings and a verdict.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LintReport {
    /// The file as named by the caller (`path` in JSON, as in every command's).
    #[serde(rename = "path")]
    pub file: String,
    /// `glb`, `gltf`, or empty when the file could not be read (`format` in JSON).
    #[serde(rename = "format")]
    pub container: String,
    /// One line: `FAIL: 2 errors, 1 warning, 0 infos`, `WARN: ...` or `OK: ...`.
    pub verdict: String,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Info findings.
    pub infos: usize,
    /// Node count.
    pub nodes: usize,
    /// Mesh count.
    pub meshes: usize,
    /// Animation count.
    pub animations: usize,
    /// Skin count.
    pub skin_count: usize,
    /// Nodes with both a mesh and a skin.
    pub skinned_mesh_nodes: usize,
    /// Per skin.
    pub skins: Vec<SkinSummary>,
    /// Per primitive with skinning attributes.
    pub primitives: Vec<PrimitiveSummary>,
    /// Everything found, in document order of the checks.
    pub findings: Vec<Finding>,
}

impl LintReport {
    /// Whether any finding is an error (the CLI exits 1).
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// Whether the file could not be read or is not glTF/GLB at all (the CLI exits 2): no JSON
    /// found, JSON that does not parse or is not an object, or no `asset` object.
    pub fn not_gltf(&self) -> bool {
        self.container.is_empty()
            || self.findings.iter().any(|f| {
                matches!(f.code, "unreadable" | "json-invalid")
                    || (f.code == "asset-version" && f.pointer == "/asset")
            })
    }

    /// Whether any finding is a warning.
    pub fn has_warnings(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == Severity::Warning)
    }

    /// The codes of the findings of `severity`, in order.
    pub fn codes(&self, severity: Severity) -> Vec<&'static str> {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .map(|f| f.code)
            .collect()
    }

    /// A readable table of the inventory and findings, ending with the verdict line.
    pub fn render_text(&self) -> String {
        render::text(self)
    }

    /// Counts and verdict from the findings.
    fn finish(&mut self) {
        let count = |s| self.findings.iter().filter(|f| f.severity == s).count();
        self.errors = count(Severity::Error);
        self.warnings = count(Severity::Warning);
        self.infos = count(Severity::Info);
        let word = if self.errors > 0 {
            "FAIL"
        } else if self.warnings > 0 {
            "WARN"
        } else {
            "OK"
        };
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        self.verdict = format!(
            "{word}: {}, {}, {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            plural(self.infos, "info")
        );
    }
}

/// The exit code of a lint run: 2 when a file is not glTF at all, else 1 when any file has an
/// error finding, else 0.
pub fn exit_code(reports: &[LintReport]) -> i32 {
    if reports.iter().any(|r| r.not_gltf()) {
        2
    } else if reports.iter().any(|r| r.has_errors()) {
        1
    } else {
        0
    }
}

/// Lints the file at `path`; external buffers are looked up next to it.
pub fn lint_path(path: &Path) -> LintReport {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            lint_slice(&bytes, &name, Some(dir))
        }
        Err(e) => {
            let mut r = LintReport {
                file: name,
                ..LintReport::default()
            };
            r.findings.push(Finding {
                severity: Severity::Error,
                code: "unreadable",
                pointer: String::new(),
                message: format!("cannot read the file: {e}"),
            });
            r.finish();
            r
        }
    }
}

/// Lints a glTF or GLB held in memory; `name` labels the report, `base_dir` resolves external
/// buffer URIs (without it they are reported as not checked).
pub fn lint_slice(bytes: &[u8], name: &str, base_dir: Option<&Path>) -> LintReport {
    let mut out = Out::default();
    let mut report = LintReport {
        file: name.to_string(),
        ..LintReport::default()
    };
    if let Some(c) = container::split(bytes, &mut out) {
        report.container = c.kind.to_string();
        match json_without_extras::parse(c.json) {
            Err(e) => out.error("json-invalid", "", format!("the JSON does not parse: {e}")),
            Ok(Value::Object(root)) => {
                lint_root(&root, c.bin, base_dir, bytes.len(), &mut out, &mut report)
            }
            Ok(_) => out.error("json-invalid", "", "the JSON is not an object"),
        }
    }
    report.findings = out.findings;
    report.finish();
    report
}

fn lint_root(
    root: &serde_json::Map<String, Value>,
    bin: Option<&[u8]>,
    base_dir: Option<&Path>,
    input_len: usize,
    out: &mut Out,
    report: &mut LintReport,
) {
    match root
        .get("asset")
        .and_then(|a| a.get("version"))
        .and_then(Value::as_str)
    {
        Some(v) if v.starts_with("2.") => {}
        Some(v) => out.error(
            "asset-version",
            "/asset/version",
            format!("asset.version is {v:?}; only glTF 2.x is understood"),
        ),
        None => out.error("asset-version", "/asset", "asset.version is missing"),
    }
    out.optional_buffers = container::optional_buffers(root);
    let Ok(mut doc) = Doc::load(
        std::borrow::Cow::Borrowed(root),
        bin,
        base_dir,
        &Policy::LINT,
        out,
    );
    doc.limit = input_len.saturating_add(doc.buffer_bytes()).max(1 << 20);
    let graph = doc::build(&doc, out);
    names::check(&doc, out);
    let animated = skin::animated_nodes(&doc, graph.parent.len());
    let (skins, mut skin_summaries) = skin::check_skins(&doc, &graph, &animated, out);
    skin::check_first_keys(&doc, &graph, &skins, out);
    for (info, sum) in skins.iter().zip(skin_summaries.iter_mut()) {
        sum.animated_joints = info
            .joints
            .iter()
            .flatten()
            .filter(|&&j| animated.get(j).copied().unwrap_or(false))
            .count();
    }
    let (primitives, skinned) = prim::check(&doc, &graph, &skins, &mut skin_summaries, out);
    if skins.is_empty() {
        out.info(
            "no-skins",
            "/skins",
            "no skins: a static file, which is valid; nothing deforms",
        );
    }
    report.nodes = doc.array("nodes").len();
    report.meshes = doc.array("meshes").len();
    report.animations = doc.array("animations").len();
    report.skin_count = skins.len();
    report.skinned_mesh_nodes = skinned;
    report.skins = skin_summaries;
    report.primitives = primitives;
}
