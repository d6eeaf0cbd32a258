//! The MOD/SCM layout pass: on files in the real layout it reproduces every byte; on generated
//! files with shared streams, shuffled chunks and gaps it keeps every decoded value, carries
//! non-zero gaps and the tail, and the result is in the real order (checked by an independent
//! reader, tests/meshback/reader.rs).

mod common;

#[path = "meshback/reader.rs"]
mod reader;

use rigtrip::native::dmc3::layout::{relayout, tiles};
use rigtrip::native::dmc3::{read_container, write};
use rigtrip::synth::dmc3::{random_exportable, random_mod, random_scm, real_layout};

fn relaid(data: &[u8]) -> Vec<u8> {
    let mut f = read_container(data).unwrap();
    assert!(tiles(f.parts()), "a read file tiles");
    let c = f.container.as_mut().unwrap();
    relayout(&mut c.header, &mut c.objects, f.block.as_mut(), &mut f.gaps).unwrap();
    f.gaps.sort_by_key(|g| g.offset);
    let out = write(&f).unwrap();
    assert!(tiles(read_container(&out).unwrap().parts()));
    out
}

#[test]
fn a_real_layout_comes_back_byte_for_byte() {
    for seed in 0..200 {
        for scm in [false, true] {
            let data = real_layout(seed, scm);
            assert_eq!(relaid(&data), data, "seed {seed} scm {scm}");
        }
    }
}

#[test]
fn real_layouts_end_with_the_fill_after_the_block() {
    let mut with_block = 0;
    for seed in 0..50 {
        let data = real_layout(seed, false);
        let r = reader::read(&data);
        assert_eq!(&data[data.len() - 3..], &[0x12, 0, 0]);
        if r.bones > 0 {
            with_block += 1;
            assert!(r.block_offset as usize + 0x20 < data.len() - 18);
            assert_eq!(r.block_offset % 16, 0);
        }
    }
    assert!(with_block > 30);
}

/// Every decoded value but the offsets is kept; the tail keeps its bytes and follows the
/// block; non-zero gaps between structures are carried; the result is in the real order.
#[test]
fn generated_layouts_keep_every_value() {
    let mut moved_gaps = 0;
    for seed in 0..300u64 {
        let data = match seed % 3 {
            0 => random_mod(seed),
            1 => random_scm(seed),
            _ => random_exportable(seed, seed % 2 == 0),
        };
        let Ok(f) = read_container(&data) else {
            continue;
        };
        let out = relaid(&data);
        let (a, b) = (reader::read(&data), reader::read(&out));
        assert_eq!(a.objects, b.objects, "seed {seed}");
        assert_eq!(a.bones, b.bones);
        let back = read_container(&out).unwrap();
        if let (Some(x), Some(y)) = (&f.block, &back.block) {
            assert_eq!(
                (&x.parents, &x.order, &x.groups, &x.transforms),
                (&y.parents, &y.order, &y.groups, &y.transforms)
            );
            assert_eq!(y.offset % 16, 0);
        }
        // The non-zero gap bytes all come back, in order.
        let nonzero = |gaps: &[rigtrip::bytes::Gap]| -> Vec<Vec<u8>> {
            gaps.iter()
                .filter(|g| g.bytes.iter().any(|&b| b != 0))
                .map(|g| g.bytes.clone())
                .collect()
        };
        let (ga, gb) = (nonzero(&f.gaps), nonzero(&back.gaps));
        moved_gaps += ga.len();
        // Carried gaps may merge with the zero fill around them when read again: compare
        // their non-zero bytes, in order.
        let nz =
            |v: Vec<Vec<u8>>| -> Vec<u8> { v.concat().into_iter().filter(|&b| b != 0).collect() };
        assert_eq!(nz(ga.clone()), nz(gb), "seed {seed}");
        // Streams in the real order: each stream starts 16-aligned and after its mesh records.
        let mut last = 0u64;
        for o in &back.container.as_ref().unwrap().objects {
            if o.meshes.is_empty() {
                continue;
            }
            assert!(o.record.mesh_offset >= last && o.record.mesh_offset % 16 == 0);
            last = o.record.mesh_offset;
            for m in &o.meshes {
                for (kind, off) in m.record.streams() {
                    if m.stream_len(kind) > 0 {
                        assert_eq!(off % 16, 0);
                    }
                }
            }
        }
    }
    assert!(moved_gaps > 50, "only {moved_gaps} non-zero gaps seen");
}
