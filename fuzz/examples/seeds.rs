//! Writes a small seed corpus for every fuzz target from rigtrip's generators:
//! `cargo run --manifest-path fuzz/Cargo.toml --example seeds` (from the repository root)
//! fills `fuzz/corpus/<target>/`.

use std::path::{Path, PathBuf};

use rigtrip::native::Format;
use rigtrip::synth::{dmc3, hie};

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).expect("create corpus folder");
    std::fs::write(dir.join(name), bytes).expect("write seed");
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    let hie_dir = root.join("hie");
    write(&hie_dir, "db22", &hie::sample_db22());
    for seed in 0..24u64 {
        write(&hie_dir, &format!("random{seed}"), &hie::random(seed));
    }

    let dmc3_dir = root.join("dmc3");
    let block_dir = root.join("block");
    let mut containers = vec![
        ("sample_mod".to_string(), dmc3::sample_mod()),
        ("sample_scm".to_string(), dmc3::sample_scm()),
    ];
    for seed in 0..12u64 {
        containers.push((format!("mod{seed}"), dmc3::random_mod(seed)));
        containers.push((format!("scm{seed}"), dmc3::random_scm(seed)));
    }
    for (name, bytes) in &containers {
        write(&dmc3_dir, name, bytes);
        // The same file as the block target sees it: the block the header names, as a bare
        // block in an unknown file.
        if bytes.len() >= 0x28 {
            let mut o = [0u8; 8];
            o.copy_from_slice(&bytes[0x20..0x28]);
            let offset = u64::from_le_bytes(o);
            let nodes = usize::from(bytes[0x11]);
            if offset != 0 || nodes != 0 {
                write(
                    &block_dir,
                    name,
                    &rigtrip_fuzz::join_block_input(offset, nodes, bytes),
                );
            }
        }
    }
    let (efm, offset, nodes) = dmc3::sample_efm();
    write(
        &block_dir,
        "sample_efm",
        &rigtrip_fuzz::join_block_input(offset, nodes, &efm),
    );
    for seed in 0..24u64 {
        let (bytes, offset, nodes) = dmc3::random_block_file(seed);
        write(
            &block_dir,
            &format!("block{seed}"),
            &rigtrip_fuzz::join_block_input(offset, nodes, &bytes),
        );
    }
    // glTF import: exports of valid files, as GLB and as JSON with the buffer embedded.
    let gltf_dir = root.join("gltf_import");
    let mut natives: Vec<(String, Option<Format>, Vec<u8>)> = vec![
        ("db22".into(), None, hie::sample_db22()),
        ("scm".into(), None, dmc3::sample_scm()),
        (
            "efm".into(),
            Some(Format::Block { offset, nodes }),
            efm.clone(),
        ),
    ];
    for seed in 0..6u64 {
        natives.push((format!("hie{seed}"), None, hie::random(seed)));
        natives.push((
            format!("mod{seed}"),
            None,
            dmc3::random_exportable(seed, false),
        ));
        natives.push((
            format!("scm{seed}"),
            None,
            dmc3::random_exportable(seed, true),
        ));
    }
    for (name, format, bytes) in &natives {
        let Ok(rig) = rigtrip::ops::load(*format, bytes) else {
            continue;
        };
        let Ok(e) = rigtrip::gltf::export(&rig, &rigtrip::gltf::ExportOptions::default()) else {
            continue;
        };
        write(
            &gltf_dir,
            &format!("{name}.glb"),
            &rigtrip::gltf::to_glb(&e).expect("serialise a seed GLB"),
        );
        write(
            &gltf_dir,
            &format!("{name}.gltf"),
            &rigtrip::gltf::to_gltf(&e).expect("serialise a seed glTF"),
        );
    }
    let (mot_dir, pac_dir) = (root.join("mot"), root.join("pac"));
    write(&mot_dir, "humanoid", &rigtrip::synth::motion::sample_mot());
    write(&pac_dir, "humanoid", &rigtrip::synth::motion::sample_pac());
    for seed in 0..8 {
        write(
            &mot_dir,
            &format!("random{seed}"),
            &rigtrip::synth::motion::random_mot(seed),
        );
        write(
            &pac_dir,
            &format!("random{seed}"),
            &rigtrip::synth::motion::random_pac(seed),
        );
    }
    let ptx_dir = root.join("ptx");
    write(&pac_dir, "character", &rigtrip::synth::texture::sample_character_pac());
    write(&ptx_dir, "textures", &rigtrip::synth::texture::sample_ptx());
    for seed in 0..8 {
        write(
            &pac_dir,
            &format!("character{seed}"),
            &rigtrip::synth::texture::random_character_pac(seed),
        );
        write(
            &ptx_dir,
            &format!("random{seed}"),
            &rigtrip::synth::texture::random_ptx(seed),
        );
        write(
            &ptx_dir,
            &format!("tm2_{seed}"),
            &rigtrip::synth::texture::random_tm2(seed),
        );
    }
    println!("seeds written under {}", root.display());
}
