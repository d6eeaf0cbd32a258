//! The preview GLB: the input document plus one animation that plays the timeline's clips in
//! sequence at their rates, so the gait can be watched in Blender.
//!
//! The new animation is resampled at [`PREVIEW_FPS`] with LINEAR interpolation: each clip
//! segment maps its played clip time linearly onto its real time span (its mean rate), standing
//! holds the neighbouring clip's pose, and the root joint's translation is carried over from one
//! clip to the next in the ground plane (x and z; y as authored) so the mech travels instead of
//! snapping back to the origin every stride. The input JSON is edited as a generic JSON value so
//! that nothing the typed model does not know is lost; all buffers are merged into the GLB's
//! binary chunk and external images are embedded when they can be read.

use std::collections::BTreeMap;
use std::path::Path;

use glam::DMat4;
use serde_json::{json as j, Map, Value};

use super::doc::{self, Doc};
use super::loader::{track, Track};
use super::machine::Segment;
use super::{GaitError, GaitReport};
use rigtrip_gltf::anim;
use rigtrip_gltf::glb::{self, GlbError};
use rigtrip_gltf::player::Blend;

/// Samples per second of the preview animation.
pub const PREVIEW_FPS: f64 = 30.0;
/// Name of the added animation (a number is appended when the name is taken).
pub const PREVIEW_NAME: &str = "rigtrip gait preview";
/// Most output floats the preview may hold (bounds memory for long timelines on big rigs).
const MAX_FLOATS: usize = 40_000_000;

fn err(s: impl Into<String>) -> GaitError {
    GaitError::Preview(s.into())
}

/// A (node, path) the preview animates; path 0 translation, 1 rotation, 2 scale.
type Target = (usize, u8);

fn path_code(p: Option<&str>) -> Option<u8> {
    match p {
        Some("translation") => Some(0),
        Some("rotation") => Some(1),
        Some("scale") => Some(2),
        _ => None,
    }
}

fn width(path: u8) -> usize {
    if path == 1 {
        4
    } else {
        3
    }
}

/// `n` numbers under `key` of `node`, each rounded to f32 as the typed model reads them.
fn floats(node: &Value, key: &str, n: usize) -> Option<Vec<f64>> {
    let a = node.get(key)?.as_array()?;
    if a.len() != n {
        return None;
    }
    a.iter()
        .map(|x| x.as_f64().map(|x| f64::from(x as f32)))
        .collect()
}

/// A node's rest translation, rotation and scale.
fn rest(doc: &Doc, node: usize) -> [Vec<f64>; 3] {
    let mut t = vec![0.0; 3];
    let mut r = vec![0.0, 0.0, 0.0, 1.0];
    let mut s = vec![1.0; 3];
    if let Some(n) = doc.array("nodes").get(node) {
        if let Some(m) = floats(n, "matrix", 16) {
            let m = DMat4::from_cols_slice(&m);
            let (sc, rot, tr) = m.to_scale_rotation_translation();
            if sc.is_finite() && rot.is_finite() && tr.is_finite() {
                t = tr.to_array().to_vec();
                r = rot.to_array().to_vec();
                s = sc.to_array().to_vec();
            }
        }
        if let Some(v) = floats(n, "translation", 3) {
            t = v;
        }
        if let Some(q) = floats(n, "rotation", 4) {
            r = q;
        }
        if let Some(v) = floats(n, "scale", 3) {
            s = v;
        }
    }
    [t, r, s]
}

/// The track's value at time `t` (clamped to its keyframes), as glTF interpolates it.
fn sample(track: &Track, t: f64, rotation: bool) -> Option<Vec<f64>> {
    let blend = if rotation { Blend::Slerp } else { Blend::Lerp };
    track.keys().play(t, blend)
}

/// Where a pose comes from: a clip segment's animation at a clip time, plus a root offset.
#[derive(Clone, Copy)]
struct Pose {
    animation: usize,
    time: f64,
    offset: [f64; 3],
}

/// Builds the preview: `input` plus one animation playing `report`'s timeline.
pub fn preview_glb(
    input: &[u8],
    base_dir: Option<&Path>,
    report: &GaitReport,
) -> Result<Vec<u8>, GaitError> {
    let (doc, json) = doc::load(input, base_dir)?;
    let sim = report
        .simulation
        .as_ref()
        .ok_or_else(|| err("the report has no timeline: give a demand (--demand)"))?;
    if let Some(why) = &sim.refused {
        return Err(err(format!("the machine did not run: {why}")));
    }
    let timeline = &sim.timeline;
    if !timeline.iter().any(|s| s.clip.is_some()) {
        return Err(err("the timeline plays no clip"));
    }
    let starts = clip_starts(&doc, report, timeline)?;
    let (tracks, targets, skipped_weights) = decode_tracks(&doc, &starts)?;
    let root = report.root_joint.as_ref().map(|r| r.node);
    let root_track = |a: usize| root.and_then(|n| tracks.get(&(a, (n, 0))));
    let poses = segment_poses(timeline, &starts, root_track);
    let hold = hold_poses(&poses);
    let times = sample_times(timeline, &targets)?;
    let sampled = Sampled {
        timeline,
        poses: &poses,
        hold: &hold,
        tracks: &tracks,
        root,
    };
    let outputs = sampled.outputs(&doc, &times, &targets)?;
    let extras = preview_extras(sim, skipped_weights);
    assemble(&doc, json, base_dir, &times, &targets, &outputs, extras)
}

/// Each animation the timeline plays with the time its clip starts at, after checking that the
/// report describes this very file (the same animation names at the same indices).
fn clip_starts(
    doc: &Doc,
    report: &GaitReport,
    timeline: &[Segment],
) -> Result<BTreeMap<usize, f64>, GaitError> {
    let mut starts: BTreeMap<usize, f64> = BTreeMap::new();
    for s in timeline {
        let Some(a) = s.animation else { continue };
        if doc.array("animations").get(a).is_none() {
            return Err(err(format!(
                "animation {a} of the report is not in the file"
            )));
        }
        let name = doc::name(doc, "animations", a);
        if name != s.animation_name {
            return Err(err(format!(
                "animation {a} is {:?} in the file but {:?} in the report",
                name, s.animation_name
            )));
        }
        let start = report
            .slots
            .iter()
            .filter_map(|sl| sl.clip.as_ref())
            .find(|c| c.animation == a)
            .and_then(|c| c.start)
            .unwrap_or(0.0);
        starts.insert(a, start);
    }
    Ok(starts)
}

/// Decoded tracks per animation played and target, the targets sorted, and whether a morph
/// weight channel was skipped.
type Decoded = (BTreeMap<(usize, Target), Track>, Vec<Target>, bool);

/// Decodes every channel of every clip played.
fn decode_tracks(doc: &Doc, starts: &BTreeMap<usize, f64>) -> Result<Decoded, GaitError> {
    let mut tracks: BTreeMap<(usize, Target), Track> = BTreeMap::new();
    let mut targets: Vec<Target> = Vec::new();
    let mut skipped_weights = false;
    for &a in starts.keys() {
        let Some(anim) = doc.array("animations").get(a) else {
            continue;
        };
        for ch in anim::channels(anim) {
            let ci = ch.index;
            let Some(path) = path_code(ch.path) else {
                skipped_weights = true;
                continue;
            };
            let node = ch.node.unwrap_or(usize::MAX);
            if node >= doc.array("nodes").len() {
                return Err(err(format!(
                    "animation {a} channel {ci}: node {node} does not exist"
                )));
            }
            let t = track(doc, anim, ch)
                .map_err(|e| err(format!("animation {a} channel {ci}: {e}")))?;
            if t.values.width != width(path) {
                return Err(err(format!(
                    "animation {a} channel {ci}: {} components per value",
                    t.values.width
                )));
            }
            if !targets.contains(&(node, path)) {
                targets.push((node, path));
            }
            tracks.entry((a, (node, path))).or_insert(t);
        }
    }
    targets.sort_unstable();
    Ok((tracks, targets, skipped_weights))
}

/// The pose each segment shows at its start and end, with the root carried over from one clip
/// to the next (no poses for a standing segment).
fn segment_poses<'t>(
    timeline: &[Segment],
    starts: &BTreeMap<usize, f64>,
    root_track: impl Fn(usize) -> Option<&'t Track>,
) -> Vec<(Option<Pose>, Option<Pose>)> {
    let mut poses: Vec<(Option<Pose>, Option<Pose>)> = Vec::with_capacity(timeline.len());
    let mut carried: Option<[f64; 3]> = None;
    for s in timeline {
        let Some(a) = s.animation else {
            poses.push((None, None));
            continue;
        };
        let t0 = starts.get(&a).copied().unwrap_or(0.0);
        let mut offset = [0.0; 3];
        if let Some(tr) = root_track(a) {
            let first = sample(tr, t0, false).unwrap_or_else(|| vec![0.0; 3]);
            if let Some(p) = carried {
                offset = [
                    p[0] - first.first().copied().unwrap_or(0.0),
                    0.0,
                    p[2] - first.get(2).copied().unwrap_or(0.0),
                ];
            }
            let last = sample(tr, t0 + s.played, false).unwrap_or_else(|| vec![0.0; 3]);
            carried = Some([
                last.first().copied().unwrap_or(0.0) + offset[0],
                last.get(1).copied().unwrap_or(0.0),
                last.get(2).copied().unwrap_or(0.0) + offset[2],
            ]);
        }
        poses.push((
            Some(Pose {
                animation: a,
                time: t0,
                offset,
            }),
            Some(Pose {
                animation: a,
                time: t0 + s.played,
                offset,
            }),
        ));
    }
    poses
}

/// Per segment, the pose a standing segment holds: the previous clip's end pose, or at the
/// start the next clip's start pose.
fn hold_poses(poses: &[(Option<Pose>, Option<Pose>)]) -> Vec<Option<Pose>> {
    let mut hold: Vec<Option<Pose>> = vec![None; poses.len()];
    let mut prev: Option<Pose> = None;
    for (i, p) in poses.iter().enumerate() {
        match p {
            (Some(_), end) => prev = *end,
            (None, _) => {
                if let Some(h) = hold.get_mut(i) {
                    *h = prev;
                }
            }
        }
    }
    let mut next: Option<Pose> = None;
    for (i, p) in poses.iter().enumerate().rev() {
        match p {
            (start @ Some(_), _) => next = *start,
            (None, _) => {
                if let Some(h) = hold.get_mut(i) {
                    if h.is_none() {
                        *h = next;
                    }
                }
            }
        }
    }
    hold
}

/// The sampling grid over the timeline at [`PREVIEW_FPS`], with the end added when it falls
/// between two frames; refused when the preview would hold more than [`MAX_FLOATS`] numbers.
fn sample_times(timeline: &[Segment], targets: &[Target]) -> Result<Vec<f32>, GaitError> {
    // The sampling grid.
    let end = timeline.last().map(|s| s.end).unwrap_or(0.0);
    let n = (end * PREVIEW_FPS).floor().max(0.0) as usize;
    let floats = (n + 2).saturating_mul(targets.iter().map(|t| width(t.1)).sum::<usize>().max(1));
    if floats > MAX_FLOATS {
        return Err(err(format!(
            "the preview would hold {floats} numbers; shorten the demand timeline"
        )));
    }
    let mut times: Vec<f32> = (0..=n).map(|i| (i as f64 / PREVIEW_FPS) as f32).collect();
    if let Some(&l) = times.last() {
        if (end as f32) > l {
            times.push(end as f32);
        }
    }
    Ok(times)
}

/// What the timeline shows, ready to sample: segments, their poses and holds, the decoded
/// tracks and the root joint.
struct Sampled<'a> {
    timeline: &'a [Segment],
    poses: &'a [(Option<Pose>, Option<Pose>)],
    hold: &'a [Option<Pose>],
    tracks: &'a BTreeMap<(usize, Target), Track>,
    root: Option<usize>,
}

impl Sampled<'_> {
    /// Per target, its values at every time of the grid.
    fn outputs(
        &self,
        doc: &Doc,
        times: &[f32],
        targets: &[Target],
    ) -> Result<Vec<Vec<f32>>, GaitError> {
        let Sampled {
            timeline,
            poses,
            hold,
            tracks,
            root,
        } = *self;
        let rests: BTreeMap<usize, [Vec<f64>; 3]> = targets
            .iter()
            .map(|&(node, _)| (node, rest(doc, node)))
            .collect();
        let mut outputs: Vec<Vec<f32>> = vec![Vec::with_capacity(times.len() * 4); targets.len()];
        let mut seg = 0usize;
        for &tf in times {
            let t = f64::from(tf);
            while seg + 1 < timeline.len() && timeline.get(seg).is_some_and(|s| t >= s.end) {
                seg += 1;
            }
            let Some(s) = timeline.get(seg) else { break };
            let pose = match poses.get(seg) {
                Some((Some(p), _)) => Some(local_pose(s, *p, t)),
                _ => hold.get(seg).copied().flatten(),
            };
            for (k, &(node, path)) in targets.iter().enumerate() {
                let rotation = path == 1;
                let mut v = pose
                    .and_then(|p| {
                        tracks
                            .get(&(p.animation, (node, path)))
                            .and_then(|tr| sample(tr, p.time, rotation))
                            .map(|mut v| {
                                if Some(node) == root && path == 0 {
                                    for (x, o) in v.iter_mut().zip(p.offset) {
                                        *x += o;
                                    }
                                }
                                v
                            })
                    })
                    .or_else(|| {
                        rests
                            .get(&node)
                            .and_then(|r| r.get(usize::from(path)))
                            .cloned()
                    })
                    .unwrap_or_else(|| vec![0.0; width(path)]);
                // Root standing before any clip gets the carried position of its hold pose too.
                if Some(node) == root
                    && path == 0
                    && pose.is_some()
                    && !tracks_has(tracks, pose, node)
                {
                    if let Some(p) = pose {
                        for (x, o) in v.iter_mut().zip(p.offset) {
                            *x += o;
                        }
                    }
                }
                let out = outputs
                    .get_mut(k)
                    .ok_or_else(|| err("internal: output index"))?;
                if rotation {
                    // Keep consecutive quaternions in one hemisphere so LINEAR takes the short way.
                    let n = out.len();
                    if n >= 4 {
                        let dot: f64 = out[n - 4..]
                            .iter()
                            .zip(&v)
                            .map(|(a, b)| f64::from(*a) * b)
                            .sum();
                        if dot < 0.0 {
                            v.iter_mut().for_each(|x| *x = -*x);
                        }
                    }
                }
                out.extend(v.iter().map(|&x| x as f32));
            }
        }
        Ok(outputs)
    }
}

/// The preview's scene extras: the demand, the frame rate, the clips played and what was
/// skipped.
fn preview_extras(sim: &crate::machine::Simulation, skipped_weights: bool) -> Value {
    let timeline = &sim.timeline;
    let clips: Vec<Value> = timeline
        .iter()
        .filter_map(|s| s.clip.map(|c| j!([s.start, c, s.mean_rate])))
        .collect();
    let demand: Vec<String> = sim
        .demand
        .iter()
        .map(|p| format!("{}:{}", p[0], p[1]))
        .collect();
    let extras = j!({"rigtrip": {"gaitPreview": {
        "demand": demand.join(","),
        "fps": PREVIEW_FPS,
        "clips": clips,
        "skipped": if skipped_weights { "morph weight channels" } else { "" },
    }}});
    extras
}

fn tracks_has(tracks: &BTreeMap<(usize, Target), Track>, pose: Option<Pose>, node: usize) -> bool {
    pose.is_some_and(|p| tracks.contains_key(&(p.animation, (node, 0))))
}

/// The pose of clip segment `s` at real time `t`: its played clip time mapped linearly.
fn local_pose(s: &Segment, p: Pose, t: f64) -> Pose {
    let span = s.end - s.start;
    let u = if span > 0.0 {
        ((t - s.start) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Pose {
        time: p.time + u * s.played,
        ..p
    }
}

fn align4(bin: &mut Vec<u8>) {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
}

fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0x89, b'P', b'N', b'G']) {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else {
        None
    }
}

/// The array `obj[key]`, created (or replaced, when it is not an array) as needed.
fn array<'a>(obj: &'a mut Map<String, Value>, key: &str) -> Result<&'a mut Vec<Value>, GaitError> {
    let v = obj
        .entry(key.to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !v.is_array() {
        *v = Value::Array(Vec::new());
    }
    v.as_array_mut()
        .ok_or_else(|| err(format!("'{key}' is not an array")))
}

/// Every buffer's data in one BIN (each at a multiple of 4), the buffer views rebased onto it.
fn merge_buffers(doc: &Doc, obj: &mut Map<String, Value>) -> Result<Vec<u8>, GaitError> {
    let mut bin: Vec<u8> = Vec::new();
    let mut bases = Vec::with_capacity(doc.buffers.len());
    for data in doc.buffers.iter().flatten() {
        align4(&mut bin);
        bases.push(bin.len() as u64);
        bin.extend_from_slice(data);
    }
    for (i, view) in array(obj, "bufferViews")?.iter_mut().enumerate() {
        let Some(view) = view.as_object_mut() else {
            return Err(err(format!("bufferView {i} is not an object")));
        };
        let b = view
            .get("buffer")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let base = usize::try_from(b)
            .ok()
            .and_then(|b| bases.get(b))
            .ok_or_else(|| err(format!("bufferView {i}: buffer {b} does not exist")))?;
        let off = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
        view.insert("buffer".into(), j!(0));
        view.insert("byteOffset".into(), j!(base + off));
    }
    Ok(bin)
}

/// External images appended to `bin` and referenced by a buffer view, when they are readable
/// and of a known type; the others keep their URI.
fn embed_images(
    base_dir: Option<&Path>,
    obj: &mut Map<String, Value>,
    bin: &mut Vec<u8>,
) -> Result<(), GaitError> {
    let mut embedded: Vec<(usize, Vec<u8>, &'static str)> = Vec::new();
    if let Some(images) = obj.get("images").and_then(Value::as_array) {
        for (i, im) in images.iter().enumerate() {
            let Some(uri) = im.get("uri").and_then(Value::as_str) else {
                continue;
            };
            if uri.starts_with("data:") {
                continue;
            }
            if let Ok(bytes) = doc::read_uri(uri, base_dir) {
                let mime = im
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .and_then(|m| match m {
                        "image/png" => Some("image/png"),
                        "image/jpeg" => Some("image/jpeg"),
                        "image/webp" => Some("image/webp"),
                        _ => None,
                    })
                    .or_else(|| sniff_mime(&bytes));
                if let Some(mime) = mime {
                    embedded.push((i, bytes, mime));
                }
            }
        }
    }
    for (i, bytes, mime) in embedded {
        align4(bin);
        let offset = bin.len();
        bin.extend_from_slice(&bytes);
        let views = array(obj, "bufferViews")?;
        views.push(j!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        let view = views.len() - 1;
        if let Some(im) = array(obj, "images")?
            .get_mut(i)
            .and_then(Value::as_object_mut)
        {
            im.remove("uri");
            im.insert("bufferView".into(), j!(view));
            im.insert("mimeType".into(), j!(mime));
        }
    }
    Ok(())
}

/// Appends `data` (f32s) to `bin` with a buffer view and an accessor of `count` elements of
/// type `ty` (with its min and max when asked); the accessor's index.
fn push_floats(
    obj: &mut Map<String, Value>,
    bin: &mut Vec<u8>,
    data: &[f32],
    ty: &str,
    count: usize,
    min_max: bool,
) -> Result<usize, GaitError> {
    align4(bin);
    let offset = bin.len();
    for x in data {
        bin.extend_from_slice(&x.to_le_bytes());
    }
    let views = array(obj, "bufferViews")?;
    views.push(j!({"buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4}));
    let view = views.len() - 1;
    let mut acc = j!({"bufferView": view, "componentType": 5126, "count": count, "type": ty});
    if min_max {
        let lo = data.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        acc["min"] = j!([f64::from(lo)]);
        acc["max"] = j!([f64::from(hi)]);
    }
    let accessors = array(obj, "accessors")?;
    accessors.push(acc);
    Ok(accessors.len() - 1)
}

/// The input JSON with buffers merged, images embedded and the preview animation appended.
fn assemble(
    doc: &Doc,
    json: &[u8],
    base_dir: Option<&Path>,
    times: &[f32],
    targets: &[Target],
    outputs: &[Vec<f32>],
    extras: Value,
) -> Result<Vec<u8>, GaitError> {
    let mut v: Value = serde_json::from_slice(json).map_err(|e| GaitError::Json(e.to_string()))?;
    let obj = v
        .as_object_mut()
        .ok_or_else(|| GaitError::Json("the document is not a JSON object".into()))?;
    let used = |name: &str| {
        obj.get(name).and_then(Value::as_array).is_some_and(|a| {
            a.iter()
                .any(|e| e.as_str() == Some("EXT_meshopt_compression"))
        })
    };
    if used("extensionsUsed") {
        return Err(err("EXT_meshopt_compression files are not supported"));
    }

    let mut bin = merge_buffers(doc, obj)?;
    embed_images(base_dir, obj, &mut bin)?;
    // The preview's data: one input accessor, one output per target.
    let input = push_floats(obj, &mut bin, times, "SCALAR", times.len(), true)?;
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (k, (&(node, path), out)) in targets.iter().zip(outputs).enumerate() {
        let ty = if path == 1 { "VEC4" } else { "VEC3" };
        let output = push_floats(obj, &mut bin, out, ty, times.len(), false)?;
        samplers.push(j!({"input": input, "output": output, "interpolation": "LINEAR"}));
        let p = ["translation", "rotation", "scale"]
            .get(usize::from(path))
            .copied()
            .unwrap_or("translation");
        channels.push(j!({"sampler": k, "target": {"node": node, "path": p}}));
    }
    let animations = array(obj, "animations")?;
    let taken = |name: &str| {
        animations
            .iter()
            .any(|a| a.get("name").and_then(Value::as_str) == Some(name))
    };
    let mut name = PREVIEW_NAME.to_string();
    let mut n = 2;
    while taken(&name) {
        name = format!("{PREVIEW_NAME} {n}");
        n += 1;
    }
    animations
        .push(j!({"name": name, "channels": channels, "samplers": samplers, "extras": extras}));
    align4(&mut bin);
    obj.insert("buffers".into(), j!([{"byteLength": bin.len()}]));
    glb::write(0, |out| serde_json::to_writer(out, &v), &bin).map_err(|e| match e {
        GlbError::Json(e) => GaitError::Json(e.to_string()),
        GlbError::TooLarge => err("the GLB would exceed 4 GiB"),
    })
}
