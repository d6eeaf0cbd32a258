//! Mesh write-back on generated MODs and SCMs (real layouts with a block followed by data,
//! shuffled layouts with shared streams and gaps): vertices moved, weights repainted, a mesh
//! deleted, a mesh duplicated, a material changed, a bone added. Every result is read by this
//! test's own reader and strip decoder (tests/meshback/reader.rs): the edited mesh's triangles
//! are the glTF's, every untouched mesh is the original's, `verify` calls the result
//! identical, and its export is validator- and lint-clean.

mod common;
#[path = "meshback/reader.rs"]
mod reader;

use std::path::PathBuf;

use base64::Engine as _;
use serde_json::{json, Value};

use rigtrip::gltf::import::onto::{import_onto, JointMap, OntoOptions};
use rigtrip::gltf::import::{import_slice, ImportError, ImportOptions, Imported, MeshStatus};
use rigtrip::gltf::{export, to_glb, to_gltf, ExportOptions};
use rigtrip::native::{Format, NativeFile};
use rigtrip::ops::verify::{verify_bytes, Verdict};
use rigtrip::rig;

/// A triangle corner: position (cm) and (joint, weight) influences.
type Corner = ([f64; 3], Vec<(u8, f64)>);
/// Joint and weight accessors, read.
type Influences = (Vec<Vec<f64>>, Vec<Vec<f64>>);

/// A glTF (JSON with its one buffer decoded) to edit.
struct Doc {
    v: Value,
    bin: Vec<u8>,
}

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

impl Doc {
    fn export(data: &[u8]) -> Doc {
        let rig = rig::lift(NativeFile::read(None, data).unwrap());
        let e = export(&rig, &ExportOptions::default()).unwrap();
        let v: Value = serde_json::from_slice(&to_gltf(&e).unwrap()).unwrap();
        let uri = v["buffers"][0]["uri"].as_str().unwrap();
        let bin = B64.decode(uri.split_once(',').unwrap().1).unwrap();
        Doc { v, bin }
    }

    /// A GLB as Blender writes it: the JSON chunk and the BIN chunk.
    fn from_glb(glb: &[u8]) -> Doc {
        let (v, bin) = common::glb_split(glb);
        Doc { v, bin }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut v = self.v.clone();
        v["buffers"][0]["uri"] = json!(format!(
            "data:application/octet-stream;base64,{}",
            B64.encode(&self.bin)
        ));
        v["buffers"][0]["byteLength"] = json!(self.bin.len());
        serde_json::to_vec(&v).unwrap()
    }

    /// Adds a joint node `name` under node `parent` (at `translation` m) to the first skin.
    fn add_leaf(&mut self, parent: usize, name: &str, translation: [f64; 3]) {
        let n = self.v["nodes"].as_array().unwrap().len();
        self.v["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": name, "translation": translation}));
        let p = &mut self.v["nodes"][parent];
        if p.get("children").is_none() {
            p["children"] = json!([]);
        }
        p["children"].as_array_mut().unwrap().push(json!(n));
        self.v["skins"][0]["joints"]
            .as_array_mut()
            .unwrap()
            .push(json!(n));
    }

    fn node(&self, name: &str) -> usize {
        self.v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap()
    }

    fn prim(&self, node: usize) -> Value {
        let m = self.v["nodes"][node]["mesh"].as_u64().unwrap() as usize;
        self.v["meshes"][m]["primitives"][0].clone()
    }

    /// (byte offset, count, components, component type) of an accessor.
    fn layout(&self, acc: usize) -> (usize, usize, usize, u64) {
        let a = &self.v["accessors"][acc];
        let view = &self.v["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let off = view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0);
        let comps = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("{t}"),
        };
        (
            off as usize,
            a["count"].as_u64().unwrap() as usize,
            comps,
            a["componentType"].as_u64().unwrap(),
        )
    }

    fn read(&self, acc: usize) -> Vec<Vec<f64>> {
        let (off, count, comps, ty) = self.layout(acc);
        let size = match ty {
            5126 | 5125 => 4,
            5123 => 2,
            5121 => 1,
            t => panic!("{t}"),
        };
        (0..count)
            .map(|i| {
                (0..comps)
                    .map(|c| {
                        let at = off + (i * comps + c) * size;
                        let b = &self.bin[at..at + size];
                        match ty {
                            5126 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
                            5125 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
                            5123 => u16::from_le_bytes(b.try_into().unwrap()) as f64,
                            _ => b[0] as f64,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn write(&mut self, acc: usize, i: usize, vals: &[f64]) {
        let (off, _, comps, ty) = self.layout(acc);
        for (c, &x) in vals.iter().enumerate() {
            match ty {
                5126 => {
                    let at = off + (i * comps + c) * 4;
                    self.bin[at..at + 4].copy_from_slice(&(x as f32).to_le_bytes());
                }
                5123 => {
                    let at = off + (i * comps + c) * 2;
                    self.bin[at..at + 2].copy_from_slice(&(x as u16).to_le_bytes());
                }
                5121 => self.bin[off + i * comps + c] = x as u8,
                t => panic!("{t}"),
            }
        }
        // Keep POSITION bounds honest.
        if self.v["accessors"][acc].get("min").is_some() {
            let all = self.read(acc);
            let (mut lo, mut hi) = (vec![f64::MAX; comps], vec![f64::MIN; comps]);
            for v in &all {
                for c in 0..comps {
                    lo[c] = lo[c].min(v[c]);
                    hi[c] = hi[c].max(v[c]);
                }
            }
            self.v["accessors"][acc]["min"] = json!(lo);
            self.v["accessors"][acc]["max"] = json!(hi);
        }
    }

    /// The node's triangles as corner positions in centimetres (glTF axes = DMC3's), and per
    /// corner its (joint, weight) influences.
    fn triangles(&self, node: usize) -> Vec<[Corner; 3]> {
        let p = self.prim(node);
        let pos = self.read(p["attributes"]["POSITION"].as_u64().unwrap() as usize);
        let inf: Option<Influences> = p["attributes"].get("JOINTS_0").map(|j| {
            (
                self.read(j.as_u64().unwrap() as usize),
                self.read(p["attributes"]["WEIGHTS_0"].as_u64().unwrap() as usize),
            )
        });
        let idx = self.read(p["indices"].as_u64().unwrap() as usize);
        // A joint slot names the native joint its node's extras carry (Blender reorders skins).
        let skin = &self.v["skins"][self.v["nodes"][node]["skin"].as_u64().unwrap_or(0) as usize];
        let native = |slot: f64| -> u8 {
            let n = skin["joints"][slot as usize].as_u64().unwrap() as usize;
            self.v["nodes"][n]["extras"]["rigtrip"]["joint"]
                .as_u64()
                .unwrap_or(255) as u8
        };
        let corner = |i: usize| {
            let q = &pos[i];
            let infs = match &inf {
                Some((j, w)) => (0..4)
                    .filter(|&k| w[i][k] > 0.0)
                    .map(|k| (native(j[i][k]), w[i][k]))
                    .collect(),
                None => vec![],
            };
            ([q[0] * 100.0, q[1] * 100.0, q[2] * 100.0], infs)
        };
        idx.chunks(3)
            .map(|t| {
                [
                    corner(t[0][0] as usize),
                    corner(t[1][0] as usize),
                    corner(t[2][0] as usize),
                ]
            })
            .collect()
    }

    /// Appends an accessor over new bytes in the buffer (a view of its own): `ty` its type,
    /// `ctype` its component type, `count` elements.
    fn push_accessor(&mut self, bytes: &[u8], ty: &str, ctype: u64, count: usize) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let view = self.v["bufferViews"].as_array().unwrap().len();
        self.v["bufferViews"].as_array_mut().unwrap().push(json!({
            "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()
        }));
        self.bin.extend_from_slice(bytes);
        let accessors = self.v["accessors"].as_array_mut().unwrap();
        accessors.push(json!({
            "bufferView": view, "componentType": ctype, "type": ty, "count": count
        }));
        accessors.len() - 1
    }

    /// Adds a scene root node `name` with a 4 cm box mesh (8 corners, 12 triangles) around
    /// `at` (metres), skinned through `skin` (when given) with every vertex's influences
    /// `(slot, weight)` (up to eight: JOINTS_1/WEIGHTS_1 past four). Returns the corners.
    fn add_box(
        &mut self,
        name: &str,
        at: [f64; 3],
        skin: Option<usize>,
        inf: &[(u8, f32)],
    ) -> Vec<[f32; 3]> {
        let h = 0.02;
        let mut corners = Vec::new();
        for x in [-h, h] {
            for y in [-h, h] {
                for z in [-h, h] {
                    corners.push([(at[0] + x) as f32, (at[1] + y) as f32, (at[2] + z) as f32]);
                }
            }
        }
        let pos: Vec<u8> = corners
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let pos = self.push_accessor(&pos, "VEC3", 5126, 8);
        let (lo, hi) = (corners[0], corners[7]);
        self.v["accessors"][pos]["min"] = json!(lo);
        self.v["accessors"][pos]["max"] = json!(hi);
        let quads = [
            [0, 1, 3, 2],
            [4, 6, 7, 5],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 2, 6, 4],
            [1, 5, 7, 3],
        ];
        let idx: Vec<u8> = quads
            .iter()
            .flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]])
            .flat_map(|i: u16| i.to_le_bytes())
            .collect();
        let idx = self.push_accessor(&idx, "SCALAR", 5123, 36);
        let mut attributes = json!({ "POSITION": pos });
        for (set, chunk) in inf.chunks(4).enumerate() {
            let mut j = [0u8; 4];
            let mut w = [0f32; 4];
            for (k, (slot, weight)) in chunk.iter().enumerate() {
                j[k] = *slot;
                w[k] = *weight;
            }
            let js: Vec<u8> = (0..8).flat_map(|_| j).collect();
            let ws: Vec<u8> = (0..8).flat_map(|_| w).flat_map(f32::to_le_bytes).collect();
            attributes[format!("JOINTS_{set}")] = json!(self.push_accessor(&js, "VEC4", 5121, 8));
            attributes[format!("WEIGHTS_{set}")] = json!(self.push_accessor(&ws, "VEC4", 5126, 8));
        }
        let meshes = self.v["meshes"].as_array_mut().unwrap();
        meshes.push(json!({"primitives": [{"attributes": attributes, "indices": idx}]}));
        let mesh = meshes.len() - 1;
        let mut node = json!({"name": name, "mesh": mesh});
        if let Some(s) = skin {
            node["skin"] = json!(s);
        }
        let nodes = self.v["nodes"].as_array_mut().unwrap();
        nodes.push(node);
        let n = nodes.len() - 1;
        self.v["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!(n));
        corners
    }

    /// The node of native joint `j` (its extras).
    fn joint_node(&self, j: usize) -> usize {
        self.v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["extras"]["rigtrip"]["joint"] == j)
            .unwrap()
    }

    fn add_material(&mut self, name: &str) -> usize {
        if self.v.get("materials").is_none() {
            self.v["materials"] = json!([]);
        }
        let m = self.v["materials"].as_array_mut().unwrap();
        m.push(json!({ "name": name }));
        m.len() - 1
    }
}

fn import(bytes: &[u8], label: &str) -> Imported {
    import_slice(bytes, None, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{label}: {}", rigtrip::chain(&e)))
}

/// How far a stored position may be from the glTF's, centimetres: 1e-4 for documents edited
/// here; Blender adds float noise of its own (measured up to 2e-4 cm on these files), which
/// the import takes as noise and restores to the original bits, so its documents get 1e-3.
const HERE_CM: f64 = 1e-4;
/// See [`HERE_CM`].
const BLENDER_CM: f64 = 1e-3;

fn close(a: [f64; 3], b: [f32; 3], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y as f64).abs() <= tol)
}

/// Every glTF triangle has a decoded triangle with the same corners, same winding (up to
/// rotation), within 1e-4 cm; and as many of them. Influences agree to the nearest 1/31.
fn same_triangles(gltf: &[[Corner; 3]], m: &reader::RMesh, what: &str, tol: f64) {
    let decoded = m.triangles();
    let mut used = vec![false; decoded.len()];
    let mut unmatched = 0;
    for t in gltf {
        let found = decoded.iter().enumerate().position(|(k, d)| {
            !used[k]
                && (0..3).any(|r| (0..3).all(|c| close(t[c].0, m.position(d[(c + r) % 3]), tol)))
        });
        match found {
            Some(k) => {
                used[k] = true;
                if m.weights.is_empty() {
                    continue;
                }
                for corner in t {
                    let v = decoded[k]
                        .into_iter()
                        .find(|&v| close(corner.0, m.position(v), tol))
                        .unwrap();
                    let got = m.influences(v);
                    let want = &corner.1;
                    let total: f64 = want.iter().map(|x| x.1).sum();
                    // Stored weights are fifths of 31 summing to 31 when written; a vertex kept
                    // bit for bit may sum to less (the export normalises): compare shares.
                    let sum: f64 = got.iter().map(|x| x.1 as f64).sum();
                    for &(j, w) in want {
                        let g = got
                            .iter()
                            .filter(|x| x.0 == j)
                            .map(|x| x.1 as f64)
                            .sum::<f64>()
                            / sum;
                        // Rounded to fifths of 31 under the sum-31 constraint (largest remainder): off by less
                        // than 1/31.
                        assert!(
                            (g - w / total).abs() < 1.0 / 31.0,
                            "{what}: joint {j} weight {g} vs {w}"
                        );
                    }
                }
            }
            None => {
                unmatched += 1;
                eprintln!(
                    "{what}: unmatched glTF triangle {:?}",
                    t.iter().map(|c| c.0).collect::<Vec<_>>()
                );
            }
        }
    }
    assert_eq!(
        unmatched, 0,
        "{what}: {unmatched} glTF triangles not in the strips"
    );
    assert_eq!(gltf.len(), decoded.len(), "{what}: triangle counts");
}

/// The generated files: real layouts (block then 0x12 fill) and shuffled ones with shared
/// streams and gaps, MOD and SCM, each with a mesh of at least 3 triangles.
fn files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for seed in 0..60u64 {
        let scm = seed % 2 == 1;
        for (label, data) in [
            (
                format!("real {seed}"),
                rigtrip::synth::dmc3::real_layout(seed, scm),
            ),
            (
                format!("generated {seed}"),
                rigtrip::synth::dmc3::random_exportable(seed, scm),
            ),
        ] {
            let f = reader::read(&data);
            let has = f
                .objects
                .iter()
                .flat_map(|o| &o.meshes)
                .any(|m| m.triangles().len() >= 3);
            if has && matches!(verify_bytes(None, &data), Verdict::Identical { .. }) {
                out.push((label, data));
            }
        }
    }
    out
}

/// The first mesh with at least three triangles: (object, mesh).
fn target(f: &reader::RFile) -> (usize, usize) {
    for (o, obj) in f.objects.iter().enumerate() {
        for (m, mesh) in obj.meshes.iter().enumerate() {
            if mesh.triangles().len() >= 3 {
                return (o, m);
            }
        }
    }
    unreachable!()
}

/// Checks a result: untouched meshes as they were (except those `skip` names), verify
/// identical, the export written for the validator and the linter.
fn common_checks(
    label: &str,
    before: &reader::RFile,
    after: &reader::RFile,
    skip: &[(usize, usize)],
    got: &Imported,
    out: &mut Vec<PathBuf>,
) {
    for (o, obj) in before.objects.iter().enumerate() {
        for (m, mesh) in obj.meshes.iter().enumerate() {
            if skip.contains(&(o, m)) {
                continue;
            }
            assert_eq!(
                after.objects[o].meshes.get(m),
                Some(mesh),
                "{label}: untouched object {o} mesh {m}\n{}",
                got.report.render_text()
            );
        }
        if !skip.iter().any(|s| s.0 == o) {
            assert_eq!(
                after.objects[o].record_rest, obj.record_rest,
                "{label}: object {o}"
            );
        }
    }
    assert!(
        matches!(verify_bytes(None, &got.bytes), Verdict::Identical { .. }),
        "{label}: verify {:?}",
        verify_bytes(None, &got.bytes)
    );
    exported_clean(label, &got.bytes, "meshback", out);
}

/// Exports a written DMC3 file: lint finds nothing, and the GLB is kept in `folder` for the
/// validator (`out`).
fn exported_clean(label: &str, bytes: &[u8], folder: &str, out: &mut Vec<PathBuf>) {
    let rig = rig::lift(NativeFile::read(Some(Format::Dmc3), bytes).unwrap());
    let glb = to_glb(&export(&rig, &ExportOptions::default()).unwrap()).unwrap();
    let lint = rigtrip::lint::lint_slice(&glb, label, None);
    assert_eq!(
        (lint.errors, lint.warnings),
        (0, 0),
        "{label}: {}",
        lint.verdict
    );
    let path = common::tmp(&format!("{folder}/{}.glb", label.replace(' ', "_")));
    std::fs::write(&path, glb).unwrap();
    out.push(path);
}

/// Imports `d`, whose node `node` is the edited mesh `at` of `before`: its triangles are the
/// glTF's, the rest as [`common_checks`] wants it.
fn edited_mesh(
    d: &Doc,
    node: usize,
    at: (usize, usize),
    before: &reader::RFile,
    what: &str,
    glbs: &mut Vec<PathBuf>,
) -> Imported {
    let got = import(&d.bytes(), what);
    let after = reader::read(&got.bytes);
    same_triangles(
        &d.triangles(node),
        &after.objects[at.0].meshes[at.1],
        what,
        HERE_CM,
    );
    common_checks(what, before, &after, &[at], &got, glbs);
    got
}

#[test]
fn edits_land_on_generated_files() {
    let mut glbs = Vec::new();
    let mut counts = [0usize; 6];
    for (label, data) in files() {
        let before = reader::read(&data);
        let (to, tm) = target(&before);
        let name = format!("object{to}_mesh{tm}");
        let n_objects = before.objects.len();

        // 1. Move some vertices.
        let mut d = Doc::export(&data);
        let node = d.node(&name);
        let pos = d.prim(node)["attributes"]["POSITION"].as_u64().unwrap() as usize;
        let all = d.read(pos);
        for (i, p) in all.iter().enumerate().take(all.len() / 2 + 1) {
            d.write(pos, i, &[p[0] + 0.01, p[1] + 0.02, p[2] - 0.005]);
        }
        let got = edited_mesh(
            &d,
            node,
            (to, tm),
            &before,
            &format!("{label} move"),
            &mut glbs,
        );
        assert_eq!(got.report.meshes.status, MeshStatus::Written, "{label}");
        counts[0] += 1;

        // 2. Repaint weights (MOD with a skeleton).
        if !before.scm && before.bones > 0 {
            let mut d = Doc::export(&data);
            let p = d.prim(node);
            let j = p["attributes"]["JOINTS_0"].as_u64().unwrap() as usize;
            let w = p["attributes"]["WEIGHTS_0"].as_u64().unwrap() as usize;
            let joints = before.bones as f64;
            for i in 0..3 {
                d.write(j, i, &[0.0, joints - 1.0, (joints / 2.0).floor(), 0.0]);
                d.write(w, i, &[0.55, 0.3, 0.15, 0.0]);
            }
            edited_mesh(
                &d,
                node,
                (to, tm),
                &before,
                &format!("{label} weights"),
                &mut glbs,
            );
            counts[1] += 1;
        }

        // 3. Delete the mesh.
        let mut d = Doc::export(&data);
        d.v["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .retain(|x| *x != node);
        let got = import(&d.bytes(), &label);
        let after = reader::read(&got.bytes);
        assert_eq!(after.objects.len(), n_objects);
        assert_eq!(
            after.objects[to].meshes.len(),
            before.objects[to].meshes.len() - 1,
            "{label}"
        );
        let mut skip = vec![];
        for m in tm..before.objects[to].meshes.len() {
            skip.push((to, m));
            if m > tm {
                assert_eq!(
                    after.objects[to].meshes[m - 1],
                    before.objects[to].meshes[m],
                    "{label}: shifted mesh"
                );
            }
        }
        common_checks(
            &format!("{label} delete"),
            &before,
            &after,
            &skip,
            &got,
            &mut glbs,
        );
        counts[2] += 1;

        // 4. Duplicate it (Blender's copy: same extras, name .001).
        let mut d = Doc::export(&data);
        let mut copy = d.v["nodes"][node].clone();
        copy["name"] = json!(format!("{name}.001"));
        let copy_at = d.v["nodes"].as_array().unwrap().len();
        d.v["nodes"].as_array_mut().unwrap().push(copy);
        d.v["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!(copy_at));
        let got = import(&d.bytes(), &label);
        let after = reader::read(&got.bytes);
        let added = after.objects[to].meshes.last().unwrap();
        assert_eq!(
            after.objects[to].meshes.len(),
            before.objects[to].meshes.len() + 1
        );
        same_triangles(
            &d.triangles(copy_at),
            added,
            &format!("{label} duplicate"),
            HERE_CM,
        );
        // The copy keeps the original's stored vertices bit for bit.
        let orig = &before.objects[to].meshes[tm];
        for v in 0..added.positions.len() {
            assert!(
                orig.positions.contains(&added.positions[v]) && orig.uvs.contains(&added.uvs[v])
            );
        }
        assert_eq!(
            after.objects[to].vertex_count as usize,
            after.objects[to]
                .meshes
                .iter()
                .map(|m| m.positions.len())
                .sum::<usize>()
        );
        common_checks(
            &format!("{label} duplicate"),
            &before,
            &after,
            &[(to, usize::MAX)],
            &got,
            &mut glbs,
        );
        counts[3] += 1;

        // 5. Another material.
        let mut d = Doc::export(&data);
        let m = d.add_material("texture_11");
        let mesh = d.v["nodes"][node]["mesh"].as_u64().unwrap() as usize;
        d.v["meshes"][mesh]["primitives"][0]["material"] = json!(m);
        let got = import(&d.bytes(), &label);
        assert_eq!(
            got.bytes.len(),
            data.len(),
            "{label}: a material changes no size"
        );
        let diff: Vec<usize> = (0..data.len())
            .filter(|&i| data[i] != got.bytes[i])
            .collect();
        let after = reader::read(&got.bytes);
        assert_eq!(after.objects[to].meshes[tm].texture, 11);
        assert!(diff.len() <= 2, "{label}: {diff:?}");
        counts[4] += 1;

        // 6. A bone added under joint 0 (MOD in the real layout: its block is followed by data;
        // generated blocks may hold non-zero padding, which a new node count would drop).
        if label.starts_with("real") && !before.scm && before.bones > 0 && before.bones < 64 {
            let mut d = Doc::export(&data);
            let parent = d.joint_node(0);
            d.add_leaf(parent, "new_leaf", [0.01, 0.02, 0.03]);
            let got = import(&d.bytes(), &label);
            let after = reader::read(&got.bytes);
            assert_eq!(after.bones, before.bones + 1, "{label}");
            common_checks(
                &format!("{label} bone"),
                &before,
                &after,
                &[],
                &got,
                &mut glbs,
            );
            // Whatever followed the block still follows it.
            assert_eq!(&got.bytes[got.bytes.len() - 3..], &[0x12, 0, 0]);
            // The canonical block extent: align16(0x20 + 3 * align4(n)) + 0x20 * n.
            let extent = |n: usize| (0x20 + 3 * n.div_ceil(4) * 4).div_ceil(16) * 16 + 0x20 * n;
            let n = before.bones as usize;
            assert_eq!(
                got.bytes.len(),
                data.len() + extent(n + 1) - extent(n),
                "{label}"
            );
            counts[5] += 1;
        }
    }
    assert!(counts.iter().all(|&c| c >= 10), "{counts:?}");
    println!("scenarios run: {counts:?}");
    common::validate(&glbs);
}

/// Runs tools/blender-roundtrip.py on `data`'s export with `edits`; the GLB Blender wrote.
fn through_blender(data: &[u8], name: &str, edits: &[&str]) -> Doc {
    let rig = rig::lift(NativeFile::read(None, data).unwrap());
    let src = common::tmp(&format!("meshback_blender/{name}.glb"));
    std::fs::write(
        &src,
        to_glb(&export(&rig, &ExportOptions::default()).unwrap()).unwrap(),
    )
    .unwrap();
    let dst = common::tmp(&format!("meshback_blender/{name}_edited.glb"));
    common::blender_roundtrip(&src, &dst, edits);
    Doc::from_glb(&std::fs::read(&dst).unwrap())
}

#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn edits_land_through_blender() {
    // A MOD in the real layout (block followed by the 0x12 fill), a shuffled MOD with gaps and
    // shared streams, and an SCM in the real layout.
    let pick = |scm: bool, real: bool| -> (String, Vec<u8>) {
        (0..200u64)
            .map(|seed| {
                let data = if real {
                    rigtrip::synth::dmc3::real_layout(seed, scm)
                } else {
                    rigtrip::synth::dmc3::random_exportable(seed, scm)
                };
                (
                    format!("{} {seed}", if real { "real" } else { "generated" }),
                    data,
                )
            })
            .find(|(_, data)| {
                let f = reader::read(data);
                let ok = f.objects.first().is_some_and(|o| {
                    o.meshes.len() >= 2 && o.meshes.iter().all(|m| m.triangles().len() >= 3)
                });
                ok && f
                    .objects
                    .iter()
                    .flat_map(|o| &o.meshes)
                    .all(|m| m.triangles().len() >= 3 || m.positions.len() < 3)
                    && (scm || f.bones >= 3)
                    && matches!(verify_bytes(None, data), Verdict::Identical { .. })
            })
            .unwrap()
    };
    let mut glbs = Vec::new();
    let mut quant = Quantisation::default();
    for (label, data) in [pick(false, true), pick(false, false), pick(true, true)] {
        let before = reader::read(&data);
        let tag = label.replace(' ', "_");
        let mut check =
            |what: &str, edits: &[&str], node: Option<&str>, skip: &[(usize, usize)]| {
                let d = through_blender(&data, &format!("{tag}_{what}"), edits);
                let got = import(&d.bytes(), &format!("{label} {what}"));
                let after = reader::read(&got.bytes);
                println!("{label} {what}:\n{}", got.report.render_text());
                if let Some(node) = node {
                    let (o, m) = parse_mesh(node);
                    let at = d.node(node);
                    let meshes = &after.objects[o].meshes;
                    // A copy (`.001`) is the object's last mesh.
                    let mesh = meshes.get(m).or(meshes.last()).unwrap();
                    same_triangles(
                        &d.triangles(at),
                        mesh,
                        &format!("{label} {what}"),
                        BLENDER_CM,
                    );
                }
                common_checks(
                    &format!("{label} {what}"),
                    &before,
                    &after,
                    skip,
                    &got,
                    &mut glbs,
                );
                println!("{label} {what}:\n{}", got.report.render_text());
                (got, after)
            };
        let (_, after) = check(
            "move",
            &["--move-vertices", "object0_mesh0", "0.01", "0.0", "0.02"],
            Some("object0_mesh0"),
            &[(0, 0)],
        );
        quant.measure(
            &before.objects[0].meshes[0],
            &after.objects[0].meshes[0],
            true,
        );
        if !before.scm {
            let (_, after) = check(
                "weights",
                &["--repaint-weights", "object0_mesh0", "mod_2"],
                Some("object0_mesh0"),
                &[(0, 0)],
            );
            quant.measure(
                &before.objects[0].meshes[0],
                &after.objects[0].meshes[0],
                false,
            );
        }
        let all_meshes: Vec<(usize, usize)> = (0..before.objects[0].meshes.len())
            .map(|m| (0, m))
            .collect();
        let (_, after) = check(
            "delete",
            &["--delete-object", "object0_mesh1"],
            None,
            &all_meshes,
        );
        assert_eq!(
            after.objects[0].meshes.len(),
            before.objects[0].meshes.len() - 1
        );
        assert_eq!(after.objects[0].meshes[0], before.objects[0].meshes[0]);
        let (_, after) = check(
            "duplicate",
            &["--duplicate-object", "object0_mesh0"],
            Some("object0_mesh0.001"),
            &[(0, usize::MAX)],
        );
        assert_eq!(
            after.objects[0].meshes.len(),
            before.objects[0].meshes.len() + 1
        );
        let (_, after) = check(
            "material",
            &["--set-material", "object0_mesh0", "texture_9"],
            None,
            &[(0, 0)],
        );
        assert_eq!(after.objects[0].meshes[0].texture, 9);
        assert_eq!(
            after.objects[0].meshes[0].positions,
            before.objects[0].meshes[0].positions
        );
        if !before.scm && label.starts_with("real") {
            let (got, after) = check("bone", &["--add-bone", "mod_1", "new_leaf"], None, &[]);
            assert_eq!(after.bones, before.bones + 1);
            assert_eq!(&got.bytes[got.bytes.len() - 3..], &[0x12, 0, 0]);
        }
    }
    println!("quantisation of unedited vertices in edited meshes: {quant:?}");
    assert_eq!(
        quant,
        Quantisation {
            vertices: quant.vertices,
            ..Quantisation::default()
        }
    );
    assert!(quant.vertices > 0);
    common::validate(&glbs);
}

/// `objectI_meshJ` (a `.001` copy: the mesh after the last) as (I, J).
fn parse_mesh(name: &str) -> (usize, usize) {
    let rest = name.strip_prefix("object").unwrap();
    let (o, m) = rest.split_once("_mesh").unwrap();
    match m.split_once('.') {
        Some(_) => (o.parse().unwrap(), usize::MAX),
        None => (o.parse().unwrap(), m.parse().unwrap()),
    }
}

/// The largest change of an unedited vertex of an edited mesh (one within 0.01 cm of an
/// original vertex, the edits moving vertices by centimetres): position (cm), UV and, when
/// the weights were not the edit, weight share.
#[derive(Debug, Default, PartialEq)]
struct Quantisation {
    vertices: usize,
    position: f64,
    uv: f64,
    weight: f64,
}

impl Quantisation {
    fn measure(&mut self, before: &reader::RMesh, after: &reader::RMesh, weights: bool) {
        let dist = |a: [f32; 3], b: [f32; 3]| -> f64 {
            (0..3)
                .map(|c| (a[c] as f64 - b[c] as f64).abs())
                .fold(0.0, f64::max)
        };
        for v in 0..after.positions.len() {
            let b = after.position(v);
            let Some(o) = (0..before.positions.len())
                .filter(|&o| dist(before.position(o), b) <= 0.01)
                .min_by(|&x, &y| {
                    dist(before.position(x), b).total_cmp(&dist(before.position(y), b))
                })
            else {
                continue;
            };
            self.vertices += 1;
            self.position = self.position.max(dist(before.position(o), b));
            for c in 0..2 {
                self.uv = self
                    .uv
                    .max((before.uvs[o][c] as f64 - after.uvs[v][c] as f64).abs() / 4096.0);
            }
            if weights && !before.weights.is_empty() {
                let share = |m: &reader::RMesh, v: usize| -> Vec<(u8, f64)> {
                    let i = m.influences(v);
                    let s: f64 = i.iter().map(|x| x.1 as f64).sum();
                    i.iter().map(|x| (x.0, x.1 as f64 / s)).collect()
                };
                let got = share(after, v);
                for (j, w) in share(before, o) {
                    let g = got.iter().filter(|x| x.0 == j).map(|x| x.1).sum::<f64>();
                    self.weight = self.weight.max((g - w).abs());
                }
            }
        }
    }
}

/// Every joint turned in place (rest rotations changed, world positions kept), as Blender's
/// non-default bone-direction import options do: refused with the hint.
#[test]
fn a_rest_pose_turned_in_place_is_refused() {
    use glam::{DQuat, DVec3};
    let data = rigtrip::synth::dmc3::sample_mod();
    let mut d = Doc::export(&data);
    let turn = DQuat::from_rotation_z(0.7) * DQuat::from_rotation_x(0.3);
    let nodes = d.v["nodes"].as_array().unwrap().clone();
    let is_joint = |n: &Value| n["extras"]["rigtrip"].get("joint").is_some();
    let parent_of = |i: usize| {
        nodes.iter().position(|n| {
            n["children"]
                .as_array()
                .is_some_and(|c| c.iter().any(|x| *x == i))
        })
    };
    let q = |n: &Value| {
        let r = n["rotation"]
            .as_array()
            .map(|r| r.iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>());
        r.map_or(DQuat::IDENTITY, |r| {
            DQuat::from_xyzw(r[0], r[1], r[2], r[3])
        })
    };
    let t = |n: &Value| {
        let r = n["translation"]
            .as_array()
            .map(|r| r.iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>());
        r.map_or(DVec3::ZERO, |r| DVec3::new(r[0], r[1], r[2]))
    };
    for (i, n) in nodes.iter().enumerate() {
        if !is_joint(n) {
            continue;
        }
        let joint_parent = parent_of(i).filter(|&p| is_joint(&nodes[p]));
        let (r, tr) = match joint_parent {
            // Children see their parent turned: undo it in their own transform.
            Some(_) => (turn.inverse() * q(n) * turn, turn.inverse() * t(n)),
            None => (q(n) * turn, t(n)),
        };
        d.v["nodes"][i]["rotation"] = json!([r.x, r.y, r.z, r.w]);
        d.v["nodes"][i]["translation"] = json!([tr.x, tr.y, tr.z]);
    }
    let e = import_slice(&d.bytes(), None, &ImportOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "skeleton mod: all 49 joints turned in place (their rest rotations changed, no joint moved): Blender's glTF importer does that when \"Bone Dir\" is not the default; re-import the glTF with the default import settings, redo the edits, and export again"
    );
    // Turning one joint is an edit, and is written.
    let mut d = Doc::export(&data);
    let i = d.joint_node(3);
    let r = q(&d.v["nodes"][i].clone()) * turn;
    d.v["nodes"][i]["rotation"] = json!([r.x, r.y, r.z, r.w]);
    assert!(import_slice(&d.bytes(), None, &ImportOptions::default()).is_ok());
}

/// `--ignore-mesh-edits` refuses a skeleton scaled together with its meshes (an applied
/// armature scale), and says how to undo it.
#[test]
fn ignoring_mesh_edits_refuses_a_scaled_skeleton() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let mut d = Doc::export(&data);
    let scale = 1.5;
    for i in 0..d.v["nodes"].as_array().unwrap().len() {
        if let Some(t) = d.v["nodes"][i]["translation"].as_array().cloned() {
            let t: Vec<f64> = t.iter().map(|x| x.as_f64().unwrap() * scale).collect();
            d.v["nodes"][i]["translation"] = json!(t);
        }
    }
    let accessors: Vec<usize> = d.v["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m["primitives"][0]["attributes"]["POSITION"]
                .as_u64()
                .unwrap() as usize
        })
        .collect();
    for acc in accessors {
        let all = d.read(acc);
        for (k, p) in all.iter().enumerate() {
            d.write(acc, k, &[p[0] * scale, p[1] * scale, p[2] * scale]);
        }
    }
    let opts = ImportOptions {
        ignore_mesh_edits: true,
        ..ImportOptions::default()
    };
    let e = import_slice(&d.bytes(), None, &opts).unwrap_err();
    assert!(
        e.to_string().starts_with("the meshes and the skeleton were scaled together (by 1.5000; an applied armature scale?)"),
        "{e}"
    );
    // Without the option both are written.
    let got = import(&d.bytes(), "scaled");
    assert_eq!(got.report.meshes.status, MeshStatus::Written);
}

/// What the format cannot hold is refused with the mesh named: a vertex weighted to a joint
/// past 63 (bone bytes hold joint × 4), a UV outside s16/4096.
#[test]
fn what_the_format_cannot_hold_is_refused_by_mesh() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let mut d = Doc::export(&data);
    let root = d.joint_node(0);
    for k in 0..16 {
        d.add_leaf(root, &format!("extra_{k}"), [0.0, 0.01, 0.0]);
    }
    let node = d.node("object0_mesh0");
    let p = d.prim(node);
    let j = p["attributes"]["JOINTS_0"].as_u64().unwrap() as usize;
    let w = p["attributes"]["WEIGHTS_0"].as_u64().unwrap() as usize;
    d.write(j, 0, &[64.0, 0.0, 0.0, 0.0]);
    d.write(w, 0, &[1.0, 0.0, 0.0, 0.0]);
    let e = import_slice(&d.bytes(), None, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("mesh object0_mesh0: vertex at (")
            && e.ends_with(") m is weighted to joint 64 (extra_15): a DMC3 vertex stores joint × 4 in a byte, so joints past 63 cannot hold weights"),
        "{e}"
    );

    let data = rigtrip::synth::dmc3::sample_scm();
    let mut d = Doc::export(&data);
    let node = d.node("object0_mesh0");
    let uv = d.prim(node)["attributes"]["TEXCOORD_0"].as_u64().unwrap() as usize;
    d.write(uv, 0, &[9.5, 0.5]);
    let e = import_slice(&d.bytes(), None, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("mesh object0_mesh0: vertex at (")
            && e.ends_with(") m: UV 9.5 is outside what s16/4096 holds (-8 to 7.99976); move the UV island into range"),
        "{e}"
    );
}

/// A material whose name means nothing to DMC3 (another tool's default) changes nothing; a
/// `texture_N` copy's `.001` name still names texture N.
#[test]
fn only_texture_materials_change_the_texture() {
    let data = rigtrip::synth::dmc3::sample_scm();
    let mut d = Doc::export(&data);
    let m = d.add_material("DefaultMaterial");
    for mesh in d.v["meshes"].as_array_mut().unwrap() {
        mesh["primitives"][0]["material"] = json!(m);
    }
    let got = import(&d.bytes(), "default material");
    assert!(got.bytes == data);
    assert_eq!(got.report.meshes.status, MeshStatus::Unchanged);

    let mut d = Doc::export(&data);
    let m = d.add_material("texture_5.001");
    d.v["meshes"][0]["primitives"][0]["material"] = json!(m);
    let got = import(&d.bytes(), "texture copy");
    assert_eq!(reader::read(&got.bytes).objects[0].meshes[0].texture, 5);
    let changed: Vec<usize> = (0..data.len())
        .filter(|&i| data[i] != got.bytes[i])
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
}

/// A mesh added in the glTF, named anything, lands with its weights mapped through its own
/// skin's joint list (here a second skin listing the joints in reverse, as Blender reorders
/// them): in a new object after the last (its record's undecoded fields the last object's),
/// or in object I when named `objectI_...`; more than three influences are cut and reported
/// with the largest weight error. Checked through the independent reader.
#[test]
fn new_meshes_land_with_their_weights() {
    let mut glbs = Vec::new();
    let mut tried = 0;
    for (label, data) in files().into_iter().filter(|(_, d)| &d[0..4] == b"MOD ") {
        let before = reader::read(&data);
        if before.bones < 6 {
            continue;
        }
        tried += 1;
        let mut d = Doc::export(&data);
        let j = usize::from(before.bones) - 2;
        let mut skin = d.v["skins"][0].clone();
        skin["joints"].as_array_mut().unwrap().reverse();
        skin.as_object_mut().unwrap().remove("inverseBindMatrices");
        let joints: Vec<u64> = skin["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        let slot_of = |j: usize, d: &Doc| {
            let n = d.joint_node(j) as u64;
            joints.iter().position(|&x| x == n).unwrap() as u8
        };
        let slot = slot_of(j, &d);
        d.v["skins"].as_array_mut().unwrap().push(skin);
        let own = d.v["skins"].as_array().unwrap().len() - 1;
        let sword = d.add_box("sword", [0.1, 1.0, 0.05], Some(own), &[(slot, 1.0)]);
        // Five influences on object 0: the two smallest dropped.
        let five: Vec<(u8, f32)> = [(1, 0.4), (2, 0.2), (3, 0.2), (4, 0.1), (5, 0.1)]
            .iter()
            .map(|&(k, w)| (slot_of(k, &d), w))
            .collect();
        d.add_box("object0_belt", [-0.1, 0.5, 0.0], Some(own), &five);
        let got = import(&d.bytes(), &label);
        let after = reader::read(&got.bytes);
        let text = got.report.render_text();
        let n = before.objects.len();
        assert_eq!(after.objects.len(), n + 1, "{label}: a new object\n{text}");

        // The sword: the new object's only mesh, every vertex on joint j alone.
        let new = &after.objects[n];
        assert_eq!(new.meshes.len(), 1, "{label}");
        let m = &new.meshes[0];
        let tris = m.triangles();
        assert_eq!(tris.len(), 12, "{label}");
        for v in 0..m.positions.len() {
            assert_eq!(m.influences(v), vec![(j as u8, 31)], "{label}: vertex {v}");
            let p = m.position(v);
            assert!(
                sword.iter().any(|c| close(
                    [p[0] as f64, p[1] as f64, p[2] as f64],
                    c.map(|x| x * 100.0),
                    1e-3
                )),
                "{label}: vertex {p:?} is no corner"
            );
        }
        let last = &before.objects[n - 1].record_rest;
        assert_eq!(new.record_rest[4..8], last[4..8], "{label}: unknown_04");
        assert_eq!(
            new.record_rest[0x10..0x30],
            last[0x10..0x30],
            "{label}: flags, unknown_14"
        );
        assert_eq!(new.record_rest[0], 1, "{label}: mesh count");

        // The belt: object 0's new last mesh, the three largest influences as 15:8:8.
        let k = before.objects[0].meshes.len();
        let belt = &after.objects[0].meshes[k];
        for v in 0..belt.positions.len() {
            assert_eq!(
                belt.influences(v),
                vec![(1, 15), (2, 8), (3, 8)],
                "{label}: belt {v}"
            );
        }
        let w = got.report.meshes.written.as_ref().unwrap();
        let line = |name: &str| w.meshes.iter().find(|m| m.name == name).unwrap();
        let (s, b) = (line("sword"), line("object0_belt"));
        assert_eq!(
            (s.change.as_str(), s.native.clone()),
            ("added", format!("object {n} mesh 0"))
        );
        assert_eq!(s.object_from, Some(n - 1));
        assert_eq!(
            (s.lost_weight, s.influences_dropped, s.weight_error),
            (0, 0, Some(0.0))
        );
        assert_eq!(b.native, format!("object 0 mesh {k}"));
        assert_eq!(b.object_from, None);
        // 8 corners with five influences, two dropped each (their weight 0.1 is the largest
        // error: 15/31 is 0.084 off 0.4).
        assert_eq!((b.lost_weight, b.influences_dropped), (8, 16));
        let e = b.weight_error.unwrap();
        assert!((e - 0.1).abs() < 1e-6, "{label}: weight error {e}");
        assert!(
            text.contains(&format!("mesh sword (object {n} mesh 0): added")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "object {n} is new (for mesh sword): its record's undecoded fields are object {}'s",
                n - 1
            )),
            "{text}"
        );
        common_checks(&label, &before, &after, &[(0, k)], &got, &mut glbs);
    }
    assert!(tried >= 5, "only {tried} files");
}

/// Nodes with geometry the import does not use (not skinned to the rig, skinned to another
/// armature) are named in the report; the file is written as if they were not there.
#[test]
fn unused_geometry_is_named() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let mut d = Doc::export(&data);
    d.add_box("prop", [0.0, 1.0, 0.0], None, &[]);
    let n = d.v["nodes"].as_array().unwrap().len();
    d.v["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "other_root"}));
    d.v["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({"joints": [n]}));
    let other = d.v["skins"].as_array().unwrap().len() - 1;
    d.add_box("other_body", [0.0, 1.0, 0.0], Some(other), &[(0, 1.0)]);
    let got = import(&d.bytes(), "unused");
    assert!(got.bytes == data, "nothing else changed");
    assert_eq!(got.report.meshes.status, MeshStatus::Unchanged);
    let names: Vec<(&str, &str)> = got
        .report
        .meshes
        .ignored
        .iter()
        .map(|x| (x.name.as_str(), x.reason.as_str()))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(names[0].0, "prop");
    assert!(
        names[0].1.starts_with("not skinned to the rig"),
        "{names:?}"
    );
    assert_eq!(names[1].0, "other_body");
    assert!(
        names[1]
            .1
            .starts_with("skinned to another armature (skin 1"),
        "{names:?}"
    );
    let text = got.report.render_text();
    assert!(text.contains("  NOT USED: node "), "{text}");
    assert!(text.contains("(prop): not skinned to the rig"), "{text}");
    let json = serde_json::to_value(&got.report).unwrap();
    assert_eq!(json["meshes"]["ignored"][1]["name"], "other_body");
}

impl Doc {
    /// The document as a tool without rigtrip's data writes it: every extras gone, and the
    /// rig's own mesh nodes out of the scene (their meshes are replaced).
    fn plain(mut self) -> Doc {
        for n in self.v["nodes"].as_array_mut().unwrap() {
            n.as_object_mut().unwrap().remove("extras");
        }
        for key in ["scenes", "meshes"] {
            for x in self.v[key].as_array_mut().unwrap() {
                x.as_object_mut().unwrap().remove("extras");
            }
        }
        let nodes = self.v["nodes"].clone();
        self.v["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .retain(|n| nodes[n.as_u64().unwrap() as usize].get("mesh").is_none());
        self
    }

    /// The slot of the joint node named `name` in skin 0.
    fn slot(&self, name: &str) -> u8 {
        let n = self.node(name) as u64;
        let joints = self.v["skins"][0]["joints"].as_array().unwrap();
        joints.iter().position(|x| x.as_u64() == Some(n)).unwrap() as u8
    }
}

fn onto(d: &Doc, template: &[u8], map: Option<JointMap>) -> Result<Imported, ImportError> {
    let opts = OntoOptions {
        joint_map: map,
        ..OntoOptions::default()
    };
    import_onto(
        &d.bytes(),
        None,
        NativeFile::read(None, template).unwrap(),
        &opts,
    )
}

/// Checks an `--onto` result: both legs of verify identical, its export lint-clean (written for
/// the validator), the template's skeleton block and object records' undecoded fields kept.
fn onto_checks(label: &str, template: &[u8], got: &Imported, glbs: &mut Vec<PathBuf>) {
    assert!(
        matches!(verify_bytes(None, &got.bytes), Verdict::Identical { .. }),
        "{label}: verify {:?}",
        verify_bytes(None, &got.bytes)
    );
    let (before, after) = (reader::read(template), reader::read(&got.bytes));
    assert_eq!(after.bones, before.bones, "{label}");
    for (o, (a, b)) in after.objects.iter().zip(&before.objects).enumerate() {
        assert_eq!(
            a.record_rest[4..8],
            b.record_rest[4..8],
            "{label}: object {o}"
        );
        assert_eq!(
            a.record_rest[0x10..0x30],
            b.record_rest[0x10..0x30],
            "{label}: object {o}"
        );
    }
    // The block: a 0x20 header, parents, order and groups (n bytes each, 4-aligned), then
    // 0x20-byte records from a 16-aligned start.
    let block = |bytes: &[u8], f: &reader::RFile| {
        let (at, n) = (f.block_offset as usize, usize::from(f.bones));
        let a4 = n.div_ceil(4) * 4;
        bytes[at..at + (0x20 + 3 * a4).div_ceil(16) * 16 + 0x20 * n].to_vec()
    };
    assert_eq!(
        block(&got.bytes, &after),
        block(template, &before),
        "{label}: block"
    );
    exported_clean(label, &got.bytes, "onto", glbs);
}

/// `import --onto`: a glTF without rigtrip data, its meshes replaced by two boxes, onto its
/// template. The boxes land where the glTF's skin draws them on the template's rest pose: at
/// their corners for the export's own bind pose, and also when the glTF's inverse binds put
/// the bind pose 1 m off (vertices authored 1 m off with it), with their weights, read back
/// by the independent reader; every other byte is the template's.
#[test]
fn onto_puts_a_plain_gltf_on_its_template() {
    let mut glbs = Vec::new();
    let mut tried = 0;
    for seed in 0..40u64 {
        let data = rigtrip::synth::dmc3::real_layout(seed, false);
        let before = reader::read(&data);
        let n = before.objects.len();
        // A model whose meshes are all empty exports no mesh: nothing to put on the template.
        let vertices: usize = before
            .objects
            .iter()
            .flat_map(|o| &o.meshes)
            .map(|m| m.positions.len())
            .sum();
        if before.bones < 4
            || n == 0
            || vertices == 0
            || !matches!(verify_bytes(None, &data), Verdict::Identical { .. })
        {
            continue;
        }
        tried += 1;
        for shift in [0.0, 1.0] {
            let label = format!("onto {seed} shift {shift}");
            let mut d = Doc::export(&data).plain();
            if shift != 0.0 {
                // IBM' = IBM · T(-shift x): the glTF binds with every joint `shift` m along x.
                let ibm = d.v["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
                let all = d.read(ibm);
                for (i, m) in all.iter().enumerate() {
                    let mut m = m.clone();
                    for r in 0..3 {
                        m[12 + r] -= shift * m[r];
                    }
                    d.write(ibm, i, &m);
                }
            }
            let (j, j1, j2) = (before.bones as usize - 1, 0usize, 1usize);
            let name = |k: usize| format!("mod_{k}");
            let body = [0.1, 0.9, -0.05];
            let corners = d.add_box(
                "body",
                [body[0] + shift, body[1], body[2]],
                Some(0),
                &[(d.slot(&name(j)), 1.0)],
            );
            let arm = [(d.slot(&name(j1)), 0.75), (d.slot(&name(j2)), 0.25)];
            d.add_box("object0_arm", [-0.2, 1.1, 0.0], Some(0), &arm);
            let got =
                onto(&d, &data, None).unwrap_or_else(|e| panic!("{label}: {}", rigtrip::chain(&e)));
            assert_eq!(got.report.meshes.status, MeshStatus::Replaced);
            let after = reader::read(&got.bytes);
            assert_eq!(after.objects.len(), n + 1, "{label}");
            // Object 0 holds the arm alone, the others nothing, the new object the body.
            assert_eq!(
                after.objects[0].meshes.len(),
                1,
                "{label}\n{}",
                got.report.render_text()
            );
            assert!(
                after.objects[1..n].iter().all(|o| o.meshes.is_empty()),
                "{label}"
            );
            let arm = &after.objects[0].meshes[0];
            for v in 0..arm.positions.len() {
                assert_eq!(
                    arm.influences(v),
                    vec![(j1 as u8, 23), (j2 as u8, 8)],
                    "{label}"
                );
            }
            let m = &after.objects[n].meshes[0];
            assert_eq!(m.triangles().len(), 12, "{label}");
            for v in 0..m.positions.len() {
                assert_eq!(m.influences(v), vec![(j as u8, 31)], "{label}: vertex {v}");
                let p = m.position(v).map(f64::from);
                let at = |c: &[f32; 3]| {
                    [
                        (c[0] as f64 - shift) * 100.0,
                        c[1] as f64 * 100.0,
                        c[2] as f64 * 100.0,
                    ]
                };
                assert!(
                    corners
                        .iter()
                        .any(|c| at(c).iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-3)),
                    "{label}: vertex {p:?} is no corner"
                );
            }
            onto_checks(&label, &data, &got, &mut glbs);
        }
    }
    assert!(tried >= 5, "only {tried} templates");
    common::validate(&glbs);
}

/// A third-party skinned sample is refused, naming its joints (unnamed ones by node, as a
/// joint map key), never a panic; with a joint map it lands.
#[test]
fn onto_refuses_foreign_joints_by_name() {
    let data = rigtrip::synth::dmc3::real_layout(2, false);
    let bones = usize::from(reader::read(&data).bones);
    assert!(bones >= 4);
    let sample = |f: &str| {
        let path = common::repo().join("tests/data/sample-assets").join(f);
        std::fs::read(path).unwrap()
    };
    let template = || NativeFile::read(None, &data).unwrap();
    let figure = sample("RiggedFigure.gltf");
    let err = import_onto(&figure, None, template(), &OntoOptions::default()).unwrap_err();
    let ImportError::Unmatched(u) = &err else {
        panic!("{err}")
    };
    let names: Vec<&str> = u.0.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names.len(), 19, "{names:?}");
    assert!(
        names.contains(&"torso_joint_1") && names.contains(&"neck_joint_2"),
        "{names:?}"
    );
    assert!(u
        .0
        .iter()
        .all(|x| x.closest_names.len() == 3 && x.nearest.is_some()));
    let text = err.to_string();
    assert!(text.starts_with("19 joint(s) of the glTF carry weights but match no joint of the template by name: \"torso_joint_1\" (node 2) [closest names: "), "{text}");

    let simple = sample("SimpleSkin.gltf");
    let err = import_onto(&simple, None, template(), &OntoOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("node 1 (unnamed: map it as \"#1\")"),
        "{err}"
    );

    // Mapped (every joint to a template joint by index, the unnamed by node), both land.
    let map: String = names
        .iter()
        .enumerate()
        .map(|(k, n)| format!("\"{n}\": {}", k % bones))
        .collect::<Vec<_>>()
        .join(", ");
    let opts = OntoOptions {
        joint_map: Some(JointMap::from_json(&format!("{{{map}}}")).unwrap()),
        ..OntoOptions::default()
    };
    let mut glbs = Vec::new();
    let got = import_onto(&figure, None, template(), &opts).unwrap();
    onto_checks("onto figure", &data, &got, &mut glbs);
    let opts = OntoOptions {
        joint_map: Some(JointMap::from_json(r##"{"#1": "mod_0", "#2": 1}"##).unwrap()),
        ..OntoOptions::default()
    };
    let got = import_onto(&simple, None, template(), &opts).unwrap();
    onto_checks("onto simple", &data, &got, &mut glbs);
    let after = reader::read(&got.bytes);
    let m = after.objects.iter().flat_map(|o| &o.meshes).next().unwrap();
    assert!((0..m.positions.len()).all(|v| m.influences(v).iter().all(|x| x.0 <= 1)));
    common::validate(&glbs);

    // A map naming no template joint is refused.
    let opts = OntoOptions {
        joint_map: Some(JointMap::from_json(r#"{"torso_joint_1": "nope"}"#).unwrap()),
        ..OntoOptions::default()
    };
    let err = import_onto(&figure, None, template(), &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "joint map: \"torso_joint_1\" -> \"nope\": the template has no such joint"
    );
}

/// `import --onto` of what Blender's own exporter writes without custom properties: a box
/// added under another name and weighted to one bone, the rig's meshes too, onto the template.
#[test]
#[ignore = "needs Blender (tools/blender-python installs it, about 400 MB); run with --include-ignored"]
fn onto_takes_blender_without_custom_properties() {
    let data = rigtrip::synth::dmc3::real_layout(3, false);
    let before = reader::read(&data);
    let j = usize::from(before.bones) - 1;
    let bone = format!("mod_{j}");
    let d = through_blender(&data, "onto", &["--add-mesh", "sword", &bone, "--plain"]);
    assert!(
        d.v["scenes"][0].get("extras").is_none(),
        "exported without custom properties"
    );
    let got = onto(&d, &data, None).unwrap_or_else(|e| panic!("{}", rigtrip::chain(&e)));
    let after = reader::read(&got.bytes);
    let n = before.objects.len();
    assert_eq!(after.objects.len(), n + 1, "{}", got.report.render_text());
    let sword = &after.objects[n].meshes[0];
    assert_eq!(sword.triangles().len(), 12);
    for v in 0..sword.positions.len() {
        assert_eq!(sword.influences(v), vec![(j as u8, 31)], "vertex {v}");
    }
    // The rig's own meshes came back from the glTF with their weights: each corner of a
    // triangle within Blender's float noise of one with the same joints, both ways, weights
    // the same shares to within one step (the generator's weights need not sum to 31; the
    // import's do).
    for (o, obj) in before.objects.iter().enumerate() {
        for (k, mesh) in obj.meshes.iter().enumerate() {
            let (a, b) = (corners_of(mesh), corners_of(&after.objects[o].meshes[k]));
            let near = |x: &Corner, ys: &[Corner]| {
                ys.iter().any(|y| {
                    same_shares(&x.1, &y.1)
                        && x.0.iter().zip(y.0).all(|(p, q)| (p - q).abs() < BLENDER_CM)
                })
            };
            assert!(
                a.iter().all(|x| near(x, &b)),
                "object {o} mesh {k}: {a:?} vs {b:?}"
            );
            assert!(
                b.iter().all(|x| near(x, &a)),
                "object {o} mesh {k}: {a:?} vs {b:?}"
            );
        }
    }
    let mut glbs = Vec::new();
    onto_checks("onto blender", &data, &got, &mut glbs);
    common::validate(&glbs);
}

/// The corners of a mesh's triangles: position (cm) and (joint, weight/31) influences by joint.
fn corners_of(m: &reader::RMesh) -> Vec<Corner> {
    m.triangles()
        .iter()
        .flatten()
        .map(|&v| {
            // A joint named twice is one influence (as any glTF reader sums them).
            let mut inf: Vec<(u8, f64)> = Vec::new();
            for (j, w) in m.influences(v) {
                match inf.iter_mut().find(|e| e.0 == j) {
                    Some(e) => e.1 += f64::from(w),
                    None => inf.push((j, f64::from(w))),
                }
            }
            inf.sort_by_key(|x| x.0);
            (m.position(v).map(f64::from), inf)
        })
        .collect()
}

/// Whether two influence lists name the same joints with the same shares of their total, to
/// within one 5-bit step.
fn same_shares(a: &[(u8, f64)], b: &[(u8, f64)]) -> bool {
    let total = |x: &[(u8, f64)]| x.iter().map(|e| e.1).sum::<f64>();
    let (ta, tb) = (total(a), total(b));
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && (x.1 / ta - y.1 / tb).abs() <= 1.0 / 31.0 + 1e-9)
}

/// A new mesh that is not skinned but hangs under a joint (Blender: parented to a bone) moves
/// with that joint alone: every vertex on it with weight 31, where the glTF's rest pose puts it.
#[test]
fn a_mesh_under_a_bone_is_bound_to_it() {
    let data = rigtrip::synth::dmc3::sample_mod();
    let before = reader::read(&data);
    let mut d = Doc::export(&data);
    let j = 5;
    let parent = d.joint_node(j);
    let corners = d.add_box("buckle", [0.0, 0.0, 0.0], None, &[]);
    let node = d.v["nodes"].as_array().unwrap().len() - 1;
    d.v["scenes"][0]["nodes"].as_array_mut().unwrap().pop();
    let p = &mut d.v["nodes"][parent];
    if p.get("children").is_none() {
        p["children"] = json!([]);
    }
    p["children"].as_array_mut().unwrap().push(json!(node));
    let got = import(&d.bytes(), "buckle");
    assert!(
        got.report.meshes.ignored.is_empty(),
        "{:?}",
        got.report.meshes.ignored
    );
    let after = reader::read(&got.bytes);
    let n = before.objects.len();
    let m = &after.objects[n].meshes[0];
    assert_eq!(m.triangles().len(), 12);
    // The box's corners where the joint's rest world matrix puts them (native centimetres).
    let rig = rig::lift(NativeFile::read(None, &data).unwrap());
    let world = rig.skeletons[0].world_matrices().unwrap()[j];
    for v in 0..m.positions.len() {
        assert_eq!(m.influences(v), vec![(j as u8, 31)], "vertex {v}");
        let p = m.position(v).map(f64::from);
        assert!(
            corners.iter().any(|c| {
                let q = world.transform_point3(glam::DVec3::new(
                    f64::from(c[0]) * 100.0,
                    f64::from(c[1]) * 100.0,
                    f64::from(c[2]) * 100.0,
                ));
                q.to_array()
                    .iter()
                    .zip(p)
                    .all(|(a, b)| (a - b).abs() < 1e-3)
            }),
            "vertex {p:?}"
        );
    }
}

/// In a file without a skeleton (SCM stage geometry) a new unskinned mesh is the file's: it
/// lands in a new object, its vertices where the glTF puts them.
#[test]
fn a_new_stage_mesh_gets_its_own_object() {
    let data = rigtrip::synth::dmc3::sample_scm();
    let before = reader::read(&data);
    let mut d = Doc::export(&data);
    let corners = d.add_box("rock", [0.5, 0.0, -0.25], None, &[]);
    let got = import(&d.bytes(), "rock");
    assert!(got.report.meshes.ignored.is_empty());
    let after = reader::read(&got.bytes);
    let n = before.objects.len();
    assert_eq!(after.objects.len(), n + 1);
    let m = &after.objects[n].meshes[0];
    assert_eq!(m.triangles().len(), 12);
    for v in 0..m.positions.len() {
        let p = m.position(v).map(f64::from);
        assert!(
            corners
                .iter()
                .any(|c| close(p, c.map(|x| x * 100.0), HERE_CM * 10.0)),
            "vertex {p:?}"
        );
    }
    let mut glbs = Vec::new();
    common_checks("rock", &before, &after, &[], &got, &mut glbs);
}
