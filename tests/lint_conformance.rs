//! `rigtrip lint` against the Khronos glTF-Validator's own test assets (vendored under
//! `tests/data/khronos-validator/`, Apache-2.0, sources in its `SOURCES.md`), our synthetic
//! stand-ins for sample models whose buffers are binary files (`synthetic/make.py`), and the real
//! Khronos sample models whose embedded variants are text (`tests/data/sample-assets/`, sources
//! and licences in its `SOURCES.md`): valid skinned assets must lint without error or warning.
//!
//! Per file: what the validator says (its skin, accessor, animation and node messages, recorded
//! here as data from `validate-gltf --json`, version 2.0.0-dev.3.10; `UNUSED_OBJECT`,
//! `NODE_EMPTY` and hints left out) and exactly the findings lint gives. Where the two differ in
//! severity, lint's rule decides (error: a loader draws it wrong or refuses it; warning: legal,
//! but Blender or another major loader will likely change or mis-show it; info: worth knowing),
//! and the row says why.

use std::path::{Path, PathBuf};

use rigtrip::lint::{lint_path, Severity};

struct Row {
    /// Path under tests/data/khronos-validator/.
    file: &'static str,
    /// The validator's messages: `severity CODE pointer` (severity 0 error, 1 warning, 2 info).
    validator: &'static [&'static str],
    /// Lint's findings, in order: `severity code pointer`.
    lint: &'static [&'static str],
}

const ROWS: &[Row] = &[
    Row {
        file: "skin/valid.gltf",
        validator: &[],
        // The IBM accessor has no buffer view: zeros by the spec, a placeholder, not judged.
        lint: &[
            "info accessor-no-data /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        file: "skin/buffer_view_bytestride.gltf",
        validator: &["0 SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE /skins/0/inverseBindMatrices"],
        // The .gltf's buffer has no uri, and the IBM accessor reads it: no loader can.
        lint: &[
            "error buffer-missing /buffers/0",
            "error ibm-strided /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        file: "skin/empty_joints_array.gltf",
        validator: &["0 EMPTY_ENTITY /skins/0/joints"],
        lint: &[
            "error skin-joints-empty /skins/0/joints",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        file: "skin/ibm_invalid_count.gltf",
        // The validator stops at the first skin it finds wrong; skin 0 has 2 IBMs for 1 joint.
        validator: &["0 INVALID_IBM_ACCESSOR_COUNT /skins/2/inverseBindMatrices"],
        lint: &[
            "error ibm-count /skins/0/inverseBindMatrices",
            "info accessor-no-data /skins/0/inverseBindMatrices",
            "info accessor-no-data /skins/1/inverseBindMatrices",
            "error ibm-count /skins/2/inverseBindMatrices",
            "info accessor-no-data /skins/2/inverseBindMatrices",
            "info skin-unused /skins/0",
            "info skin-unused /skins/1",
            "info skin-unused /skins/2",
        ],
    },
    Row {
        file: "skin/ibm_invalid_format.gltf",
        validator: &["0 SKIN_IBM_INVALID_FORMAT /skins/0/inverseBindMatrices"],
        lint: &[
            "error ibm-type /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        file: "skin/ignored_animated_transform.gltf",
        validator: &["1 ANIMATION_CHANNEL_TARGET_NODE_SKIN /animations/0/channels/0/target/path"],
        lint: &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "warning skinned-mesh-animated /animations/0/channels/0/target/path",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
        ],
    },
    Row {
        file: "skin/ignored_parent_transform.gltf",
        // Info, not a warning: the transform is ignored by the spec, and loaders that keep it
        // (three.js binds with it) cancel it out while it does not move.
        validator: &["1 NODE_SKINNED_MESH_NON_ROOT /nodes/2"],
        lint: &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "info skinned-mesh-transformed /nodes/2",
        ],
    },
    Row {
        file: "skin/no_common_root.gltf",
        validator: &["0 SKIN_NO_COMMON_ROOT /skins/0/joints"],
        lint: &[
            "error skin-no-common-root /skins/0/joints",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        file: "skin/no_joints_in_scene.gltf",
        validator: &["0 NODE_SKIN_NO_SCENE /nodes/2"],
        lint: &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "error skin-joints-not-in-scene /nodes/2",
        ],
    },
    Row {
        file: "skin/skeleton_invalid.gltf",
        validator: &["0 SKIN_SKELETON_INVALID /skins/0/skeleton"],
        lint: &[
            "error skin-skeleton-not-ancestor /skins/0/skeleton",
            "info ibm-missing /skins/0/inverseBindMatrices",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        file: "node/node_skinned_mesh_without_skin.gltf",
        validator: &["1 NODE_SKINNED_MESH_WITHOUT_SKIN /nodes/0"],
        lint: &[
            "info accessor-no-data /meshes/0/primitives/0/attributes/JOINTS_0",
            "info accessor-no-data /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "warning node-joints-without-skin /nodes/0",
            "info no-skins /skins",
        ],
    },
    Row {
        file: "node/skin_with_no_mesh.gltf",
        validator: &["0 UNSATISFIED_DEPENDENCY /nodes/0/skin"],
        lint: &[
            "info ibm-missing /skins/0/inverseBindMatrices",
            "error node-skin-without-mesh /nodes/0/skin",
            "info skin-unused /skins/0",
        ],
    },
    Row {
        // SimpleSkin's situation: identity mesh node, IBMs offsetting the whole mesh; a clip
        // starting away from the rest pose (Fox, CesiumMan).
        file: "synthetic/simple_skin_like.gltf",
        validator: &[],
        lint: &[
            "info bind-pose-offset /skins/0/inverseBindMatrices",
            "info first-key-snap /animations/0",
        ],
    },
    Row {
        // CesiumMan's situation: the mesh node's world is not the identity and world · IBM
        // equals it for every joint.
        file: "synthetic/cesium_man_like.gltf",
        validator: &["1 NODE_SKINNED_MESH_NON_ROOT /nodes/2"],
        lint: &["info skinned-mesh-transformed /nodes/2"],
    },
    Row {
        // The validator leaves a duplicate's weight out of the sum, so vertex 0 (0.5 + 0.5 on
        // joint 1) is not normalised for it; lint counts it and names the duplicate instead.
        // A repeated joint is a warning: GPU skinning adds both, Blender merges the weights.
        file: "synthetic/influences.gltf",
        validator: &[
            "0 ACCESSOR_JOINTS_INDEX_DUPLICATE /meshes/0/primitives/0/attributes/JOINTS_0",
            "0 ACCESSOR_WEIGHTS_NON_NORMALIZED /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "0 ACCESSOR_WEIGHTS_NON_NORMALIZED /meshes/0/primitives/0/attributes/WEIGHTS_1",
            "1 ACCESSOR_JOINTS_USED_ZERO_WEIGHT /meshes/0/primitives/0/attributes/JOINTS_0",
        ],
        lint: &[
            "error weights-not-normalized /meshes/0/primitives/0/attributes/WEIGHTS_0",
            "warning joint-repeated /meshes/0/primitives/0/attributes/JOINTS_0",
            "info joint-zero-weight /meshes/0/primitives/0/attributes/JOINTS_0",
            "warning influences-over-4 /meshes/0/primitives/0/attributes/JOINTS_1",
        ],
    },
];

/// Whether two pointers name the same place; lint reports a primitive's influences once, at
/// its first JOINTS_n/WEIGHTS_n set, where the validator names each set.
fn same_place(a: &str, b: &str) -> bool {
    let set = |p: &str| match p.rsplit_once('_') {
        Some((head, n)) if p.contains("/attributes/") && n.bytes().all(|c| c.is_ascii_digit()) => {
            head.to_string()
        }
        _ => p.to_string(),
    };
    set(a) == set(b)
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/khronos-validator")
}

#[test]
fn lint_findings_per_validator_asset() {
    let mut failures = Vec::new();
    for row in ROWS {
        let r = lint_path(&data().join(row.file));
        let got: Vec<String> = r
            .findings
            .iter()
            .map(|f| format!("{} {} {}", f.severity.as_str(), f.code, f.pointer))
            .collect();
        if got != row.lint {
            failures.push(format!(
                "{}: expected {:?}\n{}",
                row.file,
                row.lint,
                r.render_text()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_validator_error_has_a_lint_error_and_valid_files_lint_clean() {
    for row in ROWS {
        let r = lint_path(&data().join(row.file));
        let validator_errors = row.validator.iter().any(|m| m.starts_with("0 "));
        // Each validator message's pointer is named by a lint finding.
        for m in row.validator {
            let pointer = m.rsplit(' ').next().unwrap_or_default();
            assert!(
                r.findings.iter().any(|f| same_place(&f.pointer, pointer)),
                "{}: nothing at {pointer} for {m}\n{}",
                row.file,
                r.render_text()
            );
        }
        if validator_errors {
            assert!(r.has_errors(), "{}\n{}", row.file, r.render_text());
        }
        if row.validator.is_empty() {
            assert!(
                !r.has_errors() && !r.has_warnings(),
                "{}\n{}",
                row.file,
                r.render_text()
            );
        }
    }
    // The valid skinned stand-ins carry infos only, whatever the validator's warnings.
    for file in [
        "synthetic/simple_skin_like.gltf",
        "synthetic/cesium_man_like.gltf",
    ] {
        let r = lint_path(&data().join(file));
        assert_eq!(r.codes(Severity::Error), Vec::<&str>::new(), "{file}");
        assert_eq!(r.codes(Severity::Warning), Vec::<&str>::new(), "{file}");
    }
}

#[test]
fn every_vendored_file_is_tested_and_sourced() {
    let sources = std::fs::read_to_string(data().join("SOURCES.md")).unwrap();
    assert!(std::fs::read_to_string(data().join("LICENSE"))
        .unwrap()
        .contains("Apache License"));
    let mut on_disk = Vec::new();
    for dir in ["skin", "node", "synthetic"] {
        for e in std::fs::read_dir(data().join(dir)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".gltf") {
                on_disk.push(format!("{dir}/{name}"));
            }
        }
    }
    on_disk.sort();
    let mut tested: Vec<String> = ROWS.iter().map(|r| r.file.to_string()).collect();
    tested.sort();
    assert_eq!(on_disk, tested);
    for f in &tested {
        assert!(sources.contains(f.as_str()), "{f} is not in SOURCES.md");
    }
}

/// A real sample model (under tests/data/sample-assets/): valid, so lint gives infos only.
struct Sample {
    /// File name under tests/data/sample-assets/.
    file: &'static str,
    /// The validator's messages as in [`Row::validator`] (all of them but hints).
    validator: &'static [&'static str],
    /// Lint's findings, in order: `severity code pointer`; infos only.
    lint: &'static [&'static str],
}

const SAMPLES: &[Sample] = &[
    Sample {
        // Identity mesh node, IBMs offsetting the whole mesh uniformly (joint 0 at y = 1, the
        // mesh at y = 0): world(joint) · IBM is the identity for both joints, the mesh node's
        // world. The validator's warning is the unused slot 1 written with weight 0.
        file: "SimpleSkin.gltf",
        validator: &[
            "1 ACCESSOR_JOINTS_USED_ZERO_WEIGHT /meshes/0/primitives/0/attributes/JOINTS_0",
            "1 ACCESSOR_JOINTS_USED_ZERO_WEIGHT /meshes/0/primitives/0/attributes/JOINTS_0",
        ],
        lint: &["info joint-zero-weight /meshes/0/primitives/0/attributes/JOINTS_0"],
    },
    Sample {
        // COLLADA2GLTF's layout, as CesiumMan's: the mesh node under a Y-up-to-Z-up root,
        // skeleton a sibling; the clip starts away from the rest pose.
        file: "RiggedSimple.gltf",
        validator: &["1 NODE_SKINNED_MESH_NON_ROOT /nodes/1"],
        lint: &["info skinned-mesh-transformed /nodes/1"],
    },
    Sample {
        // CesiumMan's rig (19 joints, the same COLLADA2GLTF layout) with real IBMs: world · IBM
        // equals the mesh node's world for every joint. Its clip starts 43° away from the rest
        // pose on the arms: an info, not a warning.
        file: "RiggedFigure.gltf",
        validator: &["1 NODE_SKINNED_MESH_NON_ROOT /nodes/1"],
        lint: &[
            "info first-key-snap /animations/0",
            "info skinned-mesh-transformed /nodes/1",
        ],
    },
];

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample-assets")
}

#[test]
fn real_sample_models_lint_without_error_or_warning() {
    let mut failures = Vec::new();
    for s in SAMPLES {
        let r = lint_path(&samples().join(s.file));
        let got: Vec<String> = r
            .findings
            .iter()
            .map(|f| format!("{} {} {}", f.severity.as_str(), f.code, f.pointer))
            .collect();
        if got != s.lint || r.has_errors() || r.has_warnings() {
            failures.push(format!(
                "{}: expected {:?}\n{}",
                s.file,
                s.lint,
                r.render_text()
            ));
        }
        assert_eq!(r.codes(Severity::Error), Vec::<&str>::new(), "{}", s.file);
        assert_eq!(r.codes(Severity::Warning), Vec::<&str>::new(), "{}", s.file);
        // Each validator message's place is named by a lint finding.
        for m in s.validator {
            let pointer = m.rsplit(' ').next().unwrap_or_default();
            if !r.findings.iter().any(|f| same_place(&f.pointer, pointer)) {
                failures.push(format!("{}: nothing at {pointer} for {m}", s.file));
            }
        }
        // The validator finds no error in a file we call valid.
        assert!(
            s.validator.iter().all(|m| !m.starts_with("0 ")),
            "{}",
            s.file
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_sample_model_is_tested_and_sourced() {
    let sources = std::fs::read_to_string(samples().join("SOURCES.md")).unwrap();
    let mut on_disk = Vec::new();
    for e in std::fs::read_dir(samples()).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".gltf") {
            on_disk.push(name);
        }
    }
    on_disk.sort();
    let mut tested: Vec<String> = SAMPLES.iter().map(|s| s.file.to_string()).collect();
    tested.sort();
    assert_eq!(on_disk, tested);
    for f in &tested {
        let row = sources
            .lines()
            .find(|l| l.starts_with(&format!("| {f} |")))
            .unwrap_or_else(|| panic!("{f} has no row in SOURCES.md"));
        // Each row names the model's licence by SPDX id.
        assert!(
            row.contains("CC0-1.0") || row.contains("CC-BY-4.0"),
            "{f}: no licence in {row}"
        );
    }
}
