//! Cloth text (`.clt`, see [`crate::native::dmc3::cloth`]): random texts with everything the
//! reader must carry (odd spacing, tabs, CRLF and LF, comments, indented lines, keys of the
//! vocabulary rarely written and keys outside it, bytes after the terminator), and the
//! retail-like text of a coat (one block, a tab after each key, floats with six decimals, CRLF).

use super::rng::Rng;

/// The parameters a random block draws from: key and value count (floats).
const PARAMS: [(&str, usize); 10] = [
    ("Gravity", 3),
    ("SpringForce", 1),
    ("MaxSpeed", 1),
    ("Stiffness", 1),
    ("Wind", 3),
    ("Damping", 1),
    ("FloorLevel", 1),
    ("ClothSim1D", 1),
    ("Cut", 2),
    ("Flutter", 1),
];
/// Integer parameters a random block draws from.
const INT_PARAMS: [&str; 5] = [
    "ClothId",
    "WindLocal",
    "WindParent",
    "WindType",
    "LimitLength",
];

/// A random separator between tokens.
fn sep(rng: &mut Rng) -> &'static str {
    ["\t", " ", "  ", "\t ", " \t\t", "\t\t"][rng.index(6)]
}

/// A random float as text: six decimals mostly, else a short or exponent form.
fn float(rng: &mut Rng) -> String {
    let v = (rng.unit() - 0.5) * 200.0;
    match rng.index(5) {
        0 => format!("{:.1}", v),
        1 => format!("{:e}", v),
        _ => format!("{v:.6}"),
    }
}

/// A random cloth text for `seed`: 0 to 3 blocks, each statement with its own spacing and line
/// end (all CRLF, all LF, or mixed), comments and blank lines between them, then the
/// terminator (sometimes indented), a line end or not, NUL padding to 16 bytes and sometimes
/// more bytes of any value.
pub fn random_clt(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ 0xC1_07E7);
    let style = rng.index(3);
    let mut out = String::new();
    let mut line = |rng: &mut Rng, text: String| {
        let eol = match style {
            0 => "\r\n",
            1 => "\n",
            _ => ["\r\n", "\n"][rng.index(2)],
        };
        let trailing = if rng.chance(0.15) { sep(rng) } else { "" };
        let lead = if rng.chance(0.1) { sep(rng) } else { "" };
        out.push_str(&format!("{lead}{text}{trailing}{eol}"));
    };
    if rng.chance(0.8) {
        let title = format!(";cloth{}.clt", rng.range(0, 99));
        line(&mut rng, title);
    }
    let blocks = rng.range(0, 3) as usize;
    let said = match rng.chance(0.9) {
        true => blocks,
        false => rng.range(0, 4) as usize,
    };
    let count = format!("ClothNum{}{said}", sep(&mut rng));
    line(&mut rng, count);
    for b in 0..blocks {
        let no = format!("ClothNo{}{b}", sep(&mut rng));
        line(&mut rng, no);
        statements(&mut rng, &mut line);
        for _ in 0..rng.range(0, 8) {
            let axis = ["X", "Y", "Z", "NX", "NY", "NZ"][rng.index(6)];
            let (s1, s2) = (sep(&mut rng), sep(&mut rng));
            let row = format!("Bone{s1}{}{s2}{axis}", rng.range(0, 60));
            line(&mut rng, row);
        }
        if rng.chance(0.95) {
            line(&mut rng, "End".into());
        }
        if rng.chance(0.2) {
            line(&mut rng, String::new());
        }
    }
    let mut bytes = out.into_bytes();
    if rng.chance(0.9) {
        if rng.chance(0.2) {
            bytes.extend_from_slice(b"  ");
        }
        bytes.push(b'$');
        if rng.chance(0.7) {
            bytes.extend_from_slice(b"\r\n");
        }
        let padded = crate::bytes::align(bytes.len() as u64 + 1, 16) as usize;
        bytes.resize(padded, 0);
        if rng.chance(0.4) {
            let n = rng.range(1, 40) as usize;
            bytes.extend(rng.bytes(n));
        }
    }
    bytes
}

/// A block's parameters in a random order and subset, sometimes a comment among them.
fn statements(rng: &mut Rng, line: &mut impl FnMut(&mut Rng, String)) {
    let mut keys: Vec<(&str, usize)> = PARAMS.to_vec();
    keys.extend(INT_PARAMS.iter().map(|&k| (k, 0)));
    rng.shuffle(&mut keys);
    let n = rng.range(0, keys.len() as i64) as usize;
    for &(key, count) in &keys[..n] {
        let mut text = key.to_string();
        if count == 0 {
            text.push_str(sep(rng));
            text.push_str(&rng.range(-1, 40).to_string());
        }
        for _ in 0..count {
            text.push_str(sep(rng));
            text.push_str(&float(rng));
        }
        line(rng, text);
        if rng.chance(0.1) {
            line(rng, format!("; {key}"));
        }
    }
}

/// The retail-like cloth text of a coat: `;NAME.clt`, `ClothNum 1`, one block with the
/// parameters retail files write (each key, a tab, its values; floats with six decimals),
/// `WindParent wind_parent` (a body node), one `Bone` row per `(node, axis)`, `End`, `$`, CRLF
/// line ends, and NUL bytes (at least one) to the next 16-byte boundary.
pub fn coat_clt(name: &str, rows: &[(usize, &str)], wind_parent: usize) -> Vec<u8> {
    let mut lines = vec![
        format!(";{name}.clt"),
        "ClothNum\t1".to_string(),
        "ClothNo\t0".to_string(),
        "ClothId\t0".to_string(),
        "Gravity\t0.000000 -0.200000 0.000000".to_string(),
        "SpringForce\t0.050000".to_string(),
        "MaxSpeed\t50.000000".to_string(),
        "Stiffness\t0.300000".to_string(),
        "Wind\t0.000000 0.000000 0.000000".to_string(),
        "WindLocal\t0".to_string(),
        format!("WindParent\t{wind_parent}"),
        "WindType\t0".to_string(),
    ];
    lines.extend(rows.iter().map(|(n, a)| format!("Bone\t{n} {a}")));
    lines.push("End".into());
    let mut bytes: Vec<u8> = lines
        .iter()
        .flat_map(|l| format!("{l}\r\n").into_bytes())
        .collect();
    bytes.push(b'$');
    bytes.resize(crate::bytes::align(bytes.len() as u64 + 1, 16) as usize, 0);
    bytes
}
