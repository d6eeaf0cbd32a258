//! An independent reader of MOD/SCM files for the mesh write-back tests: its own offsets,
//! stream decoding and strip decoder, written from the container's published layout (`docs/formats.md`) without the library's
//! code.

#![allow(dead_code)]

/// One decoded mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct RMesh {
    pub texture: u16,
    /// The record's bytes with every offset field and what the layout sets zeroed (what must
    /// survive a relayout).
    pub record_rest: Vec<u8>,
    /// Positions as f32 bit patterns (NaN payloads compare equal to themselves).
    pub positions: Vec<[u32; 3]>,
    /// Normals as f32 bit patterns.
    pub normals: Vec<[u32; 3]>,
    pub uvs: Vec<[i16; 2]>,
    pub bones: Vec<[u8; 4]>,
    pub weights: Vec<u16>,
    pub colours: Vec<[u8; 4]>,
}

/// One decoded object.
#[derive(Debug, Clone, PartialEq)]
pub struct RObject {
    /// The record's bytes with the mesh-record offset zeroed.
    pub record_rest: Vec<u8>,
    pub vertex_count: u16,
    /// Bounding sphere as f32 bits.
    pub bounds: [u32; 4],
    pub meshes: Vec<RMesh>,
}

/// A decoded file.
#[derive(Debug, Clone, PartialEq)]
pub struct RFile {
    pub scm: bool,
    pub bones: u8,
    pub block_offset: u64,
    pub objects: Vec<RObject>,
}

fn u16le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u64le(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}
fn f32le(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads a MOD/SCM (panics on anything malformed: test data only).
pub fn read(b: &[u8]) -> RFile {
    let scm = &b[0..4] == b"SCM ";
    assert!(scm || &b[0..4] == b"MOD ");
    let objects_n = b[0x10] as usize;
    let mut objects = Vec::new();
    for i in 0..objects_n {
        let o = 0x40 + 0x40 * i;
        let mut rest = b[o..o + 0x40].to_vec();
        rest[8..16].fill(0);
        let meshes_n = b[o] as usize;
        let first = u64le(b, o + 8) as usize;
        let mut meshes = Vec::new();
        for j in 0..meshes_n {
            let r = first + 0x50 * j;
            let n = u16le(b, r) as usize;
            let mut record_rest = b[r..r + 0x50].to_vec();
            // Offsets, and what the retail layout sets beside them: +0x40 (the workspace, relative
            // to the record), +0x48 (the index count, 0 on disk), an SCM's +0x28 (the
            // continuation span).
            let offs: Vec<usize> = if scm {
                vec![0x10, 0x18, 0x20, 0x28, 0x38, 0x40]
            } else {
                vec![0x10, 0x18, 0x20, 0x28, 0x30, 0x40]
            };
            for &f in &offs {
                record_rest[f..f + 8].fill(0);
            }
            record_rest[0x48..0x4C].fill(0);
            let at = |f: usize| u64le(b, r + f) as usize;
            let v3 = |s: usize| -> Vec<[u32; 3]> {
                (0..n)
                    .map(|k| {
                        [
                            u32le(b, s + 12 * k),
                            u32le(b, s + 12 * k + 4),
                            u32le(b, s + 12 * k + 8),
                        ]
                    })
                    .collect()
            };
            let q4 = |s: usize| -> Vec<[u8; 4]> {
                (0..n)
                    .map(|k| {
                        [
                            b[s + 4 * k],
                            b[s + 4 * k + 1],
                            b[s + 4 * k + 2],
                            b[s + 4 * k + 3],
                        ]
                    })
                    .collect()
            };
            let (positions, normals) = if n > 0 {
                (v3(at(0x10)), v3(at(0x18)))
            } else {
                (vec![], vec![])
            };
            let uvs = if n > 0 {
                let s = at(0x20);
                (0..n)
                    .map(|k| [u16le(b, s + 4 * k) as i16, u16le(b, s + 4 * k + 2) as i16])
                    .collect()
            } else {
                vec![]
            };
            let (bones, weights, colours) = if n == 0 {
                (vec![], vec![], vec![])
            } else if scm {
                (vec![], vec![], q4(at(0x38)))
            } else {
                let s = at(0x30);
                (
                    q4(at(0x28)),
                    (0..n).map(|k| u16le(b, s + 2 * k)).collect(),
                    vec![],
                )
            };
            meshes.push(RMesh {
                texture: u16le(b, r + 2),
                record_rest,
                positions,
                normals,
                uvs,
                bones,
                weights,
                colours,
            });
        }
        objects.push(RObject {
            record_rest: rest,
            vertex_count: u16le(b, o + 2),
            bounds: [
                u32le(b, o + 0x30),
                u32le(b, o + 0x34),
                u32le(b, o + 0x38),
                u32le(b, o + 0x3C),
            ],
            meshes,
        });
    }
    RFile {
        scm,
        bones: b[0x11],
        block_offset: u64le(b, 0x20),
        objects,
    }
}

impl RMesh {
    /// Vertex `v`'s position as floats.
    pub fn position(&self, v: usize) -> [f32; 3] {
        self.positions[v].map(f32::from_bits)
    }

    /// Vertex `v`'s normal as floats.
    pub fn normal(&self, v: usize) -> [f32; 3] {
        self.normals[v].map(f32::from_bits)
    }

    /// Per vertex: does it carry the strip flag?
    pub fn flags(&self) -> Vec<bool> {
        if self.colours.is_empty() && !self.weights.is_empty() {
            self.weights.iter().map(|w| w & 0x8000 != 0).collect()
        } else {
            self.colours.iter().map(|c| c[3] & 2 != 0).collect()
        }
    }

    /// Triangles of the strips: for i >= 2 whose vertex is unflagged, (i-2, i-1, i), the
    /// winding alternating with the number of triangles since the last flagged vertex.
    pub fn triangles(&self) -> Vec<[usize; 3]> {
        let flags = self.flags();
        let mut out = Vec::new();
        let mut k = 0;
        for (i, &flag) in flags.iter().enumerate() {
            if flag {
                k = 0;
                continue;
            }
            if i < 2 {
                continue;
            }
            out.push(if k % 2 == 0 {
                [i - 2, i - 1, i]
            } else {
                [i - 1, i - 2, i]
            });
            k += 1;
        }
        out
    }

    /// Per vertex its three (joint, weight/31) influences with non-zero weight.
    pub fn influences(&self, v: usize) -> Vec<(u8, u16)> {
        let w = self.weights[v];
        let b = self.bones[v];
        (0..3)
            .map(|k| (b[k + 1] / 4, (w >> (5 * k)) & 31))
            .filter(|x| x.1 > 0)
            .collect()
    }
}
