//! Seeded generators of DMC3 textures (gfxTexture entries, PTX bundles) and of character
//! archives that hold them beside a model, with the departures from the canonical form that
//! files written by community tools show: zeroed descriptors, dropped mip levels, odd pitch
//! values, random unknown fields, non-zero padding.

use super::rng::Rng;
use crate::native::dmc3::texture::{
    canonical_dds, canonical_descriptor, Descriptor, Geometry, PixelFormat, SECTOR,
};

/// How an entry's headers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headers {
    /// Both canonical for the chain written.
    Canonical,
    /// The descriptor all zeros (as a community tool writes it), the DDS header canonical.
    ZeroedDescriptor,
    /// The descriptor zero but for the five fields the game's loader reads (+0x00 = 0, width
    /// and height, +0x20 = 0x40, +0x64 = the DDS bytes, +0x68 = 8), the DDS header canonical:
    /// a texture a community tool wrote that the game loads.
    LoaderFields,
    /// Canonical headers, then a few descriptor and DDS fields (pitch among them) set to random
    /// values; the size and format fields stay, so the chain is still found.
    Perturbed,
    /// The DDS header all zeros: the chain's size comes from the descriptor.
    ZeroedDds,
}

/// What one generated entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntrySpec {
    /// Pixel format.
    pub format: PixelFormat,
    /// Top level size.
    pub width: u32,
    /// Top level size.
    pub height: u32,
    /// Levels written (1..=full chain).
    pub levels: u32,
    /// Levels the headers declare (the written ones, or the full chain: dropped levels).
    pub declared: u32,
    /// Header form.
    pub headers: Headers,
}

impl EntrySpec {
    /// A random spec: DXT1 or DXT5, 1..=128 on a side (non-square, sometimes not a power of
    /// two), a full chain or a partial one, one of the header forms.
    pub fn random(rng: &mut Rng) -> EntrySpec {
        let side = |rng: &mut Rng| match rng.chance(0.2) {
            true => rng.range(1, 40) as u32,
            false => 1u32 << rng.range(0, 7),
        };
        let format = match rng.chance(0.5) {
            true => PixelFormat::Dxt1,
            false => PixelFormat::Dxt5,
        };
        let (width, height) = (side(rng), side(rng));
        let full = geometry(format, width, height, 1).full_chain();
        let levels = match rng.chance(0.6) {
            true => full,
            false => rng.range(1, i64::from(full)) as u32,
        };
        let headers = match rng.index(4) {
            0 => Headers::Canonical,
            1 => Headers::ZeroedDescriptor,
            2 => Headers::Perturbed,
            _ => Headers::ZeroedDds,
        };
        EntrySpec {
            format,
            width,
            height,
            levels,
            // Dropped levels with the header left as it was, or a header that says what is there.
            declared: match rng.chance(0.5) {
                true => full,
                false => levels,
            },
            headers,
        }
    }
}

fn geometry(format: PixelFormat, width: u32, height: u32, mips: u32) -> Geometry {
    Geometry {
        format,
        width,
        height,
        mips,
        source: "dds",
    }
}

/// The bytes of one entry of `spec` (headers, chain of random blocks), without padding.
pub fn entry(rng: &mut Rng, spec: &EntrySpec) -> Vec<u8> {
    let g = geometry(spec.format, spec.width, spec.height, spec.declared);
    let mut d = canonical_descriptor(&g, [0, 0]);
    let mut h = canonical_dds(&g);
    // The canonical forms describe a full chain; a partial one declares its own count.
    let declared_bytes = g.chain_bytes(spec.declared);
    d.encoding = (d.encoding & !0xFF00) | (spec.declared & 0xFF) << 8;
    d.payload_bytes = declared_bytes as u32;
    d.dds_bytes = (128 + declared_bytes) as u32;
    h.mip_count = spec.declared;
    if rng.chance(0.2) {
        d.aux = [rng.next_u32() | 1, rng.next_u32() | 1];
    }
    match spec.headers {
        Headers::Canonical => {}
        Headers::ZeroedDescriptor => d = Default::default(),
        Headers::LoaderFields => {
            d = Descriptor {
                width: d.width,
                height: d.height,
                unknown_20: d.unknown_20,
                dds_bytes: d.dds_bytes,
                unknown_68: d.unknown_68,
                ..Descriptor::default()
            }
        }
        Headers::ZeroedDds => h = Default::default(),
        Headers::Perturbed => {
            h.pitch = rng.next_u32();
            d.unknown_0c = rng.next_u32();
            d.half_width = d.width;
            d.half_height = d.height;
            d.unknown_50[rng.index(4)] = rng.next_u32();
            h.caps_rest[0] = rng.next_u32();
        }
    }
    let mut out = d.encode().to_vec();
    out.extend_from_slice(&h.encode());
    let chain = g.chain_bytes(spec.levels) as usize;
    out.extend(rng.bytes(chain));
    out
}

/// `b` padded to a whole number of sectors: zeros, or (`noise`) random bytes.
fn pad_to_sectors(rng: &mut Rng, mut b: Vec<u8>, noise: bool) -> Vec<u8> {
    let n = crate::bytes::align(b.len() as u64, SECTOR) as usize;
    let pad = n - b.len();
    match noise {
        true => b.extend(rng.bytes(pad)),
        false => b.resize(n, 0),
    }
    b
}

/// A PTX bundle of the given entries: count, spans, zero (or `noisy`) table padding, each
/// entry padded to its sectors (zeros, sometimes random bytes), `tail` after the last.
pub fn bundle(rng: &mut Rng, specs: &[EntrySpec], noisy: bool, tail: &[u8]) -> Vec<u8> {
    let entries: Vec<Vec<u8>> = specs
        .iter()
        .map(|s| {
            let e = entry(rng, s);
            let noise = noisy && rng.chance(0.5);
            pad_to_sectors(rng, e, noise)
        })
        .collect();
    let mut out = (specs.len() as u32).to_le_bytes().to_vec();
    for e in &entries {
        out.extend_from_slice(&((e.len() as u64 / SECTOR) as u32).to_le_bytes());
    }
    out = pad_to_sectors(rng, out, noisy);
    for e in entries {
        out.extend_from_slice(&e);
    }
    out.extend_from_slice(tail);
    out
}

/// A random PTX bundle for `seed`: 1..=4 textures of random specs, sometimes non-zero table
/// and sector padding, sometimes bytes after the last texture.
pub fn random_ptx(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let specs: Vec<EntrySpec> = (0..rng.range(1, 4))
        .map(|_| EntrySpec::random(&mut rng))
        .collect();
    let noisy = rng.chance(0.3);
    let tail = match rng.chance(0.2) {
        true => {
            let n = rng.range(1, 40) as usize;
            rng.bytes(n)
        }
        false => Vec::new(),
    };
    bundle(&mut rng, &specs, noisy, &tail)
}

/// A random loose gfxTexture entry (`.tm2`) for `seed`, sometimes with bytes after its chain.
pub fn random_tm2(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let spec = EntrySpec::random(&mut rng);
    let mut b = entry(&mut rng, &spec);
    if rng.chance(0.3) {
        let n = rng.range(1, 64) as usize;
        b.extend(rng.bytes(n));
    }
    b
}

/// A character archive: the PTX in slot 0, `model` (a MOD) in slot 1 with its texture count
/// set to the PTX's, the body's shadow model in slot 8 that slot 14 shares ([`super::shadow::shadow_of_model`]), slot 12 empty,
/// non-zero bytes between the table and the first member, and the shadow member at an offset
/// 8 past a 16-byte boundary (the model padded to 8 mod 16).
pub fn character_pac(rng: &mut Rng, ptx: Vec<u8>, model: Vec<u8>) -> Vec<u8> {
    dressed_pac(rng, ptx, model, None)
}

/// [`character_pac`] with `coat` (a second MOD) in slot 12 after the body, its cloth text in 13
/// (padded to 16 bytes), and the shadow models of the body in 8 and of the coat in 14
/// ([`super::shadow::shadow_of_model`]).
pub fn coated_character_pac(rng: &mut Rng, ptx: Vec<u8>, model: Vec<u8>, coat: Vec<u8>) -> Vec<u8> {
    let mut cloth = super::cloth::random_clt(rng.next_u64());
    cloth.resize(crate::bytes::align(cloth.len() as u64, 16) as usize, 0);
    dressed_pac(rng, ptx, model, Some((coat, cloth)))
}

fn dressed_pac(
    rng: &mut Rng,
    ptx: Vec<u8>,
    mut model: Vec<u8>,
    coat: Option<(Vec<u8>, Vec<u8>)>,
) -> Vec<u8> {
    let slots = 16;
    let count = u32::from_le_bytes([ptx[0], ptx[1], ptx[2], ptx[3]]);
    if let Some(b) = model.get_mut(0x12) {
        *b = count.min(255) as u8;
    }
    // Table ends at 8 + 4 * 16 = 0x48; an 8-byte gap puts the first member at 0x50.
    let gap: Vec<u8> = (0..8).map(|_| (rng.next_u32() as u8) | 1).collect();
    let ptx_len = crate::bytes::align(ptx.len() as u64, 16) as usize;
    let mut ptx = ptx;
    ptx.resize(ptx_len, 0);
    let model_len = crate::bytes::align(model.len() as u64, 16) as usize + 8;
    model.resize(model_len, 0);
    let mut members = vec![(vec![0], ptx), (vec![1], model)];
    match coat {
        // The coat with its cloth text and a shadow of its own.
        Some((mut c, cloth)) => {
            c.resize(crate::bytes::align(c.len() as u64, 16) as usize, 0);
            // Shadow models of the body and the coat, by the full layout.
            let shadows = [&members[1].1, &c].map(|m| super::shadow::shadow_of_model(m));
            let [body_shadow, coat_shadow] = shadows;
            members.push((vec![12], c));
            members.push((vec![13], cloth));
            members.push((vec![8], body_shadow));
            members.push((vec![14], coat_shadow));
        }
        None => {
            let body_shadow = super::shadow::shadow_of_model(&members[1].1);
            members.push((vec![8, 14], body_shadow));
        }
    }
    super::motion::place(slots, &gap, members)
}

/// A random character archive for `seed` (a random PTX and a random MOD; see
/// [`character_pac`]).
pub fn random_character_pac(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let ptx = random_ptx(rng.next_u64());
    let model = super::dmc3::random_mod(rng.next_u64());
    character_pac(&mut rng, ptx, model)
}

/// The sample PTX (`samples/dmc3_textures.ptx`): a canonical 16×16 DXT1 with its full chain,
/// a 16×8 DXT5 whose two smallest levels were dropped and whose descriptor was zeroed but for
/// the five fields the game's loader reads.
pub fn sample_ptx() -> Vec<u8> {
    let mut rng = Rng::new(0x5A3D_0729);
    let specs = [
        EntrySpec {
            format: PixelFormat::Dxt1,
            width: 16,
            height: 16,
            levels: 5,
            declared: 5,
            headers: Headers::Canonical,
        },
        EntrySpec {
            format: PixelFormat::Dxt5,
            width: 16,
            height: 8,
            levels: 3,
            declared: 3,
            headers: Headers::LoaderFields,
        },
    ];
    bundle(&mut rng, &specs, false, &[])
}

/// The sample character archive (`samples/dmc3_character.pac`): the sample PTX in slot 0,
/// the humanoid sample model in slot 1, the body's shadow model in slots 8 and 14 (shared).
pub fn sample_character_pac() -> Vec<u8> {
    let mut rng = Rng::new(0x5A3D_072A);
    character_pac(&mut rng, sample_ptx(), super::dmc3::sample_mod())
}

/// The sample coated character archive (`samples/dmc3_coated.pac`): the sample PTX in slot 0,
/// the humanoid sample model in slot 1, the sample coat on a coat skeleton of its own in slot
/// 12 ([`super::dmc3::coat`]: 32 nodes, six tails), its cloth text in 13 (retail-like: one
/// block, a `Bone` row for each hanging tail node, `WindParent` body node 3), and the shadow
/// models of the body and the coat by the full layout in 8 and 14.
pub fn sample_coated_pac() -> Vec<u8> {
    let mut rng = Rng::new(0x5A3D_072C);
    let coat = super::dmc3::sample_coat(false);
    let cloth = super::cloth::coat_clt("coat", &super::dmc3::coat::coat_rows(), 3);
    let (ptx, model) = (sample_ptx(), super::dmc3::sample_mod());
    dressed_pac(&mut rng, ptx, model, Some((coat, cloth)))
}
