//! `dump`/`build`: build(dump(x)) == x for every generated file and every sample, every dump
//! validates against schema/dump.schema.json, the rendered text parses back to the same value,
//! one edit changes one line, and a bad dump is refused with the JSON pointer of the bad value.

use proptest::prelude::*;
use rigtrip::native::{Format, NativeFile};
use rigtrip::ops::dump::{build, build_text, dump, render, DumpError};
use rigtrip::synth;
use serde_json::{json, Value};
use std::sync::OnceLock;

mod common;

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/dump.schema.json");
        let text = std::fs::read_to_string(path).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        jsonschema::meta::validate(&schema).unwrap();
        jsonschema::validator_for(&schema).unwrap()
    })
}

fn schema_errors(v: &Value) -> Vec<String> {
    validator()
        .iter_errors(v)
        .map(|e| format!("{}: {}", e.instance_path(), e))
        .collect()
}

/// Reads, dumps, renders, parses, validates, builds and compares; returns the dump.
fn round_trip(format: Option<Format>, data: &[u8]) -> Value {
    let file = NativeFile::read(format, data).unwrap();
    let fmt = format.unwrap_or_else(|| rigtrip::native::detect(data).unwrap());
    let v = dump(&file, fmt);
    let errors = schema_errors(&v);
    assert!(errors.is_empty(), "schema: {errors:?}");
    let text = render(&v);
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed, v, "render does not parse back to the dump");
    let rebuilt = build_text(&text).unwrap();
    assert!(rebuilt == data, "build(dump(x)) != x");
    v
}

fn block_format(offset: u64, nodes: usize) -> Option<Format> {
    Some(Format::Block { offset, nodes })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn hie_round_trips(seed in any::<u64>()) {
        let v = round_trip(Some(Format::Hie), &synth::hie::random(seed));
        prop_assert_eq!(&v["format"], "hie");
    }

    #[test]
    fn mod_round_trips(seed in any::<u64>()) {
        let v = round_trip(None, &synth::dmc3::random_mod(seed));
        prop_assert_eq!(&v["format"], "mod");
    }

    #[test]
    fn scm_round_trips(seed in any::<u64>()) {
        let v = round_trip(None, &synth::dmc3::random_scm(seed));
        prop_assert_eq!(&v["format"], "scm");
    }

    #[test]
    fn block_round_trips(seed in any::<u64>()) {
        let (data, offset, nodes) = synth::dmc3::random_block_file(seed);
        let v = round_trip(block_format(offset, nodes), &data);
        prop_assert_eq!(&v["format"], "block");
        prop_assert_eq!(&v["offset"], &json!(format!("{offset:#x}")));
        prop_assert_eq!(&v["nodes"], &json!(nodes));
    }
}

/// [`round_trip`] for a motion file (detected by content).
fn motion_round_trip(data: &[u8]) -> Value {
    let file = rigtrip::native::MotionFile::detect_read(data)
        .unwrap()
        .unwrap();
    let v = rigtrip::ops::dump::dump_motion(&file);
    let errors = schema_errors(&v);
    assert!(errors.is_empty(), "schema: {errors:?}");
    let text = render(&v);
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed, v, "render does not parse back to the dump");
    assert!(build_text(&text).unwrap() == data, "build(dump(x)) != x");
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn mot_round_trips(seed in any::<u64>()) {
        let v = motion_round_trip(&synth::motion::random_mot(seed));
        prop_assert_eq!(&v["format"], "mot");
    }

    #[test]
    fn pac_round_trips(seed in any::<u64>()) {
        let v = motion_round_trip(&synth::motion::random_pac(seed));
        prop_assert_eq!(&v["format"], "pac");
    }
}

#[test]
fn motion_dump_edits_are_checked() {
    let data = synth::motion::sample_mot();
    let v = motion_round_trip(&data);
    // A key count that disagrees with the keys is refused, naming the track.
    let mut w = v.clone();
    w["file"]["tracks"][3]["head"]["key_count"] = json!(1);
    let e = build(&w).unwrap_err();
    assert_eq!(e.pointer(), "/file/tracks/3/head/key_count");
    assert!(e.to_string().contains("(track 3: node 0 rx)"), "{e}");
    // A mask that is not hex is refused by pointer.
    let mut w = v.clone();
    w["file"]["masks"][0] = json!("511");
    assert_eq!(build(&w).unwrap_err().pointer(), "/file/masks");
    assert!(!schema_errors(&w).is_empty());
    // An edited key value writes exactly that value.
    let mut w = v;
    w["file"]["tracks"][0]["keys"][0]["value"] = json!(7);
    let b = build(&w).unwrap();
    let m = rigtrip::native::dmc3::Mot::read(&b).unwrap();
    let rigtrip::native::dmc3::Keys::U16(k) = &m.tracks[0].keys else {
        panic!("layout")
    };
    assert_eq!(k[0].value, 7);
}

#[test]
fn samples_round_trip() {
    let (efm, offset, nodes) = synth::dmc3::sample_efm();
    let cases: Vec<(Option<Format>, Vec<u8>, &str)> = vec![
        (None, synth::hie::sample_db22(), "hie"),
        (None, synth::dmc3::sample_mod(), "mod"),
        (None, synth::dmc3::sample_scm(), "scm"),
        (block_format(offset, nodes), efm, "block"),
    ];
    for (format, data, kind) in cases {
        let v = round_trip(format, &data);
        assert_eq!(v["format"], kind);
        assert_eq!(v["rigtrip_dump"], 1);
    }
}

fn efm_dump() -> (Value, Vec<u8>) {
    let (data, offset, nodes) = synth::dmc3::sample_efm();
    let f = NativeFile::read(block_format(offset, nodes), &data).unwrap();
    (dump(&f, Format::Block { offset, nodes }), data)
}

fn mod_dump() -> (Value, Vec<u8>) {
    let data = synth::dmc3::sample_mod();
    let f = NativeFile::read(None, &data).unwrap();
    (dump(&f, Format::Dmc3), data)
}

fn hie_dump() -> (Value, Vec<u8>) {
    let data = synth::hie::sample_db22();
    let f = NativeFile::read(None, &data).unwrap();
    (dump(&f, Format::Hie), data)
}

#[test]
fn block_header_fields_are_exact() {
    let (v, _) = efm_dump();
    assert_eq!(v["offset"], "0x35");
    assert_eq!(v["nodes"], 8);
    assert_eq!(v["file"]["block"]["offset"], "0x35");
    assert!(v["file"].get("container").is_none(), "no container: no key");
    // The 0x35 bytes before the block are one gap, base64 of exactly those bytes.
    let (_, data) = efm_dump();
    let gap = &v["file"]["gaps"][0];
    assert_eq!(gap["offset"], "0x0");
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(gap["bytes"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, &data[..0x35]);
}

#[test]
fn an_edit_changes_one_line_and_exactly_its_bytes() {
    let (mut v, data) = efm_dump();
    let before = render(&v);
    let t = &mut v["file"]["block"]["transforms"][3];
    assert_eq!(t["w_bits"], "0x00000000");
    t["w_bits"] = json!("0x8000000f");
    let after = render(&v);
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    assert_eq!(a.len(), b.len());
    let changed: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(b[changed[0]].contains("\"w_bits\": \"0x8000000f\""));
    assert!(b[changed[0]].trim_start().starts_with("{\"tx_bits\""));

    let rebuilt = build(&v).unwrap();
    assert_eq!(rebuilt.len(), data.len());
    // Block at 0x35, canonical rels for 8 nodes put the transforms at 0x40; node 3's +0x1C.
    let at = 0x35 + 0x40 + 3 * 0x20 + 0x1C;
    let diff: Vec<usize> = (0..data.len()).filter(|&i| data[i] != rebuilt[i]).collect();
    assert_eq!(diff, vec![at, at + 3]);
    assert_eq!(&rebuilt[at..at + 4], &[0x0f, 0, 0, 0x80]);
}

#[test]
fn hie_parts_render_one_line_each() {
    let (v, _) = hie_dump();
    let text = render(&v);
    let parts = v["file"]["hierarchies"][0]["parts"].as_array().unwrap();
    let first = serde_json::to_string(&parts[0]["runtime"]).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"runtime\": ") && l.contains(&first))
        .collect();
    assert!(!lines.is_empty());
    for l in lines {
        // Keys in order, the whole record on the line.
        let l = l.trim().trim_end_matches(',');
        let part: Value = serde_json::from_str(l).unwrap();
        assert_eq!(part.as_object().unwrap().len(), 6, "{l}");
        assert!(l.starts_with("{\"offset\": ["), "{l}");
    }
    // The 256 slots, 16 a line.
    let slots_at = text.find("\"slots\": [\n").unwrap();
    let body = &text[slots_at..];
    let rows = body
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().starts_with(']'));
    assert_eq!(rows.count(), 16);
}

fn expect_err(v: &Value, pointer: &str, contains: &str) -> DumpError {
    let e = build(v).unwrap_err();
    assert_eq!(e.pointer(), pointer, "{e}");
    assert!(e.to_string().contains(contains), "{e}");
    e
}

#[test]
fn bad_values_name_their_pointer() {
    let (v, _) = hie_dump();
    let mut w = v.clone();
    w["file"]["hierarchies"][0]["parts"][1]["depth"] = json!("one");
    let e = expect_err(&w, "/file/hierarchies/0/parts/1/depth", "invalid type");
    assert!(e
        .to_string()
        .starts_with("/file/hierarchies/0/parts/1/depth: "));
    assert!(!schema_errors(&w).is_empty());

    let mut w = v.clone();
    w["file"]["hierarchies"][0]["parts"][0]["model"] = json!("12");
    expect_err(
        &w,
        "/file/hierarchies/0/parts/0/model",
        "expected 0x-hex, got \"12\"",
    );

    let mut w = v.clone();
    w["file"]["hierarchies"][0]["parts"][0]["modle"] = json!("0x1");
    expect_err(&w, "/file/hierarchies/0/parts/0/modle", "unknown key");
    assert!(!schema_errors(&w).is_empty());

    let mut w = v.clone();
    w["rigtrip_dump"] = json!(2);
    expect_err(&w, "/rigtrip_dump", "dump version 2 is not supported");

    let mut w = v.clone();
    w["format"] = json!("efm");
    expect_err(&w, "/format", "unknown format \"efm\"");

    let mut w = v.clone();
    w["file"]["hierarchies"][0]["byte_lists"]["lists"][0] = json!("00ff");
    expect_err(
        &w,
        "/file/hierarchies/0/byte_lists/lists/0",
        "contains 0xff",
    );

    let mut w = v.clone();
    w["file"]["slots"][7] = json!(99);
    expect_err(&w, "/file/slots/7", "hierarchy index 99 out of range");

    assert_eq!(
        build_text("{\"rigtrip_dump\": 1,").unwrap_err().pointer(),
        ""
    );
}

#[test]
fn dmc3_inconsistencies_name_their_pointer() {
    let (v, _) = mod_dump();
    let mut w = v.clone();
    w["file"]["container"]["header"]["object_count"] = json!(3);
    expect_err(
        &w,
        "/file/container/header/object_count",
        "is 3 but /file/container/objects holds 2",
    );
    // Schema-valid but not writable: only build can tell.
    assert!(schema_errors(&w).is_empty());

    let mut w = v.clone();
    w["file"]["container"]["objects"][1]["meshes"][0]["weights"] = json!("AAA=");
    expect_err(
        &w,
        "/file/container/objects/1/meshes/0/weights",
        "holds 1 entries but /file/container/objects/1/meshes/0/record/vertex_count is",
    );

    let mut w = v.clone();
    w["file"]["container"]["objects"][0]["meshes"][0]["colours"] = json!("AAAAAA==");
    expect_err(
        &w,
        "/file/container/objects/0/meshes/0/colours",
        "a mod mesh has no colour stream",
    );
    assert!(!schema_errors(&w).is_empty());

    let mut w = v.clone();
    w["file"]["container"]["header"]["bone_count"] = json!(48);
    expect_err(
        &w,
        "/file/container/header/bone_count",
        "is 48 but /file/block/transforms holds 49 records",
    );

    let mut w = v.clone();
    w["format"] = json!("scm");
    expect_err(
        &w,
        "/file/container/header/magic",
        "Mod in a dump whose format is scm",
    );
    assert!(!schema_errors(&w).is_empty());

    // A gap moved onto the header overlaps it.
    let mut w = v.clone();
    w["file"]["gaps"] = json!([{"offset": "0x3c", "bytes": "AAAAAAAA"}]);
    expect_err(
        &w,
        "/file/gaps/0",
        "overlap /file/container/header (0x0..0x40)",
    );

    let mut w = v.clone();
    w["file"]["block"]["parents"].as_array_mut().unwrap().pop();
    expect_err(
        &w,
        "/file/block/parents",
        "holds 48 entries but /file/block/transforms holds 49 records",
    );
}

#[test]
fn block_header_must_match_the_block() {
    let (v, data) = efm_dump();
    // An absent structure may also be written as null.
    let mut w = v.clone();
    w["file"]["container"] = Value::Null;
    assert!(schema_errors(&w).is_empty());
    assert!(build(&w).unwrap() == data);
    let (m, _) = mod_dump();
    w["file"]["container"] = m["file"]["container"].clone();
    expect_err(&w, "/file/container", "a block dump has no container");
    assert!(!schema_errors(&w).is_empty());
    let mut w = v.clone();
    w["offset"] = json!("0x36");
    expect_err(&w, "/offset", "0x36, but /file/block/offset is 0x35");
    let mut w = v.clone();
    w["nodes"] = json!(9);
    expect_err(
        &w,
        "/nodes",
        "9, but /file/block/transforms holds 8 records",
    );
    let mut w = v.clone();
    w.as_object_mut().unwrap().remove("nodes");
    expect_err(&w, "", "a block dump needs \"nodes\"");
    assert!(!schema_errors(&w).is_empty());
    let mut w = v.clone();
    w["file"]["block"]["padding"] = json!([{"offset": "0x1", "bytes": "AA=="}]);
    expect_err(
        &w,
        "/file/block/padding/0",
        "block-relative bytes 0x1..0x2 overlap /file/block/rels",
    );
}

#[test]
fn an_edited_hie_part_offset_lands_in_its_bytes() {
    let (mut v, data) = hie_dump();
    let h = &v["file"]["hierarchies"][0];
    let base = u64::from_str_radix(h["offset"].as_str().unwrap().trim_start_matches("0x"), 16)
        .unwrap() as usize;
    v["file"]["hierarchies"][0]["parts"][2]["offset"][1] = json!(-2);
    let rebuilt = build(&v).unwrap();
    let at = base + 0x34 + 2 * 0x28 + 0x18;
    assert_eq!(&rebuilt[at..at + 4], &(-2i32).to_le_bytes());
    assert_eq!(&rebuilt[..at], &data[..at]);
    assert_eq!(&rebuilt[at + 4..], &data[at + 4..]);
}

/// `schema/dump.schema.json` is what `ops::dump::schema()` builds from the record declarations;
/// `RIGTRIP_BLESS=1 cargo test --test dump schema_file` rewrites it after a declaration changes.
#[test]
fn schema_file_is_generated_from_the_declarations() {
    let generated = serde_json::to_string_pretty(&rigtrip::ops::dump::schema()).unwrap() + "\n";
    common::assert_generated("schema/dump.schema.json", &generated, "dump schema_file");
    // The fragments come from the declarations: one field's evidence class and meaning.
    let v: Value = serde_json::from_str(&generated).unwrap();
    assert_eq!(
        v["$defs"]["transform"]["properties"]["w_bits"]["description"],
        "+0x1C PRESERVED_UNDECODED: not read by the local rotation path; 0.0 in every file seen, never assumed."
    );
    assert_eq!(
        v["$defs"]["part"]["required"],
        serde_json::json!([
            "unknown_00",
            "depth",
            "runtime",
            "offset",
            "unknown_20",
            "model"
        ])
    );
}

/// The writer takes every count from its list; a count the dump shows, edited alone, is refused
/// by build where it disagrees with its list (a vertex count at the stream), the whole message.
#[test]
fn a_count_edited_alone_is_refused() {
    let (v, _) = mod_dump();
    let mut w = v.clone();
    w["file"]["container"]["objects"][0]["meshes"][0]["record"]["vertex_count"] = json!(69);
    assert_eq!(
        build(&w).unwrap_err().to_string(),
        "/file/container/objects/0/meshes/0/positions: cannot write: holds 70 entries but /file/container/objects/0/meshes/0/record/vertex_count is 69"
    );
    // The same count in a record written as an array of its fields.
    let mut w = v.clone();
    let r = &mut w["file"]["container"]["objects"][0]["record"];
    let fields: Vec<Value> = [
        "mesh_count",
        "alpha_control",
        "vertex_count",
        "unknown_04",
        "mesh_offset",
        "flags",
        "unknown_14",
        "render_18",
        "render_1c",
        "unknown_20",
        "bounds_bits",
    ]
    .iter()
    .map(|k| r[k].clone())
    .collect();
    *r = Value::Array(fields);
    assert!(build(&w).is_ok());
    w["file"]["container"]["objects"][0]["record"][0] = json!(0);
    assert_eq!(
        build(&w).unwrap_err().to_string(),
        "/file/container/objects/0/record/mesh_count: cannot write: is 0 but /file/container/objects/0/meshes holds 2"
    );

    let data = synth::motion::sample_mot();
    let v = motion_round_trip(&data);
    let masks = v["file"]["masks"].as_array().unwrap().len();
    let tracks = v["file"]["tracks"].as_array().unwrap().len();
    let mut w = v.clone();
    w["file"]["header"]["node_count"] = json!(masks + 1);
    assert_eq!(
        build(&w).unwrap_err().to_string(),
        format!(
            "/file/header/node_count: cannot write: is {} but /file/masks holds {masks}",
            masks + 1
        )
    );
    let mut w = v.clone();
    w["file"]["trackCount"] = json!(tracks - 1);
    assert_eq!(
        build(&w).unwrap_err().to_string(),
        format!(
            "/file/trackCount: cannot write: is {} but /file/tracks holds {tracks} (the masks set {tracks} channels)",
            tracks - 1
        )
    );
    let mut w = v.clone();
    w["file"]["tracks"][0]["head"]["key_count"] = json!(0);
    assert_eq!(
        build(&w).unwrap_err().to_string(),
        "/file/tracks/0/head/key_count: cannot write: is 0 but /file/tracks/0/keys holds 16 (track 0: node 0 tx)"
    );
    // A missing count is refused as any missing field.
    let mut w = v;
    w["file"].as_object_mut().unwrap().remove("trackCount");
    assert_eq!(
        build(&w).unwrap_err().to_string(),
        "/file: missing field `trackCount`"
    );
}

/// Each writer refusal `build` maps by the error's typed fields (which structure, which field,
/// the values that disagree) to the JSON pointer of the value: the whole message, exactly.
#[test]
fn writer_refusals_point_at_their_field() {
    let (v, _) = mod_dump();
    type Edit = fn(&mut Value);
    let cases: [(Edit, &str); 12] = [
        (
            |w| w["file"]["container"]["objects"][0]["meshes"][0]["workspace"] = json!({"bytes": "AAAA"}),
            "/file/container/objects/0/meshes/0/workspace: cannot write: carries 3 bytes but the mesh's vertex count needs 416 (or write \"fill\")",
        ),
        (
            |w| w["file"]["container"]["objects"][1]["record"]["mesh_count"] = json!(2),
            "/file/container/objects/1/record/mesh_count: cannot write: is 2 but /file/container/objects/1/meshes holds 1",
        ),
        (
            |w| w["file"]["container"]["header"]["block_offset"] = json!("0x10"),
            "/file/container/header/block_offset: cannot write: is 0x10 but /file/block/offset is 0x4050",
        ),
        (
            |w| {
                w["file"].as_object_mut().unwrap().remove("block");
            },
            "/file/block: cannot write: is missing but the header names a block of 49 nodes at 0x4050",
        ),
        (
            |w| {
                w["file"]["container"]["objects"][0]["meshes"][0]["record"]["variant"] =
                    json!({"Scm": {"continuation": "0x0", "unknown_30": "0x0", "colour_offset": "0x0"}})
            },
            "/file/container/objects/0/meshes/0/record/variant: cannot write: a scm mesh record in a mod container",
        ),
        (
            |w| w["file"]["container"]["objects"][0]["meshes"][0]["positions"] = json!(""),
            "/file/container/objects/0/meshes/0/positions: cannot write: holds 0 entries but /file/container/objects/0/meshes/0/record/vertex_count is 70",
        ),
        (
            // Object 1's mesh names object 0's streams but holds other positions.
            |w| {
                let mut m = w["file"]["container"]["objects"][0]["meshes"][0].clone();
                m["positions"] = json!(format!("AAAAAA{}", &m["positions"].as_str().unwrap()[6..]));
                w["file"]["container"]["objects"][1]["meshes"][0] = m;
            },
            "/file/container/objects/1/meshes/0/positions: cannot write: shares offset 0x160 with /file/container/objects/0/meshes/0/positions but holds other data; edit both or give one its own offset",
        ),
        (
            |w| {
                let r = &mut w["file"]["container"]["objects"][0]["meshes"][0]["record"];
                r["normals_offset"] = r["positions_offset"].clone();
            },
            "/file/container/objects/0/meshes/0/normals: cannot write: its bytes 0x160..0x4a8 overlap /file/container/objects/0/meshes/0/positions (0x160..0x4a8)",
        ),
        (
            |w| w["file"]["container"]["objects"][0]["meshes"][0]["record"]["normals_offset"] = json!("0x84"),
            "/file/container/objects/0/meshes/0/normals: cannot write: its bytes 0x84..0x3cc overlap /file/container/objects/1/record (0x80..0xc0)",
        ),
        (
            |w| w["file"]["block"]["order"].as_array_mut().unwrap().push(json!(0)),
            "/file/block/order: cannot write: holds 50 entries but /file/block/transforms holds 49 records",
        ),
        (
            |w| w["file"]["block"]["padding"] = json!([{"offset": "0x10000", "bytes": "AA=="}]),
            "/file/block/padding/0: cannot write: padding at block-relative 0x10000..0x10001 lies outside the block's extent 0x6e0 (set by /file/block/rels)",
        ),
        (
            |w| w["file"]["block"]["padding"] = json!([{"offset": "0x22", "bytes": "AA=="}]),
            "/file/block/padding/0: cannot write: its block-relative bytes 0x22..0x23 overlap /file/block/parents (0x20..0x51)",
        ),
    ];
    for (edit, message) in cases {
        let mut w = v.clone();
        edit(&mut w);
        assert_eq!(build(&w).unwrap_err().to_string(), message);
    }
}

#[test]
fn a_coated_archive_dumps_its_shadow_models_and_refuses_their_lists_edited_alone() {
    let data = synth::texture::sample_coated_pac();
    let v = motion_round_trip(&data);
    let members = v["file"]["members"].as_array().unwrap();
    let shadows: Vec<usize> = (0..members.len())
        .filter(|&i| members[i]["kind"].get("shadow").is_some())
        .collect();
    assert_eq!(shadows.len(), 2, "slots 8 and 14");
    let mut w = v.clone();
    w["file"]["members"][shadows[0]]["kind"]["shadow"]["hulls"][0]["triangles"][0][0] = json!(1);
    let e = build(&w).unwrap_err();
    assert_eq!(
        e.pointer(),
        format!("/file/members/{}/kind/shadow", shadows[0])
    );
}

/// A dump written before the container records named their fields (`unknown_13`, `unknown_40`,
/// a 28-byte `unknown_14`, ...; tests/data/dump_v1, written by rigtrip 0.2.0) builds to the
/// same bytes: the old keys are read as the fields they became.
#[test]
fn a_dump_from_before_the_named_fields_builds_the_same_bytes() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/dump_v1");
    for (name, data) in [
        ("random_mod_16.mod.json", synth::dmc3::random_mod(16)),
        ("random_scm_1.scm.json", synth::dmc3::random_scm(1)),
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        assert!(text.contains("\"unknown_40\""), "{name} is in the old form");
        assert_eq!(build_text(&text).unwrap(), data, "{name}");
        // Dumped today it has the new keys, and builds the same bytes too.
        let f = NativeFile::read(None, &data).unwrap();
        let v = dump(&f, Format::Dmc3);
        let text = v.to_string();
        assert!(text.contains("\"workspace_offset\"") && !text.contains("\"unknown_40\""));
        assert_eq!(build(&v).unwrap(), data);
    }
}
