//! Cloth text (a player archive's slot 13): generated texts (odd spacing, tabs, CRLF and LF,
//! comments, keys outside the vocabulary, bytes after `$`) read and written byte for byte and
//! read by a parser of this test's own as `dump` shows them; members told apart by their
//! content; the coated sample's cloth edited through the glTF's scene properties (values with
//! six decimals, rows added, removed, renumbered with the coat, a lost joint refused by name);
//! the cloth rules of `rigtrip check`.

mod common;

use proptest::prelude::*;
use rigtrip::native::dmc3::cloth::Clt;
use rigtrip::native::dmc3::cloth_check::{self, Context};
use rigtrip::native::dmc3::pac::{MemberKind, Pac};
use rigtrip::native::finding::Severity;
use rigtrip::native::MotionFile;
use rigtrip::ops::character;
use rigtrip::synth::cloth::{coat_clt, random_clt};
use serde_json::{json, Value};

/// One block as this test reads it: each statement's key and values, the rows' values, and
/// whether `End` closed it.
#[derive(Debug, PartialEq)]
struct OwnBlock {
    params: Vec<(String, Vec<String>)>,
    rows: Vec<Vec<String>>,
    closed: bool,
}

/// Reads cloth text by the grammar, independently of the library: the text ends at the first
/// line whose first non-blank byte is `$`; statements are whitespace-separated tokens; `;`
/// starts a comment line; `ClothNo` opens a block, `End` closes it, `Bone` is a row.
fn own_parse(bytes: &[u8]) -> Vec<OwnBlock> {
    let mut end = bytes.len();
    let mut start = 0;
    while start < bytes.len() {
        let line_end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| start + p + 1);
        let first = bytes[start..line_end]
            .iter()
            .find(|&&b| b != b' ' && b != b'\t');
        if first == Some(&b'$') {
            end = start;
            break;
        }
        start = line_end;
    }
    let text = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<OwnBlock> = None;
    for line in text.split('\n') {
        let tokens: Vec<String> = line
            .split([' ', '\t', '\r'])
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        let Some(key) = tokens.first() else { continue };
        if key.starts_with(';') {
            continue;
        }
        let values = tokens[1..].to_vec();
        match (key.as_str(), open.as_mut()) {
            ("ClothNo", _) => {
                blocks.extend(open.take());
                open = Some(OwnBlock {
                    params: vec![(key.clone(), values)],
                    rows: Vec::new(),
                    closed: false,
                });
            }
            ("End", Some(b)) => {
                b.closed = true;
                blocks.extend(open.take());
            }
            ("Bone", Some(b)) => b.rows.push(values),
            (_, Some(b)) => b.params.push((key.clone(), values)),
            (_, None) => {}
        }
    }
    blocks.extend(open);
    blocks
}

/// An archive of 14 slots holding `member` in `slot` alone.
fn archive_with(slot: usize, member: &[u8]) -> Vec<u8> {
    let slots = 14u32;
    let at = 8 + 4 * slots;
    let mut b = b"PAC\0".to_vec();
    b.extend_from_slice(&slots.to_le_bytes());
    for s in 0..slots {
        let o = if s as usize == slot { at } else { 0 };
        b.extend_from_slice(&o.to_le_bytes());
    }
    b.extend_from_slice(member);
    b
}

/// The blocks `dump` shows for the cloth member of `pac`, in this test's form.
fn dumped_blocks(pac: &[u8]) -> Vec<OwnBlock> {
    let file = MotionFile::read(rigtrip::native::MotionFormat::Pac, pac).unwrap();
    let v = rigtrip::ops::dump::dump_motion(&file);
    let rebuilt = rigtrip::ops::dump::build(&v).unwrap();
    assert!(rebuilt == pac, "build(dump(x)) != x");
    let members = v["file"]["members"].as_array().unwrap();
    let cloth = members
        .iter()
        .find_map(|m| m["kind"].get("cloth"))
        .expect("a cloth member");
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let statements = |v: &Value| -> Vec<(String, Vec<String>)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["key"].as_str().unwrap().to_string(),
                    strings(&s["values"]),
                )
            })
            .collect()
    };
    cloth["grammar"]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| OwnBlock {
            params: statements(&b["params"]),
            rows: statements(&b["bones"]).into_iter().map(|s| s.1).collect(),
            closed: !b["end"].is_null(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_cloth_text_writes_back_byte_for_byte_and_dump_shows_its_grammar(seed in any::<u64>()) {
        let text = random_clt(seed);
        let clt = Clt::read(&text).expect("generated cloth text reads as cloth");
        prop_assert!(clt.write() == text);
        let pac = archive_with(13, &text);
        let read = Pac::read(&pac).unwrap();
        prop_assert_eq!(read.members[0].kind.name(), "clt");
        prop_assert_eq!(dumped_blocks(&pac), own_parse(&text));
    }
}

#[test]
fn the_generator_makes_what_the_reader_must_carry() {
    let texts: Vec<Vec<u8>> = (0..300).map(random_clt).collect();
    let has = |f: &dyn Fn(&[u8]) -> bool| texts.iter().filter(|t| f(t)).count();
    let find = |t: &[u8], s: &[u8]| t.windows(s.len()).any(|w| w == s);
    let dollar = |t: &[u8]| t.iter().position(|&b| b == b'$');
    assert!(has(&|t| find(t, b"\r\n")) > 100);
    assert!(has(&|t| find(t, b"\n") && !find(t, b"\r\n")) > 30);
    assert!(has(&|t| find(t, b" \t")) > 100);
    assert!(
        has(&|t| find(t, b"Flutter")) > 30,
        "a key outside the vocabulary"
    );
    assert!(has(&|t| find(t, b"Damping")) > 30, "a key rarely written");
    assert!(has(&|t| dollar(t).is_some_and(|d| t[d + 1..].iter().any(|&b| b > 0x7f))) > 10);
    assert!(
        has(&|t| dollar(t).is_none()) > 5,
        "texts without a terminator"
    );
}

#[test]
fn cloth_is_told_by_its_content_not_its_slot() {
    let text = coat_clt("x", &[(3, "Y")], 3);
    for slot in [5, 13] {
        let p = Pac::read(&archive_with(slot, &text)).unwrap();
        assert_eq!(p.members[0].kind.name(), "clt", "slot {slot}");
    }
    // Binary bytes in the cloth slot stay opaque; so does text that is no cloth.
    for other in [
        &b"\x06\0\0\0abcdefgh"[..],
        b"Gravity 0 0 0\r\nClothNum 1\r\n$",
    ] {
        let p = Pac::read(&archive_with(13, other)).unwrap();
        assert!(matches!(p.members[0].kind, MemberKind::Opaque(_)));
    }
}

#[test]
fn the_coated_sample_shows_its_cloth_in_inspect_and_coverage() {
    let out = common::run(&["inspect", "samples/dmc3_coated.pac", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let members = v["members"].as_array().unwrap();
    let cloth = members
        .iter()
        .find_map(|m| m.get("cloth"))
        .expect("a cloth member");
    assert_eq!(cloth["coat_slot"], 12);
    assert_eq!(cloth["blocks"].as_array().unwrap().len(), 1);
    let rows = cloth["blocks"][0]["bones"].as_array().unwrap();
    let want: Vec<usize> = rigtrip::synth::dmc3::coat::coat_rows()
        .iter()
        .map(|r| r.0)
        .collect();
    let got: Vec<usize> = rows
        .iter()
        .map(|r| r["node"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(got, want);
    assert_eq!(rows[0]["joint"], format!("coat/mod_{}", want[0]));
    assert_eq!(rows[0]["in_coat"], true);
    let out = common::run(&["inspect", "--coverage", "samples/dmc3_coated.pac", "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cloth block 0 Bone row 0"), "{text}");
    assert!(text.contains("cloth terminator"), "{text}");
}

/// The coated sample exported as `export` writes it.
fn export_sample() -> (Vec<u8>, Vec<u8>) {
    let pac = common::sample("dmc3_coated.pac");
    let p = Pac::read(&pac).unwrap();
    let c = character::character(&p).unwrap();
    let (tag, parts) = c.archive(&p).unwrap();
    let textures = c.textures.map(|(_, p)| &p.textures[..]).unwrap_or_default();
    let (images, _) = character::images(textures);
    let rig = rigtrip::rig::lift(rigtrip::native::NativeFile::Dmc3(c.model.clone()));
    let opts = rigtrip::gltf::ExportOptions::default();
    let e =
        rigtrip::gltf::export_textured(&rig, &[], &images, Some((&tag, &parts)), &opts).unwrap();
    (pac, rigtrip::gltf::to_glb(&e).unwrap())
}

/// `glb` with its scene extras' properties set (null removes one), imported.
fn import_with(
    glb: &[u8],
    props: &[(&str, Value)],
) -> Result<rigtrip::gltf::Imported, rigtrip::gltf::ImportError> {
    let (mut json, bin) = common::glb_split(glb);
    let extras = json["scenes"][0]["extras"].as_object_mut().unwrap();
    for (k, v) in props {
        match v {
            Value::Null => extras.remove(*k),
            _ => extras.insert(k.to_string(), v.clone()),
        };
    }
    rigtrip::gltf::import_slice(&common::glb(&json, &bin), None, &Default::default())
}

/// The cloth member (slot 13) of an archive.
fn cloth_of(pac: &[u8]) -> Vec<u8> {
    Pac::read(pac)
        .unwrap()
        .member_of(13)
        .unwrap()
        .bytes()
        .unwrap()
}

/// The sample's rows as the export lists them.
fn sample_rows(glb: &[u8]) -> String {
    let (json, _) = common::glb_parts(glb);
    json["scenes"][0]["extras"]["cloth13.0 Bone"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `text` (CRLF lines, `$` and NULs) with `f` applied to its lines, padded with NULs to 16.
fn expected(text: &[u8], f: impl Fn(&mut Vec<String>)) -> Vec<u8> {
    let s = String::from_utf8_lossy(text);
    let (body, _) = s.split_once('$').unwrap();
    let mut lines: Vec<String> = body.split("\r\n").map(str::to_string).collect();
    lines.pop();
    f(&mut lines);
    let mut out: Vec<u8> = lines
        .iter()
        .flat_map(|l| format!("{l}\r\n").into_bytes())
        .collect();
    out.push(b'$');
    out.resize((out.len() + 1).div_ceil(16) * 16, 0);
    out
}

#[test]
fn the_sample_cloth_comes_back_unedited_and_edited_where_the_properties_say() {
    let (pac, glb) = export_sample();
    let original = cloth_of(&pac);
    assert_eq!(import_with(&glb, &[]).unwrap().bytes, pac);

    // A value: six decimals after a tab; nothing else changes.
    let back = import_with(&glb, &[("cloth13.0 SpringForce", json!(0.125))]).unwrap();
    assert_eq!(common::changed_members(&pac, &back.bytes), [vec![13]]);
    let want = expected(&original, |l| {
        let i = l.iter().position(|x| x.starts_with("SpringForce")).unwrap();
        l[i] = "SpringForce\t0.125000".into();
    });
    assert_eq!(
        String::from_utf8_lossy(&cloth_of(&back.bytes)),
        String::from_utf8_lossy(&want)
    );
    // A parameter the block lacks, at its default, changes nothing; edited, it is written.
    let same = import_with(&glb, &[("cloth13.0 LimitLength", json!(1))]).unwrap();
    assert_eq!(same.bytes, pac);

    // Rows: one dropped (the last tail's tip), one added with its axis, one without (the
    // axis of its rest frame that points at its parent, worked out here).
    let rows = sample_rows(&glb).replace(", coat/mod_31 Y", "") + ", coat/mod_2 NZ, coat/mod_7";
    let back = import_with(&glb, &[("cloth13.0 Bone", json!(rows))]).unwrap();
    let axis7 = own_axis(&pac, 7);
    let want = expected(&original, |l| {
        l.retain(|x| x != "Bone\t31 Y");
        let at = l.iter().position(|x| x == "Bone\t3 Y").unwrap();
        l.insert(at, "Bone\t2 NZ".into());
        let at = l.iter().position(|x| x == "Bone\t8 Y").unwrap();
        l.insert(at, format!("Bone\t7 {axis7}"));
    });
    assert_eq!(
        String::from_utf8_lossy(&cloth_of(&back.bytes)),
        String::from_utf8_lossy(&want)
    );
    let text = back.report.render_text();
    assert!(text.contains("a row added for \"coat/mod_7\""), "{text}");
}

/// The signed axis of coat node `n`'s rest frame that points at its parent, from the coat's
/// transform record read here (Rz·Ry·Rx; the parent is at minus the local translation).
fn own_axis(pac: &[u8], n: usize) -> String {
    let p = Pac::read(pac).unwrap();
    let coat = p.member_of(12).unwrap().bytes().unwrap();
    let block = u64::from_le_bytes(coat[0x20..0x28].try_into().unwrap()) as usize;
    let transforms = u32::from_le_bytes(coat[block + 0x0C..block + 0x10].try_into().unwrap());
    let rec = block + transforms as usize + 0x20 * n;
    let f = |k: usize| f32::from_le_bytes(coat[rec + 4 * k..rec + 4 * k + 4].try_into().unwrap());
    let t = glam::DVec3::new(f(0) as f64, f(1) as f64, f(2) as f64);
    let r = glam::DMat3::from_rotation_z(f(6) as f64)
        * glam::DMat3::from_rotation_y(f(5) as f64)
        * glam::DMat3::from_rotation_x(f(4) as f64);
    let d = r.transpose() * -t;
    let a = d.abs().to_array();
    let k = (0..3).max_by(|&x, &y| a[x].total_cmp(&a[y])).unwrap();
    let sign = if d.to_array()[k] < 0.0 { "N" } else { "" };
    format!("{sign}{}", ["X", "Y", "Z"][k])
}

/// `glb` with the joint node named `name` made a stranger: no tag, another name (it stays in
/// the skin, so that the vertex joint slots keep their meaning; the document no longer has
/// that joint).
fn without_joint(glb: &[u8], name: &str) -> Vec<u8> {
    let (mut json, bin) = common::glb_split(glb);
    let nodes = json["nodes"].as_array_mut().unwrap();
    let node = nodes.iter_mut().find(|n| n["name"] == name).unwrap();
    node["name"] = json!("stranger");
    node.as_object_mut().unwrap().remove("extras");
    common::glb(&json, &bin)
}

#[test]
fn a_lost_simulated_joint_and_bad_properties_are_refused_by_name() {
    let (_, glb) = export_sample();
    // A simulated joint removed: refused, naming it and the cloth.
    let e = rigtrip::gltf::import_slice(
        &without_joint(&glb, "coat/mod_31"),
        None,
        &Default::default(),
    )
    .unwrap_err();
    let msg = rigtrip::chain(&e);
    assert!(
        msg.contains("coat/mod_31") && msg.contains("cloth (slot 13)"),
        "{msg}"
    );
    // Bad properties are refused by name.
    for (k, v) in [
        ("cloth13.0 Gravity", json!("down")),
        ("cloth13.0 Whirl", json!(1.0)),
        ("cloth13.1 Stiffness", json!(1.0)),
        ("cloth13.0 Bone", json!("coat/no_such_joint")),
        ("cloth13.0 WindParent", json!(2.5)),
    ] {
        let e = import_with(&glb, &[(k, v)]).unwrap_err();
        let msg = rigtrip::chain(&e);
        assert!(msg.contains(k), "{k}: {msg}");
    }
}

#[test]
fn check_finds_nothing_in_the_sample_and_each_defect_of_a_broken_one() {
    let pac = common::sample("dmc3_coated.pac");
    let p = Pac::read(&pac).unwrap();
    assert_eq!(cloth_check::check_archive(&p, Some("pl000")), []);
    let coat = match &p.member_of(12).unwrap().kind {
        MemberKind::Model(f) => (**f).clone(),
        _ => panic!("no coat"),
    };
    let body = match &p.member_of(1).unwrap().kind {
        MemberKind::Model(f) => (**f).clone(),
        _ => panic!("no body"),
    };
    let cx = Context {
        coat: Some(&coat),
        body: Some(&body),
        archive: Some("pl000"),
    };
    let stops = |text: &[u8]| -> Vec<String> {
        cloth_check::check(&Clt::read(text).unwrap(), &cx)
            .into_iter()
            .filter(|f| f.severity == Severity::Stops)
            .map(|f| format!("{}: {}", f.field, f.problem))
            .collect()
    };
    let one = |rows: &[(usize, &str)], wind: usize| stops(&coat_clt("c", rows, wind));
    assert_eq!(one(&[(3, "Y")], 3), Vec::<String>::new());
    let got = one(&[(40, "Y")], 3);
    assert!(got.len() == 1 && got[0].contains("no node 40"), "{got:?}");
    let got = one(&[(0, "Y")], 3);
    assert!(got.len() == 1 && got[0].contains("node 0"), "{got:?}");
    let got = one(&[(3, "W")], 3);
    assert!(got.len() == 1 && got[0].contains("axis"), "{got:?}");
    let got = one(&[(3, "Y")], 60);
    assert!(
        got.len() == 1 && got[0].starts_with("WindParent"),
        "{got:?}"
    );
    let two = b"ClothNum\t2\r\nClothNo\t0\r\nEnd\r\nClothNo\t1\r\nEnd\r\n$";
    assert_eq!(stops(two).len(), 1, "{:?}", stops(two));
    // A node of zero length: the humanoid's root, as a coat (its skeleton is the body's).
    let zero = (0..body.block.as_ref().unwrap().node_count())
        .find(|&n| body.block.as_ref().unwrap().transforms[n].translation() == [0.0; 3] && n != 0)
        .expect("a node at its parent");
    let on_body = Context {
        coat: Some(&body),
        ..cx
    };
    let f = cloth_check::check(
        &Clt::read(&coat_clt("c", &[(zero, "Y")], 3)).unwrap(),
        &on_body,
    );
    assert!(f.iter().any(|f| f.problem.contains("zero")), "{f:?}");
    // The coat's node count is the archive rules' (tests/check.rs), not said twice: the body
    // as a coat (49 nodes, its root moved off the origin) has only the root's note.
    let f = cloth_check::check_coat(&body);
    let got: Vec<_> = f
        .iter()
        .map(|f| (f.place.as_str(), f.field.as_str(), f.severity))
        .collect();
    assert_eq!(got, [("node 0", "local transform", Severity::Note)]);
}

/// Runs `blender/tests/cloth_test.py ARGS` under `tools/blender-python` (the Blender
/// RIGTRIP_BLENDER names, 4.5 by default) with this build's rigtrip; its RESULT object.
fn cloth_driver(args: &[&str]) -> Value {
    let mut cmd = std::process::Command::new(common::tool("blender-python"));
    cmd.arg(common::repo().join("blender/tests/cloth_test.py"))
        .args(args)
        .env("RIGTRIP_BIN", env!("CARGO_BIN_EXE_rigtrip"));
    let out = common::output_within(&mut cmd, std::time::Duration::from_secs(600));
    let stdout = String::from_utf8_lossy(&out.stdout);
    match stdout.lines().find_map(|l| l.strip_prefix("RESULT ")) {
        Some(line) if out.status.success() => serde_json::from_str(line).unwrap(),
        _ => panic!(
            "driver {args:?} failed ({})\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run (RIGTRIP_BLENDER=5.3 for 5.3)"]
fn the_add_on_shows_the_cloth_bones_and_parameters_and_writes_their_edits() {
    let pac = common::sample("dmc3_coated.pac");
    let dir = common::scratch("cloth_addon");
    let input = dir.join("dmc3_coated.pac");
    std::fs::write(&input, &pac).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (same, edited, deleted) = (path("same.pac"), path("edited.pac"), path("deleted.pac"));
    let got = cloth_driver(&[
        "addon",
        input.to_str().unwrap(),
        &same,
        &edited,
        &deleted,
        "cloth13.0 SpringForce",
        "0.125",
        "coat/mod_2",
        "coat/mod_31",
    ]);
    // The rows' bones, each with its axis, in a bone collection `cloth` of the coat's armature.
    let rows = rigtrip::synth::dmc3::coat::coat_rows();
    let want: serde_json::Map<String, Value> = rows
        .iter()
        .map(|(n, a)| (format!("coat/mod_{n}"), json!(a)))
        .collect();
    assert_eq!(got["bones"]["cloth"]["bones"], Value::Object(want), "{got}");
    assert_eq!(got["bones"]["cloth"]["armature"], "coat/mod");
    // The parameters as custom properties of the rig's collection.
    let props = &got["props"];
    assert_eq!(props["cloth13.0 SpringForce"], json!(0.05));
    assert_eq!(props["cloth13.0 Gravity"], json!([0.0, -0.2, 0.0]));
    assert_eq!(props["cloth13.0 MaxSpeed"], json!(50.0));
    assert_eq!(props["cloth13.0 WindParent"], json!(3));
    assert_eq!(
        props["cloth13.0 LimitLength"],
        json!(1),
        "the parser's default"
    );
    // Unedited: the archive byte for byte.
    assert_eq!(got["error_same"], Value::Null, "{got}");
    assert!(
        std::fs::read(&same).unwrap() == pac,
        "the unedited archive differs"
    );
    // One value and one bone: the cloth member alone, as this test writes it.
    assert_eq!(got["error_edited"], Value::Null, "{got}");
    let back = std::fs::read(&edited).unwrap();
    assert_eq!(common::changed_members(&pac, &back), [vec![13]]);
    let axis = own_axis(&pac, 2);
    let want = expected(&cloth_of(&pac), |l| {
        let i = l.iter().position(|x| x.starts_with("SpringForce")).unwrap();
        l[i] = "SpringForce\t0.125000".into();
        let at = l.iter().position(|x| x == "Bone\t3 Y").unwrap();
        l.insert(at, format!("Bone\t2 {axis}"));
    });
    assert_eq!(
        String::from_utf8_lossy(&cloth_of(&back)),
        String::from_utf8_lossy(&want)
    );
    // A simulated bone deleted: refused by name, nothing written.
    let error = got["error_deleted"].as_str().unwrap_or_default();
    assert!(
        error.contains("\"coat/mod_31\"") && error.contains("cloth"),
        "{got}"
    );
    assert_eq!(got["deleted_written"], false);
}

#[test]
#[ignore = "needs Blender: run tools/blender-python once, or .ci/run"]
fn the_cloth_properties_survive_blender_s_own_importer_and_exporter() {
    let (pac, glb) = export_sample();
    let dir = common::scratch("cloth_plain");
    let src = dir.join("coated.glb");
    std::fs::write(&src, &glb).unwrap();
    let import = |p: &std::path::Path| {
        rigtrip::gltf::import_slice(&std::fs::read(p).unwrap(), None, &Default::default()).unwrap()
    };
    let through = dir.join("through.glb");
    common::blender_roundtrip(&src, &through, &[]);
    assert!(
        import(&through).bytes == pac,
        "unedited, the archive differs"
    );
    // The scene's custom properties edited as a user types them.
    let rows = sample_rows(&glb) + ", coat/mod_2 NZ";
    let rows = serde_json::to_string(&rows).unwrap();
    let edited = dir.join("edited.glb");
    common::blender_roundtrip(
        &src,
        &edited,
        &[
            "--set-property",
            "cloth13.0 Stiffness",
            "0.45",
            "--set-property",
            "cloth13.0 Bone",
            &rows,
        ],
    );
    let back = import(&edited);
    assert_eq!(common::changed_members(&pac, &back.bytes), [vec![13]]);
    let want = expected(&cloth_of(&pac), |l| {
        let i = l.iter().position(|x| x.starts_with("Stiffness")).unwrap();
        l[i] = "Stiffness\t0.450000".into();
        let at = l.iter().position(|x| x == "Bone\t3 Y").unwrap();
        l.insert(at, "Bone\t2 NZ".into());
    });
    assert_eq!(
        String::from_utf8_lossy(&cloth_of(&back.bytes)),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn the_cloth_in_the_extras_follows_the_schema() {
    let path = common::repo().join("schema/rigtrip-extras.schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let (_, glb) = export_sample();
    let (json, _) = common::glb_parts(&glb);
    let mut extras = json["scenes"][0]["extras"].as_object().unwrap().clone();
    let scene = extras.remove("rigtrip").unwrap();
    let member = scene["archive"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "cloth")
        .expect("a cloth member");
    assert_eq!(member["names"]["3"], "coat/mod_3");
    let doc = json!({ "scene": scene, "sceneProperties": extras });
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(extras.len(), 10, "nine parameters and the rows: {extras:?}");
    for (key, bad) in [
        ("cloth13.0 Gravity", json!("down")),
        ("cloth13.0 Bone", json!([1])),
    ] {
        let mut wrong = extras.clone();
        wrong.insert(key.into(), bad);
        let doc = json!({ "sceneProperties": wrong });
        assert!(!v.is_valid(&doc), "{key}");
    }
}

/// The coated sample with its cloth text (slot 13) replaced in place by `text`, padded after its
/// `$` to the member's length (the bytes after `$` are carried, not read).
fn coated_with_cloth(text: &[u8]) -> Vec<u8> {
    let mut pac = common::sample("dmc3_coated.pac");
    let word = |at: usize| u32::from_le_bytes(pac[at..at + 4].try_into().unwrap()) as usize;
    let slots = word(4);
    let offsets: Vec<usize> = (0..slots).map(|s| word(8 + 4 * s)).collect();
    let start = offsets[13];
    let end = offsets
        .iter()
        .copied()
        .filter(|&o| o > start)
        .min()
        .unwrap_or(pac.len());
    assert!(
        text.len() <= end - start,
        "the new text is longer than the member"
    );
    pac[start..end].fill(0);
    pac[start..start + text.len()].copy_from_slice(text);
    pac
}

/// `rigtrip check` runs the cloth rules: on a player archive against its coat and body (a row
/// naming node 40 of a 32-node coat stops the game, found at slot 13), and on a loose cloth
/// file by its text alone (a `ClothNum` that does not count the blocks).
#[test]
fn rigtrip_check_runs_the_cloth_rules_in_an_archive_and_on_a_loose_text() {
    let dir = common::scratch("cloth_check");
    let check = |name: &str, bytes: &[u8]| -> (i32, Value) {
        std::fs::write(dir.join(name), bytes).unwrap();
        let o = common::run_in(&dir, &["check", "--json", name]);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        (o.status.code().unwrap(), v["files"][0].clone())
    };
    let (code, good) = check(
        "pl000.pac",
        &coated_with_cloth(&coat_clt("c", &[(3, "Y")], 3)),
    );
    let cloth_findings: Vec<&Value> = good["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["place"].as_str().unwrap().starts_with("slot 13"))
        .collect();
    assert_eq!(cloth_findings, Vec::<&Value>::new(), "exit {code}");
    let (code, bad) = check(
        "pl000.pac",
        &coated_with_cloth(&coat_clt("c", &[(40, "Y")], 3)),
    );
    let found: Vec<(&str, &str)> = bad["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "stops")
        .map(|f| (f["place"].as_str().unwrap(), f["problem"].as_str().unwrap()))
        .collect();
    assert!(
        code == 1
            && found.iter().any(
                |(place, problem)| place.starts_with("slot 13 (cloth), block 0")
                    && problem.contains("no node 40")
            ),
        "{found:?}"
    );
    let two = b"ClothNum\t2\r\nClothNo\t0\r\nEnd\r\n$";
    let (code, loose) = check("c.clt", two);
    assert_eq!(code, 1, "{loose}");
    assert_eq!(loose["findings"][0]["field"], "ClothNum", "{loose}");
}
