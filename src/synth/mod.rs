//! Deterministic generators of valid native files, built from the published layouts.
//! Samples, tests and benchmarks all come from here; nothing is copied from a game.

pub mod cloth;
pub mod dmc3;
pub mod hie;
pub mod mech;
pub mod motion;
pub mod rng;
pub mod shadow;
pub mod texture;

/// The bundled samples as (file name, bytes), exactly as committed under `samples/`.
pub fn samples() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("DB22HIE.BIN", hie::sample_db22()),
        ("DB22HIE.names.json", hie::sample_db22_names().into_bytes()),
        ("dmc3_humanoid.mod", dmc3::sample_mod()),
        ("dmc3_stage.scm", dmc3::sample_scm()),
        ("dmc3_effect.efm", dmc3::sample_efm().0),
        ("dmc3_humanoid.mot", motion::sample_mot()),
        ("dmc3_humanoid.pac", motion::sample_pac()),
        ("dmc3_character.pac", texture::sample_character_pac()),
        ("dmc3_coated.pac", texture::sample_coated_pac()),
        ("dmc3_textures.ptx", texture::sample_ptx()),
        ("mech.glb", mech::sample_mech()),
    ]
}

/// One random file of every rig format for `seed`, with the format to read it as (`None`:
/// detected from the content): a HIE table, a MOD and an SCM. For tests that hold for every
/// format without naming one.
pub fn rig_files(seed: u64) -> Vec<(Vec<u8>, Option<crate::native::Format>)> {
    vec![
        (hie::random(seed), Some(crate::native::Format::Hie)),
        (dmc3::random_mod(seed), None),
        (dmc3::random_scm(seed), None),
    ]
}
