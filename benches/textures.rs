//! Textures through glTF, in memory, one thread (release build: `cargo bench --bench
//! textures`): a character archive holding the humanoid sample model and one 2048×2048 DXT5
//! texture with its full mip chain (12 levels, 5.6 MB; random blocks, so graded alpha: an RGBA
//! PNG of noise, the worst case for the PNG's size).
//!
//! - the texture to its PNG: BC3 decode of the top level, PNG encoding with the `rgTX` chunk
//!   (`ops::character::images`, as export does it);
//! - export of the archive: that, the model, the archive tag, `export_textured` and `to_glb`;
//! - import of that GLB back to the archive's bytes (`import_slice`: model rebuilt and compared,
//!   the PTX from the chunk);
//! - import of the texture repainted (its PNG without the chunk, pixels as exported): PNG decode,
//!   BC3 cluster-fit encoding of the full chain (texpresso, on every core), archive rebuilt;
//!   random blocks are the worst case for the encoder, so its error is printed too;
//! - `verify` of the archive on both legs (`verify_bytes_legs`: the native leg of every member,
//!   the glTF leg through export and import).
//!
//! Best of `RIGTRIP_BENCH_REPS` (3) runs each.

mod common;

use std::time::Duration;

use common::best;

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::native::dmc3::texture::{PixelFormat, Texture};
use rigtrip::ops::verify::{verify_bytes_legs, Legs, Verdict};
use rigtrip::synth::rng::Rng;
use rigtrip::synth::texture as st;

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let reps = std::env::var("RIGTRIP_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut rng = Rng::new(2048);
    let spec = st::EntrySpec {
        format: PixelFormat::Dxt5,
        width: 2048,
        height: 2048,
        levels: 12,
        declared: 12,
        headers: st::Headers::Canonical,
    };
    let ptx = st::bundle(&mut rng, &[spec], false, &[]);
    let pac = st::character_pac(&mut rng, ptx.clone(), rigtrip::synth::dmc3::sample_mod());
    let texture: Texture = rigtrip::native::dmc3::Ptx::read(&ptx)
        .expect("reads")
        .textures[0]
        .clone();
    println!(
        "archive {} bytes (PTX {} bytes: one 2048x2048 DXT5, 12 levels)",
        pac.len(),
        ptx.len()
    );

    let (t_png, img) = best(reps, || {
        let (mut ok, _) = rigtrip::ops::character::images(std::slice::from_ref(&texture));
        ok.pop().expect("decodes")
    });
    println!(
        "texture -> PNG (BC3 decode, PNG encode, rgTX chunk): {} (PNG {} bytes)",
        ms(t_png),
        img.png.len()
    );

    let (t_export, glb) = best(reps, || export(&pac));
    println!(
        "export (archive -> GLB): {} (GLB {} bytes)",
        ms(t_export),
        glb.len()
    );

    let (t_import, back) = best(reps, || {
        import_slice(&glb, None, &ImportOptions::default()).expect("imports")
    });
    assert!(back.bytes == pac, "the archive comes back");
    println!("import (GLB -> archive, byte for byte): {}", ms(t_import));

    let (t_repaint, r) = repaint(reps, &pac, &img.png);
    println!(
        "import of the texture repainted (PNG decode, BC3 encode of 12 levels, archive): {} ({})",
        ms(t_repaint),
        r
    );

    let (t_verify, v) = best(reps, || verify_bytes_legs(None, &pac, Legs::Both));
    assert!(matches!(v, Verdict::Identical { .. }), "{v:?}");
    println!("verify, both legs: {}", ms(t_verify));
}

/// The archive rebuilt with its texture from `png` without the native chunk (as an editor
/// writes a repainted image): the time of [`ArchiveTag::rebuild`] and its report line.
fn repaint(reps: usize, pac: &[u8], png: &[u8]) -> (Duration, String) {
    use rigtrip::rig::archive::{ArchiveTag, DocImage};
    let p = rigtrip::native::dmc3::Pac::read(pac).expect("reads");
    let c = rigtrip::ops::character::character(&p).expect("a character");
    let (m, _) = c.textures.expect("textures");
    let tag = ArchiveTag::of(&p, c.body.offset, Some(m.offset)).expect("tag");
    let model = c.body.bytes().expect("model");
    let rgba = rigtrip::rgba::decode_png(png).expect("decodes");
    let mut plain = Vec::new();
    let mut e = png::Encoder::new(&mut plain, rgba.width, rgba.height);
    e.set_color(png::ColorType::Rgba);
    let mut w = e.write_header().expect("header");
    w.write_image_data(&rgba.pixels).expect("data");
    w.finish().expect("PNG");
    let image = [DocImage {
        name: Some("texture_0"),
        materials: Vec::new(),
        png: Some(&plain),
    }];
    let (t, r) = best(reps, || tag.rebuild(&model, &[], &image).expect("rebuilds"));
    (t, r.reencoded[0].to_string())
}

/// What `rigtrip export ARCHIVE -o OUT.glb` does, in memory.
fn export(pac: &[u8]) -> Vec<u8> {
    let p = rigtrip::native::dmc3::Pac::read(pac).expect("reads");
    let c = rigtrip::ops::character::character(&p).expect("a character");
    let (_, ptx) = c.textures.expect("textures");
    let (images, _) = rigtrip::ops::character::images(&ptx.textures);
    let (tag, parts) = c.archive(&p).expect("tag");
    let rig = rigtrip::rig::lift(rigtrip::native::NativeFile::Dmc3(c.model.clone()));
    let e = rigtrip::gltf::export_textured(
        &rig,
        &[],
        &images,
        Some((&tag, &parts)),
        &rigtrip::gltf::ExportOptions::default(),
    )
    .expect("exports");
    rigtrip::gltf::to_glb(&e).expect("GLB")
}
