//! Textures in glTF: `export ARCHIVE.pac` and `export MODEL --textures FILE` write one PNG image
//! per texture, decoded from DXT1/DXT5 with its alpha, the native entry in the PNG's `rgTX`
//! chunk, and a material per texture index used.
//!
//! The PNG pixels are held to a BC1/BC3 decoder written here from the S3TC description (not the
//! library's, not texpresso's): 5/6-bit endpoints expanded exactly (c·255/31, c·255/63), the
//! interpolants computed in real numbers and rounded once. texpresso expands by bit replication
//! and truncates its thirds and sevenths, so the two may differ by at most [`BOUND`] per channel
//! (colour: replication error under 0.52 plus truncation under 1, against a rounding of 0.5;
//! alpha: endpoints exact, truncation under 1): the tests assert that bound and measure it.

mod common;

use std::path::PathBuf;

use common::{rigtrip, stdout_of, tmp, validate};
use rigtrip::native::dmc3::texture::{PixelFormat, Ptx, Texture};
use rigtrip::rgba::{native_entry, CHUNK_TYPE};
use rigtrip::synth::rng::Rng;
use rigtrip::synth::texture as st;

/// Largest difference per channel between the exported PNG and the decoder below.
const BOUND: u8 = 2;

/// 5- or 6-bit channel to 0..255 in real numbers.
fn expand(c: u16, bits: u32) -> f64 {
    f64::from(c) * 255.0 / f64::from((1u16 << bits) - 1)
}

/// The four colours (RGBA, real numbers) of a BC1 block's endpoints; `bc1`: the 3-colour mode
/// with transparent black applies when c0 <= c1 (BC3 colour blocks always use 4 colours).
fn palette(c0: u16, c1: u16, bc1: bool) -> [[f64; 4]; 4] {
    let rgb = |c: u16| {
        [
            expand(c >> 11, 5),
            expand((c >> 5) & 0x3F, 6),
            expand(c & 0x1F, 5),
            255.0,
        ]
    };
    let (a, b) = (rgb(c0), rgb(c1));
    let mix = |wa: f64, wb: f64| -> [f64; 4] {
        let mut o = [0.0; 4];
        for i in 0..4 {
            o[i] = (wa * a[i] + wb * b[i]) / (wa + wb);
        }
        o
    };
    if !bc1 || c0 > c1 {
        [a, b, mix(2.0, 1.0), mix(1.0, 2.0)]
    } else {
        [a, b, mix(1.0, 1.0), [0.0; 4]]
    }
}

/// One block decoded to 16 RGBA pixels (row-major in the block).
fn decode_block(block: &[u8], format: PixelFormat) -> [[u8; 4]; 16] {
    let (alpha, colour) = match format {
        PixelFormat::Dxt1 => (None, block),
        PixelFormat::Dxt5 => (Some(&block[..8]), &block[8..]),
    };
    let c0 = u16::from_le_bytes([colour[0], colour[1]]);
    let c1 = u16::from_le_bytes([colour[2], colour[3]]);
    let pal = palette(c0, c1, alpha.is_none());
    let bits = u32::from_le_bytes([colour[4], colour[5], colour[6], colour[7]]);
    let mut out = [[0u8; 4]; 16];
    for (p, px) in out.iter_mut().enumerate() {
        let c = pal[((bits >> (2 * p)) & 3) as usize];
        for i in 0..4 {
            px[i] = c[i].round() as u8;
        }
    }
    if let Some(a) = alpha {
        let (a0, a1) = (f64::from(a[0]), f64::from(a[1]));
        let mut codes = 0u64;
        for (k, &b) in a[2..8].iter().enumerate() {
            codes |= u64::from(b) << (8 * k);
        }
        for (p, px) in out.iter_mut().enumerate() {
            let i = ((codes >> (3 * p)) & 7) as u32;
            let v = match (i, a[0] > a[1]) {
                (0, _) => a0,
                (1, _) => a1,
                (i, true) => (f64::from(8 - i) * a0 + f64::from(i - 1) * a1) / 7.0,
                (6, false) => 0.0,
                (7, false) => 255.0,
                (i, false) => (f64::from(6 - i) * a0 + f64::from(i - 1) * a1) / 5.0,
            };
            px[3] = v.round() as u8;
        }
    }
    out
}

/// The top level of `t` decoded by the blocks above: (width, height, RGBA rows).
fn decode_top(t: &Texture) -> (u32, u32, Vec<u8>) {
    let g = t.geometry().expect("generated entries have a geometry");
    let (w, h, len) = g.level(0);
    let data = &t.chain[..len as usize];
    let bw = w.div_ceil(4) as usize;
    let step = g.format.block_bytes() as usize;
    let mut img = vec![0u8; (w * h * 4) as usize];
    for (k, block) in data.chunks_exact(step).enumerate() {
        let (bx, by) = (k % bw, k / bw);
        for (p, px) in decode_block(block, g.format).iter().enumerate() {
            let (x, y) = (bx * 4 + p % 4, by * 4 + p / 4);
            if x < w as usize && y < h as usize {
                let at = (y * w as usize + x) * 4;
                img[at..at + 4].copy_from_slice(px);
            }
        }
    }
    (w, h, img)
}

/// A PNG's size and pixels as RGBA (an RGB PNG gets alpha 255), by the png crate's decoder.
fn png_rgba(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut d = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; d.output_buffer_size().unwrap()];
    let info = d.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

/// What `alphaMode` the pixels call for.
fn expected_mode(rgba: &[u8]) -> gltf::material::AlphaMode {
    let alphas: Vec<u8> = rgba.iter().skip(3).step_by(4).copied().collect();
    if alphas.iter().all(|&a| a == 255) {
        gltf::material::AlphaMode::Opaque
    } else if alphas.iter().all(|&a| a == 0 || a == 255) {
        gltf::material::AlphaMode::Mask
    } else {
        gltf::material::AlphaMode::Blend
    }
}

/// Checks one exported document against `textures`: an image per texture (PNG, pixels within
/// [`BOUND`] of the independent decode, the entry's exact bytes in its chunk), and each
/// `texture_N` material showing image N with the alpha mode its pixels call for. Returns the
/// largest difference seen.
fn check_doc(glb: &PathBuf, textures: &[Texture]) -> u8 {
    let (doc, buffers, _) = gltf::import(glb).unwrap();
    assert_eq!(doc.images().len(), textures.len(), "{}", glb.display());
    let bin = &buffers[0];
    let mut worst = 0u8;
    for (i, (img, t)) in doc.images().zip(textures).enumerate() {
        let gltf::image::Source::View { view, mime_type } = img.source() else {
            panic!("image {i} is not in a buffer view");
        };
        assert_eq!(mime_type, "image/png");
        let png = &bin[view.offset()..view.offset() + view.length()];
        let (index, entry) = native_entry(png).expect("the rgTX chunk");
        assert_eq!(index, i);
        assert_eq!(entry, &t.write()[..], "texture {i}: chunk bytes");
        let (w, h, ours) = decode_top(t);
        let (pw, ph, theirs) = png_rgba(png);
        assert_eq!((pw, ph), (w, h), "texture {i}: size");
        assert_eq!(rigtrip::rgba::png_size(png), Some((w, h)));
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            let d = a.abs_diff(*b);
            assert!(
                d <= BOUND,
                "texture {i} pixel {} channel {}: independent {a}, PNG {b}",
                k / 4,
                k % 4
            );
            worst = worst.max(d);
        }
        let name = format!("texture_{i}");
        if let Some(m) = doc.materials().find(|m| m.name() == Some(&name)) {
            let info = m
                .pbr_metallic_roughness()
                .base_color_texture()
                .expect("base colour");
            assert_eq!(info.texture().source().index(), i, "{name}");
            assert_eq!(m.alpha_mode(), expected_mode(&theirs), "{name}");
            // The 1-bit alpha of DXT1 decides MASK exactly: no rounding reaches 0 or 255.
            if t.geometry().unwrap().format == PixelFormat::Dxt1 {
                assert_eq!(m.alpha_mode(), expected_mode(&ours), "{name}");
            }
        }
    }
    worst
}

/// Runs `rigtrip export ARGS --force`, which must succeed; its stdout.
fn export(args: &[&str]) -> String {
    stdout_of(rigtrip().arg("export").args(args).arg("--force"))
}

#[test]
fn independent_decoder_reads_known_blocks() {
    // BC1, c0 = pure red (0xF800) > c1 = pure blue (0x001F): indices 0,1,2,3 in the first row.
    let mut b = vec![0x00, 0xF8, 0x1F, 0x00, 0b1110_0100, 0, 0, 0];
    let px = decode_block(&b, PixelFormat::Dxt1);
    assert_eq!(
        &px[..4],
        &[
            [255, 0, 0, 255],
            [0, 0, 255, 255],
            [170, 0, 85, 255],
            [85, 0, 170, 255]
        ]
    );
    // c0 <= c1: index 2 is the midpoint, 3 transparent black.
    b[..4].copy_from_slice(&[0x1F, 0x00, 0x00, 0xF8]);
    let px = decode_block(&b, PixelFormat::Dxt1);
    assert_eq!(
        &px[..4],
        &[
            [0, 0, 255, 255],
            [255, 0, 0, 255],
            [128, 0, 128, 255],
            [0, 0, 0, 0]
        ]
    );
    // BC3 alpha, a0 = 10 <= a1 = 250: codes 0..7 in the first row and a half.
    let mut b5 = vec![10, 250];
    let codes: u64 = (0..8u64).fold(0, |acc, i| acc | i << (3 * i));
    b5.extend_from_slice(&codes.to_le_bytes()[..6]);
    b5.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    let px = decode_block(&b5, PixelFormat::Dxt5);
    let a: Vec<u8> = px[..8].iter().map(|p| p[3]).collect();
    assert_eq!(a, [10, 250, 58, 106, 154, 202, 0, 255]);
}

#[test]
fn archive_export_writes_an_image_per_texture() {
    let mut files = Vec::new();
    let mut worst = 0;
    for seed in 0..6u64 {
        let mut rng = Rng::new(0x7E27 + seed);
        let ptx = st::random_ptx(rng.next_u64());
        let model = rigtrip::synth::dmc3::random_exportable(rng.next_u64(), false);
        let pac = st::character_pac(&mut rng, ptx.clone(), model);
        let input = tmp(&format!("c{seed}.pac"));
        std::fs::write(&input, &pac).unwrap();
        let glb = tmp(&format!("c{seed}.glb"));
        export(&[input.to_str().unwrap(), "-o", glb.to_str().unwrap()]);
        let textures = Ptx::read(&ptx).unwrap().textures;
        worst = worst.max(check_doc(&glb, &textures));
        files.push(glb);
    }
    eprintln!("largest difference from the independent decoder: {worst} (bound {BOUND})");
    validate(&files);
}

#[test]
fn sample_archive_materials_and_loose_textures() {
    let root = common::repo().join("samples");
    let pac = tmp("sample.glb");
    export(&[
        root.join("dmc3_character.pac").to_str().unwrap(),
        "-o",
        pac.to_str().unwrap(),
    ]);
    let loose = tmp("loose.glb");
    export(&[
        root.join("dmc3_humanoid.mod").to_str().unwrap(),
        "--textures",
        root.join("dmc3_textures.ptx").to_str().unwrap(),
        "-o",
        loose.to_str().unwrap(),
    ]);
    let textures = Ptx::read(&st::sample_ptx()).unwrap().textures;
    for glb in [&pac, &loose] {
        check_doc(glb, &textures);
        let (doc, _, _) = gltf::import(glb).unwrap();
        let modes: Vec<_> = ["texture_0", "texture_1"]
            .iter()
            .map(|n| {
                doc.materials()
                    .find(|m| m.name() == Some(n))
                    .unwrap()
                    .alpha_mode()
            })
            .collect();
        // The sample DXT1 has transparent texels (1-bit alpha), its DXT5 graded alpha.
        assert_eq!(
            modes,
            [
                gltf::material::AlphaMode::Mask,
                gltf::material::AlphaMode::Blend
            ]
        );
    }
    // An archive brings its own textures: --textures with one is refused, saying so.
    let o = rigtrip()
        .args([
            "export",
            root.join("dmc3_character.pac").to_str().unwrap(),
            "--textures",
        ])
        .args([
            root.join("dmc3_textures.ptx").to_str().unwrap(),
            "-o",
            tmp("no.glb").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--textures is for a loose model; an archive brings its own"),
        "{err}"
    );
    assert!(!tmp("no.glb").exists());
    // A single entry (.tm2) is texture 0.
    let tm2 = tmp("one.tm2");
    let one = st::random_tm2(7);
    std::fs::write(&tm2, &one).unwrap();
    let single = tmp("single.glb");
    export(&[
        root.join("dmc3_humanoid.mod").to_str().unwrap(),
        "--textures",
        tm2.to_str().unwrap(),
        "-o",
        single.to_str().unwrap(),
    ]);
    check_doc(&single, &[Texture::read(&one).unwrap()]);
    validate(&[pac, loose, single]);
}

#[test]
fn the_chunk_is_private_ancillary_and_not_safe_to_copy() {
    assert!(CHUNK_TYPE[0].is_ascii_lowercase(), "ancillary");
    assert!(CHUNK_TYPE[1].is_ascii_lowercase(), "private");
    assert!(CHUNK_TYPE[2].is_ascii_uppercase(), "reserved bit clear");
    assert!(CHUNK_TYPE[3].is_ascii_uppercase(), "not safe to copy");
    // A PNG without the chunk (a repainted image) carries nothing; a truncated one neither.
    let t = Texture::read(&st::random_tm2(3)).unwrap();
    let top = rigtrip::native::dmc3::pixels::decode_top(&t);
    let img = rigtrip::gltf::texture::texture_image(0, top, &t.write()).unwrap();
    assert!(native_entry(&img.png).is_some());
    for cut in [8, 20, 40, img.png.len() / 2] {
        assert_eq!(native_entry(&img.png[..cut]), None, "cut at {cut}");
    }
    let mut other = img.png.clone();
    let at = other.windows(4).position(|w| w == CHUNK_TYPE).unwrap();
    other[at + 4] = 99; // an unknown version
    assert_eq!(native_entry(&other), None);
}

fn import(glb: &std::path::Path, out: &std::path::Path) -> String {
    stdout_of(rigtrip().args([
        "import",
        glb.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]))
}

#[test]
fn archives_come_back_byte_for_byte() {
    let mut cases: Vec<Vec<u8>> = vec![st::sample_character_pac()];
    for seed in 0..6u64 {
        let mut rng = Rng::new(0xA7C4 + seed);
        let ptx = st::random_ptx(rng.next_u64());
        let model = rigtrip::synth::dmc3::random_exportable(rng.next_u64(), false);
        cases.push(st::character_pac(&mut rng, ptx, model));
    }
    for (i, pac) in cases.iter().enumerate() {
        let input = tmp(&format!("back{i}.pac"));
        std::fs::write(&input, pac).unwrap();
        let glb = tmp(&format!("back{i}.glb"));
        export(&[input.to_str().unwrap(), "-o", glb.to_str().unwrap()]);
        let out = tmp(&format!("back{i}.new.pac"));
        let report = import(&glb, &out);
        assert!(report.contains("every member at its offset"), "{report}");
        assert!(
            std::fs::read(&out).unwrap() == *pac,
            "case {i}: the archive differs"
        );
        // verify's glTF leg of the archive is this trip, in memory.
        match rigtrip::ops::verify::verify_bytes(None, pac) {
            rigtrip::ops::verify::Verdict::Identical { gltf, .. } => {
                assert_eq!(gltf, rigtrip::ops::verify::GltfLeg::Identical, "case {i}")
            }
            v => panic!("case {i}: {v:?}"),
        }
    }
}

/// The tag and images of the sample archive, as the export makes them.
fn sample_parts() -> (
    Vec<u8>,
    rigtrip::rig::archive::ArchiveTag,
    Vec<Vec<u8>>,
    Vec<u8>,
) {
    use rigtrip::native::dmc3::Pac;
    let bytes = st::sample_character_pac();
    let pac = Pac::read(&bytes).unwrap();
    let c = rigtrip::ops::character::character(&pac).unwrap();
    let (m, ptx) = c.textures.unwrap();
    let tag = rigtrip::rig::archive::ArchiveTag::of(&pac, c.body.offset, Some(m.offset)).unwrap();
    let (images, _) = rigtrip::ops::character::images(&ptx.textures);
    let model = c.body.bytes().unwrap();
    (
        bytes,
        tag,
        images.into_iter().map(|i| i.png).collect(),
        model,
    )
}

/// The images of a document as import sees them: image i named `names[i]`.
fn images<'a>(
    names: &'a [String],
    pngs: &'a [Vec<u8>],
) -> Vec<rigtrip::rig::archive::DocImage<'a>> {
    names
        .iter()
        .zip(pngs)
        .map(|(n, p)| rigtrip::rig::archive::DocImage {
            name: Some(n.as_str()),
            materials: Vec::new(),
            png: Some(p.as_slice()),
        })
        .collect()
}

/// `texture_0`, `texture_1`, ... as export names images.
fn image_names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("texture_{i}")).collect()
}

#[test]
fn a_longer_model_moves_the_members_after_it_only() {
    use rigtrip::native::dmc3::Pac;
    let (bytes, tag, pngs, model) = sample_parts();
    let names = image_names(pngs.len());
    let imgs = images(&names, &pngs);
    let same = tag.rebuild(&model, &[], &imgs).unwrap();
    assert!(same.bytes == bytes && !same.moved);
    assert_eq!((same.carried, same.reencoded.len()), (2, 0));
    let mut longer = model.clone();
    longer.extend_from_slice(&[0xAB; 5]);
    let r = tag.rebuild(&longer, &[], &imgs).unwrap();
    let out = r.bytes;
    assert!(r.moved);
    let (a, b) = (Pac::read(&bytes).unwrap(), Pac::read(&out).unwrap());
    // Textures before the model keep offset and bytes; the model is the new bytes; the shadow
    // moves to the next 16-byte boundary after it, bytes unchanged, both its slots following.
    assert_eq!(b.members[0].offset, a.members[0].offset);
    assert_eq!(b.members[0].bytes().unwrap(), a.members[0].bytes().unwrap());
    assert_eq!(b.members[1].offset, a.members[1].offset);
    let end = u64::from(b.members[1].offset) + longer.len() as u64;
    let expect = end.div_ceil(16) * 16;
    assert_eq!(u64::from(b.members[2].offset), expect);
    assert_eq!(b.offsets[8], expect as u32);
    assert_eq!(b.offsets[14], expect as u32);
    assert_eq!(b.members[2].bytes().unwrap(), a.members[2].bytes().unwrap());
    assert_eq!(
        &out[..8 + 4 * 16],
        &{
            let mut h = bytes[..8 + 4 * 16].to_vec();
            h[8 + 4 * 8..8 + 4 * 9].copy_from_slice(&(expect as u32).to_le_bytes());
            h[8 + 4 * 14..8 + 4 * 15].copy_from_slice(&(expect as u32).to_le_bytes());
            h
        }[..]
    );
}

/// `png` with its `rgTX` chunk's entry cut to `keep` bytes (chunk length and CRC fixed).
fn cut_chunk(png: &[u8], keep: usize) -> Vec<u8> {
    let mut at = 8;
    loop {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if png[at + 4..at + 8] == CHUNK_TYPE {
            // version byte and index word, then the entry
            let mut typed = CHUNK_TYPE.to_vec();
            typed.extend_from_slice(&png[at + 8..at + 8 + 5 + keep]);
            let mut out = png[..at].to_vec();
            out.extend_from_slice(&((5 + keep) as u32).to_be_bytes());
            out.extend_from_slice(&typed);
            out.extend_from_slice(&common::crc32(&typed).to_be_bytes());
            out.extend_from_slice(&png[at + 12 + len..]);
            return out;
        }
        at += 12 + len;
    }
}

#[test]
fn an_image_lost_or_unreadable_is_named() {
    let (_, tag, pngs, model) = sample_parts();
    let names = image_names(2);
    // No image stands for texture 0: neither its chunk, nor its name, nor its material.
    let mut imgs = images(&names, &pngs);
    imgs.remove(0);
    let e = tag.rebuild(&model, &[], &imgs).unwrap_err();
    assert_eq!(
        e.to_string(),
        "texture 0: no image carries its native bytes (the rgTX chunk of its PNG), and no image named \"texture_0\" or shown by the material \"texture_0\" is there to re-encode"
    );
    // An image named after it that is no PNG is named with the decoder's words.
    let junk = [b"not a png".to_vec(), pngs[1].clone()];
    let e = tag
        .rebuild(&model, &[], &images(&names, &junk))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "texture 0: its repainted image \"texture_0\" cannot be re-encoded: not a PNG it can read"
        ),
        "{e}"
    );
    // A JPEG (an exporter set to write JPEGs) is named as such, with what to do.
    let jpeg = [vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16], pngs[1].clone()];
    let e = tag
        .rebuild(&model, &[], &images(&names, &jpeg))
        .unwrap_err();
    assert!(
        e.to_string().ends_with(
            "cannot be re-encoded: a JPEG, not a PNG: export images as PNG (Blender's glTF exporter: Images, PNG)"
        ),
        "{e}"
    );
    // A PNG whose header claims far more pixels than its data holds is refused before any
    // allocation of that size.
    let mut huge = encode_plain_png(1, 1, &[1, 2, 3, 4]);
    huge[16..24].copy_from_slice(&[0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF]);
    let crc = common::crc32(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    let e = tag
        .rebuild(&model, &[], &images(&names, &[huge, pngs[1].clone()]))
        .unwrap_err();
    assert!(e.to_string().contains("cannot be re-encoded"), "{e}");
    // An entry in the chunk that is no gfxTexture entry is named too.
    let short = cut_chunk(&pngs[0], 16);
    assert_eq!(native_entry(&short).unwrap().1.len(), 16);
    let e = tag
        .rebuild(&model, &[], &images(&names, &[short, pngs[1].clone()]))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "texture 0: the rgTX chunk of its image does not read as a gfxTexture entry"
        ),
        "{e}"
    );
}

/// An RGBA PNG with no private chunk (what an editor writes for a painted image).
fn encode_plain_png(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgba);
    e.set_depth(png::BitDepth::Eight);
    let mut wr = e.write_header().unwrap();
    wr.write_image_data(rgba).unwrap();
    wr.finish().unwrap();
    out
}

/// The PTX member of an archive: its index among the members, and the bundle.
fn ptx_of(pac: &[u8]) -> (usize, Ptx) {
    use rigtrip::native::dmc3::pac::{MemberKind, Pac};
    let pac = Pac::read(pac).unwrap();
    pac.members
        .iter()
        .enumerate()
        .find_map(|(i, m)| match &m.kind {
            MemberKind::Ptx(p) => Some((i, (**p).clone())),
            _ => None,
        })
        .expect("a PTX member")
}

/// `rgba` (w × h) with the rectangle [x0, x1) × [y0, y1) set to `colour`.
fn paint(w: u32, rgba: &mut [u8], (x0, y0, x1, y1): (u32, u32, u32, u32), colour: [u8; 4]) {
    for y in y0..y1 {
        for x in x0..x1 {
            let at = ((y * w + x) * 4) as usize;
            rgba[at..at + 4].copy_from_slice(&colour);
        }
    }
}

/// The 8×8 square at the top left of `rgba` (`w` wide) is opaque red within [`BOUND`].
fn assert_red_square(w: u32, rgba: &[u8]) {
    for y in 0..8 {
        for x in 0..8 {
            let at = ((y * w + x) * 4) as usize;
            let px = &rgba[at..at + 4];
            let red = px
                .iter()
                .zip([255u8, 0, 0, 255])
                .all(|(a, b)| a.abs_diff(b) <= BOUND);
            assert!(red, "({x}, {y}): {px:?}");
        }
    }
}

/// Largest difference per channel between two RGBA images of one size.
fn max_diff(a: &[u8], b: &[u8]) -> [u8; 4] {
    let mut max = [0u8; 4];
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for c in 0..4 {
            max[c] = max[c].max(p[c].abs_diff(q[c]));
        }
    }
    max
}

#[test]
fn a_painted_image_lands_in_its_own_entry_only() {
    use rigtrip::native::dmc3::Pac;
    let (bytes, tag, pngs, model) = sample_parts();
    let (w, h, mut rgba) = png_rgba(&pngs[0]);
    paint(w, &mut rgba, (0, 0, 8, 8), [255, 0, 0, 255]);
    let painted = encode_plain_png(w, h, &rgba);
    let names = image_names(2);
    let r = tag
        .rebuild(&model, &[], &images(&names, &[painted, pngs[1].clone()]))
        .unwrap();
    assert_eq!((r.carried, r.reencoded.len()), (1, 1));
    let re = &r.reencoded[0];
    let (mi, old) = ptx_of(&bytes);
    let (_, new) = ptx_of(&r.bytes);
    let (o, n) = (&old.textures[0], &new.textures[0]);
    let (og, ng) = (o.geometry().unwrap(), n.geometry().unwrap());
    let size = (og.width, og.height);
    assert_eq!((re.index, re.format, re.was), (0, og.format, size));
    assert_eq!((re.width, re.height), size);
    assert_eq!(
        (ng.format, ng.width, ng.height),
        (og.format, og.width, og.height)
    );
    assert_eq!(n.levels().len() as u32, og.full_chain(), "a full chain");
    assert_eq!(re.levels, og.full_chain());
    // The other entry and every other member keep their bytes.
    assert_eq!(new.textures[1], old.textures[1]);
    let (a, b) = (Pac::read(&bytes).unwrap(), Pac::read(&r.bytes).unwrap());
    for (k, (x, y)) in a.members.iter().zip(&b.members).enumerate() {
        if k != mi {
            assert_eq!(x.bytes().unwrap(), y.bytes().unwrap(), "member {k}");
        }
    }
    // Undecoded descriptor fields are kept; the decoded ones and the DDS header are canonical.
    let (od, nd) = (&o.descriptor, &n.descriptor);
    assert_eq!(
        (od.unknown_00, od.unknown_0c, od.unknown_14, od.unknown_1c),
        (nd.unknown_00, nd.unknown_0c, nd.unknown_14, nd.unknown_1c)
    );
    assert_eq!(
        (od.unknown_20, od.unknown_24, od.unknown_50),
        (nd.unknown_20, nd.unknown_24, nd.unknown_50)
    );
    assert_eq!(
        (od.unknown_68, od.unknown_6c),
        (nd.unknown_68, nd.unknown_6c)
    );
    for d in n.differences() {
        assert!(
            d.field.contains("+0x"),
            "a decoded field not canonical: {d:?}"
        );
        assert!(!d.field.starts_with("DDS"), "{d:?}");
    }
    // What the independent decoder reads: the painted square is red, and the report's error
    // is what it measures (within the decoders' rounding).
    let (dw, dh, got) = decode_top(n);
    assert_eq!((dw, dh), (w, h));
    let max = max_diff(&rgba, &got);
    for c in 0..4 {
        let reported = re.error.max_abs[c];
        assert!(
            max[c].abs_diff(reported) <= BOUND,
            "channel {c}: {max:?} vs {reported}"
        );
    }
    assert_red_square(w, &got);
}

#[test]
fn a_replaced_or_resized_image_is_found_and_its_spans_follow() {
    use rigtrip::rig::archive::DocImage;
    let (bytes, tag, pngs, model) = sample_parts();
    let (_, old) = ptx_of(&bytes);
    let og = old.textures[1].geometry().unwrap();
    // An image of another name (loaded from disk into texture_1's material), twice the size.
    let (w, h) = (og.width * 2, og.height * 2);
    let rgba: Vec<u8> = (0..w * h)
        .flat_map(|i| [(i % 251) as u8, 40, 200, 255])
        .collect();
    let replaced = encode_plain_png(w, h, &rgba);
    let imgs = vec![
        DocImage {
            name: Some("texture_0"),
            materials: vec!["texture_0"],
            png: Some(&pngs[0]),
        },
        DocImage {
            name: Some("my_paintover"),
            materials: vec!["texture_1"],
            png: Some(&replaced),
        },
    ];
    let r = tag.rebuild(&model, &[], &imgs).unwrap();
    assert_eq!(r.reencoded.len(), 1);
    let re = &r.reencoded[0];
    assert_eq!((re.index, re.image.as_str()), (1, "my_paintover"));
    assert_eq!((re.was, re.width, re.height), ((og.width, og.height), w, h));
    let (_, new) = ptx_of(&r.bytes);
    assert_eq!(new.textures[0], old.textures[0]);
    let n = &new.textures[1];
    let ng = n.geometry().unwrap();
    assert_eq!((ng.width, ng.height, ng.format), (w, h, og.format));
    assert_eq!(
        (n.descriptor.width, n.descriptor.height),
        (w as u16, h as u16)
    );
    assert_eq!(
        u64::from(n.descriptor.payload_bytes),
        ng.chain_bytes(ng.full_chain())
    );
    assert_eq!(n.len() % 0x800, 0, "a whole number of sectors");
    // The bundle reads back as written, its span table following the new entry.
    let written = new.write().unwrap();
    assert_eq!(Ptx::read(&written).unwrap(), new);
    assert_eq!(
        new.offsets()[1] + n.len(),
        written.len() as u64 - new.tail.len() as u64
    );
}

/// The PNG bytes of every image of a GLB, in image order.
fn pngs_of(glb: &std::path::Path) -> Vec<Vec<u8>> {
    let (doc, buffers, _) = gltf::import(glb).unwrap();
    doc.images()
        .map(|img| match img.source() {
            gltf::image::Source::View { view, .. } => buffers[view.buffer().index()]
                [view.offset()..view.offset() + view.length()]
                .to_vec(),
            _ => panic!("image {} not in a buffer view", img.index()),
        })
        .collect()
}

/// The sample archive written as `NAME.pac`, exported to `NAME.glb` (validator-clean) and taken
/// through Blender with `edits` to `NAME_through.glb`: (the archive, the export, Blender's).
fn sample_through_blender(name: &str, edits: &[&str]) -> (Vec<u8>, PathBuf, PathBuf) {
    let input = tmp(&format!("{name}.pac"));
    let pac = st::sample_character_pac();
    std::fs::write(&input, &pac).unwrap();
    let glb = tmp(&format!("{name}.glb"));
    export(&[input.to_str().unwrap(), "-o", glb.to_str().unwrap()]);
    validate(std::slice::from_ref(&glb));
    let through = tmp(&format!("{name}_through.glb"));
    common::blender_roundtrip(&glb, &through, edits);
    (pac, glb, through)
}

#[test]
#[ignore = "needs Blender (tools/blender-python)"]
fn blender_keeps_the_png_bytes_and_the_archive_comes_back() {
    let (pac, glb, through) = sample_through_blender("blender", &[]);
    // Blender writes an unmodified packed image back as it was: every PNG byte, chunk included.
    let (before, after) = (pngs_of(&glb), pngs_of(&through));
    assert_eq!(before.len(), after.len());
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        assert!(
            a == b,
            "image {i}: {} bytes before, {} after Blender",
            a.len(),
            b.len()
        );
    }
    let out = tmp("blender.new.pac");
    let report = import(&through, &out);
    assert!(
        report.contains("2 texture(s) from their images' native bytes"),
        "{report}"
    );
    assert!(
        std::fs::read(&out).unwrap() == pac,
        "the archive differs after Blender"
    );
    // Ours was validated (clean); what Blender writes draws validator warnings of its own
    // (skinned mesh nodes under the armature node).
}

/// An edited body says its shadow model (slot 8, carried as it was) still casts the old body,
/// by member, in text and JSON; an unedited one says nothing of shadows.
#[test]
fn an_edited_body_names_its_stale_shadow() {
    use rigtrip::native::dmc3::Pac;
    let pac = st::sample_character_pac();
    let read = Pac::read(&pac).unwrap();
    let (member, shadow) = read
        .members
        .iter()
        .enumerate()
        .find(|(_, m)| m.slots.contains(&8))
        .unwrap();
    assert_eq!(shadow.slots, [8, 14]);
    let input = tmp("shadow.pac");
    std::fs::write(&input, &pac).unwrap();
    let glb = tmp("shadow.glb");
    export(&[input.to_str().unwrap(), "-o", glb.to_str().unwrap()]);
    let out = tmp("shadow.new.pac");
    let report = import(&glb, &out);
    assert!(!report.contains("casts the old body"), "{report}");
    assert!(std::fs::read(&out).unwrap() == pac);

    let mut bytes = std::fs::read(&glb).unwrap();
    common::shrink_first_mesh(&mut bytes);
    let edited = tmp("shadow.edited.glb");
    std::fs::write(&edited, &bytes).unwrap();
    let report = stdout_of(rigtrip().args([
        "import",
        edited.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]));
    let line = format!(
        "member {member} (slot 8, shadow; slot 14, coat shadow): the shadow still casts the old shape (carried as it was)"
    );
    assert!(report.lines().any(|l| l == line), "{report}");
    let o = rigtrip()
        .args(["import", "--json", edited.to_str().unwrap(), "-o"])
        .arg(&out)
        .arg("--force")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["meshes"]["status"], "written", "{v}");
    assert_eq!(
        v["stale_shadows"],
        serde_json::json!([{"member": member, "offset": shadow.offset, "slots": [8, 14]}])
    );
    // The shadow's bytes are the archive's, unchanged.
    let back = Pac::read(&std::fs::read(&out).unwrap()).unwrap();
    let m = back.members.iter().find(|m| m.slots.contains(&8)).unwrap();
    assert_eq!(m.bytes().unwrap(), shadow.bytes().unwrap());
}

#[test]
#[ignore = "needs Blender (tools/blender-python)"]
fn a_texture_painted_in_blender_lands_in_its_own_entry_only() {
    use rigtrip::native::dmc3::Pac;
    let edit = [
        "--paint-image",
        "texture_0",
        "0",
        "0",
        "8",
        "8",
        "255",
        "0",
        "0",
    ];
    let (pac, glb, through) = sample_through_blender("paint", &edit);
    // Blender encodes the painted image anew (no chunk) and keeps the other as it was.
    let (before, after) = (pngs_of(&glb), pngs_of(&through));
    assert!(
        native_entry(&after[0]).is_none(),
        "the painted PNG kept the chunk"
    );
    assert!(after[1] == before[1], "the unpainted PNG changed");
    let out = tmp("paint.new.pac");
    let report = import(&through, &out);
    assert!(
        report.contains("1 texture(s) from their images' native bytes (rgTX), 1 re-encoded"),
        "{report}"
    );
    assert!(
        report.contains("texture 0: re-encoded from image \"texture_0\""),
        "{report}"
    );
    let got = std::fs::read(&out).unwrap();
    let (mi, old) = ptx_of(&pac);
    let (_, new) = ptx_of(&got);
    assert_eq!(new.textures[1], old.textures[1]);
    let (a, b) = (Pac::read(&pac).unwrap(), Pac::read(&got).unwrap());
    for (k, (x, y)) in a.members.iter().zip(&b.members).enumerate() {
        if k != mi {
            assert_eq!(x.bytes().unwrap(), y.bytes().unwrap(), "member {k}");
        }
    }
    let (o, n) = (&old.textures[0], &new.textures[0]);
    let (og, ng) = (o.geometry().unwrap(), n.geometry().unwrap());
    assert_eq!(
        (ng.format, ng.width, ng.height),
        (og.format, og.width, og.height)
    );
    assert_eq!(n.levels().len() as u32, og.full_chain());
    // The painted square decodes red by the independent decoder; the rest is the image Blender
    // wrote, within the encoding error the report gives.
    let (w, _, painted) = png_rgba(&after[0]);
    let (_, _, decoded) = decode_top(n);
    assert_red_square(w, &decoded);
    let max = max_diff(&painted, &decoded);
    let line = report
        .lines()
        .find(|l| l.contains("texture 0: re-encoded"))
        .unwrap();
    let reported: Vec<u8> = line
        .split("max ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    for c in 0..4 {
        assert!(
            max[c].abs_diff(reported[c]) <= BOUND,
            "{line} vs measured {max:?}"
        );
    }
}

#[test]
fn a_new_image_on_a_new_material_becomes_a_new_texture() {
    use rigtrip::rig::archive::DocImage;
    let (bytes, tag, pngs, model) = sample_parts();
    let opaque: Vec<u8> = (0..32 * 32)
        .flat_map(|i| [(i % 256) as u8, 90, 30, 255])
        .collect();
    let graded: Vec<u8> = (0..8 * 8)
        .flat_map(|i| [200, 10, (i * 4) as u8, 128])
        .collect();
    let (a, b) = (
        encode_plain_png(32, 32, &opaque),
        encode_plain_png(8, 8, &graded),
    );
    let names = image_names(2);
    let mut imgs = images(&names, &pngs);
    // Shown by a new material: new. Shown by `texture_0` (a replaced image) or by nothing:
    // not new.
    let new = |name, material, png| DocImage {
        name: Some(name),
        materials: vec![material],
        png: Some(png),
    };
    imgs.push(new("sword_paint", "sword", &a));
    imgs.push(new("glass", "visor", &b));
    imgs.push(DocImage {
        name: Some("loose"),
        materials: vec![],
        png: Some(&a),
    });
    assert_eq!(tag.new_images(&imgs), [2, 3]);
    // An image shown by a material `texture_7` (past the bundle) is named, not taken.
    let past = DocImage {
        name: Some("decal"),
        materials: vec!["texture_7"],
        png: Some(&a),
    };
    let mut with_past = imgs.clone();
    with_past.push(past);
    let r = tag.rebuild(&model, &[], &with_past).unwrap();
    assert_eq!(r.unused, ["loose", "decal"]);
    let grown = tag.texture_count().map(|n| n + tag.new_images(&imgs).len());
    assert_eq!(grown, Some(4));
    let r = tag.rebuild(&model, &[], &imgs).unwrap();
    assert_eq!(r.carried, 2);
    let added: Vec<_> = r
        .reencoded
        .iter()
        .map(|t| (t.index, t.format, t.added))
        .collect();
    assert_eq!(
        added,
        [(2, PixelFormat::Dxt1, true), (3, PixelFormat::Dxt5, true)]
    );
    let (_, old) = ptx_of(&bytes);
    let (_, grown) = ptx_of(&r.bytes);
    assert_eq!(grown.textures.len(), 4);
    assert_eq!(grown.textures[..2], old.textures[..]);
    for t in &grown.textures[2..] {
        // Canonical in every field, a full chain.
        assert_eq!(t.differences(), vec![], "{:?}", t.geometry());
    }
    // The opaque image decodes back within BC1's error by the independent decoder.
    let (w, h, got) = decode_top(&grown.textures[2]);
    assert_eq!((w, h), (32, 32));
    let reported = r.reencoded[0].error.max_abs;
    let max = max_diff(&opaque, &got);
    for c in 0..4 {
        assert!(
            max[c].abs_diff(reported[c]) <= BOUND,
            "{max:?} vs {reported:?}"
        );
    }
    // A document written before re-encoding (no headers) cannot tell new from repainted.
    let old_tag: rigtrip::rig::archive::ArchiveTag = {
        let mut v = serde_json::to_value(&tag).unwrap();
        v["members"][0].as_object_mut().unwrap().remove("heads");
        serde_json::from_value(v).unwrap()
    };
    assert!(old_tag.new_images(&imgs).is_empty());
}

#[test]
#[ignore = "needs Blender (tools/blender-python)"]
fn a_new_mesh_with_its_own_texture_in_blender_adds_a_texture() {
    use rigtrip::native::dmc3::pac::{MemberKind, Pac};
    let edits = [
        "--add-mesh",
        "sword",
        "mod_30",
        "--new-texture",
        "sword",
        "sword_steel",
        "steel",
        "32",
        "180",
        "190",
        "200",
    ];
    let (pac, _, through) = sample_through_blender("newtex", &edits);
    let out = tmp("newtex.new.pac");
    let report = import(&through, &out);
    assert!(report.contains("2 texture(s) from their images' native bytes (rgTX), 1 new from images on new materials"), "{report}");
    assert!(
        report.contains("texture 2: new, encoded from image \"steel\" as DXT1 32x32, 6 mip levels"),
        "{report}"
    );
    assert!(report.contains("texture count (+0x12): 2 -> 3"), "{report}");
    assert!(!report.contains("likely has no texture"), "{report}");
    let got = Pac::read(&std::fs::read(&out).unwrap()).unwrap();
    let (_, grown) = ptx_of(&std::fs::read(&out).unwrap());
    let (_, old) = ptx_of(&pac);
    assert_eq!(grown.textures.len(), 3);
    assert_eq!(grown.textures[..2], old.textures[..]);
    // The steel colour, by the independent decoder, within BC1's rounding of one colour.
    let (_, _, px) = decode_top(&grown.textures[2]);
    for p in px.chunks_exact(4) {
        let want = [180u8, 190, 200, 255];
        assert!(p.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 8), "{p:?}");
    }
    // The model counts 3 textures and its new mesh shows texture 2.
    let model = got
        .members
        .iter()
        .find_map(|m| match &m.kind {
            MemberKind::Model(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    let c = model.container.as_ref().unwrap();
    assert_eq!(c.header.texture_count, 3);
    let indices: Vec<u16> = c
        .objects
        .iter()
        .flat_map(|o| o.meshes.iter().map(|m| m.record.texture_index))
        .collect();
    assert_eq!(
        indices.iter().filter(|&&t| t == 2).count(),
        1,
        "{indices:?}"
    );
}

#[test]
#[ignore = "needs Blender (tools/blender-python)"]
fn a_texture_painted_on_a_loose_model_is_named_as_not_written() {
    let model = tmp("loose_paint.mod");
    std::fs::write(&model, rigtrip::synth::dmc3::sample_mod()).unwrap();
    let ptx = tmp("loose_paint.ptx");
    std::fs::write(&ptx, st::sample_ptx()).unwrap();
    let glb = tmp("loose_paint.glb");
    let m = model.to_str().unwrap();
    export(&[
        m,
        "--textures",
        ptx.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
    ]);
    let through = tmp("loose_paint_through.glb");
    let edit = [
        "--paint-image",
        "texture_1",
        "0",
        "0",
        "4",
        "4",
        "0",
        "255",
        "0",
    ];
    common::blender_roundtrip(&glb, &through, &edit);
    let report = import(&through, &tmp("loose_paint.new.mod"));
    assert!(
        report.contains(
            "note: image(s) \"texture_1\" not written: a model holds texture indices, not textures"
        ),
        "{report}"
    );
    // Unpainted, nothing is said.
    let plain = import(&glb, &tmp("loose_plain.new.mod"));
    assert!(!plain.contains("not written"), "{plain}");
}
