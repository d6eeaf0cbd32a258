//! Benchmark: the mesh write-back path. For exportable MODs of about 2,000 vertices: the strip
//! encoder (every mesh's triangles encoded again), the layout pass (read, lay out again,
//! write), and a whole import of a GLB in which one mesh's first vertex moved (so that mesh is
//! rebuilt and the file laid out again), against the import of the unedited GLB. Prints
//! microseconds per file and the strip encoder's size: stored vertices per triangle, against
//! 3 for one strip per triangle.
//!
//! Knobs (environment): RIGTRIP_BENCH_FILES (100), RIGTRIP_BENCH_REPS (3).

mod common;
use common::env_usize;

use std::time::{Duration, Instant};

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export, to_glb, ExportOptions};
use rigtrip::native::dmc3::layout::relayout;
use rigtrip::native::dmc3::strip::encode_strips;
use rigtrip::native::dmc3::{read_container, write};
use rigtrip::native::NativeFile;
use rigtrip::rig;

/// The GLB with the first triangle's first vertex of the first mesh moved to the middle of the
/// mesh's X range
/// (inside its bounds, so the JSON chunk stays as it is).
fn edited_glb(glb: &[u8]) -> Vec<u8> {
    let len = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = len(12);
    let v: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = 20 + json_len + 8;
    let mesh = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|n| n["mesh"].as_u64())
        .unwrap() as usize;
    let prim = &v["meshes"][mesh]["primitives"][0];
    let start = |acc: &serde_json::Value| {
        let view = &v["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        bin + view["byteOffset"].as_u64().unwrap_or(0) as usize
            + acc["byteOffset"].as_u64().unwrap_or(0) as usize
    };
    // The first corner of the first triangle: a vertex a triangle uses (others are not compared).
    let indices = &v["accessors"][prim["indices"].as_u64().unwrap() as usize];
    let i = start(indices);
    let first = match indices["componentType"].as_u64().unwrap() {
        5125 => u32::from_le_bytes(glb[i..i + 4].try_into().unwrap()) as usize,
        _ => u16::from_le_bytes(glb[i..i + 2].try_into().unwrap()) as usize,
    };
    let acc = &v["accessors"][prim["attributes"]["POSITION"].as_u64().unwrap() as usize];
    let at = start(acc) + 12 * first;
    let mid = (acc["min"][0].as_f64().unwrap() + acc["max"][0].as_f64().unwrap()) / 2.0;
    let mut out = glb.to_vec();
    out[at..at + 4].copy_from_slice(&(mid as f32).to_le_bytes());
    out
}

fn main() {
    let n = env_usize("RIGTRIP_BENCH_FILES", 100);
    let reps = env_usize("RIGTRIP_BENCH_REPS", 3).max(1);
    let files: Vec<Vec<u8>> = (0..n as u64)
        .map(|s| rigtrip::synth::dmc3::random_mod_sized(s, 2000))
        .collect();
    let glbs: Vec<Vec<u8>> = files
        .iter()
        .map(|f| {
            let rig = rig::lift(NativeFile::read(None, f).unwrap());
            to_glb(&export(&rig, &ExportOptions::default()).unwrap()).unwrap()
        })
        .collect();
    let edited: Vec<Vec<u8>> = glbs.iter().map(|g| edited_glb(g)).collect();
    let triangles: Vec<Vec<Vec<[u32; 3]>>> = files
        .iter()
        .map(|f| {
            let c = read_container(f).unwrap().container.unwrap();
            c.objects
                .iter()
                .flat_map(|o| o.meshes.iter().map(|m| m.triangles()))
                .collect()
        })
        .collect();

    let mut best = [Duration::MAX; 4];
    let (mut tris, mut stored) = (0usize, 0usize);
    for _ in 0..reps {
        let mut t = [Duration::ZERO; 4];
        let start = Instant::now();
        tris = 0;
        stored = 0;
        for mesh in triangles.iter().flatten() {
            let s = encode_strips(mesh);
            tris += mesh.len();
            stored += s.sequence.len();
        }
        t[0] = start.elapsed();
        let start = Instant::now();
        for f in &files {
            let mut d = read_container(f).unwrap();
            let c = d.container.as_mut().unwrap();
            relayout(&mut c.header, &mut c.objects, d.block.as_mut(), &mut d.gaps).unwrap();
            d.gaps.sort_by_key(|g| g.offset);
            std::hint::black_box(write(&d).unwrap());
        }
        t[1] = start.elapsed();
        let start = Instant::now();
        for g in &glbs {
            std::hint::black_box(import_slice(g, None, &ImportOptions::default()).unwrap());
        }
        t[2] = start.elapsed();
        let start = Instant::now();
        for g in &edited {
            let got = import_slice(g, None, &ImportOptions::default()).unwrap();
            assert!(got.report.meshes.written.is_some());
            std::hint::black_box(got);
        }
        t[3] = start.elapsed();
        for (b, x) in best.iter_mut().zip(t) {
            *b = (*b).min(x);
        }
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
    println!("{n} MODs of ~2000 vertices, best of {reps}:");
    println!(
        "  strip encoding      {:9.1} us/file  ({tris} triangles -> {stored} stored vertices, {:.2} per triangle; one strip per triangle: 3)",
        per(best[0]),
        stored as f64 / tris.max(1) as f64
    );
    println!("  relayout + write    {:9.1} us/file", per(best[1]));
    println!("  import, unedited    {:9.1} us/file", per(best[2]));
    println!(
        "  import, one mesh edited and written back {:9.1} us/file",
        per(best[3])
    );
}
