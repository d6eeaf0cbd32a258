//! Every export's extras follow `schema/rigtrip-extras.schema.json`, checked with a JSON Schema
//! validator; and the schema is strict enough to catch a malformed value.

use rigtrip::gltf::{export, ExportOptions};
use rigtrip::native::Format;
use rigtrip::rig::Rig;
use serde_json::{json, Value};

mod common;
use common::load;

fn validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schema/rigtrip-extras.schema.json"
    );
    let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn extras(e: &Option<Box<serde_json::value::RawValue>>) -> Option<Value> {
    e.as_ref()
        .map(|r| serde_json::from_str::<Value>(r.get()).unwrap()["rigtrip"].clone())
}

/// Blender cannot store null in a custom property (nor a list mixing null and numbers): one
/// null anywhere turns the whole `rigtrip` value into a Python repr string.
fn assert_no_null(v: &Value, path: &str) {
    match v {
        Value::Null => panic!("{path}: null in extras"),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| assert_no_null(x, &format!("{path}/{i}"))),
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| assert_no_null(x, &format!("{path}/{k}"))),
        _ => {}
    }
}

/// Validates one export; returns how many node extras were checked.
fn check(v: &jsonschema::Validator, rig: &Rig, what: &str) -> usize {
    let e = export(rig, &ExportOptions::default()).unwrap();
    let scene = extras(&e.root.scenes[0].extras).expect("scene extras");
    assert_no_null(&scene, &format!("{what}: scene"));
    let doc = json!({ "scene": scene });
    let errors: Vec<String> = v
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: scene extras: {errors:?}");
    let mut nodes = 0;
    for (i, n) in e.root.nodes.iter().enumerate() {
        if let Some(x) = extras(&n.extras) {
            assert_no_null(&x, &format!("{what}: node {i}"));
            let doc = json!({ "node": x });
            let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{what}: node {i}: {errors:?}");
            nodes += 1;
        }
    }
    nodes
}

/// Asserts that `scene` (a scene's `extras.rigtrip`) follows the schema, listing every error.
fn assert_scene_valid(v: &jsonschema::Validator, scene: &Value) {
    let errors: Vec<String> = v
        .iter_errors(&json!({ "scene": scene }))
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn every_export_follows_the_schema() {
    let v = validator();
    let mut nodes = 0;
    for (name, bytes) in rigtrip::synth::samples() {
        let format = match name {
            "dmc3_effect.efm" => Some(Format::Block {
                offset: 0x35,
                nodes: 8,
            }),
            n if n.ends_with(".json") || n.ends_with(".glb") => continue,
            // Motions, archives and textures are no rigs: motion extras are checked with a model
            // below.
            n if n.ends_with(".mot") || n.ends_with(".pac") || n.ends_with(".ptx") => continue,
            _ => None,
        };
        nodes += check(&v, &load(format, &bytes), name);
    }
    let mut files = 0;
    for seed in 0..60u64 {
        let hie = load(Some(Format::Hie), &rigtrip::synth::hie::random(seed));
        if hie.skeletons.iter().all(|s| s.gate.is_ok()) {
            nodes += check(&v, &hie, &format!("hie seed {seed}"));
            files += 1;
        }
        let m = load(
            Some(Format::Dmc3),
            &rigtrip::synth::dmc3::random_exportable(seed, seed % 2 == 1),
        );
        nodes += check(&v, &m, &format!("dmc3 seed {seed}"));
        files += 1;
    }
    assert!(
        files >= 50 && nodes > 1000,
        "{files} files, {nodes} node extras"
    );
}

#[test]
fn the_schema_catches_malformed_extras() {
    let v = validator();
    let rig = load(None, &rigtrip::synth::hie::sample_db22());
    let e = export(&rig, &ExportOptions::default()).unwrap();
    let scene = extras(&e.root.scenes[0].extras).unwrap();
    let joint = e
        .root
        .nodes
        .iter()
        .filter_map(|n| extras(&n.extras))
        .find(|x| x.get("joint").is_some())
        .unwrap();
    assert!(v.is_valid(&json!({ "scene": scene })));
    assert!(v.is_valid(&json!({ "node": joint })));
    let mut bad = joint.clone();
    bad["native"]["model"] = json!(258); // a u32 as a JSON number: Blender may turn it into a string
    assert!(!v.is_valid(&json!({ "node": bad })));
    let mut bad = scene.clone();
    bad["schema"] = json!(2);
    assert!(!v.is_valid(&json!({ "scene": bad })));
    let mut bad = scene.clone();
    bad["source"]["slots"] = json!([[1, 0], [256, 1]]);
    assert!(!v.is_valid(&json!({ "scene": bad })));
    let mut bad = scene;
    bad["space"]["rotation"] = json!("y90");
    assert!(!v.is_valid(&json!({ "scene": bad })));
}

#[test]
fn motion_extras_follow_the_schema() {
    use rigtrip::gltf::{export_animated, MotionInput};
    let v = validator();
    let rig = load(None, &rigtrip::synth::dmc3::sample_mod());
    let motions = [
        MotionInput::read("walk.mot", rigtrip::synth::motion::sample_mot()).unwrap(),
        MotionInput::read("pl000_00_3.pac", rigtrip::synth::motion::sample_pac()).unwrap(),
    ];
    let e = export_animated(&rig, &motions, &ExportOptions::default()).unwrap();
    let scene = extras(&e.root.scenes[0].extras).unwrap();
    assert_no_null(&scene, "scene");
    assert_eq!(scene["motions"][0]["file"], "walk.mot");
    assert_eq!(scene["motions"][0]["animations"], json!(["walk"]));
    assert_scene_valid(&v, &scene);
    for (key, value) in [
        ("file", json!("../walk.mot")),
        ("data", json!("not base64!")),
        ("animations", json!([1])),
    ] {
        let mut bad = scene.clone();
        bad["motions"][0][key] = value;
        assert!(!v.is_valid(&json!({ "scene": bad })), "{key}");
    }
}

#[test]
fn archive_extras_follow_the_schema() {
    use rigtrip::native::dmc3::Pac;
    use rigtrip::rig::archive::ArchiveTag;
    let v = validator();
    let pac = Pac::read(&rigtrip::synth::texture::sample_character_pac()).unwrap();
    let c = rigtrip::ops::character::character(&pac).unwrap();
    let (ptx_member, ptx) = c.textures.unwrap();
    let tag = ArchiveTag::of(&pac, c.body.offset, Some(ptx_member.offset)).unwrap();
    let (images, failed) = rigtrip::ops::character::images(&ptx.textures);
    assert!(failed.is_empty());
    let rig = rigtrip::rig::lift(rigtrip::native::NativeFile::Dmc3(c.model.clone()));
    let e = rigtrip::gltf::export_textured(
        &rig,
        &[],
        &images,
        Some((&tag, &[])),
        &ExportOptions::default(),
    )
    .unwrap();
    let scene = extras(&e.root.scenes[0].extras).unwrap();
    assert_no_null(&scene, "scene");
    let roles: Vec<&str> = scene["archive"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["textures", "model", "bytes"]);
    // No pixel of a texture rides in extras: the textures member holds its count, tail, and
    // per texture its image's name and its two headers (0xF0 bytes, for re-encoding a
    // repainted image), never its mip chain.
    let mut textures = scene["archive"]["members"][0].clone();
    let heads = textures.as_object_mut().unwrap().remove("heads").unwrap();
    assert_eq!(
        textures,
        json!({"role": "textures", "offset": 0x50, "slots": [0], "count": 2, "tail": ""})
    );
    for (i, h) in heads.as_array().unwrap().iter().enumerate() {
        assert_eq!(h["image"], format!("texture_{i}"));
        let b64 = h["headers"].as_str().unwrap();
        assert_eq!(b64.len(), 0xF0 / 3 * 4, "texture {i}: the headers only");
    }
    assert_scene_valid(&v, &scene);
    for (key, value) in [
        ("role", json!("ptx")),
        ("offset", json!(-1)),
        ("count", json!(null)),
    ] {
        let mut bad = scene.clone();
        bad["archive"]["members"][0][key] = value;
        assert!(!v.is_valid(&json!({ "scene": bad })), "{key}");
    }
}

/// The records the extras hold in their dump form (container header, object and mesh records
/// with their streams, block rels, joint transform) are described in
/// `schema/rigtrip-extras.schema.json` by what `ops::dump::extras_record_defs()` builds from
/// their declarations, not written again by hand; `RIGTRIP_BLESS=1 cargo test --test
/// extras_schema record_defs` rewrites them (and the file in its canonical form).
#[test]
fn record_defs_are_generated_from_the_declarations() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schema/rigtrip-extras.schema.json"
    );
    let committed = std::fs::read_to_string(path).unwrap();
    let mut schema: Value = serde_json::from_str(&committed).unwrap();
    for (name, def) in rigtrip::ops::dump::extras_record_defs() {
        schema["$defs"][name] = def;
    }
    let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    common::assert_generated(
        "schema/rigtrip-extras.schema.json",
        &generated,
        "extras_schema record_defs",
    );
    // The joint transform comes from its declaration: one field's evidence class and meaning.
    assert!(
        schema["$defs"]["transform"]["properties"]["w_bits"]["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("+0x1C "))
    );
}
