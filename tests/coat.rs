//! The whole character: every model member of an archive in one glTF (the coat beside the
//! body, on the body's skeleton or on its own), and back byte for byte, edits where they were
//! made.

mod common;

use rigtrip::native::dmc3::pac::Pac;
use rigtrip::ops::character;
use rigtrip::synth::dmc3::{sample_coat, sample_mod};
use rigtrip::synth::rng::Rng;
use rigtrip::synth::texture as st;
use serde_json::Value;

/// A player archive: the sample body in slot 1 and the sample coat (`shared`: on the body's
/// skeleton) in slot 12.
fn coated(shared: bool) -> Vec<u8> {
    let mut rng = Rng::new(0xC0A7 + shared as u64);
    st::coated_character_pac(
        &mut rng,
        st::sample_ptx(),
        sample_mod(),
        sample_coat(shared),
    )
}

/// The archive exported as `export` writes it, as a GLB.
fn export(pac: &[u8]) -> (Vec<u8>, rigtrip::gltf::ExportReport) {
    let p = Pac::read(pac).unwrap();
    let c = character::character(&p).unwrap();
    let (tag, parts) = c.archive(&p).unwrap();
    let textures = c.textures.map(|(_, p)| &p.textures[..]).unwrap_or_default();
    let (images, failed) = character::images(textures);
    assert!(failed.is_empty());
    let rig = rigtrip::rig::lift(rigtrip::native::NativeFile::Dmc3(c.model.clone()));
    let opts = rigtrip::gltf::ExportOptions::default();
    let e =
        rigtrip::gltf::export_textured(&rig, &[], &images, Some((&tag, &parts)), &opts).unwrap();
    (rigtrip::gltf::to_glb(&e).unwrap(), e.report)
}

fn import(glb: &[u8]) -> rigtrip::gltf::Imported {
    rigtrip::gltf::import_slice(glb, None, &rigtrip::gltf::ImportOptions::default()).unwrap()
}

/// The names of the nodes with a mesh, and the skin each is skinned to.
fn mesh_nodes(json: &Value) -> Vec<(String, Option<u64>)> {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n.get("mesh").is_some())
        .map(|n| (n["name"].as_str().unwrap().to_string(), n["skin"].as_u64()))
        .collect()
}

#[test]
fn a_coat_on_the_body_skeleton_is_skinned_to_the_body_joints_and_comes_back() {
    let pac = coated(true);
    let (glb, report) = export(&pac);
    assert_eq!(report.parts, ["coat"]);
    assert!(report.carried_models.is_empty());
    let (json, _) = common::glb_parts(&glb);
    assert_eq!(json["skins"].as_array().unwrap().len(), 1);
    let meshes = mesh_nodes(&json);
    let coat: Vec<_> = meshes
        .iter()
        .filter(|(n, _)| n.starts_with("coat/"))
        .collect();
    assert_eq!(coat.len(), 1, "{meshes:?}");
    assert_eq!(coat[0].1, Some(0), "the coat is skinned to the body's skin");
    let back = import(&glb);
    assert!(back.bytes == pac, "the archive differs");
    assert_eq!(back.report.models.len(), 1);
    assert_eq!(back.report.models[0].name, "coat");
}

#[test]
fn a_coat_with_its_own_skeleton_gets_its_own_skin_and_comes_back() {
    let pac = coated(false);
    let (glb, report) = export(&pac);
    assert_eq!(report.parts, ["coat"]);
    let (json, _) = common::glb_parts(&glb);
    let skins = json["skins"].as_array().unwrap();
    assert_eq!(skins.len(), 2);
    let coat_joints = skins[1]["joints"].as_array().unwrap();
    assert_eq!(coat_joints.len(), 8);
    for j in coat_joints {
        let name = json["nodes"][j.as_u64().unwrap() as usize]["name"]
            .as_str()
            .unwrap();
        assert!(name.starts_with("coat/"), "{name}");
    }
    let meshes = mesh_nodes(&json);
    assert!(
        meshes
            .iter()
            .any(|(n, s)| n.starts_with("coat/") && *s == Some(1)),
        "{meshes:?}"
    );
    let back = import(&glb);
    assert!(back.bytes == pac, "the archive differs");
}
