//! `rigtrip check` against files the test writes and breaks itself: a clean model, texture
//! bundle, motion and player archive (laid out here by the test's own writers, index
//! workspaces included, not by the library), then one corruption per rule of the game's loader
//! at a named offset, each asserted by the exact finding (place, field, severity) and the exit
//! status of the real binary.

mod common;

use serde_json::Value;
use std::path::Path;

/// Little-endian field access on a file the test builds or breaks.
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

fn align16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

/// The workspace the game needs for a mesh of `v` vertices: align16(6·(v − 2)).
fn workspace(v: usize) -> usize {
    if v < 3 {
        0
    } else {
        align16(6 * (v - 2))
    }
}

/// Every mesh record of a MOD/SCM, read by the test: (record offset, vertex count).
fn mesh_records(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..b[0x10] as usize {
        let obj = 0x40 + 0x40 * i;
        let first = u64_at(b, obj + 8) as usize;
        for j in 0..b[obj] as usize {
            let at = first + 0x50 * j;
            out.push((at, u16_at(b, at) as usize));
        }
    }
    out
}

/// `b` with the index workspaces the game needs: after the end (16-aligned), one per mesh in
/// object then mesh order, each 16-aligned, 0x12 fill, the file's last two bytes zero, every
/// +0x40 pointing at its own (relative to the record) and +0x48 zero.
fn with_workspaces(mut b: Vec<u8>) -> Vec<u8> {
    b.resize(align16(b.len()), 0);
    for (at, v) in mesh_records(&b) {
        let n = workspace(v);
        let rel = if n == 0 { 0 } else { (b.len() - at) as u64 };
        put(&mut b, at + 0x40, &rel.to_le_bytes());
        put(&mut b, at + 0x48, &[0; 4]);
        b.resize(b.len() + n, 0x12);
    }
    let n = b.len();
    b[n - 2..].fill(0);
    b
}

/// A minimal MOD of the test's own: one object, one mesh of three vertices weighted 31/31 to
/// node 0 with texture slot `texture`, a canonical block of `nodes` nodes (node 0 the root, the
/// others its children), and its workspace.
fn tiny_mod(nodes: usize, texture: u16) -> Vec<u8> {
    let a4 = nodes.div_ceil(4) * 4;
    let block = 0x160;
    let xforms = align16(0x20 + 3 * a4);
    let mut b = vec![0u8; align16(block + xforms + 0x20 * nodes)];
    put(&mut b, 0, b"MOD ");
    put(&mut b, 4, &1.0f32.to_le_bytes());
    b[0x10] = 1;
    b[0x11] = nodes as u8;
    b[0x12] = 1;
    put(&mut b, 0x20, &(block as u64).to_le_bytes());
    // The object: one mesh of 3 vertices at 0x80.
    b[0x40] = 1;
    b[0x41] = 0x80;
    put(&mut b, 0x42, &3u16.to_le_bytes());
    put(&mut b, 0x48, &0x80u64.to_le_bytes());
    put(&mut b, 0x80, &3u16.to_le_bytes());
    put(&mut b, 0x82, &texture.to_le_bytes());
    for (k, off) in [0xD0u64, 0x100, 0x130, 0x140, 0x150]
        .into_iter()
        .enumerate()
    {
        put(&mut b, 0x90 + 8 * k, &off.to_le_bytes());
    }
    for (k, p) in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
        .iter()
        .enumerate()
    {
        for (c, x) in p.iter().enumerate() {
            put(&mut b, 0xD0 + 12 * k + 4 * c, &x.to_le_bytes());
            put(
                &mut b,
                0x100 + 12 * k + 4 * c,
                &[0.0f32, 0.0, 1.0][c].to_le_bytes(),
            );
        }
        put(&mut b, 0x150 + 2 * k, &31u16.to_le_bytes());
    }
    let rels = [0x20, 0x20 + a4, 0x20 + 2 * a4, xforms];
    for (k, r) in rels.iter().enumerate() {
        put(&mut b, block + 4 * k, &(*r as u32).to_le_bytes());
    }
    for n in 0..nodes {
        b[block + 0x20 + n] = if n == 0 { 0xFF } else { 0 };
        b[block + 0x20 + a4 + n] = n as u8;
    }
    with_workspaces(b)
}

/// An archive of the test's own: `"PAC\0"`, `slots` offsets, each member 16-aligned after the
/// table, zero padding.
fn pac(slots: usize, members: &[(usize, &[u8])]) -> Vec<u8> {
    let mut b = b"PAC\0".to_vec();
    b.extend((slots as u32).to_le_bytes());
    b.resize(8 + 4 * slots, 0);
    for (slot, m) in members {
        b.resize(align16(b.len()), 0);
        let at = b.len() as u32;
        put(&mut b, 8 + 4 * slot, &at.to_le_bytes());
        b.extend_from_slice(m);
    }
    b
}

/// A shadow model in the retail form whose +0x11 says `nodes`: one unit box moved by joint 0
/// (its hulls are the shadow rules' tests, not this file's).
fn shadow(nodes: u8) -> Vec<u8> {
    use rigtrip::synth::shadow::{cuboid, shw_of, HullSpec};
    let hull = HullSpec {
        shape: cuboid([0.0; 3], [1.0; 3]),
        selectors: vec![0; 8],
    };
    shw_of(&mut rigtrip::synth::rng::Rng::new(5), nodes, &[hull], false)
}

/// The sample humanoid (49 nodes, textures 0 and 1) with its workspaces.
fn body() -> Vec<u8> {
    with_workspaces(rigtrip::synth::dmc3::sample_mod())
}

fn ptx() -> Vec<u8> {
    rigtrip::synth::texture::sample_ptx()
}

/// A player archive: textures, body, its shadow, a coat of `coat` nodes with its shadow (slot
/// 14 left out with `coat_shadow` false).
fn player(coat: usize, coat_shadow: bool) -> Vec<u8> {
    let (p, b, s, c, cs) = (
        ptx(),
        body(),
        shadow(49),
        tiny_mod(coat, 1),
        shadow(coat as u8),
    );
    let mut members: Vec<(usize, &[u8])> = vec![(0, &p), (1, &b), (8, &s), (12, &c)];
    if coat_shadow {
        members.push((14, &cs));
    }
    pac(16, &members)
}

/// One finding as (place, field, severity).
fn key(f: &Value) -> (String, String, String) {
    let s = |k: &str| f[k].as_str().unwrap_or_default().to_string();
    (s("place"), s("field"), s("severity"))
}

/// Runs `check --json ARGS FILE` on `bytes` written as `name` in `dir`: the exit code and the
/// file's findings.
fn run_check(dir: &Path, name: &str, bytes: &[u8], args: &[&str]) -> (i32, Vec<Value>, Value) {
    std::fs::write(dir.join(name), bytes).unwrap();
    let mut all = vec!["check", "--json"];
    all.extend(args);
    all.push(name);
    let o = common::run_in(dir, &all);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{all:?}: {e}: {}", common::text(&o.stdout)));
    let file = v["files"][0].clone();
    let findings = file["findings"].as_array().cloned().unwrap_or_default();
    (o.status.code().unwrap(), findings, file)
}

/// A broken file and the one finding it must give.
struct Case {
    what: &'static str,
    name: &'static str,
    bytes: Vec<u8>,
    args: Vec<&'static str>,
    place: &'static str,
    field: &'static str,
    severity: &'static str,
    exit: i32,
}

fn case(
    what: &'static str,
    name: &'static str,
    bytes: Vec<u8>,
    (place, field, severity): (&'static str, &'static str, &'static str),
) -> Case {
    Case {
        what,
        name,
        bytes,
        args: Vec::new(),
        place,
        field,
        severity,
        exit: if severity == "stops" { 1 } else { 0 },
    }
}

/// Runs every case in `dir`; each must give exactly its finding (or, with `also`, at least
/// it) and its exit status. Fails listing every case that does not.
fn run_cases(dir: &Path, cases: Vec<Case>, exact: bool) {
    let mut wrong = Vec::new();
    for c in cases {
        let (code, findings, _) = run_check(dir, c.name, &c.bytes, &c.args);
        let want = (
            c.place.to_string(),
            c.field.to_string(),
            c.severity.to_string(),
        );
        let keys: Vec<_> = findings.iter().map(key).collect();
        let ok = code == c.exit && keys.contains(&want) && (!exact || keys.len() == 1);
        if !ok {
            wrong.push(format!("{}: exit {code}, findings {findings:#?}", c.what));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn files_laid_out_as_the_game_needs_have_no_finding() {
    let dir = common::scratch("clean");
    let ptx_path = dir.join("t.ptx");
    std::fs::write(&ptx_path, ptx()).unwrap();
    let with_ptx = ["--textures", "t.ptx"];
    let scm = with_workspaces(rigtrip::synth::dmc3::sample_scm());
    for (name, bytes, args) in [
        ("body.mod", body(), &with_ptx[..]),
        ("tiny.mod", tiny_mod(39, 1), &with_ptx[..]),
        ("stage.scm", scm, &with_ptx[..]),
        ("t.ptx", ptx(), &[][..]),
        ("pl000.pac", player(39, true), &[][..]),
    ] {
        let (code, findings, file) = run_check(&dir, name, &bytes, args);
        assert_eq!((code, findings.len()), (0, 0), "{name}: {file:#}");
        assert_eq!(file["status"], "pass", "{name}");
    }
    // The game's own motion for the humanoid, against the humanoid.
    let mot = rigtrip::synth::motion::sample_mot();
    std::fs::write(dir.join("body.mod"), body()).unwrap();
    let (code, findings, file) = run_check(&dir, "m.mot", &mot, &["--model", "body.mod"]);
    assert_eq!((code, findings.len()), (0, 0), "{file:#}");
    // A folder is walked: the five files above and the motion, all pass (the loose models and
    // the motion without --textures and --model: those rules are not run).
    let o = common::run_in(&dir, &["check", "."]);
    let out = common::text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.ends_with("6 pass, 0 would stop the game, 0 unreadable\n"),
        "{out}"
    );
}

/// The tiny model's offsets: mesh record at 0x80, positions 0xD0, bone indices 0x140,
/// weights 0x150, block 0x160 (order array at block + 0x20 + 4 for 4 nodes).
#[test]
fn each_model_rule_finds_its_defect() {
    let dir = common::scratch("model");
    std::fs::write(dir.join("t.ptx"), ptx()).unwrap();
    let good = tiny_mod(4, 1);
    let len = good.len() as u64;
    let broken = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        edit(&mut b);
        b
    };
    let mesh = "object 0 mesh 0";
    let mut cases = vec![
        case(
            "block offset past the end",
            "a.mod",
            broken(&|b| put(b, 0x20, &len.to_le_bytes())),
            ("node block", "header +0x20 block offset", "stops"),
        ),
        case(
            "mesh records past the end",
            "b.mod",
            broken(&|b| put(b, 0x48, &(len - 0x40).to_le_bytes())),
            ("object 0", "+0x08 mesh offset", "stops"),
        ),
        case(
            "no workspace",
            "c.mod",
            broken(&|b| put(b, 0xC0, &0u64.to_le_bytes())),
            (mesh, "+0x40 index workspace offset", "stops"),
        ),
        case(
            "workspace over the positions",
            "d.mod",
            broken(&|b| put(b, 0xC0, &(0xD0u64 - 0x80).to_le_bytes())),
            (mesh, "+0x40 index workspace offset", "stops"),
        ),
        case(
            "workspace shorter than align16(6(v-2)): the file ends inside it",
            "e.mod",
            good[..good.len() - 8].to_vec(),
            (mesh, "+0x40 index workspace offset", "stops"),
        ),
        case(
            "+0x48 not zero",
            "f.mod",
            broken(&|b| b[0xC8] = 5),
            (mesh, "+0x48 generated index count", "note"),
        ),
        case(
            "object vertex count not the sum",
            "g.mod",
            broken(&|b| b[0x42] = 4),
            ("object 0", "+0x02 vertex count", "note"),
        ),
        case(
            "weights summing to 30",
            "h.mod",
            broken(&|b| put(b, 0x152, &30u16.to_le_bytes())),
            (mesh, "weight stream (5-bit weights)", "stops"),
        ),
        case(
            "a weighted lane at 4N",
            "i.mod",
            broken(&|b| b[0x141] = 16),
            (mesh, "bone-index stream (bytes 1..3)", "stops"),
        ),
        case(
            "an unweighted lane past the palette",
            "j.mod",
            broken(&|b| b[0x142] = 200),
            (mesh, "bone-index stream (bytes 1..3)", "note"),
        ),
        case(
            "a fourth influence in byte 0",
            "k.mod",
            broken(&|b| b[0x140] = 4),
            (mesh, "bone-index stream (byte 0)", "note"),
        ),
        case(
            "texture slot at the PTX's count",
            "l.mod",
            broken(&|b| b[0x82] = 2),
            (mesh, "+0x02 texture slot", "stops"),
        ),
        case(
            "order array naming node N",
            "m.mod",
            broken(&|b| b[0x160 + 0x20 + 4 + 3] = 4),
            ("node block", "order array", "stops"),
        ),
        case(
            "parent array naming node N",
            "n.mod",
            broken(&|b| b[0x160 + 0x20 + 2] = 9),
            ("node block", "parent array", "stops"),
        ),
        case(
            "a header shorter than 0x40 bytes",
            "o.mod",
            good[..0x30].to_vec(),
            ("header", "+0x00..+0x40", "stops"),
        ),
    ];
    for (k, field) in [
        "+0x10 positions offset",
        "+0x18 normals offset",
        "+0x20 UV offset",
        "+0x28 bone-index offset",
        "+0x30 weight offset",
    ]
    .into_iter()
    .enumerate()
    {
        cases.push(case(
            "a stream past the end",
            ["p.mod", "q.mod", "r.mod", "s.mod", "t.mod"][k],
            broken(&|b| put(b, 0x90 + 8 * k, &(len - 4).to_le_bytes())),
            (mesh, field, "stops"),
        ));
    }
    // The humanoid's object 1 naming object 0's mesh records (0x40 + 0x40 + 0x08).
    let mut shared = body();
    let first = u64_at(&shared, 0x48);
    put(&mut shared, 0x88, &first.to_le_bytes());
    shared[0x80] = 1;
    cases.push(case(
        "two objects naming the same mesh records",
        "u.mod",
        shared,
        ("object 1", "+0x08 mesh offset", "stops"),
    ));
    for c in &mut cases {
        c.args = vec!["--textures", "t.ptx"];
    }
    run_cases(&dir, cases, true);
}

#[test]
fn the_header_node_count_must_fit_the_block() {
    let dir = common::scratch("nodes");
    // 8 nodes in a block laid out for 4: the arrays overlap (and the transforms run past the
    // end of the file); 4 nodes in a block laid out for 8: the game reads only the first 4 of
    // each array, and the canonical spacing says 5 to 8.
    let mut more = tiny_mod(4, 0);
    more[0x11] = 8;
    let mut fewer = tiny_mod(8, 0);
    fewer[0x11] = 4;
    run_cases(
        &dir,
        vec![case(
            "more nodes than the block holds",
            "more.mod",
            more,
            ("node block", "header +0x11 node count", "stops"),
        )],
        false,
    );
    run_cases(
        &dir,
        vec![case(
            "fewer nodes than the block holds",
            "fewer.mod",
            fewer,
            ("node block", "header +0x11 node count", "note"),
        )],
        true,
    );
}

#[test]
fn an_scm_colour_stream_must_lie_inside_it() {
    let dir = common::scratch("scm");
    let good = with_workspaces(rigtrip::synth::dmc3::sample_scm());
    let (at, _) = mesh_records(&good)[0];
    let mut b = good.clone();
    put(&mut b, at + 0x38, &(good.len() as u64).to_le_bytes());
    let mut c = case(
        "colour stream past the end",
        "s.scm",
        b,
        ("object 0 mesh 0", "+0x38 colour offset", "stops"),
    );
    c.args = vec!["--textures", "t.ptx"];
    std::fs::write(dir.join("t.ptx"), ptx()).unwrap();
    run_cases(&dir, vec![c], true);
}

#[test]
fn each_archive_rule_finds_its_defect() {
    let dir = common::scratch("archive");
    let (p, b, s) = (ptx(), body(), shadow(49));
    let big = tiny_mod(97, 0);
    let big_shadow = shadow(97);
    let mut far_texture = body();
    let (at, _) = mesh_records(&far_texture)[0];
    put(&mut far_texture, at + 2, &2u16.to_le_bytes());
    let mot48 =
        rigtrip::synth::motion::motion_for_model(3, &rigtrip::synth::motion::chain_rest(48))
            .write()
            .unwrap();
    let cases = vec![
        case(
            "a coat of 40 nodes",
            "pl000.pac",
            player(40, true),
            ("slot 12 (coat)", "header +0x11 node count", "stops"),
        ),
        case(
            "a body of 97 nodes",
            "pl001.pac",
            pac(16, &[(0, &p), (1, &big), (8, &big_shadow)]),
            ("slot 1 (body)", "header +0x11 node count", "stops"),
        ),
        case(
            "Dante's costume without slot 14",
            "pl011.pac",
            player(39, false),
            ("slot 14 (coat shadow)", "slot table +0x40", "stops"),
        ),
        case(
            "an archive not named as a costume, coated, without slot 14",
            "my_costume.pac",
            player(39, false),
            ("slot 14 (coat shadow)", "slot table +0x40", "note"),
        ),
        case(
            "a body shadow of more nodes than the body",
            "pl000.pac",
            pac(16, &[(0, &p), (1, &b), (8, &shadow(50)), (14, &s)]),
            ("slot 8 (shadow)", "+0x11 node count", "stops"),
        ),
        case(
            "a body shadow of fewer nodes than the body",
            "pl000.pac",
            pac(16, &[(0, &p), (1, &b), (8, &shadow(48)), (14, &s)]),
            ("slot 8 (shadow)", "+0x11 node count", "note"),
        ),
        case(
            "a body texture slot past the archive's PTX",
            "pl000.pac",
            pac(16, &[(0, &p), (1, &far_texture), (8, &s), (14, &s)]),
            (
                "slot 1 (body), object 0 mesh 0",
                "+0x02 texture slot",
                "stops",
            ),
        ),
        case(
            "a motion of another node count than the body",
            "pl000.pac",
            pac(16, &[(0, &p), (1, &b), (2, &mot48), (8, &s), (14, &s)]),
            ("slot 2", "+0x1C node count", "stops"),
        ),
    ];
    run_cases(&dir, cases, true);
    // pl018's costumes skip the coat shadow; pl001 is not Dante's.
    for name in ["pl018.pac", "pl001.pac"] {
        let (code, findings, _) = run_check(&dir, name, &player(39, false), &[]);
        assert_eq!((code, findings.len()), (0, 0), "{name}: {findings:#?}");
    }
}

/// The sample PTX's first texture: its descriptor at 0x800, its DDS header at 0x870.
#[test]
fn each_texture_rule_finds_its_defect() {
    let dir = common::scratch("texture");
    let good = ptx();
    let broken = |at: usize, v: &[u8]| {
        let mut b = good.clone();
        put(&mut b, at, v);
        b
    };
    let t0 = "texture 0";
    // 16x16 DXT1, 5 levels: 128 header bytes + 128 + 32 + 8 + 8 + 8 = 312 DDS bytes; the
    // entry holds 0x800 - 0x70 from its DDS.
    let cases = vec![
        case(
            "+0x00 not 0",
            "a.ptx",
            broken(0x800, &[1]),
            (t0, "descriptor +0x00", "stops"),
        ),
        case(
            "width 0",
            "b.ptx",
            broken(0x810, &[0, 0]),
            (t0, "descriptor +0x10 width", "stops"),
        ),
        case(
            "height 0",
            "c.ptx",
            broken(0x812, &[0, 0]),
            (t0, "descriptor +0x12 height", "stops"),
        ),
        case(
            "+0x20 not 0x40",
            "d.ptx",
            broken(0x820, &[0x44]),
            (t0, "descriptor +0x20", "stops"),
        ),
        case(
            "+0x64 short of the levels",
            "e.ptx",
            broken(0x864, &311u32.to_le_bytes()),
            (t0, "descriptor +0x64 DDS bytes", "stops"),
        ),
        case(
            "+0x64 past the entry",
            "f.ptx",
            broken(0x864, &(0x800u32 - 0x70 + 1).to_le_bytes()),
            (t0, "descriptor +0x64 DDS bytes", "stops"),
        ),
        case(
            "+0x64 more than the levels",
            "g.ptx",
            broken(0x864, &400u32.to_le_bytes()),
            (t0, "descriptor +0x64 DDS bytes", "note"),
        ),
        case(
            "+0x68 not 8",
            "h.ptx",
            broken(0x868, &[0]),
            (t0, "descriptor +0x68", "stops"),
        ),
        case(
            "16 mip levels",
            "i.ptx",
            broken(0x870 + 0x1C, &16u32.to_le_bytes()),
            (t0, "DDS +0x1C mip count", "stops"),
        ),
        case(
            "a side of 16,385",
            "j.ptx",
            broken(0x870 + 0x10, &16385u32.to_le_bytes()),
            (t0, "DDS +0x0C/+0x10 height, width", "stops"),
        ),
        case(
            "DXT3",
            "k.ptx",
            broken(0x870 + 0x54, b"DXT3"),
            (t0, "DDS +0x54 FourCC", "stops"),
        ),
        case(
            "no DDS magic",
            "l.ptx",
            broken(0x870, &[0; 4]),
            (t0, "DDS header", "stops"),
        ),
    ];
    run_cases(&dir, cases, true);
    // 65 textures: the bundle table of the test's own, each texture the sample's first.
    let mut many = 65u32.to_le_bytes().to_vec();
    many.extend(std::iter::repeat_n(1u32.to_le_bytes(), 65).flatten());
    many.resize(0x800, 0);
    for _ in 0..65 {
        many.extend_from_slice(&good[0x800..0x1000]);
    }
    let mut tm2 = good[0x800..0x1000].to_vec();
    tm2[0x68] = 9;
    let more = vec![
        case(
            "65 textures",
            "m.ptx",
            many,
            ("", "+0x00 texture count", "stops"),
        ),
        case(
            "a .tm2's +0x68",
            "n.tm2",
            tm2,
            ("", "descriptor +0x68", "stops"),
        ),
    ];
    run_cases(&dir, more, true);
}

#[test]
fn each_motion_rule_finds_its_defect() {
    let dir = common::scratch("motion");
    std::fs::write(dir.join("tiny.mod"), tiny_mod(4, 0)).unwrap();
    // One node, translation X only (mask 0x100), one compression-2 track of 32,768 keys: its
    // u16 span cannot say its length, and the game reads its count as negative.
    let keys = 32_768usize;
    let mut m = vec![0u8; 0x20];
    put(&mut m, 0, &0x20u32.to_le_bytes());
    put(&mut m, 4, b"MOT\0");
    put(&mut m, 0x1C, &1u16.to_le_bytes());
    put(&mut m, 0x1E, &0x100u16.to_le_bytes());
    m.extend(1u32.to_le_bytes());
    let span = (0x10 + 4 * keys) as u16;
    m.extend(span.to_le_bytes());
    m.extend((keys as u16).to_le_bytes());
    m.extend(2u16.to_le_bytes());
    m.extend([0u8; 10]);
    for k in 0..keys {
        m.extend((k as u16 & 0x7FFF).to_le_bytes());
        m.extend(0u16.to_le_bytes());
    }
    let mut nodes = case(
        "a motion for 49 nodes on a model of 4",
        "b.mot",
        rigtrip::synth::motion::sample_mot(),
        ("", "+0x1C node count", "stops"),
    );
    nodes.args = vec!["--model", "tiny.mod"];
    let cases = vec![
        case(
            "32,768 keys",
            "a.mot",
            m,
            ("track 0 (node 0, tx)", "+0x02 key count", "stops"),
        ),
        nodes,
    ];
    run_cases(&dir, cases, true);
}

#[test]
fn a_loose_shadow_is_compared_with_the_model_given() {
    let dir = common::scratch("shadow");
    std::fs::write(dir.join("body.mod"), body()).unwrap();
    let args = vec!["--model", "body.mod"];
    let mut more = case(
        "a shadow of 50 nodes for a body of 49",
        "a.shw",
        shadow(50),
        ("", "+0x11 node count", "stops"),
    );
    more.args = args.clone();
    let mut fewer = case(
        "a shadow of 48 nodes for a body of 49",
        "b.shw",
        shadow(48),
        ("", "+0x11 node count", "note"),
    );
    fewer.args = args;
    run_cases(&dir, vec![more, fewer], true);
}

#[test]
fn formats_without_a_loader_model_pass_and_say_so() {
    let dir = common::scratch("unknown");
    let (efm, _, _) = rigtrip::synth::dmc3::sample_efm();
    for (name, bytes, says) in [
        (
            "DB22HIE.BIN",
            rigtrip::synth::hie::sample_db22(),
            "DBnnHIE.BIN",
        ),
        ("e.efm", efm, "EFM"),
    ] {
        let (code, findings, file) = run_check(&dir, name, &bytes, &[]);
        assert_eq!((code, findings.len()), (0, 0), "{name}");
        let unchecked = file["unchecked"][0].as_str().unwrap();
        assert!(
            unchecked.contains(says) && unchecked.ends_with("passes"),
            "{unchecked}"
        );
    }
    // A file named like a model that is none cannot be read: exit 2.
    std::fs::write(dir.join("x.mod"), b"not a model").unwrap();
    let o = common::run_in(&dir, &["check", "x.mod"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o.stdout));
    assert!(common::text(&o.stdout).starts_with("unreadable -    x.mod: "));
}

/// `import` checks what it is about to write: a player archive the game loads, exported and
/// edited so that a body mesh shows `texture_2` (the PTX holds 2 textures), is refused naming
/// the texture slot, nothing written; `--ignore-check` writes it, the finding in the report;
/// the unedited glTF is written as it was.
#[test]
fn import_refuses_an_edit_the_game_could_not_load_unless_told() {
    let dir = common::scratch("import");
    let archive = player(39, true);
    std::fs::write(dir.join("pl000.pac"), &archive).unwrap();
    let o = common::run_in(&dir, &["export", "pl000.pac", "-o", "pl.gltf"]);
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    let text = std::fs::read_to_string(dir.join("pl.gltf")).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let node = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "object0_mesh1")
        .unwrap()
        .clone();
    let mesh = node["mesh"].as_u64().unwrap() as usize;
    let materials = doc["materials"].as_array_mut().unwrap();
    materials.push(serde_json::json!({ "name": "texture_2" }));
    let m = materials.len() - 1;
    doc["meshes"][mesh]["primitives"][0]["material"] = m.into();
    std::fs::write(dir.join("edited.gltf"), doc.to_string()).unwrap();

    // Unedited: written as it was, nothing found.
    let o = common::run_in(&dir, &["import", "pl.gltf", "-o", "pl000_back.pac"]);
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    assert_eq!(std::fs::read(dir.join("pl000_back.pac")).unwrap(), archive);
    assert!(
        common::text(&o.stdout).contains("check: pl000_back.pac: nothing would stop the game\n")
    );

    // Edited past the PTX: refused, exit 2, the finding named, nothing written.
    let o = common::run_in(&dir, &["import", "edited.gltf", "-o", "pl000.new.pac"]);
    let err = common::text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "not written: the game could not load the edited pl000.new.pac: 1 finding(s) of \
             rigtrip check would stop it, first slot 1 (body), object 0 mesh 1: +0x02 texture \
             slot: 2, but the PTX holds 2 texture(s)"
        ),
        "{err}"
    );
    assert!(!dir.join("pl000.new.pac").exists());
    let o = common::run_in(
        &dir,
        &["import", "--json", "edited.gltf", "-o", "pl000.new.pac"],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "error");
    let f = &v["check"][0]["findings"][0];
    assert_eq!(
        key(f),
        (
            "slot 1 (body), object 0 mesh 1".to_string(),
            "+0x02 texture slot".to_string(),
            "stops".to_string()
        )
    );

    // --ignore-check: written, the finding reported.
    let args = [
        "import",
        "--json",
        "--ignore-check",
        "edited.gltf",
        "-o",
        "pl000.new.pac",
    ];
    let o = common::run_in(&dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(key(&v["check"][0]["findings"][0]).1, "+0x02 texture slot");
    let written = std::fs::read(dir.join("pl000.new.pac")).unwrap();
    let (code, findings, _) = run_check(&dir, "pl000.new.pac", &written, &[]);
    assert_eq!((code, findings.len()), (1, 1));
}

/// Exports `archive` (written as `name` in `dir`) to `NAME.gltf`, then writes `edited.gltf`
/// with the body mesh `object0_mesh1` shown with a material `texture_N`.
fn edited_gltf(dir: &Path, name: &str, archive: &[u8], texture: usize) {
    std::fs::write(dir.join(name), archive).unwrap();
    let gltf = format!("{name}.gltf");
    let o = common::run_in(dir, &["export", name, "-o", &gltf, "--force"]);
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(&gltf)).unwrap()).unwrap();
    let node = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "object0_mesh1")
        .unwrap()
        .clone();
    let mesh = node["mesh"].as_u64().unwrap() as usize;
    let materials = doc["materials"].as_array_mut().unwrap();
    materials.push(serde_json::json!({ "name": format!("texture_{texture}") }));
    let m = materials.len() - 1;
    doc["meshes"][mesh]["primitives"][0]["material"] = m.into();
    std::fs::write(dir.join("edited.gltf"), doc.to_string()).unwrap();
}

/// With `--original`, what the file the glTF came from already had (same place and field) is
/// reported but does not refuse the edit; what the edit adds still does.
#[test]
fn import_leaves_to_the_original_what_it_already_had() {
    let dir = common::scratch("original");
    // A player archive whose body's first mesh has no workspace (+0x40 = 0).
    let mut archive = player(39, true);
    let body = u32::from_le_bytes(archive[12..16].try_into().unwrap()) as usize;
    let (at, _) = mesh_records(&archive[body..])[0];
    put(&mut archive, body + at + 0x40, &0u64.to_le_bytes());
    // A valid texture: only the original's finding, refused without --original.
    edited_gltf(&dir, "pl000.pac", &archive, 1);
    let o = common::run_in(&dir, &["import", "edited.gltf", "-o", "a.pac"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o.stdout));
    assert!(common::text(&o.stderr).contains("first slot 1 (body), object 0 mesh 0: +0x40"));
    let args = [
        "import",
        "edited.gltf",
        "-o",
        "a.pac",
        "--original",
        "pl000.pac",
    ];
    let o = common::run_in(&dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o.stderr));
    let out = common::text(&o.stdout);
    assert!(
        out.contains(
            "check: a.pac: 1 would stop the game (as in pl000.pac: the edit added none)\n"
        ),
        "{out}"
    );
    // Past the PTX: the edit's own finding refuses it, the original's is not named.
    edited_gltf(&dir, "pl000.pac", &archive, 2);
    let args = [
        "import",
        "edited.gltf",
        "-o",
        "b.pac",
        "--original",
        "pl000.pac",
    ];
    let o = common::run_in(&dir, &args);
    let err = common::text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(": 1 finding(s) of rigtrip check would stop it, first slot 1 (body), object 0 mesh 1: +0x02 texture slot"),
        "{err}"
    );
    let o = common::run_in(&dir, &[&args[..], &["--json"]].concat());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["check"][0]["findings"].as_array().unwrap().len(),
        2,
        "{v}"
    );
}
