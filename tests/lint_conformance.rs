//! `rigtrip lint` against the Khronos glTF-Validator's own test assets for skins, skinned meshes,
//! nodes and animations, with the validator's reports on them (vendored under
//! `tests/data/khronos-validator/`, Apache-2.0, sources in its `SOURCES.md`), our synthetic
//! stand-ins (`synthetic/make.py`), and real skinned models made by others
//! (`tests/data/sample-assets/`, sources and licences in its `SOURCES.md`).
//!
//! Per file: exactly the findings lint gives (`ROWS`, `SAMPLES`), and, per message of the
//! validator's `.report.json` beside it (hints left out), what the one table of validator codes,
//! `rigtrip::lint::VALIDATOR_CODES`, says: a covered message has a finding of one of its lint
//! codes at its place; a code left to the validator has its reason there. Every code met in a
//! report is in the table, and every entry of the table is met in some report. Where the two
//! tools differ in severity, lint's rule decides (error: a loader draws it wrong or refuses it;
//! warning: legal, but Blender or another major loader will likely change or mis-show it; info:
//! worth knowing).

mod common;
use common::findings;

use std::path::{Path, PathBuf};

use rigtrip::lint::{lint_path, validator_code, Severity, VALIDATOR_CODES};
use serde_json::Value;

/// One vendored asset and exactly the findings lint gives it, in order: `severity code pointer`.
struct Row {
    /// Path under the data folder.
    file: &'static str,
    /// Lint's findings.
    lint: &'static [&'static str],
}

const fn row(file: &'static str, lint: &'static [&'static str]) -> Row {
    Row { file, lint }
}

const ROWS: &[Row] = &[
    row(
        "animation/channel_duplicate_targets.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/channel_node_matrix.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/channel_node_no_morphs.gltf",
        &["info no-skins /skins"],
    ),
    row("animation/custom_property.gltf", &["info no-skins /skins"]),
    row("animation/empty_array.gltf", &["info no-skins /skins"]),
    row("animation/empty_objects.gltf", &["info no-skins /skins"]),
    row(
        "animation/sampler_bufferview_bytestride.gltf",
        &["error buffer-missing /buffers/0", "info no-skins /skins"],
    ),
    row(
        "animation/sampler_input_format_invalid.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/sampler_input_no_bounds.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/sampler_output_count_invalid.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/sampler_output_format_invalid.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/sampler_too_few_cubic_frames.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/unresolved_channel_sampler.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/unresolved_channel_target.gltf",
        &[
            "error index-invalid /animations/0/channels/0/target/node",
            "info no-skins /skins",
        ],
    ),
    row(
        "animation/unresolved_sampler_input.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "animation/unresolved_sampler_output.gltf",
        &["info no-skins /skins"],
    ),
    row("animation/valid.gltf", &["info no-skins /skins"]),
    row(
        "mesh_data/colors_non_clamped.gltf",
        &["info no-skins /skins"],
    ),
    row(
        "mesh_data/index_buffer_degenerate_triangle.gltf",
        &["info no-skins /skins"],
    ),
    row("mesh_data/index_buffer_oob.gltf", &["info no-skins /skins"]),
    row(
        "mesh_data/index_buffer_primitive_restart.gltf",
        &["info no-skins /skins"],
    ),
    // The validator's BUFFER_VIEW_TOO_LONG: lint names the accessors that read past the buffer.
    row(
        "mesh_data/joints_no_weights.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "error accessor-invalid /accessors/1",
            "error accessor-invalid /accessors/2",
        ],
    ),
    // Vertex 1 names joint 1 in JOINTS_0 and again in JOINTS_1 (weight -1): a duplicate, a negative
    // weight, and a sum of 1.5 over the valid weights of both sets; value 9 is past skin 1's 8 joints.
    row(
        "mesh_data/joints_weights_complex.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info ibm-missing /skins/1/inverseBindMatrices",
            "error weights-invalid /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "error weights-not-normalized /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "error joint-repeated /meshes/0/primitives/0/attributes/JOINTS_1",
            "info joint-zero-weight /meshes/0/primitives/0/attributes/JOINTS_1",
            "info influences-over-4 /meshes/0/primitives/0/attributes/JOINTS_1",
            "error joints-out-of-range /meshes/0/primitives/0/attributes/JOINTS_1",
            "error joints-out-of-range /meshes/0/primitives/0/attributes/JOINTS_1",
        ],
    ),
    row(
        "mesh_data/normals_tangents_non_unit_invalid_sign.gltf",
        &["info no-skins /skins"],
    ),
    row("node/custom_property.gltf", &["info no-skins /skins"]),
    row("node/empty_array.gltf", &["info no-skins /skins"]),
    row("node/empty_children_array.gltf", &["info no-skins /skins"]),
    // 1e309 is beyond f64: serde_json refuses the number, so lint reports unparseable JSON
    // (exit 2) where the validator reads Infinity and reports VALUE_NOT_IN_RANGE.
    row("node/infinite_transform.gltf", &["error json-invalid "]),
    row("node/matrix_default.gltf", &["info no-skins /skins"]),
    row("node/matrix_indecomposable.gltf", &["info no-skins /skins"]),
    row("node/matrix_trs.gltf", &["info no-skins /skins"]),
    row("node/node_empty.gltf", &["info no-skins /skins"]),
    // Lint cuts the loop once, where it closes; the validator names every node on it.
    row(
        "node/node_loop.gltf",
        &[
            "error node-hierarchy /nodes/0/children",
            "info no-skins /skins",
        ],
    ),
    row(
        "node/node_loop_scene.gltf",
        &[
            "error node-hierarchy /nodes/0/children/0",
            "error node-hierarchy /nodes/5/children/0",
            "error node-hierarchy /nodes/1/children",
            "info no-skins /skins",
        ],
    ),
    row(
        "node/node_parent_override.gltf",
        &[
            "error node-hierarchy /nodes/1/children/0",
            "info no-skins /skins",
        ],
    ),
    row(
        "node/node_skin_without_skinned_mesh.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "error node-skin-without-joints /nodes/0/skin",
        ],
    ),
    row(
        "node/node_skinned_mesh_without_skin.gltf",
        &[
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "warning node-joints-without-skin /nodes/0",
            "info no-skins /skins",
        ],
    ),
    row("node/node_weights_invalid.gltf", &["info no-skins /skins"]),
    row("node/node_weights_override.gltf", &["info no-skins /skins"]),
    row(
        "node/rotation_non_unit.gltf",
        &[
            "error node-transform-invalid /nodes/0/rotation",
            "info no-skins /skins",
        ],
    ),
    row(
        "node/skin_with_no_mesh.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "error node-skin-without-mesh /nodes/0/skin",
            "info skin-unused /skins/0",
        ],
    ),
    row("node/unresolved_camera.gltf", &["info no-skins /skins"]),
    row(
        "node/unresolved_child_node.gltf",
        &[
            "error index-invalid /nodes/0/children/0",
            "info no-skins /skins",
        ],
    ),
    row(
        "node/unresolved_mesh.gltf",
        &["error index-invalid /nodes/0/mesh", "info no-skins /skins"],
    ),
    // The skin index does not resolve, and the node has no mesh for a skin anyway.
    row(
        "node/unresolved_skin.gltf",
        &[
            "error index-invalid /nodes/0/skin",
            "error node-skin-without-mesh /nodes/0/skin",
            "info no-skins /skins",
        ],
    ),
    row(
        "node/valid.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
        ],
    ),
    row("node/weights_with_no_mesh.gltf", &["info no-skins /skins"]),
    // The .gltf's buffer has no uri, and the IBM accessor reads it: no loader can.
    row(
        "skin/buffer_view_bytestride.gltf",
        &[
            "error buffer-missing /buffers/0",
            "error ibm-strided /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    row(
        "skin/custom_property.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    row("skin/empty_array.gltf", &["info no-skins /skins"]),
    row(
        "skin/empty_joints_array.gltf",
        &[
            "error skin-joints-empty /skins/0/joints",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    // A skin without `joints`: the schema's required property, and no joints to deform with.
    row(
        "skin/empty_object.gltf",
        &[
            "error json-schema /skins/0/joints",
            "error skin-joints-empty /skins/0/joints",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    // The validator stops at the first skin it finds wrong; skin 0 has 2 IBMs for 1 joint.
    row(
        "skin/ibm_invalid_count.gltf",
        &[
            "error ibm-count /skins/0/inverseBindMatrices",
            "info accessor-no-data /skins/0/inverseBindMatrices",
            "info accessor-no-data /skins/1/inverseBindMatrices",
            "error ibm-count /skins/2/inverseBindMatrices",
            "info accessor-no-data /skins/2/inverseBindMatrices",
            "info skin-unused /skins/0",
            "info skin-unused /skins/1",
            "info skin-unused /skins/2",
        ],
    ),
    row(
        "skin/ibm_invalid_format.gltf",
        &[
            "error ibm-type /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    row(
        "skin/ignored_animated_transform.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "warning skinned-mesh-animated /animations/0/channels/0/target/path",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
        ],
    ),
    row(
        "skin/ignored_local_transform.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "info skinned-mesh-transformed /nodes/1",
        ],
    ),
    // Info, not a warning: the transform is ignored by the spec, and loaders that keep it
    // (three.js binds with it) cancel it out while it does not move.
    row(
        "skin/ignored_parent_transform.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "info skinned-mesh-transformed /nodes/2",
        ],
    ),
    row(
        "skin/no_common_root.gltf",
        &[
            "error skin-no-common-root /skins/0/joints",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    row(
        "skin/no_joints_in_scene.gltf",
        &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "error skin-joints-not-in-scene /nodes/2",
        ],
    ),
    row(
        "skin/skeleton_invalid.gltf",
        &[
            "error skin-skeleton-not-ancestor /skins/0/skeleton",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    row(
        "skin/unresolved_ibm.gltf",
        &[
            "error index-invalid /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    // The validator's SKIN_NO_COMMON_ROOT here: lint names the joint index that does not resolve.
    row(
        "skin/unresolved_joint.gltf",
        &[
            "error index-invalid /skins/0/joints/0",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    row(
        "skin/unresolved_skeleton.gltf",
        &[
            "error index-invalid /skins/0/skeleton",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    // The IBM accessor has no buffer view: zeros by the spec, a placeholder, not judged.
    row(
        "skin/valid.gltf",
        &[
            "info accessor-no-data /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    ),
    // The IBMs' last rows are 1 2 3 4 and 0 0 0 0: singular as they stand (what lint judges first).
    row(
        "skin_data/invalid_ibm.gltf",
        &[
            "error ibm-not-invertible /skins/0/joints/0",
            "error ibm-not-invertible /skins/0/joints/1",
            "info skin-unused /skins/0",
        ],
    ),
    // CesiumMan's situation: the mesh node's world is not the identity and world · IBM
    // equals it for every joint.
    row(
        "synthetic/cesium_man_like.gltf",
        &["info skinned-mesh-transformed /nodes/2"],
    ),
    // The validator leaves a duplicate's weight out of the sum, so vertex 0 (0.5 + 0.5 on
    // joint 1) is not normalised for it; lint counts both (GPU skinning adds them) and names the
    // duplicate, an error: Blender's importer keeps only the last weight.
    row(
        "synthetic/influences.gltf",
        &[
            "error weights-not-normalized /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "error joint-repeated /meshes/0/primitives/0/attributes/JOINTS_0",
            "info joint-zero-weight /meshes/0/primitives/0/attributes/JOINTS_0",
            "info influences-over-4 /meshes/0/primitives/0/attributes/JOINTS_1",
        ],
    ),
    // SimpleSkin's situation: identity mesh node, IBMs offsetting the whole mesh; a clip
    // starting away from the rest pose (Fox, CesiumMan).
    row(
        "synthetic/simple_skin_like.gltf",
        &[
            "info bind-pose-offset /skins/0/inverseBindMatrices",
            "info first-key-snap /animations/0",
        ],
    ),
];

const SAMPLES: &[Row] = &[
    // CesiumMan's rig (19 joints, the same COLLADA2GLTF layout) with real IBMs: world · IBM
    // equals the mesh node's world for every joint. Its clip starts 43° away from the rest
    // pose on the arms: an info, not a warning.
    row(
        "RiggedFigure.gltf",
        &[
            "info first-key-snap /animations/0",
            "info skinned-mesh-transformed /nodes/1",
        ],
    ),
    // COLLADA2GLTF's layout, as CesiumMan's: the mesh node under a Y-up-to-Z-up root,
    // skeleton a sibling.
    row(
        "RiggedSimple.gltf",
        &["info skinned-mesh-transformed /nodes/1"],
    ),
    // Identity mesh node, IBMs offsetting the whole mesh uniformly (joint 0 at y = 1, the
    // mesh at y = 0): world(joint) · IBM is the identity for both joints, the mesh node's
    // world. The validator's warning is the unused slot 1 written with weight 0.
    row(
        "SimpleSkin.gltf",
        &["info joint-zero-weight /meshes/0/primitives/0/attributes/JOINTS_0"],
    ),
    // Three of the four vertices really use JOINTS_1 and JOINTS_2 (up to 0.32 of their
    // weight): valid glTF, but three.js and bevy read only JOINTS_0: an info says so.
    row(
        "assimp/quad_skin.glb",
        &[
            "info influences-over-4 /meshes/0/primitives/0/attributes/JOINTS_1",
            "info skinned-mesh-transformed /nodes/22",
        ],
    ),
    // Three clips, each starting away from the rest pose.
    row(
        "bevy/Fox.glb",
        &[
            "info first-key-snap /animations/0",
            "info first-key-snap /animations/1",
            "info first-key-snap /animations/2",
        ],
    ),
    // Khronos' SimpleSkin as bevy stores it, with IBMs that offset the whole mesh by one
    // matrix: the same surface in every loader.
    row(
        "bevy/SimpleSkin.gltf",
        &[
            "info bind-pose-offset /skins/0/inverseBindMatrices",
            "info joint-zero-weight /meshes/0/primitives/0/attributes/JOINTS_0",
        ],
    ),
    // Saved posed at the clip's first frame (node rotations 30° and 15° bent, IBMs straight):
    // the clip drives both joints, so an info each.
    row(
        "blender-io/03_skinned_cylinder/03_skinned_cylinder.gltf",
        &[
            "info bind-rest-mismatch /skins/0/joints/2",
            "info bind-rest-mismatch /skins/0/joints/3",
        ],
    ),
    // Saved posed (the bones curled; KHR_animation_pointer drives them): infos. Unity's
    // duplicate "Text (TMP)" object names are renamed by Blender, but none is a joint: infos.
    row(
        "blender-io/24_animation_pointer/24_animation_pointer.gltf",
        &[
            "info name-duplicate /nodes/21/name",
            "info name-duplicate /nodes/55/name",
            "info name-duplicate /nodes/56/name",
            "info name-duplicate /nodes/57/name",
            "info name-duplicate /nodes/61/name",
            "info bind-rest-mismatch /skins/0/joints/1",
            "info bind-rest-mismatch /skins/0/joints/2",
            "info bind-rest-mismatch /skins/0/joints/3",
            "info bind-rest-mismatch /skins/0/joints/4",
            "info bind-rest-mismatch /skins/0/joints/5",
            "info bind-rest-mismatch /skins/0/joints/6",
            "info bind-rest-mismatch /skins/0/joints/7",
            "info skinned-mesh-transformed /nodes/41",
        ],
    ),
    // The mesh node under COLLADA2GLTF's Z-up root; the clip starts away from the rest pose.
    row(
        "vulkan-assets/CesiumMan.gltf",
        &[
            "info first-key-snap /animations/0",
            "info skinned-mesh-transformed /nodes/2",
        ],
    ),
];

fn validator_data() -> PathBuf {
    common::repo().join("tests/data/khronos-validator")
}

fn samples() -> PathBuf {
    common::repo().join("tests/data/sample-assets")
}

/// Every asset with its data folder: the validator's, then the sample models.
fn all_rows() -> impl Iterator<Item = (PathBuf, &'static Row)> {
    ROWS.iter()
        .map(|r| (validator_data(), r))
        .chain(SAMPLES.iter().map(|r| (samples(), r)))
}

/// One message of a validator report.
struct Message {
    severity: u64,
    code: String,
    pointer: String,
}

/// The errors, warnings and infos of the `.report.json` beside `file` (hints left out).
fn report(file: &Path) -> Vec<Message> {
    let path = format!("{}.report.json", file.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(json["issues"]["truncated"], Value::Bool(false), "{path}");
    json["issues"]["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{path}: no issues.messages"))
        .iter()
        .map(|m| Message {
            severity: m["severity"].as_u64().unwrap(),
            code: m["code"].as_str().unwrap().to_string(),
            pointer: m["pointer"].as_str().unwrap_or_default().to_string(),
        })
        .filter(|m| m.severity < 3)
        .collect()
}

#[test]
fn lint_findings_per_asset() {
    let mut failures = Vec::new();
    for (dir, row) in all_rows() {
        let r = lint_path(&dir.join(row.file));
        if findings(&r) != row.lint {
            failures.push(format!(
                "{}: expected {:#?}\n{}",
                row.file,
                row.lint,
                r.render_text()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_covered_validator_message_has_its_lint_finding() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (dir, row) in all_rows() {
        let path = dir.join(row.file);
        let r = lint_path(&path);
        for m in report(&path) {
            let Some(entry) = validator_code(&m.code) else {
                failures.push(format!(
                    "{}: {} is not in lint::VALIDATOR_CODES",
                    row.file, m.code
                ));
                continue;
            };
            if !entry.covers(&m.pointer) {
                continue;
            }
            checked += 1;
            let found = r.findings.iter().any(|f| entry.reported_by(&m.pointer, f));
            if !found {
                failures.push(format!(
                    "{}: validator {} at {} has no lint finding {:?} there\n{}",
                    row.file,
                    m.code,
                    m.pointer,
                    entry.lint,
                    r.render_text()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 60, "only {checked} covered messages checked");
}

#[test]
fn every_entry_of_the_table_is_met_in_a_vendored_report() {
    let mut met = std::collections::BTreeSet::new();
    for (dir, row) in all_rows() {
        for m in report(&dir.join(row.file)) {
            if let Some(e) = validator_code(&m.code) {
                if e.lint.is_empty() || e.covers(&m.pointer) {
                    met.insert(e.code);
                }
            }
        }
    }
    let unmet: Vec<&str> = VALIDATOR_CODES
        .iter()
        .map(|e| e.code)
        .filter(|c| !met.contains(c))
        .collect();
    assert_eq!(unmet, Vec::<&str>::new());
    let mut codes: Vec<&str> = VALIDATOR_CODES.iter().map(|e| e.code).collect();
    codes.sort();
    let n = codes.len();
    codes.dedup();
    assert_eq!(codes.len(), n, "a code twice in the table");
    for e in VALIDATOR_CODES {
        assert!(!e.why.is_empty(), "{}: no reason", e.code);
        assert!(e.within.is_empty() || !e.lint.is_empty(), "{}", e.code);
    }
}

#[test]
fn validator_errors_are_lint_errors_and_valid_files_lint_clean() {
    for (dir, row) in all_rows() {
        let path = dir.join(row.file);
        let r = lint_path(&path);
        let messages = report(&path);
        // A covered validator error is a lint error.
        let covered_error = messages.iter().any(|m| {
            m.severity == 0 && validator_code(&m.code).is_some_and(|e| e.covers(&m.pointer))
        });
        if covered_error {
            assert!(r.has_errors(), "{}\n{}", row.file, r.render_text());
        }
        // No validator error or warning: no lint error or warning either.
        if messages.iter().all(|m| m.severity == 2) {
            assert!(
                !r.has_errors() && !r.has_warnings(),
                "{}\n{}",
                row.file,
                r.render_text()
            );
        }
    }
}

#[test]
fn real_sample_models_lint_without_error_or_warning() {
    for row in SAMPLES {
        let path = samples().join(row.file);
        let r = lint_path(&path);
        assert_eq!(r.codes(Severity::Error), Vec::<&str>::new(), "{}", row.file);
        assert_eq!(
            r.codes(Severity::Warning),
            Vec::<&str>::new(),
            "{}",
            row.file
        );
        assert!(
            report(&path).iter().all(|m| m.severity != 0),
            "{}: the validator finds an error",
            row.file
        );
    }
}

/// The rows of a `SOURCES.md` table whose last cell is a SHA-256: (file, row text, hash).
fn sourced(dir: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(dir.join("SOURCES.md")).unwrap();
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let hash = cells.last()?;
            (cells.len() >= 3 && hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| (cells[0].to_string(), l.to_string(), hash.to_string()))
        })
        .collect()
}

/// Every file under `dir` but SOURCES.md, as paths relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel != "SOURCES.md" {
                    out.push(rel);
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_vendored_file_is_tested_sourced_and_unchanged() {
    for (dir, rows) in [(validator_data(), ROWS), (samples(), SAMPLES)] {
        let on_disk = files_under(&dir);
        let sources = sourced(&dir);
        let listed: Vec<String> = sources.iter().map(|(f, _, _)| f.clone()).collect();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(
            on_disk,
            sorted,
            "{}: files vs SOURCES.md rows",
            dir.display()
        );
        for (file, line, hash) in &sources {
            let bytes = std::fs::read(dir.join(file)).unwrap();
            assert_eq!(&sha256_hex(&bytes), hash, "{file}: {line}");
        }
        let mut models: Vec<String> = on_disk
            .iter()
            .filter(|f| f.ends_with(".gltf") || f.ends_with(".glb"))
            .cloned()
            .collect();
        models.sort();
        let mut tested: Vec<String> = rows.iter().map(|r| r.file.to_string()).collect();
        tested.sort();
        assert_eq!(models, tested, "{}: models vs rows", dir.display());
        for m in &models {
            assert!(
                on_disk.contains(&format!("{m}.report.json")),
                "{m} has no .report.json"
            );
        }
    }
    // Licences: the validator's and Blender-IO's Apache text, assimp's BSD text, and an SPDX id
    // on every sample model's row.
    for f in [
        "khronos-validator/LICENSE",
        "sample-assets/blender-io/LICENSE",
    ] {
        let text = std::fs::read_to_string(validator_data().join("..").join(f)).unwrap();
        assert!(text.contains("Apache License"), "{f}");
    }
    let bsd = std::fs::read_to_string(samples().join("assimp/LICENSE")).unwrap();
    assert!(bsd.contains("Redistribution and use"), "assimp/LICENSE");
    for (file, line, _) in sourced(&samples()) {
        if file.ends_with(".gltf") || file.ends_with(".glb") {
            assert!(
                ["CC0-1.0", "CC-BY-4.0", "Apache-2.0", "BSD-3-Clause"]
                    .iter()
                    .any(|l| line.contains(l)),
                "{file}: no licence in {line}"
            );
        }
    }
}

/// SHA-256 (FIPS 180-4), for the SOURCES.md hashes.
fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

#[test]
fn sha256_of_known_inputs() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
