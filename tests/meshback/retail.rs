//! An independent check of the retail MOD/SCM layout, written from the published rule
//! (docs/formats.md, containers: "Retail layout", "Index workspaces") with its own offsets and
//! arithmetic, not the library's layout code: header, object records, per object its mesh
//! records then its meshes' streams grouped by kind (a stream shared with an earlier mesh
//! placed once), each 16-aligned with zero between; the node-domain block; then one index
//! workspace per mesh in object then mesh order where the mesh record's +0x40 (relative to the
//! record) points, `align16(6 * (vertices - 2))` bytes, 16-aligned, tiling the end of the file,
//! every byte 0x12 but the file's last two (zero); +0x48 zero; an SCM mesh's +0x28 0x50 but on
//! its object's last mesh (0).
//!
//! Bytes that a relaid file carries because the retail layout has no place for them lie between
//! the last stream and the block (or the first workspace): they are counted, not refused.

#![allow(dead_code)]

/// What the check saw of a file it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Retail {
    /// Meshes, each with its workspace where +0x40 points.
    pub meshes: usize,
    /// Bytes the workspaces take at the end of the file (alignment between them included).
    pub workspace_bytes: usize,
    /// Non-zero bytes between the last stream and the block (or the workspaces): carried.
    pub carried: usize,
    /// Whether every object's vertex count (+0x02) is the sum of its meshes'.
    pub vertex_sums: bool,
}

fn u16le(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}
fn u32le(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
}
fn u64le(b: &[u8], at: usize) -> usize {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a) as usize
}
fn align16(v: usize) -> usize {
    v.div_ceil(16) * 16
}

/// The bytes `[from, to)` are zero (alignment fill).
fn zeros(b: &[u8], from: usize, to: usize, what: &str) -> Result<(), String> {
    match (from..to.min(b.len())).find(|&k| b[k] != 0) {
        Some(k) => Err(format!(
            "{what}: byte {k:#x} is {:#04x}, not zero fill",
            b[k]
        )),
        None => Ok(()),
    }
}

/// The record fields that name streams, with each stream's bytes per vertex, in the order the
/// retail layout groups them.
fn stream_fields(scm: bool) -> &'static [(usize, usize)] {
    if scm {
        &[(0x10, 12), (0x18, 12), (0x20, 4), (0x38, 4)]
    } else {
        &[(0x10, 12), (0x18, 12), (0x20, 4), (0x28, 4), (0x30, 2)]
    }
}

/// Checks that `b` is in the retail layout (see the module doc); the first rule it breaks.
pub fn check(b: &[u8]) -> Result<Retail, String> {
    let scm = &b[0..4] == b"SCM ";
    let objects = b[0x10] as usize;
    let mut out = Retail {
        vertex_sums: true,
        ..Retail::default()
    };
    let mut pos = 0x40 + 0x40 * objects;
    let mut placed: Vec<(usize, usize)> = Vec::new();
    for i in 0..objects {
        let o = 0x40 + 0x40 * i;
        let n = b[o] as usize;
        let first = u64le(b, o + 8);
        let sum: usize = (0..n).map(|j| u16le(b, first + 0x50 * j)).sum();
        out.vertex_sums &= n == 0 || u16le(b, o + 2) == sum;
        if n == 0 {
            continue;
        }
        let at = align16(pos);
        zeros(b, pos, at, &format!("before object {i}'s mesh records"))?;
        if first != at {
            return Err(format!(
                "object {i}'s mesh records at {first:#x}, not {at:#x}"
            ));
        }
        pos = at + 0x50 * n;
        for &(field, stride) in stream_fields(scm) {
            for j in 0..n {
                let r = first + 0x50 * j;
                let len = u16le(b, r) * stride;
                let off = u64le(b, r + field);
                if len == 0 || placed.contains(&(off, len)) {
                    continue;
                }
                let at = align16(pos);
                zeros(
                    b,
                    pos,
                    at,
                    &format!("before object {i} mesh {j} +{field:#x}"),
                )?;
                if off != at {
                    return Err(format!(
                        "object {i} mesh {j}: the stream at +{field:#x} is at {off:#x}, the retail order puts it at {at:#x}"
                    ));
                }
                placed.push((off, len));
                pos = at + len;
            }
        }
    }
    let first_workspace = workspaces_start(b, objects);
    let block = u64le(b, 0x20);
    let has_block = b[0x11] != 0 || block != 0;
    // Workspaces that take no room (meshes under three vertices, or none) may point past the
    // end of a file that has no block.
    let next = if has_block {
        block
    } else {
        first_workspace.min(b.len())
    };
    if next < pos || (next % 16 != 0 && next != b.len()) {
        return Err(format!("after the last stream ({pos:#x}) comes {next:#x}"));
    }
    out.carried = b[pos..next].iter().filter(|&&x| x != 0).count();
    pos = next;
    if has_block {
        pos = block + block_extent(b, block, b[0x11] as usize);
    }
    check_workspaces(b, scm, objects, pos, &mut out)?;
    Ok(out)
}

/// Where the first workspace starts: mesh record + its +0x40, for the first mesh of all (the
/// end of the file when there is none).
fn workspaces_start(b: &[u8], objects: usize) -> usize {
    (0..objects)
        .map(|i| 0x40 + 0x40 * i)
        .find(|&o| b[o] > 0)
        .map(|o| {
            let r = u64le(b, o + 8);
            r.wrapping_add(u64le(b, r + 0x40))
        })
        .unwrap_or(b.len())
}

/// The block's extent: its header, and each of its arrays (N bytes each) and transform records
/// (0x20 each) where its rels put them.
fn block_extent(b: &[u8], block: usize, n: usize) -> usize {
    let rels = [0, 4, 8, 12].map(|k| u32le(b, block + k));
    let lens = [n, n, n, 0x20 * n];
    (0..4)
        .filter(|&k| lens[k] > 0)
        .map(|k| rels[k] + lens[k])
        .max()
        .unwrap_or(0x20)
        .max(0x20)
}

/// The workspaces from `pos` (the block's end) on, tiling the end of the file.
fn check_workspaces(
    b: &[u8],
    scm: bool,
    objects: usize,
    mut pos: usize,
    out: &mut Retail,
) -> Result<(), String> {
    let start = pos;
    let mut end = pos;
    for i in 0..objects {
        let o = 0x40 + 0x40 * i;
        let n = b[o] as usize;
        let first = u64le(b, o + 8);
        for j in 0..n {
            let r = first + 0x50 * j;
            let at = align16(pos);
            zeros(
                b,
                pos,
                at,
                &format!("before object {i} mesh {j}'s workspace"),
            )?;
            let ws = r.wrapping_add(u64le(b, r + 0x40));
            if ws != at {
                return Err(format!(
                    "object {i} mesh {j}: +0x40 points at {ws:#x}, its workspace belongs at {at:#x}"
                ));
            }
            if u32le(b, r + 0x48) != 0 {
                return Err(format!("object {i} mesh {j}: +0x48 is not 0"));
            }
            let span = u64le(b, r + 0x28);
            if scm && span != if j + 1 < n { 0x50 } else { 0 } {
                return Err(format!("object {i} mesh {j}: continuation span {span:#x}"));
            }
            let len = align16(6 * u16le(b, r).saturating_sub(2));
            if len > 0 && at + len > b.len() {
                return Err(format!("object {i} mesh {j}: workspace runs past the end"));
            }
            for k in at..at + len {
                let want = if k + 2 >= b.len() { 0 } else { 0x12 };
                if b[k] != want {
                    return Err(format!(
                        "object {i} mesh {j}: workspace byte {k:#x} is {:#04x}, not {want:#04x}",
                        b[k]
                    ));
                }
            }
            pos = at + len;
            if len > 0 {
                end = pos;
            }
            out.meshes += 1;
        }
    }
    if end != b.len() {
        return Err(format!(
            "the workspaces end at {end:#x}, the file at {:#x}",
            b.len()
        ));
    }
    out.workspace_bytes = end - start;
    Ok(())
}
