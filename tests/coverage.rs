//! Coverage maps: for every generated file and every sample the entries are disjoint, in order,
//! and cover every byte exactly once; the field entries sit where the reader found the values;
//! the evidence classes are the ones `docs/formats.md` gives.

mod common;

use proptest::prelude::*;
use rigtrip::native::{Format, NativeFile};
use rigtrip::ops::coverage::{coverage, render_text, Coverage, Entry, Evidence, Kind};
use rigtrip::synth;
use std::collections::BTreeMap;

/// The invariants every coverage map of a file as read must hold.
fn check_partition(c: &Coverage, data: &[u8]) {
    assert_eq!(c.size, data.len() as u64);
    assert!(
        c.notes.is_empty(),
        "notes for a file as read: {:?}",
        c.notes
    );
    let mut pos = 0u64;
    for e in &c.entries {
        assert_eq!(
            e.start, pos,
            "hole or overlap before {} at {:#x}",
            e.what, e.start
        );
        assert!(e.end > e.start, "empty entry {}", e.what);
        pos = e.end;
    }
    assert_eq!(
        pos, c.size,
        "entries end at {pos:#x}, file at {:#x}",
        c.size
    );
    let k = c.totals.by_kind;
    assert_eq!(k.decoded + k.preserved + k.undecoded, c.size);
    let e = c.totals.by_evidence;
    assert_eq!(
        e.exe_confirmed
            + e.structural_confirmed
            + e.corpus_confirmed
            + e.community
            + e.preserved_undecoded,
        c.size
    );
    let sum = |f: &dyn Fn(&Entry) -> bool| -> u64 {
        c.entries
            .iter()
            .filter(|x| f(x))
            .map(|x| x.end - x.start)
            .sum()
    };
    assert_eq!(k.undecoded, sum(&|x| x.kind == Kind::Undecoded));
    assert_eq!(
        e.exe_confirmed,
        sum(&|x| x.evidence == Evidence::ExeConfirmed)
    );
    // Undecoded bytes are always PRESERVED_UNDECODED.
    assert_eq!(
        sum(&|x| x.kind == Kind::Undecoded && x.evidence != Evidence::PreservedUndecoded),
        0
    );
}

fn by_start(c: &Coverage) -> BTreeMap<u64, &Entry> {
    c.entries.iter().map(|e| (e.start, e)).collect()
}

fn field<'a>(m: &BTreeMap<u64, &'a Entry>, at: u64, len: u64, suffix: &str) -> &'a Entry {
    let e = m
        .get(&at)
        .unwrap_or_else(|| panic!("no entry starts at {at:#x} ({suffix})"));
    assert_eq!(e.end - e.start, len, "{}", e.what);
    assert!(
        e.what.ends_with(suffix),
        "{:?} at {at:#x}, expected …{suffix}",
        e.what
    );
    e
}

/// Asserts that `e` is of `kind` with `evidence`.
#[track_caller]
fn assert_class(e: &Entry, kind: Kind, evidence: Evidence) {
    assert_eq!((e.kind, e.evidence), (kind, evidence), "{}", e.what);
}

fn le32(data: &[u8], e: &Entry) -> u32 {
    let s = &data[e.start as usize..e.end as usize];
    u32::from_le_bytes([s[0], s[1], s[2], s[3]])
}

/// Every field entry sits where the reader found its value, with the class `docs/formats.md` gives.
fn check_fields(file: &NativeFile, c: &Coverage, data: &[u8]) {
    let m = by_start(c);
    let gap_bytes = match file {
        NativeFile::Hie(f) => {
            for (i, h) in f.hierarchies.iter().enumerate() {
                let base = u64::from(h.offset);
                let e = field(&m, base, 2, "part count");
                assert_class(e, Kind::Decoded, Evidence::StructuralConfirmed);
                let s = f.first_slot(i).unwrap();
                assert_eq!(e.what, format!("slot {s} hierarchy part count"));
                for (k, p) in h.parts.iter().enumerate() {
                    let at = base + 0x34 + 0x28 * k as u64;
                    let e = field(&m, at + 2, 2, &format!("part {k} depth"));
                    assert_eq!(data[e.start as usize], p.depth as u8);
                    assert_eq!(e.evidence, Evidence::StructuralConfirmed);
                    for (x, v) in p.offset.iter().enumerate() {
                        let e = field(&m, at + 0x14 + 4 * x as u64, 4, &format!("offset[{x}]"));
                        assert_eq!(le32(data, e) as i32, *v);
                        assert_class(e, Kind::Decoded, Evidence::ExeConfirmed);
                    }
                    let e = field(&m, at, 2, "unknown_00");
                    assert_class(e, Kind::Preserved, Evidence::PreservedUndecoded);
                    let e = field(&m, at + 0x24, 4, "model");
                    assert_eq!(le32(data, e), p.model);
                }
            }
            f.gaps.iter().map(|g| g.bytes.len() as u64).sum::<u64>()
        }
        NativeFile::Dmc3(f) => {
            let mut g: u64 = f.gaps.iter().map(|g| g.bytes.len() as u64).sum();
            if let Some(con) = &f.container {
                let e = field(&m, 0, 4, "magic");
                assert_class(e, Kind::Decoded, Evidence::ExeConfirmed);
                let mut seen = std::collections::BTreeSet::new();
                for (i, o) in con.objects.iter().enumerate() {
                    for (j, mesh) in o.meshes.iter().enumerate() {
                        let at = o.record.mesh_offset + 0x50 * j as u64;
                        let e = field(&m, at, 2, "vertex count");
                        assert_eq!(e.what, format!("object {i} mesh {j} record vertex count"));
                        let e = field(&m, at + 0x40, 8, "index workspace offset");
                        assert_class(e, Kind::Decoded, Evidence::ExeConfirmed);
                        // A workspace the reader found is decoded, as the executable writes it.
                        let len =
                            rigtrip::native::dmc3::workspace::workspace_len(mesh.vertex_count());
                        if mesh.workspace.is_present() && len > 0 {
                            let ws = at + mesh.record.workspace_offset;
                            let e = field(&m, ws, len, "index workspace");
                            assert_eq!(e.what, format!("object {i} mesh {j} index workspace"));
                            assert_class(e, Kind::Decoded, Evidence::ExeConfirmed);
                        }
                        for (kind, off) in mesh.record.streams() {
                            let bytes = mesh.stream_bytes(kind);
                            if bytes.is_empty() || !seen.insert((off, bytes.len(), kind)) {
                                continue;
                            }
                            let e = field(&m, off, bytes.len() as u64, kind.name());
                            assert_eq!(&data[e.start as usize..e.end as usize], &bytes[..]);
                            assert_class(e, Kind::Decoded, Evidence::Community);
                        }
                    }
                }
            }
            if let Some(b) = &f.block {
                let e = field(&m, b.offset + 8, 4, "group_rel");
                assert_eq!(le32(data, e), b.rels.group);
                assert_eq!(e.evidence, Evidence::StructuralConfirmed);
                let t0 = b.offset + u64::from(b.rels.transform);
                for (k, t) in b.transforms.iter().enumerate() {
                    let at = t0 + 0x20 * k as u64;
                    let e = field(&m, at, 4, &format!("node {k} tx"));
                    assert_eq!(le32(data, e), t.tx_bits);
                    assert_eq!(e.evidence, Evidence::ExeConfirmed);
                    let e = field(&m, at + 0x0C, 4, "translation magnitude");
                    assert_eq!(le32(data, e), t.magnitude_bits);
                    assert_eq!(e.evidence, Evidence::StructuralConfirmed);
                    let e = field(&m, at + 0x1C, 4, &format!("node {k} +0x1C"));
                    assert_eq!(le32(data, e), t.w_bits);
                    assert_class(e, Kind::Preserved, Evidence::PreservedUndecoded);
                }
                if b.node_count() > 0 {
                    let n = b.node_count() as u64;
                    let e = field(&m, b.offset + u64::from(b.rels.group), n, "group array");
                    assert_class(e, Kind::Preserved, Evidence::StructuralConfirmed);
                    let e = field(&m, b.offset + u64::from(b.rels.parent), n, "parent array");
                    assert_class(e, Kind::Decoded, Evidence::ExeConfirmed);
                }
                g += b.padding.iter().map(|p| p.bytes.len() as u64).sum::<u64>();
            }
            g
        }
    };
    // Undecoded bytes are exactly the gaps and paddings the reader kept.
    assert_eq!(c.totals.by_kind.undecoded, gap_bytes);
}

fn check(format: Option<Format>, data: &[u8]) -> Coverage {
    let file = NativeFile::read(format, data).unwrap();
    let c = coverage(&file, data);
    check_partition(&c, data);
    check_fields(&file, &c, data);
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn hie_coverage_is_a_partition(seed in any::<u64>()) {
        let c = check(Some(Format::Hie), &synth::hie::random(seed));
        prop_assert_eq!(c.format, "hie");
    }

    #[test]
    fn mod_coverage_is_a_partition(seed in any::<u64>()) {
        let c = check(None, &synth::dmc3::random_mod(seed));
        prop_assert_eq!(c.format, "mod");
    }

    #[test]
    fn scm_coverage_is_a_partition(seed in any::<u64>()) {
        let c = check(None, &synth::dmc3::random_scm(seed));
        prop_assert_eq!(c.format, "scm");
    }

    #[test]
    fn block_coverage_is_a_partition(seed in any::<u64>()) {
        let (data, offset, nodes) = synth::dmc3::random_block_file(seed);
        let c = check(Some(Format::Block { offset, nodes }), &data);
        prop_assert_eq!(c.format, "block");
    }
}

#[test]
fn samples_are_partitions() {
    check(None, &synth::hie::sample_db22());
    let c = check(None, &synth::dmc3::sample_mod());
    let w = c
        .entries
        .iter()
        .filter(|e| e.what.ends_with("+0x1C"))
        .count();
    assert_eq!(w, 49);
    check(None, &synth::dmc3::sample_scm());
    let (efm, offset, nodes) = synth::dmc3::sample_efm();
    let c = check(Some(Format::Block { offset, nodes }), &efm);
    assert_eq!(c.entries[0].what, "gap");
    assert_eq!((c.entries[0].start, c.entries[0].end), (0, 0x35));
    let last = c.entries.last().unwrap();
    assert_eq!(last.what, "trailing bytes");
    assert_eq!(last.end - last.start, 0x43);
}

/// Table, a 4-byte gap, one hierarchy of one part at 0x404, 3 trailing bytes.
fn tiny_hie() -> Vec<u8> {
    let mut d = vec![0u8; 0x400];
    d[12..16].copy_from_slice(&0x404u32.to_le_bytes());
    d.extend_from_slice(&[0xAA; 4]);
    d.extend_from_slice(&1i16.to_le_bytes());
    let mut area = [0u8; 0x32];
    area[0] = 5;
    area[1] = 0xFF;
    d.extend_from_slice(&area);
    let mut part = [0u8; 0x28];
    part[2] = 1;
    part[0x14..0x18].copy_from_slice(&7i32.to_le_bytes());
    part[0x24] = 9;
    d.extend_from_slice(&part);
    d.extend_from_slice(&[1, 2, 3]);
    d
}

#[test]
fn tiny_hie_is_mapped_exactly() {
    let data = tiny_hie();
    assert_eq!(data.len(), 0x463);
    let c = check(Some(Format::Hie), &data);
    let rows: Vec<(u64, u64, &str, Kind, Evidence)> = c.entries[256..]
        .iter()
        .map(|e| (e.start, e.end, e.what.as_str(), e.kind, e.evidence))
        .collect();
    use Evidence::*;
    use Kind::*;
    assert_eq!(
        rows,
        vec![
            (0x400, 0x404, "gap", Undecoded, PreservedUndecoded),
            (
                0x404,
                0x406,
                "slot 3 hierarchy part count",
                Decoded,
                StructuralConfirmed
            ),
            (
                0x406,
                0x408,
                "slot 3 hierarchy byte lists",
                Decoded,
                StructuralConfirmed
            ),
            (
                0x408,
                0x438,
                "slot 3 hierarchy byte-list tail",
                Preserved,
                PreservedUndecoded
            ),
            (
                0x438,
                0x43a,
                "slot 3 hierarchy part 0 unknown_00",
                Preserved,
                PreservedUndecoded
            ),
            (
                0x43a,
                0x43c,
                "slot 3 hierarchy part 0 depth",
                Decoded,
                StructuralConfirmed
            ),
            (
                0x43c,
                0x44c,
                "slot 3 hierarchy part 0 runtime",
                Preserved,
                PreservedUndecoded
            ),
            (
                0x44c,
                0x450,
                "slot 3 hierarchy part 0 offset[0]",
                Decoded,
                ExeConfirmed
            ),
            (
                0x450,
                0x454,
                "slot 3 hierarchy part 0 offset[1]",
                Decoded,
                ExeConfirmed
            ),
            (
                0x454,
                0x458,
                "slot 3 hierarchy part 0 offset[2]",
                Decoded,
                ExeConfirmed
            ),
            (
                0x458,
                0x45c,
                "slot 3 hierarchy part 0 unknown_20",
                Preserved,
                PreservedUndecoded
            ),
            (
                0x45c,
                0x460,
                "slot 3 hierarchy part 0 model",
                Decoded,
                StructuralConfirmed
            ),
            (
                0x460,
                0x463,
                "trailing bytes",
                Undecoded,
                PreservedUndecoded
            ),
        ]
    );
    assert_eq!(c.entries.len(), 256 + 13);
    assert_eq!(c.entries[3].what, "slot 3 offset");
    let k = c.totals.by_kind;
    assert_eq!((k.decoded, k.preserved, k.undecoded), (1046, 70, 7));
    let e = c.totals.by_evidence;
    assert_eq!(
        (
            e.exe_confirmed,
            e.structural_confirmed,
            e.corpus_confirmed,
            e.community,
            e.preserved_undecoded
        ),
        (12, 1034, 0, 0, 77)
    );

    let text = render_text(&c);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "coverage of a hie file, 1123 bytes (0x463)");
    assert_eq!(lines[1], "by kind (what rigtrip does with the bytes):");
    assert_eq!(lines[2], "  decoded                     1046 bytes  93.14%");
    assert_eq!(lines[5], "by evidence (how the meaning is known):");
    assert_eq!(
        lines[10],
        "  PRESERVED_UNDECODED           77 bytes   6.86%"
    );
    assert_eq!(lines[11], "ranges (start..end, kind, evidence, field):");
    assert_eq!(
        lines[12],
        "0x00000000..0x00000400 decoded   STRUCTURAL_CONFIRMED slot 0 offset .. slot 255 offset (256 fields)"
    );
    assert_eq!(
        lines[13],
        "0x00000400..0x00000404 undecoded PRESERVED_UNDECODED  gap"
    );
    // Part count and byte lists share kind, class and record type: one line.
    assert_eq!(
        lines[14],
        "0x00000404..0x00000408 decoded   STRUCTURAL_CONFIRMED slot 3 hierarchy part count .. slot 3 hierarchy byte lists (2 fields)"
    );
    // Three offsets in a row are one line; the six part lines alternate kind or class.
    assert_eq!(
        lines[19],
        "0x0000044c..0x00000458 decoded   EXE_CONFIRMED        slot 3 hierarchy part 0 offset[0] .. slot 3 hierarchy part 0 offset[2] (3 fields)"
    );
    assert_eq!(lines.len(), 12 + 1 + 1 + 1 + 1 + 6 + 1);

    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(
        json["entries"][257],
        serde_json::json!({"start": 1028, "end": 1030, "what": "slot 3 hierarchy part count",
            "record": "hierarchy header", "kind": "decoded", "evidence": "STRUCTURAL_CONFIRMED"})
    );
    assert_eq!(json["totals"]["by_evidence"]["EXE_CONFIRMED"], 12);
    assert_eq!(json["totals"]["by_kind"]["undecoded"], 7);
}

#[test]
fn a_structure_not_read_from_the_bytes_still_partitions_them_with_notes() {
    let data = tiny_hie();
    let file = NativeFile::read(Some(Format::Hie), &data).unwrap();
    let short = &data[..0x450];
    let c = coverage(&file, short);
    let mut pos = 0;
    for e in &c.entries {
        assert_eq!(e.start, pos);
        pos = e.end;
    }
    assert_eq!(pos, 0x450);
    assert_eq!(
        c.entries.last().unwrap().what,
        "slot 3 hierarchy part 0 offset[0]"
    );
    assert_eq!(
        c.notes,
        vec![
            "slot 3 hierarchy part 0 offset[1] (0x450..0x454) lies past the end of the file; left out",
            "slot 3 hierarchy part 0 offset[2] (0x454..0x458) lies past the end of the file; left out",
            "slot 3 hierarchy part 0 unknown_20 (0x458..0x45c) lies past the end of the file; left out",
            "slot 3 hierarchy part 0 model (0x45c..0x460) lies past the end of the file; left out",
            "gap (0x460..0x463) lies past the end of the file; left out",
        ]
    );
    let c = coverage(&file, &data[..0x44e]);
    assert_eq!(c.entries.last().unwrap().end, 0x44e);
    assert_eq!(
        c.notes[0],
        "slot 3 hierarchy part 0 offset[0] (0x44c..0x450) runs past the end of the file; cut"
    );

    let long: Vec<u8> = data.iter().copied().chain([0u8; 5]).collect();
    let c = coverage(&file, &long);
    let last = c.entries.last().unwrap();
    assert_eq!(
        (last.start, last.end, last.what.as_str()),
        (0x463, 0x468, "bytes no structure accounts for")
    );
    assert_eq!(
        c.notes,
        vec!["0x463..0x468: no structure claims these bytes".to_string()]
    );
}

/// Every declared record: the field table is contiguous, fills the record and matches the
/// struct's serde keys in order; decode and encode are inverse on any bytes the types accept.
mod declared_records {
    use super::*;
    use rigtrip::native::dmc3::MeshCounts;
    use rigtrip::native::dmc3::{
        BlockHeader, BlockRels, ContainerKind, Header, MeshRecord, MeshVariant, ModStreams,
        NodeTransform, ObjectRecord, ScmStreams,
    };
    use rigtrip::native::hie::Part;
    use rigtrip::native::record::{Counted, Ctx, FieldDef, Record};

    fn contiguous<R: Record + Default>(name: &str) {
        let mut at = 0;
        for f in R::FIELDS {
            assert_eq!(f.offset, at, "{name}.{} starts at {:#x}", f.key, f.offset);
            assert_eq!(f.len % f.elements, 0, "{name}.{}", f.key);
            at += f.len;
        }
        assert_eq!(at, R::LEN as u64, "{name} fields sum to {at:#x}");
        let r = R::default();
        let keys: Vec<String> =
            match serde_json::to_value(Counted(&r, R::Counts::default())).unwrap() {
                serde_json::Value::Object(m) => m.keys().cloned().collect(),
                other => panic!("{other}"),
            };
        let mut declared: Vec<String> = R::FIELDS.iter().map(|f| f.key.to_string()).collect();
        declared.sort();
        assert_eq!(keys, declared, "{name}: serde keys are the declared fields");
    }

    #[test]
    fn field_tables_fill_their_records() {
        contiguous::<Header>("Header");
        contiguous::<ObjectRecord>("ObjectRecord");
        contiguous::<MeshRecord>("MeshRecord");
        contiguous::<ModStreams>("ModStreams");
        contiguous::<ScmStreams>("ScmStreams");
        contiguous::<BlockRels>("BlockRels");
        contiguous::<NodeTransform>("NodeTransform");
        contiguous::<Part>("Part");
        let sum: u64 = BlockHeader::FIELDS.iter().map(|f| f.len).sum();
        assert_eq!(sum, 0x20);
    }

    fn class(fields: &[FieldDef], key: &str) -> (Kind, Evidence) {
        let f = fields.iter().find(|f| f.key == key).unwrap();
        (f.kind, f.evidence)
    }

    #[test]
    fn evidence_classes_are_the_specs() {
        use Evidence::*;
        use Kind::*;
        assert_eq!(
            class(NodeTransform::FIELDS, "w_bits"),
            (Preserved, PreservedUndecoded)
        );
        assert_eq!(
            class(NodeTransform::FIELDS, "magnitude_bits"),
            (Decoded, StructuralConfirmed)
        );
        assert_eq!(
            class(BlockRels::FIELDS, "group"),
            (Decoded, StructuralConfirmed)
        );
        assert_eq!(class(BlockRels::FIELDS, "parent"), (Decoded, ExeConfirmed));
        assert_eq!(class(Part::FIELDS, "offset"), (Decoded, ExeConfirmed));
        assert_eq!(class(Part::FIELDS, "depth"), (Decoded, StructuralConfirmed));
        assert_eq!(
            class(Header::FIELDS, "block_offset"),
            (Decoded, ExeConfirmed)
        );
        assert_eq!(
            class(Header::FIELDS, "version_bits"),
            (Decoded, CorpusConfirmed)
        );
        assert_eq!(
            class(Header::FIELDS, "unknown_18"),
            (Preserved, PreservedUndecoded)
        );
        assert_eq!(
            class(MeshRecord::FIELDS, "workspace_offset"),
            (Decoded, ExeConfirmed)
        );
        assert_eq!(
            class(MeshRecord::FIELDS, "unknown_4c"),
            (Preserved, PreservedUndecoded)
        );
    }

    fn round_trip<R: Record>(b: &[u8], ctx: Ctx) -> Vec<u8> {
        let (r, counts) = R::decode_slice(&b[..R::LEN], ctx).unwrap();
        let mut out = vec![0u8; R::LEN];
        r.encode_slice(&counts, &mut out);
        out
    }

    proptest! {
        #[test]
        fn decode_then_encode_gives_the_bytes_back(b in proptest::collection::vec(any::<u8>(), 0x50)) {
            let plain = Ctx::default();
            prop_assert_eq!(&round_trip::<ObjectRecord>(&b, plain)[..], &b[..0x40]);
            prop_assert_eq!(&round_trip::<NodeTransform>(&b, plain)[..], &b[..0x20]);
            prop_assert_eq!(&round_trip::<BlockHeader>(&b, plain)[..], &b[..0x20]);
            prop_assert_eq!(&round_trip::<Part>(&b, plain)[..], &b[..0x28]);
            for kind in [ContainerKind::Mod, ContainerKind::Scm] {
                let ctx = Ctx { container: Some(kind) };
                prop_assert_eq!(&round_trip::<MeshRecord>(&b, ctx)[..], &b[..]);
                let mut h = b[..0x40].to_vec();
                h[..4].copy_from_slice(&kind.magic());
                prop_assert_eq!(round_trip::<Header>(&h, plain), h);
            }
        }

        #[test]
        fn encode_then_decode_gives_the_record_back(words in proptest::array::uniform8(any::<u32>()), k in any::<u64>()) {
            let t = NodeTransform {
                tx_bits: words[0], ty_bits: words[1], tz_bits: words[2], magnitude_bits: words[3],
                rx_bits: words[4], ry_bits: words[5], rz_bits: words[6], w_bits: words[7],
            };
            prop_assert_eq!(NodeTransform::decode(&t.encode(), Ctx::default()).unwrap(), t);
            let m = MeshRecord {
                uv_offset: k,
                variant: MeshVariant::Scm(ScmStreams { continuation: 0x50, unknown_30: k ^ 7, colour_offset: k ^ 1 }),
                ..MeshRecord::default()
            };
            let ctx = Ctx { container: Some(ContainerKind::Scm) };
            let counts = MeshCounts { vertex_count: words[0] as u16 };
            prop_assert_eq!(MeshRecord::decode(&m.encode(&counts), ctx).unwrap(), (m, counts));
        }
    }

    #[test]
    fn a_bad_magic_or_a_missing_kind_is_refused_by_field() {
        let mut b = [0u8; 0x50];
        b[..4].copy_from_slice(b"MOX ");
        let h: &[u8; 0x40] = b[..0x40].try_into().unwrap();
        assert_eq!(Header::decode(h, Ctx::default()).unwrap_err().key, "magic");
        assert_eq!(
            MeshRecord::decode(&b, Ctx::default()).unwrap_err().key,
            "variant"
        );
    }

    /// Coverage lists a mesh record's fields from the declaration, the variant's by its kind,
    /// and they add up to the record.
    #[test]
    fn coverage_rows_of_a_record_sum_to_its_size() {
        let data = synth::dmc3::sample_scm();
        let file = NativeFile::read(None, &data).unwrap();
        let c = coverage(&file, &data);
        let rows: Vec<&Entry> = c
            .entries
            .iter()
            .filter(|e| e.what.starts_with("object 0 mesh 0 record "))
            .collect();
        assert_eq!(rows.iter().map(|e| e.end - e.start).sum::<u64>(), 0x50);
        let names: Vec<&str> = rows
            .iter()
            .map(|e| e.what.trim_start_matches("object 0 mesh 0 record "))
            .collect();
        assert_eq!(
            names,
            [
                "vertex count",
                "texture index",
                "clamp min u",
                "clamp max u",
                "clamp min v",
                "clamp max v",
                "unknown_0c",
                "positions offset",
                "normals offset",
                "UV offset",
                "continuation span",
                "unknown_30",
                "colour offset",
                "index workspace offset",
                "index count",
                "unknown_4c"
            ]
        );
    }
}
