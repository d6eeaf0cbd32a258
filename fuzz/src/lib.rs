//! The harness shared by rigtrip's fuzz targets: the properties every target checks, and an
//! allocator that measures what the code under test allocates.
//!
//! For every input a reader accepts: `write(read(b)) == b` and
//! `write(lower(lift(read(b)))) == b`; `verify_bytes` says "identical" (never "differ"); the
//! CLI's other consumers (inspect, glTF export) do not panic. While the reader, writer, lift
//! and lower run, no single allocation may exceed [`SINGLE_FACTOR`] times the input (plus
//! [`SLACK`]) and the memory live at once may not exceed [`PEAK_FACTOR`] times it: every count
//! and offset must be checked against the input's size before anything is allocated.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};

use rigtrip::native::{Format, NativeFile};
use rigtrip::ops::verify::{describe_difference, verify_bytes, Verdict};
use rigtrip::rig::{self, Rig};

/// Largest single allocation allowed, as a multiple of the input length.
pub const SINGLE_FACTOR: usize = 16;
/// Most memory live at once (above what was live before), as a multiple of the input length.
pub const PEAK_FACTOR: usize = 64;
/// Fixed allowance on top of both limits (tables of 256 slots, messages, small vectors).
pub const SLACK: usize = 64 * 1024;

/// The system allocator, with the largest single allocation and the peak of live bytes
/// recorded while [`measured`] runs. libFuzzer's own `-malloc_limit_mb` needs a sanitizer's
/// allocator hooks, and its limit is absolute; this one scales with the input.
pub struct Measuring;

static ARMED: AtomicBool = AtomicBool::new(false);
static LARGEST: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn note_growth(size: usize, grew: isize) {
    let live = LIVE.fetch_add(grew, Relaxed) + grew;
    if ARMED.load(Relaxed) {
        LARGEST.fetch_max(size, Relaxed);
        PEAK.fetch_max(live, Relaxed);
    }
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated.
unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            note_growth(layout.size(), layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            note_growth(layout.size(), layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size() as isize, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            note_growth(new_size, new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Measuring = Measuring;

/// What a measured call allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// The largest single allocation (or reallocation target), bytes.
    pub largest: usize,
    /// The most bytes live at once, above what was live when the call started.
    pub peak: usize,
}

/// Runs `f` and reports what it allocated. Not reentrant (the fuzzer is single-threaded).
pub fn measured<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    let base = LIVE.load(Relaxed);
    LARGEST.store(0, Relaxed);
    PEAK.store(base, Relaxed);
    ARMED.store(true, Relaxed);
    let r = f();
    ARMED.store(false, Relaxed);
    let usage = Usage {
        largest: LARGEST.load(Relaxed),
        peak: (PEAK.load(Relaxed) - base).max(0) as usize,
    };
    (r, usage)
}

/// Panics when `usage` exceeds the limits for an input of `len` bytes.
pub fn check_usage(what: &str, len: usize, usage: Usage) {
    check_usage_with(what, len, 0, usage);
}

/// [`check_usage`] with `extra` bytes allowed on top of both limits.
pub fn check_usage_with(what: &str, len: usize, extra: usize, usage: Usage) {
    let single = SINGLE_FACTOR * len + SLACK + extra;
    let peak = PEAK_FACTOR * len + SLACK + 4 * extra;
    assert!(
        usage.largest <= single,
        "{what}: a single allocation of {} bytes for a {len}-byte input (limit {single})",
        usage.largest
    );
    assert!(
        usage.peak <= peak,
        "{what}: {} bytes live at once for a {len}-byte input (limit {peak})",
        usage.peak
    );
}

/// Reads `data` as a motion (`pac == false`) or an archive; for an accepted input checks
/// `write(read(b)) == b`, that `verify_bytes` says identical, and that inspect, coverage and
/// dump do not panic. Allocations of read and write are bounded by the input.
pub fn check_motion(pac: bool, data: &[u8]) {
    use rigtrip::native::MotionFormat;
    check_non_rig(
        if pac {
            MotionFormat::Pac
        } else {
            MotionFormat::Mot
        },
        data,
    );
}

/// [`check_motion`] for any non-rig format (motions, archives, PTX bundles, gfxTexture
/// entries).
pub fn check_non_rig(format: rigtrip::native::MotionFormat, data: &[u8]) {
    use rigtrip::native::MotionFile;
    let (read, usage) = measured(|| MotionFile::read(format, data));
    check_usage("motion read", data.len(), usage);
    let file = match read {
        Ok(f) => f,
        Err(e) => {
            let m = rigtrip::chain(&e);
            assert!(
                !m.is_empty() && !m.contains('\n'),
                "rejection message: {m:?}"
            );
            return;
        }
    };
    let (written, usage) = measured(|| file.write());
    check_usage("motion write", data.len(), usage);
    match written {
        Ok(b) => assert!(b == data, "{}", describe_difference(data, &b)),
        Err(e) => panic!("an accepted motion does not write: {}", rigtrip::chain(&e)),
    }
    // Content detection may pick the other magic (a PAC\0 file with MOT\0 at +4 is an archive).
    if rigtrip::native::detect_motion(data) == Some(format) {
        match verify_bytes(None, data) {
            Verdict::Identical { .. } => {}
            v => panic!("verify: {v:?}"),
        }
    }
    let _ = rigtrip::ops::motion::report(&file, data.len());
    let _ = rigtrip::ops::coverage::motion_coverage(&file, data);
    let _ = rigtrip::ops::dump::render(&rigtrip::ops::dump::dump_motion(&file));
}

/// Reads, writes, lifts and lowers; panics when an accepted input does not come back byte for
/// byte. Returns the rig for an accepted input, `None` for a rejected one.
pub fn round_trip(format: Option<Format>, data: &[u8]) -> Option<Rig> {
    let file = match NativeFile::read(format, data) {
        Ok(f) => f,
        Err(e) => {
            // Every rejection has a one-line message (its chain: each layer's clause once).
            let m = rigtrip::chain(&e);
            assert!(!m.is_empty() && !m.contains('\n'), "bad message {m:?}");
            return None;
        }
    };
    let written = match file.write() {
        Ok(b) => b,
        Err(e) => panic!(
            "accepted, but write(read(b)) failed: {}",
            rigtrip::chain(&e)
        ),
    };
    assert!(
        written == data,
        "write(read(b)) != b: {}",
        describe_difference(data, &written)
    );
    let rig = rig::lift(file);
    let lowered = match rig::lower(&rig) {
        Ok(f) => f,
        Err(e) => panic!("accepted, but lower(lift(read(b))) failed: {e}"),
    };
    let rewritten = match lowered.write() {
        Ok(b) => b,
        Err(e) => panic!(
            "accepted, but write(lower(lift(read(b)))) failed: {}",
            rigtrip::chain(&e)
        ),
    };
    assert!(
        rewritten == data,
        "write(lower(lift(read(b)))) != b: {}",
        describe_difference(data, &rewritten)
    );
    Some(rig)
}

/// Everything a reader target checks for one input read as `format`.
pub fn check_native(format: Option<Format>, data: &[u8]) {
    let _ = rigtrip::native::detect(data);
    let (rig, usage) = measured(|| round_trip(format, data));
    check_usage("read/write/lift/lower", data.len(), usage);
    let verdict = verify_bytes(format, data);
    match (&rig, &verdict) {
        (Some(_), Verdict::Identical { .. }) | (None, Verdict::Rejected { .. }) => {}
        _ => panic!("verify_bytes disagrees with the round trip: {verdict:?}"),
    }
    if let Some(rig) = rig {
        consumers(&rig, data.len());
    }
}

/// What the CLI does with an accepted rig besides verifying it: inspect, and export when every
/// skeleton passes the gate. Errors are fine; panics are not.
pub fn consumers(rig: &Rig, len: usize) {
    let report = rigtrip::ops::inspect::report(rig.kind(), len, rig);
    let _ = rigtrip::ops::inspect::render_text(&report);
    if rig.skeletons.iter().all(|s| s.gate.is_ok()) {
        for s in &rig.skeletons {
            let _ = s.inverse_bind_matrices();
        }
        if let Ok(e) = rigtrip::gltf::export(rig, &rigtrip::gltf::ExportOptions::default()) {
            let _ = rigtrip::gltf::to_glb(&e);
        }
    }
}

/// Splits a block target's input into (block offset, node count, file). The first byte picks
/// the encoding: high bit clear, a u16 offset and a u8 count (the useful range); high bit set,
/// a u64 offset and a u64 count, so that values near the types' maxima get tried too.
pub fn split_block_input(data: &[u8]) -> Option<(u64, usize, &[u8])> {
    let (&mode, rest) = data.split_first()?;
    if mode & 0x80 == 0 {
        let (h, file) = rest.split_at_checked(3)?;
        let offset = u16::from_le_bytes([h[0], h[1]]);
        Some((u64::from(offset), usize::from(h[2]), file))
    } else {
        let (h, file) = rest.split_at_checked(16)?;
        let mut o = [0u8; 8];
        let mut n = [0u8; 8];
        o.copy_from_slice(&h[..8]);
        n.copy_from_slice(&h[8..]);
        let nodes = usize::try_from(u64::from_le_bytes(n)).unwrap_or(usize::MAX);
        Some((u64::from_le_bytes(o), nodes, file))
    }
}

/// The inverse of [`split_block_input`] (compact form when it fits), for seeds and tests.
pub fn join_block_input(offset: u64, nodes: usize, file: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(file.len() + 17);
    match (u16::try_from(offset), u8::try_from(nodes)) {
        (Ok(o), Ok(n)) => {
            out.push(0);
            out.extend_from_slice(&o.to_le_bytes());
            out.push(n);
        }
        _ => {
            out.push(0x80);
            out.extend_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&(nodes as u64).to_le_bytes());
        }
    }
    out.extend_from_slice(file);
    out
}

/// The format to read a native file as so that it comes back as `file` (a bare block needs its
/// offset and node count); `None` for a DMC3 file that holds neither container nor block.
pub fn format_of(file: &NativeFile) -> Option<Format> {
    match file {
        NativeFile::Hie(_) => Some(Format::Hie),
        NativeFile::Dmc3(f) => match (&f.container, &f.block) {
            (Some(_), _) => Some(Format::Dmc3),
            (None, Some(b)) => Some(Format::Block {
                offset: b.offset,
                nodes: b.node_count(),
            }),
            (None, None) => None,
        },
    }
}

/// `rigtrip lint` on any bytes: a report (never a panic or hang), with a verdict that matches
/// its counts, and both renderings.
pub fn check_lint(data: &[u8]) {
    let r = rigtrip::lint::lint_slice(data, "fuzz.glb", None);
    let errors = r
        .findings
        .iter()
        .filter(|f| f.severity == rigtrip::lint::Severity::Error)
        .count();
    assert_eq!(errors, r.errors, "{}", r.verdict);
    assert!(r.verdict.starts_with(if errors > 0 {
        "FAIL"
    } else if r.warnings > 0 {
        "WARN"
    } else {
        "OK"
    }));
    assert!(!r.render_text().is_empty());
    assert!(!rigtrip::ops::output::lint_json(std::slice::from_ref(&r)).is_empty());
}

/// Everything the glTF import target checks for one input. Rejections need a one-line message.
/// For an accepted glTF: the bytes are the native structures' bytes; the native reader accepts
/// them and they round-trip; and exporting them and importing the export gives them back
/// (the unedited glTF round trip). Import allocations are bounded like the readers'.
pub fn check_import(data: &[u8]) {
    use rigtrip::gltf::import::{import_slice, ImportOptions};
    let opts = ImportOptions::default();
    let (r, usage) = measured(|| import_slice(data, None, &opts));
    // The native writers zero-fill up to MAX_HOLE_BYTES of holes in structures that came from
    // a glTF's extras (a fixed bound, not a multiple of the input): allow that much on top.
    let holes = rigtrip::native::dmc3::MAX_HOLE_BYTES as usize;
    check_usage_with("import", data.len(), holes, usage);
    let imported = match r {
        Ok(i) => i,
        Err(e) => {
            let m = e.to_string();
            assert!(!m.is_empty() && !m.contains('\n'), "bad message {m:?}");
            return;
        }
    };
    match imported.native.write() {
        Ok(b) => assert!(
            b == imported.bytes,
            "import's bytes are not its structures' bytes: {}",
            describe_difference(&imported.bytes, &b)
        ),
        Err(e) => panic!(
            "import returned structures that cannot be written: {}",
            rigtrip::chain(&e)
        ),
    }
    let Some(format) = format_of(&imported.native) else {
        return;
    };
    let bytes = imported.bytes;
    let Some(rig) = round_trip(Some(format), &bytes) else {
        panic!(
            "import wrote a file the native reader rejects: {:?}",
            NativeFile::read(Some(format), &bytes).err()
        );
    };
    if let Ok(e) = rigtrip::gltf::export(&rig, &rigtrip::gltf::ExportOptions::default()) {
        let glb = rigtrip::gltf::to_glb(&e).unwrap_or_else(|e| {
            panic!(
                "an export of an imported file does not serialise: {}",
                rigtrip::chain(&e)
            )
        });
        match import_slice(&glb, None, &opts) {
            Ok(again) => assert!(
                again.bytes == bytes,
                "native -> glTF -> native changed the file: {}",
                describe_difference(&bytes, &again.bytes)
            ),
            Err(e) => panic!(
                "an unedited export of an imported file does not import: {}",
                rigtrip::chain(&e)
            ),
        }
    }
}
