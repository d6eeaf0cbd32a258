//! Generators of DBnnHIE.BIN files, built with their own layout code (not the crate's writer) so
//! that `write(read(b)) == b` checks something.

use super::rng::Rng;

/// Size of the slot table.
const TABLE: usize = 0x400;
/// Size of the byte-list area.
const AREA: usize = 0x32;

/// One part as the generator thinks of it.
#[derive(Debug, Clone, Default)]
struct GenPart {
    unknown_00: u16,
    depth: u16,
    runtime: [u8; 16],
    offset: [i32; 3],
    unknown_20: u32,
    model: u32,
}

/// One hierarchy as the generator thinks of it.
#[derive(Debug, Clone)]
struct GenHierarchy {
    parts: Vec<GenPart>,
    area: [u8; AREA],
}

impl GenHierarchy {
    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.parts.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.area);
        for p in &self.parts {
            out.extend_from_slice(&p.unknown_00.to_le_bytes());
            out.extend_from_slice(&p.depth.to_le_bytes());
            out.extend_from_slice(&p.runtime);
            for v in p.offset {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&p.unknown_20.to_le_bytes());
            out.extend_from_slice(&p.model.to_le_bytes());
        }
        out
    }
}

/// What goes where: hierarchies in file order with the gap before each, then trailing bytes.
struct GenFile {
    /// (gap bytes before it, hierarchy, slots pointing at it)
    items: Vec<(Vec<u8>, GenHierarchy, Vec<usize>)>,
    trailing: Vec<u8>,
}

impl GenFile {
    fn bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; TABLE];
        for (gap, h, slots) in &self.items {
            out.extend_from_slice(gap);
            let at = out.len() as u32;
            for &s in slots {
                out[4 * s..4 * s + 4].copy_from_slice(&at.to_le_bytes());
            }
            out.extend_from_slice(&h.bytes());
        }
        out.extend_from_slice(&self.trailing);
        out
    }
}

/// Knobs for [`random_with`].
#[derive(Debug, Clone)]
pub struct Opts {
    /// Most hierarchies in one file.
    pub max_hierarchies: usize,
    /// Most parts of an ordinary hierarchy.
    pub max_parts: usize,
    /// Chance that a hierarchy is a big one (up to `max_big_parts` parts).
    pub big_chance: f64,
    /// Most parts of a big hierarchy.
    pub max_big_parts: usize,
    /// Chance that a hierarchy's depths fail the gate.
    pub bad_depth_chance: f64,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            max_hierarchies: 10,
            max_parts: 12,
            big_chance: 0.01,
            max_big_parts: 1000,
            bad_depth_chance: 0.15,
        }
    }
}

/// A random valid file from a seed, with the default knobs.
pub fn random(seed: u64) -> Vec<u8> {
    random_with(&mut Rng::new(seed), &Opts::default())
}

/// Depths of a valid depth-first forest of `n` parts (first 1, steps of at most +1).
fn tree_depths(rng: &mut Rng, n: usize) -> Vec<u16> {
    let mut d = Vec::with_capacity(n);
    let mut prev = 0u16;
    for k in 0..n {
        let next = if k == 0 {
            1
        } else if rng.chance(0.45) {
            prev + 1
        } else {
            rng.range(1, i64::from(prev)) as u16
        };
        d.push(next);
        prev = next;
    }
    d
}

/// Depths that fail the gate in one of its three ways (needs n >= 1).
fn bad_depths(rng: &mut Rng, n: usize) -> Vec<u16> {
    let mut d = tree_depths(rng, n);
    match rng.index(3) {
        0 => d[0] = [0u16, 2, 3, 0xFFFF][rng.index(4)],
        1 => {
            let k = rng.index(n);
            d[k] = 0;
        }
        _ => {
            let k = rng.index(n);
            let base = if k == 0 { 0 } else { d[k - 1] };
            d[k] = base.saturating_add(rng.range(2, 40) as u16);
        }
    }
    d
}

fn byte_area(rng: &mut Rng, parts: usize) -> [u8; AREA] {
    let mut a = [0u8; AREA];
    match rng.index(4) {
        // Game-like: part groups, then a zero or random (non-0xFF) tail.
        0 | 1 => {
            let mut pos = 0;
            let random_tail = rng.chance(0.5);
            while pos < AREA {
                if rng.chance(0.3) {
                    break;
                }
                let len = rng.index(5).min(AREA - pos - 1);
                for _ in 0..len {
                    a[pos] = rng.index(parts.clamp(1, 0xFF)) as u8;
                    pos += 1;
                }
                a[pos] = 0xFF;
                pos += 1;
            }
            if random_tail {
                for b in a.iter_mut().skip(pos) {
                    *b = rng.range(0, 0xFE) as u8;
                }
            }
        }
        // No 0xFF anywhere: the whole area is tail.
        2 => {
            for b in a.iter_mut() {
                *b = rng.range(0, 0xFE) as u8;
            }
        }
        // Anything, 0xFF included, densely.
        _ => {
            for b in a.iter_mut() {
                *b = if rng.chance(0.3) {
                    0xFF
                } else {
                    rng.next_u32() as u8
                };
            }
        }
    }
    a
}

fn random_hierarchy(rng: &mut Rng, opts: &Opts) -> GenHierarchy {
    let n = if rng.chance(opts.big_chance) {
        rng.range(0, opts.max_big_parts.min(0x7FFF) as i64) as usize
    } else if rng.chance(0.1) {
        0
    } else {
        rng.range(1, opts.max_parts.max(1) as i64) as usize
    };
    let depths = if n > 0 && rng.chance(opts.bad_depth_chance) {
        bad_depths(rng, n)
    } else {
        tree_depths(rng, n)
    };
    let odd = rng.chance(0.3);
    let wide = rng.chance(0.1);
    let parts = depths
        .into_iter()
        .map(|depth| {
            let mut p = GenPart {
                depth,
                model: rng.range(0, 600) as u32,
                ..GenPart::default()
            };
            for v in p.offset.iter_mut() {
                *v = if wide {
                    rng.next_u32() as i32
                } else {
                    rng.range(-2000, 2000) as i32
                };
            }
            if odd {
                if rng.chance(0.5) {
                    p.unknown_00 = rng.next_u32() as u16;
                }
                if rng.chance(0.5) {
                    p.unknown_20 = rng.next_u32();
                }
                if rng.chance(0.5) {
                    p.runtime.copy_from_slice(&rng.bytes(16));
                }
                if rng.chance(0.2) {
                    p.model = rng.next_u32();
                }
            }
            p
        })
        .collect();
    GenHierarchy {
        area: byte_area(rng, n),
        parts,
    }
}

/// A random valid file: aliases, hierarchies out of slot order, gaps (odd lengths included, so
/// hierarchies at unaligned offsets), trailing bytes, non-zero unknowns, gate failures.
pub fn random_with(rng: &mut Rng, opts: &Opts) -> Vec<u8> {
    let count = if rng.chance(0.03) {
        0
    } else {
        rng.range(1, opts.max_hierarchies.clamp(1, 128) as i64) as usize
    };
    let mut free: Vec<usize> = (0..256).collect();
    rng.shuffle(&mut free);
    let mut items = Vec::with_capacity(count);
    for _ in 0..count {
        let h = random_hierarchy(rng, opts);
        let mut slots = Vec::new();
        let aliases = if rng.chance(0.25) { rng.range(1, 3) } else { 0 };
        for _ in 0..=aliases {
            if let Some(s) = free.pop() {
                slots.push(s);
            }
        }
        let gap = if rng.chance(0.4) {
            let len = rng.range(1, 13) as usize;
            if rng.chance(0.5) {
                rng.bytes(len)
            } else {
                vec![0; len]
            }
        } else {
            Vec::new()
        };
        items.push((gap, h, slots));
    }
    let trailing = if rng.chance(0.3) {
        let len = rng.range(1, 17) as usize;
        rng.bytes(len)
    } else {
        Vec::new()
    };
    GenFile { items, trailing }.bytes()
}

/// Part names of the sample's Chuckie-like character (hierarchy of slot 1), in part order.
const CHARACTER: [(&str, u16, [i32; 3]); 15] = [
    ("hips", 1, [0, -400, 0]),
    ("chest", 2, [0, -160, 0]),
    ("head", 3, [0, -240, 0]),
    ("left_upper_arm", 3, [110, -20, 0]),
    ("left_forearm", 4, [40, 120, 0]),
    ("left_hand", 5, [20, 110, 0]),
    ("right_upper_arm", 3, [-110, -20, 0]),
    ("right_forearm", 4, [-40, 120, 0]),
    ("right_hand", 5, [-20, 110, 0]),
    ("left_thigh", 2, [60, 30, 0]),
    ("left_shin", 3, [0, 180, 0]),
    ("left_foot", 4, [0, 190, -10]),
    ("right_thigh", 2, [-60, 30, 0]),
    ("right_shin", 3, [0, 180, 0]),
    ("right_foot", 4, [0, 190, -10]),
];

/// The sample's 1-part prop (slot 2).
const PROP: [(&str, u16, [i32; 3]); 1] = [("crate", 1, [0, 0, 0])];

/// The sample's 3-part lamp (slot 3).
const LAMP: [(&str, u16, [i32; 3]); 3] = [
    ("base", 1, [0, 0, 0]),
    ("stem", 2, [0, -300, 0]),
    ("shade", 3, [0, -60, 0]),
];

fn sample_hierarchy(
    parts: &[(&str, u16, [i32; 3])],
    first_model: u32,
    groups: &[&[u8]],
) -> GenHierarchy {
    let mut area = [0u8; AREA];
    let mut pos = 0;
    for g in groups {
        area[pos..pos + g.len()].copy_from_slice(g);
        pos += g.len();
        area[pos] = 0xFF;
        pos += 1;
    }
    GenHierarchy {
        area,
        parts: parts
            .iter()
            .zip(first_model..)
            .map(|(&(_, depth, offset), model)| GenPart {
                depth,
                offset,
                model,
                ..GenPart::default()
            })
            .collect(),
    }
}

/// A small DB22-like file: slot 1 a 15-part character (slot 7 aliases it), slot 2 a 1-part
/// prop, slot 3 a 3-part lamp; file order lamp, character, (8 zero bytes), prop.
pub fn sample_db22() -> Vec<u8> {
    let character = sample_hierarchy(
        &CHARACTER,
        0x100,
        &[
            &[0, 1, 2],
            &[3, 4, 5],
            &[6, 7, 8],
            &[9, 10, 11],
            &[12, 13, 14],
        ],
    );
    let prop = sample_hierarchy(&PROP, 0x200, &[&[0]]);
    let lamp = sample_hierarchy(&LAMP, 0x210, &[&[0, 1, 2]]);
    GenFile {
        items: vec![
            (Vec::new(), lamp, vec![3]),
            (Vec::new(), character, vec![1, 7]),
            (vec![0; 8], prop, vec![2]),
        ],
        trailing: Vec::new(),
    }
    .bytes()
}

/// Part names of [`sample_db22`] as JSON, keyed by the lowest slot of each hierarchy:
/// `{"1": ["hips", ...], "2": [...], "3": [...]}`.
pub fn sample_db22_names() -> String {
    fn names(p: &[(&'static str, u16, [i32; 3])]) -> Vec<&'static str> {
        p.iter().map(|x| x.0).collect()
    }
    let mut m = serde_json::Map::new();
    m.insert("1".into(), names(&CHARACTER).into());
    m.insert("2".into(), names(&PROP).into());
    m.insert("3".into(), names(&LAMP).into());
    serde_json::Value::Object(m).to_string()
}
